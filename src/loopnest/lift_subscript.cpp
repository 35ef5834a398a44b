// Subscripts (lifter.h): an index, a slice or an index grid applied to a tile's access composes
// into the access map, checked within the tensor's bounds over the loops' values; a host sequence
// indexed by a loop variable is its item when the items step alike; backward slices and slices of
// host sequences.
#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/flat_list.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

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
namespace {

// Items of a flattened list (flat_list.h), in order from some block on, each `step` blocks after the
// one before: the item at `index` is block (f // C, f % C) of the flat index f.
std::optional<AValue> flat_progression_item(const std::vector<AValue>& items, const IExpr& index, const Ranges& rg,
                                            const Kernel& k) {
  const AValue& first = items[0];
  if (first.k != AValue::K::Tile || first.access.dims.size() < 2) return std::nullopt;
  const Tensor& t = k.tensor(first.access.tensor);
  if (!flat_list(t)) return std::nullopt;
  const int64_t inner = t.shape[1].constant();
  auto flat_of = [&](const Access& a) -> std::optional<int64_t> {
    const DimIndex &o = a.dims[0], &i = a.dims[1];
    if (!o.terms.empty() || !i.terms.empty() || !o.start.is_constant() || !i.start.is_constant()) return std::nullopt;
    if (i.start.constant() < 0 || i.start.constant() >= inner) return std::nullopt;
    return o.start.constant() * inner + i.start.constant();
  };
  auto f0 = flat_of(first.access);
  if (!f0) return std::nullopt;
  int64_t step = 0;
  for (size_t j = 0; j < items.size(); ++j) {
    const AValue& v = items[j];
    if (v.k != AValue::K::Tile || v.access.tensor != first.access.tensor || v.access.rank != first.access.rank ||
        v.access.dims.size() != first.access.dims.size())
      return std::nullopt;
    for (size_t d = 2; d < v.access.dims.size(); ++d)
      if (!(v.access.dims[d] == first.access.dims[d])) return std::nullopt;
    auto f = flat_of(v.access);
    if (!f) return std::nullopt;
    if (j == 1) step = *f - *f0;
    if (*f != *f0 + step * static_cast<int64_t>(j)) return std::nullopt;
  }
  const IExpr flat = IExpr(*f0) + index * step;
  Access a = first.access;
  a.dims[0].start = IExpr::floordiv(flat, inner, &rg);
  a.dims[1].start = IExpr::mod(flat, inner, &rg);
  return AValue::of_tile(std::move(a));
}

}  // namespace

std::optional<AValue> progression_item(const std::vector<AValue>& items, const IExpr& index, const Ranges& rg,
                                       const Kernel* kernel) {
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
        if (diff.constant() != step[d] * k) return kernel ? flat_progression_item(items, index, rg, *kernel) : std::nullopt;
      }
    }
    Access a = first.access;
    for (size_t d = 0; d < step.size(); ++d) a.dims[d].start = a.dims[d].start + index * step[d];
    return AValue::of_tile(std::move(a));
  }
  if (first.k == K::List) return progression_list_item(items, index, rg);  // lift_nested_rolled.cpp
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
      for (auto& x : v.items) vals.push_back(x);  // `...` among them is expanded below
      continue;
    }
    vals.push_back(std::move(v));
  }
  // `...` (or the name Ellipsis, also inside a tuple bound to a name: `key = (Ellipsis, slice(0,
  // n))`) stands for full slices of the dims the other indices leave.
  if (auto e = std::find_if(vals.begin(), vals.end(), [](const AValue& x) { return x.k == K::Ellipsis; }); e != vals.end()) {
    if (std::count_if(vals.begin(), vals.end(), [](const AValue& x) { return x.k == K::Ellipsis; }) > 1)
      fail(at.span, fmt::format("'{}': an index with more than one '...'", print_expr(at)));
    size_t fill = rank + 1 > vals.size() ? rank + 1 - vals.size() : 0;
    AValue sv;
    sv.k = K::Slice;
    sv.items = {AValue::of_kind(K::None), AValue::of_kind(K::None), AValue::of_kind(K::None)};
    size_t at_pos = static_cast<size_t>(e - vals.begin());
    vals.erase(e);
    vals.insert(vals.begin() + static_cast<long>(at_pos), fill, sv);
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

// `x[...]` of any value: an index grid (`nl.mgrid[...]`, `nl.arange(n)[:, None]`), an SPMD launch
// (`kernel_[2, 2]`), a tile's access, a block of a list's tensor, a dict item, a host sequence's item
// or slice.
AValue Lifter::subscript_value(const Expr& e) {
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
      check_none_item_read(base.items[static_cast<size_t>(x)], e);  // lift_none_reads.cpp
      return base.items[static_cast<size_t>(x)];
    }
    if (i.k == K::Int)
      if (auto item = progression_item(base.items, i.i, ranges(), &k)) {
        check_none_item_read(*item, e);
        return *item;
      }
    // `outs[k]` in `for k in range(3)`: the loop may still lift as its copies, each with its
    // item (for_loop), as the trace runs it.
    if (i.k == K::Int) per_iteration_host_refused = true;
    fail(e.span, fmt::format("'{}': a {} indexed by a loop-dependent value", print_expr(e),
                             base.k == K::List ? "Python list" : "tuple"));
  }
  fail(e.span, fmt::format("the subscript '{}'", print_expr(e)));
}

}  // namespace loopnest::detail
