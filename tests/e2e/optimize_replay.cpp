// `accelopt optimize --replay RUN_DIR --out NEW_DIR` (issue 12, Replay): a recorded run re-run
// with every model answer served from RUN_DIR's store, no endpoint. With the same settings it
// reproduces the run bit for bit (kernels, latencies, beam decisions, memory, spending); with
// another arch it judges the same answers anew; a request the recording has no answer for is an
// explicit error naming it.
#include "optimize_e2e.h"
#include "store/run_store.h"

namespace {

using namespace optimize_e2e;

// What a run decided, read from its store: per round and rank, the beam's kernel texts; per
// kernel text, its evaluated status and latency.
struct Decisions {
  std::map<std::pair<int, int>, std::string> beams;
  std::map<std::string, std::pair<std::string, double>> evaluations;
};

Decisions decisions(const fs::path& run_dir) {
  store::RunStore store((run_dir / "run.db").string());
  int64_t run_id = store.latest_run()->id;
  Decisions out;
  for (int round = 0; round <= 2; ++round)
    for (const auto& member : store.beam(run_id, round))
      out.beams[{round, member.rank}] = store.find_kernel(member.kernel_id)->text;
  for (const auto& kernel : store.kernels(run_id)) {
    auto evaluation = store.find_evaluation(kernel.id);
    if (evaluation) out.evaluations[kernel.text] = {evaluation->status, evaluation->latency_ms.value_or(-1)};
  }
  return out;
}

std::string replay_args(const fs::path& from, const fs::path& to, const std::string& extra = "") {
  return fmt::format("optimize --no-progress --workers 1 --replay {} --out {} {}", from.string(), to.string(), extra);
}

TEST_F(OptimizeE2E, ReplayReproducesARecordedRunBitForBitWithoutAnEndpoint) {
  start_server(script());
  Result recorded = run(optimize_args("recorded"));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.output;
  int64_t asked = server_->stats().requests;
  server_->stop();  // no endpoint from here on: any call would fail

  Result replayed = run(replay_args(dir_ / "recorded", dir_ / "replayed"));
  ASSERT_EQ(replayed.exit_code, 0) << replayed.output;
  EXPECT_NE(replayed.output.find("replaying"), std::string::npos) << replayed.output;
  EXPECT_EQ(server_->stats().requests, asked);

  auto a = summary("recorded"), b = summary("replayed");
  EXPECT_EQ(b["status"], "finished");
  ASSERT_EQ(a["tasks"].size(), b["tasks"].size());
  const auto &ta = a["tasks"][0], &tb = b["tasks"][0];
  for (const char* key : {"baseline_latency_ms", "best_latency_ms", "speedup", "best_id", "rounds_done", "recheck",
                          "searched_best_latency_ms", "evaluations"})
    EXPECT_EQ(ta[key], tb[key]) << key;
  ASSERT_EQ(ta["rounds"].size(), tb["rounds"].size());
  for (size_t round = 0; round < ta["rounds"].size(); ++round) {
    auto ra = ta["rounds"][round], rb = tb["rounds"][round];
    ra.erase("usage"), rb.erase("usage");  // replayed_calls differ: every answer of the replay is replayed
    EXPECT_EQ(ra, rb) << "round " << round + 1;
  }
  // The same spending: the replay accounts the recorded answers' tokens and cost (the USD total
  // is a sum of doubles in the order the parallel calls ended, so it may differ in the last bit).
  for (const char* key : {"input_tokens", "output_tokens", "calls", "failed_calls"})
    EXPECT_EQ(a["usage"][key], b["usage"][key]) << key;
  EXPECT_NEAR(a["usage"]["cost_usd"].get<double>(), b["usage"]["cost_usd"].get<double>(), 1e-12);
  EXPECT_EQ(b["usage"]["replayed_calls"], b["usage"]["calls"]);
  EXPECT_EQ(slurp(dir_ / "recorded/best/add_M256_N512_0.py"), slurp(dir_ / "replayed/best/add_M256_N512_0.py"));
  EXPECT_EQ(slurp(dir_ / "recorded/memory.json"), slurp(dir_ / "replayed/memory.json"));
  // Every beam decision and every evaluation, kernel by kernel (evaluated anew by the replay).
  Decisions da = decisions(dir_ / "recorded"), db = decisions(dir_ / "replayed");
  EXPECT_FALSE(da.beams.empty());
  EXPECT_EQ(da.beams, db.beams);
  EXPECT_EQ(da.evaluations, db.evaluations);

  // A replay is a run: resuming it calls nothing and changes nothing.
  Result again = run("optimize --no-progress --resume " + (dir_ / "replayed").string());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(summary("replayed")["tasks"][0]["best_id"], ta["best_id"]);
}

TEST_F(OptimizeE2E, ReplayOnAnotherArchJudgesTheSameAnswersAnew) {
  start_server(script());
  ASSERT_EQ(run(optimize_args("recorded")).exit_code, 0);
  server_->stop();
  Result trn2 = run(replay_args(dir_ / "recorded", dir_ / "trn2", "--arch trn2"));
  ASSERT_EQ(trn2.exit_code, 0) << trn2.output;
  auto s = summary("trn2");
  EXPECT_EQ(s["status"], "finished");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "trn2/config.json"))["arch"], "trn2");
  // The prompts quote trn2 profiles, so no request is the recorded one exactly: the answers were
  // found by what was asked (kernels and plans), and every kernel the replay judged is one the
  // recorded run's model wrote.
  Decisions recorded = decisions(dir_ / "recorded"), judged = decisions(dir_ / "trn2");
  for (const auto& [text, outcome] : judged.evaluations) EXPECT_TRUE(recorded.evaluations.count(text)) << text;
  // ... judged on trn2: the baseline's latency is trn2's, not trn1's.
  double trn1_baseline = summary("recorded")["tasks"][0]["baseline_latency_ms"].get<double>();
  EXPECT_NE(s["tasks"][0]["baseline_latency_ms"].get<double>(), trn1_baseline);
  EXPECT_EQ(slurp(dir_ / "trn2/best/add_M256_N512_0.py"), add_kernel(512));
}

TEST_F(OptimizeE2E, ReplayThatAsksSomethingNewNamesTheRequest) {
  start_server(script());
  ASSERT_EQ(run(optimize_args("recorded")).exit_code, 0);
  server_->stop();
  // Another baseline kernel: the planner is asked about a kernel the recorded run never showed it.
  fs::copy(dir_ / "bench", dir_ / "bench2", fs::copy_options::recursive);
  spit(dir_ / "bench2/kernels/add_M256_N512_0.py", add_kernel(256));
  Result r = run(replay_args(dir_ / "recorded", dir_ / "diverged", "--bench-root " + (dir_ / "bench2").string()));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("has no recorded answer for the planner call at add_M256_N512/r1/c0"), std::string::npos)
      << r.output;
  EXPECT_EQ(summary("diverged")["stop"], "replay_missing");
  // Replaying a run directory that is not one, or over an existing run, is refused at once.
  EXPECT_EQ(run(replay_args(dir_ / "nothing", dir_ / "x")).exit_code, 2);
  EXPECT_EQ(run(replay_args(dir_ / "recorded", dir_ / "recorded")).exit_code, 2);
}

}  // namespace
