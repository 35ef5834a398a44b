// The 14 NKIBench kernels in three styles (nkibench/styles/README.md): the bundled one, the
// machine-generated legacy index-grid form and the newer nki API. The three files of a task are
// one program written three ways, so:
//   - each directory holds the 14 kernels under the bundled file names (bench/optimize --kernels);
//   - each file is in its style (the marks that make it that style are there, the other styles'
//     are not), so that a later edit cannot quietly turn one style into another;
//   - trace-only at full size, every style kernel simulates within 2% of its bundled kernel
//     (seconds for all 28);
//   - with ACCELOPT_FULL_NKIBENCH=1, every style kernel passes the full-size five-seed check
//     (minutes, like full_size_test.cpp).
#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include <gtest/gtest.h>

#include "bench/loader.h"
#include "eval/profile_run.h"
#include "eval_test_util.h"

namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& styles() {
  static const std::vector<std::string> s = {"legacy_grid", "nki_api"};
  return s;
}

std::string style_kernel(const std::string& style, const std::string& name) {
  return eval_test::source_dir() + "/nkibench/styles/" + style + "/" + name + "_0.py";
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(Styles, EachStyleHoldsTheFourteenKernelsUnderTheBundledNames) {
  for (const auto& style : styles()) {
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(eval_test::source_dir() + "/nkibench/styles/" + style))
      if (entry.path().extension() == ".py") ++files;
    EXPECT_EQ(files, 14u) << style;
    for (const auto& name : eval_test::case_names()) EXPECT_TRUE(fs::is_regular_file(style_kernel(style, name))) << name;
  }
}

TEST(Styles, EveryFileIsInItsStyle) {
  for (const auto& name : eval_test::case_names()) {
    SCOPED_TRACE(name);
    std::string legacy = bench::read_file(style_kernel("legacy_grid", name));
    for (const char* mark : {"import neuronxcc.nki.language as nl", "def kernel(v1", "  import numpy as np\n",
                             "par_dim(", "nl.arange(", "[:, None]", "[None, :]", "mask=", "''' end loop i0 '''"})
      EXPECT_TRUE(contains(legacy, mark)) << "legacy_grid lacks " << mark;
    std::string newer = bench::read_file(style_kernel("nki_api", name));
    for (const char* mark : {"import nki\n", "import nki.language as nl", "import nki.isa as nisa", "nisa.dma_copy(dst="})
      EXPECT_TRUE(contains(newer, mark)) << "nki_api lacks " << mark;
    for (const char* mark : {"neuronxcc", "nl.arange", "mask=", "par_dim", "nl.load(", "nl.store(", "nl.zeros("})
      EXPECT_FALSE(contains(newer, mark)) << "nki_api has " << mark;
  }
}

// Simulated latency (ms) of a trace-only run at the reference's full size.
double simulated_ms(const std::string& name, const std::string& kernel) {
  eval::TraceRequest req = eval::trace_request_from_files(eval_test::bundled_reference(name), kernel);
  eval::ProfileRun run = eval::profile_kernel(req, "trn1");
  EXPECT_TRUE(run.profile.has_value()) << kernel << ": " << eval::to_string(run.status) << "\n"
                                       << eval_test::joined(run.diagnostics);
  return run.profile ? run.profile->latency : 0;
}

double bundled_ms(const std::string& name) {
  static std::map<std::string, double> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, simulated_ms(name, eval_test::bundled_kernel(name))).first;
  return it->second;
}

// Known gap: swiglu in the nki_api style (the group of weight tiles as one tile with the group in
// the free dimension) simulates 10.6% slower than the bundled kernel with the same work (equal
// engine and DMA busy times): the schedule differs, the cause is not located. Dependences are
// tracked by accessed region (trn/hazards.h), which closed the gaps of matmul_add_rmsnorm and
// gqa_full (1.026, 1.020) and most of swiglu's (1.277). The check fails if the gap grows.
const std::map<std::string, double>& known_gaps() {
  static const std::map<std::string, double> gaps = {
      // 1.037 of it stays with the transposes priced alike: the nki_api kernel holds each block's
      // weights as one [128, k_tiles, N] tile, which frees only after the block's last matmul,
      // where the bundled kernel's k_tiles block tiles free one by one (docs/simulator.md, Known
      // errors: the next block's loads wait for that space).
      {"nki_api/swiglu_M4096_N3072_K1024", 1.106},
      // The bundled kernels transpose by nc_matmul(x, identity, is_moving_onezero=True): the
      // author's hint halves the fp32 factor (ISA nc_matmul, the onezero rule of 2 Dec); the
      // newer-API kernels spell nisa.nc_transpose, which carries no hint and whose documented cost
      // names none. Streaming nc_transpose at the hinted rate closes these gaps but moved the Trn2
      // fidelity median 0.05825 -> 0.05842, over the guard's 0.0583 (cs149 conv2d fp32_maxpool
      // 0.9493x -> 0.9488x): not adopted.
      {"nki_api/gqa_full_B1_N4096_QH16_KH8_D128", 1.076},
      {"nki_api/matmul_add_rmsnorm_M4096_N2048_K2048", 1.024},
      {"nki_api/rmsnorm_matmul_M4096_N2048_K1024", 1.022},
  };
  return gaps;
}

using StyleCase = std::tuple<std::string, std::string>;  // style, task_config

class StyleKernel : public ::testing::TestWithParam<StyleCase> {};

TEST_P(StyleKernel, SimulatesLikeTheBundledKernel) {
  const auto& [style, name] = GetParam();
  double bundled = bundled_ms(name);
  double mine = simulated_ms(name, style_kernel(style, name));
  ASSERT_GT(bundled, 0);
  double ratio = mine / bundled, allowed = 1.02;
  auto gap = known_gaps().find(style + "/" + name);
  if (gap != known_gaps().end()) allowed = std::max(allowed, gap->second * 1.005);
  EXPECT_GE(ratio, 0.98) << style << " " << mine << " ms, bundled " << bundled << " ms";
  EXPECT_LE(ratio, allowed) << style << " " << mine << " ms, bundled " << bundled << " ms";
}

TEST_P(StyleKernel, PassesTheFullSizeCheckWithAllSeeds) {
  if (!eval_test::full_size_enabled()) GTEST_SKIP() << "set ACCELOPT_FULL_NKIBENCH=1 to run the full-size check";
  const auto& [style, name] = GetParam();
  eval::Evaluation r = eval_test::full_size_check(name, style_kernel(style, name));
  EXPECT_EQ(r.status, eval::Status::Ok) << eval_test::joined(r.diagnostics);
  EXPECT_EQ(r.seeds.size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(NkiBench, StyleKernel, ::testing::Combine(::testing::ValuesIn(styles()),
                                                                   ::testing::ValuesIn(eval_test::case_names())),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

}  // namespace
