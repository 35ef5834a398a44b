// The loop-nest form as deterministic text (`accelopt parse FILE --emit loops`, golden files, and
// the equality check of printing back). Tensors are named by their source name (anonymous ones
// %1, %2 ... in order of first appearance) so the text does not depend on internal ids.
//
//   kernel kernel(v1: hbm float32[128, 32, 7168])
//   tensor v4: sbuf float32[32, 7 | 128, 1024] buffer 'x_tile'     (block dims | partition dim, free)
//   for i0 in affine_range(32):
//     v4[i0, i1, a0[128], a1[1024]] = nl.load(src=v1[a0[128], i0, 1024*i1 + a1[1024]]) @dma
//
// An access lists one index per tensor dim: a start (quasi-affine in the loop variables) plus
// tile axes `aK[size]` (with a stride factor when not 1); a whole-tensor access is the bare name.
#pragma once

#include <string>

#include "loopnest/form.h"

namespace loopnest {

std::string dump(const Kernel& k);

// The text of one access / operand with the kernel's names (for summaries and site keys).
std::string access_text(const Kernel& k, const Access& a);

}  // namespace loopnest
