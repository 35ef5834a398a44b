// A @nki.jit sub-kernel called from the kernel with tiles is inlined by the compiler like a plain
// helper, and open_helpers (src/loopnest/open_helpers.cpp) opens it the same way. What kept it
// closed on usr_nested_jit_rmsnorm was the kernel's scalar parameter with a default (`eps=1e-6`,
// which the task does not pass): the check that the opened kernel prints back lifted it again on
// array arguments only and refused any scalar parameter. Trailing scalars are now left to their
// defaults, and the re-lift still must give the same form.
#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "loopnest/arg_spec.h"

namespace agents::builtin {
namespace {

const char* kJitHelper = R"(# inputs: 256x512 1x512
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def rms_scale(t, w_tile, eps):
    ms = nl.mean(nl.square(t), axis=[1], keepdims=True)
    return nl.multiply(nl.multiply(t, nl.rsqrt(nl.add(ms, eps))), w_tile)


@nki.jit
def kernel(x, w, eps=1e-6):
    N, D = x.shape
    out = nl.ndarray((N, D), dtype=nl.float32, buffer=nl.shared_hbm)
    wt = nl.broadcast_to(nl.load(w), shape=(128, D))
    for i in nl.affine_range(N // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], rms_scale(t, wt, eps))
    return out
)";

TEST(BuiltinOpenJitHelper, ASubKernelCalledWithTilesOpensBesideADefaultedScalarParameter) {
  auto args = loopnest::arg_specs_from_header(kJitHelper);
  auto shapes = builtin_test::input_shapes(kJitHelper);
  auto want = builtin_test::run_source(kJitHelper, shapes);
  int opened = 0;
  for (const auto& s : find_sites(kJitHelper, args)) {
    if (!s.params.count("helpers") || s.params.at("helpers") != "open") continue;
    ++opened;
    std::string moved = apply_site(kJitHelper, s, args);
    EXPECT_NE(moved.find("nl.rsqrt("), moved.find("def kernel")) << moved;
    EXPECT_GT(moved.rfind("nl.rsqrt("), moved.find("def kernel")) << moved;  // the sub-kernel's code in the loop
    EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(moved, shapes), want), 1e-6) << s.key() << "\n" << moved;
  }
  EXPECT_GT(opened, 0);
}

}  // namespace
}  // namespace agents::builtin
