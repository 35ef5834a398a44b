// End to end: `accelopt optimize --kernels DIR` starts each task from the kernel in DIR (as
// `bench --kernels`), not from the benchmark's kernels/, and keeps DIR for --resume.
#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace {

using namespace bench_e2e;

double profiled_ms(const std::string& dir, const std::string& reference, const std::string& kernel) {
  CliRun p = accelopt(dir, "profile --json --reference " + quote(reference) + " --kernel " + quote(kernel));
  EXPECT_EQ(p.exit_code, 0) << p.err;
  return p.exit_code == 0 ? nlohmann::json::parse(p.out).value("latency", 0.0) : 0.0;
}

// A benchmark holding silu at 256 x 2048 (the full-size reference, shrunk).
std::string small_silu_bench(const TempDir& tmp) {
  nlohmann::json summary;
  std::string root = tmp.path() + "/bench";
  add_small_task(root, "silu", "M4096_N7168", {{"M", 256}, {"N", 2048}}, "M256_N2048", summary);
  write_summary(root, summary);
  return root;
}

std::string optimize_silu(const std::string& root, const std::string& kernels, const std::string& run,
                          const std::string& n) {
  return "optimize --task silu --agent builtin --bench-root " + quote(root) + " --kernels " + quote(kernels) +
         " --T 1 --B 1 --N " + n + " --K 1 --seed 1 --workers 1 --no-progress --check-seeds 0 --out " + quote(run);
}

TEST(OptimizeKernels, BaselineComesFromTheKernelsDirectory) {
  TempDir tmp;
  std::string root = small_silu_bench(tmp);
  // The newer-API silu with 512-column blocks: right, and not the benchmark's kernel (other DMAs).
  std::string mine = slurp(source("nkibench/styles/nki_api/silu_M4096_N7168_0.py"));
  size_t at = mine.find("block = 1024");
  ASSERT_NE(at, std::string::npos);
  mine.replace(at, 12, "block = 512");
  spit(tmp.path() + "/mine/silu.py", mine);  // <task>.py: the short name also counts

  std::string reference = root + "/reference/silu_M256_N2048.py";
  double mine_ms = profiled_ms(tmp.path(), reference, tmp.path() + "/mine/silu.py");
  double theirs_ms = profiled_ms(tmp.path(), reference, root + "/kernels/silu_M256_N2048_0.py");
  ASSERT_GT(mine_ms, 0);
  ASSERT_NE(mine_ms, theirs_ms) << "the test needs a baseline that differs from the benchmark's";

  std::string run = tmp.path() + "/run";
  CliRun r = accelopt(tmp.path(), optimize_silu(root, tmp.path() + "/mine", run, "1"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto task = nlohmann::json::parse(slurp(run + "/summary.json"))["tasks"][0];
  EXPECT_DOUBLE_EQ(task["baseline_latency_ms"].get<double>(), mine_ms) << task.dump(2);
  EXPECT_EQ(nlohmann::json::parse(slurp(run + "/config.json"))["kernels"], tmp.path() + "/mine");
}

// Another author names the kernel function as they like: the file's one @nki.jit function is the
// kernel, its baseline runs, and the agent's rewrites keep the author's name.
TEST(OptimizeKernels, AKernelUnderItsAuthorsNameRuns) {
  TempDir tmp;
  std::string root = small_silu_bench(tmp);
  std::string mine = slurp(source("nkibench/styles/nki_api/silu_M4096_N7168_0.py"));
  size_t at = mine.find("def kernel(");
  ASSERT_NE(at, std::string::npos);
  mine.replace(at, 11, "def silu_fwd(");
  spit(tmp.path() + "/mine/silu.py", mine);

  std::string run = tmp.path() + "/run";
  CliRun r = accelopt(tmp.path(), optimize_silu(root, tmp.path() + "/mine", run, "2"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto task = nlohmann::json::parse(slurp(run + "/summary.json"))["tasks"][0];
  EXPECT_GT(task["baseline_latency_ms"].get<double>(), 0) << task.dump(2);
  int kernels = 0;
  for (const auto& f : fs::directory_iterator(run + "/best")) {
    ++kernels;
    EXPECT_NE(slurp(f.path().string()).find("def silu_fwd("), std::string::npos) << f.path();
  }
  EXPECT_GT(kernels, 0);
}

TEST(OptimizeKernels, ANamedTaskWithoutAKernelThereIsRefused) {
  TempDir tmp;
  fs::create_directories(tmp.path() + "/empty");
  CliRun r = accelopt(tmp.path(), "optimize --task silu --agent builtin --kernels " + quote(tmp.path() + "/empty") +
                                      " --out " + quote(tmp.path() + "/run"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no silu_M4096_N7168_0.py or silu.py"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/run/config.json"));  // a failed start leaves no run behind
}

// A task's kernel file with two versions and none named 'kernel': refused before the run starts,
// with the rule (`kernel = NAME`), not run on a guess.
TEST(OptimizeKernels, AKernelFileWithSeveralKernelsIsRefusedWithTheRule) {
  TempDir tmp;
  std::string root = small_silu_bench(tmp);
  std::string mine = slurp(source("nkibench/styles/nki_api/silu_M4096_N7168_0.py"));
  size_t at = mine.find("def kernel(");
  ASSERT_NE(at, std::string::npos);
  std::string v1 = mine;
  v1.replace(at, 11, "def silu_v1(");
  std::string v2 = mine.substr(mine.find("@nki.jit"));  // the decorated def again, imports left out
  v2.replace(v2.find("def kernel("), 11, "def silu_v2(");
  spit(tmp.path() + "/mine/silu.py", v1 + "\n\n" + v2);
  CliRun r = accelopt(tmp.path(), optimize_silu(root, tmp.path() + "/mine", tmp.path() + "/run", "1"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("several kernels ('silu_v1', 'silu_v2') and none named 'kernel': name the one to run 'kernel' "
                       "(or add `kernel = silu_v1`)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/run/config.json"));
}

}  // namespace
