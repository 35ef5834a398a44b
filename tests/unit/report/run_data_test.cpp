// The report's page data from a run directory (a store written through the RunStore API, as the
// search loop writes it), the memory's bookkeeping, the reproduce command, the timeline strips,
// and the page itself (self-contained, data embedded safely).
#include "base/content_hash.h"
#include "report/run_data.h"

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/live_report.h"
#include "report/page.h"
#include "report/timeline_summary.h"
#include "store/run_store.h"

namespace report {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("accelopt-report-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

int64_t add_kernel(store::RunStore& s, int64_t run, const std::string& text, const std::string& status,
                   std::optional<double> ms, const std::string& diagnostics = "", const std::string& evaluation_json = "") {
  int64_t id = s.add_kernel({0, run, "silu", base::content_hash(text), text, 0, 0, 0, -1});
  store::EvaluationRecord e;
  e.kernel_id = id;
  e.status = status;
  e.latency_ms = ms;
  e.diagnostics = diagnostics;
  e.evaluation_json = evaluation_json;
  if (ms) e.profile_json = nlohmann::json{{"latency", *ms}, {"engine_busy_ms", {{"act", *ms / 2}}}}.dump();
  s.add_evaluation(e);
  return id;
}

// A finished one-task run: baseline -> two kernels in round 1 (one faster, one incorrect), with
// a memory item, written as the search loop writes a store.
void write_run(const fs::path& dir, const std::string& status = "finished") {
  store::RunStore s((dir / "run.db").string());
  nlohmann::json config = {{"tasks", "silu"}, {"agent", "builtin"}, {"arch", "trn1"},
                           {"params", {{"B", 2}, {"N", 3}, {"K", 1}, {"T", 1}, {"topk", 8}, {"expn", 16}}},
                           {"budgets", {{"usd", 0}, {"evals", 50}}}};
  std::ofstream(dir / "config.json") << config.dump();
  int64_t run = s.create_run(dir.filename().string(), config.dump());
  int64_t base = add_kernel(s, run, "def base(): pass", "ok", 2.0);
  int64_t fast = add_kernel(s, run, "def fast(): return '</script><script>alert(1)</script>'", "ok", 1.0);
  // The typed failure as the evaluation core records it (docs/evaluation.md "Statuses").
  int64_t bad = add_kernel(s, run, "def bad(): pass", "incorrect", std::nullopt, "mismatch on seed 0",
                           nlohmann::json{{"status", "incorrect"}, {"failure", {{"stage", "compare"}, {"kind", "value"},
                                                                                 {"message", "mismatch on seed 0"}}}}
                               .dump());
  s.begin_round(run, "silu", 1);
  s.set_beam(run, 0, {{run, 0, "silu", 0, base}});
  int64_t plan = s.add_plan({0, run, 1, "silu", base, 0, "Fuse the activation\n\nwhy"});
  s.set_kernel_origin(fast, base, plan, 0, 1);
  s.set_kernel_origin(bad, base, plan, 0, 1);
  s.set_beam(run, 1, {{run, 1, "silu", 0, fast}, {run, 1, "silu", 1, base}});
  s.add_memory_item({0, run, 1, nlohmann::json{{"task", "silu"}, {"round", 1}, {"kind", "positive"}, {"speedup", 2.0},
                                                {"plan", "Fuse the activation"}, {"key_change", "k"}, {"lesson", "l"},
                                                {"slow_code", "x"}, {"fast_code", "y"}}
                                     .dump()});
  s.complete_round(run, "silu", 1, "{}");
  s.set_run_status(run, status);
  nlohmann::json summary = {{"format", "accelopt-run-summary"}, {"run", "r"}, {"status", status}, {"evaluations", 3},
                            {"tasks", {{{"task", "silu"}, {"kernel_file_name", "silu.py"}, {"baseline_latency_ms", 2.0},
                                        {"best_latency_ms", 1.0}, {"rounds_done", 1}, {"recheck", "passed"},
                                        {"best_latency_low", 0.8}, {"best_latency_high", 1.3}, {"speedup_confidence", "unconfirmed"},
                                        {"rounds", {{{"round", 1}, {"best_latency_ms", 1.0}, {"evaluations", 3}}}}}}}};
  std::ofstream(dir / "summary.json") << summary.dump();
  fs::create_directories(dir / "best");
  std::ofstream(dir / "best" / "silu.py") << "def fast(): return '</script><script>alert(1)</script>'";
}

ReportOptions no_timeline() {
  ReportOptions o;
  o.timeline = false;
  return o;
}

TEST(RunData, AFinishedRunsPageDataHasEveryFigure) {
  TempDir tmp;
  write_run(tmp.path);
  nlohmann::json data = load_run_data(tmp.path.string(), no_timeline());
  EXPECT_EQ(data["kind"], "run");
  EXPECT_EQ(data["run"]["status"], "finished");
  EXPECT_FALSE(data["run"]["live"]);
  ASSERT_EQ(data["tasks"].size(), 1u);
  const auto& t = data["tasks"][0];
  EXPECT_EQ(t["recheck"], "passed");
  EXPECT_EQ(t["curve"].size(), 3u);
  EXPECT_EQ(t["curve"][1][4], 1.0);  // best so far after the second evaluation
  EXPECT_EQ(t["lineage"]["best"], 2);
  EXPECT_EQ(t["lineage"]["nodes"].size(), 2u);
  EXPECT_EQ(t["profiles"]["best"]["latency"], 1.0);
  EXPECT_EQ(t["profiles"]["baseline"]["latency"], 2.0);
  EXPECT_EQ(t["failures"]["top"][0]["text"], "mismatch on seed N");
  EXPECT_EQ(t["failures"]["top"][0]["status"], "incorrect");
  EXPECT_EQ(t["failures"]["top"][0]["stage"], "compare");  // from the evaluation's typed failure
  // summary.json's error band and speedup confidence reach the page as the run wrote them.
  EXPECT_EQ(t["speedup_confidence"], "unconfirmed");
  EXPECT_EQ(t["best_latency_high"], 1.3);
  const auto& item = data["memory"]["items"][0];
  EXPECT_FALSE(item.contains("slow_code"));  // the page shows lessons, not the pair's code
  EXPECT_EQ(item["offered"], 0);             // no plan came after it
  EXPECT_THAT(data["run"]["command"].get<std::string>(),
              ::testing::StartsWith("accelopt optimize --tasks silu --agent builtin --B 2 --N 3 --K 1 --T 1"));
  EXPECT_THAT(data["run"]["command"].get<std::string>(), ::testing::HasSubstr("--budget-evals 50 --out "));
}

TEST(RunData, ARunStillGoingIsLive) {
  TempDir tmp;
  write_run(tmp.path, "running");
  nlohmann::json data = load_run_data(tmp.path.string(), no_timeline());
  EXPECT_TRUE(data["run"]["live"]);
  EXPECT_EQ(data["tasks"][0]["curve"].size(), 3u);
}

TEST(RunData, ResumePointsAreMarkedWhereTheRunPickedUp) {
  TempDir tmp;
  write_run(tmp.path);
  search::RunState state;
  state.evaluations = 12;
  state.usage.cost_usd = 0.5;
  state.current = search::TaskProgress{};
  state.current->result.task = "silu";
  state.current->result.rounds_done = 2;
  state.current->result.evaluations = 7;
  record_resume(tmp.path.string(), state);
  state.evaluations = 20;
  record_resume(tmp.path.string(), state);
  nlohmann::json marks = load_run_data(tmp.path.string(), no_timeline())["resumes"];
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0]["evaluations"], 12);
  EXPECT_DOUBLE_EQ(marks[0]["usd"].get<double>(), 0.5);
  EXPECT_EQ(marks[0]["task"], "silu");
  EXPECT_EQ(marks[0]["round"], 2);
  EXPECT_EQ(marks[0]["task_evaluations"], 7);
  EXPECT_EQ(marks[1]["evaluations"], 20);
  TempDir fresh;
  EXPECT_EQ(read_resumes(fresh.path.string()), nlohmann::json::array());
}

TEST(RunData, NotARunDirectoryIsAClearError) {
  TempDir tmp;
  try {
    load_run_data(tmp.path.string());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("not a run directory (no run.db)"));
  }
  EXPECT_FALSE(fs::exists(tmp.path / "run.db"));  // and nothing was created
}

TEST(RunData, TheComparisonCarriesEachRunWithoutKernels) {
  TempDir a, b;
  write_run(a.path);
  write_run(b.path);
  nlohmann::json data = load_compare_data({a.path.string(), b.path.string()});
  EXPECT_EQ(data["kind"], "compare");
  ASSERT_EQ(data["runs"].size(), 2u);
  EXPECT_FALSE(data["runs"][0]["tasks"][0].contains("lineage"));
  EXPECT_TRUE(data["runs"][1]["tasks"][0].contains("curve"));
}

TEST(RunData, MemoryItemsCountThePlansThatSawThemUntilEvicted) {
  auto item = [](const std::string& plan) { return nlohmann::json{{"plan", plan}, {"lesson", "l"}}; };
  // Capacity 2: item 0 (round 1) is evicted by item 2 (round 3); plans of round 3 still saw it.
  std::vector<MemoryEntry> items = {{item("tile"), 1}, {item("fuse"), 2}, {item("tile"), 3}};
  std::vector<PlanUse> plans = {{1, "tile", 1, 1}, {2, "tile", 2, 1}, {3, "fuse", 1, 0}, {3, "tile", 1, 1}, {4, "tile", 3, 2}};
  nlohmann::json out = memory_usage_json(items, plans, 2);
  EXPECT_EQ(out[0]["offered"], 3);  // rounds 2, 3, 3
  EXPECT_EQ(out[0]["reused"], 2);   // the two "tile" plans among them
  EXPECT_EQ(out[0]["reused_kernels"], 3);
  EXPECT_EQ(out[0]["reused_improved"], 2);
  EXPECT_TRUE(out[0]["evicted"]);
  EXPECT_EQ(out[1]["offered"], 3);  // rounds 3, 3, 4 (never evicted)
  EXPECT_EQ(out[1]["reused"], 1);
  EXPECT_FALSE(out[1]["evicted"]);
}

TEST(RunData, TimelineStripsAreBusyFractionsPerBucket) {
  nlohmann::json trace = {{"traceEvents",
                           {{{"ph", "M"}, {"tid", 1}, {"name", "thread_name"}, {"args", {{"name", "pe"}}}},
                            {{"ph", "X"}, {"tid", 1}, {"name", "mm"}, {"ts", 0.0}, {"dur", 1.0}},
                            {{"ph", "X"}, {"tid", 2}, {"name", "dma"}, {"ts", 1.0}, {"dur", 3.0}}}}};
  nlohmann::json s = summarize_trace(trace, 4);
  EXPECT_DOUBLE_EQ(s["total_us"].get<double>(), 4.0);
  ASSERT_EQ(s["tracks"].size(), 2u);
  EXPECT_EQ(s["tracks"][0]["name"], "pe");
  EXPECT_EQ(s["tracks"][0]["busy"], (std::vector<int>{100, 0, 0, 0}));
  EXPECT_EQ(s["tracks"][1]["name"], "track 2");
  EXPECT_EQ(s["tracks"][1]["busy"], (std::vector<int>{0, 100, 100, 100}));
  EXPECT_TRUE(summarize_trace(nlohmann::json::object(), 4).contains("error"));
}

TEST(Page, IsSelfContainedAndKernelTextCannotEndTheDataScript) {
  TempDir tmp;
  write_run(tmp.path);
  std::string html = render_page(load_run_data(tmp.path.string(), no_timeline()), "run <r>");
  EXPECT_THAT(html, ::testing::HasSubstr("<title>run &lt;r&gt;</title>"));
  size_t data = html.find("id=\"report-data\">");
  ASSERT_NE(data, std::string::npos);
  size_t end = html.find("</script>", data);
  // The kernel text's "</script>" is escaped inside the data.
  EXPECT_EQ(html.substr(data, end - data).find("</"), std::string::npos);
  EXPECT_THAT(html.substr(data, end - data), ::testing::HasSubstr("\\u003c/script>"));
  // No network: nothing is loaded from elsewhere.
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_THAT(html, ::testing::HasSubstr("diffLines"));  // jsdiff is embedded
}

}  // namespace
}  // namespace report
