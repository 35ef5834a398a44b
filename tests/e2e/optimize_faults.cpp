// `accelopt optimize` against a misbehaving model endpoint and bad input: rate limiting with
// Retry-After, an answer slower than the per-call timeout, and a malformed agents config.
#include "optimize_e2e.h"

namespace {

using namespace optimize_e2e;

// The fault rule goes first and, once its replies are used up, falls through to the script.
std::string with_fault_first(const std::string& fault_rule) {
  std::string base = script();
  return "rules:\n" + fault_rule + base.substr(std::string("rules:\n").size());
}

// Arguments of a one-round run (the fixture's default is two).
std::string one_round(std::string args) {
  args.replace(args.find("--T 2"), 5, "--T 1");
  return args;
}

TEST_F(OptimizeE2E, RateLimitedCallWaitsForRetryAfterAndSucceeds) {
  std::string throttle = R"(  - name: throttle
    contains: "different optimization plans"
    repeat_last: false
    replies:
      - {status: 429, retry_after: "1"}
)";
  start_server(with_fault_first(throttle));
  auto start = std::chrono::steady_clock::now();
  Result r = run(one_round(optimize_args("run")));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto stats = server_->stats();
  EXPECT_EQ(stats.by_rule["throttle"], 1);  // the 429 reached the server and was counted
  EXPECT_EQ(stats.by_status["429"], 1);
  EXPECT_EQ(stats.by_rule["planner"], 1);   // and the retry after it was answered
  EXPECT_GE(elapsed, 1.0);                  // the client waited as the server asked
  auto s = summary("run");
  const auto& round = s["tasks"][0]["rounds"][0];
  EXPECT_EQ(round["plans"].get<int>(), 4);  // the round had all its plans
  EXPECT_EQ(s["usage"]["failed_calls"].get<int>(), 0);
  EXPECT_GT(s["tasks"][0]["speedup"].get<double>(), 1.0);
}

TEST_F(OptimizeE2E, AnswerPastTheCallTimeoutIsAFailedSampleAndTheRoundGoesOn) {
  std::string slow = R"(  - name: slow
    contains: "MARK_SLOW"
    replies:
      - {delay_s: 3, text: "too late"}
)";
  start_server(with_fault_first(slow), "timeout_s: 1, max_retries: 0");
  Result r = run(one_round(optimize_args("run")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = summary("run");
  EXPECT_EQ(s["status"], "finished");
  const auto& round = s["tasks"][0]["rounds"][0];
  EXPECT_EQ(round["plans"].get<int>(), 4);
  EXPECT_EQ(round["kernels_unparsed"].get<int>(), 1);  // the timed-out call
  EXPECT_EQ(round["kernels_written"].get<int>(), 3);   // the other three plans went on
  EXPECT_GE(s["usage"]["failed_calls"].get<int>(), 1);
  EXPECT_GT(s["tasks"][0]["speedup"].get<double>(), 1.0);
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
}

TEST_F(OptimizeE2E, MalformedConfigNamesTheKeyAndTheFileAndLeavesNoRunBehind) {
  start_server(script());
  std::string good = slurp(dir_ / "agents.yaml");
  std::string bad = good;
  bad.replace(bad.find("timeout_s: 5"), std::string("timeout_s: 5").size(), "timeout_s: -2");
  spit(dir_ / "agents.yaml", bad);
  Result r = run(one_round(optimize_args("run")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("timeout_s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find((dir_ / "agents.yaml").string()), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "run/config.json"));
  EXPECT_EQ(server_->stats().requests, 0);

  // Fixed, the same --out starts a run: the failed attempt left nothing that blocks it.
  spit(dir_ / "agents.yaml", good);
  Result fixed = run(one_round(optimize_args("run")));
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_EQ(summary("run")["status"], "finished");
}

TEST_F(OptimizeE2E, LogLinesRunsAndShowReportEachRound) {
  start_server(script());
  Result r = run(optimize_args("run"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // --no-progress: one plain log line per round with its counters, best speedup, peak, tokens, USD.
  EXPECT_EQ(r.output.find("\033[2K"), std::string::npos);
  for (int round = 1; round <= 2; ++round) {
    size_t at = r.output.find(fmt::format("[run] task 1/1 add_M256_N512 round {}/2: planned ", round));
    ASSERT_NE(at, std::string::npos) << r.output;
    std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    // (This tiny task has no peak formula, so no percent of peak: console_progress_test covers it.)
    for (const char* part : {"written ", "evaluated ", "failed", "best ", "x, ", " tokens, ", " USD"})
      EXPECT_NE(line.find(part), std::string::npos) << part << " missing in: " << line;
  }
  EXPECT_NE(r.output.find("round 1/2: planned 4, written 4 (0 unparsed), evaluated 4 (0 failed, 2 fixed)"),
            std::string::npos)
      << r.output;

  auto s = summary("run");
  Result runs = run("runs --root " + dir_.string());
  ASSERT_EQ(runs.exit_code, 0);
  EXPECT_NE(runs.output.find("run "), std::string::npos) << runs.output;
  EXPECT_NE(runs.output.find("finished"), std::string::npos) << runs.output;
  EXPECT_NE(runs.output.find(fmt::format("add_M256_N512={:.2f}x", s["tasks"][0]["speedup"].get<double>())),
            std::string::npos)
      << runs.output;
  Result show = run("show " + (dir_ / "run").string());
  ASSERT_EQ(show.exit_code, 0);
  // `show` prints the speedup with three decimals ("2.469x").
  EXPECT_NE(show.output.find(fmt::format("{:.3f}x", s["tasks"][0]["speedup"].get<double>())), std::string::npos)
      << show.output;
  Result show_json = run("show --json " + (dir_ / "run").string());
  auto reprinted = nlohmann::json::parse(show_json.output, nullptr, false);
  ASSERT_FALSE(reprinted.is_discarded()) << show_json.output;
  EXPECT_EQ(reprinted["tasks"][0]["best_id"], s["tasks"][0]["best_id"]);

  // A killed run has no summary.json: `show` summarizes its last checkpoint from run.db.
  fs::remove(dir_ / "run/summary.json");
  Result from_store = run("show --json " + (dir_ / "run").string());
  auto checkpoint = nlohmann::json::parse(from_store.output, nullptr, false);
  ASSERT_FALSE(checkpoint.is_discarded()) << from_store.output;
  EXPECT_EQ(checkpoint["tasks"][0]["best_id"], s["tasks"][0]["best_id"]);
  Result incomplete = run("runs --root " + dir_.string());
  EXPECT_NE(incomplete.output.find("incomplete"), std::string::npos) << incomplete.output;
}

}  // namespace
