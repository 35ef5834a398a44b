// The Tensor Engine's grid in time (trn/engine_timeline.h): matmuls on disjoint PE tiles run at
// the same time, on overlapping ones in turn, and an untiled instruction takes the whole grid.
#include <gtest/gtest.h>

#include "trn/engine_timeline.h"

namespace {

using trn::EngineTimeline;
using trn::pe_cells_of_tile;

TEST(PeCells, ATileCoversTheQuadrantsItSpans) {
  EXPECT_EQ(pe_cells_of_tile(0, 0, 0, 0), 0);  // no tile given
  EXPECT_EQ(pe_cells_of_tile(0, 0, 128, 128), trn::kWholePeGrid);
  EXPECT_EQ(pe_cells_of_tile(0, 0, 64, 128), 0x00FF);   // row quadrants 0-1, every column
  EXPECT_EQ(pe_cells_of_tile(64, 0, 64, 128), 0xFF00);  // row quadrants 2-3
  EXPECT_EQ(pe_cells_of_tile(32, 64, 32, 32), 1u << (1 * 4 + 2));
}

TEST(EngineTimeline, DisjointPeTilesRunAtTheSameTime) {
  EngineTimeline pe;
  const auto top = pe_cells_of_tile(0, 0, 64, 128), bottom = pe_cells_of_tile(64, 0, 64, 128);
  pe.occupy(top, pe.first_fit(top, 0, 100), 100);
  EXPECT_EQ(pe.first_fit(bottom, 0, 100), 0);  // the other row half is free
  pe.occupy(bottom, 0, 100);
  EXPECT_EQ(pe.first_fit(top, 0, 100), 100);   // its own half is not
  EXPECT_EQ(pe.first_fit(0, 50, 10), 100);     // an untiled instruction waits for both halves
  EXPECT_EQ(pe.busy_end_before(top, 150), 100);
}

TEST(EngineTimeline, WorkBeforeTheFirstTileHoldsEveryCell) {
  EngineTimeline pe;
  pe.occupy(0, 0, 100);  // an untiled matmul
  const auto corner = pe_cells_of_tile(96, 96, 32, 32);
  EXPECT_EQ(pe.first_fit(corner, 0, 10), 100);
  pe.occupy(corner, 100, 10);
  EXPECT_EQ(pe.first_fit(pe_cells_of_tile(0, 0, 32, 32), 100, 10), 100);
  EXPECT_EQ(pe.first_fit(0, 100, 10), 110);
}

}  // namespace
