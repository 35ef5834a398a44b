#include "loopnest/iexpr.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <numeric>
#include <set>

#include <fmt/core.h>

namespace loopnest {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) { return a - b * floor_div(a, b); }

const char* symbol(Cmp c) {
  switch (c) {
    case Cmp::Lt: return "<";
    case Cmp::Le: return "<=";
    case Cmp::Gt: return ">";
    case Cmp::Ge: return ">=";
    case Cmp::Eq: return "==";
    case Cmp::Ne: return "!=";
  }
  return "?";
}

bool holds(int64_t l, Cmp c, int64_t r) {
  switch (c) {
    case Cmp::Lt: return l < r;
    case Cmp::Le: return l <= r;
    case Cmp::Gt: return l > r;
    case Cmp::Ge: return l >= r;
    case Cmp::Eq: return l == r;
    case Cmp::Ne: return l != r;
  }
  return false;
}

namespace {

std::string canon(const IExpr& e) {
  return e.str([](int v) { return fmt::format("v{}", v); });
}

// Whether `l c r` holds for every (1) or no (0) value of the variables; nullopt if undecided.
std::optional<bool> decide(const IExpr& l, Cmp c, const IExpr& r, const Ranges* ranges) {
  IExpr d = l - r;
  if (d.is_constant()) return holds(d.constant(), c, 0);
  if (!ranges) return std::nullopt;
  auto b = d.bounds(*ranges);
  if (!b) return std::nullopt;
  auto [lo, hi] = *b;
  switch (c) {
    case Cmp::Lt: if (hi < 0) return true; if (lo >= 0) return false; break;
    case Cmp::Le: if (hi <= 0) return true; if (lo > 0) return false; break;
    case Cmp::Gt: if (lo > 0) return true; if (hi <= 0) return false; break;
    case Cmp::Ge: if (lo >= 0) return true; if (hi < 0) return false; break;
    case Cmp::Eq: if (lo == 0 && hi == 0) return true; if (lo > 0 || hi < 0) return false; break;
    case Cmp::Ne: if (lo > 0 || hi < 0) return true; if (lo == 0 && hi == 0) return false; break;
  }
  return std::nullopt;
}

}  // namespace

std::string Term::key() const {
  switch (kind) {
    case TermKind::Var: return fmt::format("a{:06d}", var);
    case TermKind::FloorDiv: return fmt::format("f({})//{}", canon(args[0]), divisor);
    case TermKind::Mod: return fmt::format("m({})%{}", canon(args[0]), divisor);
    case TermKind::Min: return fmt::format("n({},{})", canon(args[0]), canon(args[1]));
    case TermKind::Max: return fmt::format("x({},{})", canon(args[0]), canon(args[1]));
    case TermKind::Select:
      return fmt::format("s({}{}{}?{}:{})", canon(args[0]), symbol(cmp), canon(args[1]), canon(args[2]),
                         canon(args[3]));
  }
  return "?";
}

void IExpr::add_term(const Term& t, int64_t coeff) {
  if (coeff == 0) return;
  std::string k = t.key();
  auto it = terms_.find(k);
  if (it == terms_.end()) {
    terms_.emplace(k, std::make_pair(t, coeff));
    return;
  }
  it->second.second += coeff;
  if (it->second.second == 0) terms_.erase(it);
}

std::string IExpr::key_list() const {
  std::string out;
  for (const auto& [k, tc] : terms_) out += fmt::format("{}*{};", tc.second, k);
  return out;
}

IExpr IExpr::var(int id) {
  IExpr e;
  Term t;
  t.kind = TermKind::Var;
  t.var = id;
  e.add_term(t, 1);
  return e;
}

bool IExpr::is_affine() const {
  return std::all_of(terms_.begin(), terms_.end(), [](const auto& kv) { return kv.second.first.kind == TermKind::Var; });
}

int64_t IExpr::coeff(int var) const {
  for (const auto& [k, tc] : terms_)
    if (tc.first.kind == TermKind::Var && tc.first.var == var) return tc.second;
  return 0;
}

bool IExpr::uses(int var) const {
  for (const auto& [k, tc] : terms_) {
    if (tc.first.kind == TermKind::Var && tc.first.var == var) return true;
    for (const auto& a : tc.first.args)
      if (a.uses(var)) return true;
  }
  return false;
}

std::vector<int> IExpr::vars() const {
  std::set<int> out;
  for (const auto& [k, tc] : terms_) {
    if (tc.first.kind == TermKind::Var) out.insert(tc.first.var);
    for (const auto& a : tc.first.args)
      for (int v : a.vars()) out.insert(v);
  }
  return {out.begin(), out.end()};
}

IExpr IExpr::operator+(const IExpr& o) const {
  IExpr r = *this;
  r.constant_ += o.constant_;
  for (const auto& [k, tc] : o.terms_) r.add_term(tc.first, tc.second);
  return r;
}

IExpr IExpr::operator-() const { return *this * -1; }
IExpr IExpr::operator-(const IExpr& o) const { return *this + (-o); }

IExpr IExpr::operator*(int64_t k) const {
  IExpr r;
  if (k == 0) return r;
  r.constant_ = constant_ * k;
  for (const auto& [key, tc] : terms_) r.terms_.emplace(key, std::make_pair(tc.first, tc.second * k));
  return r;
}

std::optional<IExpr> IExpr::times(const IExpr& o) const {
  if (o.is_constant()) return *this * o.constant_;
  if (is_constant()) return o * constant_;
  return std::nullopt;
}

IExpr IExpr::floordiv(const IExpr& e, int64_t d, const Ranges* ranges) {
  if (d == 1) return e;
  if (d < 0) return floordiv(-e, -d, ranges);  // floor(e / -d) = floor(-e / d)
  // e = d*Q + R with every coefficient of R in [0, d): floor(e / d) = Q + floor(R / d).
  IExpr q, r;
  q.constant_ = floor_div(e.constant_, d);
  r.constant_ = floor_mod(e.constant_, d);
  for (const auto& [k, tc] : e.terms_) {
    q.add_term(tc.first, floor_div(tc.second, d));
    r.add_term(tc.first, floor_mod(tc.second, d));
  }
  if (r.is_constant()) return q + IExpr(floor_div(r.constant_, d));
  if (ranges) {
    if (auto b = r.bounds(*ranges)) {
      if (floor_div(b->first, d) == floor_div(b->second, d)) return q + IExpr(floor_div(b->first, d));
    }
  }
  Term t;
  t.kind = TermKind::FloorDiv;
  t.divisor = d;
  t.args = {r};
  q.add_term(t, 1);
  return q;
}

IExpr IExpr::mod(const IExpr& e, int64_t d, const Ranges* ranges) {
  if (d < 0) return -mod(-e, -d, ranges);
  if (d == 1) return IExpr(0);
  IExpr r;
  r.constant_ = floor_mod(e.constant_, d);
  for (const auto& [k, tc] : e.terms_) r.add_term(tc.first, floor_mod(tc.second, d));
  if (r.is_constant()) return IExpr(floor_mod(r.constant_, d));
  if (ranges) {
    if (auto b = r.bounds(*ranges); b && b->first >= 0 && b->second < d) return r;
  }
  Term t;
  t.kind = TermKind::Mod;
  t.divisor = d;
  t.args = {r};
  IExpr out;
  out.add_term(t, 1);
  return out;
}

IExpr IExpr::min(const IExpr& a, const IExpr& b, const Ranges* ranges) {
  if (auto le = decide(a, Cmp::Le, b, ranges)) return *le ? a : b;
  Term t;
  t.kind = TermKind::Min;
  t.args = canon(a) < canon(b) ? std::vector<IExpr>{a, b} : std::vector<IExpr>{b, a};
  IExpr out;
  out.add_term(t, 1);
  return out;
}

IExpr IExpr::max(const IExpr& a, const IExpr& b, const Ranges* ranges) {
  if (auto ge = decide(a, Cmp::Ge, b, ranges)) return *ge ? a : b;
  Term t;
  t.kind = TermKind::Max;
  t.args = canon(a) < canon(b) ? std::vector<IExpr>{a, b} : std::vector<IExpr>{b, a};
  IExpr out;
  out.add_term(t, 1);
  return out;
}

IExpr IExpr::select(const IExpr& l, Cmp c, const IExpr& r, const IExpr& then, const IExpr& otherwise,
                    const Ranges* ranges) {
  if (then == otherwise) return then;
  if (auto d = decide(l, c, r, ranges)) return *d ? then : otherwise;
  // `x if a <= b else y` with x - y = b - a is min-like: keep the general form, normalized.
  Term t;
  t.kind = TermKind::Select;
  t.cmp = c;
  t.args = {l - r, IExpr(0), then, otherwise};
  IExpr out;
  out.add_term(t, 1);
  return out;
}

IExpr IExpr::substitute(int var, const IExpr& with, const Ranges* ranges) const {
  IExpr out(constant_);
  for (const auto& [k, tc] : terms_) {
    const Term& t = tc.first;
    IExpr piece;
    switch (t.kind) {
      case TermKind::Var: piece = t.var == var ? with : IExpr::var(t.var); break;
      case TermKind::FloorDiv: piece = floordiv(t.args[0].substitute(var, with, ranges), t.divisor, ranges); break;
      case TermKind::Mod: piece = mod(t.args[0].substitute(var, with, ranges), t.divisor, ranges); break;
      case TermKind::Min:
        piece = min(t.args[0].substitute(var, with, ranges), t.args[1].substitute(var, with, ranges), ranges);
        break;
      case TermKind::Max:
        piece = max(t.args[0].substitute(var, with, ranges), t.args[1].substitute(var, with, ranges), ranges);
        break;
      case TermKind::Select:
        piece = select(t.args[0].substitute(var, with, ranges), t.cmp, t.args[1].substitute(var, with, ranges),
                       t.args[2].substitute(var, with, ranges), t.args[3].substitute(var, with, ranges), ranges);
        break;
    }
    out = out + piece * tc.second;
  }
  return out;
}

std::optional<int64_t> IExpr::eval(const std::map<int, int64_t>& values) const {
  int64_t total = constant_;
  for (const auto& [k, tc] : terms_) {
    const Term& t = tc.first;
    int64_t v = 0;
    std::vector<int64_t> a;
    for (const auto& arg : t.args) {
      auto x = arg.eval(values);
      if (!x) return std::nullopt;
      a.push_back(*x);
    }
    switch (t.kind) {
      case TermKind::Var: {
        auto it = values.find(t.var);
        if (it == values.end()) return std::nullopt;
        v = it->second;
        break;
      }
      case TermKind::FloorDiv: v = floor_div(a[0], t.divisor); break;
      case TermKind::Mod: v = floor_mod(a[0], t.divisor); break;
      case TermKind::Min: v = std::min(a[0], a[1]); break;
      case TermKind::Max: v = std::max(a[0], a[1]); break;
      case TermKind::Select: v = holds(a[0], t.cmp, a[1]) ? a[2] : a[3]; break;
    }
    total += tc.second * v;
  }
  return total;
}

std::optional<std::pair<int64_t, int64_t>> IExpr::bounds(const Ranges& ranges) const {
  int64_t lo = constant_, hi = constant_;
  for (const auto& [k, tc] : terms_) {
    const Term& t = tc.first;
    int64_t tlo = 0, thi = 0;
    std::vector<std::pair<int64_t, int64_t>> a;
    for (const auto& arg : t.args) {
      auto b = arg.bounds(ranges);
      if (!b) return std::nullopt;
      a.push_back(*b);
    }
    switch (t.kind) {
      case TermKind::Var: {
        auto it = ranges.find(t.var);
        if (it == ranges.end()) return std::nullopt;
        tlo = it->second.first, thi = it->second.second;
        break;
      }
      case TermKind::FloorDiv: tlo = floor_div(a[0].first, t.divisor), thi = floor_div(a[0].second, t.divisor); break;
      case TermKind::Mod:
        if (a[0].first >= 0 && a[0].second < t.divisor) tlo = a[0].first, thi = a[0].second;
        else tlo = 0, thi = t.divisor - 1;
        break;
      case TermKind::Min: tlo = std::min(a[0].first, a[1].first), thi = std::min(a[0].second, a[1].second); break;
      case TermKind::Max: tlo = std::max(a[0].first, a[1].first), thi = std::max(a[0].second, a[1].second); break;
      case TermKind::Select: tlo = std::min(a[2].first, a[3].first), thi = std::max(a[2].second, a[3].second); break;
    }
    int64_t c = tc.second;
    if (c >= 0) lo += c * tlo, hi += c * thi;
    else lo += c * thi, hi += c * tlo;
  }
  return std::make_pair(lo, hi);
}

std::string IExpr::str(const std::function<std::string(int)>& name) const {
  std::string out;
  auto summand = [&](const Term& t) -> std::pair<std::string, bool> {  // text, is a sum
    auto inner = [&](const IExpr& e) {
      std::string s = e.str(name);
      bool sum = e.terms_.size() + (e.constant_ != 0 ? 1 : 0) > 1;
      return sum ? "(" + s + ")" : s;
    };
    switch (t.kind) {
      case TermKind::Var: return {name(t.var), false};
      case TermKind::FloorDiv: return {fmt::format("{} // {}", inner(t.args[0]), t.divisor), true};
      case TermKind::Mod: return {fmt::format("{} % {}", inner(t.args[0]), t.divisor), true};
      case TermKind::Min: return {fmt::format("min({}, {})", t.args[0].str(name), t.args[1].str(name)), false};
      case TermKind::Max: return {fmt::format("max({}, {})", t.args[0].str(name), t.args[1].str(name)), false};
      case TermKind::Select:
        return {fmt::format("({} if {} {} {} else {})", t.args[2].str(name), t.args[0].str(name), symbol(t.cmp),
                            t.args[1].str(name), t.args[3].str(name)),
                false};
    }
    return {"?", false};
  };
  // Summands in the order of their text (variables by name), not of the ids the variables have:
  // the same expression prints the same however its loops were numbered.
  std::vector<std::tuple<std::string, std::string, bool, int64_t>> parts;  // sort key, text, compound, coeff
  for (const auto& [k, tc] : terms_) {
    auto [text, compound] = summand(tc.first);
    parts.emplace_back((tc.first.kind == TermKind::Var ? "0" : "1") + text, text, compound, tc.second);
  }
  std::sort(parts.begin(), parts.end());
  for (const auto& [key, text, compound, c] : parts) {
    std::string piece = std::llabs(c) == 1 ? text : fmt::format("{}*{}", std::llabs(c), compound ? "(" + text + ")" : text);
    if (out.empty()) out = c < 0 ? "-" + piece : piece;
    else out += (c < 0 ? " - " : " + ") + piece;
  }
  if (out.empty()) return std::to_string(constant_);
  if (constant_ > 0) out += fmt::format(" + {}", constant_);
  if (constant_ < 0) out += fmt::format(" - {}", -constant_);
  return out;
}

}  // namespace loopnest
