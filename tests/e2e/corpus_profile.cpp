// Every kernel of the corpus (tests/kernels/corpus/, checked numerically by test_nkilib's
// Corpus tests) goes through the rest of the pipeline: `accelopt profile` traces it, runs the
// compiler stage and simulates it, on both architectures. Tensor Engine results in SBUF, PSUM
// matmul operands, SPMD launches and digit-split (// and %) accesses must not break a stage.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> corpus_kernels() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(source("tests/kernels/corpus"))) {
    std::string f = e.path().filename().string();
    const std::string suffix = ".ref.py";
    if (f.size() > suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
      names.push_back(f.substr(0, f.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(CorpusProfile, EveryKernelTracesLowersAndSimulates) {
  auto names = corpus_kernels();
  ASSERT_GE(names.size(), 30u);
  TempDir tmp;
  for (const std::string& name : names) {
    for (const char* arch : {"trn1", "trn2"}) {
      SCOPED_TRACE(name + " " + arch);
      std::string base = "tests/kernels/corpus/" + name;
      CliRun r = accelopt(tmp.path(), "profile --reference " + base + ".ref.py --kernel " + base + ".py --arch " +
                                          arch + " --json");
      ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
      auto j = r.json();
      EXPECT_GT(j["latency"].get<double>(), 0);
      EXPECT_GT(j["instructions"].get<uint64_t>(), 0u);
    }
  }
}

}  // namespace
}  // namespace bench_e2e
