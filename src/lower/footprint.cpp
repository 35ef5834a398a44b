#include "lower/footprint.h"

#include <algorithm>

namespace lower {
namespace {

// [lo, hi) of the elements an access may touch along one axis.
struct Range {
  int64_t lo, hi;
  bool meets(const Range& o) const { return lo < o.hi && o.lo < hi; }
};

Range flat_range(const Operand& op, int64_t offset) {
  int64_t rows = std::max<int64_t>(op.partitions, 1);
  return {offset, offset + (rows - 1) * op.row_stride + row_extent(op)};
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Whether two combs meet: a = n_a intervals [0, len_a) + k*step, b = n_b intervals
// [d, d + len_b) + k*step. Exact when the teeth do not overlap themselves (len <= step).
bool combs_meet(int64_t d, int64_t step, int64_t len_a, int64_t n_a, int64_t len_b, int64_t n_b) {
  // Tooth r of a meets tooth s of b iff (r - s) * step lies in (d - len_a, d + len_b).
  int64_t lo = std::max(-(n_b - 1), floor_div(d - len_a, step) + 1);
  int64_t hi = std::min(n_a - 1, -floor_div(-(d + len_b), step) - 1);
  return lo <= hi;
}

// Within one partition row: runs of `run` elements `pitch` apart (one run when pitch is 0).
struct RowShape {
  int64_t run, pitch, runs;
};

RowShape row_shape(const Operand& op) {
  int64_t run = run_elements(op), extent = row_extent(op);
  if (op.pitch == 0 || run == 0 || op.free_elements % run != 0) return {extent, 0, 1};
  int64_t runs = op.free_elements / run;
  // A regular comb only if the extent says so (deeper access patterns are taken whole).
  if ((runs - 1) * int64_t(op.pitch) + run != extent || run > int64_t(op.pitch)) return {extent, 0, 1};
  return {run, op.pitch, runs};
}

// Whether the row parts of two accesses, `d` elements apart, meet.
bool rows_meet(const Operand& a, const Operand& b, int64_t d) {
  RowShape ra = row_shape(a), rb = row_shape(b);
  if (ra.pitch && ra.pitch == rb.pitch) return combs_meet(d, ra.pitch, ra.run, ra.runs, rb.run, rb.runs);
  return Range{0, int64_t(row_extent(a))}.meets(Range{d, d + int64_t(row_extent(b))});
}

}  // namespace

bool same_shape(const Operand& a, const Operand& b) {
  return a.buffer == b.buffer && a.partitions == b.partitions && a.free_elements == b.free_elements &&
         a.dtype_bytes == b.dtype_bytes && a.fp32 == b.fp32 && a.contiguous_bytes == b.contiguous_bytes &&
         a.descriptors == b.descriptors && a.strided == b.strided && a.row_stride == b.row_stride &&
         a.pitch == b.pitch && a.indirect == b.indirect && row_extent(a) == row_extent(b);
}

Shift shift_between(const Operand& a, const Operand& b) {
  return {int64_t(b.partition_start) - int64_t(a.partition_start), b.offset - a.offset};
}

bool may_overlap(const Operand& a, const Operand& b, Shift s) {
  if (!same_tile(a, b)) return false;
  if (a.free_elements == 0 || b.free_elements == 0 || a.partitions == 0 || b.partitions == 0) return false;
  // The rows of an indirect access are read from an index tile at run time: any row may be hit.
  if (a.indirect || b.indirect) return true;
  const int64_t d = b.offset + s.elements - a.offset;
  if (!on_chip(a)) {
    // HBM rows `row_stride` apart: exact per row when both step alike and rows do not overlap.
    const int64_t stride = a.row_stride;
    const int64_t ea = row_extent(a), eb = row_extent(b);
    if (a.partitions <= 1 && b.partitions <= 1) return rows_meet(a, b, d);
    if (stride > 0 && stride == b.row_stride && ea <= stride && eb <= stride)
      return combs_meet(d, stride, ea, a.partitions, eb, b.partitions);
    return flat_range(a, a.offset).meets(flat_range(b, b.offset + s.elements));
  }
  Range pa{a.partition_start, a.partition_start + int64_t(a.partitions)};
  Range pb{b.partition_start + s.partitions, b.partition_start + s.partitions + int64_t(b.partitions)};
  return pa.meets(pb) && rows_meet(a, b, d);
}

Operand slice_along_rows(const Operand& op, uint32_t start, uint32_t count) {
  Operand out = op;
  const uint32_t free = std::max<uint32_t>(op.free_elements, 1);
  const bool dense = row_extent(op) == op.free_elements;
  out.free_elements = count;
  if (dense) {
    out.offset = op.offset + start;
    out.extent = count;
    out.contiguous_bytes = std::min<uint32_t>(op.contiguous_bytes ? op.contiguous_bytes : free * op.dtype_bytes,
                                              count * op.dtype_bytes);
    out.descriptors = std::max<uint32_t>(op.partitions, 1) * ((count * op.dtype_bytes + out.contiguous_bytes - 1) /
                                                               std::max<uint32_t>(out.contiguous_bytes, 1));
  } else {
    out.offset = op.offset + int64_t(uint64_t(row_extent(op)) * start / free);
    out.extent = uint32_t(uint64_t(row_extent(op)) * count / free);
    out.contiguous_bytes = std::min<uint32_t>(op.contiguous_bytes, count * op.dtype_bytes);
    out.descriptors = uint32_t(std::max<uint64_t>(1, uint64_t(op.descriptors) * count / free));
  }
  return out;
}

Operand stack_along_rows(const Operand& op, int64_t delta, uint32_t count) {
  Operand out = op;
  const uint64_t free = uint64_t(op.free_elements) * count;
  const uint64_t extent = uint64_t(count - 1) * uint64_t(delta) + row_extent(op);
  out.free_elements = uint32_t(free);
  out.extent = uint32_t(extent);
  if (extent == free) {
    // The copies tile the range without gaps: one run per row.
    out.contiguous_bytes = uint32_t(free * op.dtype_bytes);
    out.descriptors = std::max<uint32_t>(op.partitions, 1);
    out.pitch = 0;
    out.strided = false;
  } else {
    out.descriptors = op.descriptors * count;
    if (row_extent(op) == run_elements(op)) out.pitch = uint32_t(delta);
  }
  return out;
}

Operand stack_across_rows(const Operand& op, int64_t delta, uint32_t count) {
  Operand out = op;
  if (!on_chip(op) && op.partitions <= 1) out.row_stride = delta;
  out.partitions = uint16_t(op.partitions * count);
  out.descriptors = op.descriptors * count;
  return out;
}

}  // namespace lower
