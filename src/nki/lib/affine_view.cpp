#include "nki/lib/affine_view.h"

#include <fmt/format.h>

#include "nki/diagnostics.h"

namespace nki::lib {

Box Box::full(const tensor::Shape& shape) {
  Box b;
  b.lo.assign(shape.size(), 0);
  b.hi = shape;
  return b;
}

tensor::Shape Box::shape() const {
  tensor::Shape s(lo.size());
  for (size_t k = 0; k < lo.size(); ++k) s[k] = extent(k);
  return s;
}

bool Box::empty() const {
  for (size_t k = 0; k < lo.size(); ++k)
    if (hi[k] <= lo[k]) return true;
  return false;
}

int64_t Box::elements() const {
  int64_t n = 1;
  for (size_t k = 0; k < lo.size(); ++k) {
    if (hi[k] <= lo[k]) return 0;
    n *= hi[k] - lo[k];
  }
  return n;
}

bool Box::covers(const tensor::Shape& shape) const {
  if (lo.size() != shape.size() || hi != shape) return false;
  for (auto v : lo)
    if (v != 0) return false;
  return true;
}

AffineView AffineView::whole(const tensor::Shape& storage_shape) {
  AffineView v;
  v.shape = storage_shape;
  size_t r = storage_shape.size();
  v.base.assign(r, 0);
  v.coef.assign(r * r, 0);
  for (size_t d = 0; d < r; ++d) v.coef[d * r + d] = 1;
  return v;
}

AffineView AffineView::internal() const {
  if (!split()) return *this;
  AffineView v;
  v.shape.assign(digits.begin(), digits.end());
  v.base = base;
  v.coef = coef;
  v.flat_from = flat_from;
  return v;
}

int AffineView::first_internal(int k) const {
  if (!split()) return k;
  int first = 0;
  for (int i = 0; i < k; ++i) first += parts[size_t(i)];
  return first;
}

// A view-axis interval [lo, hi) maps to a box of its digits when it is the full axis, one
// element, or a run of whole lower digits inside one value of the higher digits.
bool AffineView::internal_box(const Box& box, Box& out) const {
  if (!split()) {
    out = box;
    return true;
  }
  out.lo.clear();
  out.hi.clear();
  int first = 0;
  for (int k = 0; k < ndim(); ++k) {
    int n = parts[size_t(k)];
    int64_t lo = box.lo[size_t(k)], hi = box.hi[size_t(k)];
    if (hi <= lo) return false;
    // Digit radices of this axis, outer first, and the weight (inner product) of each.
    bool fixed_above = true;  // the digits above the current one hold one value
    for (int i = 0; i < n; ++i) {
      int64_t radix = digits[size_t(first + i)], weight = 1;
      for (int l = i + 1; l < n; ++l) weight *= digits[size_t(first + l)];
      int64_t dlo = (lo / weight) % radix, dhi = ((hi - 1) / weight) % radix;
      bool whole_below = lo % weight == 0 && hi % weight == 0;
      if (!fixed_above) {
        out.lo.push_back(0);
        out.hi.push_back(radix);
        continue;
      }
      if (lo / weight == (hi - 1) / weight) {  // one value of this digit
        out.lo.push_back(dlo);
        out.hi.push_back(dlo + 1);
        continue;
      }
      if (!whole_below || (hi - 1) / (weight * radix) != lo / (weight * radix)) return false;
      out.lo.push_back(dlo);
      out.hi.push_back(dhi + 1);
      fixed_above = false;
    }
    first += n;
  }
  return true;
}

Box AffineView::covering_box(const Box& box) const {
  Box out;
  if (internal_box(box, out)) return out;
  // Every digit over its whole range, except the top digit of each axis bounded by the interval.
  out.lo.clear();
  out.hi.clear();
  int first = 0;
  for (int k = 0; k < ndim(); ++k) {
    int n = parts[size_t(k)];
    int64_t inner = 1;
    for (int l = 1; l < n; ++l) inner *= digits[size_t(first + l)];
    for (int i = 0; i < n; ++i) {
      bool top = i == 0;
      out.lo.push_back(top ? box.lo[size_t(k)] / inner : 0);
      out.hi.push_back(top ? (box.hi[size_t(k)] - 1) / inner + 1 : digits[size_t(first + i)]);
    }
    first += n;
  }
  return out;
}

void AffineView::check_bounds(const tensor::Shape& storage_shape, const Box& box,
                              std::string_view api) const {
  if (box.empty()) return;
  if (split()) return internal().check_bounds(storage_shape, covering_box(box), api);
  int m = ndim(), r = storage_ndim(), flat = flat_from < 0 ? r : flat_from;
  // Dims [flat, r) as one: their coordinates weighted by C-order strides of that suffix.
  tensor::Strides weight(size_t(r), 1);
  int64_t flat_size = 1;
  for (int d = r - 1; d >= flat; --d) {
    weight[size_t(d)] = flat_size;
    flat_size *= storage_shape[d];
  }
  auto range = [&](int d0, int d1, int64_t& lo, int64_t& hi) {
    lo = hi = 0;
    for (int d = d0; d < d1; ++d) lo += base[d] * weight[size_t(d)];
    hi = lo;
    for (int k = 0; k < m; ++k) {
      int64_t a = 0;
      for (int d = d0; d < d1; ++d) a += c(d, k) * weight[size_t(d)];
      if (a == 0) continue;
      int64_t first = a * box.lo[k], last = a * (box.hi[k] - 1);
      lo += a > 0 ? first : last;
      hi += a > 0 ? last : first;
    }
  };
  auto fail = [&](std::string_view what, int64_t size, int64_t lo, int64_t hi) {
    throw NkiError(ErrorKind::Index, fmt::format("tensor access out of bound: {} has size {} but indices "
                                                 "[{}, {}] are accessed ({})", what, size, lo, hi, api));
  };
  for (int d = 0; d < flat; ++d) {
    int64_t lo, hi;
    range(d, d + 1, lo, hi);
    if (lo < 0 || hi >= storage_shape[d]) fail(fmt::format("dimension {}", d), storage_shape[d], lo, hi);
  }
  if (flat < r) {
    int64_t lo, hi;
    range(flat, r, lo, hi);
    if (lo < 0 || hi >= flat_size) fail(fmt::format("the flat range of dimensions {}..{}", flat, r - 1), flat_size, lo, hi);
  }
}

int64_t AffineView::flat_offset(const tensor::Strides& storage_strides, const Box& box) const {
  int64_t off = 0;
  for (int d = 0; d < storage_ndim(); ++d) off += base[d] * storage_strides[d];
  for (int k = 0; k < ndim(); ++k) off += box.lo[k] * flat_stride(storage_strides, k);
  return off;
}

int64_t AffineView::flat_stride(const tensor::Strides& storage_strides, int k) const {
  int64_t s = 0;
  for (int d = 0; d < storage_ndim(); ++d) s += c(d, k) * storage_strides[d];
  return s;
}

AffineView AffineView::with_unit_axis(int axis) const {
  AffineView v;
  v.shape = shape;
  v.shape.insert(v.shape.begin() + axis, 1);
  v.base = base;
  v.flat_from = flat_from;
  int at = first_internal(axis);  // the internal position of the new axis
  int m = axes(), m2 = m + 1;
  v.coef.assign(size_t(storage_ndim()) * m2, 0);
  for (int d = 0; d < storage_ndim(); ++d)
    for (int k = 0; k < m; ++k) v.coef[size_t(d) * m2 + (k < at ? k : k + 1)] = c(d, k);
  if (split()) {
    v.digits = digits;
    v.digits.insert(v.digits.begin() + at, 1, int64_t(1));
    v.parts = parts;
    v.parts.insert(v.parts.begin() + axis, 1, int8_t(1));
  }
  return v;
}

AffineView AffineView::as_tile_2d() const {
  if (ndim() != 1) return *this;
  return with_unit_axis(1);
}

tensor::Strides c_strides(const tensor::Shape& shape) {
  tensor::Strides s(shape.size(), 1);
  for (int k = int(shape.size()) - 2; k >= 0; --k) s[k] = s[k + 1] * shape[k + 1];
  return s;
}

}  // namespace nki::lib
