// The hardware's tile limits on the form (loopnest::limit_violation, trn/tile_limits.h): what the
// interpreter refuses when the kernel runs is found on the lifted kernel, so a rewrite that would
// introduce it is refused before it costs an evaluation.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

std::optional<std::string> violation(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  return loopnest::limit_violation(loopnest::lift_source("k.py", text, args));
}

TEST(TileLimits, AKernelWithinTheLimitsHasNoViolation) {
  std::string text = read(source_dir() + "/tests/kernels/reload_matmul_tiles.py");
  EXPECT_FALSE(violation(text, arrays({{256, 256}, {2, 128, 1024}})));
}

TEST(TileLimits, APsumTileOverOneBankAndAWideMovingOperandAreFound) {
  std::string text = read(source_dir() + "/tests/kernels/reload_matmul_tiles.py");
  const std::string nb = "NB = 512";
  ASSERT_NE(text.find(nb), std::string::npos);
  text.replace(text.find(nb), nb.size(), "NB = 1024");
  auto v = violation(text, arrays({{256, 256}, {2, 128, 1024}}));
  ASSERT_TRUE(v);
  EXPECT_NE(v->find("moving free size 1024"), std::string::npos) << *v;
  // Without a matmul, the accumulator alone: (128, 1024) fp32 is 4 KiB per partition.
  const std::string psum = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 1024), dtype=nl.float32, buffer=nl.psum)
    acc += nl.load(x)
    nl.store(out, value=nl.copy(acc))
    return out
)";
  v = violation(psum, arrays({{128, 1024}}));
  ASSERT_TRUE(v);
  EXPECT_NE(v->find("PSUM tile `acc` needs 4096 bytes"), std::string::npos) << *v;
}

TEST(TileLimits, MoreThan128PartitionsAreFound) {
  const std::string text = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    M, N = x.shape
    P = 256
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // P):
        t = nl.load(x[nl.ds(i * P, P), :])
        nl.store(out[nl.ds(i * P, P), :], value=nl.multiply(t, 2.0))
    return out
)";
  auto v = violation(text, arrays({{512, 256}}));
  ASSERT_TRUE(v);
  EXPECT_NE(v->find("256 partitions"), std::string::npos) << *v;
}

}  // namespace
