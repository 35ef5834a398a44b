// Shared by the `accelopt optimize` end-to-end tests (tests/e2e/optimize_*.cpp): a tiny
// elementwise-add benchmark whose kernels the scripted fake LLM server (tests/support) writes
// faster, slower, wrong or broken, evaluated for real by local workers.
#pragma once

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

#include "support/prerequisite.h"
#include <nlohmann/json.hpp>

#include "support/fake_llm_server.h"
#include "support/test_paths.h"

namespace optimize_e2e {

namespace fs = std::filesystem;

inline const char* kHeader = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
)";

// Column chunks of `width` per 128-row tile: narrower chunks mean more, smaller DMAs (slower).
inline std::string add_kernel(int width, const std::string& op = "nl.add") {
  return std::string(kHeader) + fmt::format(R"(    for r in nl.affine_range(rows // 128):
        for c in nl.affine_range(cols // {0}):
            x_tile = nl.load(x[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}])
            y_tile = nl.load(y[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}])
            total = nisa.tensor_tensor(x_tile, y_tile, {1})
            nl.store(out[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}], value=total)
    return out
)", width, op);
}


// The accelopt binary the optimize tests drive: the build's, or ACCELOPT_TEST_BINARY when set (to
// show that a new test fails on an older build: ACCELOPT_TEST_BINARY=/work/main/build/.../accelopt).
inline std::string accelopt_binary() {
  const char* other = std::getenv("ACCELOPT_TEST_BINARY");
  return other && *other ? other : ACCELOPT_BINARY;
}

inline std::string fenced(const std::string& code) { return "Here is the kernel:\n```python\n" + code + "```\n"; }

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The task is the bundled example (examples/add): 256x512 elementwise addition.
inline std::string add_reference() { return slurp(fs::path(ACCELOPT_SOURCE_DIR) / "examples/add/reference.py"); }

inline void spit(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A YAML double-quoted scalar.
inline std::string yaml_quote(const std::string& s) { return nlohmann::json(s).dump(); }

// The model's behaviour: four plans (fast, slow, wrong, broken-then-fixed), kernels for each,
// summaries, all with fixed usage so the totals can be checked.
inline std::string script() {
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
    ACCELOPT_REQUIRE(pipeline_works(), "the evaluation pipeline cannot check the baseline kernel (accelopt eval fails): "
                                           << eval_output_);
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
    spit(dir_ / "bench/reference/add_M256_N512.py", add_reference());
    spit(dir_ / "bench/kernels/add_M256_N512_0.py", add_kernel(128));
  }

  bool pipeline_works() {
    Result r = run(fmt::format("eval --reference {} --kernel {}", (dir_ / "bench/reference/add_M256_N512.py").string(),
                               (dir_ / "bench/kernels/add_M256_N512_0.py").string()));
    eval_output_ = r.output.substr(0, 400);
    return r.output.find("status: ok") != std::string::npos;
  }

  // `client`: the agents config's timeout and retry settings.
  void start_server(const std::string& yaml, const std::string& client = "timeout_s: 5, max_retries: 1") {
    server_ = std::make_unique<fake_llm::FakeLlmServer>(fake_llm::parse_script(yaml, "optimize-e2e", ""));
    server_->start();
    spit(dir_ / "agents.yaml",
         fmt::format("defaults: {{api: openai, url: {}, {}, backoff_initial_s: 0.01, jitter_seed: 7,\n"
                     "           price_in: 2.0, price_out: 10.0}}\n"
                     "agents:\n  planner: {{model: fake-planner}}\n  executor: {{model: fake-executor}}\n"
                     "  summarizer: {{model: fake-summarizer}}\n  fixer: {{model: fake-fixer}}\n",
                     server_->url(), client));
  }

  Result run(const std::string& args) {
    fs::path log = dir_ / "log.txt";
    std::string cmd = fmt::format("cd {} && {} {} > {} 2>&1", dir_.string(), accelopt_binary(), args, log.string());
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(log)};
  }

  std::string optimize_args(const std::string& out, const std::string& extra = "") {
    return fmt::format("optimize --agent llm --task add --bench-root {} --config {} --out {} --B 2 --N 4 --K 1 --T 2 --topk 8 "
                       "--expn 3 --t-neg 1.01 --fixer-attempts 1 --workers 1 --no-progress --seed 7 {}",
                       (dir_ / "bench").string(), (dir_ / "agents.yaml").string(), (dir_ / out).string(), extra);
  }

  nlohmann::json summary(const std::string& out) { return nlohmann::json::parse(slurp(dir_ / out / "summary.json")); }

  fs::path dir_;
  std::string eval_output_;
  std::unique_ptr<fake_llm::FakeLlmServer> server_;
};

}  // namespace optimize_e2e
