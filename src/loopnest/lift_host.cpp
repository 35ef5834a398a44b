// The lifter's host Python values beyond numbers and tuples: dicts (configuration tables, a
// dispatch table of nl functions, `**options` forwarded to calls), the items of a host sequence
// (a constant range, a tuple or list, zip / enumerate of them, a dict's keys), and loops over
// such sequences, which the kernel's Python unrolls while tracing.
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// Dict keys compare as Python compares strings, integers and bools (True == 1), and tuples of
// them item by item (`{(128, 512): 2.0}`, a shape-keyed table).
bool same_key(const AValue& a, const AValue& b) {
  if (a.k == K::Tuple || b.k == K::Tuple) {
    if (a.k != b.k || a.items.size() != b.items.size()) return false;
    for (size_t i = 0; i < a.items.size(); ++i)
      if (!same_key(a.items[i], b.items[i])) return false;
    return true;
  }
  auto as_int = [](const AValue& v) -> std::optional<int64_t> {
    if (v.k == K::Bool) return v.b ? 1 : 0;
    if (v.k == K::Int && v.i.is_constant()) return v.i.constant();
    return std::nullopt;
  };
  if (a.k == K::Str && b.k == K::Str) return a.s == b.s;
  auto x = as_int(a), y = as_int(b);
  return x && y && *x == *y;
}

}  // namespace

bool hashable_key(const AValue& v) {
  if (v.k == K::Tuple) return std::all_of(v.items.begin(), v.items.end(), [](const AValue& x) { return hashable_key(x); });
  return v.k == K::Str || v.k == K::Bool || (v.k == K::Int && v.i.is_constant());
}

// d[key] = value: a key already there keeps its place and takes the value (Python's dict order).
void dict_put(AValue& d, const AValue& key, const AValue& value) {
  for (size_t i = 0; i < d.keys.size(); ++i)
    if (same_key(d.keys[i], key)) {
      d.items[i] = value;
      return;
    }
  d.keys.push_back(key);
  d.items.push_back(value);
}

namespace {

// The (key, value) pairs of `dict.update(...)` / `dict(...)`'s arguments: a dict, then keywords.
bool merge_into(AValue& d, const std::vector<AValue>& pos, const std::vector<std::pair<std::string, AValue>>& kw) {
  if (pos.size() > 1 || (pos.size() == 1 && pos[0].k != K::Dict)) return false;
  if (!pos.empty())
    for (size_t i = 0; i < pos[0].keys.size(); ++i) dict_put(d, pos[0].keys[i], pos[0].items[i]);
  for (const auto& [name, v] : kw) dict_put(d, AValue::of_kind(K::Str, name), v);
  return true;
}

}  // namespace

AValue Lifter::make_set(const std::vector<AValue>& items, const Expr& at) const {
  AValue s = AValue::of_kind(K::Set);
  for (const auto& x : items) {
    if (!hashable_key(x)) fail(at.span, fmt::format("'{}': a set of values that are not constant integers or strings", print_expr(at)));
    bool seen = false;
    for (const auto& y : s.items) seen = seen || same_key(x, y);
    if (!seen) s.items.push_back(x);
  }
  return s;
}

std::optional<AValue> Lifter::set_binary(const AValue& a, BinOp op, const AValue& b, const Expr& at) const {
  if (a.k != K::Set || b.k != K::Set) return std::nullopt;
  auto has = [](const AValue& s, const AValue& x) {
    for (const auto& y : s.items)
      if (same_key(x, y)) return true;
    return false;
  };
  std::vector<AValue> out;
  switch (op) {
    case BinOp::BitOr: out = a.items, out.insert(out.end(), b.items.begin(), b.items.end()); break;
    case BinOp::BitAnd: for (const auto& x : a.items) if (has(b, x)) out.push_back(x); break;
    case BinOp::Sub: for (const auto& x : a.items) if (!has(b, x)) out.push_back(x); break;
    case BinOp::BitXor:
      for (const auto& x : a.items) if (!has(b, x)) out.push_back(x);
      for (const auto& x : b.items) if (!has(a, x)) out.push_back(x);
      break;
    default: return std::nullopt;
  }
  return make_set(out, at);
}

AValue Lifter::set_method(const AValue& set, const std::string& name, const std::vector<AValue>& pos, const CallExpr& c) {
  auto other = [&](size_t i) {
    auto items = i < pos.size() ? host_items(pos[i]) : std::nullopt;
    if (!items) fail(c.span, fmt::format("'{}': an argument that is not a host sequence", print_expr(c)));
    return make_set(*items, c);
  };
  auto subset = [&](const AValue& a, const AValue& b) { return set_binary(a, BinOp::Sub, b, c)->items.empty(); };
  if (name == "issubset" && pos.size() == 1) return AValue::of_bool(subset(set, other(0)));
  if (name == "issuperset" && pos.size() == 1) return AValue::of_bool(subset(other(0), set));
  if (name == "isdisjoint" && pos.size() == 1) return AValue::of_bool(set_binary(set, BinOp::BitAnd, other(0), c)->items.empty());
  if (name == "union" || name == "intersection" || name == "difference" || name == "symmetric_difference") {
    BinOp op = name == "union" ? BinOp::BitOr : name == "intersection" ? BinOp::BitAnd : name == "difference" ? BinOp::Sub : BinOp::BitXor;
    AValue r = set;
    for (size_t i = 0; i < pos.size(); ++i) r = *set_binary(r, op, other(i), c);
    return r;
  }
  if (name == "copy" && pos.empty()) return set;
  fail(c.span, fmt::format("the set method call '{}'", print_expr(c)));
}

const AValue* Lifter::dict_get(const AValue& dict, const AValue& key) const {
  for (size_t i = 0; i < dict.keys.size(); ++i)
    if (same_key(dict.keys[i], key)) return &dict.items[i];
  return nullptr;
}

std::optional<std::vector<AValue>> Lifter::host_items(const AValue& v) const {
  if (const Tensor* lt = list_tensor(v)) {
    // A list filled one tile per iteration of a loop (a list tensor, `blocks.append(t)`), iterated
    // after that loop: its blocks in order, each a constant index of the list's block dim.
    const Tensor& t = *lt;
    auto trip = k.loops.at(t.list_loop).trip();
    bool inside = std::find(loop_stack.begin(), loop_stack.end(), t.list_loop) != loop_stack.end();
    if (t.outer_lists.empty() && trip && !inside) {
      std::vector<AValue> out;
      for (int64_t i = 0; i < *trip; ++i) {
        Access a;
        a.tensor = t.id;
        a.dims.push_back({IExpr(i), {}});
        for (size_t d = 1; d < t.shape.size(); ++d) a.dims.push_back({IExpr(0), {{static_cast<int>(d - 1), t.shape[d], 1}}});
        out.push_back(AValue::of_tile(a));
      }
      return out;
    }
  }
  if (v.k == K::Tuple || v.k == K::List || v.k == K::Set || v.k == K::Iterator) return v.items;
  if (v.k == K::Dict) return v.keys;
  if (v.k == K::Range) {
    const IExpr &start = v.items[0].i, &stop = v.items[1].i, &step = v.items[2].i;
    if (!start.is_constant() || !stop.is_constant() || !step.is_constant() || step.constant() == 0) return std::nullopt;
    std::vector<AValue> out;
    for (int64_t x = start.constant(); step.constant() > 0 ? x < stop.constant() : x > stop.constant(); x += step.constant()) {
      out.push_back(AValue::of_int(x));
      if (out.size() > 100000) return std::nullopt;
    }
    return out;
  }
  return std::nullopt;
}

// `{"rows": 128, **defaults}`: keys evaluated in order, a later key replacing an earlier one.
AValue Lifter::dict_display(const DictExpr& d) {
  AValue out = AValue::of_kind(K::Dict);
  auto put = [&](const AValue& key, const AValue& value, const Expr& at) {
    if (!hashable_key(key)) fail(at.span, fmt::format("the dict key '{}' (a string or a constant integer is expected)", print_expr(at)));
    dict_put(out, key, value);
  };
  for (size_t i = 0; i < d.values.size(); ++i) {
    if (!d.keys[i]) {  // **mapping
      AValue m = eval(*d.values[i]);
      if (m.k != K::Dict) fail(d.values[i]->span, fmt::format("'**{}' of a value that is not a dict", print_expr(*d.values[i])));
      for (size_t j = 0; j < m.keys.size(); ++j) put(m.keys[j], m.items[j], *d.values[i]);
      continue;
    }
    put(eval(*d.keys[i]), eval(*d.values[i]), *d.keys[i]);
  }
  return out;
}

// Methods of a dict: items / keys / values as lists, get with its default.
AValue Lifter::dict_method(const AValue& dict, const std::string& name, const std::vector<AValue>& pos,
                           const CallExpr& c) {
  if (name == "items" && pos.empty()) {
    AValue out = AValue::of_kind(K::List);
    for (size_t i = 0; i < dict.keys.size(); ++i) out.items.push_back(AValue::of_tuple({dict.keys[i], dict.items[i]}));
    return out;
  }
  if ((name == "keys" || name == "values") && pos.empty()) {
    AValue out = AValue::of_kind(K::List);
    out.items = name == "keys" ? dict.keys : dict.items;
    return out;
  }
  if (name == "get" && (pos.size() == 1 || pos.size() == 2)) {
    if (const AValue* v = dict_get(dict, pos[0])) return *v;
    return pos.size() == 2 ? pos[1] : AValue::of_kind(K::None);
  }
  // `cfg.update(overrides)` of a dict bound to a name: the name's dict takes the pairs.
  if (name == "update" && c.func->kind == ExprKind::Attribute) {
    const Expr& receiver = *static_cast<const AttributeExpr&>(*c.func).value;
    std::vector<std::pair<std::string, AValue>> kw;
    for (const auto& k : c.keywords) kw.push_back({k.name, eval(*k.value)});
    AValue updated = dict;
    if (receiver.kind == ExprKind::Name && merge_into(updated, pos, kw)) {
      env[static_cast<const NameExpr&>(receiver).id] = updated;
      return AValue::of_kind(K::None);
    }
  }
  fail(c.span, fmt::format("the dict method call '{}'", print_expr(c)));
}

// zip(a, b, ...) and enumerate(a, start=0) of host sequences: lists of tuples.
std::optional<AValue> Lifter::host_sequence_call(const std::string& fn, const std::vector<AValue>& pos,
                                                 const std::vector<std::pair<std::string, AValue>>& kw,
                                                 const CallExpr& c) {
  auto items_of = [&](const AValue& v, size_t i) {
    auto items = host_items(v);
    if (!items) fail(c.args[i]->span, fmt::format("'{}': a host sequence was expected here", print_expr(*c.args[i])));
    return *items;
  };
  if (fn == "builtins.dict") {  // dict(), dict(mapping), dict(key=value, ...): a new dict
    AValue d = AValue::of_kind(K::Dict);
    if (!merge_into(d, pos, kw)) fail(c.span, fmt::format("'{}' (a dict or keywords are expected)", print_expr(c)));
    return d;
  }
  AValue out = AValue::of_kind(K::List);
  if (fn == "builtins.zip") {
    std::vector<std::vector<AValue>> seqs;
    for (size_t i = 0; i < pos.size(); ++i) seqs.push_back(items_of(pos[i], i));
    size_t n = seqs.empty() ? 0 : SIZE_MAX;
    for (auto& s : seqs) n = std::min(n, s.size());
    for (size_t j = 0; j < n; ++j) {
      std::vector<AValue> row;
      for (auto& s : seqs) row.push_back(s[j]);
      out.items.push_back(AValue::of_tuple(std::move(row)));
    }
    return out;
  }
  if (fn == "builtins.enumerate" && (pos.size() == 1 || pos.size() == 2)) {
    IExpr start = pos.size() == 2 ? int_of(pos[1], *c.args[1]) : IExpr(0);
    for (auto& [name, v] : kw)
      if (name == "start") start = int_of(v, c);
    if (!start.is_constant()) fail(c.span, "an enumerate() starting at a loop-dependent value");
    auto items = items_of(pos[0], 0);
    for (size_t j = 0; j < items.size(); ++j)
      out.items.push_back(AValue::of_tuple({AValue::of_int(start.constant() + static_cast<int64_t>(j)), items[j]}));
    if (pos[0].per_item)
      out.per_item = std::make_shared<AValue>(
          AValue::of_tuple({AValue::of_int(IExpr::var(kHostIndex) + start.constant()), *pos[0].per_item}));
    return out;
  }
  // itertools.product(range(T), range(U)) over tile indices: the tuples in Python's order (the
  // last sequence fastest), a host sequence a loop unrolls as a loop over a host list does.
  if (fn == "itertools.product") {
    int64_t repeat = 1;
    for (auto& [name, v] : kw) {
      if (name != "repeat" || v.k != K::Int || !v.i.is_constant() || v.i.constant() < 0)
        fail(c.span, fmt::format("'{}' (only a constant repeat= is known to itertools.product)", print_expr(c)));
      repeat = v.i.constant();
    }
    std::vector<std::vector<AValue>> pools;
    for (int64_t r = 0; r < repeat; ++r)
      for (size_t i = 0; i < pos.size(); ++i) pools.push_back(items_of(pos[i], i));
    std::vector<std::vector<AValue>> rows(1);
    for (const auto& pool : pools) {
      std::vector<std::vector<AValue>> next;
      for (const auto& prefix : rows)
        for (const auto& v : pool) {
          next.push_back(prefix);
          next.back().push_back(v);
          if (next.size() > 4096) fail(c.span, fmt::format("'{}' of more than 4096 tuples", print_expr(c)));
        }
      rows = std::move(next);
    }
    for (auto& r : rows) out.items.push_back(AValue::of_tuple(std::move(r)));
    return out;
  }
  if ((fn == "builtins.sorted" || fn == "builtins.reversed") && pos.size() == 1 && kw.empty()) {
    auto items = items_of(pos[0], 0);
    if (fn == "builtins.reversed") {
      out.items.assign(items.rbegin(), items.rend());
      return out;
    }
    for (const auto& x : items)
      if (x.k != K::Int || !x.i.is_constant()) fail(c.span, "a sorted() of values that are not constant integers");
    std::stable_sort(items.begin(), items.end(), [](const AValue& a, const AValue& b) { return a.i.constant() < b.i.constant(); });
    out.items = std::move(items);
    return out;
  }
  return std::nullopt;
}

void Lifter::record_closure_defaults(const std::string& name, const FunctionCode& code) {
  auto& defaults = closure_defaults[name];
  defaults.clear();
  for (const Parameter& p : code.params) {
    if (!p.default_value) continue;
    auto* saved_ops = current_ops;
    std::vector<Op> ignored;
    current_ops = &ignored;
    defaults[p.name] = eval(*p.default_value);
    current_ops = saved_ops;
    if (!ignored.empty()) fail(p.default_value->span, fmt::format("the default of '{}' computing a tile", p.name));
  }
}

// `lambda v: mul(v, nl.sigmoid(v))`: a function of the kernel, inlined at each call like a closure.
AValue Lifter::lambda(const LambdaExpr& l) {
  std::string name = fmt::format("<lambda>@{}:{}", l.span.line, l.span.col);
  helpers[name] = l.code.get();
  closures.insert(name);
  AValue f = AValue::of_kind(K::Func, "user." + name);
  if (inline_depth > 0) f.attrs = std::make_shared<std::map<std::string, AValue>>(env);  // inside a helper: its names
  // `lambda i, bm=BM: i * bm`: Python evaluates the defaults where the lambda is made, in the
  // scope making it, as a def's (closure_defaults); a default computing a tile is not a host value.
  record_closure_defaults(name, *l.code);
  return f;
}

std::optional<AValue> Lifter::functools_call(const std::string& fn, const std::vector<AValue>& pos,
                                             const std::vector<std::pair<std::string, AValue>>& kw, const CallExpr& c) {
  if (fn == "functools.partial" && !pos.empty()) {
    if (pos[0].k != K::Func && pos[0].k != K::Partial) fail(c.span, "a functools.partial of something that is not a function");
    AValue part = AValue::of_kind(K::Partial);
    part.self = std::make_shared<AValue>(pos[0]);
    AValue bound_kw = AValue::of_kind(K::Dict);
    for (auto& [n, v] : kw) bound_kw.keys.push_back(AValue::of_kind(K::Str, n)), bound_kw.items.push_back(v);
    part.items = {AValue::of_tuple(std::vector<AValue>(pos.begin() + 1, pos.end())), bound_kw};
    return part;
  }
  if (fn == "functools.reduce" && (pos.size() == 2 || pos.size() == 3) && kw.empty()) {
    // reduce(f, items[, initial]): f of the kernel (a def or a lambda) inlined once per item, or an
    // NKI API of two tiles (`functools.reduce(nl.maximum, tiles)`) applied once per item, as the
    // trace runs it: the statement holds the chain of operations.
    const ApiSpec* spec = nullptr;
    if (pos[0].k == K::Func && pos[0].s.rfind("user.", 0) != 0) {
      spec = find_api(short_api(pos[0].s));
      bool binary = spec && spec->shape == ShapeRule::Broadcast && spec->shape_from.size() == 2 &&
                    spec->params.size() >= 2 && spec->params[0] == spec->shape_from[0] &&
                    spec->params[1] == spec->shape_from[1];
      if (!binary)
        fail(c.args[0]->span, "a functools.reduce of a function that is neither the kernel's nor an NKI API of two operands");
    } else if (pos[0].k != K::Func) {
      fail(c.args[0]->span, "a functools.reduce of a function the kernel does not define");
    }
    auto items = host_items(pos[1]);
    if (!items) fail(c.args[1]->span, fmt::format("'{}': a host sequence was expected here", print_expr(*c.args[1])));
    size_t first = pos.size() == 3 ? 0 : 1;
    if (first == 1 && items->empty()) fail(c.span, "a functools.reduce of an empty sequence without an initial value");
    AValue acc = pos.size() == 3 ? pos[2] : (*items)[0];
    for (size_t i = first; i < items->size(); ++i) {
      if (spec) {
        acc = apply(short_api(pos[0].s), {{spec->params[0], acc}, {spec->params[1], (*items)[i]}},
                    {{spec->params[0], nullptr}, {spec->params[1], nullptr}}, c, nullptr);
        continue;
      }
      acc = inline_call(*helpers.at(pos[0].s.substr(5)), {acc, (*items)[i]}, {}, c);
    }
    return acc;
  }
  return std::nullopt;
}

// `for name, value in steps:` over a host sequence: the kernel's Python runs the body once per
// item while tracing, so the form holds one copy of the body per item, frozen (printed back as
// the loop the author wrote, which a transformation cannot change copy by copy).
void Lifter::host_for(const ForStmt& s, const AValue& seq, std::vector<Node>& out) {
  auto items = host_items(seq);
  if (!items) fail(s.iter->span, fmt::format("the loop over '{}' (not a range or a host sequence)", print_expr(*s.iter)));
  if (items->size() > 1024) fail(s.iter->span, "a host loop over more than 1024 items");
  if (!s.orelse.empty()) fail(s.span, "a for ... else over a host sequence");
  // A loop over a name bound to an iterator exhausts it (a later next() of it has nothing left).
  if (seq.k == K::Iterator && s.iter->kind == ExprKind::Name) {
    AValue spent = seq;
    spent.items.clear();
    env[static_cast<const NameExpr&>(*s.iter).id] = spent;
  }
  if (host_for_as_loop(s, seq, out)) return;
  if (host_for_as_item_loop(s, seq, out)) return;
  Node n = new_node(NodeKind::Inline, s);
  n.helper = "for";
  for (const AValue& item : *items) {
    bind_target(*s.target, item);
    block(s.body, n.body);
  }
  freeze(n);
  out.push_back(std::move(n));
}

}  // namespace loopnest::detail
