// The progress display: on a terminal a three-line panel (task i of n, round, a bar of the round's
// evaluations with running and failed kernels, elapsed time and an estimate of the rest, best so
// far, spend, where the report is) redrawn in place; plain log lines otherwise. The tmux test
// (tests/ui/progress_tmux_test.py) checks what a person sees in a real terminal.
#include "search/console_progress.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace search {
namespace {

std::string read_all(std::FILE* file) {
  std::rewind(file);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
  return text;
}

RoundStats stats(int planned, int written, int evaluated, int failed, double best_ms) {
  RoundStats s;
  s.task = "silu";
  s.round = 2;
  s.plans = planned, s.kernels_written = written, s.evaluated = evaluated, s.eval_failed = failed;
  s.attempted = evaluated, s.expected = written;
  s.kernels_unparsed = 1, s.fixed = 1;
  s.best_latency_ms = best_ms;
  s.usage.input_tokens = 1000, s.usage.output_tokens = 234, s.usage.cost_usd = 0.0125;
  return s;
}

struct FakeClock {
  double now = 100;
  ConsoleProgress::Clock fn() {
    return [this] { return now; };
  }
};

ProgressPlan plan() { return {{"gelu", "silu"}, 3, "runs/x/report.html"}; }

// Feeds a task with a 2 ms baseline and a 0.5 ms peak bound through one round.
std::string drive(bool live) {
  std::FILE* file = std::tmpfile();
  FakeClock clock;
  ConsoleProgress progress(file, live, "myrun", plan(), clock.fn());
  progress.on_task_start("silu", {"baseline", "", 2.0, std::nullopt}, 0.5);
  clock.now += 5;
  progress.on_round_update(stats(12, 0, 0, 0, 2.0));
  RoundStats running = stats(12, 20, 10, 3, 2.0);
  running.running = 4, running.batch_done = 2, running.batch_failed = 1;
  clock.now += 5;
  progress.on_round_update(running);
  progress.on_round_end(stats(12, 23, 23, 4, 1.0));
  std::string text = read_all(file);
  std::fclose(file);
  return text;
}

TEST(ConsoleProgress, LogLinesCarryTheTasksPlaceAndTheRoundsFiguresOncePerRound) {
  std::string text = drive(false);
  EXPECT_EQ(text.find('\033'), std::string::npos);
  EXPECT_NE(text.find("[myrun] task 2/2 silu: baseline 2.0000 ms, 25.0% of peak\n"), std::string::npos) << text;
  std::string line =
      "[myrun] task 2/2 silu round 2/3: planned 12, written 23 (1 unparsed), evaluated 23 (4 failed, 1 fixed), best "
      "2.000x (50.0% of peak), 1234 tokens, 0.0125 USD, elapsed 0:10\n";
  EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find("written 20"), std::string::npos);  // live updates are not logged
}

TEST(ConsoleProgress, CountsAreSaidInTheRightNumber) {
  std::FILE* file = std::tmpfile();
  FakeClock clock;
  ConsoleProgress progress(file, false, "myrun", plan(), clock.fn());
  TaskResult one;
  one.task = "silu", one.rounds_done = 1, one.baseline_latency_ms = 2.0, one.best_latency_ms = 1.0;
  progress.on_task_end(one);
  TaskResult two = one;
  two.rounds_done = 2;
  progress.on_task_end(two);
  std::string text = read_all(file);
  std::fclose(file);
  EXPECT_NE(text.find("silu: done after 1 round, 2.0000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("silu: done after 2 rounds, 2.0000 ms"), std::string::npos) << text;
  EXPECT_EQ(text.find("1 rounds"), std::string::npos) << text;
}

TEST(ConsoleProgress, ARoundThatPlansNothingWithoutABoundSaysWhy) {
  std::FILE* file = std::tmpfile();
  FakeClock clock;
  ConsoleProgress progress(file, false, "myrun", plan(), clock.fn());
  progress.on_task_start("silu", {"baseline", "", 2.0, std::nullopt}, 0.5);
  RoundStats idle = stats(0, 0, 0, 0, 2.0);
  idle.no_plan_reason = "c0: of its 12 sites 12 planned before";
  progress.on_round_end(idle);
  std::string text = read_all(file);
  std::fclose(file);
  EXPECT_NE(text.find("planned 0, "), std::string::npos) << text;
  EXPECT_NE(text.find("; no plan: c0: of its 12 sites 12 planned before\n"), std::string::npos) << text;
}

TEST(ConsoleProgress, OnATerminalThePanelIsRedrawnInPlaceAndGivesWayToTheRoundsLine) {
  std::string text = drive(true);
  // The second update moves up over the three panel lines and erases them before drawing again.
  size_t second = text.find("written 20");
  ASSERT_NE(second, std::string::npos) << text;
  EXPECT_NE(text.rfind("\033[3A\r\033[J", second), std::string::npos);
  // 10 applied + 2 of the batch back = 12 of 20 evaluations; 4 running; 3 + 1 failed.
  EXPECT_NE(text.find("  evaluations [############--------] 12/20 · running 4 · failed 4 · elapsed 0:10"),
            std::string::npos) << text;
  EXPECT_NE(text.find("  best 1.000x (25.0% of peak) · 1234 tokens · 0.0125 USD · report: runs/x/report.html"),
            std::string::npos) << text;
  EXPECT_NE(text.find("[myrun] task 2/2 silu · round 2/3 · planned 12, written 20 (1 unparsed)\n"), std::string::npos);
  // The round's end erases the panel and leaves its log line as the last line.
  size_t end = text.find("[myrun] task 2/2 silu round 2/3: planned 12, written 23");
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(text.find('\n', end), text.size() - 1);
  EXPECT_NE(text.rfind("\033[3A\r\033[J", end), std::string::npos);
}

// What a terminal shows after `text`: the lines on screen, reading the only controls the panel
// uses (cursor up n lines, carriage return, erase to the end of the screen).
std::vector<std::string> screen_after(const std::string& text) {
  std::vector<std::string> lines(1);
  size_t row = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "\033[") == 0) {
      size_t end = text.find_first_of("AJ", i + 2);
      if (text[end] == 'A') row -= std::min(row, static_cast<size_t>(std::stoul(text.substr(i + 2, end - i - 2))));
      if (text[end] == 'J') lines.resize(row + 1), lines[row].clear();
      i = end;
    } else if (text[i] == '\r') {
      lines[row].clear();
    } else if (text[i] == '\n') {
      if (++row == lines.size()) lines.emplace_back();
    } else {
      lines[row] += text[i];
    }
  }
  if (lines.back().empty()) lines.pop_back();
  return lines;
}

// The CI failure of session 13: the erase and the new panel were built in one expression whose
// operands C++ may evaluate in any order, so a redraw could forget the panel it had drawn.
TEST(ConsoleProgress, ATerminalShowsOnePanelBelowTheLogLinesAtEveryStep) {
  std::FILE* file = std::tmpfile();
  ConsoleProgress progress(file, true, "r", plan());
  progress.on_task_start("silu", {"baseline", "", 2.0, std::nullopt}, 0.5);
  progress.on_round_update(stats(12, 0, 0, 0, 2.0));
  progress.on_round_update(stats(12, 20, 10, 3, 2.0));
  progress.on_message("budget_usd reached");
  progress.on_round_update(stats(12, 21, 11, 3, 2.0));
  auto running = screen_after(read_all(file));
  ASSERT_EQ(running.size(), 5u) << ::testing::PrintToString(running);
  EXPECT_EQ(running[0], "[r] task 2/2 silu: baseline 2.0000 ms, 25.0% of peak");
  EXPECT_EQ(running[1], "[r] budget_usd reached");
  EXPECT_EQ(running[2], "[r] task 2/2 silu · round 2/3 · planned 12, written 21 (1 unparsed)");
  EXPECT_NE(running[3].find("evaluations [##########----------] 11/21"), std::string::npos) << running[3];
  EXPECT_NE(running[4].find("best 1.000x"), std::string::npos) << running[4];
  progress.on_round_end(stats(12, 23, 23, 4, 1.0));
  auto ended = screen_after(read_all(file));
  ASSERT_EQ(ended.size(), 3u) << ::testing::PrintToString(ended);
  EXPECT_EQ(ended[1], "[r] budget_usd reached");
  EXPECT_EQ(ended[2].rfind("[r] task 2/2 silu round 2/3: planned 12, written 23", 0), 0u) << ended[2];
  std::fclose(file);
}

TEST(ConsoleProgress, EstimatesTheRestFromThePaceOfThisProcess) {
  std::FILE* file = std::tmpfile();
  FakeClock clock;
  ConsoleProgress progress(file, true, "r", {{"a", "b"}, 2, ""}, clock.fn());
  RoundStats s;
  s.task = "a", s.round = 1, s.expected = 10;
  progress.on_round_update(s);
  EXPECT_NE(progress.panel(s)[1].find("left ?"), std::string::npos);  // nothing done yet: no estimate
  clock.now += 30;
  s.attempted = 5;  // half a round in 30 s: 60 s a round, 3.5 of 4 rounds to go
  EXPECT_NE(progress.panel(s)[1].find("elapsed 0:30 · left ~3:30"), std::string::npos) << progress.panel(s)[1];
  std::fclose(file);
}

TEST(ConsoleProgress, AMessageIsPrintedAboveThePanel) {
  std::FILE* file = std::tmpfile();
  ConsoleProgress progress(file, true, "r");
  progress.on_task_start("silu", {"baseline", "", 2.0, std::nullopt}, 0);
  progress.on_round_update(stats(1, 0, 0, 0, 0));
  progress.on_message("budget_usd reached");
  std::string text = read_all(file);
  std::fclose(file);
  size_t message = text.find("[r] budget_usd reached\n");
  ASSERT_NE(message, std::string::npos) << text;
  EXPECT_NE(text.rfind("\033[3A\r\033[J", message), std::string::npos);  // the panel was erased first
  // Drawn again below; the round has no best of its own yet, so the best so far is the baseline.
  EXPECT_NE(text.find("best 1.000x · 1234 tokens", message), std::string::npos) << text;
}

TEST(ConsoleProgress, WhileARoundRunsTheBestIsTheLastFinishedRoundsBest) {
  std::FILE* file = std::tmpfile();
  ConsoleProgress progress(file, true, "r");
  progress.on_task_start("silu", {"baseline", "", 2.0, std::nullopt}, 0.5);
  progress.on_round_end(stats(1, 1, 1, 0, 1.6));
  RoundStats next = stats(1, 0, 0, 0, 0);
  next.round = 3;
  EXPECT_NE(progress.panel(next)[2].find("best 1.250x (31.2% of peak)"), std::string::npos) << progress.panel(next)[2];
  std::fclose(file);
}

// Issue 12, defect 9: a resumed run never saw on_task_start, so its round lines said "best -".
TEST(ConsoleProgress, AResumedTaskShowsItsBestSpeedup) {
  std::FILE* file = std::tmpfile();
  ConsoleProgress progress(file, /*live=*/false, "myrun");
  TaskResult so_far;
  so_far.task = "silu";
  so_far.baseline_latency_ms = 2.0;
  so_far.best_latency_ms = 1.0;
  so_far.peak_latency_ms = 0.5;
  so_far.rounds_done = 1;
  progress.on_task_resume(so_far);
  progress.on_round_end(stats(12, 23, 23, 4, 0.8));
  std::string text = read_all(file);
  std::fclose(file);
  EXPECT_NE(text.find("[myrun] silu: resuming after round 1 (baseline 2.0000 ms, best 1.0000 ms (2.000x))"), std::string::npos) << text;
  EXPECT_NE(text.find("best 2.500x (62.5% of peak)"), std::string::npos) << text;
}

// Issue 12, defect 4: retries were silent.
TEST(ConsoleProgress, EachRetryIsALineWithItsCauseAndWait) {
  std::FILE* file = std::tmpfile();
  ConsoleProgress progress(file, /*live=*/true, "myrun");
  progress.on_task_start("silu", {"baseline", "", 2.0, std::nullopt}, 0.5);
  progress.on_round_update(stats(12, 0, 0, 0, 2.0));
  progress.on_retry("executor", {"m", "http://h/v1/chat/completions", llm::LlmError::Kind::RateLimited,
                                 "m at http://h/v1/chat/completions: HTTP 429 after 1 attempt: slow down", 1, 5, 2.5});
  progress.on_retry("planner", {"m", "http://h", llm::LlmError::Kind::Unavailable, "refused", 6, 5, 60});
  progress.on_round_update(stats(12, 1, 0, 0, 2.0));
  std::string text = read_all(file);
  std::fclose(file);
  // On its own line: the panel is erased first, then drawn again below it.
  EXPECT_NE(text.find("\033[J[myrun] executor call failed (rate-limited): m at http://h/v1/chat/completions: HTTP 429 after 1 "
                      "attempt: slow down; retrying in 2.5 s (attempt 2 of 5)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("planner call failed (unavailable): refused; retrying in 60.0 s (attempt 7, within the retry window)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("0.0125 USD · 2 retries"), std::string::npos) << text;  // the panel counts them
  // So does the round's line; the next round starts from none.
  FakeClock clock;
  std::FILE* log = std::tmpfile();
  ConsoleProgress plain(log, /*live=*/false, "myrun", plan(), clock.fn());
  plain.on_retry("planner", {"m", "http://h", llm::LlmError::Kind::Unavailable, "refused", 1, 5, 1});
  plain.on_round_end(stats(12, 23, 23, 4, 1.0));
  plain.on_round_end(stats(12, 23, 23, 4, 1.0));
  text = read_all(log);
  std::fclose(log);
  EXPECT_NE(text.find("0.0125 USD, 1 retry, elapsed"), std::string::npos) << text;
  EXPECT_EQ(text.find("retry, elapsed"), text.rfind("retry, elapsed")) << text;
}

TEST(ConsoleProgress, BarAndClock) {
  EXPECT_EQ(ConsoleProgress::bar(5, 10, 10), "[#####-----]");
  EXPECT_EQ(ConsoleProgress::bar(0, 0, 4), "[----]");
  EXPECT_EQ(ConsoleProgress::bar(12, 10, 4), "[####]");
  EXPECT_EQ(ConsoleProgress::clock_text(65), "1:05");
  EXPECT_EQ(ConsoleProgress::clock_text(3 * 3600 + 4), "3:00:04");
  EXPECT_EQ(ConsoleProgress::fit("a · b · c", 5), "a · …");
  EXPECT_EQ(ConsoleProgress::fit("a · b", 5), "a · b");
  EXPECT_EQ(ConsoleProgress::fit("a · b", 0), "a · b");
}

}  // namespace
}  // namespace search
