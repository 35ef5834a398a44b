// What the report derives from a task's history: the best-so-far curve, re-check detection, the
// lineage (through a fixer's drafts), failure counts and diagnostics folded by kind.
#include "report/task_history.h"

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace report {
namespace {

KernelEntry kernel(int64_t id, int64_t parent, int round, const std::string& status, std::optional<double> ms,
                   int64_t order, const std::string& text = "", int64_t plan = 0, const std::string& diag = "") {
  KernelEntry k;
  k.id = id, k.parent = parent, k.round = round, k.status = status, k.latency_ms = ms, k.plan = plan;
  k.text = text.empty() ? "kernel " + std::to_string(id) : text;
  k.evaluated = !status.empty();
  k.eval_order = order;
  k.diagnostics = diag;
  return k;
}

// baseline 1 (2 ms) -> round 1: 2 (1.5 ms, beam), 3 (incorrect), 4 (draft, compile error) -> 5 (fix, 1.0 ms, beam)
// round 2 from 5: 6 (0.8 ms, beam), 7 (runtime error); then the re-check evaluates 6's text again (8).
TaskHistory sample() {
  TaskHistory h;
  h.task = "silu";
  h.kernels = {kernel(1, 0, -1, "ok", 2.0, 1, "base"),
               kernel(2, 1, 1, "ok", 1.5, 2, "", 10),
               kernel(3, 1, 1, "incorrect", std::nullopt, 3, "", 10, "mismatch: rel_l2 0.5 > 2e-05 on seed 21"),
               kernel(4, 1, 1, "compile_error", std::nullopt, 4, "", 11, "k.py:12:5: error: name 'x' is not defined"),
               kernel(5, 4, 1, "ok", 1.0, 5, "", 11),
               kernel(6, 5, 2, "ok", 0.8, 6, "best", 12),
               kernel(7, 5, 2, "runtime_error", std::nullopt, 7, "", 12, "k.py:30:1: error: index 130 out of range"),
               kernel(8, 0, -1, "ok", 0.8, 8, "best")};
  h.beams = {{0, {1}}, {1, {5, 2}}, {2, {6, 5}}};
  h.plans = {{10, "Fuse the activation\n\ndetails"}, {11, "## Hoist loads\nmore"}, {12, "Tile wider"}};
  return h;
}

TEST(TaskHistory, TheBaselineIsRoundZerosBeamElseTheFirstKernelWithoutOrigin) {
  TaskHistory h = sample();
  EXPECT_EQ(baseline_id(h), 1);
  h.beams.clear();
  h.kernels[0].id = 1;
  EXPECT_EQ(baseline_id(h), 1);
}

TEST(TaskHistory, ReCheckEvaluationsAreKernelsWithoutOriginRepeatingAnotherKernelsText) {
  EXPECT_EQ(recheck_ids(sample()), (std::set<int64_t>{8}));
  TaskHistory running = sample();
  running.kernels[6].parent = 0, running.kernels[6].round = -1;  // a kernel of a round still running
  EXPECT_EQ(recheck_ids(running), (std::set<int64_t>{8}));
}

TEST(TaskHistory, BestSoFarFollowsTheEvaluationOrderAndIgnoresFailuresAndReChecks) {
  auto curve = best_so_far(sample());
  ASSERT_EQ(curve.size(), 7u);
  std::vector<double> best;
  for (const auto& p : curve) best.push_back(p.best_ms);
  EXPECT_EQ(best, (std::vector<double>{2.0, 1.5, 1.5, 1.5, 1.0, 0.8, 0.8}));
  EXPECT_EQ(curve[2].status, "incorrect");
  EXPECT_FALSE(curve[2].latency_ms);
  EXPECT_EQ(curve.back().kernel, 7);
}

TEST(TaskHistory, TheLineageGoesThroughTheFixersDraft) {
  EXPECT_EQ(lineage_path(sample(), 6), (std::vector<int64_t>{1, 4, 5, 6}));
  TaskHistory loop = sample();
  loop.kernels[0].parent = 6;  // a malformed store must not hang the report
  EXPECT_LE(lineage_path(loop, 6).size(), 8u);
}

TEST(TaskHistory, TheBestKernelIsTheOneWithTheBestFilesTextElseTheLastBeamsFirst) {
  EXPECT_EQ(best_kernel_id(sample(), "best"), 6);  // not the re-check's copy (8)
  EXPECT_EQ(best_kernel_id(sample(), ""), 6);
}

TEST(TaskHistory, LineageNodesAreBeamMembersAndThePathWithTheirChildren) {
  nlohmann::json lin = lineage_json(sample(), 6, false);
  std::vector<int64_t> ids;
  for (const auto& n : lin["nodes"]) ids.push_back(n["id"]);
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 4, 5, 6}));  // 4: the draft on the way to 5
  EXPECT_EQ(lin["best"], 6);
  EXPECT_EQ(lin["baseline"], 1);
  const auto& base = lin["nodes"][0];
  EXPECT_TRUE(base["is_baseline"]);
  EXPECT_EQ(base["children"].size(), 3u);
  const auto& fix = lin["nodes"][3];
  EXPECT_EQ(fix["plan"], "Hoist loads");
  // The fix is compared with the nearest correct ancestor (the baseline), not the failed draft.
  EXPECT_DOUBLE_EQ(fix["speedup_vs_parent"].get<double>(), 2.0);
  EXPECT_TRUE(fix["on_best_path"]);
  EXPECT_FALSE(lin["nodes"][1]["on_best_path"]);
  EXPECT_EQ(fix["beam_rounds"], (std::vector<int>{1, 2}));
  const auto& child = fix["children"][1];
  EXPECT_EQ(child["id"], 7);
  EXPECT_EQ(child["diagnostic"], "k.py:N:N: error: index N out of range");
  EXPECT_FALSE(child["in_tree"]);
  // Without all codes, only the nodes' texts are embedded.
  EXPECT_TRUE(lin["codes"].contains("6"));
  EXPECT_FALSE(lin["codes"].contains("7"));
  EXPECT_TRUE(lineage_json(sample(), 6, true)["codes"].contains("7"));
  EXPECT_FALSE(lineage_json(sample(), 6, true)["codes"].contains("8"));
}

TEST(TaskHistory, FailuresAreCountedPerRoundAndFoldedByKind) {
  TaskHistory h = sample();
  h.kernels.push_back(kernel(9, 5, 2, "runtime_error", std::nullopt, 9, "", 12, "k.py:31:9: error: index 200 out of range"));
  nlohmann::json f = failures_json(h);
  ASSERT_EQ(f["rounds"].size(), 2u);
  EXPECT_EQ(f["rounds"][0]["round"], 1);
  EXPECT_EQ(f["rounds"][0]["counts"], (nlohmann::json{{"ok", 2}, {"incorrect", 1}, {"compile_error", 1}}));
  EXPECT_EQ(f["rounds"][1]["counts"], (nlohmann::json{{"ok", 1}, {"runtime_error", 2}}));
  EXPECT_EQ(f["top"][0]["text"], "k.py:N:N: error: index N out of range");
  EXPECT_EQ(f["top"][0]["count"], 2);
  EXPECT_EQ(f["top"].size(), 3u);
}

// Evaluations that recorded a typed failure are grouped by status and stage first: the same
// message from two stages is two rows, and each row says its status and stage.
TEST(TaskHistory, FailuresCarryTheirTypedStatusAndStage) {
  TaskHistory h = sample();
  h.kernels[6].failure_stage = "run_kernel";
  h.kernels.push_back(kernel(9, 5, 2, "runtime_error", std::nullopt, 9, "", 12, "k.py:31:9: error: index 200 out of range"));
  h.kernels.back().failure_stage = "lower";
  nlohmann::json f = failures_json(h);
  ASSERT_EQ(f["top"].size(), 4u);
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& row : f["top"]) {
    seen.insert({row["status"].get<std::string>(), row["stage"].get<std::string>()});
    if (row["status"] == "runtime_error") EXPECT_EQ(row["text"], "k.py:N:N: error: index N out of range");
    EXPECT_EQ(row["count"], 1);
  }
  EXPECT_EQ(seen, (std::set<std::pair<std::string, std::string>>{
                      {"runtime_error", "run_kernel"}, {"runtime_error", "lower"}, {"incorrect", ""}, {"compile_error", ""}}));
}

TEST(TaskHistory, PlanTitlesAndDiagnosticKinds) {
  EXPECT_EQ(plan_title("## Hoist loads  \nbody"), "Hoist loads");
  EXPECT_EQ(plan_title(""), "");
  EXPECT_EQ(diagnostic_kind("mismatch: rel_l2 0.5 > 2e-05 on seed 21\nmore"), "mismatch: rel_l2 N > Ne-N on seed N");
}

}  // namespace
}  // namespace report
