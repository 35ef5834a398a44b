// The newer API's tensor view methods (NKI 0.2+ `NkiTensor`, nki-language.md 12.1): `permute`,
// `expand_dim`, `squeeze_dim`, `broadcast(dim, size)`, `select(dim, index)`, `reshape_dim`,
// `flatten_dims` and `reshape` of a view. Each one shares the storage: it is a change of the
// view's affine map, never a copy.
//
// A view axis is the C-order merge of one or more internal axes (its digits; one digit unless an
// index was quasi-affine). The methods regroup digits: a permutation reorders the groups, a flatten
// joins groups, a reshape_dim splits a group's digits where the new sizes divide them, a select
// fixes a group's digits. Digits that end up adjacent with chained strides are merged again, so a
// view that could be written with plain slices stays an unsplit view.
#pragma once

#include <cstdint>
#include <vector>

#include "nki/lib/affine_view.h"

namespace nki::lib {

// The storage a view maps into, as far as merging goes: its C-order strides, and the first dim of
// its flat layout. Digits from that dim on merge when their flat strides chain (the outer one's is
// the inner one's times its extent), even across storage dims; the dims before it (on chip: the
// block and partition dims, which are not one flat range with the free dims) merge only when their
// coefficients chain dim by dim. So every view method sees one range where the storage has one,
// whatever chain of methods built the view.
struct ViewLayout {
  tensor::Strides strides;
  int first_free = 0;  // HBM: 0; on chip: the dim after the partition dim
};

AffineView permute_view(const AffineView& v, const std::vector<int64_t>& dims, const ViewLayout& layout);
AffineView expand_dim_view(const AffineView& v, int64_t dim, const ViewLayout& layout);
AffineView squeeze_dim_view(const AffineView& v, int64_t dim, const ViewLayout& layout);
AffineView broadcast_dim_view(const AffineView& v, int64_t dim, int64_t size, const ViewLayout& layout);
AffineView select_view(const AffineView& v, int64_t dim, int64_t index, const ViewLayout& layout);
AffineView reshape_dim_view(const AffineView& v, int64_t dim, const std::vector<int64_t>& sizes, const ViewLayout& layout);
AffineView flatten_dims_view(const AffineView& v, int64_t start, int64_t end, const ViewLayout& layout);
// Any view to `shape` (same element count): flatten everything, then split (numpy's rule for
// reshaping a strided view without a copy; a Value error when the digits do not divide).
AffineView reshape_view(const AffineView& v, const std::vector<int64_t>& shape, const ViewLayout& layout);

// The view's raw access pattern over the storage's flat (row-major) layout: [step, count] per
// internal axis, and the offset of element 0 (what `.ap(pattern, offset)` takes back).
std::vector<std::pair<int64_t, int64_t>> view_pattern(const AffineView& v, const tensor::Strides& storage_strides);

}  // namespace nki::lib
