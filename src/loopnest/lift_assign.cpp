// Assignments (lifter.h): a name bound to a Python value or a tile, a tile written through a
// subscript (`t[i] = op(...)`: the instruction writes the region), list items, a display of
// several results, and augmented assignments (`acc += nl.matmul(...)`: an accumulation).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// A list of lists of results (`x_t = [[nl.transpose(nl.load(x[r, :, k])) for k in range(K)] for r
// in range(R)]`, a nested comprehension run copy by copy): each tile is known by its subscripts
// (`x_t[1][3]`), so a statement printed from the form that reads one (an opened helper's
// `x_rows[k]`, an opened loop over the rows) names it, as one level's items are (`tiles[0]`).
void name_nested_items(Kernel& k, const AValue& v, const std::string& path) {
  for (size_t i = 0; i < v.items.size(); ++i) {
    const AValue& item = v.items[i];
    const std::string sub = fmt::format("{}[{}]", path, i);
    if (item.k == K::List || item.k == K::Tuple) {
      name_nested_items(k, item, sub);
      continue;
    }
    if (item.k != K::Tile || !accesses_whole(k, item.access)) continue;
    Tensor& t = k.tensor(item.access.tensor);
    if (t.name.empty() && !t.host_list && t.list_loop < 0) t.name = sub;
  }
}

}  // namespace

void Lifter::note_binding_depth(const std::string& id, const AValue& v) {
  if (v.k == K::List && v.items.empty()) list_depth[id] = loop_stack.size();
  else list_depth.erase(id);
  if (v.k == K::Int || v.k == K::Float) number_loop[id] = loop_stack.empty() ? -1 : loop_stack.back();
  else number_loop.erase(id);
}

void Lifter::bind_target(const Expr& target, const AValue& v) {
  if (target.kind == ExprKind::Name) {
    const std::string& id = static_cast<const NameExpr&>(target).id;
    env[id] = v;
    // `s_parts, q_parts = [], []`: empty lists made here, appended per iteration at this depth
    // as `s_parts = []` is (Lifter::append).
    note_binding_depth(id, v);
    return;
  }
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
    auto& t = static_cast<const SequenceExpr&>(target);
    // One starred name takes what the others leave, as a list (`*_, n = x.shape`).
    size_t star = t.elts.size();
    for (size_t i = 0; i < t.elts.size(); ++i)
      if (t.elts[i]->kind == ExprKind::Starred) {
        if (star != t.elts.size()) fail(target.span, fmt::format("the unpacking '{}' (two starred names)", print_expr(target)));
        star = i;
      }
    size_t fixed = t.elts.size() - (star < t.elts.size() ? 1 : 0);
    if ((v.k != K::Tuple && v.k != K::List && v.k != K::Iterator) ||
        (star == t.elts.size() ? v.items.size() != fixed : v.items.size() < fixed))
      fail(target.span, fmt::format("the unpacking '{}'", print_expr(target)));
    size_t rest = v.items.size() - fixed;
    for (size_t i = 0, j = 0; i < t.elts.size(); ++i) {
      if (i == star) {
        AValue list = AValue::of_tuple({v.items.begin() + static_cast<long>(j), v.items.begin() + static_cast<long>(j + rest)});
        list.k = K::List;
        bind_target(*static_cast<const StarredExpr&>(*t.elts[i]).value, list);
        j += rest;
      } else {
        bind_target(*t.elts[i], v.items[j++]);
      }
    }
    return;
  }
  if (target.kind == ExprKind::Attribute) {  // `self.width = width`
    auto& a = static_cast<const AttributeExpr&>(target);
    AValue obj = eval(*a.value);
    if (obj.k == K::Instance) {
      set_instance_attr(obj, a.attr, v, target);
      return;
    }
  }
  fail(target.span, fmt::format("the assignment target '{}'", print_expr(target)));
}

bool Lifter::whole_access(const Access& a) const { return accesses_whole(k, a); }

bool Lifter::write_value(std::vector<Op>& ops, const AValue& v, const Access& dst, const Expr& target,
                         const Expr* value) {
  Op* root = producer(ops, v, k);
  if (root && root->result >= 0) {
    // `t[i] = op(...)`: the instruction writes the region directly.
    k.tensor(root->result).role = TensorRole::Value;
    k.tensor(root->result).name = "";
    root->result = -1;
    root->dst = dst;
    root->dst_origin = &target;
    return true;
  }
  Op copy;
  copy.api = "assign";
  copy.cls = OpClass::Copy;
  copy.engine = Engine::Vector;
  copy.dst = dst;
  copy.dst_origin = &target;
  copy.args.push_back({"src", to_operand(*this, v, value)});
  ops.push_back(std::move(copy));
  return false;
}

Op* producer(std::vector<Op>& ops, const AValue& v, const Kernel& k) {
  if (ops.empty() || v.k != K::Tile) return nullptr;
  Op& root = ops.back();
  int t = root.result >= 0 ? root.result : (root.dst ? root.dst->tensor : -1);
  if (t != v.access.tensor) return nullptr;
  // A whole access: every dim indexed from 0 by one axis over its full size.
  const Tensor& tensor = k.tensor(t);
  for (size_t d = 0; d < v.access.dims.size(); ++d) {
    const DimIndex& di = v.access.dims[d];
    if (!(di.start == IExpr(0)) || di.terms.size() != 1 || di.terms[0].axis != static_cast<int>(d) ||
        di.terms[0].stride != 1 || di.terms[0].size != tensor.shape[d])
      return nullptr;
  }
  return &root;
}

// `pid_m = nl.program_id(0)` in a launched function: its program loop, printed when the launch
// opens (`for pid_m in nl.affine_range(2)`), may take the author's name for the program's id
// instead of `program_id_0` (the first name bound to it; name_program_loops decides at the end).
void Lifter::name_program_loop(const std::string& id, const AValue& v) {
  if (v.k != K::Int || v.i.is_constant() || env.count(id)) return;
  std::vector<int> vars = v.i.vars();
  if (vars.size() != 1 || !(v.i == IExpr::var(vars[0])) || !k.loops.at(vars[0]).program) return;
  program_names.emplace(vars[0], id);
}

// The names name_program_loop found, where no other loop and no tensor of the kernel has it (a body
// rebinding `row` to a tile, or looping `for i` where `i = nl.program_id(1)`, keeps `program_id_N`).
void Lifter::name_program_loops() {
  for (const auto& [loop_id, name] : program_names) {
    bool taken = std::any_of(k.loops.begin(), k.loops.end(), [&](const auto& l) { return l.second.var == name; }) ||
                 std::any_of(k.tensors.begin(), k.tensors.end(), [&](const Tensor& t) {
                   return t.name == name || t.list_name == name;
                 });
    if (!taken) k.loops.at(loop_id).var = name;
  }
}

// `accs[g] = nl.add(accs[g], t)`: Python's item assignment into a list of the kernel (per-group
// accumulators), a host value rebound as a name is. Only where the trace runs it once per copy:
// in a loop of the form the item would hold one iteration's value in the next, a value carried
// through a host list, so such a loop lifts as its copies (for_loop) or not at all.
void Lifter::list_item_assign(const AssignStmt& s, const SubscriptExpr& sub, const AValue& v, std::vector<Op>& ops,
                              std::vector<Node>& out) {
  const std::string& id = static_cast<const NameExpr&>(*sub.value).id;
  AValue index = eval(*sub.index);
  if (!loop_stack.empty()) {
    per_iteration_host_refused = true;
    fail(s.targets[0]->span, fmt::format("the assignment to '{}', an item of a Python list, in a loop of the kernel "
                                         "(the item would carry one iteration's value to the next)",
                                         print_expr(*s.targets[0])));
  }
  AValue& list = env[id];
  if (index.k != K::Int || !index.i.is_constant())
    fail(sub.index->span, fmt::format("'{}': a list index that is not a constant integer", print_expr(*sub.index)));
  int64_t n = static_cast<int64_t>(list.items.size()), i = index.i.constant();
  if (i < 0) i += n;
  if (i < 0 || i >= n) fail(sub.index->span, fmt::format("'{}': index out of range", print_expr(*s.targets[0])));
  if (v.k == K::Tile) check_not_alias_of_carried(*s.targets[0], v);
  list.items[static_cast<size_t>(i)] = v;
  if (ops.empty()) {
    push_meta(s, MetaKind::Binding, out);
    return;
  }
  if (Op* root = producer(ops, v, k); root && root->result >= 0) {
    Tensor& t = k.tensor(root->result);
    if (t.name.empty()) t.name = fmt::format("{}[{}]", id, i);
    ++name_writes;
  }
  out.push_back(ops_node(s, std::move(ops)));
}

void Lifter::assign(const AssignStmt& s, std::vector<Node>& out) {
  if (s.targets.size() != 1) fail(s.span, "a chained assignment");
  const Expr& target = *s.targets[0];
  std::vector<Op> ops;
  current_ops = &ops;
  const nki::Expr* outer_unpacked = unpacked_comprehension;
  unpacked_comprehension = nullptr;
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
    const Expr* made = s.value.get();
    if (made->kind == ExprKind::Call) {  // `tuple(<generator>)`, `list(<comprehension>)`
      auto& call = static_cast<const CallExpr&>(*made);
      bool wraps = call.func->kind == ExprKind::Name && call.args.size() == 1 && call.keywords.empty() &&
                   (static_cast<const NameExpr&>(*call.func).id == "tuple" || static_cast<const NameExpr&>(*call.func).id == "list");
      made = wraps ? call.args[0].get() : nullptr;
    }
    if (made && (made->kind == ExprKind::ListComp || made->kind == ExprKind::GeneratorExp)) unpacked_comprehension = made;
  }
  assigned_comprehension = nullptr;
  if (target.kind == ExprKind::Name && s.value->kind == ExprKind::ListComp) {
    assigned_comprehension = s.value.get();
    assigned_statement = &s;
    assigned_name = static_cast<const NameExpr&>(target).id;
  }
  AValue v;
  try {
    v = eval(*s.value);
  } catch (...) {
    unpacked_comprehension = outer_unpacked;
    throw;
  }
  unpacked_comprehension = outer_unpacked;
  assigned_comprehension = nullptr;
  if (target.kind == ExprKind::Subscript) {
    auto& sub = static_cast<const SubscriptExpr&>(target);
    if (bind_filled(s, sub, v, ops, out)) return;
    if (bind_none_item(s, sub, v, ops, out)) return;  // lift_none_list.cpp
    AValue base = eval(*sub.value);
    if (base.k == K::Dict && sub.value->kind == ExprKind::Name && env.count(static_cast<const NameExpr&>(*sub.value).id)) {
      // `tiles["a"] = nl.load(a)`: Python's item assignment into a dict of the kernel, a host
      // value holding tiles as a list does; the statement's operations are its own. In a loop of
      // the form the item would hold one iteration's value after it, which no name of the form is.
      AValue key = eval(*sub.index);
      if (!hashable_key(key))
        fail(sub.index->span, fmt::format("'{}': a dict key that is not a string, a bool or a constant integer",
                                          print_expr(*sub.index)));
      if (!loop_stack.empty())
        fail(target.span, fmt::format("the assignment to '{}', an item of a dict, in a loop of the kernel (after the "
                                      "loop it would hold one iteration's value)", print_expr(target)));
      dict_put(env[static_cast<const NameExpr&>(*sub.value).id], key, v);
      if (ops.empty()) {
        push_meta(s, MetaKind::Binding, out);
        return;
      }
      // The tile the statement makes is known by the item's text (`tiles['a']`), as a name's is by
      // the name: a regenerated statement writes it there and its readers read it there.
      if (Op* root = producer(ops, v, k); root && root->result >= 0) {
        Tensor& t = k.tensor(root->result);
        if (t.name.empty()) t.name = print_expr(target);
        ++name_writes;
      }
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    if (base.k == K::List && sub.value->kind == ExprKind::Name && env.count(static_cast<const NameExpr&>(*sub.value).id)) {
      if (bind_fresh_item(s, sub, v, ops, out)) return;  // lift_bound_fresh.cpp
      list_item_assign(s, sub, v, ops, out);
      return;
    }
    if (base.k != K::Tile) fail(target.span, fmt::format("the assignment to '{}'", print_expr(target)));
    Access dst = subscript(base.access, *sub.index, target);
    if (write_value(ops, v, dst, target, s.value.get())) ++block_writes;
    out.push_back(ops_node(s, std::move(ops)));
    return;
  }
  if (target.kind == ExprKind::Name) {
    const std::string& id = static_cast<const NameExpr&>(target).id;
    filled.erase(id);  // a new list under the name
    note_none_list(id, v);
    if (auto keys = carried_items(id); !keys.empty()) {
      if (!pending_inline.empty()) {
        per_iteration_host_refused = true;
        fail(s.span, fmt::format("the rebinding of '{}', a tuple of tiles carried from one iteration to the next, to a "
                                 "helper's result (the form writes a carried tile by one operation of the statement)", id));
      }
      rebind_carried_items(s, keys, v, ops, out);  // lift_carry.cpp
      return;
    }
    if (carried.count(id)) {
      rebind_carried(s, id, v, producer(ops, v, k), ops);
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    check_not_alias_of_carried(target, v);
    if (!pending_inline.empty()) {
      env[id] = v;
      // The helper's result is known by this name from here on (its own name is local to it).
      if (v.k == K::Tile && whole_access(v.access)) k.tensor(v.access.tensor).name = id;
      // A list of fresh tiles made by a comprehension (Tensor::host_list) is printed by its name.
      if ((v.k == K::List || v.k == K::Tuple) && !v.items.empty() && v.items[0].k == K::Tile) {
        Tensor& t = k.tensor(v.items[0].access.tensor);
        if (t.host_list && t.list_name.empty()) {
          t.list_name = t.name = id;
        } else if (t.list_loop >= 0 && t.list_name.empty()) {
          // The list a helper returned by a comprehension lifted as its loop (lift_rolled.cpp).
          t.list_name = id;
          t.name = id + "_item";
        } else if (!t.host_list) {
          // A list of the results of a comprehension's calls (`tiles = [nl.load(x[s]) for s in
          // range(3)]`): each item is known by its subscript, so an operation reading one prints
          // (`nl.maximum(tiles[0], tiles[1])` of a functools.reduce printed from the form).
          for (size_t i = 0; i < v.items.size(); ++i) {
            const AValue& item = v.items[i];
            if (item.k != K::Tile || !whole_access(item.access)) continue;
            Tensor& it = k.tensor(item.access.tensor);
            if (it.name.empty() && !it.host_list && it.list_loop < 0) it.name = fmt::format("{}[{}]", id, i);
          }
        }
      } else if ((v.k == K::List || v.k == K::Tuple) && !v.items.empty()) {
        name_nested_items(k, v, id);
      }
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    if (!ops.empty()) {
      Op* root = producer(ops, v, k);
      if (!root && display_of_results(s, id, v, ops, out)) return;
      if (!root) fail(s.span, fmt::format("the assignment '{} = {}' (a value taken from an operation's result)", id,
                                          print_expr(*s.value)));
      Tensor& t = k.tensor(root->result >= 0 ? root->result : root->dst->tensor);
      if (t.name.empty()) t.name = id;
      if (root->result >= 0) ++name_writes;
      env[id] = v;
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    Node n = new_node(NodeKind::Meta, s);
    n.binds = {id};
    note_binding_depth(id, v);
    if (v.k == K::Tile) {
      n.meta = MetaKind::View;
      n.view = v.access;
      // `x_fold = x.reshape(...)`: the view is known by this name.
      if (whole_access(v.access) && k.tensor(v.access.tensor).name.empty()) k.tensor(v.access.tensor).name = id;
    } else {
      n.meta = MetaKind::Binding;
      name_program_loop(id, v);
    }
    env[id] = v;
    out.push_back(std::move(n));
    return;
  }
  // Operations of the statement itself are allowed only around a helper's work (`a, b =
  // rotate(x, nl.load(c))`: the loads are the helper's arguments, opened with it).
  if (pending_inline.empty() && unpacked_carried(s, target, v, ops, out)) return;
  if (!ops.empty() && pending_inline.empty() && unpacked_results(s, target, v, ops, out)) return;
  if (!ops.empty() && pending_inline.empty()) fail(s.span, "an unpacking of an operation's results");
  // `m_i, l_i = online_update(m_i, l_i, blk)`: tiles carried through the loop, rebound by unpacking
  // (a helper's tuple), which the form's buffers cannot hold (one operation writes a carried
  // tile): the loop may still lift as its copies (for_loop), the names rebound per copy as Python does.
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List)
    for (const auto& e : static_cast<const SequenceExpr&>(target).elts)
      if (e->kind == ExprKind::Name && carried.count(static_cast<const NameExpr&>(*e).id)) per_iteration_host_refused = true;
  check_not_alias_of_carried(target, v);
  bind_target(target, v);
  if (!pending_inline.empty()) {
    // `mean, var = stats(t)`: a helper returning several tiles. The statement is the helper's work
    // (an inline node); its results are known by the names they are unpacked into.
    if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
      auto& names = static_cast<const SequenceExpr&>(target);
      for (size_t i = 0; i < names.elts.size() && i < v.items.size(); ++i)
        if (names.elts[i]->kind == ExprKind::Name && v.items[i].k == K::Tile && whole_access(v.items[i].access))
          k.tensor(v.items[i].access.tensor).name = static_cast<const NameExpr&>(*names.elts[i]).id;
    }
    out.push_back(ops_node(s, std::move(ops)));
    return;
  }
  // `xr, xc = x_map(i, k)`: the names it binds, as a single name's binding has them, so a move
  // taking a statement that reads them out of this loop knows they are not bound where it goes.
  Node n = new_node(NodeKind::Meta, s);
  n.meta = MetaKind::Binding;
  std::function<void(const Expr&)> names = [&](const Expr& e) {
    if (e.kind == ExprKind::Name) n.binds.push_back(static_cast<const NameExpr&>(e).id);
    else if (e.kind == ExprKind::Starred) names(*static_cast<const StarredExpr&>(e).value);
    else if (e.kind == ExprKind::Tuple || e.kind == ExprKind::List)
      for (const auto& x : static_cast<const SequenceExpr&>(e).elts) names(*x);
  };
  names(target);
  out.push_back(std::move(n));
}

// `a, b = nl.multiply(t, 1.5), nl.multiply(t, 0.5)`: each name takes the tile its item's operation
// makes, as two assignments would, since Python evaluates the display before binding. The statement
// is one node, frozen (printed as written: no move changes one of its operations), its results named
// by their targets. Only fresh names: a name the loop carries keeps the refusal.
bool Lifter::unpacked_results(const AssignStmt& s, const Expr& target, const AValue& v, std::vector<Op>& ops,
                              std::vector<Node>& out) {
  if (target.kind != ExprKind::Tuple && target.kind != ExprKind::List) return false;
  if (s.value->kind != ExprKind::Tuple && s.value->kind != ExprKind::List) return false;
  const auto& names = static_cast<const SequenceExpr&>(target).elts;
  if ((v.k != K::Tuple && v.k != K::List) || v.items.size() != names.size()) return false;
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i]->kind != ExprKind::Name) return false;
    const std::string& id = static_cast<const NameExpr&>(*names[i]).id;
    if (!seen.insert(id).second || carried.count(id)) return false;
    const AValue& item = v.items[i];
    if (item.k == K::Tile) {
      const int t = item.access.tensor;
      bool made = std::any_of(ops.begin(), ops.end(), [&](const Op& op) { return op.result == t; });
      if (!made || !accesses_whole(k, item.access)) return false;
    } else if (item.k == K::Instance || item.k == K::List || item.k == K::Tuple || item.k == K::Dict) {
      return false;
    }
  }
  for (size_t i = 0; i < names.size(); ++i)
    if (v.items[i].k == K::Tile && k.tensor(v.items[i].access.tensor).name.empty())
      k.tensor(v.items[i].access.tensor).name = static_cast<const NameExpr&>(*names[i]).id;
  bind_target(target, v);
  Node n = ops_node(s, std::move(ops));
  freeze(n);
  out.push_back(std::move(n));
  return true;
}

// `a, b = nl.add(a, t), nl.add(b, t)` rebinding names the loop carries (and fresh names beside
// them): each carried name's item is written into its buffer (rebind_carried_items), each fresh
// name takes its item as a plain unpacking would. False (nothing changed) when no name is carried.
bool Lifter::unpacked_carried(const AssignStmt& s, const Expr& target, const AValue& v, std::vector<Op>& ops,
                              std::vector<Node>& out) {
  if (carried.empty() || (target.kind != ExprKind::Tuple && target.kind != ExprKind::List)) return false;
  const auto& names = static_cast<const SequenceExpr&>(target).elts;
  std::vector<std::string> keys;
  bool any = false;
  for (const auto& e : names) {
    bool carried_name = e->kind == ExprKind::Name && carried.count(static_cast<const NameExpr&>(*e).id);
    keys.push_back(carried_name ? static_cast<const NameExpr&>(*e).id : "");
    any = any || carried_name;
  }
  if (!any) return false;
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i]->kind != ExprKind::Name || !seen.insert(static_cast<const NameExpr&>(*names[i]).id).second) {
      per_iteration_host_refused = true;
      fail(names[i]->span, fmt::format("the unpacking into '{}' beside names carried from one iteration to the next "
                                       "(only distinct plain names are rebound by one statement)", print_expr(*names[i])));
    }
    if (keys[i].empty() && i < v.items.size()) check_not_alias_of_carried(*names[i], v.items[i]);
  }
  rebind_carried_items(s, keys, v, ops, out);  // lift_carry.cpp
  for (size_t i = 0; i < names.size(); ++i) {
    if (!keys[i].empty()) continue;
    const std::string& id = static_cast<const NameExpr&>(*names[i]).id;
    const AValue& item = v.items[i];
    if (item.k == K::Tile && whole_access(item.access) && k.tensor(item.access.tensor).name.empty())
      k.tensor(item.access.tensor).name = id;
    filled.erase(id);
    env[id] = item;
  }
  return true;
}

bool Lifter::display_of_results(const AssignStmt& s, const std::string& id, const AValue& v, std::vector<Op>& ops,
                                std::vector<Node>& out) {
  if ((v.k != K::Dict && v.k != K::Tuple && v.k != K::List) || v.items.empty()) return false;
  if (s.value->kind != ExprKind::Dict && s.value->kind != ExprKind::Tuple && s.value->kind != ExprKind::List)
    return false;
  std::vector<std::pair<int, std::string>> names;  // result tensor -> the item's text
  for (size_t i = 0; i < v.items.size(); ++i) {
    if (v.items[i].k != K::Tile) continue;
    const int t = v.items[i].access.tensor;
    // A fresh result, or a buffer the statement declares and fills (`(nl.zeros(..), nl.full(..))`).
    bool made = std::any_of(ops.begin(), ops.end(), [&](const Op& op) {
      return op.result == t || (op.result < 0 && op.dst && op.dst->tensor == t && k.tensor(t).role == TensorRole::Buffer);
    });
    if (!made || !accesses_whole(k, v.items[i].access)) return false;
    std::optional<std::string> key =
        v.k == K::Dict ? py_literal(v.keys[i]) : std::optional<std::string>(std::to_string(i));
    if (!key) return false;
    names.push_back({t, fmt::format("{}[{}]", id, *key)});
  }
  if (names.empty()) return false;
  for (const auto& [t, name] : names)
    if (k.tensor(t).name.empty()) k.tensor(t).name = name;
  env[id] = v;
  Node n = ops_node(s, std::move(ops));
  freeze(n);
  out.push_back(std::move(n));
  return true;
}

namespace {

// `cur op= v` of two Python numbers as Python computes it: integers stay integers (a product by a
// constant, floor division and remainder of constants; sums of loop expressions), a float on
// either side or a true division gives a float. nullopt for what the lift cannot compute.
std::optional<AValue> host_number_update(const AValue& cur, BinOp op, const AValue& v) {
  using K = AValue::K;
  auto num = [](const AValue& x) -> std::optional<double> {
    if (x.k == K::Float) return x.f;
    if (x.k == K::Int && x.i.is_constant()) return static_cast<double>(x.i.constant());
    return std::nullopt;
  };
  if (cur.k == K::Int && v.k == K::Int) {
    if (op == BinOp::Add) return AValue::of_int(cur.i + v.i);
    if (op == BinOp::Sub) return AValue::of_int(cur.i - v.i);
    if (op == BinOp::Mul && v.i.is_constant()) return AValue::of_int(cur.i * v.i.constant());
    if (op == BinOp::Mul && cur.i.is_constant()) return AValue::of_int(v.i * cur.i.constant());
    if ((op == BinOp::FloorDiv || op == BinOp::Mod) && cur.i.is_constant() && v.i.is_constant() && v.i.constant() != 0) {
      int64_t a = cur.i.constant(), b = v.i.constant();
      int64_t q = a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);  // Python floors
      return AValue::of_int(IExpr(op == BinOp::FloorDiv ? q : a - q * b));
    }
  }
  auto x = num(cur), y = num(v);
  if (!x || !y || !(cur.k == K::Float || v.k == K::Float || op == BinOp::Div)) return std::nullopt;
  if (op == BinOp::Add) return AValue::of_float(*x + *y);
  if (op == BinOp::Sub) return AValue::of_float(*x - *y);
  if (op == BinOp::Mul) return AValue::of_float(*x * *y);
  if (op == BinOp::Div && *y != 0) return AValue::of_float(*x / *y);
  return std::nullopt;
}

}  // namespace

void Lifter::aug_assign(const AugAssignStmt& s, std::vector<Node>& out) {
  std::vector<Op> ops;
  current_ops = &ops;
  AValue v = eval(*s.value);
  AValue t;
  if (s.target->kind == ExprKind::Name) {
    t = eval(*s.target);
    if (t.k == K::Set) {  // `done |= {r}`: a host value, rebound
      auto r = set_binary(t, s.op, v, *s.target);
      if (!r) fail(s.span, "this augmented assignment of a set");
      env[static_cast<const NameExpr&>(*s.target).id] = *r;
      push_meta(s, MetaKind::Binding, out);
      return;
    }
    if ((t.k == K::List || t.k == K::Tuple) && (v.k == K::List || v.k == K::Tuple) && s.op == BinOp::Add && ops.empty() &&
        pending_inline.empty()) {
      // `tiles += [(r, c) for c in cols]` of a host list: Python extends it (a tuple is rebound to
      // the concatenation). In a loop of the form, or under a condition on a loop variable, which
      // items it holds would differ per iteration: refused (the loop may still lift as its copies).
      if (!loop_stack.empty() || guarded > 0) {
        per_iteration_host_refused = true;
        fail(s.span, "a Python list extended in a loop (its items differ per iteration)");
      }
      auto& items = env[static_cast<const NameExpr&>(*s.target).id].items;
      items.insert(items.end(), v.items.begin(), v.items.end());
      push_meta(s, MetaKind::Binding, out);
      return;
    }
    if (t.k == K::Int || t.k == K::Float) {
      const std::string& id = static_cast<const NameExpr&>(*s.target).id;
      auto bound = number_loop.find(id);
      if (!loop_stack.empty() && (bound == number_loop.end() || bound->second != loop_stack.back())) {
        // `count += 1` of an int bound outside the loop: a counter its loops count
        // (lift_counter.cpp); any other update differs per iteration in a way the form cannot hold.
        if (t.k == K::Int && v.k == K::Int && ops.empty() && (s.op == BinOp::Add || s.op == BinOp::Sub)) {
          bump_cell(id, s);
        } else {
          per_iteration_host_refused = true;  // the loop may still lift as its copies (for_loop)
          fail(s.span, "a Python value updated in a loop (its value differs per iteration)");
        }
      }
      // `rows *= s` over a shape's dims, `scale /= 2.0`: what Python computes.
      auto r = host_number_update(t, s.op, v);
      if (!r) fail(s.span, "this augmented assignment of a Python value");
      env[static_cast<const NameExpr&>(*s.target).id] = *r;
      push_meta(s, MetaKind::Binding, out);
      return;
    }
    if (t.k != K::Tile) fail(s.target->span, fmt::format("the accumulation into '{}'", print_expr(*s.target)));
  } else if (s.target->kind == ExprKind::Subscript) {
    auto& sub = static_cast<const SubscriptExpr&>(*s.target);
    AValue base = eval(*sub.value);
    if (base.k == K::Tile) {
      t = AValue::of_tile(subscript(base.access, *sub.index, *s.target));
    } else {
      // An item of a host list of tiles (`accs[n] += nl.matmul(...)`, one PSUM accumulator per
      // column block): the item is the tile accumulated into.
      t = eval(*s.target);
      if (t.k == K::Int && counter_item(s, sub, base, v, ops.empty(), out)) return;
      if (t.k != K::Tile) fail(s.target->span, fmt::format("the accumulation into '{}'", print_expr(*s.target)));
    }
  } else if (s.target->kind == ExprKind::Attribute &&
             eval(*static_cast<const AttributeExpr&>(*s.target).value).k == K::Instance) {
    // `self.k += 1` of a helper object: its attribute updated as Python does. In a loop of the form
    // the value then differs per iteration, which check_carried_attrs sees after the body.
    auto& a = static_cast<const AttributeExpr&>(*s.target);
    AValue obj = eval(*a.value);
    if (!ops.empty()) fail(s.span, fmt::format("'{}' updated by a tile operation", print_expr(*s.target)));
    AValue cur = eval(*s.target);
    auto num = [](const AValue& x) -> std::optional<double> {
      if (x.k == K::Float) return x.f;
      if (x.k == K::Int && x.i.is_constant()) return static_cast<double>(x.i.constant());
      return std::nullopt;
    };
    AValue r;
    if (cur.k == K::Int && v.k == K::Int && (s.op == BinOp::Add || s.op == BinOp::Sub)) {
      r = AValue::of_int(s.op == BinOp::Add ? cur.i + v.i : cur.i - v.i);
    } else if (cur.k == K::Int && v.k == K::Int && s.op == BinOp::Mul && v.i.is_constant()) {
      r = AValue::of_int(cur.i * v.i.constant());
    } else if (auto x = num(cur), y = num(v); x && y && (cur.k == K::Float || v.k == K::Float || s.op == BinOp::Div) &&
                                              (s.op == BinOp::Add || s.op == BinOp::Sub || s.op == BinOp::Mul ||
                                               (s.op == BinOp::Div && *y != 0))) {
      double z = s.op == BinOp::Add ? *x + *y : s.op == BinOp::Sub ? *x - *y : s.op == BinOp::Mul ? *x * *y : *x / *y;
      r = AValue::of_float(z);
    } else {
      fail(s.span, fmt::format("the augmented assignment '{} {}= ...' of an attribute", print_expr(*s.target), symbol(s.op)));
    }
    set_instance_attr(obj, a.attr, r, *s.target);
    push_meta(s, MetaKind::Binding, out);
    return;
  } else {
    fail(s.target->span, "this accumulation target");
  }
  if (s.op != BinOp::Add) {
    // `t -= mu`, `t *= 2.0`, `t /= d`: the interpreter updates the tile in place (NkiTensorObj::
    // inplace_op), i.e. `t[...] = t - mu`: the element-wise operation written into t's access.
    static const std::map<BinOp, const char*> apis = {{BinOp::Sub, "nl.subtract"}, {BinOp::Mul, "nl.multiply"},
                                                      {BinOp::Div, "nl.divide"}, {BinOp::Pow, "nl.power"},
                                                      {BinOp::BitAnd, "nl.bitwise_and"}, {BinOp::BitOr, "nl.bitwise_or"},
                                                      {BinOp::BitXor, "nl.bitwise_xor"}, {BinOp::LShift, "nl.left_shift"},
                                                      {BinOp::RShift, "nl.right_shift"}};
    auto api = apis.find(s.op);
    if (api == apis.end()) fail(s.span, fmt::format("a '{}=' update of a tile", symbol(s.op)));
    AValue r = apply(api->second, {{"x", t}, {"y", v}}, {{"x", s.target.get()}, {"y", s.value.get()}}, *s.target, nullptr);
    Op* op = producer(ops, r, k);
    if (!op || op->result < 0) fail(s.span, fmt::format("a '{}=' update of a tile", symbol(s.op)));
    k.tensor(op->result).name = "";
    op->result = -1;
    op->dst = t.access;
    // No dst_origin: printed from the form the write reads `accs[1][...] = nl.subtract(...)`; the
    // author's target text with `=` (`accs[1] = ...`) would rebind the name or the list's item.
    out.push_back(ops_node(s, std::move(ops)));
    return;
  }
  Op* root = producer(ops, v, k);
  if (root && root->result >= 0) {
    k.tensor(root->result).name = "";
    root->result = -1;
    root->dst = t.access;
    root->dst_origin = s.target.get();
    root->accumulate = true;
  } else {
    Op acc;
    acc.api = "assign";
    acc.cls = OpClass::Copy;
    acc.engine = Engine::Vector;
    acc.dst = t.access;
    acc.dst_origin = s.target.get();
    acc.accumulate = true;
    acc.args.push_back({"src", to_operand(*this, v, s.value.get())});
    ops.push_back(std::move(acc));
  }
  out.push_back(ops_node(s, std::move(ops)));
}

}  // namespace loopnest::detail
