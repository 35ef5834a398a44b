// End-to-end tests of `accelopt optimize` against the scripted fake LLM server (tests/support):
// a tiny elementwise-add task whose kernels the "model" writes faster, slower, wrong or broken,
// evaluated for real (interpreter + simulator) by local workers.
#include "optimize_e2e.h"
#include "store/run_store.h"

namespace {

using namespace optimize_e2e;

TEST_F(OptimizeE2E, FasterKernelWinsAndMemoryAndUsageAreRecorded) {
  start_server(script());
  Result r = run(optimize_args("run"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = summary("run");
  ASSERT_EQ(s["tasks"].size(), 1u);
  const auto& task = s["tasks"][0];
  EXPECT_EQ(s["status"], "finished");
  EXPECT_GT(task["speedup"].get<double>(), 1.0);
  // The best kernel is the fast one, written under the task's kernel file name.
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
  // Round 1: the broken (syntax error) and the wrong kernel failed and the fixer repaired both.
  EXPECT_EQ(task["rounds"][0]["kernels_written"].get<int>(), 4);
  EXPECT_EQ(task["rounds"][0]["fixed"].get<int>(), 2);
  EXPECT_EQ(task["rounds"][0]["correct"].get<int>(), 4);
  EXPECT_EQ(task["rounds"][0]["eval_failed"].get<int>(), 0);

  // Memory: at most ExpN = 3 items, newest first, positive and negative pairs summarized.
  auto memory = nlohmann::json::parse(slurp(dir_ / "run/memory.json"));
  ASSERT_LE(memory["items"].size(), 3u);
  ASSERT_GE(memory["items"].size(), 2u);
  for (size_t i = 1; i < memory["items"].size(); ++i)
    EXPECT_GE(memory["items"][i - 1]["round"].get<int>(), memory["items"][i]["round"].get<int>());
  auto stats = server_->stats();
  EXPECT_GE(stats.by_rule["summarizer"], 2);

  // Token and USD totals match the usage the server reported.
  EXPECT_EQ(s["usage"]["input_tokens"].get<int64_t>(), stats.input_tokens);
  EXPECT_EQ(s["usage"]["output_tokens"].get<int64_t>(), stats.output_tokens);
  double usd = (stats.input_tokens * 2.0 + stats.output_tokens * 10.0) / 1e6;
  EXPECT_NEAR(s["usage"]["cost_usd"].get<double>(), usd, 1e-9);

  // `accelopt show` reprints it; `accelopt memory show` lists the items.
  Result show = run("show " + (dir_ / "run").string());
  EXPECT_EQ(show.exit_code, 0);
  EXPECT_NE(show.output.find("add_M256_N512"), std::string::npos);
  Result mem = run("memory show " + (dir_ / "run/memory.json").string());
  EXPECT_NE(mem.output.find("move large blocks per DMA"), std::string::npos);
  Result runs = run("runs --root " + dir_.string());
  EXPECT_NE(runs.output.find("finished"), std::string::npos);
}

TEST_F(OptimizeE2E, GarbageAnswersAndSandboxEscapesAreFailedSamples) {
  // The import alone is harness code (a placeholder); the kernel's `os.system` is refused.
  std::string escape = "import os\n" + add_kernel(512);
  escape.insert(escape.find("    for r in"), "    os.system(\"id\")\n");
  std::string yaml = fmt::format(R"(rules:
  - contains: "different optimization plans"
    replies:
      - {{text: {}}}
  - contains: "MARK_GARBAGE"
    replies:
      - {{body: "<html>bad gateway</html>"}}
  - contains: "MARK_PROSE"
    replies:
      - {{text: "I would rather not write code today."}}
  - contains: "MARK_ESCAPE"
    replies:
      - {{text: {}}}
)", yaml_quote(R"([{"title": "a", "plan": "MARK_GARBAGE"}, {"title": "b", "plan": "MARK_PROSE"},
                   {"title": "c", "plan": "MARK_ESCAPE"}])"),
                                 yaml_quote(fenced(escape)));
  start_server(yaml);
  std::string args = optimize_args("run");
  for (auto [from, to] : {std::pair{"--N 4", "--N 3"}, {"--T 2", "--T 1"}, {"--fixer-attempts 1", "--fixer-attempts 0"}})
    args.replace(args.find(from), std::string(from).size(), to);
  Result r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = summary("run");
  const auto& round = s["tasks"][0]["rounds"][0];
  EXPECT_EQ(round["kernels_unparsed"].get<int>(), 2);  // the garbage body and the prose answer
  EXPECT_EQ(round["kernels_written"].get<int>(), 1);
  EXPECT_EQ(round["eval_failed"].get<int>(), 1);       // `os.system` in the kernel is an evaluation error
  EXPECT_EQ(round["correct"].get<int>(), 0);
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(128));  // the baseline stays
}

TEST_F(OptimizeE2E, EvaluationBudgetStopsTheRunCleanly) {
  start_server(script());
  Result r = run(optimize_args("run", "--budget-evals 3"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = summary("run");
  EXPECT_EQ(s["status"], "budget_stop");
  EXPECT_EQ(s["stop"], "budget_evals");
  EXPECT_EQ(s["evaluations"].get<int>(), 3);
  EXPECT_NE(r.output.find("budget_evals"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir_ / "run/best/add_M256_N512_0.py"));
}

TEST_F(OptimizeE2E, FailingEndpointStopsResumablyAndResumeRepeatsNoCall) {
  // Reference: the number of requests of a whole run.
  start_server(script());
  ASSERT_EQ(run(optimize_args("reference")).exit_code, 0);
  int64_t total = server_->stats().requests;
  server_->stop();

  // Every call fails (HTTP 503): the run stops with a clear message and exit code 3.
  start_server("rules:\n  - replies:\n      - {status: 503}\n");
  Result failed = run(optimize_args("run"));
  EXPECT_EQ(failed.exit_code, 3) << failed.output;
  EXPECT_NE(failed.output.find("every model call"), std::string::npos) << failed.output;
  server_->stop();

  // Resumed against a healthy endpoint, the run finishes; then a second resume calls nothing.
  start_server(script());
  Result resumed = run("optimize --no-progress --resume " + (dir_ / "run").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(server_->stats().requests, total);
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
  ASSERT_EQ(run("optimize --no-progress --resume " + (dir_ / "run").string()).exit_code, 0);
  EXPECT_EQ(server_->stats().requests, total);
}

TEST_F(OptimizeE2E, KillDuringTheRunLosesNothingFinished) {
  start_server(script());
  ASSERT_EQ(run(optimize_args("reference")).exit_code, 0);
  int64_t total = server_->stats().requests;
  server_->stop();

  // Slow executor answers give the kill a window in the middle of round 1.
  std::string slow = script();
  for (size_t pos = 0; (pos = slow.find("- {text:", pos)) != std::string::npos; pos += 8) slow.replace(pos, 8, "- {delay_s: 0.2, text:");
  start_server(slow);
  pid_t child = ::fork();
  if (child == 0) {
    std::string cmd = fmt::format("cd {} && exec {} {} > /dev/null 2>&1", dir_.string(), accelopt_binary(), optimize_args("run"));
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (server_->stats().answered < 4 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  int64_t before = server_->stats().requests;
  ASSERT_GE(before, 4);

  // Issue 12, defect 9: the killed process's time counts too, not only the resumed one's. It
  // worked at least from its start (a checkpoint) to its first recorded answer, the plans, which
  // the server sent after a scripted 0.2 s wait (the kill came once later replies were picked).
  double killed_s = 0;
  {
    store::RunStore store((dir_ / "run/run.db").string());
    killed_s = store.seconds_active_after_last_checkpoint(store.latest_run()->id);
  }
  EXPECT_GE(killed_s, 0.19);

  Result resumed = run("optimize --no-progress --resume " + (dir_ / "run").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_GT(summary("run")["elapsed_s"].get<double>(), killed_s);
  // Calls answered before the kill are replayed; only calls in flight at the kill (at most the
  // agent parallelism, 4) may be asked again.
  EXPECT_LE(server_->stats().requests, total + 4);
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
}

}  // namespace
