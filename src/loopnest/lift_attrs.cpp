// Instance attributes are shared maps (AValue::attrs: Python objects are references). Two things
// follow for the lift:
// - A throw-away lift (the filled-list probe, a static_range tried as one loop, a loop tried as
//   host code) writes `self.x = ...` into the same maps the real lift reads: AttrsSnapshot keeps
//   their contents and puts them back, so nothing the throw-away lift set leaks into the form.
// - A loop of the form lifts its body once for every iteration. An attribute the body sets after
//   reading it (`st.scale` read, then `st.scale = 2.0`; a method's `self.n += 1`) holds another
//   value in later iterations than the one lifted, so the loop is refused with the attribute named
//   (a plain name carried that way is a carried value, lift_carry.cpp; an attribute has no buffer).
#include <functional>
#include <set>

#include <fmt/core.h>

#include "loopnest/lifter.h"
#include "nki/ast_walk.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

void collect(const AValue& v, std::set<const void*>& seen, std::vector<std::shared_ptr<std::map<std::string, AValue>>>& out) {
  if (v.attrs && seen.insert(v.attrs.get()).second) {
    out.push_back(v.attrs);
    for (const auto& [_, x] : *v.attrs) collect(x, seen, out);
  }
  for (const auto& x : v.items) collect(x, seen, out);
}

// The same value for the program: numbers, strings and tiles compared by what they hold.
bool same_value(const AValue& a, const AValue& b) {
  if (a.k != b.k) return false;
  switch (a.k) {
    case K::Int: return a.i == b.i;
    case K::Float: return a.f == b.f;
    case K::Bool: return a.b == b.b;
    case K::Str: return a.s == b.s;
    case K::Tile: return a.access == b.access;
    case K::Tuple: case K::List:
      if (a.items.size() != b.items.size()) return false;
      for (size_t i = 0; i < a.items.size(); ++i)
        if (!same_value(a.items[i], b.items[i])) return false;
      return true;
    case K::Instance: return a.attrs == b.attrs;
    default: return true;
  }
}

}  // namespace

Lifter::AttrsSnapshot Lifter::save_attrs() const {
  AttrsSnapshot s;
  std::set<const void*> seen;
  std::vector<std::shared_ptr<std::map<std::string, AValue>>> maps;
  for (const auto& [_, v] : env) collect(v, seen, maps);
  for (const auto& scope : closure_scopes)
    if (scope && seen.insert(scope.get()).second) {
      maps.push_back(scope);
      for (const auto& [_, x] : *scope) collect(x, seen, maps);
    }
  for (auto& m : maps) s.maps.emplace_back(m, *m);
  return s;
}

void Lifter::restore_attrs(const AttrsSnapshot& s) {
  for (const auto& [m, contents] : s.maps) *m = contents;
}

namespace {

// Whether the first use of `obj.attr` in `b`, in the order Python runs it, reads it (a method call
// on `obj` counts as a read: what it does to self is not visible here); nullopt when unused.
struct FirstUse {
  const std::string& obj;
  const std::string& attr;
  std::optional<bool> read;

  void expr(const Expr& e) {
    if (read) return;
    if (e.kind == ExprKind::Attribute) {
      auto& a = static_cast<const AttributeExpr&>(e);
      if (a.value->kind == ExprKind::Name && static_cast<const NameExpr&>(*a.value).id == obj) {
        read = true;  // `obj.attr` loaded, or `obj.method(...)` called
        return;
      }
    }
    for_each_child(const_cast<Expr&>(e), [&](ExprPtr& c) { expr(*c); });
  }
  bool is_target(const Expr& t) const {
    if (t.kind != ExprKind::Attribute) return false;
    auto& a = static_cast<const AttributeExpr&>(t);
    return a.attr == attr && a.value->kind == ExprKind::Name && static_cast<const NameExpr&>(*a.value).id == obj;
  }
  void block(const Block& b) {
    for (const auto& s : b) {
      if (read) return;
      switch (s->kind) {
        case StmtKind::Assign: {
          auto& x = static_cast<const AssignStmt&>(*s);
          expr(*x.value);
          for (const auto& t : x.targets) {
            if (read) return;
            if (is_target(*t)) read = false;
            else expr(*t);
          }
          break;
        }
        case StmtKind::AugAssign: {
          auto& x = static_cast<const AugAssignStmt&>(*s);
          expr(*x.value);
          if (!read && is_target(*x.target)) read = true;
          break;
        }
        case StmtKind::Expr: expr(*static_cast<const ExprStmt&>(*s).value); break;
        case StmtKind::Return:
          if (auto& v = static_cast<const ReturnStmt&>(*s).value) expr(*v);
          break;
        case StmtKind::If: {
          auto& x = static_cast<const IfStmt&>(*s);
          expr(*x.test);
          // Set in one branch only: the other may read the old value later.
          FirstUse a{obj, attr, read}, c{obj, attr, read};
          a.block(x.body), c.block(x.orelse);
          if (a.read == true || c.read == true) read = true;
          else if (a.read == false && c.read == false) read = false;
          break;
        }
        case StmtKind::For: expr(*static_cast<const ForStmt&>(*s).iter); block(static_cast<const ForStmt&>(*s).body); break;
        case StmtKind::While: expr(*static_cast<const WhileStmt&>(*s).test); block(static_cast<const WhileStmt&>(*s).body); break;
        case StmtKind::With: block(static_cast<const WithStmt&>(*s).body); break;
        default: break;
      }
    }
  }
};

}  // namespace

void Lifter::check_carried_attrs(const ForStmt& s, const AttrsSnapshot& before) {
  for (const auto& [m, old] : before.maps) {
    for (const auto& [key, was] : old) {
      auto now = m->find(key);
      if (now == m->end() || same_value(was, now->second)) continue;
      // The attribute changed in the body: the names of the kernel bound to its object.
      for (const auto& [name, v] : env) {
        if (v.k != K::Instance || v.attrs != m) continue;
        FirstUse use{name, key, std::nullopt};
        use.block(s.body);
        if (use.read != false) {
          carried_attr_refused = true;
          fail(s.span, fmt::format("a loop of the kernel whose body sets the attribute '{}.{}' after reading it (later "
                                   "iterations see another value than the first; the form lifts the body once)",
                                   name, key));
        }
      }
    }
  }
}

bool Lifter::sets_attributes(const Block& b) const {
  std::function<bool(const Expr&)> method_call = [&](const Expr& e) -> bool {
    if (e.kind == ExprKind::Call) {
      auto& c = static_cast<const CallExpr&>(e);
      if (c.func->kind == ExprKind::Attribute) {
        auto& a = static_cast<const AttributeExpr&>(*c.func);
        if (a.value->kind == ExprKind::Name) {
          auto it = env.find(static_cast<const NameExpr&>(*a.value).id);
          if (it != env.end() && it->second.k == K::Instance) return true;
        }
      }
    }
    bool found = false;
    for_each_child(const_cast<Expr&>(e), [&](ExprPtr& c) { found = found || method_call(*c); });
    return found;
  };
  for (const auto& s : b) {
    switch (s->kind) {
      case StmtKind::Assign: {
        auto& x = static_cast<const AssignStmt&>(*s);
        for (const auto& t : x.targets)
          if (t->kind == ExprKind::Attribute) return true;
        if (method_call(*x.value)) return true;
        break;
      }
      case StmtKind::AugAssign:
        if (static_cast<const AugAssignStmt&>(*s).target->kind == ExprKind::Attribute) return true;
        if (method_call(*static_cast<const AugAssignStmt&>(*s).value)) return true;
        break;
      case StmtKind::Expr:
        if (method_call(*static_cast<const ExprStmt&>(*s).value)) return true;
        break;
      case StmtKind::If:
        if (sets_attributes(static_cast<const IfStmt&>(*s).body) || sets_attributes(static_cast<const IfStmt&>(*s).orelse))
          return true;
        break;
      case StmtKind::For: if (sets_attributes(static_cast<const ForStmt&>(*s).body)) return true; break;
      case StmtKind::While: if (sets_attributes(static_cast<const WhileStmt&>(*s).body)) return true; break;
      case StmtKind::With: if (sets_attributes(static_cast<const WithStmt&>(*s).body)) return true; break;
      default: break;
    }
  }
  return false;
}

// Whether the block may read a host value that differs per iteration, which one loop of the form
// cannot hold: a Python number updated by `+=`, a conditional expression (a function or dtype chosen
// by the loop variable), a call of a function of the module or the kernel (which may update a
// number through `nonlocal` / `global`), or an item of a Python list or tuple of the kernel's names
// at a computed index (`outs[k]`, `fns[k]`). Only a guess at what to try: the loop still lifts as one
// where it can, and as its copies only where that fails for such a value (for_loop).
bool Lifter::may_vary_per_iteration(const Block& b) const {
  std::function<bool(const Expr&)> in_expr = [&](const Expr& e) -> bool {
    if (e.kind == ExprKind::IfExp) return true;
    if (e.kind == ExprKind::Subscript) {
      auto& s = static_cast<const SubscriptExpr&>(e);
      if (s.value->kind == ExprKind::Name && s.index->kind != ExprKind::Constant && s.index->kind != ExprKind::Slice) {
        auto it = env.find(static_cast<const NameExpr&>(*s.value).id);
        if (it != env.end() && (it->second.k == K::List || it->second.k == K::Tuple) && it->second.items.size() > 1)
          return true;
      }
    }
    if (e.kind == ExprKind::Call) {
      auto& c = static_cast<const CallExpr&>(e);
      if (c.func->kind == ExprKind::Name) {
        auto it = env.find(static_cast<const NameExpr&>(*c.func).id);
        if (it != env.end() && it->second.k == K::Func && it->second.s.rfind("user.", 0) == 0) return true;
      }
    }
    bool found = false;
    for_each_child(const_cast<Expr&>(e), [&](ExprPtr& c) { found = found || in_expr(*c); });
    return found;
  };
  for (const auto& s : b) {
    switch (s->kind) {
      case StmtKind::Assign: {
        auto& x = static_cast<const AssignStmt&>(*s);
        if (in_expr(*x.value)) return true;
        break;
      }
      case StmtKind::AugAssign: {
        auto& x = static_cast<const AugAssignStmt&>(*s);
        if (x.target->kind == ExprKind::Name) {
          auto it = env.find(static_cast<const NameExpr&>(*x.target).id);
          if (it != env.end() && (it->second.k == K::Int || it->second.k == K::Float)) return true;
        }
        if (in_expr(*x.value)) return true;
        break;
      }
      case StmtKind::Expr:
        if (in_expr(*static_cast<const ExprStmt&>(*s).value)) return true;
        break;
      case StmtKind::If: {
        auto& x = static_cast<const IfStmt&>(*s);
        if (may_vary_per_iteration(x.body) || may_vary_per_iteration(x.orelse)) return true;
        break;
      }
      case StmtKind::For: if (may_vary_per_iteration(static_cast<const ForStmt&>(*s).body)) return true; break;
      case StmtKind::While: if (may_vary_per_iteration(static_cast<const WhileStmt&>(*s).body)) return true; break;
      case StmtKind::With: if (may_vary_per_iteration(static_cast<const WithStmt&>(*s).body)) return true; break;
      default: break;
    }
  }
  return false;
}

}  // namespace loopnest::detail
