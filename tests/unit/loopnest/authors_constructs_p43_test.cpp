// Constructs of the session 43 held-out authors that the lifter refused: a host list of blocks
// extended with `+=` (a ragged tail appended to the full blocks, author62's direct-allocation
// adamw: "cannot lift the accumulation into 'tiles'").
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;

const char* const kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n";

// `blocks += [...]` extends the host list as Python does; the loop over it sees every block.
TEST(LoopNestLift, AHostListExtendedWithPlusEqualsHoldsEveryBlock) {
  std::string text = std::string(kHead) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((192, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    blocks = [(0, 128)]\n"
                     "    if x.shape[0] > 128:\n"
                     "        blocks += [(128, x.shape[0] - 128)]\n"
                     "    for lo, n in blocks:\n"
                     "        t = nl.load(x[lo:lo + n, :])\n"
                     "        nl.store(out[lo:lo + n, :], value=nl.exp(t))\n"
                     "    return out\n";
  std::string d = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{192, 64}})));
  EXPECT_NE(d.find("nl.load(src=x[a0[128], a1[64]])"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.load(src=x[128 + a0[64], a1[64]])"), std::string::npos) << d;
  // Extended per iteration of a loop of the form, the list's items would differ per iteration.
  std::string in_loop = std::string(kHead) +
                        "@nki.jit\n"
                        "def kernel(x):\n"
                        "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                        "    seen = []\n"
                        "    for i in nl.affine_range(2):\n"
                        "        seen += [i]\n"
                        "        t = nl.load(x[i * 64:(i + 1) * 64, :])\n"
                        "        nl.store(out[i * 64:(i + 1) * 64, :], value=nl.exp(t))\n"
                        "    return out\n";
  std::string looped = loopnest::dump(loopnest::lift_source("k.py", in_loop, arrays({{128, 64}})));
  EXPECT_EQ(looped.find("for i in affine_range(2)"), std::string::npos) << looped;  // lifted as its copies
}

}  // namespace
