// Tensor views as affine maps, the representation behind every NKI index view.
//
// Basic indexing (ints, slices, nl.ds) and advanced indexing with affine nl.arange / nl.mgrid
// expressions both map a view index j to storage coordinates c = base + C j. Keeping the map
// (instead of materialising index arrays) gives the access pattern analytically: the trace
// needs partition range, free shape and strides, and bounds are checked only over the region
// an instruction's mask leaves active.
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
  SmallVec<int64_t, 8> coef;  // r x m, row-major: coef[d * m + k]

  static AffineView whole(const tensor::Shape& storage_shape);
  int ndim() const { return int(shape.size()); }
  int storage_ndim() const { return int(base.size()); }
  int64_t c(int d, int k) const { return coef[size_t(d) * shape.size() + size_t(k)]; }
  int64_t& c(int d, int k) { return coef[size_t(d) * shape.size() + size_t(k)]; }

  // Throws an Index error naming `api` if the region `box` reaches outside `storage_shape`.
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
