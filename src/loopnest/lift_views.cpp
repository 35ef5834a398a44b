// The newer API's tensor view methods on a tile's access (the lifter's side of
// nki/lib/tensor_views.h): each is a change of the access's axis terms, so a view written with
// `permute`, `select`, `reshape_dim`, `flatten_dims`, `broadcast`, `expand_dim`, `squeeze_dim` (or a
// `reshape` of a part of a tensor) lifts to the same form as the subscript that reads the same
// elements.
#include <algorithm>

#include <fmt/format.h>

#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using nki::CallExpr;
using K = AValue::K;

namespace {

// Renumbers the terms' axes (`map` returns -1 for a term to drop).
template <class F>
void renumber(Access& a, F map) {
  for (auto& d : a.dims) {
    std::vector<AxisTerm> kept;
    for (auto& t : d.terms) {
      int to = map(t.axis);
      if (to < 0) continue;
      t.axis = to;
      kept.push_back(t);
    }
    d.terms = std::move(kept);
  }
}

// The access's rank: implicit when its terms use exactly the axes 0..rank-1.
void set_rank(Access& a, int rank) {
  a.rank = -1;
  if (static_cast<int>(a.tile_shape().size()) != rank) a.rank = rank;
}

}  // namespace

AValue Lifter::reshaped_view(int base, std::vector<IExpr> shape) {
  const Tensor& b = k.tensor(base);
  Tensor t;
  t.role = TensorRole::View;
  t.base = base;
  t.memory = b.memory;
  t.dtype = b.dtype;
  t.partition_dim = b.on_chip() ? 0 : -1;
  t.shape = std::move(shape);
  t.scope_loop = loop_stack.empty() ? -1 : loop_stack.back();
  return AValue::of_tile(whole(new_tensor(std::move(t))));
}

std::optional<AValue> Lifter::contiguous_merge(const Access& a, int s, int e) {
  const Tensor& base = k.tensor(a.tensor);
  std::vector<int> dim_of;  // the tensor dim axis s + j walks
  for (int ax = s; ax <= e; ++ax) {
    int found = -1;
    for (size_t d = 0; d < a.dims.size(); ++d)
      for (const auto& t : a.dims[d].terms)
        if (t.axis == ax) {
          if (found >= 0 || a.dims[d].terms.size() != 1 || !t.affine() || t.stride != 1) return std::nullopt;
          found = static_cast<int>(d);
        }
    if (found < 0 || (!dim_of.empty() && found != dim_of.back() + 1)) return std::nullopt;
    dim_of.push_back(found);
  }
  int64_t merged = 1, inner = 1, size = 1;
  for (size_t j = 0; j < dim_of.size(); ++j) {
    const size_t d = static_cast<size_t>(dim_of[j]);
    const AxisTerm& t = a.dims[d].terms[0];
    if (!base.shape[d].is_constant() || !t.size.is_constant()) return std::nullopt;
    if (j > 0 && (!(t.size == base.shape[d]) || !(a.dims[d].start == IExpr(0)))) return std::nullopt;
    merged *= base.shape[d].constant();
    if (j > 0) inner *= base.shape[d].constant();
    size *= t.size.constant();
  }
  const size_t first = static_cast<size_t>(dim_of.front()), last = static_cast<size_t>(dim_of.back());
  std::vector<IExpr> shape(base.shape.begin(), base.shape.begin() + static_cast<long>(first));
  shape.push_back(IExpr(merged));
  shape.insert(shape.end(), base.shape.begin() + static_cast<long>(last) + 1, base.shape.end());
  AValue view = reshaped_view(a.tensor, std::move(shape));
  Access out = view.access;
  out.dims.clear();
  out.rank = -1;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    if (d > first && d <= last) continue;
    DimIndex dim = a.dims[d];
    if (d == first) dim = DimIndex{a.dims[d].start * inner, {AxisTerm{s, IExpr(size), 1}}};
    for (auto& t : dim.terms)
      if (t.axis > e) t.axis -= e - s;
    out.dims.push_back(std::move(dim));
  }
  set_rank(out, static_cast<int>(a.tile_shape().size()) - (e - s));
  return AValue::of_tile(std::move(out));
}

AValue Lifter::view_method(const AValue& self, const std::string& name, const std::vector<AValue>& pos,
                           const std::vector<std::pair<std::string, AValue>>& kw, const CallExpr& c) {
  Access a = self.access;
  std::vector<IExpr> sizes = a.tile_shape();
  int n = static_cast<int>(sizes.size());
  auto arg = [&](size_t i, const char* key) -> const AValue* {
    for (const auto& [k2, v] : kw)
      if (k2 == key) return &v;
    return i < pos.size() ? &pos[i] : nullptr;
  };
  auto constant = [&](const AValue* v, const char* what) {
    if (!v) fail(c.span, fmt::format("'{}': its argument '{}' is missing", print_expr(c), what));
    IExpr e = int_of(*v, c);
    if (!e.is_constant()) fail(c.span, fmt::format("the view method call '{}' with a loop-dependent {}", print_expr(c), what));
    return e.constant();
  };
  auto axis = [&](const AValue* v, int count, const char* what) {
    int64_t d = constant(v, what);
    if (d < 0) d += count;
    if (d < 0 || d >= count) fail(c.span, fmt::format("'{}': dimension {} out of range for a view of {} dims", print_expr(c), d, n));
    return static_cast<int>(d);
  };
  auto constant_size = [&](int d) {
    if (!sizes[static_cast<size_t>(d)].is_constant())
      fail(c.span, fmt::format("the view method call '{}' on a dimension of loop-dependent size", print_expr(c)));
    return sizes[static_cast<size_t>(d)].constant();
  };
  auto int_list = [&](size_t first, const char* key) {  // a tuple / list, or the remaining positionals
    std::vector<int64_t> out;
    const AValue* v = arg(first, key);
    if (v && (v->k == K::Tuple || v->k == K::List)) {
      for (const auto& item : v->items) out.push_back(constant(&item, key));
      return out;
    }
    for (size_t i = first; i < pos.size(); ++i) out.push_back(constant(&pos[i], key));
    if (out.empty() && v) out.push_back(constant(v, key));
    return out;
  };
  bool on_chip = k.tensor(a.tensor).on_chip();

  if (name == "permute") {
    std::vector<int64_t> dims = int_list(0, "dims");
    if (static_cast<int>(dims.size()) != n) fail(c.span, fmt::format("'{}': {} dims for a view of {}", print_expr(c), dims.size(), n));
    std::vector<int> to(static_cast<size_t>(n), -1);
    for (int j = 0; j < n; ++j) {
      int64_t d = dims[static_cast<size_t>(j)] < 0 ? dims[static_cast<size_t>(j)] + n : dims[static_cast<size_t>(j)];
      if (d < 0 || d >= n || to[static_cast<size_t>(d)] >= 0) fail(c.span, fmt::format("'{}': not a permutation", print_expr(c)));
      to[static_cast<size_t>(d)] = j;
    }
    renumber(a, [&](int ax) { return to[static_cast<size_t>(ax)]; });
    set_rank(a, n);
  } else if (name == "expand_dim" || name == "expand_dims") {
    int d = axis(arg(0, name == "expand_dim" ? "dim" : "axis"), n + 1, "dim");
    renumber(a, [&](int ax) { return ax >= d ? ax + 1 : ax; });
    set_rank(a, n + 1);
  } else if (name == "squeeze_dim" || name == "broadcast") {
    int d = axis(arg(0, "dim"), n, "dim");
    if (constant_size(d) != 1) fail(c.span, fmt::format("'{}': dimension {} has size {}, not 1", print_expr(c), d, constant_size(d)));
    bool squeeze = name == "squeeze_dim";
    renumber(a, [&](int ax) { return ax == d ? -1 : squeeze && ax > d ? ax - 1 : ax; });
    if (!squeeze) {  // every index of the new axis reads the same element: a term of stride 0
      if (a.dims.empty()) fail(c.span, fmt::format("'{}' of a scalar", print_expr(c)));
      auto& terms = a.dims.back().terms;
      auto at = std::find_if(terms.begin(), terms.end(), [&](const AxisTerm& t) { return t.axis > d; });
      terms.insert(at, AxisTerm{d, IExpr(constant(arg(1, "size"), "size")), 0});
    }
    set_rank(a, squeeze ? n - 1 : n);
  } else if (name == "select") {
    int d = axis(arg(0, "dim"), n, "dim");
    const AValue* iv = arg(1, "index");
    if (!iv) fail(c.span, fmt::format("'{}': its argument 'index' is missing", print_expr(c)));
    IExpr index = int_of(*iv, c);
    if (index.is_constant() && index.constant() < 0 && sizes[static_cast<size_t>(d)].is_constant())
      index = IExpr(index.constant() + sizes[static_cast<size_t>(d)].constant());
    for (auto& dim : a.dims)
      for (const auto& t : dim.terms) {
        if (t.axis != d) continue;
        if (t.affine()) {
          dim.start = dim.start + index * t.stride;
        } else {
          if (!index.is_constant()) fail(c.span, fmt::format("'{}': a loop-dependent index of a quasi-affine axis", print_expr(c)));
          int64_t q = index.constant() / t.div;
          dim.start = dim.start + IExpr(t.stride * (t.mod ? q % t.mod : q));
        }
      }
    // As an integer index on chip: the partition dim leaves a size-1 dim behind, and a view keeps
    // at least two dims.
    bool keep = on_chip && (d == 0 || n - 1 < 2);
    renumber(a, [&](int ax) { return ax == d ? -1 : !keep && ax > d ? ax - 1 : ax; });
    set_rank(a, keep ? n : n - 1);
  } else if (name == "reshape_dim") {
    int d = axis(arg(0, "dim"), n, "dim");
    std::vector<int64_t> parts = int_list(1, "shape");
    int64_t total = constant_size(d), known = 1;
    int infer = -1;
    for (size_t j = 0; j < parts.size(); ++j) {
      if (parts[j] == -1 && infer < 0) infer = static_cast<int>(j);
      else known *= parts[j];
    }
    if (infer >= 0 && known > 0) parts[static_cast<size_t>(infer)] = total / known;
    int64_t product = 1;
    for (auto p : parts) product *= p;
    if (parts.empty() || product != total)
      fail(c.span, fmt::format("'{}': the sizes do not hold the {} elements of dimension {}", print_expr(c), total, d));
    int m = static_cast<int>(parts.size());
    for (auto& dim : a.dims) {
      std::vector<AxisTerm> out;
      for (const auto& t : dim.terms) {
        if (t.axis != d) {
          AxisTerm moved = t;
          if (moved.axis > d) moved.axis += m - 1;
          out.push_back(moved);
          continue;
        }
        if (!t.affine()) fail(c.span, fmt::format("'{}': reshape_dim of a quasi-affine axis", print_expr(c)));
        int64_t inner = total;
        for (int j = 0; j < m; ++j) {
          inner /= parts[static_cast<size_t>(j)];
          out.push_back({d + j, IExpr(parts[static_cast<size_t>(j)]), t.stride * inner});
        }
      }
      dim.terms = std::move(out);
    }
    set_rank(a, n + m - 1);
  } else if (name == "flatten_dims") {
    const AValue* sv = arg(0, "start");
    const AValue* ev = arg(1, "end");
    AValue zero = AValue::of_int(0), last = AValue::of_int(-1);
    int s = axis(sv ? sv : &zero, n, "start"), e = axis(ev ? ev : &last, n, "end");
    if (s > e) fail(c.span, fmt::format("'{}': start after end", print_expr(c)));
    // HBM storage is row-major, so where axes s..e walk consecutive dims of the tensor, each with
    // stride 1 and all but the first over its whole extent (`x[b].reshape(..)`, a whole tensor's
    // `flatten_dims(1, 2)`), they walk one contiguous range: a view of the tensor with those dims
    // merged, on which the merged axis is one affine term a later reshape_dim may cut anywhere. Per
    // storage dim (below) the merged index is quasi-affine ((i // N), i % N) and chunks straddling
    // rows of N could not be expressed (`x.flatten_dims(1, 2).reshape_dim(1, (n, F))` of a (P, T, N)
    // input). On chip the partition dim is not contiguous with the rest; tiles keep per-dim terms.
    if (e > s && !on_chip)
      if (auto merged = contiguous_merge(a, s, e)) return *merged;
    std::vector<int64_t> inner(static_cast<size_t>(n), 1);  // product of the merged sizes after each axis
    int64_t total = 1;
    for (int d = e; d >= s; --d) {
      inner[static_cast<size_t>(d)] = total;
      total *= constant_size(d);
    }
    for (auto& dim : a.dims) {
      std::vector<AxisTerm> out;
      std::vector<std::pair<int, AxisTerm>> group;  // (axis before the merge, its term on the merged axis)
      for (const auto& t : dim.terms) {
        if (t.axis < s || t.axis > e) {
          AxisTerm moved = t;
          if (moved.axis > e) moved.axis -= e - s;
          out.push_back(moved);
          continue;
        }
        if (!t.affine()) fail(c.span, fmt::format("'{}': flatten_dims of a quasi-affine axis", print_expr(c)));
        // axis k of the merged index i: (i // inner_k) % size_k
        int64_t size = constant_size(t.axis);
        group.push_back({t.axis, {s, IExpr(total), t.stride, inner[static_cast<size_t>(t.axis)], t.axis == s ? 0 : size}});
      }
      std::sort(group.begin(), group.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      // The whole run s..e on this dim with chained strides (outer = inner * its size) is one
      // affine term.
      bool chain = static_cast<int>(group.size()) == e - s + 1;
      for (size_t j = 0; chain && j < group.size(); ++j) {
        chain = group[j].first == s + static_cast<int>(j);
        if (chain && j + 1 < group.size())
          chain = group[j].second.stride == group[j + 1].second.stride * constant_size(group[j + 1].first);
      }
      if (chain) out.push_back({s, IExpr(total), group.back().second.stride});
      else
        for (auto& [ax, t] : group) out.push_back(t);
      dim.terms = std::move(out);
    }
    set_rank(a, n - (e - s));
  } else {
    fail(c.span, fmt::format("the method call '{}'", print_expr(c)));
  }
  check_access(a, c);
  return AValue::of_tile(std::move(a));
}

}  // namespace loopnest::detail
