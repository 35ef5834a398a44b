// The author's names for index grids (`t0 = nl.arange(128)[:, None]` at the top of the kernel, as
// tool-generated NKI writes them), so that printed statements index with `t0` as the author does
// rather than spelling the grid out again.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "loopnest/form.h"

namespace loopnest {

struct GridName {
  std::string name;  // `t0`
  std::string key;   // grid_key(size, axis, rank) of the grid it holds
};

// `nl.arange(N)[...]` with one `:` on `axis` of `rank` places (None elsewhere): one key per grid.
std::string grid_key(int64_t size, int axis, size_t rank);
// Axis `axis` of `nl.mgrid[0:s0, 0:s1, ...]`: a dense grid of the whole shape, which stands for
// `nl.arange(s_axis)` on that axis only in an index whose tile has exactly that shape (numpy
// broadcasting of a (64, 768) grid with a 512-wide one fails).
std::string dense_grid_key(const std::vector<int64_t>& shape, int axis);

// The kernel body's top-level bindings of names to plain index grids, by node id: `t0 =
// nl.arange(128)[:, None]`, or `i_p, i_f = nl.mgrid[0:TP, 0:TF]` (an index-space author's pair,
// its bounds literals or names bound once to integer literals in the kernel or its module); only
// names bound exactly once in the kernel (and not loop variables), so the name holds the grid
// wherever it is in scope after its binding. `nl_alias` is the file's name for nki.language.
std::map<int, std::vector<GridName>> authored_grid_names(const Kernel& k, const std::string& nl_alias);

}  // namespace loopnest
