// The progress display: a status line redrawn in place on a terminal, plain log lines otherwise;
// both carry the round's counters, best speedup, percent of peak, tokens and USD.
#include "search/console_progress.h"

#include <algorithm>
#include <cstdio>
#include <string>

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
  s.kernels_unparsed = 1, s.fixed = 1;
  s.best_latency_ms = best_ms;
  s.usage.input_tokens = 1000, s.usage.output_tokens = 234, s.usage.cost_usd = 0.0125;
  return s;
}

// Feeds a task with a 2 ms baseline and a 0.5 ms peak bound through one round.
std::string drive(bool live) {
  std::FILE* file = std::tmpfile();
  ConsoleProgress progress(file, live, "myrun");
  progress.on_task_start("silu", {"baseline", "", 2.0, std::nullopt}, 0.5);
  progress.on_round_update(stats(12, 0, 0, 0, 2.0));
  progress.on_round_update(stats(12, 20, 10, 3, 2.0));
  progress.on_round_end(stats(12, 23, 23, 4, 1.0));
  std::string text = read_all(file);
  std::fclose(file);
  return text;
}

TEST(ConsoleProgress, LogLinesCarryTheRoundsFiguresOncePerRound) {
  std::string text = drive(false);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_NE(text.find("[myrun] silu: baseline 2.0000 ms, 25.0% of peak\n"), std::string::npos) << text;
  std::string line =
      "[myrun] silu round 2: planned 12, written 23 (1 unparsed), evaluated 23 (4 failed, 1 fixed), best 2.000x "
      "(50.0% of peak), 1234 tokens, 0.0125 USD\n";
  EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find("written 20"), std::string::npos);  // live updates are not logged
}

TEST(ConsoleProgress, OnATerminalTheStatusLineIsRedrawnInPlace) {
  std::string text = drive(true);
  // Each update rewrites the same line (carriage return + erase line); the round's end closes it.
  EXPECT_NE(text.find("\r\033[2K[myrun] silu round 2: planned 12, written 0"), std::string::npos) << text;
  EXPECT_NE(text.find("\r\033[2K[myrun] silu round 2: planned 12, written 20 (1 unparsed), evaluated 10 (3 failed"),
            std::string::npos);
  size_t end = text.find("written 23");
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(text.find('\n', end), text.size() - 1);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);  // the baseline line and the closed status line
}

TEST(ConsoleProgress, AMessageEndsAnOpenStatusLineFirst) {
  std::FILE* file = std::tmpfile();
  ConsoleProgress progress(file, true, "r");
  progress.on_task_start("silu", {"baseline", "", 2.0, std::nullopt}, 0);
  progress.on_round_update(stats(1, 0, 0, 0, 0));
  progress.on_message("budget_usd reached");
  std::string text = read_all(file);
  std::fclose(file);
  EXPECT_NE(text.find("best -, 1234 tokens"), std::string::npos) << text;  // no best or peak yet
  EXPECT_NE(text.find("USD\n[r] budget_usd reached\n"), std::string::npos) << text;
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
  EXPECT_NE(text.find("silu: resuming after round 1 (baseline 2.0000 ms, best 1.0000 ms (2.000x))"), std::string::npos) << text;
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
  EXPECT_NE(text.find("\n[myrun] executor call failed (rate-limited): m at http://h/v1/chat/completions: HTTP 429 after 1 "
                      "attempt: slow down; retrying in 2.5 s (attempt 2 of 5)\n"),
            std::string::npos)
      << text;  // on its own line, after the status line
  EXPECT_NE(text.find("planner call failed (unavailable): refused; retrying in 60.0 s (attempt 7, within the retry window)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("0.0125 USD, 2 retries"), std::string::npos) << text;  // the status line counts them
}

}  // namespace
}  // namespace search
