// The lifter's calls evaluated while tracing (lifter.h): Python builtins, math and numpy on host
// values (constants, shapes, host sequences), loop ranges, index grids (`nl.arange`, `nl.ds`,
// `nl.par_dim`) and host arrays; nullopt for any other function (an NKI API, lift_call.cpp).
#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "loopnest/lifter.h"
#include "nki/ast_printer.h"
#include "tensor/dtype.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

double number_of(const AValue& v) {
  if (v.k == K::Float) return v.f;
  if (v.k == K::Int && v.i.is_constant()) return static_cast<double>(v.i.constant());
  if (v.k == K::Bool) return v.b ? 1 : 0;
  return NAN;
}

std::optional<AValue> Lifter::host_call(const std::string& p, const std::vector<AValue>& pos,
                                        const std::vector<const Expr*>& pos_exprs,
                                        const std::vector<std::pair<std::string, AValue>>& kw, const CallExpr& c) {
  auto kwarg = [&](const std::string& name) -> const AValue* {
    for (auto& [n, v] : kw)
      if (n == name) return &v;
    return nullptr;
  };
  auto ints = [&](size_t i) { return int_of(pos[i], *pos_exprs[i]); };
  if ((p == "math.ceil" || p == "math.floor" || p == "numpy.ceil" || p == "numpy.floor") && pos.size() == 1) {
    double x = number_of(pos[0]);
    if (!std::isnan(x)) return AValue::of_int(static_cast<int64_t>(p.find("ceil") != std::string::npos ? std::ceil(x) : std::floor(x)));
  }
  // `getattr(nl, name)` with a name known while tracing (a constant, a comprehension's item over
  // a tuple of names: `{name: getattr(nl, name) for name in ("tanh", "exp")}`): the module's
  // attribute, as `nl.tanh` reads it (probe p18; since session 6 "cannot lift the name 'getattr'").
  if (p == "builtins.getattr" && pos.size() == 2 && kw.empty() && pos[0].k == K::Module && pos[1].k == K::Str)
    return module_attr(pos[0].s, pos[1].s);
  if (p == "builtins.range" || p == "nki.language.affine_range" || p == "nki.language.sequential_range" ||
      p == "nki.language.static_range" || p == "nki.language.dynamic_range") {
    AValue r;
    r.k = K::Range;
    // nl.dynamic_range (newer API 0.2-0.5, nki-language.md 5 and 12.1): a loop the device runs by
    // a register, in order; the interpreter runs it as a sequential_range, the form holds it as one
    // (Loop::dynamic keeps its name in a regenerated header).
    r.range_kind = p == "builtins.range"                    ? LoopKind::Range
                   : p == "nki.language.affine_range"       ? LoopKind::Affine
                   : p == "nki.language.sequential_range" || p == "nki.language.dynamic_range" ? LoopKind::Sequential
                                                            : LoopKind::Static;
    r.range_dynamic = p == "nki.language.dynamic_range";
    if (pos.empty() || pos.size() > 3) fail(c.span, fmt::format("'{}' with {} arguments", print_expr(c), pos.size()));
    IExpr start = pos.size() >= 2 ? ints(0) : IExpr(0), stop = pos.size() >= 2 ? ints(1) : ints(0);
    IExpr step = pos.size() == 3 ? ints(2) : IExpr(1);
    r.items = {AValue::of_int(start), AValue::of_int(stop), AValue::of_int(step)};
    return r;
  }
  if (p == "nki.language.arange") {
    if (pos.empty() || pos.size() > 2) fail(c.span, "nl.arange with other than one or two arguments");
    AValue g;
    g.k = K::Grid;
    IExpr lo = pos.size() == 2 ? ints(0) : IExpr(0), hi = pos.size() == 2 ? ints(1) : ints(0);
    g.grid.base = lo;
    g.grid.axes.emplace(0, Grid::Axis{1, hi - lo});
    g.grid.ndim = 0;
    return g;
  }
  if (p == "nki.language.par_dim" && pos.size() == 1) {
    AValue v = AValue::of_int(ints(0));
    v.k = K::ParDim;
    return v;
  }
  if (p == "nki.language.ds" && pos.size() == 2) {
    AValue s;
    s.k = K::Slice;
    IExpr lo = ints(0);
    s.items = {AValue::of_int(lo), AValue::of_int(lo + ints(1)), AValue::of_kind(K::None)};
    return s;
  }
  if (p == "numpy.dtype" && pos.size() == 1) {
    if (pos[0].k == K::DType) return pos[0];
    if (pos[0].k == K::Str) return AValue::of_kind(K::DType, pos[0].s);
  }
  if ((p == "numpy.identity" || p == "numpy.eye") && !pos.empty()) {
    AValue h = AValue::of_kind(K::HostArray);
    h.items = {AValue::of_int(ints(0)), AValue::of_int(ints(0))};
    return h;
  }
  // np.triu / np.tril of a host array (a constant for nl.shared_constant): same shape and dtype.
  if ((p == "numpy.triu" || p == "numpy.tril") && !pos.empty() && pos[0].k == K::HostArray) return pos[0];
  // math.prod of a shape: the product of its ints.
  if (p == "math.prod" && pos.size() == 1 && (pos[0].k == K::Tuple || pos[0].k == K::List)) {
    IExpr n(1);
    for (size_t i = 0; i < pos[0].items.size(); ++i) {
      auto next = n.times(int_of(pos[0].items[i], *pos_exprs[0]));
      if (!next) fail(c.span, fmt::format("the non-affine product '{}'", print_expr(c)));
      n = *next;
    }
    return AValue::of_int(n);
  }
  // math.factorial of a constant (trace-time coefficients, `1 / math.factorial(2 * k + 1)`).
  if (p == "math.factorial" && pos.size() == 1 && pos[0].k == K::Int) {
    IExpr n = int_of(pos[0], *pos_exprs[0]);
    if (!n.is_constant() || n.constant() < 0 || n.constant() > 20)
      fail(c.span, fmt::format("'{}' of a loop-dependent, negative or too large integer", print_expr(c)));
    int64_t r = 1;
    for (int64_t i = 2; i <= n.constant(); ++i) r *= i;
    return AValue::of_int(r);
  }
  if ((p == "numpy.zeros" || p == "numpy.ones" || p == "numpy.empty") && !pos.empty()) {
    AValue h = AValue::of_kind(K::HostArray);
    for (auto& s : shape_of(pos[0], *pos_exprs[0])) h.items.push_back(AValue::of_int(s));
    const AValue* dt = pos.size() >= 2 ? &pos[1] : kwarg("dtype");
    h.type = dt && dt->k == K::DType ? dt->s : "float64";
    return h;
  }
  if ((p == "numpy.zeros_like" || p == "numpy.empty_like" || p == "numpy.ones_like") && pos.size() == 1 &&
      pos[0].k == K::Tile) {
    AValue h = AValue::of_kind(K::HostArray);
    for (auto& s : pos[0].access.tile_shape()) h.items.push_back(AValue::of_int(s));
    h.type = kwarg("dtype") && kwarg("dtype")->k == K::DType ? kwarg("dtype")->s : k.tensor(pos[0].access.tensor).dtype;
    return h;
  }
  if (p == "builtins.min" || p == "builtins.max") {
    std::vector<AValue> xs = pos.size() == 1 && (pos[0].k == K::Tuple || pos[0].k == K::List) ? pos[0].items : pos;
    if (xs.empty()) fail(c.span, "min/max of nothing");
    bool all_int = std::all_of(xs.begin(), xs.end(), [](const AValue& x) { return x.k == K::Int; });
    Ranges rg = ranges();
    if (all_int) {
      IExpr r = xs[0].i;
      for (size_t i = 1; i < xs.size(); ++i) r = p == "builtins.min" ? IExpr::min(r, xs[i].i, &rg) : IExpr::max(r, xs[i].i, &rg);
      return AValue::of_int(r);
    }
    double r = number_of(xs[0]);
    for (auto& x : xs) r = p == "builtins.min" ? std::min(r, number_of(x)) : std::max(r, number_of(x));
    if (!std::isnan(r)) return AValue::of_float(r);
    fail(c.span, fmt::format("'{}' of values that are not numbers", print_expr(c)));
  }
  if (p == "builtins.sum" && (pos.size() == 1 || pos.size() == 2)) {
    // sum(tiles) as Python runs it: start (0) + the first item + the next ..., one nl.add each
    // once a tile is in it; integers and floats stay host numbers.
    auto items = host_items(pos[0]);
    if (!items) fail(c.args[0]->span, fmt::format("'{}': a host sequence was expected here", print_expr(*c.args[0])));
    AValue acc = pos.size() == 2 ? pos[1] : kwarg("start") ? *kwarg("start") : AValue::of_int(0);
    for (const AValue& x : *items) {
      bool ints_only = (acc.k == K::Int || acc.k == K::Bool) && (x.k == K::Int || x.k == K::Bool);
      if (ints_only) acc = AValue::of_int(int_of(acc, c) + int_of(x, c));
      else if (acc.k == K::Tile || x.k == K::Tile) acc = apply("nl.add", {{"x", acc}, {"y", x}}, {{"x", nullptr}, {"y", nullptr}}, c, nullptr);
      else if (!std::isnan(number_of(acc)) && !std::isnan(number_of(x))) acc = AValue::of_float(number_of(acc) + number_of(x));
      else fail(c.span, fmt::format("'{}' of values that are neither numbers nor tiles", print_expr(c)));
    }
    return acc;
  }
  if (p == "builtins.divmod" && pos.size() == 2) {  // `i, j = divmod(flat, n)`: flat // n, flat % n
    IExpr a = ints(0), b = ints(1);
    if (!b.is_constant() || b.constant() == 0) fail(c.span, fmt::format("'{}': division by a loop-dependent value", print_expr(c)));
    Ranges rg = ranges();
    return AValue::of_tuple({AValue::of_int(IExpr::floordiv(a, b.constant(), &rg)), AValue::of_int(IExpr::mod(a, b.constant(), &rg))});
  }
  if (kw.empty())
    if (auto it = iterable_call(p, pos, pos_exprs, c)) return *it;
  if (auto seq = host_sequence_call(p, pos, kw, c)) return *seq;
  if (auto fv = functools_call(p, pos, kw, c)) return *fv;
  // repr() / str() of an instance of the module's classes: its __repr__ / __str__, inlined as any
  // method (str falls back on __repr__, as Python's object.__str__ does). Of a host value, the fold.
  if ((p == "builtins.repr" || p == "builtins.str") && pos.size() == 1 && kw.empty() && pos[0].k == K::Instance) {
    const auto& info = classes.at(pos[0].s);
    auto has = [&](const char* m) {
      for (const auto& st : info.def->code->body)
        if (st->kind == StmtKind::FunctionDef && static_cast<const FunctionDefStmt&>(*st).code->name == m) return true;
      return false;
    };
    if (p == "builtins.str" && has("__str__")) return call_method(pos[0], "__str__", {}, {}, c);
    if (has("__repr__")) return call_method(pos[0], "__repr__", {}, {}, c);
  }
  // len() of an instance of the module's classes: its __len__, inlined as any method.
  if (p == "builtins.len" && pos.size() == 1 && pos[0].k == K::Instance && helpers.count(pos[0].s + ".__len__")) {
    AValue n = call_method(pos[0], "__len__", {}, {}, c);
    if (n.k != K::Int && n.k != K::Bool) fail(c.span, fmt::format("'{}': a __len__ that returns no integer", print_expr(c)));
    return n.k == K::Bool ? AValue::of_int(n.b ? 1 : 0) : n;
  }
  if (p == "builtins.len" && pos.size() == 1 && pos[0].k == K::Dict) return AValue::of_int(static_cast<int64_t>(pos[0].keys.size()));
  if (p == "builtins.len" && pos.size() == 1) {
    // A list appended one tile per iteration of a loop is one tensor with a block dim over that
    // loop (Lifter::append), held as its single item: its length is that dim, not 1. The item's
    // access has one dim per level still open (a list of lists seen from inside the outer loop's
    // body names the inner level's tensor before the outer dim was added).
    if (const Tensor* t = list_tensor(pos[0])) {
      size_t open = pos[0].items[0].access.dims.size();
      if (open >= 1 && open <= t->shape.size()) return AValue::of_int(t->shape[t->shape.size() - open]);
    }
    if (pos[0].k == K::Tuple || pos[0].k == K::List || pos[0].k == K::Set)
      return AValue::of_int(static_cast<int64_t>(pos[0].items.size()));
    if (pos[0].k == K::Tile) return AValue::of_int(pos[0].access.tile_shape().at(0));
  }
  if ((p == "builtins.tuple" || p == "builtins.list") && pos.size() <= 1) {
    AValue t = pos.empty() ? AValue::of_tuple({}) : pos[0];
    if (t.k == K::Iterator) t.k = K::List;  // what the iterator has left
    if (t.k == K::Tuple || t.k == K::List) {
      t.k = p == "builtins.tuple" ? K::Tuple : K::List;
      return t;
    }
  }
  if ((p == "builtins.int" || p == "builtins.round") && pos.size() == 1) {
    if (pos[0].k == K::Int) return pos[0];
    double x = number_of(pos[0]);
    if (!std::isnan(x)) return AValue::of_int(static_cast<int64_t>(p == "builtins.int" ? std::trunc(x) : std::nearbyint(x)));
  }
  if (p == "builtins.float" && pos.size() == 1) {
    double x = number_of(pos[0]);
    if (!std::isnan(x)) return AValue::of_float(x);
    // float('inf') / float('-inf'): how the printer writes an infinite number.
    if (pos[0].k == K::Str && (pos[0].s == "inf" || pos[0].s == "-inf" || pos[0].s == "+inf"))
      return AValue::of_float(pos[0].s == "-inf" ? -INFINITY : INFINITY);
    // `float(pid)` of a loop-dependent integer (a program id as a scalar operand): the integer
    // expression, an operand that differs per iteration (printed back as written).
    if (pos[0].k == K::Int) {
      AValue v = pos[0];
      v.type = "float";
      return v;
    }
  }
  if ((p == "builtins.set" || p == "builtins.frozenset") && pos.size() <= 1 && kw.empty()) {
    auto items = pos.empty() ? std::optional<std::vector<AValue>>(std::vector<AValue>{}) : host_items(pos[0]);
    if (!items) fail(c.span, fmt::format("'{}' of a value that is not a host sequence", print_expr(c)));
    return make_set(*items, c);
  }
  if (p == "builtins.slice" && !pos.empty() && pos.size() <= 3 && kw.empty()) {  // slice(stop), slice(start, stop[, step])
    AValue s;
    s.k = K::Slice;
    AValue none = AValue::of_kind(K::None);
    s.items = pos.size() == 1 ? std::vector<AValue>{none, pos[0], none}
                              : std::vector<AValue>{pos[0], pos[1], pos.size() == 3 ? pos[2] : none};
    return s;
  }
  // abs(tile) is nl.abs (nki-language.md 7.9: Python operators and builtins on tiles are the
  // language's element-wise APIs), as the language core runs it.
  if (p == "builtins.abs" && pos.size() == 1 && pos[0].k == K::Tile)
    return apply("nl.abs", {{"x", pos[0]}}, {{"x", pos_exprs[0]}}, c, nullptr);
  if (p == "builtins.abs" && pos.size() == 1) {
    double x = number_of(pos[0]);
    if (pos[0].k == K::Int && pos[0].i.is_constant()) return AValue::of_int(std::llabs(pos[0].i.constant()));
    if (!std::isnan(x)) return AValue::of_float(std::fabs(x));
  }
  if ((p == "math.sqrt" || p == "numpy.sqrt" || p == "math.exp" || p == "numpy.exp" || p == "math.log" ||
       p == "numpy.log") && pos.size() == 1 && !std::isnan(number_of(pos[0]))) {
    double x = number_of(pos[0]);
    std::string fn = p.substr(p.find('.') + 1);
    return AValue::of_float(fn == "sqrt" ? std::sqrt(x) : fn == "exp" ? std::exp(x) : std::log(x));
  }
  return std::nullopt;
}

}  // namespace loopnest::detail
