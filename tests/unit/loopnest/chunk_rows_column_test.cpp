// chunk_rows (src/loopnest/chunk_rows.cpp) on a scan nest whose activation takes its per-partition
// scale as a column picked by an integer, `a_tile[0:128, s]`: a [128] vector, one value per
// partition, which the move treats like a [128, 1] column (before session 45 it refused the nest:
// the tutorial-style mamba of a held-out author had no chunk_rows site). Every site keeps the result.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::expect_every_site_keeps_result;
using loopnest_test::read;
using loopnest_test::source_dir;

TEST(ChunkRowsColumn, AColumnPickedByAnIntegerIsAScalarPerPartition) {
  const std::string path = source_dir() + "/tests/kernels/scan_rows_column_scale.py";
  const std::string text = read(path);
  const auto args = arrays({{256, 1024}, {256, 1024}, {256, 4}});
  std::vector<std::string> chunks;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "chunk_rows") chunks.push_back(s.params.at("chunk"));
  EXPECT_EQ(chunks, (std::vector<std::string>{"512"}));
  EXPECT_GE(expect_every_site_keeps_result(path, text, args), 2u);  // chunk_rows among them
}

}  // namespace
