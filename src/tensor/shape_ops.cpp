// Shape manipulation (views where numpy gives views) and simple creation routines.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "tensor/detail.h"
#include "tensor/broadcast.h"
#include "tensor/ops.h"

namespace tensor {

namespace detail {
int normalize_axis(int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim)
    throw ArrayError(fmt::format("axis {} is out of bounds for array of dimension {}", axis, ndim));
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}
}  // namespace detail

using detail::normalize_axis;

Array reshape(const Array& a, Shape shape) {
  int unknown = -1;
  int64_t known = 1;
  for (size_t dim_idx = 0; dim_idx < shape.size(); ++dim_idx) {
    if (shape[dim_idx] == -1) {
      if (unknown >= 0) throw ArrayError("can only specify one unknown dimension");
      unknown = static_cast<int>(dim_idx);
    } else if (shape[dim_idx] < 0) {
      throw ArrayError(fmt::format("negative dimension {} in reshape", shape[dim_idx]));
    } else {
      known *= shape[dim_idx];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || a.size() % known != 0)
      throw ArrayError(fmt::format("cannot reshape array of size {} into shape {}", a.size(), shape_str(shape)));
    shape[unknown] = a.size() / known;
  }
  if (num_elements(shape) != a.size())
    throw ArrayError(fmt::format("cannot reshape array of size {} into shape {}", a.size(), shape_str(shape)));
  if (!a.has_data()) return Array::shape_only(shape, a.dtype());
  Array src = a.contiguous();
  return src.view(shape, detail::contiguous_strides(shape), src.offset());
}

Array transpose(const Array& a, const std::vector<int>& perm_in) {
  int nd = a.ndim();
  std::vector<int> perm = perm_in;
  if (perm.empty()) {
    for (int dim_idx = nd - 1; dim_idx >= 0; --dim_idx) perm.push_back(dim_idx);
  }
  if (static_cast<int>(perm.size()) != nd) throw ArrayError("axes don't match array");
  std::vector<bool> seen(nd, false);
  Shape shape(nd);
  Strides strides(nd);
  for (int dim_idx = 0; dim_idx < nd; ++dim_idx) {
    int src = normalize_axis(perm[dim_idx], nd);
    if (seen[src]) throw ArrayError("repeated axis in transpose");
    seen[src] = true;
    shape[dim_idx] = a.shape()[src];
    strides[dim_idx] = a.strides()[src];
  }
  return a.view(shape, strides, a.offset());
}

Array swapaxes(const Array& a, int axis1, int axis2) {
  std::vector<int> perm(a.ndim());
  for (int dim_idx = 0; dim_idx < a.ndim(); ++dim_idx) perm[dim_idx] = dim_idx;
  std::swap(perm[normalize_axis(axis1, a.ndim())], perm[normalize_axis(axis2, a.ndim())]);
  return transpose(a, perm);
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  Shape out;
  if (!broadcast_dims(a, b, out))
    throw ArrayError(fmt::format("operands could not be broadcast together with shapes {} {}", shape_str(a), shape_str(b)));
  return out;
}

Array broadcast_to(const Array& a, const Shape& shape) {
  if (a.shape() == shape) return a;
  size_t nd = shape.size();
  if (a.shape().size() > nd)
    throw ArrayError(fmt::format("cannot broadcast shape {} to {}", shape_str(a.shape()), shape_str(shape)));
  size_t lead = nd - a.shape().size();
  Strides strides(nd, 0);
  for (size_t dim_idx = lead; dim_idx < nd; ++dim_idx) {
    int64_t d = a.shape()[dim_idx - lead];
    if (d == shape[dim_idx]) {
      strides[dim_idx] = a.strides()[dim_idx - lead];
    } else if (d != 1) {
      throw ArrayError(fmt::format("cannot broadcast shape {} to {}", shape_str(a.shape()), shape_str(shape)));
    }
  }
  return a.view(shape, strides, a.offset());
}

Array expand_dims(const Array& a, int axis) {
  int nd = a.ndim() + 1;
  int ax = normalize_axis(axis, nd);
  Shape shape = a.shape();
  Strides strides = a.strides();
  shape.insert(shape.begin() + ax, 1);
  strides.insert(strides.begin() + ax, 0);
  return a.view(shape, strides, a.offset());
}

Array squeeze(const Array& a, const std::vector<int>& axes) {
  std::vector<bool> drop(a.ndim(), false);
  if (axes.empty()) {
    for (int dim_idx = 0; dim_idx < a.ndim(); ++dim_idx) drop[dim_idx] = a.shape()[dim_idx] == 1;
  }
  for (int axis : axes) {
    int ax = normalize_axis(axis, a.ndim());
    if (a.shape()[ax] != 1) throw ArrayError("cannot select an axis to squeeze out which has size not equal to one");
    drop[ax] = true;
  }
  Shape shape;
  Strides strides;
  for (int dim_idx = 0; dim_idx < a.ndim(); ++dim_idx) {
    if (drop[dim_idx]) continue;
    shape.push_back(a.shape()[dim_idx]);
    strides.push_back(a.strides()[dim_idx]);
  }
  return a.view(shape, strides, a.offset());
}

Array concatenate(const std::vector<Array>& parts, int axis) {
  if (parts.empty()) throw ArrayError("need at least one array to concatenate");
  const Array& first = parts[0];
  if (first.ndim() == 0) throw ArrayError("zero-dimensional arrays cannot be concatenated");
  int ax = normalize_axis(axis, first.ndim());
  Shape shape = first.shape();
  shape[ax] = 0;
  DType dtype = first.dtype();
  bool data = true;
  for (const Array& p : parts) {
    if (p.ndim() != first.ndim())
      throw ArrayError("all the input array dimensions except for the concatenation axis must match exactly");
    for (int dim_idx = 0; dim_idx < p.ndim(); ++dim_idx) {
      if (dim_idx != ax && p.shape()[dim_idx] != first.shape()[dim_idx])
        throw ArrayError(fmt::format(
            "all the input array dimensions except for the concatenation axis must match exactly, but along "
            "dimension {}, the array at index 0 has size {} and another array has size {}",
            dim_idx, first.shape()[dim_idx], p.shape()[dim_idx]));
    }
    shape[ax] += p.shape()[ax];
    dtype = promote(dtype, p.dtype());
    data = data && p.has_data();
  }
  if (!data) return Array::shape_only(shape, dtype);
  Array out = Array::empty(shape, dtype);
  int64_t start = 0;
  for (const Array& p : parts) {
    Shape part_shape = shape;
    part_shape[ax] = p.shape()[ax];
    Array dst = out.view(part_shape, out.strides(), out.offset() + start * out.strides()[ax]);
    detail::convert_into(dst, p);
    start += p.shape()[ax];
  }
  return out;
}

Array repeat(const Array& a, int64_t repeats, int axis) {
  if (repeats < 0) throw ArrayError("negative dimensions are not allowed");
  int ax = normalize_axis(axis, a.ndim());
  // View a as (..., n, 1, ...) broadcast to (..., n, repeats, ...) and merge the two axes.
  Shape shape = a.shape();
  Strides strides = a.strides();
  shape.insert(shape.begin() + ax + 1, repeats);
  strides.insert(strides.begin() + ax + 1, 0);
  Shape out_shape = a.shape();
  out_shape[ax] *= repeats;
  if (!a.has_data()) return Array::shape_only(out_shape, a.dtype());
  Array expanded = a.view(shape, strides, a.offset()).copy();
  return reshape(expanded, out_shape);
}

Array arange(double start, double stop, double step, DType dtype) {
  if (step == 0) throw ArrayError("maximum allowed size exceeded (arange step is zero)");
  double len = std::ceil((stop - start) / step);
  int64_t n = len > 0 ? static_cast<int64_t>(len) : 0;
  Array out = Array::empty({n}, dtype);
  // numpy computes start + i * step in the result type (for float32: from the first two values).
  for (int64_t idx = 0; idx < n; ++idx) out.set({idx}, start + static_cast<double>(idx) * step);
  return out;
}

Array identity(int64_t n, DType dtype) {
  if (n < 0) throw ArrayError("negative dimensions are not allowed");
  Array out = Array::zeros({n, n}, dtype);
  for (int64_t idx = 0; idx < n; ++idx) out.set({idx, idx}, 1.0);
  return out;
}

}  // namespace tensor
