// The 14 NKIBench kernels in three styles (nkibench/styles/README.md): the bundled one, the
// machine-generated legacy index-grid form and the newer nki API. The three files of a task are
// one program written three ways, so:
//   - each directory holds the 14 kernels under the bundled file names (bench/optimize --kernels);
//   - each file is in its style (the marks that make it that style are there, the other styles'
//     are not), so that a later edit cannot quietly turn one style into another;
//   - trace-only at full size, every style kernel simulates within 2% of its bundled kernel
//     (seconds for all 28), once its loops run like the bundled kernel's (below: a legacy
//     kernel's Python `range` loop runs in order);
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
#include "loopnest/transform.h"

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

// Simulated latency (ms) of a trace-only run at the reference's full size (of `text` when given,
// else of the file).
double simulated_ms(const std::string& name, const std::string& kernel, const std::string& text = "") {
  eval::TraceRequest req = eval::trace_request_from_files(eval_test::bundled_reference(name), kernel);
  if (!text.empty()) req.kernel_text = text;
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

// Known gaps: none since 3 Dec 2026. The nki_api kernels spell `nisa.nc_transpose` where the
// bundled ones spell the identity matmul with `is_moving_onezero=True`; the compiler stage's
// transpose_identity rule runs both as the same instruction (gqa_full 1.076 -> 1.000,
// matmul_add_rmsnorm 1.023, rmsnorm_matmul 1.021 -> 1.000, swiglu 1.040 -> 1.014). A gap found
// later goes here with its cause; the check fails if it grows.
const std::map<std::string, double>& known_gaps() {
  static const std::map<std::string, double> gaps = {};
  return gaps;
}

// The kernel with every loop the compiler runs in order whose iterations are independent written
// affine_range: the built-in agent's affine_loop move at each of its sites.
std::string with_affine_loops(const std::string& name, const std::string& path, const std::string& text) {
  std::string ref = eval_test::bundled_reference(name);
  return loopnest::apply_every_site("affine_loop", path, text, eval::reference_arg_specs(ref, bench::read_file(ref)));
}

using StyleCase = std::tuple<std::string, std::string>;  // style, task_config

class StyleKernel : public ::testing::TestWithParam<StyleCase> {};

// The rule for loops: the legacy compiler runs a kernel's Python `range` loop as the
// sequential_range it rewrites it to (LANG; docs/simulator.md, Dependences and program order), and
// the legacy_grid rope loops with `range` as the published RoPE kernels do (k:rope_single_freq_apply,
// s:rope_optimized), where the bundled rope's loop is an affine_range. Written as published, the
// file is not the bundled program as compiled: it is 1.42x slower (4.108 against 2.890 ms on trn1;
// NKIBench's "a RoPE kernel went from 21.1% to 29.6%" of peak puts one published RoPE kernel at
// ~4.34 ms here, nkibench.md). The file is kept as published; it is the bundled program after the
// move a kernel engineer makes next, affine_loop, so it is held to the bundled kernel after that
// move, and to being slower before it.
TEST_P(StyleKernel, SimulatesLikeTheBundledKernel) {
  const auto& [style, name] = GetParam();
  double bundled = bundled_ms(name);
  const std::string path = style_kernel(style, name), text = bench::read_file(path);
  const std::string affine = with_affine_loops(name, path, text);
  double mine = simulated_ms(name, path, affine);
  ASSERT_GT(bundled, 0);
  double ratio = mine / bundled, allowed = 1.02;
  auto gap = known_gaps().find(style + "/" + name);
  if (gap != known_gaps().end()) allowed = std::max(allowed, gap->second * 1.005);
  std::string moved = affine == text ? "" : " (after affine_loop)";
  EXPECT_GE(ratio, 0.98) << style << moved << " " << mine << " ms, bundled " << bundled << " ms";
  EXPECT_LE(ratio, allowed) << style << moved << " " << mine << " ms, bundled " << bundled << " ms";
  if (affine != text) {
    double in_order = simulated_ms(name, path);
    EXPECT_GT(in_order, 1.02 * mine) << style << ": its loops run in order, " << in_order << " ms; affine " << mine << " ms";
  }
}

// The legacy_grid rope (as published) loops in order: the rule above is exercised, not vacuous.
TEST(Styles, TheLegacyRopeLoopsInOrder) {
  std::vector<std::string> in_order;
  for (const auto& style : styles())
    for (const auto& name : eval_test::case_names()) {
      const std::string path = style_kernel(style, name), text = bench::read_file(path);
      if (with_affine_loops(name, path, text) != text) in_order.push_back(style + "/" + name);
    }
  EXPECT_NE(std::find(in_order.begin(), in_order.end(), "legacy_grid/rope_single_freq_apply_B1_H64_N4096_D128"),
            in_order.end());
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
