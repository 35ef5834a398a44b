// tile_size on row blocks (src/loopnest/coarsen.cpp, rows=1): a loop over 64-row blocks coarsens
// onto 128 partitions with what its tiles carry (an accumulator declared in the loop, a broadcast,
// a transpose's output); and a loop whose body updates state kept across its iterations is never
// coarsened (the update would run half as often). The printed kernels are GoldenRewrites'
// (half_row_*.tile_size_rows); that every site keeps the result, EverySiteOfTheTestKernelsKeepsTheirResult's.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

std::vector<loopnest::Site> tile_size_sites(const std::string& path, const std::string& text,
                                            const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "tile_size") out.push_back(s);
  return out;
}

TEST(CoarsenRows, HalfRowBlocksGrowOntoEveryPartition) {
  const std::string path = source_dir() + "/tests/kernels/half_row_blocks.py";
  const std::string text = read(path);
  const auto args = arrays({{256, 512}, {256, 4}, {4, 512}});
  const loopnest::Site* rows = nullptr;
  auto sites = tile_size_sites(path, text, args);
  for (const auto& s : sites)
    if (s.params.count("rows")) rows = &s;
  ASSERT_TRUE(rows);
  std::string after = loopnest::apply_site(path, text, args, *rows);
  // The rows, the accumulator declared in the loop and the broadcast of g's row all on 128.
  EXPECT_NE(after.find("x[128*blk:128*blk + 128, :]"), std::string::npos) << after;
  EXPECT_NE(after.find("nl.zeros((128, 512)"), std::string::npos) << after;
  EXPECT_NE(after.find("shape=(128, 512)"), std::string::npos) << after;
}

TEST(CoarsenRows, RowsAlreadyOnEveryPartitionOfferNoRowsSite) {
  // The same kernel with 128-row blocks: nothing to fill.
  const std::string path = source_dir() + "/tests/kernels/half_row_blocks.py";
  std::string text = read(path);
  text.replace(text.find("ROWS = 64"), 9, "ROWS = 128");
  for (const auto& s : tile_size_sites(path, text, arrays({{256, 512}, {256, 4}, {4, 512}})))
    EXPECT_FALSE(s.params.count("rows")) << s.key();
}

TEST(Coarsen, AnUpdateOfStateFromBeforeTheLoopKeepsTheLoop) {
  // `scale` doubles every iteration: coarsened by 2 it would double half as often.
  const std::string text = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    scale = nl.full((128, 1), 1.0, dtype=nl.float32)
    for j in nl.sequential_range(4):
        scale[...] = nl.multiply(scale, 2.0)
        t = nl.load(x[:, j * 256:(j + 1) * 256])
        nl.store(out[:, j * 256:(j + 1) * 256], value=nl.multiply(t, scale))
    return out
)";
  EXPECT_TRUE(tile_size_sites("state_update.py", text, arrays({{128, 1024}})).empty());
}

}  // namespace
