// A list of numbers a loop fills with tiles by item assignment: a scan's carry per state,
//   carry = [0.0] * S
//   for c in nl.sequential_range(C):
//     for s in nl.sequential_range(S):
//       h = scan(..., initial=carry[s])
//       carry[s] = nl.copy(h[:, F - 1:F])
// Python reads 0.0 in the first chunk and the tile the chunk before bound in the others. The form
// holds the list as one on-chip buffer with a block dim over its items (host_list, bound_items):
// a read is its item's tile, with the number in the iterations before the item's first binding
// (Operand::number_when, as `0.0 if c == 0 else carry[s]` lifts); a binding writes the item. The
// dependence analysis then sees the value carried from one chunk to the next.
//
// The items' tile shape is known only where the body binds one, after the first read: the body is
// lifted once by a throw-away copy of the lifter (reads give the number, as in the first
// iteration), which records the shape of the first tile bound to each list.
#include <fmt/core.h>

#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// The number every item of a host list holds, or nullopt (a tile among them, different numbers).
std::optional<AValue> same_number(const AValue& list) {
  if (list.k != K::List || list.items.empty()) return std::nullopt;
  const AValue& first = list.items[0];
  auto number = [](const AValue& v) { return v.k == K::Float || (v.k == K::Int && v.i.is_constant()); };
  for (const AValue& v : list.items) {
    if (!number(v) || v.k != first.k) return std::nullopt;
    if (v.k == K::Float ? v.f != first.f || v.type != first.type : !(v.i == first.i)) return std::nullopt;
  }
  return first;
}

// Names the block binds by item assignment (`name[i] = v`) and names it rebinds (`name = v`),
// through nested blocks of loops, conditionals and with statements.
void bound_names(const Block& b, std::set<std::string>& items, std::set<std::string>& names) {
  for (const auto& s : b) {
    switch (s->kind) {
      case StmtKind::Assign:
        for (const auto& t : static_cast<const AssignStmt&>(*s).targets) {
          if (t->kind == ExprKind::Subscript) {
            auto& sub = static_cast<const SubscriptExpr&>(*t);
            if (sub.value->kind == ExprKind::Name) items.insert(static_cast<const NameExpr&>(*sub.value).id);
          } else if (t->kind == ExprKind::Name) {
            names.insert(static_cast<const NameExpr&>(*t).id);
          }
        }
        break;
      case StmtKind::For: bound_names(static_cast<const ForStmt&>(*s).body, items, names); break;
      case StmtKind::If:
        bound_names(static_cast<const IfStmt&>(*s).body, items, names);
        bound_names(static_cast<const IfStmt&>(*s).orelse, items, names);
        break;
      case StmtKind::With: bound_names(static_cast<const WithStmt&>(*s).body, items, names); break;
      default: break;
    }
  }
}

// The whole item `index` of the list's buffer `t` (tensor id `id`).
Access item_access(const Tensor& t, int id, const IExpr& index) {
  Access a;
  a.tensor = id;
  a.dims.push_back({index, {}});
  for (size_t d = 1; d < t.shape.size(); ++d) a.dims.push_back({IExpr(0), {{static_cast<int>(d - 1), t.shape[d], 1}}});
  return a;
}

}  // namespace

std::vector<std::string> Lifter::fill_lists(const ForStmt& s) {
  std::vector<std::string> out;
  if (fill_probe) return out;  // a probe lifts the body as the first iteration runs it
  std::set<std::string> items, names;
  bound_names(s.body, items, names);
  std::vector<std::string> candidates;
  for (const auto& name : items) {
    auto it = env.find(name);
    if (it == env.end() || names.count(name) || filled.count(name) || !same_number(it->second)) continue;
    candidates.push_back(name);
  }
  if (candidates.empty()) return out;
  std::map<std::string, ItemShape> shapes;
  {
    const AttrsSnapshot attrs = save_attrs();  // what the probe sets through `self` is not the lift's
    Lifter probe = *this;
    probe.fill_probe = &shapes;
    std::vector<Node> scratch;
    try {
      probe.loop_body(s.body, scratch);  // as for_loop lifts it (a guard clause's continue)
    } catch (...) {
      // The real lift meets the same construct and names it.
    }
    restore_attrs(attrs);
  }
  for (const auto& name : candidates) {
    auto shape = shapes.find(name);
    // Bound at several items per iteration: which reads see the number is not one condition.
    if (shape == shapes.end() || !shape->second.one_index) continue;
    const AValue& list = env.at(name);
    Tensor t;
    t.name = t.list_name = name;
    t.role = TensorRole::Buffer;
    t.memory = shape->second.memory;
    t.dtype = shape->second.dtype;
    t.shape.push_back(IExpr(static_cast<int64_t>(list.items.size())));
    for (const auto& d : shape->second.shape) t.shape.push_back(d);
    t.partition_dim = 1;
    t.host_list = true;
    t.bound_items = true;
    t.scope_loop = loop_stack.size() >= 2 ? loop_stack[loop_stack.size() - 2] : -1;
    FilledList f;
    f.tensor = new_tensor(std::move(t));
    f.loop = loop_stack.back();
    f.depth = inline_depth;
    f.number = *same_number(list);
    f.index = shape->second.index;
    filled[name] = std::move(f);
    out.push_back(name);
  }
  return out;
}

std::optional<AValue> Lifter::read_filled(const std::string& name, const AValue& base, const AValue& index,
                                          const Expr& at) {
  if (index.k != K::Int) return std::nullopt;
  if (fill_probe) {
    // The first iteration: every item still holds the number.
    if (auto n = same_number(base)) return n;
    return std::nullopt;
  }
  auto it = filled.find(name);
  if (it == filled.end() || it->second.depth != inline_depth) return std::nullopt;
  FilledList& f = it->second;
  if (f.done)
    fail(at.span, fmt::format("'{}': an item of a list a loop filled with tiles, read after that loop (the form holds "
                              "its items only inside it)",
                              print_expr(at)));
  AValue v = AValue::of_tile(item_access(k.tensor(f.tensor), f.tensor, index.i));
  if (f.bound_at) {
    // Read after this pass's binding: the tile just bound, when it is the same item.
    if (!(*f.bound_at == index.i))
      fail(at.span, fmt::format("'{}': an item of a list read after another item was bound in the same iteration",
                                print_expr(at)));
    return v;
  }
  // The item holds the number until the first iteration that binds it: while every loop from the
  // one filling the list inward, except those choosing the item, is at its first iteration. That
  // holds for the item the iterations bind; another one may never be bound.
  if (!(index.i == f.index))
    fail(at.span, fmt::format("'{}': an item of a list a loop fills with tiles, other than the item it binds", print_expr(at)));
  IExpr first_iterations(0);
  bool inside = false;
  for (int l : loop_stack) {
    inside = inside || l == f.loop;
    if (!inside || index.i.uses(l)) continue;
    const Loop& loop = k.loops.at(l);
    if (!(loop.start == IExpr(0)) || loop.step != 1)
      fail(at.span, fmt::format("'{}': an item of a list filled by a loop that does not count from 0 by 1", print_expr(at)));
    first_iterations = first_iterations + IExpr::var(l);
  }
  v.instead = std::make_shared<AValue>(f.number);
  v.cl = first_iterations, v.cmp = Cmp::Eq, v.cr = IExpr(0);
  return v;
}

bool Lifter::bind_filled(const AssignStmt& s, const SubscriptExpr& target, const AValue& v, std::vector<Op>& ops,
                         std::vector<Node>& out) {
  if (target.value->kind != ExprKind::Name) return false;
  const std::string& name = static_cast<const NameExpr&>(*target.value).id;
  if (fill_probe) {
    auto it = env.find(name);
    if (it == env.end() || !same_number(it->second)) return false;
    AValue index = eval(*target.index);
    auto seen = fill_probe->find(name);
    if (seen != fill_probe->end()) {
      seen->second.one_index = seen->second.one_index && index.k == K::Int && seen->second.index == index.i;
    } else if (v.k == K::Tile && index.k == K::Int) {
      const Tensor& t = k.tensor(v.access.tensor);
      (*fill_probe)[name] = {v.access.tile_shape(), t.dtype, t.memory, index.i, true};
    }
    out.push_back(ops_node(s, std::move(ops)));
    return true;
  }
  auto it = filled.find(name);
  if (it == filled.end() || it->second.depth != inline_depth || it->second.done) return false;
  FilledList& f = it->second;
  auto refuse = [&](const std::string& why) {
    fail(s.span, fmt::format("the binding of '{}', an item of a list carried through a loop ({})", print_expr(target), why));
  };
  if (guarded > 0) refuse("under a condition on a loop variable: which iterations bind it is not known");
  AValue index = eval(*target.index);
  if (index.k != K::Int) refuse("its index is not an integer");
  if (v.k != K::Tile) refuse("to a value that is no tile");
  const Tensor& t = k.tensor(f.tensor);
  std::vector<IExpr> item(t.shape.begin() + 1, t.shape.end());
  if (v.access.tile_shape() != item) refuse("to a tile of another shape than the list's first");
  write_value(ops, v, item_access(t, f.tensor, index.i), target, s.value.get());
  f.bound_at = index.i;
  out.push_back(ops_node(s, std::move(ops)));
  return true;
}

}  // namespace loopnest::detail
