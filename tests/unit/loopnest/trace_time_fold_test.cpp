// Trace-time host expressions the lifter does not model itself are computed by the language core
// (src/loopnest/lift_fold.cpp); an expression reading a tile's values, a loop-dependent integer or
// a random draw is never folded, and its refusal stands.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;

const char* const kHead =
    "import math\nimport numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
    "@nki.jit\n";

std::string kernel_with(const std::string& host_lines, const std::string& trip) {
  return std::string(kHead) +
         "def kernel(x):\n"
         "    R, C = x.shape\n" +
         host_lines +
         "    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    for i in nl.affine_range(" + trip + "):\n"
         "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
         "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.minimum(t, big))\n"
         "    return out\n";
}

TEST(LoopNestLift, TraceTimeHostValuesAreFoldedByTheLanguageCore) {
  std::string text = kernel_with(
      "    assert all(d % 128 == 0 for d in x.shape) and not any(d == 0 for d in x.shape)\n"
      "    assert isinstance(C, int) and bool(C) and str(C).isdigit() and pow(2, 9) == C\n"
      "    n = int(math.log2(R)) + C.bit_length() - 10 + int(np.prod(x.shape)) // (R * C)\n"
      "    big = np.finfo(np.float32).max if np.iinfo(np.int32).max > R * C else 0.0\n",
      "n // 4");
  // log2(256) + (512).bit_length() - 10 + 1 = 9: two row tiles.
  std::string dump = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{256, 512}})));
  EXPECT_NE(dump.find("for i in affine_range(2):"), std::string::npos) << dump;
}

TEST(LoopNestLift, AFoldNeverReadsATilesValuesALoopIndexOrARandomDraw) {
  auto refusal = [](const std::string& host_lines, const std::string& trip) {
    try {
      loopnest::lift_source("k.py", kernel_with(host_lines, trip), arrays({{256, 512}}));
    } catch (const loopnest::LiftError& e) {
      return e.render();
    }
    return std::string("lifted");
  };
  // A random draw differs from run to run: never a constant of the form.
  EXPECT_NE(refusal("    big = 1.0\n", "int(np.random.randint(1, 2)) + 1").find("cannot lift"), std::string::npos);
  // A tile's values are not known at trace time.
  std::string tile_truth = refusal("    big = 1.0\n    u = nl.load(x[0:128, :])\n    big = float(bool(u))\n", "2");
  EXPECT_NE(tile_truth.find("cannot lift"), std::string::npos) << tile_truth;
  EXPECT_NE(tile_truth.find("k.py:"), std::string::npos) << tile_truth;
  // Its shape is: a tile stands in for the fold as its shape and dtype.
  EXPECT_EQ(refusal("    big = 1.0 if all(s > 0 for s in x.shape) and x.dtype == np.float32 else 2.0\n", "2"), "lifted");
}

}  // namespace
