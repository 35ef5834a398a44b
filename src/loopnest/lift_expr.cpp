// The lifter's expression evaluator: Python values of the kernel body as abstract values
// (lifter.h). Integers stay symbolic in the loop variables; index grids, slices and integers
// subscripting a tensor compose into access maps.
#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"
#include "tensor/dtype.h"
#include "trn/tile_limits.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

std::string canonical_module(const std::string& dotted) {
  static const std::map<std::string, std::string> known = {
      {"neuronxcc.nki", "nki"},           {"nki", "nki"},
      {"neuronxcc.nki.language", "nki.language"}, {"nki.language", "nki.language"},
      {"neuronxcc.nki.isa", "nki.isa"},   {"nki.isa", "nki.isa"},
      {"neuronxcc.nki.typing", "nki.typing"}, {"nki.typing", "nki.typing"},
      {"numpy", "numpy"},                 {"math", "math"},
      {"neuronxcc", "neuronxcc"},         {"functools", "functools"},
      {"itertools", "itertools"},
      {"neuronxcc.nki.compiler", "nki.compiler"}, {"nki.compiler", "nki.compiler"},
  };
  auto it = known.find(dotted);
  return it == known.end() ? "" : it->second;
}

std::string short_api(const std::string& path) {
  if (path.rfind("nki.language.", 0) == 0) return "nl." + path.substr(13);
  if (path.rfind("nki.isa.", 0) == 0) return "nisa." + path.substr(8);
  if (path.rfind("numpy.", 0) == 0) return "np." + path.substr(6);
  if (path.rfind("builtins.", 0) == 0) return path.substr(9);
  return path;
}

namespace {

const std::set<std::string>& dtype_names() {
  static const std::set<std::string> names = {"float32", "float16", "bfloat16", "tfloat32", "float8_e4m3", "float8_e5m2",
                                              "int8", "int16", "int32", "uint8", "uint16", "uint32", "bool_", "float64",
                                              "int64", "uint64"};
  return names;
}

}  // namespace

AValue module_attr(const std::string& path, const std::string& attr) {
  std::string full = path + "." + attr;
  if (!canonical_module(full).empty() && full != "nki.jit") return AValue::of_kind(K::Module, canonical_module(full));
  if (path == "nki.compiler" && (attr == "sbuf" || attr == "psum")) return AValue::of_kind(K::Module, full);
  if (path == "nki" && (attr == "language" || attr == "isa" || attr == "typing" || attr == "compiler"))
    return AValue::of_kind(K::Module, full);
  // nl.bool_ / np.bool_ is the dtype the form names "bool" (tensor::name; a comparison's result).
  if (dtype_names().count(attr) && (path == "numpy" || path == "nki.language"))
    return AValue::of_kind(K::DType, attr == "bool_" ? "bool" : attr);
  if (path == "nki.language") {
    for (const char* b : {"sbuf", "psum", "hbm", "shared_hbm", "private_hbm"})
      if (attr == b) return AValue::of_kind(K::Symbol, std::string("buffer:") + b);
    if (attr == "tile_size") return AValue::of_kind(K::Module, "nki.language.tile_size");
  }
  // nl.fp32.min / nisa.fp32.min (and max): the language core's values (language_module.cpp).
  if ((path == "nki.language" || path == "nki.isa") && attr == "fp32") return AValue::of_kind(K::Module, full);
  if (path == "nki.language.fp32" || path == "nki.isa.fp32") {
    if (attr == "min") return AValue::of_float(-3.4028234663852886e38);
    if (attr == "max" && path == "nki.language.fp32") return AValue::of_float(3.4028234663852886e38);
  }
  if (path == "nki.language.tile_size") {
    // The values the language core gives them (trn/tile_limits.h).
    if (auto v = trn::limits::tile_size_value(attr)) return AValue::of_int(*v);
  }
  if (path == "nki.isa" || path == "nki.isa.engine") {
    std::string e = attr;
    if (e.size() > 7 && e.substr(e.size() - 7) == "_engine") e = e.substr(0, e.size() - 7);
    for (const char* n : {"vector", "scalar", "gpsimd", "tensor", "dma", "unknown", "activation", "pool", "pe"})
      if (e == n && (path == "nki.isa.engine" || attr != e)) return AValue::of_kind(K::Symbol, "engine:" + e);
    if (attr == "engine") return AValue::of_kind(K::Module, "nki.isa.engine");
    // Enumerations of instruction arguments: nisa.reduce_cmd.reset_reduce, nisa.dge_mode.none, ...
    for (const char* en : {"reduce_cmd", "dge_mode", "oob_mode", "matmul_perf_mode", "nc_version"})
      if (attr == en && path == "nki.isa") return AValue::of_kind(K::Module, full);
  }
  // nisa.nc_version.gen2 / gen3: the integers nisa.get_nc_version() is compared with (8.5).
  if (path == "nki.isa.nc_version" && (attr == "gen2" || attr == "gen3")) return AValue::of_int(attr == "gen2" ? 2 : 3);
  for (const char* en : {"reduce_cmd", "dge_mode", "oob_mode", "matmul_perf_mode"})
    if (path == std::string("nki.isa.") + en) return AValue::of_kind(K::Symbol, std::string("isa.") + en + ":" + attr);
  if ((path == "math" || path == "numpy") && attr == "pi") return AValue::of_float(M_PI);
  // `nl.minimum(res, np.inf)`: a number (printed `float('inf')` from the form), not a function.
  if ((path == "math" || path == "numpy") && attr == "inf") return AValue::of_float(INFINITY);
  return AValue::of_kind(K::Func, full);
}

namespace {

// The integer value of an instruction enum member (nki-language.md, "Engine and enum constants");
// any other value unchanged.
AValue enum_as_int(AValue v) {
  static const std::map<std::string, int64_t> values = {
      {"isa.reduce_cmd:idle", 0}, {"isa.reduce_cmd:reset", 1}, {"isa.reduce_cmd:reduce", 2},
      {"isa.reduce_cmd:reset_reduce", 3}, {"isa.dge_mode:none", 0}, {"isa.dge_mode:swdge", 1},
      {"isa.dge_mode:hwdge", 2}, {"isa.dge_mode:unknown", 3}, {"isa.oob_mode:error", 0}, {"isa.oob_mode:skip", 1},
      {"isa.matmul_perf_mode:none", 0}};
  if (v.k != K::Symbol) return v;
  auto it = values.find(v.s);
  return it == values.end() ? v : AValue::of_int(it->second);
}

Cmp negated(Cmp c) {
  switch (c) {
    case Cmp::Lt: return Cmp::Ge;
    case Cmp::Le: return Cmp::Gt;
    case Cmp::Gt: return Cmp::Le;
    case Cmp::Ge: return Cmp::Lt;
    case Cmp::Eq: return Cmp::Ne;
    case Cmp::Ne: return Cmp::Eq;
  }
  return c;
}

// `0.0 if blk == 0 else carry` (a scan starting from zero in the first chunk and from the carried
// tile after): the tile, with the number it gives way to where the condition says so
// (AValue::instead). None when the branches are not one number and one tile.
std::optional<AValue> number_or_tile(const AValue& cond, const AValue& then, const AValue& otherwise) {
  auto is_number = [](const AValue& v) { return v.k == K::Float || (v.k == K::Int && v.i.is_constant()); };
  auto same_number = [](const AValue& a, const AValue& b) {
    return a.k == b.k && (a.k == K::Float ? a.f == b.f && a.type == b.type : a.i == b.i);
  };
  const AValue& number = is_number(then) ? then : otherwise;
  const Cmp cmp = is_number(then) ? cond.cmp : negated(cond.cmp);
  // A tile that already gives way to this number under this very condition (an item of a list a
  // loop fills, lift_filled_list.cpp, printed back as `0.0 if c == 0 else carry[s]`): the choice is
  // the one it carries.
  auto plain = [&](const AValue& v) {
    return v.k == K::Tile && (!v.instead || (same_number(*v.instead, number) && v.cl == cond.cl && v.cr == cond.cr &&
                                             v.cmp == cmp));
  };
  bool number_first = is_number(then) && plain(otherwise);
  bool tile_first = plain(then) && is_number(otherwise);
  if (!number_first && !tile_first) return std::nullopt;
  AValue v = number_first ? otherwise : then;
  v.instead = std::make_shared<AValue>(number);
  v.cl = cond.cl, v.cr = cond.cr, v.cmp = cmp;
  return v;
}

AValue builtin(const std::string& id) {
  static const std::set<std::string> funcs = {"range", "min", "max", "len", "int", "float", "tuple", "list", "abs",
                                              "isinstance", "print", "bool", "round", "divmod", "zip",
                                              "enumerate", "sorted", "reversed", "slice", "set", "frozenset", "sum", "dict", "repr", "str"};
  if (funcs.count(id)) return AValue::of_kind(K::Func, "builtins." + id);
  return AValue::of_kind(K::Unknown);
}

Grid grid_of(const AValue& v) {
  if (v.k == K::Grid) return v.grid;
  Grid g;
  g.base = v.i;
  return g;
}

// a + sign * b for grids (ints are grids without axes): terms of one axis with the same
// quasi-affine form merge, others stay side by side (`(i % 4) * 256 + i // 4`).
Grid grid_add(const Grid& a, const Grid& b, int64_t sign) {
  Grid r;
  r.ndim = std::max(a.ndim, b.ndim);
  r.base = a.base + b.base * sign;
  r.dense = a.dense.size() >= b.dense.size() ? a.dense : b.dense;
  auto place = [&](const Grid& g, int64_t s) {
    for (const auto& [pos, ax] : g.axes) {
      int p = pos + (r.ndim - g.ndim);
      bool merged = false;
      for (auto [it, end] = r.axes.equal_range(p); it != end && !merged; ++it)
        if (it->second.div == ax.div && it->second.mod == ax.mod && it->second.size == ax.size) {
          it->second.coef += ax.coef * s;
          merged = true;
        }
      if (merged) continue;
      Grid::Axis x = ax;
      x.coef *= s;
      r.axes.emplace(p, x);
    }
  };
  place(a, 1);
  place(b, sign);
  return r;
}

// base + coef * ((a // div) % mod) over one axis, floor-divided (mod_op false) or taken modulo
// (mod_op true) by the constant k > 0: still one quasi-affine term when base is a multiple of k
// and the coefficient and k divide one another. nullopt otherwise.
std::optional<Grid> grid_quasi(const Grid& g, int64_t k, bool mod_op, const Ranges& ranges) {
  if (g.axes.size() != 1 || k <= 0) return std::nullopt;
  if (!(IExpr::mod(g.base, k, &ranges) == IExpr(0))) return std::nullopt;
  Grid r = g;
  Grid::Axis& ax = r.axes.begin()->second;
  int64_t c = ax.coef;
  if (c <= 0) return std::nullopt;
  if (!mod_op) {
    r.base = IExpr::floordiv(g.base, k, &ranges);
    if (c % k == 0) {  // (k*m*f) // k = m*f
      ax.coef = c / k;
      return r;
    }
    if (k % c != 0) return std::nullopt;
    int64_t q = k / c;  // (c*f) // k = f // q
    ax.coef = 1;
    if (ax.mod == 0) {
      ax.div *= q;
      return r;
    }
    if (ax.mod % q != 0) return std::nullopt;  // ((a//d) % m) // q = (a // (d*q)) % (m/q) when q | m
    ax.div *= q;
    ax.mod /= q;
    return r;
  }
  r.base = IExpr(0);
  if (c % k == 0) {  // a multiple of k
    r.axes.clear();
    return r;
  }
  if (k % c != 0) return std::nullopt;
  int64_t q = k / c;  // (c*f) % k = c * (f % q)
  if (ax.mod == 0 || ax.mod % q == 0) ax.mod = q;
  else if (q % ax.mod != 0) return std::nullopt;  // f already below q when mod | q
  return r;
}

Grid grid_scale(const Grid& a, int64_t k) {
  Grid r = a;
  r.base = a.base * k;
  for (auto& [p, ax] : r.axes) ax.coef *= k;
  return r;
}

}  // namespace

void Lifter::fail(const Span& at, const std::string& what) const {
  Diagnostic d;
  d.kind = ErrorKind::Unsupported;
  d.loc = loc_of(module->file, at);
  d.message = "cannot lift " + what;
  throw LiftError(std::move(d));
}

Access Lifter::whole(int tensor) const { return whole_of(k, tensor); }

IExpr Lifter::int_of(const AValue& v, const Expr& at) {
  if (v.k == K::Int || v.k == K::ParDim) return v.i;
  if (v.k == K::Bool) return IExpr(v.b ? 1 : 0);
  if (v.k == K::Float && v.f == std::floor(v.f) && std::fabs(v.f) < 1e15) return IExpr(static_cast<int64_t>(v.f));
  fail(at.span, fmt::format("'{}': an integer was expected here", print_expr(at)));
}

IExpr Lifter::int_of(const Expr& e) { return int_of(eval(e), e); }

std::vector<IExpr> Lifter::shape_of(const AValue& v, const Expr& at, int* partition_dim) {
  std::vector<IExpr> shape;
  if (partition_dim) *partition_dim = -1;
  if (v.k == K::Tuple || v.k == K::List) {
    for (size_t i = 0; i < v.items.size(); ++i) {
      if (v.items[i].k == K::ParDim && partition_dim) *partition_dim = static_cast<int>(i);
      shape.push_back(int_of(v.items[i], at));
    }
    return shape;
  }
  if (v.k == K::Int) return {v.i};
  fail(at.span, fmt::format("'{}': a shape tuple was expected here", print_expr(at)));
}

// The values of `e` over the loops' values: exact (every combination evaluated) when the loops it
// uses have at most 1<<14 combinations, else IExpr::bounds (sound, not always tight: the ragged
// `r0 + min(128, n - r0)` of a last tile would look out of range).
static std::optional<std::pair<int64_t, int64_t>> value_range(const IExpr& e, const Ranges& rg) {
  std::vector<int> vars = e.vars();
  int64_t combos = 1;
  for (int v : vars) {
    auto it = rg.find(v);
    if (it == rg.end() || it->second.second < it->second.first) return e.bounds(rg);
    combos *= it->second.second - it->second.first + 1;
    if (combos > (1 << 14)) return e.bounds(rg);
  }
  std::map<int, int64_t> at;
  for (int v : vars) at[v] = rg.at(v).first;
  std::optional<std::pair<int64_t, int64_t>> out;
  for (int64_t c = 0; c < combos; ++c) {
    auto x = e.eval(at);
    if (!x) return e.bounds(rg);
    out = out ? std::make_pair(std::min(out->first, *x), std::max(out->second, *x)) : std::make_pair(*x, *x);
    for (int v : vars) {  // the next combination
      if (++at[v] <= rg.at(v).second) break;
      at[v] = rg.at(v).first;
    }
  }
  return out;
}

// Item `index` of a host sequence whose items step alike (`col_offsets[j]` of `[j * COLS for j in
// range(n)]`: integers a + b * k; `v_blk[k]` of `[v_all[:, j * subs + s, :] for s in range(subs)]`:
// views of one tensor whose starts step by the same amounts), for an index the loops give within
// the sequence: the first item stepped `index` times. nullopt when the items do not step alike.
static std::optional<AValue> progression_item(const std::vector<AValue>& items, const IExpr& index, const Ranges& rg) {
  using K = AValue::K;
  if (items.empty()) return std::nullopt;
  const int64_t n = static_cast<int64_t>(items.size());
  auto r = value_range(index, rg);
  if (!r || r->first < 0 || r->second >= n) return std::nullopt;
  const AValue& first = items[0];
  if (first.k == K::Int) {
    for (const auto& v : items)
      if (v.k != K::Int) return std::nullopt;
    const IExpr step = n > 1 ? items[1].i - first.i : IExpr(0);
    if (!step.is_constant()) return std::nullopt;
    for (int64_t k = 0; k < n; ++k)
      if (items[static_cast<size_t>(k)].i != first.i + step * k) return std::nullopt;
    return AValue::of_int(first.i + index * step.constant());
  }
  if (first.k == K::Tile) {
    std::vector<int64_t> step(first.access.dims.size(), 0);
    for (int64_t k = 0; k < n; ++k) {
      const AValue& v = items[static_cast<size_t>(k)];
      if (v.k != K::Tile || v.access.tensor != first.access.tensor || v.access.rank != first.access.rank ||
          v.access.dims.size() != first.access.dims.size())
        return std::nullopt;
      for (size_t d = 0; d < step.size(); ++d) {
        const DimIndex &x = v.access.dims[d], &f = first.access.dims[d];
        if (x.terms.size() != f.terms.size()) return std::nullopt;
        for (size_t t = 0; t < x.terms.size(); ++t)
          if (x.terms[t].axis != f.terms[t].axis || !(x.terms[t].size == f.terms[t].size) ||
              x.terms[t].stride != f.terms[t].stride || x.terms[t].div != f.terms[t].div || x.terms[t].mod != f.terms[t].mod)
            return std::nullopt;
        IExpr diff = x.start - f.start;
        if (!diff.is_constant()) return std::nullopt;
        if (k == 1) step[d] = diff.constant();
        if (diff.constant() != step[d] * k) return std::nullopt;
      }
    }
    Access a = first.access;
    for (size_t d = 0; d < step.size(); ++d) a.dims[d].start = a.dims[d].start + index * step[d];
    return AValue::of_tile(std::move(a));
  }
  return std::nullopt;
}

// An index [lo, hi] (over the loops' values) within a dim of `size`, else a LiftError at `at`.
void Lifter::check_in_bounds(const IExpr& lo, const IExpr& hi, const IExpr& size, const Expr& at, const char* what) {
  if (guarded > 0) return;
  Ranges rg = ranges();
  auto l = value_range(lo, rg), h = value_range(hi, rg);
  if (!size.is_constant() || !l || !h) return;
  if (l->first < 0 || h->second >= size.constant())
    fail(at.span, fmt::format("'{}': the {} {} is out of bounds for a dim of size {}", print_expr(at), what,
                              l->first < 0 ? k.str(lo) : k.str(hi), size.constant()));
}

// Every access of an operation within its tensor (numpy semantics: no clipping), unless a mask
// limits the elements computed or a loop-dependent condition guards the statement; else a
// LiftError at the operand (as the language core reports an out-of-bound access).
void Lifter::check_access(const Access& a, const Expr& at) {
  const Tensor& t = k.tensor(a.tensor);
  if (guarded > 0 || a.dims.size() != t.shape.size() || t.list_loop >= 0) return;
  Ranges rg = ranges();
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const DimIndex& di = a.dims[d];
    if (!t.shape[d].is_constant()) continue;
    // The lowest and highest index as expressions of the loops (a ragged size and its start move
    // together), quasi-affine terms by their largest value.
    IExpr lo_e = di.start, hi_e = di.start;
    bool known = true;
    for (const auto& term : di.terms) {
      if (term.affine()) {
        IExpr reach = (term.size - IExpr(1)) * term.stride;
        (term.stride < 0 ? lo_e : hi_e) = (term.stride < 0 ? lo_e : hi_e) + reach;
        continue;
      }
      auto top = term.max_index();
      if (!top) known = false;
      else if (*top > 0) (term.stride < 0 ? lo_e : hi_e) = (term.stride < 0 ? lo_e : hi_e) + IExpr(term.stride * *top);
    }
    auto l = value_range(lo_e, rg), h = value_range(hi_e, rg);
    if (!known || !l || !h) continue;
    int64_t lo = l->first, hi = h->second;
    if (lo < 0 || hi >= t.shape[d].constant())
      fail(at.span, fmt::format("the access '{}' out of bounds: dim {} of '{}' has size {} but indices [{}, {}] are "
                                "accessed", print_expr(at), d, t.name, t.shape[d].constant(), lo, hi));
  }
}

// Subscripting a tile (or a tensor's whole access): basic items (integers, slices, `...`) or
// advanced ones (index grids and integers); the result is composed onto `base`.
Access Lifter::subscript(const Access& base, const Expr& index, const Expr& at, std::shared_ptr<AValue>* gather) {
  std::vector<const Expr*> items;
  if (index.kind == ExprKind::Tuple) {
    for (auto& e : static_cast<const SequenceExpr&>(index).elts) items.push_back(e.get());
  } else {
    items.push_back(&index);
  }
  std::vector<IExpr> sizes = base.tile_shape();
  size_t rank = sizes.size();
  // Expand `...` into full slices.
  std::vector<AValue> vals;
  for (size_t j = 0; j < items.size(); ++j) {
    if (items[j]->kind == ExprKind::Slice) {
      auto& s = static_cast<const SliceExpr&>(*items[j]);
      AValue sv;
      sv.k = K::Slice;
      sv.items = {s.lower ? eval(*s.lower) : AValue::of_kind(K::None), s.upper ? eval(*s.upper) : AValue::of_kind(K::None),
                  s.step ? eval(*s.step) : AValue::of_kind(K::None)};
      vals.push_back(std::move(sv));
      continue;
    }
    AValue v = eval(*items[j]);
    // `x[idx]` with `idx = (slice(r0, r1), slice(c0, c1))` bound before (an index map returning the
    // block's tuple): Python indexes with the tuple's items, as if written in the brackets.
    if (index.kind != ExprKind::Tuple && v.k == K::Tuple) {
      bool ellipsis = std::any_of(v.items.begin(), v.items.end(), [](const AValue& x) { return x.k == K::Ellipsis; });
      if (ellipsis) fail(at.span, fmt::format("'{}': a tuple index holding '...'", print_expr(at)));
      for (auto& x : v.items) vals.push_back(x);
      continue;
    }
    if (v.k == K::Ellipsis) {
      size_t fill = rank + 1 > items.size() ? rank + 1 - items.size() : 0;
      for (size_t f = 0; f < fill; ++f) {
        AValue sv;
        sv.k = K::Slice;
        sv.items = {AValue::of_kind(K::None), AValue::of_kind(K::None), AValue::of_kind(K::None)};
        vals.push_back(std::move(sv));
      }
      continue;
    }
    vals.push_back(std::move(v));
  }
  if (vals.size() > rank) fail(at.span, fmt::format("'{}': more indices than the tile has dims ({})", print_expr(at), rank));
  bool advanced = std::any_of(vals.begin(), vals.end(), [](const AValue& v) { return v.k == K::Grid; });
  (advanced ? grid_statements : slice_statements)++;
  int grid_ndim = 0;
  for (const auto& v : vals)
    if (v.k == K::Grid) grid_ndim = std::max(grid_ndim, v.grid.ndim);
  // The index each base axis gets: a start and terms on the new tile's axes.
  std::vector<DimIndex> idx(rank);
  int next_axis = 0;
  for (size_t j = 0; j < rank; ++j) {
    if (j >= vals.size()) {
      if (advanced) fail(at.span, fmt::format("'{}': index grids must index every dim", print_expr(at)));
      idx[j] = {IExpr(0), {{next_axis++, sizes[j], 1}}};
      continue;
    }
    const AValue& v = vals[j];
    switch (v.k) {
      case K::Int: case K::Bool: {
        // Python's negative indices count from the end; out of range is an error, as the language
        // core reports it (tensor_access.cpp), for every value the loops give the index.
        IExpr i = int_of(v, at);
        if (i.is_constant() && i.constant() < 0 && sizes[j].is_constant()) i = sizes[j] + i;
        check_in_bounds(i, i, sizes[j], at, "index");
        idx[j] = {i, {}};
        break;
      }
      case K::Slice: {
        if (advanced) fail(at.span, fmt::format("'{}': slices mixed with index grids", print_expr(at)));
        IExpr lo = v.items[0].k == K::None ? IExpr(0) : int_of(v.items[0], at);
        IExpr hi = v.items[1].k == K::None ? sizes[j] : int_of(v.items[1], at);
        int64_t step = v.items[2].k == K::None ? 1 : int_of(v.items[2], at).constant();
        if (step == 0) fail(at.span, "a slice with a step of zero");
        if (step < 0) {
          idx[j] = backward_slice(v, sizes[j], step, at, next_axis++);
          break;
        }
        if (lo.is_constant() && lo.constant() < 0 && sizes[j].is_constant()) lo = sizes[j] + lo;
        if (hi.is_constant() && hi.constant() < 0 && sizes[j].is_constant()) hi = sizes[j] + hi;
        // Reaching past either end is an error, not clipped (the NKI compiler reports it; the
        // language core does too), and so is a non-empty slice starting at the end.
        IExpr size = step == 1 ? hi - lo : IExpr::floordiv(hi - lo + IExpr(step - 1), step, nullptr);
        Ranges rg = ranges();
        auto lb = value_range(lo, rg), hb = value_range(hi, rg), nb = value_range(size, rg);
        std::optional<int64_t> n = sizes[j].is_constant() ? std::optional<int64_t>(sizes[j].constant()) : std::nullopt;
        if (guarded == 0 && ((lb && lb->first < 0) || (hb && n && hb->second > *n) || (nb && nb->first < 0) ||
            (lb && n && nb && nb->second > 0 && lb->second >= *n)))
          fail(at.span, fmt::format("'{}': the slice [{}:{}] reaches out of a dim of size {}", print_expr(at),
                                    k.str(lo), k.str(hi), k.str(sizes[j])));
        idx[j] = {lo, {{next_axis++, size, step}}};
        break;
      }
      case K::Grid: {
        if (v.grid.ndim == 0) fail(at.span, fmt::format("'{}': a 1-D nl.arange needs [:, None] to place its axis", print_expr(at)));
        DimIndex d{v.grid.base, {}};
        for (const auto& [pos, ax] : v.grid.axes)
          d.terms.push_back({pos + (grid_ndim - v.grid.ndim), ax.size, ax.coef, ax.div, ax.mod});
        idx[j] = std::move(d);
        break;
      }
      case K::Tile: {
        // Indirect DMA (nki-language.md 7.1, nl.load: "an SBUF index tile can index the
        // partition/block dim of the HBM view"): the rows are data read at run time, so the access
        // has no affine form. Where the caller takes a gather (a DMA's source, Lifter::apply), the
        // dim gets the tile's rows as an axis (the gathered tile's shape) and the index tile goes
        // back to the caller; anywhere else, and on a dim other than the view's first, refused.
        const Expr& ix = *items[std::min(j, items.size() - 1)];
        auto refuse = [&](const std::string& why) {
          fail(ix.span, fmt::format("'{}': an indirect (index-tile) access, whose rows are read from a tile at run time, "
                                    "as an index{}", print_expr(at), why));
        };
        if (!gather) refuse("");
        if (*gather) refuse(" (a second index tile)");
        if (k.tensor(base.tensor).on_chip()) refuse(" of an on-chip tile (only an HBM view's rows are gathered)");
        for (size_t e = 0; e < j; ++e)
          if (vals[e].k != K::Int && vals[e].k != K::Bool) refuse(" on a dim after the view's first (the partition dim)");
        std::vector<IExpr> ishape = v.access.tile_shape();
        bool column = !ishape.empty();
        for (size_t e = 1; e < ishape.size(); ++e) column = column && ishape[e] == IExpr(1);
        if (!column || !k.tensor(v.access.tensor).on_chip())
          refuse(" (the index tile must be an on-chip [P, 1] tile, one row index per partition)");
        *gather = std::make_shared<AValue>(v);
        idx[j] = {IExpr(0), {{advanced ? 0 : next_axis++, ishape[0], 1}}};
        break;
      }
      default: fail(items[std::min(j, items.size() - 1)]->span, fmt::format("'{}' as an index", print_expr(at)));
    }
  }
  // Compose: base dim d is start_d + sum stride * axis_a; axis_a := idx[a].
  Access out;
  out.tensor = base.tensor;
  if (advanced) out.rank = grid_ndim;
  for (const DimIndex& d : base.dims) {
    DimIndex nd{d.start, {}};
    for (const AxisTerm& t : d.terms) {
      const DimIndex& sub = idx[static_cast<size_t>(t.axis)];
      if (!t.affine()) {
        // A quasi-affine view indexed again: only its whole axis (as it is) composes.
        bool same = sub.start == IExpr(0) && sub.terms.size() == 1 && sub.terms[0].affine() &&
                    sub.terms[0].stride == 1 && sub.terms[0].size == t.size;
        if (!same) fail(at.span, fmt::format("'{}': a part of a quasi-affine view", print_expr(at)));
        AxisTerm x = t;
        x.axis = sub.terms[0].axis;
        nd.terms.push_back(x);
        continue;
      }
      nd.start = nd.start + sub.start * t.stride;
      for (const AxisTerm& u : sub.terms) nd.terms.push_back({u.axis, u.size, u.stride * t.stride, u.div, u.mod});
    }
    out.dims.push_back(std::move(nd));
  }
  return out;
}

std::optional<bool> host_truth(const AValue& v) {
  using K = AValue::K;
  switch (v.k) {
    case K::Bool: return v.b;
    case K::None: return false;
    case K::Int: return v.i.is_constant() ? std::optional<bool>(v.i.constant() != 0) : std::nullopt;
    case K::Float: return v.f != 0;
    case K::Str: return !v.s.empty();
    case K::Tuple: case K::List: case K::Set: return !v.items.empty();
    case K::Dict: return !v.keys.empty();
    default: return std::nullopt;
  }
}

// An expression the lift's own rules cannot evaluate may still be a host value the kernel's
// Python computes at trace time (lift_fold.cpp): calls, attributes and subscripts get a second
// try through the language core before the refusal stands; so does arithmetic, which the lift's
// rules do not do on a host array (`np.arange(N, dtype=np.float32).reshape(1, N) / N`).
AValue Lifter::eval(const Expr& e) {
  if (e.kind != ExprKind::Call && e.kind != ExprKind::Attribute && e.kind != ExprKind::Subscript &&
      e.kind != ExprKind::BinOp && e.kind != ExprKind::UnaryOp)
    return eval_node(e);
  try {
    return eval_node(e);
  } catch (const LiftError&) {
    if (auto v = host_fold(e)) return *v;
    throw;
  }
}

AValue Lifter::eval_node(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name: {
      const std::string& id = static_cast<const NameExpr&>(e).id;
      if (auto it = env.find(id); it != env.end()) {
        auto bb = branch_bound.find(id);
        if (bb != branch_bound.end() && it->second.k == K::Tile && it->second.access.tensor == bb->second)
          reads_branch_bound = true;
        return it->second;
      }
      if (auto it = globals.find(id); it != globals.end()) return it->second;
      AValue b = builtin(id);
      if (b.k != K::Unknown) return b;
      fail(e.span, fmt::format("the name '{}' (not defined in the kernel or its module)", id));
    }
    case ExprKind::FString: {
      // An f-string of host values (an assertion's or a __repr__'s text): its fields evaluated here
      // (an instance's attribute, a shape), then formatted by the language core as Python does.
      std::vector<std::optional<std::string>> fields;
      for (const auto& part : static_cast<const FStringExpr&>(e).parts) {
        if (!part.expr) continue;
        AValue v = eval(*part.expr);
        fields.push_back(py_literal(v));
        if (!fields.back()) fail(part.expr->span, fmt::format("the f-string field '{}' (not a host value)", print_expr(*part.expr)));
      }
      if (auto v = format_fstring(static_cast<const FStringExpr&>(e), fields)) return *v;
      fail(e.span, fmt::format("the expression '{}'", print_expr(e)));
    }
    case ExprKind::Constant: {
      const Value& v = static_cast<const ConstantExpr&>(e).value;
      if (v.is_none()) return AValue::of_kind(K::None);
      if (v.is_bool()) return AValue::of_bool(v.as_bool());
      if (v.is_int()) return AValue::of_int(v.as_int());
      if (v.is_float()) return AValue::of_float(v.as_float());
      if (v.is(ObjType::Ellipsis)) return AValue::of_kind(K::Ellipsis);
      if (auto* str = v.as<StrObj>()) return AValue::of_kind(K::Str, str->s);
      fail(e.span, "this constant");
    }
    case ExprKind::Attribute: {
      auto& a = static_cast<const AttributeExpr&>(e);
      AValue base = eval(*a.value);
      if (base.k == K::Module) return module_attr(base.s, a.attr);
      if (base.k == K::Tile) {
        if (a.attr == "shape") {
          std::vector<AValue> items;
          for (auto& s : base.access.tile_shape()) items.push_back(AValue::of_int(s));
          return AValue::of_tuple(std::move(items));
        }
        if (a.attr == "dtype") return AValue::of_kind(K::DType, k.tensor(base.access.tensor).dtype);
        if (a.attr == "ndim") return AValue::of_int(static_cast<int64_t>(base.access.tile_shape().size()));
        if (a.attr == "itemsize") {
          auto dt = tensor::parse_dtype(k.tensor(base.access.tensor).dtype);
          if (!dt) fail(e.span, fmt::format("'{}' of a tensor whose dtype is not known", print_expr(e)));
          return AValue::of_int(tensor::itemsize(*dt));
        }
        if (a.attr == "size") {  // the element count
          int64_t n = 1;
          for (auto& s : base.access.tile_shape()) {
            if (!s.is_constant()) fail(e.span, fmt::format("'{}' of a view whose shape depends on a loop", print_expr(e)));
            n *= s.constant();
          }
          return AValue::of_int(n);
        }
        AValue m = AValue::of_kind(K::Method, a.attr);
        m.self = std::make_shared<AValue>(base);
        return m;
      }
      if (base.k == K::Tuple && (a.attr == "p" || a.attr == "x" || a.attr == "y" || a.attr == "z")) {
        size_t i = a.attr == "p" ? 0 : a.attr == "x" ? 1 : a.attr == "y" ? 2 : 3;
        if (i < base.items.size()) return base.items[i];
      }
      // A dtype's data attributes (numpy's): `2048 // dt.itemsize`, `dt.name`.
      if (base.k == K::DType && (a.attr == "itemsize" || a.attr == "name")) {
        auto d = tensor::parse_dtype(base.s);
        if (!d) fail(e.span, fmt::format("the attribute '{}' of the dtype '{}'", a.attr, base.s));
        if (a.attr == "itemsize") return AValue::of_int(static_cast<int64_t>(tensor::itemsize(*d)));
        std::string name(tensor::name(*d));
        return AValue::of_kind(K::Str, name == "bool" ? "bool" : name);
      }
      if (base.k == K::DType || base.k == K::List || base.k == K::Tuple || base.k == K::Dict || base.k == K::Set) {
        AValue m = AValue::of_kind(K::Method, a.attr);
        m.self = std::make_shared<AValue>(base);
        return m;
      }
      if (base.k == K::Func && base.s == "numpy.dtype") return AValue::of_kind(K::Func, "numpy.dtype." + a.attr);
      if (base.k == K::Instance) return instance_attr(base, a.attr, e);
      if (base.k == K::Class) return class_attr(base.s, a.attr, e);
      fail(e.span, fmt::format("the attribute '{}'", print_expr(e)));
    }
    case ExprKind::Call: return call(static_cast<const CallExpr&>(e));
    case ExprKind::Subscript: {
      auto& s = static_cast<const SubscriptExpr&>(e);
      // `nl.mgrid[...]`, or `mgrid[...]` with the name imported from nki.language.
      bool attr_mgrid = s.value->kind == ExprKind::Attribute && static_cast<const AttributeExpr&>(*s.value).attr == "mgrid";
      bool name_mgrid = s.value->kind == ExprKind::Name;
      if (attr_mgrid || name_mgrid) {
        AValue m = attr_mgrid ? eval(*static_cast<const AttributeExpr&>(*s.value).value) : eval(*s.value);
        if ((attr_mgrid && m.k == K::Module && m.s == "nki.language") ||
            (name_mgrid && m.k == K::Func && m.s == "nki.language.mgrid")) {
          std::vector<const Expr*> items;
          if (s.index->kind == ExprKind::Tuple)
            for (auto& x : static_cast<const SequenceExpr&>(*s.index).elts) items.push_back(x.get());
          else
            items.push_back(s.index.get());
          std::vector<AValue> grids;
          std::vector<IExpr> dense;
          for (size_t i = 0; i < items.size(); ++i) {
            if (items[i]->kind != ExprKind::Slice) fail(items[i]->span, "an nl.mgrid item that is not a slice");
            auto& sl = static_cast<const SliceExpr&>(*items[i]);
            IExpr lo = sl.lower ? int_of(*sl.lower) : IExpr(0), hi = int_of(*sl.upper);
            AValue g;
            g.k = K::Grid;
            g.grid.ndim = static_cast<int>(items.size());
            g.grid.base = lo;
            g.grid.axes.emplace(static_cast<int>(i), Grid::Axis{1, hi - lo});
            dense.push_back(hi - lo);
            grids.push_back(std::move(g));
          }
          for (AValue& g : grids) g.grid.dense = dense;
          return AValue::of_tuple(std::move(grids));
        }
      }
      AValue base = eval(*s.value);
      if (base.k == K::Func && base.s.rfind("user.", 0) == 0 && base.items.empty()) {
        // `kernel_[2, 2]`: an SPMD launch of a kernel of the module over a grid of programs.
        AValue launch = base;
        std::vector<const Expr*> dims;
        if (s.index->kind == ExprKind::Tuple)
          for (auto& x : static_cast<const SequenceExpr&>(*s.index).elts) dims.push_back(x.get());
        else
          dims.push_back(s.index.get());
        for (const Expr* d : dims) {
          AValue v = eval(*d);
          if (dims.size() == 1 && (v.k == K::Tuple || v.k == K::List)) {  // `kernel_[grid]`, grid a tuple
            for (const AValue& x : v.items) launch.items.push_back(AValue::of_int(int_of(x, *d)));
            continue;
          }
          launch.items.push_back(AValue::of_int(int_of(v, *d)));
        }
        return launch;
      }
      if (base.k == K::Tile) {
        if (base.gather) fail(e.span, fmt::format("'{}': a subscript of an indirect (index-tile) access", print_expr(e)));
        std::shared_ptr<AValue> gather;
        AValue r = AValue::of_tile(subscript(base.access, *s.index, e, &gather));
        r.gather = std::move(gather);
        return r;
      }
      if (base.k == K::Grid && base.grid.ndim == 0) {
        // nl.arange(n)[:, None]: the position of ':' is the axis, the item count the ndim.
        std::vector<const Expr*> items;
        if (s.index->kind == ExprKind::Tuple)
          for (auto& x : static_cast<const SequenceExpr&>(*s.index).elts) items.push_back(x.get());
        else
          items.push_back(s.index.get());
        AValue g = base;
        g.grid.ndim = static_cast<int>(items.size());
        if (base.grid.axes.empty()) fail(s.index->span, "an index grid without an axis placed by a subscript");
        g.grid.axes.clear();
        int placed = 0;
        for (size_t i = 0; i < items.size(); ++i) {
          if (items[i]->kind == ExprKind::Slice) {
            for (const auto& [pos, ax] : base.grid.axes) g.grid.axes.emplace(static_cast<int>(i), ax);
            ++placed;
          } else if (!(items[i]->kind == ExprKind::Constant && static_cast<const ConstantExpr&>(*items[i]).value.is_none())) {
            fail(items[i]->span, "an nl.arange subscript other than ':' and None");
          }
        }
        if (placed != 1) fail(s.index->span, "an nl.arange subscript without exactly one ':'");
        return g;
      }
      if (const Tensor* lt = list_tensor(base)) {
        // scores[m]: block m of the list's tensor. A list of lists is one level of it: the levels
        // outside it are the iterations of their loops the subscript is in (`block_tiles[bm]`
        // inside the m loop is result_tiles[m][bm]).
        const Tensor& t = *lt;
        std::vector<std::pair<std::string, int>> lists = t.outer_lists;
        lists.push_back({t.list_name, t.list_loop});
        size_t level = 0;
        if (s.value->kind == ExprKind::Name)
          for (size_t i = 0; i < lists.size(); ++i)
            if (lists[i].first == static_cast<const NameExpr&>(*s.value).id) level = i;
        Access list;
        list.tensor = t.id;
        for (size_t d = 0; d < t.shape.size(); ++d) {
          if (d < level) list.dims.push_back({IExpr::var(lists[d].second), {}});
          else list.dims.push_back({IExpr(0), {{static_cast<int>(d - level), t.shape[d], 1}}});
        }
        return AValue::of_tile(subscript(list, *s.index, e));
      }
      if (base.k == K::Dict) {
        AValue key = eval(*s.index);
        if (const AValue* v = dict_get(base, key)) return *v;
        fail(s.index->span, fmt::format("'{}': the key is not in the dict", print_expr(e)));
      }
      if ((base.k == K::Tuple || base.k == K::List) && s.index->kind == ExprKind::Slice)
        return sequence_slice(base, static_cast<const SliceExpr&>(*s.index), e);
      if (base.k == K::Tuple || base.k == K::List) {
        AValue i = eval(*s.index);
        // An item of a list of numbers a loop fills with tiles (lift_filled_list.cpp).
        if (base.k == K::List && s.value->kind == ExprKind::Name)
          if (auto v = read_filled(static_cast<const NameExpr&>(*s.value).id, base, i, e)) return *v;
        if (i.k == K::Int && i.i.is_constant()) {
          int64_t n = static_cast<int64_t>(base.items.size()), x = i.i.constant();
          if (x < 0) x += n;
          if (x < 0 || x >= n) fail(e.span, fmt::format("'{}': index out of range", print_expr(e)));
          return base.items[static_cast<size_t>(x)];
        }
        if (i.k == K::Int)
          if (auto item = progression_item(base.items, i.i, ranges())) return *item;
        // `outs[k]` in `for k in range(3)`: the loop may still lift as its copies, each with its
        // item (for_loop), as the trace runs it.
        if (i.k == K::Int) per_iteration_host_refused = true;
        fail(e.span, fmt::format("'{}': a {} indexed by a loop-dependent value", print_expr(e),
                                 base.k == K::List ? "Python list" : "tuple"));
      }
      fail(e.span, fmt::format("the subscript '{}'", print_expr(e)));
    }
    case ExprKind::Dict: return dict_display(static_cast<const DictExpr&>(e));
    case ExprKind::Lambda: return lambda(static_cast<const LambdaExpr&>(e));
    case ExprKind::Tuple: case ExprKind::List: {
      std::vector<AValue> items;
      for (auto& x : static_cast<const SequenceExpr&>(e).elts) items.push_back(eval(*x));
      AValue t = AValue::of_tuple(std::move(items));
      if (e.kind == ExprKind::List) t.k = K::List;
      return t;
    }
    case ExprKind::UnaryOp: {
      auto& u = static_cast<const UnaryOpExpr&>(e);
      AValue v = eval(*u.operand);
      if (u.op == UnOp::Neg) {
        if (v.k == K::Int) return AValue::of_int(-v.i);
        if (v.k == K::Float) return AValue::of_float(-v.f, v.type);
        if (v.k == K::Grid) { AValue g = v; g.grid = grid_scale(v.grid, -1); return g; }
        // `-a` of a tile is nl.negative, as `a * b` is nl.multiply.
        if (v.k == K::Tile) return apply("nl.negative", {{"x", v}}, {{"x", u.operand.get()}}, e, nullptr);
      }
      if (u.op == UnOp::Pos) return v;
      if (u.op == UnOp::Invert) {
        // `~a` of a tile is nl.invert, as the language core runs it (nki_tensor.cpp unary_op); of a
        // Python int, Python's `-a - 1`.
        if (v.k == K::Tile) return apply("nl.invert", {{"x", v}}, {{"x", u.operand.get()}}, e, nullptr);
        if (v.k == K::Int) return AValue::of_int(-v.i - IExpr(1));
        if (v.k == K::Bool) return AValue::of_int(IExpr(v.b ? -2 : -1));
      }
      if (u.op == UnOp::Not) {
        if (auto t = host_truth(v)) return AValue::of_bool(!*t);
        // `not first` of a loop-dependent condition (`first = k == 0`): the opposite comparison.
        if (v.k == K::Cond) {
          static constexpr Cmp kOpposite[] = {Cmp::Ge, Cmp::Gt, Cmp::Le, Cmp::Lt, Cmp::Ne, Cmp::Eq};
          v.cmp = kOpposite[static_cast<size_t>(v.cmp)];
          return v;
        }
      }
      fail(e.span, fmt::format("the unary operation '{}'", print_expr(e)));
    }
    case ExprKind::BinOp: {
      auto& b = static_cast<const BinOpExpr&>(e);
      AValue l = eval(*b.left), r = eval(*b.right);
      bool li = l.k == K::Int || l.k == K::Bool, ri = r.k == K::Int || r.k == K::Bool;
      if (li && ri) {
        IExpr a = int_of(l, *b.left), c = int_of(r, *b.right);
        Ranges rg = ranges();
        switch (b.op) {
          case BinOp::Add: return AValue::of_int(a + c);
          case BinOp::Sub: return AValue::of_int(a - c);
          case BinOp::Mul:
            if (auto p = a.times(c)) return AValue::of_int(*p);
            fail(e.span, fmt::format("the non-affine product '{}'", print_expr(e)));
          case BinOp::FloorDiv:
            if (c.is_constant() && c.constant() != 0) return AValue::of_int(IExpr::floordiv(a, c.constant(), &rg));
            fail(e.span, fmt::format("'{}': division by a loop-dependent value", print_expr(e)));
          case BinOp::Mod:
            if (c.is_constant() && c.constant() != 0) return AValue::of_int(IExpr::mod(a, c.constant(), &rg));
            fail(e.span, fmt::format("'{}': remainder by a loop-dependent value", print_expr(e)));
          case BinOp::Div:
            if (a.is_constant() && c.is_constant() && c.constant() != 0)
              return AValue::of_float(static_cast<double>(a.constant()) / static_cast<double>(c.constant()));
            break;
          case BinOp::Pow:
            if (a.is_constant() && c.is_constant() && c.constant() >= 0) {
              int64_t p = 1;
              for (int64_t i = 0; i < c.constant(); ++i) p *= a.constant();
              return AValue::of_int(p);
            }
            break;
          default: break;
        }
        // Bit operations on constants (`(1 << n_log2) - 1`, `flags & 0xFF`): plain Python ints.
        if (a.is_constant() && c.is_constant()) {
          int64_t x = a.constant(), y = c.constant();
          switch (b.op) {
            case BinOp::LShift: if (y >= 0 && y < 63) return AValue::of_int(IExpr(x << y)); break;
            case BinOp::RShift: if (y >= 0) return AValue::of_int(IExpr(y < 63 ? x >> y : (x < 0 ? -1 : 0))); break;
            case BinOp::BitAnd: return AValue::of_int(IExpr(x & y));
            case BinOp::BitOr: return AValue::of_int(IExpr(x | y));
            case BinOp::BitXor: return AValue::of_int(IExpr(x ^ y));
            default: break;
          }
        }
        fail(e.span, fmt::format("the integer operation '{}'", print_expr(e)));
      }
      // `1.0 + pid_r + 0.5 * pid_c`: float arithmetic on the program ids of an SPMD launch, which no
      // transformation moves, is a value kept as the text of its use; on a loop variable it has no
      // form (operand expressions are integer).
      auto program_float = [&](const AValue& v, bool is_int) {
        return (v.k == K::Float && v.type == "program") || (is_int && !v.i.is_constant());
      };
      if ((l.k == K::Float || li) && (r.k == K::Float || ri) && (program_float(l, li) || program_float(r, ri))) {
        if ((li && depends_on_loops(l)) || (ri && depends_on_loops(r))) {
          // `k * 1.0` in `for k in nl.sequential_range(4)`: the loop may still lift as its copies
          // (for_loop), each with k a host int, as the trace runs it.
          per_iteration_host_refused = true;
          fail(e.span, fmt::format("the float operation '{}' on a loop variable", print_expr(e)));
        }
        return AValue::of_float(NAN, "program");
      }
      bool lf = l.k == K::Float || (li && l.i.is_constant()), rf = r.k == K::Float || (ri && r.i.is_constant());
      if (lf && rf) {
        double x = l.k == K::Float ? l.f : static_cast<double>(l.i.constant());
        double y = r.k == K::Float ? r.f : static_cast<double>(r.i.constant());
        std::string type = l.k == K::Float ? l.type : r.type;
        switch (b.op) {
          case BinOp::Add: return AValue::of_float(x + y, type);
          case BinOp::Sub: return AValue::of_float(x - y, type);
          case BinOp::Mul: return AValue::of_float(x * y, type);
          case BinOp::Div: return AValue::of_float(x / y, type);
          case BinOp::Pow: return AValue::of_float(std::pow(x, y), type);
          default: break;
        }
        fail(e.span, fmt::format("the float operation '{}'", print_expr(e)));
      }
      bool lg = l.k == K::Grid || li, rg = r.k == K::Grid || ri;
      if (lg && rg && (l.k == K::Grid || r.k == K::Grid)) {
        AValue g;
        g.k = K::Grid;
        if (b.op == BinOp::Add || b.op == BinOp::Sub) {
          g.grid = grid_add(grid_of(l), grid_of(r), b.op == BinOp::Add ? 1 : -1);
          if ((l.k == K::Grid && l.grid.ndim == 0) || (r.k == K::Grid && r.grid.ndim == 0)) g.grid.ndim = 0;
          return g;
        }
        if ((b.op == BinOp::FloorDiv || b.op == BinOp::Mod) && l.k == K::Grid && ri && r.i.is_constant()) {
          // `i_f // 128`, `i_f % 128`: a quasi-affine index (the axis split over two dims).
          Ranges rgs = ranges();
          if (auto q = grid_quasi(l.grid, r.i.constant(), b.op == BinOp::Mod, rgs)) {
            g.grid = *q;
            return g;
          }
        }
        if (b.op == BinOp::Mul && (li || ri)) {
          IExpr c = li ? l.i : r.i;
          if (c.is_constant()) {
            g.grid = grid_scale(li ? r.grid : l.grid, c.constant());
            return g;
          }
        }
        fail(e.span, fmt::format("the index-grid operation '{}'", print_expr(e)));
      }
      if (l.k == K::Pred && r.k == K::Pred && b.op == BinOp::BitAnd) {
        AValue p = l;
        p.pred.insert(p.pred.end(), r.pred.begin(), r.pred.end());
        return p;
      }
      if ((l.k == K::Tuple || l.k == K::List) && ri && b.op == BinOp::Mul) {  // `["rest"] * (n - 1)`
        IExpr n = int_of(r, *b.right);
        if (!n.is_constant()) fail(e.span, fmt::format("'{}': a sequence repeated a loop-dependent number of times", print_expr(e)));
        AValue t = l;
        t.items.clear();
        for (int64_t i = 0; i < n.constant(); ++i) t.items.insert(t.items.end(), l.items.begin(), l.items.end());
        return t;
      }
      if ((l.k == K::Tuple || l.k == K::List) && (r.k == K::Tuple || r.k == K::List) && b.op == BinOp::Add) {
        AValue t = l;
        t.items.insert(t.items.end(), r.items.begin(), r.items.end());
        return t;
      }
      if (auto s = set_binary(l, b.op, r, e)) return *s;
      if (l.k == K::Tile || r.k == K::Tile) {
        static const std::map<BinOp, const char*> ops = {{BinOp::Add, "nl.add"}, {BinOp::Sub, "nl.subtract"},
                                                         {BinOp::Mul, "nl.multiply"}, {BinOp::Div, "nl.divide"},
                                                         {BinOp::Pow, "nl.power"}, {BinOp::BitAnd, "nl.bitwise_and"},
                                                         {BinOp::BitOr, "nl.bitwise_or"}, {BinOp::BitXor, "nl.bitwise_xor"},
                                                         {BinOp::LShift, "nl.left_shift"}, {BinOp::RShift, "nl.right_shift"}};
        if (auto it = ops.find(b.op); it != ops.end()) {
          return apply(it->second, {{"x", l}, {"y", r}}, {{"x", b.left.get()}, {"y", b.right.get()}}, e, nullptr);
        }
      }
      fail(e.span, fmt::format("the operation '{}'", print_expr(e)));
    }
    case ExprKind::Compare: {
      auto& c = static_cast<const CompareExpr&>(e);
      if (c.ops.size() == 1) return compare(eval(*c.left), c.ops[0], eval(*c.comparators[0]), *c.left, *c.comparators[0], e);
      // A chain `a == b == c` (shape and dtype checks): every link must be known when lifting.
      // A link comparing loop variables (`1 <= s < T + 1`) joins the others as `and` does.
      AValue l = eval(*c.left);
      const Expr* le = c.left.get();
      bool all = true;
      std::optional<AValue> cond;
      for (size_t i = 0; i < c.ops.size(); ++i) {
        AValue r = eval(*c.comparators[i]);
        AValue link = compare(l, c.ops[i], r, *le, *c.comparators[i], e);
        if (link.k == K::Cond) cond = cond ? cond_join(*cond, link, true) : link;
        else if (link.k != K::Bool) fail(e.span, "a chained comparison whose links are not known when lifting");
        else all = all && link.b;
        l = std::move(r);
        le = c.comparators[i].get();
      }
      if (cond && all) return *cond;
      return AValue::of_bool(all);
    }
    case ExprKind::BoolOp: {
      // Python's and/or: evaluated left to right, stopping at the first operand that decides,
      // which is the value (`rows or 128`, `x is not None and x.shape[0] > 1`).
      // One operand may be a comparison of loop variables (`t == ntiles - 1 and n % 128 != 0`, a
      // first version's ragged last tile) when the operands after it are True or False: `c and
      // True` and `c or False` are `c`, `c and False` is False and `c or True` is True, as values
      // too. The last operand is the value as it is (`rows > 0 and t == last`).
      auto& b = static_cast<const BoolOpExpr&>(e);
      AValue x;
      std::optional<AValue> cond;
      for (size_t i = 0; i < b.values.size(); ++i) {
        const Expr& v = *b.values[i];
        x = eval(v);
        if (i + 1 == b.values.size() && !cond) return x;
        auto t = host_truth(x);
        if (!t && x.k == K::Cond && !cond) {
          cond = x;
          continue;
        }
        if (!t && x.k == K::Cond && cond) {  // `s >= 1 and s - 1 < T`: both comparisons, one condition
          cond = cond_join(*cond, x, b.is_and);
          continue;
        }
        if (!t || (cond && x.k != K::Bool))
          fail(v.span, fmt::format("'{}' as a condition of and/or{}", print_expr(v),
                                   cond ? " after a comparison of loop variables (only True or False may follow it)"
                                        : ""));
        if (*t != b.is_and) return x;
      }
      return cond ? *cond : x;
    }
    case ExprKind::ListComp: case ExprKind::GeneratorExp: case ExprKind::DictComp:
      return comprehension(static_cast<const ComprehensionExpr&>(e));
    case ExprKind::SetComp: return make_set(comprehension(static_cast<const ComprehensionExpr&>(e)).items, e);
    case ExprKind::Set: {
      std::vector<AValue> items;
      for (auto& x : static_cast<const SequenceExpr&>(e).elts) items.push_back(eval(*x));
      return make_set(items, e);
    }
    case ExprKind::NamedExpr: {  // `(n := rows // 128)` binds n in the enclosing scope
      auto& x = static_cast<const NamedExpr&>(e);
      if (x.target->kind != ExprKind::Name) fail(x.target->span, "an assignment expression to something other than a name");
      AValue v = eval(*x.value);
      env[static_cast<const NameExpr&>(*x.target).id] = v;
      return v;
    }
    case ExprKind::IfExp: {
      auto& x = static_cast<const IfExpExpr&>(e);
      AValue t = eval(*x.test);
      if (auto truth = host_truth(t)) return *truth ? eval(*x.body) : eval(*x.orelse);
      if (t.k == K::Cond) {
        AValue a = eval(*x.body), b = eval(*x.orelse);
        if (auto choice = number_or_tile(t, a, b)) return *choice;
        // An instruction enum chosen per iteration (`reduce_cmd.reset_reduce if c == 0 else
        // reduce_cmd.reduce`) is the choice between the enum's integer values, which every API
        // taking it accepts.
        a = enum_as_int(a), b = enum_as_int(b);
        auto number = [](const AValue& v) { return v.k == K::Int || v.k == K::Bool || v.k == K::Float; };
        // A float on either side: the same number both ways is no choice (`0.0 if c == 0 else
        // state[r]` while a filled list's items are still its initial numbers); two different
        // ones are refused below, as operand expressions are integer.
        auto value = [](const AValue& v) -> std::optional<double> {
          if (v.k == K::Float) return v.f;
          if (v.k == K::Int && v.i.is_constant()) return static_cast<double>(v.i.constant());
          return std::nullopt;
        };
        if ((a.k == K::Float || b.k == K::Float) && value(a) && value(b) && *value(a) == *value(b))
          return a.k == K::Float ? a : b;
        if (!number(a) || !number(b) || a.k == K::Float || b.k == K::Float) {
          // `(nl.maximum if k == 0 else nl.minimum)(r, c)`: a function, dtype or string chosen per
          // iteration, or a float (`2.0 if i == 0 else 0.5`: operand expressions are integer); the
          // loop may still lift as its copies (for_loop).
          per_iteration_host_refused = true;
          fail(x.test->span, fmt::format("a choice between host values ('{}' or '{}') under the condition '{}' on a loop "
                                         "variable (one loop of the form holds one of them)",
                                         print_expr(*x.body), print_expr(*x.orelse), print_expr(*x.test)));
        }
        Ranges rg = ranges();
        return AValue::of_int(IExpr::select(t.cl, t.cmp, t.cr, int_of(a, *x.body), int_of(b, *x.orelse), &rg));
      }
      fail(x.test->span, fmt::format("the condition '{}'", print_expr(*x.test)));
    }
    default: break;
  }
  fail(e.span, fmt::format("the expression '{}'", print_expr(e)));
}

namespace {

// Whether the per-item template `t` (integers, tuples of them, of the variable kHostIndex) gives
// `item` at index `j`.
bool template_gives(const AValue& t, const AValue& item, int64_t j) {
  if (t.k == K::Int)
    return item.k == K::Int && item.i.is_constant() && t.i.substitute(kHostIndex, IExpr(j)) == item.i;
  if ((t.k != K::Tuple && t.k != K::List) || t.k != item.k || t.items.size() != item.items.size()) return false;
  for (size_t i = 0; i < t.items.size(); ++i)
    if (!template_gives(t.items[i], item.items[i], j)) return false;
  return true;
}

bool template_matches(const AValue& t, const std::vector<AValue>& items) {
  for (size_t j = 0; j < items.size(); ++j)
    if (!template_gives(t, items[j], static_cast<int64_t>(j))) return false;
  return true;
}

}  // namespace

// `[nl.ndarray((P, F), ...) for _ in range(2)]`: a list of fresh on-chip tiles of one shape, dtype
// and buffer (multi-buffering) is one tensor with the items along a leading dim (Tensor::host_list),
// declared once, so that an item chosen by a loop-dependent index (`bufs[i % 2]`, `tiles[i]`) is
// a block of it like any other access. The comprehension still prints as written.
bool Lifter::merge_fresh_tiles(std::vector<AValue>& items, std::vector<Node>& item_nodes) {
  using K = AValue::K;
  if (items.size() < 2 || item_nodes.size() != items.size()) return false;
  int first = -1;
  for (size_t i = 0; i < items.size(); ++i) {
    const AValue& v = items[i];
    const Node& n = item_nodes[i];
    if (v.k != K::Tile || !whole_access(v.access) || n.kind != NodeKind::Stmt || n.ops.size() != 1 ||
        !is_declaration(n.ops[0]))
      return false;
    const Op& op = n.ops[0];
    const int made = op.result >= 0 ? op.result : op.dst ? op.dst->tensor : -1;
    if (made != v.access.tensor) return false;
    const Tensor& t = k.tensor(made);
    if (!t.on_chip() || t.role == TensorRole::View || t.list_loop >= 0 || t.host_list || t.base >= 0) return false;
    if (first < 0) {
      first = made;
      continue;
    }
    const Tensor& f = k.tensor(first);
    if (t.shape != f.shape || t.dtype != f.dtype || t.memory != f.memory || t.partition_dim != f.partition_dim ||
        t.role != f.role || t.scope_loop != f.scope_loop)
      return false;
  }
  Tensor merged = k.tensor(first);
  merged.shape.insert(merged.shape.begin(), IExpr(static_cast<int64_t>(items.size())));
  merged.partition_dim += 1;
  merged.host_list = true;
  merged.name.clear();
  merged.label.clear();
  merged.dim_text.clear();
  const int id = add_tensor(k, std::move(merged));
  Op decl = item_nodes[0].ops[0];
  if (decl.result >= 0) decl.result = id;
  else decl.dst = whole(id);
  item_nodes.resize(1);
  item_nodes[0].ops = {std::move(decl)};
  const size_t rank = k.tensor(id).shape.size();
  for (size_t i = 0; i < items.size(); ++i) {
    Access a;
    a.tensor = id;
    a.dims.push_back({IExpr(static_cast<int64_t>(i)), {}});
    for (size_t d = 1; d < rank; ++d) a.dims.push_back({IExpr(0), {{static_cast<int>(d - 1), k.tensor(id).shape[d], 1}}});
    items[i] = AValue::of_tile(a);
  }
  return true;
}

// `[f(d) for d in x.shape if ...]`: a Python list computed while lifting, over tuples, lists and
// constant ranges (host values: shapes, sizes, flags). Its variables are its own (Python 3); a
// walrus inside binds in the kernel. `{k: nl.load(v[rows]) for k, v in srcs.items()}` computes a
// tile per item: Python runs the element once per item while tracing, so each item's operations
// are a statement of their own, and the statement holding the comprehension is an inline node of
// them (kComprehensionHelper), printed as written, as a helper call doing tile work is. Its
// iterables and conditions are host values; one computing a tile is refused.
AValue Lifter::comprehension(const ComprehensionExpr& c) {
  std::vector<AValue> items, keys;
  std::vector<Node> item_nodes;  // the operations of each item computing tiles
  std::optional<std::pair<int64_t, int64_t>> range_of_first;  // start, step of a constant range
  size_t ops_before = current_ops ? current_ops->size() : 0;
  std::map<std::string, std::optional<AValue>> saved;
  std::function<void(const Expr&)> note = [&](const Expr& t) {
    if (t.kind == ExprKind::Name) {
      const std::string& id = static_cast<const NameExpr&>(t).id;
      if (!saved.count(id)) saved[id] = env.count(id) ? std::optional<AValue>(env[id]) : std::nullopt;
    } else if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List) {
      for (const auto& x : static_cast<const SequenceExpr&>(t).elts) note(*x);
    }
  };
  for (const auto& g : c.generators) note(*g.target);
  std::function<void(size_t)> gen = [&](size_t g) {
    if (g == c.generators.size()) {
      std::vector<Op> ops;
      auto* saved_ops = current_ops;
      size_t pending_before = pending_inline.size();
      if (saved_ops) current_ops = &ops;
      if (c.kind == ExprKind::DictComp) {
        AValue key = eval(*c.elt);
        if (!hashable_key(key))
          fail(c.elt->span, fmt::format("the dict key '{}' (a string or a constant integer is expected)", print_expr(*c.elt)));
        keys.push_back(key);
      }
      items.push_back(eval(c.kind == ExprKind::DictComp ? *c.value : *c.elt));
      current_ops = saved_ops;
      if (!ops.empty() || pending_inline.size() > pending_before) {
        Node n;
        n.kind = NodeKind::Stmt;
        n.id = k.next_node++;
        n.ops = std::move(ops);
        if (pending_inline.size() > pending_before) {  // the item calls a helper doing tile work
          n.kind = NodeKind::Inline;
          n.inline_split = pending_inline[pending_before].ops_before;
          for (size_t p = pending_before; p < pending_inline.size(); ++p) {
            n.helper += (n.helper.empty() ? "" : ",") + pending_inline[p].name;
            for (auto& x : pending_inline[p].nodes) n.body.push_back(std::move(x));
          }
          pending_inline.resize(pending_before);
          freeze(n);
        }
        item_nodes.push_back(std::move(n));
      }
      if (items.size() > 100000) fail(c.span, "a comprehension of more than 100000 items");
      return;
    }
    const Comprehension& cg = c.generators[g];
    AValue it = eval(*cg.iter);
    std::vector<AValue> seq;
    if (it.k == K::Tuple || it.k == K::List || it.k == K::Dict) {
      seq = *host_items(it);
    } else if (it.k == K::Range && it.items[0].i.is_constant() && it.items[1].i.is_constant() &&
               it.items[2].i.is_constant() && it.items[2].i.constant() > 0) {
      if (g == 0) range_of_first = {it.items[0].i.constant(), it.items[2].i.constant()};
      for (int64_t i = it.items[0].i.constant(); i < it.items[1].i.constant() && seq.size() <= 100000;
           i += it.items[2].i.constant())
        seq.push_back(AValue::of_int(i));
    } else {
      fail(cg.iter->span, fmt::format("a comprehension over '{}' (not a tuple, list or constant range)",
                                      print_expr(*cg.iter)));
    }
    for (const auto& x : seq) {
      bind_target(*cg.target, x);
      bool keep = true;
      for (const auto& cond : cg.ifs) {
        AValue t = eval(*cond);
        if (t.k != K::Bool) fail(cond->span, fmt::format("the comprehension condition '{}'", print_expr(*cond)));
        if (!t.b) {
          keep = false;
          break;
        }
      }
      if (keep) gen(g + 1);
    }
  };
  gen(0);
  if (current_ops && current_ops->size() != ops_before)
    fail(c.span, "a comprehension whose iterable or condition computes a tile");
  for (auto& [id, v] : saved) {
    if (v) env[id] = *v;
    else env.erase(id);
  }
  // One generator over a constant range without condition: the item as an expression of its
  // index too (AValue::per_item), when the element evaluates that way to every item.
  const bool computes_tiles = !item_nodes.empty();
  // A generator too: `bufs = tuple(nl.ndarray(...) for _ in range(4))`, unpacked later by a helper
  // (`X, XS, C2, S2 = bufs`), is the list of buffers `bufs` whose items print as `bufs[1]`.
  if (computes_tiles && (c.kind == ExprKind::ListComp || c.kind == ExprKind::GeneratorExp) && &c != unpacked_comprehension)
    merge_fresh_tiles(items, item_nodes);
  if (computes_tiles) {
    if (!current_ops) fail(c.span, "a comprehension computing tiles outside a statement of the kernel");
    pending_inline.push_back({kComprehensionHelper, std::move(item_nodes), current_ops->size()});
  }
  if (c.kind == ExprKind::DictComp) {
    AValue out = AValue::of_kind(K::Dict);
    for (size_t i = 0; i < keys.size(); ++i) dict_put(out, keys[i], items[i]);
    return out;
  }
  std::shared_ptr<AValue> per_item;
  if (range_of_first && c.generators.size() == 1 && c.generators[0].ifs.empty() && !items.empty() &&
      !computes_tiles) {
    auto env_before = env;
    try {
      bind_target(*c.generators[0].target,
                  AValue::of_int(IExpr(range_of_first->first) + IExpr::var(kHostIndex) * range_of_first->second));
      AValue t = eval(*c.elt);
      if ((!current_ops || current_ops->size() == ops_before) && template_matches(t, items))
        per_item = std::make_shared<AValue>(std::move(t));
    } catch (const LiftError&) {
    }
    env = std::move(env_before);
    if (current_ops && current_ops->size() != ops_before) current_ops->resize(ops_before);
  }
  AValue out = AValue::of_tuple(std::move(items));
  out.k = c.kind == ExprKind::ListComp ? K::List : K::Tuple;
  out.per_item = std::move(per_item);
  return out;
}

// `a and b` (`a or b`) of two comparisons of loop variables as one condition: the selection
// `(a ? (b ? 1 : 0) : 0) == 1` (`(a ? 1 : (b ? 1 : 0)) == 1`), true exactly where Python's is.
AValue Lifter::cond_join(const AValue& a, const AValue& b, bool is_and) {
  Ranges rg = ranges();
  IExpr bi = IExpr::select(b.cl, b.cmp, b.cr, IExpr(1), IExpr(0), &rg);
  IExpr j = is_and ? IExpr::select(a.cl, a.cmp, a.cr, bi, IExpr(0), &rg)
                   : IExpr::select(a.cl, a.cmp, a.cr, IExpr(1), bi, &rg);
  if (j.is_constant()) return AValue::of_bool(j.constant() == 1);
  AValue c;
  c.k = K::Cond;
  c.cl = j, c.cr = IExpr(1), c.cmp = Cmp::Eq;
  return c;
}

// One comparison `l op r` of evaluated operands (le, re: their expressions; e: the whole one).
AValue Lifter::compare(const AValue& l, nki::CmpKind op, const AValue& r, const nki::Expr& le, const nki::Expr& re,
                       const nki::Expr& e) {
  static const std::map<CmpKind, Cmp> cmps = {{CmpKind::Lt, Cmp::Lt}, {CmpKind::Le, Cmp::Le}, {CmpKind::Gt, Cmp::Gt},
                                              {CmpKind::Ge, Cmp::Ge}, {CmpKind::Eq, Cmp::Eq}, {CmpKind::Ne, Cmp::Ne}};
  auto it = cmps.find(op);
  bool li = l.k == K::Int || l.k == K::Bool, ri = r.k == K::Int || r.k == K::Bool;
  if (it != cmps.end() && li && ri) {
    IExpr a = int_of(l, le), b = int_of(r, re);
    IExpr d = a - b;
    Ranges rg = ranges();
    IExpr one = IExpr::select(d, it->second, IExpr(0), IExpr(1), IExpr(0), &rg);
    if (one.is_constant()) return AValue::of_bool(one.constant() == 1);
    AValue cond;
    cond.k = K::Cond;
    cond.cl = a, cond.cr = b, cond.cmp = it->second;
    return cond;
  }
  if (it != cmps.end() && (l.k == K::Grid || r.k == K::Grid) && (li || l.k == K::Grid) && (ri || r.k == K::Grid)) {
    Grid g = grid_add(grid_of(l), grid_of(r), -1);
    for (const auto& [pos, ax] : g.axes)
      if (!ax.affine()) fail(e.span, fmt::format("the mask '{}' of a quasi-affine index grid", print_expr(e)));
    Constraint con;
    con.expr = g.base;
    for (const auto& [pos, ax] : g.axes) con.axes[pos] += ax.coef;
    con.cmp = it->second;
    AValue p;
    p.k = K::Pred;
    p.pred = {con};
    return p;
  }
  if (it != cmps.end() && (op == CmpKind::Eq || op == CmpKind::Ne)) {
    // Tuples (shape checks), strings, dtypes: equal when every item is.
    std::function<std::optional<bool>(const AValue&, const AValue&)> same = [&](const AValue& x, const AValue& y)
        -> std::optional<bool> {
      if (x.k == K::Set && y.k == K::Set) {  // the same items, in any order
        auto one_way = [&](const AValue& p, const AValue& q) -> std::optional<bool> {
          for (const auto& a : p.items) {
            bool found = false;
            for (const auto& b : q.items) {
              auto s = same(a, b);
              if (!s) return std::nullopt;
              found = found || *s;
            }
            if (!found) return false;
          }
          return true;
        };
        auto ab = one_way(x, y), ba = one_way(y, x);
        if (!ab || !ba) return std::nullopt;
        return *ab && *ba;
      }
      if ((x.k == K::Tuple || x.k == K::List) && (y.k == K::Tuple || y.k == K::List)) {
        if (x.items.size() != y.items.size()) return false;
        for (size_t i = 0; i < x.items.size(); ++i) {
          auto s = same(x.items[i], y.items[i]);
          if (!s || !*s) return s;
        }
        return true;
      }
      if ((x.k == K::Int || x.k == K::ParDim) && (y.k == K::Int || y.k == K::ParDim)) {
        IExpr d = x.i - y.i;
        if (d.is_constant()) return d.constant() == 0;
        return std::nullopt;
      }
      if (x.k == y.k && (x.k == K::Str || x.k == K::DType || x.k == K::Symbol)) return x.s == y.s;
      // A dtype equals its name (`x.dtype == "float32"`, numpy's dtype comparison; 6: every
      // spelling of a dtype compares equal).
      if ((x.k == K::DType && y.k == K::Str) || (x.k == K::Str && y.k == K::DType)) return x.s == y.s;
      // A string is never a number or None.
      auto number = [](const AValue& v) {
        return v.k == K::Int || v.k == K::Float || v.k == K::Bool || v.k == K::None;
      };
      if ((x.k == K::Str && number(y)) || (y.k == K::Str && number(x))) return false;
      if (x.k == K::Float && y.k == K::Float) return x.f == y.f;
      if (x.k == K::None || y.k == K::None) return x.k == y.k;
      return std::nullopt;
    };
    if (auto s = same(l, r)) return AValue::of_bool(op == CmpKind::Eq ? *s : !*s);
  }
  // A comparison with a tile is the element-wise nl function (`d <= 8.0` is nl.less_equal(d, 8.0)).
  bool lt = l.k == K::Tile || l.k == K::Int || l.k == K::Float, rt = r.k == K::Tile || r.k == K::Int || r.k == K::Float;
  if (it != cmps.end() && (l.k == K::Tile || r.k == K::Tile) && lt && rt) {
    static const std::map<Cmp, const char*> fns = {{Cmp::Lt, "nl.less"},    {Cmp::Le, "nl.less_equal"},
                                                   {Cmp::Gt, "nl.greater"}, {Cmp::Ge, "nl.greater_equal"},
                                                   {Cmp::Eq, "nl.equal"},   {Cmp::Ne, "nl.not_equal"}};
    return apply(fns.at(it->second), {{"x", l}, {"y", r}}, {{"x", &le}, {"y", &re}}, e, nullptr);
  }
  if (op == CmpKind::In || op == CmpKind::NotIn) {  // `"rows" in cfg`, `c in (0, 3)`, `x.dtype in (np.float32, "float32")`
    auto items = host_items(r);
    if (items && (l.k == K::Str || l.k == K::Bool || (l.k == K::Int && l.i.is_constant()))) {
      AValue probe = AValue::of_kind(K::Dict);
      probe.keys = *items;
      probe.items = *items;
      bool in = dict_get(probe, l) != nullptr;
      return AValue::of_bool(op == CmpKind::In ? in : !in);
    }
    // Other host values (dtypes, tuples, None): Python's `==` with each item, in order.
    if (items && (l.k == K::DType || l.k == K::Tuple || l.k == K::None || l.k == K::Float || l.k == K::Symbol)) {
      bool in = false;
      for (const AValue& item : *items) {
        if (item.k == K::Tile || item.k == K::Grid || item.k == K::Pred || item.k == K::Cond) {
          fail(e.span, fmt::format("the comparison '{}' (a member that is not a host value)", print_expr(e)));
        }
        AValue eq = compare(l, CmpKind::Eq, item, le, re, e);
        if (eq.k != K::Bool) fail(e.span, fmt::format("the comparison '{}'", print_expr(e)));
        if (eq.b) {
          in = true;
          break;
        }
      }
      return AValue::of_bool(op == CmpKind::In ? in : !in);
    }
  }
  if (op == CmpKind::Is || op == CmpKind::IsNot) {
    bool is = l.k == r.k && (l.k == K::None || l.s == r.s);
    return AValue::of_bool(op == CmpKind::Is ? is : !is);
  }
  fail(e.span, fmt::format("the comparison '{}'", print_expr(e)));
}

// `t[:, ::-1]`, `t[:, 7:2:-2]`: a slice walking a dim backwards, its bounds constants as Python
// reads them (negative from the end; left out, the last element and past the first). The index
// starts at the first element read and steps by the negative step.
DimIndex Lifter::backward_slice(const AValue& v, const IExpr& dim, int64_t step, const Expr& at, int axis) {
  if (!dim.is_constant()) fail(at.span, fmt::format("'{}': a backward slice of a dim whose size is not a constant", print_expr(at)));
  int64_t n = dim.constant();
  auto bound = [&](const AValue& b, int64_t dflt) {
    if (b.k == K::None) return dflt;
    IExpr x = int_of(b, at);
    if (!x.is_constant()) fail(at.span, fmt::format("'{}': a backward slice with a bound that is not a constant", print_expr(at)));
    int64_t c = x.constant() < 0 ? x.constant() + n : x.constant();
    return std::clamp<int64_t>(c, -1, n - 1);
  };
  int64_t lo = bound(v.items[0], n - 1), hi = bound(v.items[1], -1);
  int64_t size = lo > hi ? (lo - hi + (-step) - 1) / (-step) : 0;
  if (size == 0) fail(at.span, fmt::format("'{}': an empty slice", print_expr(at)));
  return {IExpr(lo), {{axis, IExpr(size), step}}};
}

// `x.shape[1:]`, `dims[:-1]`, `x.shape[::-1]`: a host tuple or list sliced with constant bounds, as
// Python slices it (negative bounds from the end, a negative step walking backwards).
AValue Lifter::sequence_slice(const AValue& base, const SliceExpr& sl, const Expr& e) {
  auto bound = [&](const ExprPtr& x) -> std::optional<int64_t> {
    if (!x) return std::nullopt;
    AValue v = eval(*x);
    if (v.k != K::Int || !v.i.is_constant()) fail(x->span, fmt::format("'{}': a slice bound that is not a constant", print_expr(e)));
    return v.i.constant();
  };
  int64_t n = static_cast<int64_t>(base.items.size());
  int64_t step = bound(sl.step).value_or(1);
  if (step == 0) fail(e.span, fmt::format("'{}': a slice step of zero", print_expr(e)));
  // Python's PySlice_AdjustIndices: bounds clamped to [0, n] stepping forwards, [-1, n-1] backwards.
  auto adjust = [&](std::optional<int64_t> b, int64_t dflt) {
    if (!b) return dflt;
    int64_t x = *b < 0 ? *b + n : *b;
    if (step > 0) return std::clamp<int64_t>(x, 0, n);
    return std::clamp<int64_t>(x, -1, n - 1);
  };
  int64_t lo = adjust(bound(sl.lower), step > 0 ? 0 : n - 1);
  int64_t hi = adjust(bound(sl.upper), step > 0 ? n : -1);
  AValue out = base;
  out.items.clear();
  for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) out.items.push_back(base.items[static_cast<size_t>(i)]);
  return out;
}

}  // namespace loopnest::detail
