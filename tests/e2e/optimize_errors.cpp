// `accelopt optimize` when the endpoint misbehaves or is misconfigured (issue 12, defects 3-6, 9):
// the real cause is printed, retries are shown, an endpoint that stays down is waited for, an outage
// does not cost a round, failed calls are recorded with what happened, and a resumed run shows
// its best and its whole time.
#include "optimize_e2e.h"
#include "store/run_store.h"

namespace {

using namespace optimize_e2e;

// Points the fixture's agents config at `url` instead of the server.
void repoint(const fs::path& config, const std::string& from, const std::string& to) {
  std::string text = slurp(config);
  text.replace(text.find(from), from.size(), to);
  spit(config, text);
}

std::vector<store::LlmCallRecord> recorded_calls(const fs::path& run_dir) {
  store::RunStore store((run_dir / "run.db").string());
  return store.llm_calls(store.latest_run()->id);
}

// Defect 3: a url ending in /v1 sent requests to /v1/v1/chat/completions (404).
TEST_F(OptimizeE2E, UrlEndingInV1Works) {
  start_server(script());
  repoint(dir_ / "agents.yaml", server_->url(), server_->url() + "/v1");
  Result r = run(optimize_args("run"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(summary("run")["status"], "finished");
  EXPECT_EQ(server_->stats().unmatched, 0);
}

// Defect 3: an unset key variable was found only by the first call, after the run directory
// existed; it must stop the start (exit 2, no run directory) and name the variable.
TEST_F(OptimizeE2E, UnsetKeyVariableStopsTheStartAndIsNamed) {
  start_server(script());
  unsetenv("ACCELOPT_E2E_UNSET_KEY");
  repoint(dir_ / "agents.yaml", "price_in: 2.0", "api_key_env: ACCELOPT_E2E_UNSET_KEY, price_in: 2.0");
  Result r = run(optimize_args("run"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ACCELOPT_E2E_UNSET_KEY"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not set"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "run")) << r.output;
  EXPECT_EQ(server_->stats().requests, 0);
}

// Defect 3: "the endpoint is unreachable or refuses the requests" hid the cause. A refused
// connection and a wrong path (404) each say what happened, and where.
TEST_F(OptimizeE2E, FailingEndpointPrintsTheRealCause) {
  start_server(script());
  std::string url = server_->url();
  server_->stop();  // nothing listens on the port now
  Result refused = run(optimize_args("refused"));
  EXPECT_EQ(refused.exit_code, 3) << refused.output;
  EXPECT_NE(refused.output.find(url.substr(7)), std::string::npos) << refused.output;  // "127.0.0.1:PORT"
  EXPECT_NE(refused.output.find("onnect"), std::string::npos) << refused.output;       // curl's "Couldn't connect"

  server_->start(std::stoi(url.substr(url.rfind(':') + 1)));
  repoint(dir_ / "agents.yaml", url, url + "/serving");
  Result wrong_path = run(optimize_args("wrong_path"));
  EXPECT_EQ(wrong_path.exit_code, 3) << wrong_path.output;
  EXPECT_NE(wrong_path.output.find("HTTP 404"), std::string::npos) << wrong_path.output;
  EXPECT_NE(wrong_path.output.find("/serving/v1/chat/completions"), std::string::npos) << wrong_path.output;
}

// Defect 4: nothing was printed while calls waited on 429s; and an endpoint that fails for
// longer than the retries last (a vLLM restart takes minutes) is waited for within
// retry_window_s. (The restart itself, with connections refused, is in chat_client_test.)
TEST_F(OptimizeE2E, RetriesAreShownAndAnEndpointThatStaysDownIsWaitedFor) {
  std::string down = "rules:\n  - name: down\n    contains: \"different optimization plans\"\n    repeat_last: false\n"
                     "    replies:\n      - {status: 503}\n      - {status: 503}\n      - {status: 503}\n"
                     "      - {status: 429, retry_after: \"0.5\"}\n";
  start_server(down + script().substr(std::string("rules:\n").size()), "timeout_s: 5, max_retries: 1, retry_window_s: 30");
  std::string args = optimize_args("run");
  args.replace(args.find("--T 2"), 5, "--T 1");
  Result r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(summary("run")["status"], "finished");
  EXPECT_EQ(server_->stats().by_rule["down"], 4);
  // Each retry on a line with the cause and the wait; past max_retries, within the window.
  EXPECT_NE(r.output.find("planner call failed (unavailable): fake-planner at"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("HTTP 503 after 1 attempt"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(attempt 2 of 2)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(attempt 3, within the retry window)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("planner call failed (rate-limited)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("retrying in 0.5 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("USD, 4 retries"), std::string::npos) << r.output;  // the round's line counts them
}

// Defects 5 and 6: when every executor call of a round failed, the round was kept as "written 0
// (4 unparsed)" and --resume never made those calls again; the failed calls were recorded with
// attempts 0, latency 0 and no body.
TEST_F(OptimizeE2E, OutageOfAPhaseKeepsNoRoundAndResumeMakesItsCalls) {
  start_server(script());
  ASSERT_EQ(run(optimize_args("reference")).exit_code, 0);
  int64_t total = server_->stats().requests;
  server_->stop();

  // Plans are answered; every executor call gets 503 (two attempts each).
  std::string plans_only = script();
  plans_only = plans_only.substr(0, plans_only.find("  - name: exec_fast"));
  start_server(plans_only + "  - name: outage\n    replies:\n      - {status: 503}\n");
  Result failed = run(optimize_args("run"));
  EXPECT_EQ(failed.exit_code, 3) << failed.output;
  EXPECT_NE(failed.output.find("every model call of the writing phase of round 1"), std::string::npos) << failed.output;
  EXPECT_NE(failed.output.find("HTTP 503 after 2 attempts"), std::string::npos) << failed.output;
  auto stopped = summary("run");
  EXPECT_EQ(stopped["status"], "stopped");
  EXPECT_EQ(stopped["tasks"][0]["rounds_done"], 0);
  // Each failed call is recorded with what happened on the wire.
  int failures = 0;
  for (const auto& call : recorded_calls(dir_ / "run")) {
    if (call.error.empty()) continue;
    ++failures;
    EXPECT_EQ(call.agent, "executor");
    EXPECT_EQ(call.error_kind, "unavailable");
    EXPECT_EQ(call.attempts, 2);
    EXPECT_EQ(call.http_status, 503);
    EXPECT_GT(call.latency_s, 0);
    EXPECT_NE(call.raw_response.find("scripted status 503"), std::string::npos) << call.raw_response;
    EXPECT_NE(call.tag.find("/r1/c0/p"), std::string::npos) << call.tag;
  }
  EXPECT_EQ(failures, 4);
  server_->stop();

  // Resumed against a healthy endpoint: the round's executor calls are made (the plans replayed).
  start_server(script());
  Result resumed = run("optimize --no-progress --resume " + (dir_ / "run").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(server_->stats().requests, total - 1);  // all but round 1's planner call
  auto s = summary("run");
  EXPECT_EQ(s["tasks"][0]["rounds"][0]["kernels_written"], 4);
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
}

// Defect 9: after a resume the round lines showed "best -" and the time counted only since the
// resume. The first process stops after round 1 (round 2's plans fail: the endpoint went down).
TEST_F(OptimizeE2E, ResumedRunShowsItsBestAndItsWholeTime) {
  std::string down_after_one = "rules:\n  - name: planner_then_down\n    contains: \"different optimization plans\"\n"
                               "    replies:\n      - {text: " + yaml_quote(R"([{"title": "wider tiles", "plan": "MARK_FAST load whole rows"}])") +
                               "}\n      - {status: 503}\n";
  start_server(down_after_one + script().substr(std::string("rules:\n").size()));
  Result first = run(optimize_args("run"));
  ASSERT_EQ(first.exit_code, 3) << first.output;
  ASSERT_EQ(summary("run")["tasks"][0]["rounds_done"], 1);
  double first_elapsed = summary("run")["elapsed_s"].get<double>();
  ASSERT_GT(first_elapsed, 0);
  server_->stop();

  start_server(script());
  Result resumed = run("optimize --no-progress --resume " + (dir_ / "run").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  size_t at = resumed.output.find("round 2/2: planned");
  ASSERT_NE(at, std::string::npos) << resumed.output;
  std::string line = resumed.output.substr(at, resumed.output.find('\n', at) - at);
  EXPECT_EQ(line.find("best -"), std::string::npos) << line;
  EXPECT_NE(line.find("x, "), std::string::npos) << line;
  EXPECT_NE(resumed.output.find("resuming after round 1"), std::string::npos) << resumed.output;
  auto s = summary("run");
  EXPECT_EQ(s["status"], "finished");
  EXPECT_GT(s["elapsed_s"].get<double>(), first_elapsed);
}

}  // namespace
