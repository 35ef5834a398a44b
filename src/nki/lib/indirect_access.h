// Indirect (dynamic) DMA: an HBM view whose partition/block dim is indexed by an integer tile in
// SBUF, read when the DMA runs (nki-language.md 7.1 nl.load/nl.store, nisa.dma_copy):
//
//   idx = nl.load(labels[i_p, 0:1])                  # int32 [P, 1] index tile
//   rows = nl.load(table[idx[i_p, 0], i_f])           # gather: row idx[p] of table -> partition p
//   nl.store(out[idx[i_p, 0], i_f], value=rows)       # scatter: partition p -> row idx[p] of out
//
// The view keeps its affine map with the indexed dim at 0 (so partitions, free shape and strides
// are known as for any view), plus the index tile and the storage step of one index unit. Only
// DMA instructions take such a view (Instruction::input_indirect / output_indirect); the index is
// only allowed on the partition dim (err_indirect_indices_free_dim) and must come from nl.arange
// placement, not an nl.mgrid grid. An index outside the dim is a run-time error (the hardware
// raises on out-of-bounds indirect DMA), unless nisa.dma_copy(oob_mode=nisa.oob_mode.skip).
#pragma once

#include <cstdint>
#include <optional>

#include "nki/lib/nki_tensor.h"

namespace nki::lib {

struct IndirectIndex {
  NkiTensorObj index;            // the [P, 1] SBUF index tile (a view, read when the DMA runs)
  SmallVec<int64_t, 4> step;     // storage coordinates one index unit moves (per storage dim)
  int64_t extent = 0;            // size of the indexed dim: valid indices are [0, extent)
  int dim = 0;                   // which dim of the indexed tensor (for messages)

  // The row of `t` that index value `v` selects: `t`'s view with v steps added to its base.
  NkiTensorObj row(const NkiTensorObj& t, int64_t v) const;
};

// `t[index]` when the subscript holds an index tile: the indirect view, after the documented
// checks (HBM source, SBUF integer tile, partition dim only); nullopt for any other subscript.
std::optional<NkiTensorObj> indirect_view(const NkiTensorObj& t, const Value& index);

// The newer API's `t.ap(pattern, offset, vector_offset=idx_tile, indirect_dim=0)` (nki-language.md
// 12): `pattern` is the view of the access pattern; partition p reads row idx_tile[p] of `t`
// (offset + idx[p] * prod(shape[1:])) in place of the pattern's partition step.
NkiTensorObj indirect_access_pattern(const NkiTensorObj& t, AffineView pattern, const Value& vector_offset,
                                     int64_t indirect_dim);

// `t[index] = value` / `t[index] += value` with an index tile: refused as the compiler does
// (err_copy_dynamic_indirect_indices_not_natively_supported); no-op for other subscripts.
void refuse_indirect_assignment(const NkiTensorObj& t, const Value& index);

}  // namespace nki::lib
