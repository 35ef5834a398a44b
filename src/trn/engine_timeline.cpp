#include "trn/engine_timeline.h"

#include <algorithm>

namespace trn {
namespace {

bool whole(PeCells cells) { return cells == 0 || cells == kWholePeGrid; }

template <typename F>
void for_each_cell(PeCells cells, F&& f) {
  for (int c = 0; c < kPeQuadrants * kPeQuadrants; ++c)
    if (cells & (1u << c)) f(c);
}

}  // namespace

void EngineTimeline::split() {
  if (cells_.empty()) cells_.assign(kPeQuadrants * kPeQuadrants, whole_);
}

double EngineTimeline::first_fit(PeCells cells, double earliest, double duration) const {
  if (cells_.empty()) return whole_.first_fit(earliest, duration);
  if (whole(cells)) cells = kWholePeGrid;
  // The first time every cell it needs is free: each cell's first fit only moves the start later.
  double start = earliest;
  for (bool moved = true; moved;) {
    moved = false;
    for_each_cell(cells, [&](int c) {
      const double fit = cells_[size_t(c)].first_fit(start, duration);
      if (fit != start) start = fit, moved = true;
    });
  }
  return start;
}

void EngineTimeline::occupy(PeCells cells, double start, double duration) {
  if (cells_.empty() && whole(cells)) return whole_.occupy(start, duration);
  split();
  for_each_cell(whole(cells) ? kWholePeGrid : cells,
                [&](int c) { cells_[size_t(c)].occupy(start, duration); });
}

double EngineTimeline::busy_end_before(PeCells cells, double t) const {
  if (cells_.empty()) return whole_.busy_end_before(t);
  double end = 0;
  for_each_cell(whole(cells) ? kWholePeGrid : cells,
                [&](int c) { end = std::max(end, cells_[size_t(c)].busy_end_before(t)); });
  return end;
}

}  // namespace trn
