// The engine moves offer only what the language allows: bitvec operators run on the Vector Engine
// only (nki::lib::runs_on, the rule the check applies to an `engine=` in the source), so a shift
// or an xor is never offered to GpSimd or the Scalar Engine, while an arithmetic op beside it is.
#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "loopnest/arg_spec.h"

namespace agents::builtin {
namespace {

const char* kMixed = R"(# inputs: 256x64 256x64
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(keys, x):
    h_out = nl.ndarray((256, 64), dtype=nl.uint32, buffer=nl.shared_hbm)
    y_out = nl.ndarray((256, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    for t in nl.affine_range(2):
        h = nl.load(keys[t * 128:(t + 1) * 128, :])
        s = nisa.tensor_scalar(h, np.left_shift, np.uint32(13))
        g = nl.bitwise_xor(h, s)
        xt = nl.load(x[t * 128:(t + 1) * 128, :])
        y = nl.multiply(xt, xt)
        nl.store(h_out[t * 128:(t + 1) * 128, :], value=g)
        nl.store(y_out[t * 128:(t + 1) * 128, :], value=y)
    return h_out, y_out
)";

TEST(BuiltinEngineRules, NoBitvecInstructionIsOfferedOffTheVectorEngine) {
  auto args = loopnest::arg_specs_from_header(kMixed);
  std::set<std::string> moved;
  for (const auto& s : find_sites(kMixed, args))
    if (s.transform == "engine_assign") moved.insert(s.params.at("anchor") + " " + s.params.at("engine"));
  for (const auto& m : moved) {
    EXPECT_EQ(m.find("shift"), std::string::npos) << m;
    EXPECT_EQ(m.find("bitwise"), std::string::npos) << m;
  }
  // The float multiply still moves to GpSimd: the rule is about the operator, not the kernel.
  bool multiply_moves = false;
  for (const auto& m : moved) multiply_moves = multiply_moves || m.find("multiply") != std::string::npos;
  EXPECT_TRUE(multiply_moves);
}

}  // namespace
}  // namespace agents::builtin
