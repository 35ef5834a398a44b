// The lifter's iterator builtins (nki-language.md 3.1: ordinary Python runs at trace time):
// map(f, seq, ...) and filter(f, seq) over host sequences, f called once per item in order as the
// trace calls it (a lambda making a tile per item, `list(map(lambda c: nl.load(x[c]), range(4)))`,
// or a builtin, `TM, TN = map(int, shape)`); iter(seq) and next(it[, default]).
//
// map and filter are lists of their results (what unpacking, a for loop, list(), zip() and
// sorted() take of them). An iterator is a value holding the items it has left: next() of a name
// bound to one rebinds the name to what is left, and zip() of one name given several times
// (`zip(it, it)`, the pairing idiom) draws from it in turn, as Python's shared iterator does. A
// value (not a shared object) so that a rolled-back lift attempt (Lifter::checkpoint) restores it.
#include <cmath>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

AValue Lifter::call_value(AValue f, std::vector<AValue> pos, const Expr& at, const CallExpr& c) {
  std::vector<std::pair<std::string, AValue>> kw;
  while (f.k == K::Partial) {  // functools.partial: its bound arguments first
    const std::vector<AValue>& bound = f.items[0].items;
    pos.insert(pos.begin(), bound.begin(), bound.end());
    const AValue& bound_kw = f.items[1];
    for (size_t i = 0; i < bound_kw.keys.size(); ++i) kw.push_back({bound_kw.keys[i].s, bound_kw.items[i]});
    AValue inner = *f.self;
    f = std::move(inner);
  }
  if (f.k == K::Class) return construct(f, std::move(pos), std::move(kw), c);
  if (f.k == K::Method && f.self && f.self->k == K::Instance) return call_method(*f.self, f.s, std::move(pos), std::move(kw), c);
  if (f.k == K::Instance && helpers.count(f.s + ".__call__")) return call_method(f, "__call__", std::move(pos), std::move(kw), c);
  if (f.k == K::DType && pos.size() == 1 && kw.empty()) {  // map(np.float32, values)
    double x = number_of(pos[0]);
    if (!std::isnan(x)) return AValue::of_float(x, f.s);
  }
  if (f.k != K::Func) fail(at.span, fmt::format("'{}': a call of a value that is not a function", print_expr(c)));
  if (f.s.rfind("user.", 0) == 0) return inline_call(*helpers.at(f.s.substr(5)), std::move(pos), std::move(kw), c, f.items, f.attrs.get());
  std::vector<const Expr*> exprs(pos.size(), &at);
  if (auto v = host_call(f.s, pos, exprs, kw, c)) return *v;
  // An NKI API (`map(nl.exp, tiles)`): the items bound to its parameters by position.
  const std::string api = short_api(f.s);
  const ApiSpec* spec = find_api(api);
  if (!spec || pos.size() > spec->params.size())
    fail(at.span, fmt::format("'{}': a call of '{}' the lift does not evaluate per item", print_expr(c), f.s));
  std::vector<std::pair<std::string, AValue>> args;
  std::vector<std::pair<std::string, const Expr*>> origins;
  for (size_t i = 0; i < pos.size(); ++i) {
    args.push_back({spec->params[i], pos[i]});
    origins.push_back({spec->params[i], nullptr});
  }
  return apply(api, std::move(args), std::move(origins), c, nullptr);
}

std::optional<AValue> Lifter::iterable_call(const std::string& fn, const std::vector<AValue>& pos,
                                            const std::vector<const Expr*>& pos_exprs, const CallExpr& c) {
  auto items_of = [&](size_t i) {
    auto items = host_items(pos[i]);
    if (!items) fail(pos_exprs[i]->span, fmt::format("'{}': a host sequence was expected here", print_expr(*pos_exprs[i])));
    return *items;
  };
  if (fn == "builtins.map" && pos.size() >= 2) {
    // map(f, a, b): f(a[0], b[0]), f(a[1], b[1]), ... up to the shortest sequence.
    std::vector<std::vector<AValue>> seqs;
    for (size_t i = 1; i < pos.size(); ++i) seqs.push_back(items_of(i));
    size_t n = SIZE_MAX;
    for (const auto& s : seqs) n = std::min(n, s.size());
    AValue out = AValue::of_kind(K::List);
    for (size_t j = 0; j < n; ++j) {
      std::vector<AValue> args;
      for (const auto& s : seqs) args.push_back(s[j]);
      out.items.push_back(call_value(pos[0], std::move(args), *pos_exprs[0], c));
    }
    return out;
  }
  if (fn == "builtins.filter" && pos.size() == 2) {
    // filter(None, seq) keeps the true items; filter(f, seq) those f makes true, which must be
    // known at trace time (a tile's values are not).
    AValue out = AValue::of_kind(K::List);
    for (const AValue& x : items_of(1)) {
      AValue keep = pos[0].k == K::None ? x : call_value(pos[0], {x}, *pos_exprs[0], c);
      std::optional<bool> truth = host_truth(keep);
      if (!truth)
        fail(pos_exprs[0]->span, fmt::format("'{}': a filter whose condition is not known at trace time", print_expr(c)));
      if (*truth) out.items.push_back(x);
    }
    return out;
  }
  if (fn == "builtins.iter" && pos.size() == 1) {
    AValue it = AValue::of_kind(K::Iterator);
    it.items = items_of(0);
    return it;
  }
  if (fn == "builtins.next" && (pos.size() == 1 || pos.size() == 2)) {
    if (pos[0].k != K::Iterator && pos[0].k != K::List)
      fail(pos_exprs[0]->span, fmt::format("'{}': next() of a value that is not an iterator", print_expr(*pos_exprs[0])));
    // A generator expression is lifted as the list of its items (its first item is next()'s).
    if (pos[0].items.empty()) {
      if (pos.size() == 2) return pos[1];
      fail(c.span, fmt::format("'{}' of an exhausted iterator (StopIteration at trace time)", print_expr(c)));
    }
    AValue first = pos[0].items.front();
    if (pos[0].k == K::Iterator && pos_exprs[0]->kind == ExprKind::Name) {
      AValue rest = pos[0];
      rest.items.erase(rest.items.begin());
      env[static_cast<const NameExpr&>(*pos_exprs[0]).id] = std::move(rest);
    }
    return first;
  }
  if (fn == "builtins.zip" && pos.size() >= 2 && pos_exprs.size() == pos.size()) {
    // zip() of a name bound to an iterator given more than once draws from that iterator in turn.
    std::map<std::string, size_t> cursor;  // iterator names -> items drawn so far
    auto iterator_name = [&](size_t i) -> std::string {
      if (pos[i].k != K::Iterator || pos_exprs[i]->kind != ExprKind::Name) return "";
      return static_cast<const NameExpr&>(*pos_exprs[i]).id;
    };
    size_t shared = 0;
    for (size_t i = 0; i < pos.size(); ++i)
      if (auto n = iterator_name(i); !n.empty() && cursor.count(n)) ++shared;
      else if (!n.empty()) cursor[n] = 0;
    if (shared == 0) return std::nullopt;  // no iterator given twice: the plain zip
    std::vector<std::vector<AValue>> seqs;
    for (size_t i = 0; i < pos.size(); ++i) seqs.push_back(items_of(i));
    AValue out = AValue::of_kind(K::List);
    for (size_t j = 0;; ++j) {
      std::vector<AValue> row;
      bool done = false;
      for (size_t i = 0; i < pos.size() && !done; ++i) {
        std::string n = iterator_name(i);
        size_t& at = n.empty() ? j : cursor[n];
        if (at >= seqs[i].size()) {
          done = true;
          break;
        }
        row.push_back(seqs[i][n.empty() ? j : at++]);
      }
      if (done) break;
      out.items.push_back(AValue::of_tuple(std::move(row)));
    }
    for (const auto& [n, drawn] : cursor) {
      AValue rest = env.at(n);
      rest.items.erase(rest.items.begin(), rest.items.begin() + static_cast<long>(std::min(drawn, rest.items.size())));
      env[n] = std::move(rest);
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace loopnest::detail
