// numpy indexing: basic (ints, slices, None, ...) gives views; advanced (integer / bool arrays)
// gathers and scatters. Both are reduced to one plan: a base offset and, per result dimension,
// either a stride or a table of element offsets. Integer index arrays that are arithmetic
// progressions along one axis (nl.arange grids, the way NKI kernels index) become plain strides,
// so those loads and stores are strided copies.
#include <algorithm>

#include <fmt/format.h>

#include "tensor/detail.h"
#include "tensor/ops.h"

namespace tensor {

namespace {

struct PlanDim {
  int64_t len = 1;
  int64_t stride = 0;
  std::vector<int64_t> table;  // used when non-empty (element offsets relative to base)
};

struct IndexPlan {
  int64_t base = 0;
  std::vector<PlanDim> dims;
  Shape result_shape;  // differs from the dims' lengths when a non-separable block was flattened
  bool shape_only = false;
};

// An index item resolved against a source dimension.
struct Resolved {
  enum class Kind { Int, Slice, NewAxis, Adv } kind;
  int src_dim = -1;
  int64_t value = 0;         // Int
  int64_t start = 0, len = 0, step = 1;  // Slice
  Array indices;             // Adv: int64 indices (may be shape-only)
};

void resolve_slice(const Slice& s, int64_t dim_len, Resolved& r) {
  int64_t step = s.step.value_or(1);
  if (step == 0) throw ArrayError("slice step cannot be zero");
  int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? dim_len : dim_len - 1;
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + dim_len : *v;
    return std::clamp(x, lower, upper);
  };
  int64_t start = clamp(s.start, step > 0 ? lower : upper);
  int64_t stop = clamp(s.stop, step > 0 ? upper : lower);
  int64_t len = 0;
  if (step > 0 && stop > start) len = (stop - start + step - 1) / step;
  if (step < 0 && start > stop) len = (start - stop - step - 1) / (-step);
  r.kind = Resolved::Kind::Slice;
  r.start = start;
  r.len = len;
  r.step = step;
}

int64_t wrap_index(int64_t i, int64_t dim_len, int dim) {
  if (i < -dim_len || i >= dim_len)
    throw ArrayError(fmt::format("index {} is out of bounds for axis {} with size {}", i, dim, dim_len));
  return i < 0 ? i + dim_len : i;
}

// Bool index array over `k` dims -> k int64 arrays of the true positions (numpy's nonzero).
std::vector<Array> nonzero(const Array& mask) {
  Array m = astype(mask, DType::Bool);
  int k = m.ndim();
  std::vector<std::vector<int64_t>> coords(k);
  std::vector<int64_t> pos(k, 0);
  for (int64_t flat = 0; flat < m.size(); ++flat) {
    if (m.i64()[flat]) {
      for (int dim_idx = 0; dim_idx < k; ++dim_idx) coords[dim_idx].push_back(pos[dim_idx]);
    }
    for (int dim_idx = k - 1; dim_idx >= 0; --dim_idx) {
      if (++pos[dim_idx] < m.shape()[dim_idx]) break;
      pos[dim_idx] = 0;
    }
  }
  std::vector<Array> out;
  for (auto& c : coords) {
    Array arr = Array::empty({static_cast<int64_t>(c.size())}, DType::Int64);
    std::copy(c.begin(), c.end(), arr.i64());
    out.push_back(arr);
  }
  return out;
}

int consumed_dims(const IndexItem& item) {
  if (std::holds_alternative<NewAxis>(item) || std::holds_alternative<EllipsisIndex>(item)) return 0;
  if (const Array* arr = std::get_if<Array>(&item)) return arr->dtype() == DType::Bool ? std::max(arr->ndim(), 1) : 1;
  return 1;
}

// Expands `...`, resolves ints and slices, converts bool arrays; one entry per result-relevant item.
std::vector<Resolved> resolve_items(const Array& a, const std::vector<IndexItem>& items) {
  int used = 0, ellipses = 0;
  for (const IndexItem& item : items) {
    used += consumed_dims(item);
    ellipses += std::holds_alternative<EllipsisIndex>(item);
  }
  if (ellipses > 1) throw ArrayError("an index can only have a single ellipsis ('...')");
  if (used > a.ndim())
    throw ArrayError(fmt::format("too many indices for array: array is {}-dimensional, but {} were indexed", a.ndim(), used));
  std::vector<Resolved> out;
  int dim = 0;
  auto add_full_slices = [&](int count) {
    for (int idx = 0; idx < count; ++idx, ++dim) {
      Resolved r;
      resolve_slice(Slice{}, a.shape()[dim], r);
      r.src_dim = dim;
      out.push_back(r);
    }
  };
  for (const IndexItem& item : items) {
    Resolved r;
    if (std::holds_alternative<EllipsisIndex>(item)) {
      add_full_slices(a.ndim() - used);
      continue;
    }
    if (std::holds_alternative<NewAxis>(item)) {
      r.kind = Resolved::Kind::NewAxis;
      out.push_back(r);
      continue;
    }
    if (const int64_t* i = std::get_if<int64_t>(&item)) {
      r.kind = Resolved::Kind::Int;
      r.src_dim = dim;
      r.value = wrap_index(*i, a.shape()[dim], dim);
      out.push_back(r);
      ++dim;
      continue;
    }
    if (const Slice* s = std::get_if<Slice>(&item)) {
      resolve_slice(*s, a.shape()[dim], r);
      r.src_dim = dim++;
      out.push_back(r);
      continue;
    }
    const Array& arr = std::get<Array>(item);
    if (arr.dtype() == DType::Bool) {
      if (!arr.has_data()) throw ArrayError("boolean index arrays need values");
      for (int dim_idx = 0; dim_idx < arr.ndim(); ++dim_idx)
        if (arr.shape()[dim_idx] != a.shape()[dim + dim_idx])
          throw ArrayError(fmt::format("boolean index did not match indexed array along dimension {}; dimension is {} but "
                                       "corresponding boolean dimension is {}", dim + dim_idx, a.shape()[dim + dim_idx],
                                       arr.shape()[dim_idx]));
      for (Array& coords : nonzero(arr.ndim() ? arr : reshape(arr, {1}))) {
        Resolved adv;
        adv.kind = Resolved::Kind::Adv;
        adv.src_dim = dim++;
        adv.indices = coords;
        out.push_back(adv);
      }
      continue;
    }
    if (!is_integer(arr.dtype()))
      throw ArrayError("arrays used as indices must be of integer (or boolean) type");
    r.kind = Resolved::Kind::Adv;
    r.src_dim = dim++;
    r.indices = detail::to_storage(arr, Storage::I64);
    out.push_back(r);
  }
  add_full_slices(a.ndim() - dim);
  return out;
}

bool is_arithmetic(const std::vector<int64_t>& t) {
  for (size_t idx = 2; idx < t.size(); ++idx)
    if (t[idx] - t[idx - 1] != t[1] - t[0]) return false;
  return true;
}

// Offsets of the advanced block, either one table per broadcast dim (separable) or one flat table.
void plan_advanced(const Array& a, std::vector<Resolved*>& advs, IndexPlan& plan, std::vector<PlanDim>& block,
                   Shape& block_shape) {
  Shape bshape;
  for (Resolved* r : advs) bshape = broadcast_shapes(bshape, r->indices.shape());
  block_shape = bshape;
  bool data = std::all_of(advs.begin(), advs.end(), [](Resolved* r) { return r->indices.has_data(); });
  if (!data || !a.has_data()) {
    plan.shape_only = true;
    for (int64_t d : bshape) block.push_back(PlanDim{d, 0, {}});
    return;
  }
  // Separable when each index array varies along at most one broadcast dim.
  std::vector<int> varying(advs.size(), -1);
  bool separable = true;
  for (size_t k = 0; k < advs.size(); ++k) {
    const Shape& s = advs[k]->indices.shape();
    size_t lead = bshape.size() - s.size();
    for (size_t dim_idx = 0; dim_idx < s.size(); ++dim_idx) {
      if (s[dim_idx] == 1) continue;
      if (varying[k] >= 0) separable = false;
      varying[k] = static_cast<int>(lead + dim_idx);
    }
  }
  auto value_at = [&](Resolved* r, const Array& view, int64_t flat) {
    int64_t v = view.i64()[flat];
    return wrap_index(v, a.shape()[r->src_dim], r->src_dim) * a.strides()[r->src_dim];
  };
  if (separable) {
    for (int64_t d : bshape) block.push_back(PlanDim{d, 0, std::vector<int64_t>(d, 0)});
    for (size_t k = 0; k < advs.size(); ++k) {
      Array flat = reshape(advs[k]->indices, {advs[k]->indices.size()}).contiguous();
      if (varying[k] < 0) {
        if (flat.size() > 0) plan.base += value_at(advs[k], flat, 0);
        continue;
      }
      auto& table = block[varying[k]].table;
      for (int64_t idx = 0; idx < flat.size(); ++idx) table[idx] += value_at(advs[k], flat, idx);
    }
    return;
  }
  int64_t total = num_elements(bshape);
  PlanDim flat_dim{total, 0, std::vector<int64_t>(total, 0)};
  for (Resolved* r : advs) {
    Array full = broadcast_to(r->indices, bshape).copy();
    for (int64_t idx = 0; idx < total; ++idx) flat_dim.table[idx] += value_at(r, full, idx);
  }
  block.push_back(std::move(flat_dim));
}

IndexPlan make_plan(const Array& a, const std::vector<IndexItem>& items) {
  std::vector<Resolved> resolved = resolve_items(a, items);
  IndexPlan plan;
  plan.base = a.offset();
  bool has_adv = std::any_of(resolved.begin(), resolved.end(), [](const Resolved& r) { return r.kind == Resolved::Kind::Adv; });
  std::vector<Resolved*> advs;
  int first_adv = -1, last_adv = -1;
  for (size_t pos = 0; pos < resolved.size(); ++pos) {
    Resolved& r = resolved[pos];
    if (r.kind == Resolved::Kind::Int && has_adv) {  // ints join the advanced block (numpy rule)
      r.kind = Resolved::Kind::Adv;
      r.indices = Array::scalar(DType::Int64, static_cast<double>(r.value));
    }
    if (r.kind != Resolved::Kind::Adv) continue;
    advs.push_back(&r);
    if (first_adv < 0) first_adv = static_cast<int>(pos);
    last_adv = static_cast<int>(pos);
  }
  bool adjacent = last_adv - first_adv + 1 == static_cast<int>(advs.size());
  std::vector<PlanDim> block;
  Shape block_shape;
  if (has_adv) plan_advanced(a, advs, plan, block, block_shape);
  if (has_adv && !adjacent) {
    plan.dims = block;
    plan.result_shape = block_shape;
  }
  for (size_t pos = 0; pos < resolved.size(); ++pos) {
    const Resolved& r = resolved[pos];
    switch (r.kind) {
      case Resolved::Kind::Int: plan.base += r.value * a.strides()[r.src_dim]; break;
      case Resolved::Kind::Slice:
        plan.base += r.start * a.strides()[r.src_dim];
        plan.dims.push_back(PlanDim{r.len, r.step * a.strides()[r.src_dim], {}});
        plan.result_shape.push_back(r.len);
        break;
      case Resolved::Kind::NewAxis:
        plan.dims.push_back(PlanDim{1, 0, {}});
        plan.result_shape.push_back(1);
        break;
      case Resolved::Kind::Adv:
        if (adjacent && static_cast<int>(pos) == first_adv) {
          plan.dims.insert(plan.dims.end(), block.begin(), block.end());
          plan.result_shape.insert(plan.result_shape.end(), block_shape.begin(), block_shape.end());
        }
        break;
    }
  }
  if (!a.has_data()) plan.shape_only = true;
  // Arithmetic tables are strides: the common NKI case becomes a strided view.
  for (PlanDim& d : plan.dims) {
    if (d.table.empty() || !is_arithmetic(d.table)) continue;
    plan.base += d.table[0];
    d.stride = d.table.size() > 1 ? d.table[1] - d.table[0] : 0;
    d.table.clear();
  }
  return plan;
}

bool all_strided(const IndexPlan& plan) {
  return std::all_of(plan.dims.begin(), plan.dims.end(), [](const PlanDim& d) { return d.table.empty(); });
}

Array strided_view(const Array& a, const IndexPlan& plan) {
  Shape shape;
  Strides strides;
  for (const PlanDim& d : plan.dims) {
    shape.push_back(d.len);
    strides.push_back(d.stride);
  }
  return a.view(shape, strides, plan.base);
}

// Offsets of every plan element (C order over plan.dims), relative to the buffer start.
std::vector<int64_t> element_offsets(const IndexPlan& plan) {
  std::vector<int64_t> offsets{plan.base};
  for (const PlanDim& d : plan.dims) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * d.len);
    for (int64_t off : offsets)
      for (int64_t idx = 0; idx < d.len; ++idx) next.push_back(off + (d.table.empty() ? idx * d.stride : d.table[idx]));
    offsets.swap(next);
  }
  return offsets;
}

template <class T>
void gather(const T* buffer_start, const std::vector<int64_t>& offsets, T* out) {
  for (size_t idx = 0; idx < offsets.size(); ++idx) out[idx] = buffer_start[offsets[idx]];
}
template <class T>
void scatter(T* buffer_start, const std::vector<int64_t>& offsets, const T* values) {
  for (size_t idx = 0; idx < offsets.size(); ++idx) buffer_start[offsets[idx]] = values[idx];
}

// The buffer start (element 0 of the buffer) of `a` in its storage type.
template <class T>
T* buffer_start(const Array& a) {
  return static_cast<T*>(a.raw()) - a.offset();
}

}  // namespace

Array get_index(const Array& a, const std::vector<IndexItem>& items) {
  IndexPlan plan = make_plan(a, items);
  bool advanced = std::any_of(items.begin(), items.end(), [](const IndexItem& i) { return std::holds_alternative<Array>(i); });
  if (plan.shape_only) return Array::shape_only(plan.result_shape, a.dtype());
  if (all_strided(plan)) {
    Array view = strided_view(a, plan);
    Array result = advanced ? view.copy() : view;
    return result.shape() == plan.result_shape ? result : reshape(result, plan.result_shape);
  }
  std::vector<int64_t> offsets = element_offsets(plan);
  Array out = Array::empty({static_cast<int64_t>(offsets.size())}, a.dtype());
  switch (storage_of(a.dtype())) {
    case Storage::F32: gather(buffer_start<float>(a), offsets, out.f32()); break;
    case Storage::F64: gather(buffer_start<double>(a), offsets, out.f64()); break;
    case Storage::I64: gather(buffer_start<int64_t>(a), offsets, out.i64()); break;
  }
  return reshape(out, plan.result_shape);
}

void set_index(Array& a, const std::vector<IndexItem>& items, const Array& value) {
  IndexPlan plan = make_plan(a, items);
  if (plan.shape_only) {
    broadcast_to(value, plan.result_shape);  // validate the shapes even without data
    return;
  }
  if (!value.has_data()) throw ArrayError("assigning a shape-only array into an array with data");
  if (all_strided(plan)) {
    Array view = strided_view(a, plan);
    Array v = broadcast_to(value, plan.result_shape);
    if (view.shape() != plan.result_shape) v = reshape(v.copy(), view.shape());
    assign(view, v);
    return;
  }
  std::vector<int64_t> offsets = element_offsets(plan);
  Array v = astype(broadcast_to(value, plan.result_shape), a.dtype());  // a fresh C-order copy
  switch (storage_of(a.dtype())) {
    case Storage::F32: scatter(buffer_start<float>(a), offsets, v.f32()); break;
    case Storage::F64: scatter(buffer_start<double>(a), offsets, v.f64()); break;
    case Storage::I64: scatter(buffer_start<int64_t>(a), offsets, v.i64()); break;
  }
}

}  // namespace tensor
