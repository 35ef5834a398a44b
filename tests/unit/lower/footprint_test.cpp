#include <gtest/gtest.h>

#include "lower/footprint.h"

namespace {

trn::Operand sbuf(uint32_t tensor, uint16_t parts, uint32_t free, int64_t offset = 0, uint16_t start = 0) {
  trn::Operand op;
  op.tensor_id = tensor;
  op.partitions = parts;
  op.free_elements = free;
  op.offset = offset;
  op.partition_start = start;
  op.contiguous_bytes = free * 4;
  op.extent = free;
  return op;
}

trn::Operand hbm_rows(uint32_t tensor, uint16_t rows, uint32_t cols, int64_t row_stride, int64_t offset) {
  trn::Operand op = sbuf(tensor, rows, cols, offset);
  op.buffer = trn::BufferKind::Hbm;
  op.row_stride = row_stride;
  return op;
}

}  // namespace

TEST(LowerFootprint, OnChipOverlapNeedsPartitionsAndColumns) {
  EXPECT_TRUE(lower::may_overlap(sbuf(1, 128, 64), sbuf(1, 128, 64, 63)));
  EXPECT_FALSE(lower::may_overlap(sbuf(1, 128, 64), sbuf(1, 128, 64, 64)));
  EXPECT_FALSE(lower::may_overlap(sbuf(1, 64, 64), sbuf(1, 64, 64, 0, 64)));
  EXPECT_FALSE(lower::may_overlap(sbuf(1, 128, 64), sbuf(2, 128, 64)));
  EXPECT_TRUE(lower::may_overlap(sbuf(1, 128, 64), sbuf(1, 128, 64), lower::Shift{0, 10}));
}

TEST(LowerFootprint, InterleavedColumnsOfAThreeDimensionalTileDoNotOverlap) {
  // t[:, :, 3] and t[:, :, 4] of a [128, 4, 16] tile: runs of one element, 16 apart.
  trn::Operand c3 = sbuf(1, 128, 4, 3), c4 = sbuf(1, 128, 4, 4);
  for (auto* c : {&c3, &c4}) c->contiguous_bytes = 4, c->pitch = 16, c->extent = 49;
  EXPECT_FALSE(lower::may_overlap(c3, c4));
  EXPECT_TRUE(lower::may_overlap(c3, c4, lower::Shift{0, -1}));
  EXPECT_TRUE(lower::may_overlap(c3, c3, lower::Shift{0, 16}));
}

TEST(LowerFootprint, HbmRowsInterleaveWithoutOverlap) {
  // Columns [2i, 2i+2) of a [128, 8] HBM matrix.
  EXPECT_FALSE(lower::may_overlap(hbm_rows(1, 128, 2, 8, 0), hbm_rows(1, 128, 2, 8, 2)));
  EXPECT_TRUE(lower::may_overlap(hbm_rows(1, 128, 2, 8, 0), hbm_rows(1, 128, 2, 8, 1)));
  // The block of rows after the first 128 rows.
  EXPECT_FALSE(lower::may_overlap(hbm_rows(1, 128, 8, 8, 0), hbm_rows(1, 128, 8, 8, 1024)));
  EXPECT_TRUE(lower::may_overlap(hbm_rows(1, 128, 8, 8, 0), hbm_rows(1, 128, 8, 8, 1016)));
}

TEST(LowerFootprint, StackingAdjacentCopiesGivesOneRun) {
  trn::Operand col = sbuf(1, 128, 1, 0);
  trn::Operand all = lower::stack_along_rows(col, 1, 8);
  EXPECT_EQ(all.free_elements, 8u);
  EXPECT_EQ(all.contiguous_bytes, 32u);
  EXPECT_EQ(all.extent, 8u);
  trn::Operand spaced = lower::stack_along_rows(sbuf(1, 128, 2), 4, 3);  // [0,2), [4,6), [8,10)
  EXPECT_EQ(spaced.free_elements, 6u);
  EXPECT_EQ(spaced.contiguous_bytes, 8u);
  EXPECT_EQ(spaced.pitch, 4u);
  EXPECT_EQ(spaced.extent, 10u);
  trn::Operand rows = lower::stack_across_rows(hbm_rows(1, 1, 4, 0, 0), 4, 16);
  EXPECT_EQ(rows.partitions, 16);
  EXPECT_EQ(rows.row_stride, 4);
}
