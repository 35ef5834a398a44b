// Masks that hold everywhere (src/loopnest/live_mask.h): an index-space author's guard on an edge the
// tiles divide masks nothing and is no constraint of the lifted form; a guard some element fails is
// kept. tests/kernels/local_chunk_scan_grid.py guards every access with `(ch < C) & (j < M)`.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

// Per masked op of the lifted kernel, the number of constraints left; -1 for an unmasked op.
std::vector<int> mask_sizes(const std::vector<loopnest::ArgSpec>& args) {
  const std::string path = source_dir() + "/tests/kernels/local_chunk_scan_grid.py";
  loopnest::Kernel k = loopnest::lift_source(path, read(path), args);
  std::vector<int> out;
  loopnest::for_each_node(k.body, [&](const loopnest::Node& n, const std::vector<int>&) {
    for (const loopnest::Op& op : n.ops)
      if (op.api == "nl.load" || op.api == "nl.store") out.push_back(op.has_mask ? static_cast<int>(op.mask.size()) : -1);
  });
  return out;
}

TEST(LiveMask, AGuardOnEdgesTheTilesDivideIsNoMask) {
  // 256 rows in 128-row tiles, 3072 columns in 1024-column tiles: both guards hold everywhere.
  for (int sizes : mask_sizes(arrays({{256, 3072}, {4, 3072}}))) EXPECT_EQ(sizes, -1);
}

TEST(LiveMask, AGuardSomeElementFailsIsKeptAlone) {
  // 2560 columns: the last 1024-column tile is cut, so `j < M` stays; `ch < C` still holds everywhere.
  std::vector<int> sizes = mask_sizes(arrays({{256, 2560}, {4, 2560}}));
  ASSERT_FALSE(sizes.empty());
  for (int s : sizes) EXPECT_EQ(s, 1);
}

}  // namespace
