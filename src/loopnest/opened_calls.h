// Helper calls and host loops opened for a move (open_helpers, `helpers=open` sites), put back where
// the move left them as they were (reclose_calls.cpp). Opening makes every call's nodes the kernel's
// own, printed from the form; a move touching one call printed all of them opened (held-out author37
// gqa_full: a one-line engine_assign printed 100 changed lines, six untouched helpers inlined).
#pragma once

#include <vector>

#include "loopnest/form.h"

namespace loopnest {

// An Inline node of the kernel as lifted (a helper call, a host loop's copies) and the ids of the
// nodes open_helpers put in its place, in order.
struct OpenedCall {
  Node call;
  std::vector<int> ids;
};

// open_helpers, recording every call it opens in a block of the kernel (calls inside an opened call
// are its own nodes).
int open_helpers_recording(Kernel& k, std::vector<OpenedCall>& calls);

// `k` (a move applied to `opened`, which is `before` with `calls` opened): every call whose nodes are
// still where opening put them, in order and unchanged (the same operations, accesses and tensors as
// in `opened`), is its Inline node again, its tiles named as lifted. The number put back. The caller
// checks the kernel still prints back (emit_checked), else keeps `k` as it was.
int reclose_unchanged_calls(Kernel& k, const Kernel& before, const Kernel& opened, const std::vector<OpenedCall>& calls);

}  // namespace loopnest
