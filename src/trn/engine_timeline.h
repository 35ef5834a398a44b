// A compute engine in time. For the Tensor Engine, its 128x128 PE grid: a matmul given a PE tile (nc_matmul's
// tile_position / tile_size, multiples of 32) occupies only the 32x32 sub-arrays its tile covers,
// so matmuls on disjoint tiles run at the same time: "the 128 rows can be split 2x64 (NC-v2+) or
// 4x32 (NC-v3+), columns likewise; parallel small matmuls on disjoint tiles" (ISA, ISA-NEW;
// trainium-performance.md, Tensor Engine). Every other PE instruction takes the whole grid.
#pragma once

#include <cstdint>
#include <vector>

#include "trn/resource_timeline.h"
#include "trn/trace.h"

namespace trn {

class EngineTimeline {
 public:
  // The same as ResourceTimeline's, for the PE cells an instruction occupies (0: the whole
  // engine, as for every instruction of the other engines).
  double first_fit(PeCells cells, double earliest, double duration) const;
  void occupy(PeCells cells, double start, double duration);
  double busy_end_before(PeCells cells, double t) const;

 private:
  // Until the first tiled matmul one timeline stands for the engine (every instruction takes all
  // of it); from then on each PE cell has its own, starting as a copy of it.
  void split();
  ResourceTimeline whole_;
  std::vector<ResourceTimeline> cells_;
};

}  // namespace trn
