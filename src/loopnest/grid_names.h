// The author's names for index grids (`t0 = nl.arange(128)[:, None]` at the top of the kernel, as
// tool-generated NKI writes them), so that printed statements index with `t0` as the author does
// rather than spelling the grid out again.
#pragma once

#include <map>
#include <string>

#include "loopnest/form.h"

namespace loopnest {

struct GridName {
  std::string name;  // `t0`
  std::string key;   // grid_key(size, axis, rank) of the grid it holds
};

// `nl.arange(N)[...]` with one `:` on `axis` of `rank` places (None elsewhere): one key per grid.
std::string grid_key(int64_t size, int axis, size_t rank);

// The kernel body's top-level bindings of one name to a plain index grid, by node id: only names
// bound exactly once in the kernel (and not loop variables), so the name holds the grid wherever
// it is in scope after its binding. `nl_alias` is the file's name for nki.language.
std::map<int, GridName> authored_grid_names(const Kernel& k, const std::string& nl_alias);

}  // namespace loopnest
