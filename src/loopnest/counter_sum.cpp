// sum_over (counter_sum.h): linearity over the summands, each guard splitting the domain.
#include "loopnest/counter_sum.h"

namespace loopnest {

namespace {

// The iterations summed over: [lo, hi), and at most one congruence m = q (mod M).
struct Domain {
  IExpr lo, hi;
  int64_t modulus = 0;  // 0: none
  int64_t residue = 0;
  bool empty = false;
};

IExpr count(const Domain& d, const Ranges* rg) {
  if (d.empty) return IExpr(0);
  if (d.modulus == 0) return IExpr::max(d.hi - d.lo, IExpr(0), rg);
  IExpr hi = IExpr::max(d.hi, d.lo, rg);
  return IExpr::floordiv(hi - 1 - d.residue, d.modulus, rg) - IExpr::floordiv(d.lo - 1 - d.residue, d.modulus, rg);
}

// e = a*m + rest with rest free of m; nullopt when m occurs other than as a plain summand.
std::optional<std::pair<int64_t, IExpr>> linear_in_index(const IExpr& e) {
  IExpr rest = e - IExpr::var(kSumIndex) * e.coeff(kSumIndex);
  if (rest.uses(kSumIndex)) return std::nullopt;
  return std::make_pair(e.coeff(kSumIndex), rest);
}

// Domain d with m < bound (below) or m >= bound (!below).
Domain cut(Domain d, const IExpr& bound, bool below, const Ranges* rg) {
  if (below) d.hi = IExpr::min(d.hi, bound, rg);
  else d.lo = IExpr::max(d.lo, bound, rg);
  return d;
}

// The bound U with (a*m + rest < 0) <=> m < U, for a > 0: U = ceil(-rest / a) = -floor(rest / a).
IExpr below_bound(int64_t a, const IExpr& rest, const Ranges* rg) { return -IExpr::floordiv(rest, a, rg); }

std::optional<IExpr> sum(const IExpr& f, const Domain& d, const Ranges* rg);

// Sum of select(e cmp 0, then, otherwise) over d.
std::optional<IExpr> sum_select(const IExpr& e, Cmp c, const IExpr& then, const IExpr& otherwise, const Domain& d,
                                const Ranges* rg) {
  // A congruence: coeff * ((m + b) % M) + c0 == 0 (or !=), b a constant.
  if ((c == Cmp::Eq || c == Cmp::Ne) && e.terms().size() == 1) {
    const auto& [term, coeff] = e.terms().begin()->second;
    if (term.kind == TermKind::Mod && term.args[0].uses(kSumIndex)) {
      const IExpr& arg = term.args[0];
      auto lin = linear_in_index(arg);
      if (!lin || lin->first != 1 || !lin->second.is_constant()) return std::nullopt;
      if (c == Cmp::Ne) return sum_select(e, Cmp::Eq, otherwise, then, d, rg);
      const int64_t M = term.divisor, b = lin->second.constant();
      Domain in = d;
      // coeff * x + c0 == 0 with x in [0, M): x = -c0 / coeff, when that is one.
      const int64_t c0 = e.constant();
      if (coeff == 0 || (-c0) % coeff != 0 || -c0 / coeff < 0 || -c0 / coeff >= M) {
        in.empty = true;
      } else {
        const int64_t q = floor_mod(-c0 / coeff - b, M);
        if (d.modulus == 0) in.modulus = M, in.residue = q;
        else if (d.modulus != M) return std::nullopt;  // two moduli: not counted
        else if (d.residue != q) in.empty = true;
      }
      auto t = sum(then, in, rg), o_all = sum(otherwise, d, rg), o_in = sum(otherwise, in, rg);
      if (!t || !o_all || !o_in) return std::nullopt;
      return *t + *o_all - *o_in;
    }
  }
  auto lin = linear_in_index(e);
  if (!lin || lin->first == 0) return std::nullopt;
  int64_t a = lin->first;
  IExpr rest = lin->second;
  // a*m + rest cmp 0 with a > 0.
  if (a < 0) {
    a = -a, rest = -rest;
    c = c == Cmp::Lt ? Cmp::Gt : c == Cmp::Le ? Cmp::Ge : c == Cmp::Gt ? Cmp::Lt : c == Cmp::Ge ? Cmp::Le : c;
  }
  const IExpr lt = below_bound(a, rest, rg);      // a*m + rest < 0  <=> m < lt
  const IExpr le = below_bound(a, rest - 1, rg);  // a*m + rest <= 0 <=> m < le
  auto split = [&](const IExpr& bound, const IExpr& below, const IExpr& above) -> std::optional<IExpr> {
    auto x = sum(below, cut(d, bound, true, rg), rg), y = sum(above, cut(d, bound, false, rg), rg);
    if (!x || !y) return std::nullopt;
    return *x + *y;
  };
  switch (c) {
    case Cmp::Lt: return split(lt, then, otherwise);
    case Cmp::Le: return split(le, then, otherwise);
    case Cmp::Gt: return split(le, otherwise, then);
    case Cmp::Ge: return split(lt, otherwise, then);
    case Cmp::Eq:
    case Cmp::Ne: {
      // == 0: lt <= m < le.
      Domain in = cut(cut(d, lt, false, rg), le, true, rg);
      const IExpr& on = c == Cmp::Eq ? then : otherwise;
      const IExpr& off = c == Cmp::Eq ? otherwise : then;
      auto x = sum(on, in, rg), y_all = sum(off, d, rg), y_in = sum(off, in, rg);
      if (!x || !y_all || !y_in) return std::nullopt;
      return *x + *y_all - *y_in;
    }
  }
  return std::nullopt;
}

std::optional<IExpr> sum(const IExpr& f, const Domain& d, const Ranges* rg) {
  if (d.empty) return IExpr(0);
  const IExpr n = count(d, rg);
  auto scaled = [&](const IExpr& x) { return x.times(n); };
  std::optional<IExpr> out = scaled(IExpr(f.constant()));
  for (const auto& [key, tc] : f.terms()) {
    const auto& [term, coeff] = tc;
    std::optional<IExpr> s;
    // The summand free of the index: times the count.
    IExpr as_expr;
    switch (term.kind) {
      case TermKind::Var: as_expr = IExpr::var(term.var); break;
      case TermKind::FloorDiv: as_expr = IExpr::floordiv(term.args[0], term.divisor); break;
      case TermKind::Mod: as_expr = IExpr::mod(term.args[0], term.divisor); break;
      case TermKind::Min: as_expr = IExpr::min(term.args[0], term.args[1]); break;
      case TermKind::Max: as_expr = IExpr::max(term.args[0], term.args[1]); break;
      case TermKind::Select:
        as_expr = IExpr::select(term.args[0], term.cmp, term.args[1], term.args[2], term.args[3]);
        break;
    }
    if (!as_expr.uses(kSumIndex)) {
      s = scaled(as_expr);
    } else if (term.kind == TermKind::Select && !term.args[1].uses(kSumIndex)) {
      s = sum_select(term.args[0] - term.args[1], term.cmp, term.args[2], term.args[3], d, rg);
    }
    if (!s || !out) return std::nullopt;
    out = *out + *s * coeff;
  }
  return out;
}

}  // namespace

std::optional<IExpr> sum_over(const IExpr& f, const IExpr& lo, const IExpr& hi, const Ranges* ranges) {
  auto s = sum(f, Domain{lo, hi}, ranges);
  if (!s) return s;
  // Built again term by term as a lift of its printed text builds it, so that the printed kernel
  // lifts to the same expression (a `max(0, i - 512)` of a loop whose i stops at 512 is 0 there).
  IExpr out = *s;
  for (int pass = 0; pass < 4; ++pass) {
    IExpr next = rebuilt(out, ranges);
    if (next == out) break;
    out = next;
  }
  return out;
}

IExpr rebuilt(const IExpr& e, const Ranges* rg) {
  IExpr out(e.constant());
  for (const auto& [key, tc] : e.terms()) {
    const auto& [t, coeff] = tc;
    IExpr piece;
    switch (t.kind) {
      case TermKind::Var: piece = IExpr::var(t.var); break;
      case TermKind::FloorDiv: piece = IExpr::floordiv(rebuilt(t.args[0], rg), t.divisor, rg); break;
      case TermKind::Mod: piece = IExpr::mod(rebuilt(t.args[0], rg), t.divisor, rg); break;
      case TermKind::Min:
      case TermKind::Max: {
        const IExpr a = rebuilt(t.args[0], rg), b = rebuilt(t.args[1], rg);
        const bool is_min = t.kind == TermKind::Min;
        IExpr x = is_min ? IExpr::min(a, b, rg) : IExpr::max(a, b, rg);
        IExpr y = is_min ? IExpr::min(b, a, rg) : IExpr::max(b, a, rg);
        // Decided only one way round (`max(a, b)` asks a >= b): either answer is the value.
        piece = (x == a || x == b) ? x : (y == a || y == b) ? y : x;
        break;
      }
      case TermKind::Select:
        piece = IExpr::select(rebuilt(t.args[0], rg), t.cmp, rebuilt(t.args[1], rg), rebuilt(t.args[2], rg),
                              rebuilt(t.args[3], rg), rg);
        break;
    }
    out = out + piece * coeff;
  }
  return out;
}

}  // namespace loopnest
