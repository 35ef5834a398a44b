// Operators of the kernel's Python (lifter.h): `-a`, `a op b`, comparisons and `and`/`or` on the
// lift's abstract values. Integers stay symbolic in the loop variables (an affine `a * b` or a
// constant divisor, else refused); index grids add, scale and split quasi-affinely (`i_f // 128`);
// comparisons of loop variables are conditions (K::Cond) and of index grids mask predicates
// (K::Pred); an operator on a tile is the `nl.*` call it stands for (`a * b` is nl.multiply).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "loopnest/operators.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

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

// The op of an operator on tiles (`a * b`, `d <= 8.0`, `-a`): the nl function it is, marked with the
// operator (operators.h), so a changed statement prints the author's operator again.
AValue apply_operator(Lifter& lifter, std::string_view symbol, std::vector<std::pair<std::string, AValue>> args,
                      std::vector<std::pair<std::string, const Expr*>> origins, const Expr& at) {
  const std::string api(operator_api(symbol, static_cast<int>(args.size())));
  AValue v = lifter.apply(api, std::move(args), std::move(origins), at, nullptr);
  if (lifter.current_ops && !lifter.current_ops->empty()) lifter.current_ops->back().origin_api = operator_origin(symbol);
  return v;
}

}  // namespace

AValue Lifter::unary_value(const Expr& e) {
  auto& u = static_cast<const UnaryOpExpr&>(e);
  AValue v = eval(*u.operand);
  if (u.op == UnOp::Neg) {
    if (v.k == K::Int) return AValue::of_int(-v.i);
    if (v.k == K::Float) return AValue::of_float(-v.f, v.type);
    if (v.k == K::Grid) { AValue g = v; g.grid = grid_scale(v.grid, -1); return g; }
    // `-a` of a tile is nl.negative, as `a * b` is nl.multiply.
    if (v.k == K::Tile) return apply_operator(*this, "-", {{"x", v}}, {{"x", u.operand.get()}}, e);
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

AValue Lifter::binop_value(const Expr& e) {
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
  // A mask term comparing loop variables alone (`(k_0 * U + k_1 < S) & (i_f < M)`, a generated
  // kernel's guard of a ragged outer tile): a constraint on no axis, holding for all of the
  // iteration's elements or for none (the interpreter's bool & predicate, index_expr.cpp).
  if (b.op == BinOp::BitAnd && ((l.k == K::Pred && (r.k == K::Bool || r.k == K::Cond)) ||
                                (r.k == K::Pred && (l.k == K::Bool || l.k == K::Cond)))) {
    AValue p = l.k == K::Pred ? l : r;
    if (auto con = loop_mask_term(l.k == K::Pred ? r : l)) p.pred.push_back(*con);
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
    static const std::map<BinOp, const char*> symbols = {
        {BinOp::Add, "+"}, {BinOp::Sub, "-"}, {BinOp::Mul, "*"}, {BinOp::Div, "/"}, {BinOp::Pow, "**"},
        {BinOp::BitAnd, "&"}, {BinOp::BitOr, "|"}, {BinOp::BitXor, "^"}, {BinOp::LShift, "<<"}, {BinOp::RShift, ">>"}};
    if (auto it = symbols.find(b.op); it != symbols.end())
      return apply_operator(*this, it->second, {{"x", l}, {"y", r}}, {{"x", b.left.get()}, {"y", b.right.get()}}, e);
  }
  fail(e.span, fmt::format("the operation '{}'", print_expr(e)));
}

// A comparison, or a chain of them.
AValue Lifter::compare_chain(const Expr& e) {
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

AValue Lifter::boolop_value(const Expr& e) {
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

std::optional<Constraint> loop_mask_term(const AValue& term) {
  if (term.k == K::Bool && term.b) return std::nullopt;
  Constraint con;
  con.cmp = term.k == K::Bool ? Cmp::Eq : term.cmp;
  con.expr = term.k == K::Bool ? IExpr(1) : term.cl - term.cr;  // False: 1 == 0 holds nowhere
  return con;
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
  if (it != cmps.end() && (l.k == K::Float || r.k == K::Float) && !std::isnan(number_of(l)) && !std::isnan(number_of(r))) {
    // Host numbers, one a float (`lambda g: g > 0.0` choosing constants): compared as Python does.
    double a = number_of(l), b = number_of(r);
    switch (it->second) {
      case Cmp::Lt: return AValue::of_bool(a < b);
      case Cmp::Le: return AValue::of_bool(a <= b);
      case Cmp::Gt: return AValue::of_bool(a > b);
      case Cmp::Ge: return AValue::of_bool(a >= b);
      case Cmp::Eq: return AValue::of_bool(a == b);
      case Cmp::Ne: return AValue::of_bool(a != b);
    }
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
    static const std::map<Cmp, const char*> symbols = {{Cmp::Lt, "<"},  {Cmp::Le, "<="}, {Cmp::Gt, ">"},
                                                       {Cmp::Ge, ">="}, {Cmp::Eq, "=="}, {Cmp::Ne, "!="}};
    return apply_operator(*this, symbols.at(it->second), {{"x", l}, {"y", r}}, {{"x", &le}, {"y", &re}}, e);
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


}  // namespace loopnest::detail
