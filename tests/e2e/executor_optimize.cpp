// An optimize round with `--executor slurm` gives the same results as with `--executor local`:
// a tiny add task, a scripted fake model (tests/support) that proposes one faster and one wrong
// kernel, evaluated for real. Skipped without a Slurm controller or while `accelopt eval` cannot
// yet check the baseline (the same condition as optimize_fake_llm.cpp).
#include <fmt/core.h>
#include <gtest/gtest.h>

#include "support/prerequisite.h"

#include "executor_util.h"
#include "support/fake_llm_server.h"
#include "support/test_paths.h"

namespace executor_e2e {
namespace {


// Column chunks of `width` per 128-row tile: wider chunks mean fewer, larger DMAs (faster).
std::string add_kernel(int width, const std::string& op = "nl.add") {
  return fmt::format(R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        for c in nl.affine_range(cols // {0}):
            x_tile = nl.load(x[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}])
            y_tile = nl.load(y[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}])
            total = nisa.tensor_tensor(x_tile, y_tile, {1})
            nl.store(out[r * 128:(r + 1) * 128, c * {0}:(c + 1) * {0}], value=total)
    return out
)",
                     width, op);
}

std::string model_script() {
  auto fenced = [](const std::string& code) { return nlohmann::json("```python\n" + code + "```\n").dump(); };
  std::string plans = nlohmann::json(R"([{"title": "wider", "plan": "MARK_FAST whole rows"},
                                         {"title": "other op", "plan": "MARK_WRONG another op"}])").dump();
  std::string summary = nlohmann::json(R"({"key_change": "DMA size", "lesson": "large DMAs"})").dump();
  return fmt::format(
      "rules:\n"
      "  - {{name: summarizer, contains: \"Explain what made the difference\", replies: [{{text: {}}}]}}\n"
      "  - {{name: fixer, contains: \"Fix the kernel so that it runs\", replies: [{{text: {}}}]}}\n"
      "  - {{name: planner, contains: \"different optimization plans\", replies: [{{text: {}}}]}}\n"
      "  - {{name: fast, contains: MARK_FAST, replies: [{{text: {}}}]}}\n"
      "  - {{name: wrong, contains: MARK_WRONG, replies: [{{text: {}}}]}}\n",
      summary, fenced(add_kernel(512)), plans, fenced(add_kernel(512)), fenced(add_kernel(512, "nl.multiply")));
}

class ExecutorOptimize : public ::testing::Test {
 protected:
  void SetUp() override {
    ACCELOPT_REQUIRE(std::system("timeout 15 sinfo -h >/dev/null 2>&1") == 0, "no Slurm controller (sinfo failed)");
    std::string bench = tmp_.path() + "/bench";
    std::filesystem::create_directories(bench + "/reference");
    std::filesystem::create_directories(bench + "/kernels");
    nlohmann::json summary = {
        {"add", {{"seed", ""}, {"cases", {{"M256_N512", {{"values", {{"M", 256}, {"N", 512}}},
                {"impls", {{{"task", "./reference/add_M256_N512.py"}, {"kernel", "./kernels/add_M256_N512_0.py"}}}}}}}}}}};
    std::ofstream(bench + "/summary.json") << summary.dump(2);
    std::filesystem::copy_file(std::string(ACCELOPT_SOURCE_DIR) + "/examples/add/reference.py", bench + "/reference/add_M256_N512.py");
    std::ofstream(bench + "/kernels/add_M256_N512_0.py") << add_kernel(128);
    CommandRun check = run_accelopt(tmp_.path(), "eval --reference " + bench + "/reference/add_M256_N512.py --kernel " +
                                                     bench + "/kernels/add_M256_N512_0.py");
    ACCELOPT_REQUIRE(check.out.find("status: ok") != std::string::npos,
                     "accelopt eval cannot check the baseline: " << check.out.substr(0, 300));
  }

  // One optimize run against a fresh fake model; returns the summary.
  nlohmann::json optimize(const std::string& name, const std::string& executor_args) {
    fake_llm::FakeLlmServer server(fake_llm::parse_script(model_script(), name, ""));
    server.start();
    std::string config = tmp_.path() + "/" + name + ".yaml";
    std::ofstream(config) << fake_llm::agents_config_yaml(server.url());
    std::string out = tmp_.path() + "/" + name;
    CommandRun r = run_accelopt(tmp_.path(), "optimize --agent llm --task add --bench-root " + tmp_.path() + "/bench --config " +
                                                 config + " --out " + out + " --B 1 --N 2 --K 1 --T 1 --fixer-attempts 0 "
                                                 "--no-progress --seed 7 " + executor_args);
    server.stop();
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return nlohmann::json::parse(read_file(out + "/summary.json"), nullptr, false);
  }

  TempDir tmp_;
};

TEST_F(ExecutorOptimize, SlurmRoundMatchesLocal) {
  nlohmann::json local = optimize("local", "--executor local");
  nlohmann::json slurm = optimize("slurm", "--executor slurm --slurm-time 2");
  ASSERT_TRUE(local.is_object() && slurm.is_object());
  ASSERT_EQ(local["tasks"].size(), 1u);
  EXPECT_EQ(slurm["tasks"][0]["speedup"], local["tasks"][0]["speedup"]);
  EXPECT_EQ(slurm["tasks"][0]["rounds"], local["tasks"][0]["rounds"]);
  EXPECT_EQ(read_file(tmp_.path() + "/slurm/best/add_M256_N512_0.py"),
            read_file(tmp_.path() + "/local/best/add_M256_N512_0.py"));
  // The slurm run really went through Slurm.
  EXPECT_FALSE(lines_of(tmp_.path() + "/slurm/eval/slurm/arrays.jsonl").empty());
}

}  // namespace
}  // namespace executor_e2e
