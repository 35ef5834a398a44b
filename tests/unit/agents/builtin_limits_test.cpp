// free_size never proposes a size the hardware refuses (each such proposal cost an evaluation that
// failed at trace time): a moving matmul operand over 512 columns, a PSUM tile over one 2 KiB bank,
// a partition dim over 128 (loopnest::limit_violation on the result, the interpreter's limits from
// trn/tile_limits.h); nor a size variable whose value a literal shape also spells (the copies
// jam_rows prints), which would change one and not the other.
#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

using builtin_test::arrays;
using builtin_test::read;

std::set<std::string> free_size_values(const std::string& source, const std::vector<loopnest::ArgSpec>& args) {
  std::set<std::string> out;
  for (const auto& s : find_sites(source, args))
    if (s.transform == "free_size" && s.params.count("value")) out.insert(s.params.at("value"));
  return out;
}

const std::string kTutorial = std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/reload_matmul_tiles.py";

TEST(BuiltinLimits, FreeSizeNeverWidensAMatmulOrPsumTilePastTheHardware) {
  // NB = 512 sizes the moving operand and the fp32 PSUM accumulator: 1024 would exceed both.
  // (Where the kernel lifts, the source-level free_size is left to the form's since 79c882e.)
  auto args = arrays({{256, 256}, {2, 128, 1024}});
  EXPECT_FALSE(free_size_values(read(kTutorial), args).count("1024"));
}

TEST(BuiltinLimits, FreeSizeNeverTakesAPartitionDimPast128) {
  const std::string text = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    M, N = x.shape
    P = 128
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // P):
        t = nl.load(x[nl.ds(i * P, P), :])
        nl.store(out[nl.ds(i * P, P), :], value=nl.multiply(t, 2.0))
    return out
)";
  EXPECT_TRUE(free_size_values(text, arrays({{512, 256}})).empty());
  // Without the shapes nothing can be judged: the site stays (the harness decides).
  EXPECT_EQ(free_size_values(text, {}), (std::set<std::string>{"256"}));
}

TEST(BuiltinLimits, FreeSizeLeavesAVariableThatALiteralShapeAlsoSpells) {
  auto args = arrays({{256, 256}, {2, 128, 1024}});
  std::string source = read(kTutorial);
  Site jam;
  for (const auto& s : find_sites(source, args))
    if (s.transform == "jam_rows" && s.params.count("factor") && s.params.at("factor") == "2") jam = s;
  ASSERT_EQ(jam.transform, "jam_rows");
  std::string jammed = apply_site(source, jam, args);
  ASSERT_NE(jammed.find("nl.zeros((128, NB)"), std::string::npos) << jammed;
  ASSERT_NE(jammed.find("NB = 512"), std::string::npos) << jammed;
  // Without the shapes the kernel does not lift and the source-level free_size looks: it offers
  // NB's sizes on the kernel before jam_rows, none after (the copies' accumulators spell the author's
  // `NB` since session 28, but other literals of the jammed text still spell 512).
  EXPECT_FALSE(free_size_values(source, {}).empty());
  EXPECT_TRUE(free_size_values(jammed, {}).empty());
}

}  // namespace
}  // namespace agents::builtin
