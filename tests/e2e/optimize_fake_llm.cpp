// End-to-end tests of `accelopt optimize` against the scripted fake LLM server (tests/support):
// a tiny elementwise-add task whose kernels the "model" writes faster, slower, wrong or broken,
// evaluated for real (interpreter + simulator) by local workers.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/fake_llm_server.h"

namespace {

namespace fs = std::filesystem;

const char* kHeader = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
)";

// Column chunks of `width` per 128-row tile: narrower chunks mean more, smaller DMAs (slower).
std::string add_kernel(int width, const std::string& op = "nl.add") {
  return std::string(kHeader) + fmt::format(R"(    for r in nl.affine_range(rows // 128):
        for c in nl.affine_range(cols // {0}):
            x_tile = nl.load(x[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}])
            y_tile = nl.load(y[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}])
            total = nisa.tensor_tensor(x_tile, y_tile, {1})
            nl.store(out[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}], value=total)
    return out
)", width, op);
}

const char* kReference = R"(import numpy as np

M = 256
N = 512


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    y = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    return [x, y]


def forward(x, y):
    return x + y


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
)";

std::string fenced(const std::string& code) { return "Here is the kernel:\n```python\n" + code + "```\n"; }

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A YAML double-quoted scalar.
std::string yaml_quote(const std::string& s) { return nlohmann::json(s).dump(); }

// The model's behaviour: four plans (fast, slow, wrong, broken-then-fixed), kernels for each,
// summaries, all with fixed usage so the totals can be checked.
std::string script() {
  std::string plans = R"([{"title": "wider tiles", "plan": "MARK_FAST load whole rows"},
                          {"title": "narrower tiles", "plan": "MARK_SLOW load 32 columns at a time"},
                          {"title": "subtract", "plan": "MARK_WRONG use another op"},
                          {"title": "rewrite", "plan": "MARK_BROKEN rewrite from scratch"}])";
  std::string summary = R"({"key_change": "changed the DMA size", "lesson": "move large blocks per DMA"})";
  std::string out = "rules:\n";
  auto rule = [&](const std::string& name, const std::string& contains, const std::string& text, int in, int outt) {
    out += fmt::format("  - name: {}\n    contains: {}\n    replies:\n      - {{text: {}, usage: {{input_tokens: {}, output_tokens: {}}}}}\n",
                       name, yaml_quote(contains), yaml_quote(text), in, outt);
  };
  rule("summarizer", "Explain what made the difference", summary, 300, 30);
  rule("fixer", "Fix the kernel so that it runs", fenced(add_kernel(512)), 200, 50);
  rule("planner", "different optimization plans", plans, 100, 40);
  rule("exec_fast", "MARK_FAST", fenced(add_kernel(512)), 150, 60);
  rule("exec_slow", "MARK_SLOW", fenced(add_kernel(32)), 150, 61);
  rule("exec_wrong", "MARK_WRONG", fenced(add_kernel(512, "nl.multiply")), 150, 62);
  rule("exec_broken", "MARK_BROKEN", "```python\ndef kernel(x, y)\n    return x\n```\n", 150, 63);
  return out;
}

struct Result {
  int exit_code = -1;
  std::string output;
};

class OptimizeE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "accelopt-optimize-e2e-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
    write_bench();
    if (!pipeline_works())
      GTEST_SKIP() << "the evaluation pipeline cannot check the baseline kernel yet (accelopt eval fails): " << eval_output_;
  }
  void TearDown() override {
    if (server_) server_->stop();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void write_bench() {
    nlohmann::json summary = {{"add", {{"seed", ""}, {"cases", {{"M256_N512", {{"values", {{"M", 256}, {"N", 512}}},
                              {"impls", {{{"task", "./reference/add_M256_N512.py"}, {"kernel", "./kernels/add_M256_N512_0.py"}}}}}}}}}}};
    spit(dir_ / "bench/summary.json", summary.dump(2));
    spit(dir_ / "bench/reference/add_M256_N512.py", kReference);
    spit(dir_ / "bench/kernels/add_M256_N512_0.py", add_kernel(128));
  }

  bool pipeline_works() {
    Result r = run(fmt::format("eval --reference {} --kernel {}", (dir_ / "bench/reference/add_M256_N512.py").string(),
                               (dir_ / "bench/kernels/add_M256_N512_0.py").string()));
    eval_output_ = r.output.substr(0, 400);
    return r.output.find("status: ok") != std::string::npos;
  }

  void start_server(const std::string& yaml) {
    server_ = std::make_unique<fake_llm::FakeLlmServer>(fake_llm::parse_script(yaml, "optimize-e2e", ""));
    server_->start();
    spit(dir_ / "agents.yaml",
         fmt::format("defaults: {{api: openai, url: {}, timeout_s: 5, max_retries: 1, backoff_initial_s: 0.01, jitter_seed: 7,\n"
                     "           price_in: 2.0, price_out: 10.0}}\n"
                     "agents:\n  planner: {{model: fake-planner}}\n  executor: {{model: fake-executor}}\n"
                     "  summarizer: {{model: fake-summarizer}}\n  fixer: {{model: fake-fixer}}\n",
                     server_->url()));
  }

  Result run(const std::string& args) {
    fs::path log = dir_ / "log.txt";
    std::string cmd = fmt::format("cd {} && {} {} > {} 2>&1", dir_.string(), ACCELOPT_BINARY, args, log.string());
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(log)};
  }

  std::string optimize_args(const std::string& out, const std::string& extra = "") {
    return fmt::format("optimize --task add --bench-root {} --config {} --out {} --B 2 --N 4 --K 1 --T 2 --topk 8 "
                       "--expn 3 --t-neg 1.01 --fixer-attempts 1 --workers 1 --no-progress --seed 7 {}",
                       (dir_ / "bench").string(), (dir_ / "agents.yaml").string(), (dir_ / out).string(), extra);
  }

  nlohmann::json summary(const std::string& out) { return nlohmann::json::parse(slurp(dir_ / out / "summary.json")); }

  fs::path dir_;
  std::string eval_output_;
  std::unique_ptr<fake_llm::FakeLlmServer> server_;
};

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
  std::string escape = "import os\n" + add_kernel(512);
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
  EXPECT_EQ(round["eval_failed"].get<int>(), 1);       // `import os` is an evaluation error
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
    std::string cmd = fmt::format("cd {} && exec {} {} > /dev/null 2>&1", dir_.string(), ACCELOPT_BINARY, optimize_args("run"));
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

  Result resumed = run("optimize --no-progress --resume " + (dir_ / "run").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  // Calls answered before the kill are replayed; only calls in flight at the kill (at most the
  // agent parallelism, 4) may be asked again.
  EXPECT_LE(server_->stats().requests, total + 4);
  EXPECT_EQ(slurp(dir_ / "run/best/add_M256_N512_0.py"), add_kernel(512));
}

}  // namespace
