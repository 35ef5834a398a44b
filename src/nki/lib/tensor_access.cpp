// Subscripts -> affine views, and the three uses of a view: numerics read, numerics write, and
// the trace operand. Numpy indexing rules (integers drop dims, slices keep them, advanced index
// expressions broadcast together and go where numpy puts them).
#include <algorithm>

#include <fmt/format.h>

#include "nki/lib/nki_tensor.h"

namespace nki::lib {

namespace {


// Python slice semantics on an axis of `size`, except that nothing is clipped: a slice reaching
// past the end keeps its length (the NKI compiler reports out-of-bound accesses instead of
// clipping). Whether its elements past the end are accessed is the instruction's to check, after
// its mask ("bounds checking applies only to unmasked elements", nki-language.md 3.9: a ragged
// last row block `x[nl.ds(i * 128, 128), c]` under `mask=(i * 128 + p < M)`); a slice starting
// outside the axis or below 0 is an error here.
void resolve_slice(const SliceObj& s, int64_t size, int64_t& start, int64_t& count, int64_t& step) {
  step = s.step.is_none() ? 1 : to_int(s.step, "slice step");
  if (step == 0) throw NkiError(ErrorKind::Value, "slice step cannot be zero");
  auto wrap = [&](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t i = to_int(v, "slice index");
    return i < 0 ? i + size : i;
  };
  start = wrap(s.start, step > 0 ? 0 : size - 1);
  int64_t stop = wrap(s.stop, step > 0 ? size : -1);
  if (s.stop.is_none() && step < 0) stop = -1;
  if (step > 0 && start < 0)
    throw NkiError(ErrorKind::Index, fmt::format("slice [{}:{}] is out of bounds for a dimension of size {}",
                                                 start, stop, size));
  count = step > 0 ? std::max<int64_t>(0, (stop - start + step - 1) / step)
                   : std::max<int64_t>(0, (start - stop - step - 1) / -step);
  if (count > 0 && (start < 0 || start >= size))
    throw NkiError(ErrorKind::Index, fmt::format("slice start {} is out of bounds for a dimension of size {}",
                                                 start, size));
}


bool is_advanced(const Value& v) {
  auto* e = v.as<IndexExprObj>();
  return e && e->expr.ndim() > 0;
}

// The digits the quasi-affine index expressions of a subscript split each advanced axis into:
// digit boundaries are the divisors (and divisor * modulus) the terms use, which must divide
// each other and the axis extent. Digits of an axis are outer first (C order of the merge).
struct AdvancedDigits {
  SmallVec<int64_t, 8> radix, weight;
  SmallVec<int, 5> first;  // digits of advanced axis a: [first[a], first[a + 1])
};

AdvancedDigits advanced_digits(const IndexShape& adv_shape, const SmallVec<const Value*, 8>& items) {
  int na = int(adv_shape.size());
  AdvancedDigits out;
  out.first.push_back(0);
  for (int a = 0; a < na; ++a) {
    int64_t n = adv_shape[size_t(a)];
    std::vector<int64_t> bounds{1, std::max<int64_t>(n, 1)};
    for (const Value* it : items) {
      auto* eo = it ? it->as<IndexExprObj>() : nullptr;
      if (!eo || eo->expr.ndim() == 0) continue;
      int shift = std::max(0, na - eo->expr.ndim());
      for (const IndexTerm& t : eo->expr.terms) {
        if (t.first + shift != a) continue;
        if (t.div < n) bounds.push_back(t.div);
        if (t.mod && t.div * t.mod < n) bounds.push_back(t.div * t.mod);
      }
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    for (size_t i = 1; i < bounds.size(); ++i)
      if (bounds[i] % bounds[i - 1] != 0)
        throw NkiError(ErrorKind::Unsupported,
                       fmt::format("err_unsupported_expression_in_mask: '//' and '%' split an index axis of extent {} "
                                   "into digits of sizes that do not divide each other ({} and {})",
                                   n, bounds[i - 1], bounds[i]));
    for (size_t i = bounds.size() - 1; i-- > 0;) {
      out.radix.push_back(bounds[i + 1] / bounds[i]);
      out.weight.push_back(bounds[i]);
    }
    out.first.push_back(int(out.radix.size()));
  }
  return out;
}

}  // namespace

// Re-indexing a view whose axes are split into digits (a view built with // and %): integers
// on any axis, slices on unsplit axes, whole split axes (':', '...'). The subscript is
// rewritten onto the internal (digit) axes and the digit groups of the kept axes carried over.
AffineView index_split_view(const AffineView& view, const Value& index, bool on_chip) {
  std::vector<Value> items;
  if (auto* t = index.as<TupleObj>()) items = t->items;
  else items = {index};
  int m = view.ndim();
  int consuming = 0;
  for (auto& it : items) consuming += !it.is_none() && !it.is(ObjType::Ellipsis);
  std::vector<Value> expanded;
  for (auto& it : items) {
    if (it.is(ObjType::Ellipsis)) {
      for (int k = 0; k < m - consuming; ++k) expanded.push_back(Value(std::make_shared<SliceObj>()));
    } else if (it.is_none()) {
      throw NkiError(ErrorKind::Unsupported, "a view indexed with // or % cannot take new axes (None)");
    } else {
      expanded.push_back(it);
    }
  }
  while (int(expanded.size()) < m) expanded.push_back(Value(std::make_shared<SliceObj>()));
  if (int(expanded.size()) > m)
    throw NkiError(ErrorKind::Index, fmt::format("too many indices: the tensor has {} dimensions but {} were indexed", m,
                                                 expanded.size()));
  std::vector<Value> inner;
  SmallVec<int8_t, 4> parts;  // digits per kept view axis
  for (int k = 0; k < m; ++k) {
    int n = view.parts[size_t(k)], first = view.first_internal(k);
    const Value& it = expanded[size_t(k)];
    auto* sl = it.as<SliceObj>();
    bool whole = sl && sl->start.is_none() && sl->stop.is_none() && sl->step.is_none();
    if (whole) {
      for (int i = 0; i < n; ++i) inner.push_back(Value(std::make_shared<SliceObj>()));
      parts.push_back(int8_t(n));
      continue;
    }
    if (n == 1 && sl) {
      inner.push_back(it);
      parts.push_back(1);
      continue;
    }
    auto e = to_index_expr(it);
    if (!e || e->ndim() != 0)
      throw NkiError(ErrorKind::Unsupported, "a view indexed with // or % can be indexed again only with integers, "
                                             "whole axes (':') and slices of axes that are not split");
    int64_t i = e->c0, size = view.shape[size_t(k)];
    if (i < 0) i += size;
    if (i < 0 || i >= size)
      throw NkiError(ErrorKind::Index, fmt::format("index {} is out of bounds for a dimension of size {}", e->c0, size));
    for (int d = n - 1; d >= 0; --d) {  // digits of i, innermost last
      int64_t radix = view.digits[size_t(first + d)];
      inner.insert(inner.end() - (n - 1 - d), Value::from_int(i % radix));
      i /= radix;
    }
  }
  AffineView r = index_view(view.internal(), make_tuple(inner), on_chip);
  // r's axes are the kept digits, group by group: merge each group back into one view axis.
  AffineView out = r;
  out.shape.clear();
  size_t next = 0;
  bool any_split = false;
  for (auto p : parts) {
    int64_t extent = 1;
    for (int i = 0; i < p; ++i) extent *= r.shape[next++];
    out.shape.push_back(extent);
    any_split = any_split || p > 1;
  }
  if (any_split) {
    out.digits.assign(r.shape.begin(), r.shape.end());
    out.parts = parts;
  }
  return out;
}

// Hot path (every subscript of a kernel): written to allocate only the output vectors and a
// few scratch buffers, never per axis.
AffineView index_view(const AffineView& view, const Value& index, bool on_chip) {
  if (view.split()) return index_split_view(view, index, on_chip);
  const Value* items = &index;
  size_t n_items = 1;
  if (auto* t = index.as<TupleObj>()) {
    items = t->items.data();
    n_items = t->items.size();
  }
  int m = view.ndim(), r = view.storage_ndim();
  int consuming = 0, ellipses = 0;
  bool advanced = false, explicit_slice = false, quasi = false;
  for (size_t i = 0; i < n_items; ++i) {
    const Value& it = items[i];
    if (it.is(ObjType::Ellipsis)) ++ellipses;
    else if (!it.is_none()) ++consuming;
    if (is_advanced(it)) {
      advanced = true;
      quasi = quasi || it.as<IndexExprObj>()->expr.quasi();
    }
    if (it.is(ObjType::Slice)) explicit_slice = true;
  }
  if (ellipses > 1) throw NkiError(ErrorKind::Index, "an index can only have a single ellipsis ('...')");
  if (consuming > m)
    throw NkiError(ErrorKind::Index, fmt::format("too many indices: the tensor has {} dimensions but {} "
                                                 "were indexed", m, consuming));
  if (advanced && explicit_slice)
    throw NkiError(ErrorKind::Rule, "err_unsupported_mixing_basic_advanced_tensor_indexing: slices cannot "
                                    "be mixed with nl.arange index expressions in one subscript");
  // Expand the ellipsis (or pad at the end) with full slices, written as nullptr.
  // Scratch on the stack (inline room for rank 8): thread_local vectors cost a TLS lookup each
  // from a shared library.
  SmallVec<const Value*, 8> expanded;
  SmallVec<int64_t, 32> basic;
  for (size_t i = 0; i < n_items; ++i) {
    if (items[i].is(ObjType::Ellipsis)) {
      for (int k = 0; k < m - consuming; ++k) expanded.push_back(nullptr);
    } else {
      expanded.push_back(&items[i]);
    }
  }
  if (!ellipses)
    for (int k = consuming; k < m; ++k) expanded.push_back(nullptr);

  IndexShape adv_shape;
  if (advanced) {
    for (const Value* it : expanded)
      if (it && is_advanced(*it)) {
        const IndexShape& shape = it->as<IndexExprObj>()->expr.shape;
        if (!(adv_shape == shape)) adv_shape = broadcast_index_shapes(adv_shape, shape);
      }
    if (on_chip && adv_shape.size() == 1)
      throw NkiError(ErrorKind::Rule, "err_1d_arange_not_supported: index an on-chip tensor with "
                                      "nl.arange(n)[:, None] or a slice, not a 1-D nl.arange");
  }
  int na = int(adv_shape.size());
  auto base = view.base;
  // Quasi-affine indices split advanced axes into digits (the internal axes of the view); the
  // affine case has one digit per axis.
  AdvancedDigits dig;
  if (quasi) dig = advanced_digits(adv_shape, expanded);
  int n_digits = quasi ? int(dig.radix.size()) : na;
  SmallVec<int64_t, 8> adv_cols(size_t(n_digits) * size_t(r), 0);  // digit a: adv_cols[a * r + d]
  // Basic axes (slices, None) in subscript order, one record each: [size, after_advanced, col[0..r)].
  const size_t rec = size_t(r) + 2;
  auto push_basic = [&](int64_t size, bool after) -> int64_t* {
    basic.push_back(size);
    basic.push_back(after ? 1 : 0);
    basic.resize(basic.size() + size_t(r), 0);
    return basic.data() + basic.size() - size_t(r);
  };
  int first_adv = -1, last_adv = -1, adv_count = 0, pos = 0, k = 0;
  for (const Value* it : expanded) {
    if (it && it->is_none()) {
      push_basic(1, first_adv >= 0);
      continue;
    }
    int64_t size = view.shape[k];
    const SliceObj* s = it ? it->as<SliceObj>() : nullptr;
    if (!it || s) {
      int64_t start = 0, count = size, step = 1;
      if (s) resolve_slice(*s, size, start, count, step);
      int64_t* col = push_basic(count, first_adv >= 0);
      for (int d = 0; d < r; ++d) {
        base[d] += view.c(d, k) * start;
        col[d] = view.c(d, k) * step;
      }
    } else {
      std::optional<IndexExpr> converted;
      const IndexExpr* e = nullptr;
      if (auto* eo = it->as<IndexExprObj>()) {
        e = &eo->expr;
      } else if ((converted = to_index_expr(*it))) {
        e = &*converted;
      } else if (it->as<NkiTensorObj>()) {
        // Valid NKI (nl.load(data[idx_tile[i_p, 0], i_f])), refused by name: the views here are
        // affine maps, and an index read from a tile at run time is none (docs/language.md).
        throw NkiError(ErrorKind::Unsupported,
                       "indirect (dynamic) indexing by an index tile is not supported by accelopt: views are affine "
                       "maps of the loop and arange indices, and an index read from a tile is none");
      } else {
        throw NkiError(ErrorKind::Type, fmt::format("tensor indices must be integers, slices, nl.ds or "
                                                    "nl.arange expressions, not {}", it->type_name()));
      }
      if (e->ndim() == 0) {
        int64_t i = e->c0;
        if (!advanced) {
          if (i < 0) i += size;
          if (i < 0 || i >= size)
            throw NkiError(ErrorKind::Index, fmt::format("index {} is out of bounds for a dimension of size {}",
                                                         e->c0, size));
        }
        for (int d = 0; d < r; ++d) base[d] += view.c(d, k) * i;
      } else {
        // Right-aligned in the broadcast advanced space (numpy rule), as IndexExpr::aligned_to.
        int shift = std::max(0, na - e->ndim());
        for (int d = 0; d < r; ++d) base[d] += view.c(d, k) * e->c0;
        for (const IndexTerm& t : e->terms) {
          int ax = t.first + shift;
          if (!quasi) {
            for (int d = 0; d < r; ++d) adv_cols[size_t(ax) * size_t(r) + size_t(d)] += view.c(d, k) * t.second;
            continue;
          }
          // A digit term adds to the digits it spans, each with its weight relative to the term's.
          for (int i = dig.first[size_t(ax)]; i < dig.first[size_t(ax) + 1]; ++i) {
            int64_t w = dig.weight[size_t(i)];
            if (w < t.div || (t.mod && w >= t.div * t.mod)) continue;
            for (int d = 0; d < r; ++d) adv_cols[size_t(i) * size_t(r) + size_t(d)] += view.c(d, k) * t.second * (w / t.div);
          }
        }
      }
      if (advanced) {
        if (first_adv < 0) first_adv = pos;
        last_adv = pos;
        ++adv_count;
      }
    }
    ++k;
    ++pos;
  }
  // numpy: advanced axes replace the indexed dims when those are adjacent, else go first.
  bool adjacent = advanced && (last_adv - first_adv + 1 == adv_count);
  size_t n_basic = basic.size() / rec;
  int m2 = int(n_basic) + n_digits;  // internal axes
  AffineView out;
  out.flat_from = view.flat_from;
  out.base = std::move(base);
  out.shape.reserve(size_t(n_basic) + size_t(na));
  out.coef.assign(size_t(r) * size_t(m2), 0);
  int j = 0;
  auto put_basic = [&](size_t b) {
    const int64_t* recp = basic.data() + b * rec;
    out.shape.push_back(recp[0]);
    if (quasi) {
      out.digits.push_back(recp[0]);
      out.parts.push_back(1);
    }
    for (int d = 0; d < r; ++d) out.coef[size_t(d) * m2 + j] = recp[2 + d];
    ++j;
  };
  auto put_advanced = [&] {
    for (int a = 0; a < na; ++a) {
      out.shape.push_back(adv_shape[a]);
      int first = quasi ? dig.first[size_t(a)] : a, last = quasi ? dig.first[size_t(a) + 1] : a + 1;
      if (quasi) out.parts.push_back(int8_t(last - first));
      for (int i = first; i < last; ++i, ++j) {
        if (quasi) out.digits.push_back(dig.radix[size_t(i)]);
        for (int d = 0; d < r; ++d) out.coef[size_t(d) * m2 + j] = adv_cols[size_t(i) * size_t(r) + size_t(d)];
      }
    }
  };
  if (!adjacent) {
    put_advanced();
    for (size_t b = 0; b < n_basic; ++b) put_basic(b);
  } else {
    for (size_t b = 0; b < n_basic; ++b)
      if (!basic[b * rec + 1]) put_basic(b);
    put_advanced();
    for (size_t b = 0; b < n_basic; ++b)
      if (basic[b * rec + 1]) put_basic(b);
  }
  if (quasi && out.digits.size() == out.shape.size()) {  // no axis was split after all
    out.digits.clear();
    out.parts.clear();
  }
  return out;
}

namespace {

// The storage elements of an unsplit view over `box` (a strided view, no copy).
tensor::Array strided_region(const TensorStorage& st, const AffineView& v, const Box& box) {
  const tensor::Strides& strides = st.data.strides();
  tensor::Strides view_strides(size_t(v.ndim()));
  for (int k = 0; k < v.ndim(); ++k) view_strides[k] = v.flat_stride(strides, k);
  int64_t offset = st.data.offset() + v.flat_offset(strides, box);
  return st.data.view(box.shape(), view_strides, offset);
}

// A digit-split view read whole, its axes merged (a C-order copy of the view's elements).
tensor::Array merged_copy(const TensorStorage& st, const AffineView& v) {
  AffineView iv = v.internal();
  return tensor::reshape(strided_region(st, iv, Box::full(iv.shape)).copy(), v.shape);
}

}  // namespace

tensor::Array read_region(const NkiTensorObj& t, const Box& box) {
  if (!t.view.split()) return strided_region(*t.storage, t.view, box);
  // Digits merged: the region is a copy, not a view of the storage.
  Box ib;
  if (t.view.internal_box(box, ib)) return tensor::reshape(strided_region(*t.storage, t.view.internal(), ib).copy(), box.shape());
  tensor::Array all = merged_copy(*t.storage, t.view);
  int64_t offset = all.offset();
  for (size_t k = 0; k < box.lo.size(); ++k) offset += box.lo[k] * all.strides()[k];
  return all.view(box.shape(), all.strides(), offset);
}

bool region_is_view(const NkiTensorObj& t) { return !t.view.split(); }

void write_region(const NkiTensorObj& t, const Box& box, const tensor::Array& value, const MaskRegion* region) {
  if (box.empty()) return;
  bool masked = region && region->residual;
  if (t.view.split()) {
    Box ib;
    AffineView iv = t.view.internal();
    tensor::Array src = tensor::broadcast_to(value, box.shape()).copy();
    if (!masked && t.view.internal_box(box, ib)) {
      tensor::Array dst = strided_region(*t.storage, iv, ib);
      tensor::assign(dst, tensor::reshape(src, ib.shape()));
      return;
    }
    // Element by element: each view index to its digits.
    tensor::Array dst = strided_region(*t.storage, iv, Box::full(iv.shape));
    std::vector<int64_t> idx(box.lo.size(), 0), abs(idx.size()), digit(size_t(iv.ndim()));
    for (int64_t e = 0, n = src.size(); e < n; ++e) {
      for (size_t a = 0; a < idx.size(); ++a) abs[a] = box.lo[a] + idx[a];
      if (!masked || region->holds(abs)) {
        for (int k = 0; k < t.view.ndim(); ++k) {
          int64_t rest = abs[size_t(k)];
          int first = t.view.first_internal(k);
          for (int i = t.view.parts[size_t(k)] - 1; i >= 0; --i) {
            digit[size_t(first + i)] = rest % iv.shape[size_t(first + i)];
            rest /= iv.shape[size_t(first + i)];
          }
        }
        dst.set(digit, src.get(idx));
      }
      for (int a = int(idx.size()) - 1; a >= 0; --a) {
        if (++idx[size_t(a)] < box.hi[size_t(a)] - box.lo[size_t(a)]) break;
        idx[size_t(a)] = 0;
      }
    }
    return;
  }
  tensor::Array dst = read_region(t, box);
  if (!masked) {
    tensor::assign(dst, value);
    return;
  }
  tensor::Array src = tensor::broadcast_to(value, dst.shape());
  std::vector<int64_t> idx(dst.shape().size(), 0), abs(idx.size());
  int64_t n = dst.size();
  for (int64_t e = 0; e < n; ++e) {
    for (size_t a = 0; a < idx.size(); ++a) abs[a] = box.lo[a] + idx[a];
    if (region->holds(abs)) dst.set(idx, src.get(idx));
    for (int a = int(idx.size()) - 1; a >= 0; --a) {
      if (++idx[a] < dst.shape()[a]) break;
      idx[a] = 0;
    }
  }
}

namespace {

// The operand of an unsplit view `v` of `st` over `box`; the first `part_axes` axes span the
// partitions (HBM: the rows) of the access.
trn::Operand operand_of(const TensorStorage& st, const AffineView& v, const Box& box, int part_axes);

}  // namespace

trn::ElemType trace_elem(tensor::DType d) {
  using tensor::DType;
  using E = trn::ElemType;
  switch (d) {
    case DType::Bool: return E::Bool;
    case DType::Int8: return E::I8;
    case DType::Int16: return E::I16;
    case DType::Int32: return E::I32;
    case DType::Int64: return E::I64;
    case DType::UInt8: return E::U8;
    case DType::UInt16: return E::U16;
    case DType::UInt32: return E::U32;
    case DType::UInt64: return E::U64;
    case DType::Float8E4M3: return E::FP8;
    case DType::Float8E4M3FN: return E::FP8E4M3FN;
    case DType::Float8E5M2: return E::FP8E5M2;
    case DType::Float16: return E::FP16;
    case DType::BFloat16: return E::BF16;
    case DType::TFloat32: return E::TF32;
    case DType::Float32: return E::F32;
    case DType::Float64: return E::F64;
  }
  return E::Unset;
}

trn::Operand make_operand(const NkiTensorObj& t, const Box& box) {
  if (!t.view.split()) return operand_of(*t.storage, t.view, box, 1);
  // Digit-split view: the same access over the internal (digit) axes.
  return operand_of(*t.storage, t.view.internal(), t.view.covering_box(box), t.view.parts[0]);
}

namespace {

trn::Operand operand_of(const TensorStorage& st, const AffineView& v, const Box& box, int part_axes) {
  trn::Operand op;
  op.buffer = st.buffer;
  op.tensor_id = st.id;
  op.dtype_bytes = uint8_t(tensor::itemsize(st.dtype));
  op.fp32 = st.dtype == tensor::DType::Float32;
  op.elem = trace_elem(st.dtype);
  int m = v.ndim();
  int64_t elements = box.elements();
  auto coord = [&](int d) {
    int64_t c = v.base[d];
    for (int k = 0; k < m; ++k) c += v.c(d, k) * box.lo[k];
    return c;
  };
  int64_t partitions = 1;
  for (int k = 0; k < std::min(part_axes, m); ++k) partitions *= box.hi[k] - box.lo[k];
  if (st.on_chip()) {
    int dp = st.partition_axis;
    int64_t block = 0;
    for (int d = 0; d < dp; ++d) block = block * st.shape[d] + coord(d);
    op.block = uint32_t(block);
    op.partition_start = uint16_t(coord(dp));
    bool moves = false;
    for (int k = 0; k < std::min(part_axes, m); ++k) moves = moves || v.c(dp, k) != 0;
    if (!moves) partitions = 1;
  }
  if (elements == 0) partitions = 0;
  op.partitions = uint16_t(partitions);
  op.free_elements = uint32_t(partitions ? elements / partitions : 0);
  // Longest contiguous run per partition/row: innermost free axes with unit-chained strides;
  // the stride of the first axis past the run is the pitch between runs. The extent spans the
  // first to the last element of a row (where the compiler stage looks for adjacent accesses).
  int64_t run = 1, pitch = 0, lo = 0, hi = 0;
  bool strided = false, innermost = true, chained = true;
  for (int k = m - 1; k >= part_axes; --k) {
    int64_t size = box.hi[k] - box.lo[k];
    if (size <= 1) continue;
    int64_t stride = v.flat_stride(st.strides, k);
    (stride < 0 ? lo : hi) += stride * (size - 1);
    if (innermost) {
      strided = std::abs(stride) * op.dtype_bytes > 16;
      innermost = false;
    }
    if (!chained) continue;
    if (stride != run) {
      chained = false;
      pitch = std::abs(stride);
      continue;
    }
    run *= size;
  }
  op.strided = strided;
  op.contiguous_bytes = uint32_t(run * op.dtype_bytes);
  op.descriptors = uint32_t(run ? elements / run : 0);
  op.pitch = uint32_t(pitch);
  op.extent = uint32_t(elements ? hi - lo + 1 : 0);
  // First element: within the partition row on chip, the flat index in HBM.
  int64_t first = lo;
  for (int d = st.on_chip() ? st.partition_axis + 1 : 0; d < int(st.shape.size()); ++d)
    first += coord(d) * st.strides[d];
  op.offset = first;
  // Rows of a digit-split partition axis: the stride of its innermost moving digit.
  if (!st.on_chip() && partitions > 1)
    for (int k = std::min(part_axes, m) - 1; k >= 0; --k)
      if (box.hi[k] - box.lo[k] > 1) {
        op.row_stride = v.flat_stride(st.strides, k);
        break;
      }
  return op;
}

}  // namespace

Box operand_box(const tensor::Shape& shape, const tensor::Shape& space, const Box& box) {
  Box b;
  operand_box_into(shape, space, box, b);
  return b;
}

void operand_box_into(const tensor::Shape& shape, const tensor::Shape& space, const Box& box, Box& b) {
  b.lo.resize(shape.size());
  b.hi.resize(shape.size());
  size_t shift = space.size() - shape.size();
  for (size_t k = 0; k < shape.size(); ++k) {
    bool broadcast = shape[k] == 1 && space[k + shift] != 1;
    b.lo[k] = broadcast ? 0 : box.lo[k + shift];
    b.hi[k] = broadcast ? 1 : box.hi[k + shift];
  }
}

}  // namespace nki::lib
