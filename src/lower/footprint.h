// Operand geometry the rules reason with: where an access lies, whether two accesses may touch
// a common element, and the access that covers several copies of one access side by side.
// On chip an access is a partition range times a range of each partition row; in HBM it is a
// flat range (rows `row_stride` apart). Overlap tests are conservative (ranges, not element sets).
#pragma once

#include <cstdint>

#include "trn/trace.h"

namespace lower {

using trn::Operand;

// Elements from the first to one past the last accessed element of a row.
inline uint32_t row_extent(const Operand& op) { return op.extent ? op.extent : op.free_elements; }
// Elements of the longest contiguous run of a row.
inline uint32_t run_elements(const Operand& op) {
  return op.contiguous_bytes ? op.contiguous_bytes / op.dtype_bytes : op.free_elements;
}
inline bool on_chip(const Operand& op) { return op.buffer != trn::BufferKind::Hbm; }

// The same tile (on chip: tensor and block) or the same HBM tensor.
inline bool same_tile(const Operand& a, const Operand& b) {
  return a.buffer == b.buffer && a.tensor_id == b.tensor_id && (!on_chip(a) || a.block == b.block);
}

// Same shape and layout, wherever they lie.
bool same_shape(const Operand& a, const Operand& b);

// How `b` lies relative to `a` (same tile and shape): partitions and elements along the row.
struct Shift {
  int64_t partitions = 0;
  int64_t elements = 0;
  bool operator==(const Shift&) const = default;
  Shift times(int64_t k) const { return {partitions * k, elements * k}; }
  bool zero() const { return partitions == 0 && elements == 0; }
};
Shift shift_between(const Operand& a, const Operand& b);

// Whether `a` and `b` shifted by `s` may touch a common element.
bool may_overlap(const Operand& a, const Operand& b, Shift s = {});

// Elements [start, start + count) of each row of `op` (exact for dense rows; for other rows the
// run and descriptor counts are scaled).
Operand slice_along_rows(const Operand& op, uint32_t start, uint32_t count);

// The access covering `count` copies of `op`, each `delta` elements further along the rows.
Operand stack_along_rows(const Operand& op, int64_t delta, uint32_t count);
// The access covering `count` copies of `op` on consecutive partitions (on chip), or rows
// continuing `delta` elements further each time (HBM).
Operand stack_across_rows(const Operand& op, int64_t delta, uint32_t count);

}  // namespace lower
