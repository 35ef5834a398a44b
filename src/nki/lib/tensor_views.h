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

AffineView permute_view(const AffineView& v, const std::vector<int64_t>& dims);
AffineView expand_dim_view(const AffineView& v, int64_t dim);
AffineView squeeze_dim_view(const AffineView& v, int64_t dim);
AffineView broadcast_dim_view(const AffineView& v, int64_t dim, int64_t size);
AffineView select_view(const AffineView& v, int64_t dim, int64_t index);
AffineView reshape_dim_view(const AffineView& v, int64_t dim, const std::vector<int64_t>& sizes);
AffineView flatten_dims_view(const AffineView& v, int64_t start, int64_t end);
// Any view to `shape` (same element count): flatten everything, then split (numpy's rule for
// reshaping a strided view without a copy; a Value error when the digits do not divide).
AffineView reshape_view(const AffineView& v, const std::vector<int64_t>& shape);

// The view's raw access pattern over the storage's flat (row-major) layout: [step, count] per
// internal axis, and the offset of element 0 (what `.ap(pattern, offset)` takes back).
std::vector<std::pair<int64_t, int64_t>> view_pattern(const AffineView& v, const tensor::Strides& storage_strides);

}  // namespace nki::lib
