// Ragged windows (tile_size's sites on a loop whose last tile is cut short): a loop walking a long
// free axis of S columns in windows of W that do not divide S, the last window masked
// (`col = t * W + i_f; nl.load(x[i_p, col], mask=(col < S))`) or cut by `min()` (`w = min(W, S -
// t * W)` with `nl.ds(t * W, w)` or `c0:c0 + w`), gets another window width W'. When W' divides S
// the guard goes (no mask, no `min()`); otherwise it stays, written for W'.
#pragma once

#include "loopnest/form.h"
#include "loopnest/transform.h"

namespace loopnest {

// Reports the sites of loop node `loop` (tile_size's, with parameters direction, from, window) to
// `sink`; returns true when the sink asked to stop.
bool ragged_window_sites(Kernel& k, Node& loop, const SiteSink& sink);

}  // namespace loopnest
