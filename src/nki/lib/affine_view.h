// Tensor views as affine maps, the representation behind every NKI index view.
//
// Basic indexing (ints, slices, nl.ds) and advanced indexing with affine nl.arange / nl.mgrid
// expressions both map a view index j to storage coordinates c = base + C j. Keeping the map
// (instead of materialising index arrays) gives the access pattern analytically: the trace
// needs partition range, free shape and strides, and bounds are checked only over the region
// an instruction's mask leaves active.
//
// Quasi-affine indices (`i // K`, `i % K`) split a view axis into digits: the map is affine in
// the digits (the internal axes), and each view axis is the C-order merge of its digits.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "nki/small_vec.h"
#include "tensor/array.h"

namespace nki::lib {

// A rectangular region of a view's index space: [lo[k], hi[k]) on each axis.
// Inline room for rank 4 (boxes are built per instruction and operand; see small_vec.h).
struct Box {
  using Coords = SmallVec<int64_t, 4>;
  Coords lo, hi;
  static Box full(const tensor::Shape& shape);
  tensor::Shape shape() const;
  int64_t extent(size_t k) const { return hi[k] > lo[k] ? hi[k] - lo[k] : 0; }  // shape()[k], no allocation
  bool empty() const;
  int64_t elements() const;
  bool covers(const tensor::Shape& shape) const;  // the box is [0, shape) (no allocation)
};

struct AffineView {
  tensor::Shape shape;        // view shape (m axes)
  // Inline room for rank 4 storage and 4 x 2 maps (a block-dim tile view is 3 x 2).
  SmallVec<int64_t, 4> base;  // storage coordinate of view index 0 (r storage dims)
  SmallVec<int64_t, 8> coef;  // r x axes(), row-major: coef[d * axes() + k]
  // Digit-split axes (quasi-affine indices): the extents of the internal axes, and how many
  // consecutive internal axes each view axis spans. Both empty when no axis is split, the
  // common case, where internal axes are the view axes.
  SmallVec<int64_t, 4> digits;
  SmallVec<int8_t, 4> parts;
  // Storage dims from `flat_from` on are one flat range of the storage (-1: none). The newer API's
  // view methods merge index ranges whose strides chain over the storage's flat layout, e.g. the
  // two dims of `x.flatten_dims(1, 2)` of a contiguous tensor: the merged range walks dim 2 past
  // its size into the next row of dim 1. Base and coefficients over those dims count through their
  // flat sum only, and bounds are checked on that flat range.
  int8_t flat_from = -1;

  static AffineView whole(const tensor::Shape& storage_shape);
  int ndim() const { return int(shape.size()); }
  int storage_ndim() const { return int(base.size()); }
  bool split() const { return !digits.empty(); }
  int axes() const { return split() ? int(digits.size()) : ndim(); }  // internal axes
  int64_t c(int d, int k) const { return coef[size_t(d) * size_t(axes()) + size_t(k)]; }
  int64_t& c(int d, int k) { return coef[size_t(d) * size_t(axes()) + size_t(k)]; }
  // Split views: the same map over its internal axes (an unsplit view), the first internal axis
  // of view axis k, the internal box that is exactly `box` when there is one, and the smallest
  // internal box containing `box`.
  AffineView internal() const;
  int first_internal(int k) const;
  bool internal_box(const Box& box, Box& out) const;
  Box covering_box(const Box& box) const;

  // Throws an Index error naming `api` if the region `box` reaches outside `storage_shape` (per
  // storage dim, and over the flat range of dims `flat_from`.. as a whole).
  void check_bounds(const tensor::Shape& storage_shape, const Box& box, std::string_view api) const;
  // Flat element offset and per-axis strides, given the storage's C-order strides.
  int64_t flat_offset(const tensor::Strides& storage_strides, const Box& box) const;
  int64_t flat_stride(const tensor::Strides& storage_strides, int k) const;
  // The same map with the size-1 axes of a partition vector added: (P,) -> (P, 1).
  AffineView as_tile_2d() const;
  // Inserts a size-1 axis at position `axis` (used for keepdims-like reshapes of views).
  AffineView with_unit_axis(int axis) const;
};

// C-order strides of a shape.
tensor::Strides c_strides(const tensor::Shape& shape);

}  // namespace nki::lib
