#include "loopnest/literal_constants.h"

#include <cstdlib>
#include <functional>

#include "loopnest/iexpr.h"
#include "nki/ast_walk.h"
#include "nki/value.h"
#include "trn/tile_limits.h"

namespace loopnest {

std::optional<int64_t> size_expression_value(const nki::Expr& e, const std::map<std::string, int64_t>& known) {
  using nki::ExprKind;
  switch (e.kind) {
    case ExprKind::Constant: {
      const nki::Value& v = static_cast<const nki::ConstantExpr&>(e).value;
      if (v.is_int()) return v.as_int();
      return std::nullopt;
    }
    case ExprKind::Name: {
      auto it = known.find(static_cast<const nki::NameExpr&>(e).id);
      if (it == known.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::Attribute: {
      // `nl.tile_size.gemm_moving_fmax`: the limit, whatever the language module is called.
      const auto& a = static_cast<const nki::AttributeExpr&>(e);
      if (!a.value || a.value->kind != ExprKind::Attribute ||
          static_cast<const nki::AttributeExpr&>(*a.value).attr != "tile_size")
        return std::nullopt;
      for (const auto& limit : trn::limits::tile_size)
        if (limit.name == a.attr) return limit.value;
      return std::nullopt;
    }
    case ExprKind::UnaryOp: {
      const auto& u = static_cast<const nki::UnaryOpExpr&>(e);
      auto v = u.operand ? size_expression_value(*u.operand, known) : std::nullopt;
      if (!v || (u.op != nki::UnOp::Neg && u.op != nki::UnOp::Pos)) return std::nullopt;
      return u.op == nki::UnOp::Neg ? -*v : *v;
    }
    case ExprKind::BinOp: {
      const auto& b = static_cast<const nki::BinOpExpr&>(e);
      auto l = b.left ? size_expression_value(*b.left, known) : std::nullopt;
      auto r = b.right ? size_expression_value(*b.right, known) : std::nullopt;
      if (!l || !r) return std::nullopt;
      const int64_t limit = int64_t{1} << 40;  // sizes; nothing near overflow
      if (std::abs(*l) > limit || std::abs(*r) > limit) return std::nullopt;
      switch (b.op) {
        case nki::BinOp::Add: return *l + *r;
        case nki::BinOp::Sub: return *l - *r;
        case nki::BinOp::Mul: return *l * *r;
        case nki::BinOp::FloorDiv: return *r == 0 ? std::nullopt : std::optional<int64_t>(floor_div(*l, *r));
        case nki::BinOp::Mod: return *r == 0 ? std::nullopt : std::optional<int64_t>(floor_mod(*l, *r));
        default: return std::nullopt;
      }
    }
    default: return std::nullopt;
  }
}

namespace {

// The (name, value) pairs one assignment binds: `NAME = v`, and `P, F = 128, 512` (a tuple or list of
// names unpacking a display of as many values) name by name. Empty for any other shape.
std::vector<std::pair<std::string, const nki::Expr*>> bound_pairs(const nki::AssignStmt& a) {
  if (a.targets.size() != 1 || !a.value) return {};
  const nki::Expr& t = *a.targets[0];
  if (t.kind == nki::ExprKind::Name) return {{static_cast<const nki::NameExpr&>(t).id, a.value.get()}};
  const bool seq = [](nki::ExprKind k) { return k == nki::ExprKind::Tuple || k == nki::ExprKind::List; }(t.kind);
  if (!seq || (a.value->kind != nki::ExprKind::Tuple && a.value->kind != nki::ExprKind::List)) return {};
  const auto& names = static_cast<const nki::SequenceExpr&>(t).elts;
  const auto& values = static_cast<const nki::SequenceExpr&>(*a.value).elts;
  if (names.size() != values.size()) return {};
  std::vector<std::pair<std::string, const nki::Expr*>> out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i]->kind != nki::ExprKind::Name) return {};
    out.push_back({static_cast<const nki::NameExpr&>(*names[i]).id, values[i].get()});
  }
  return out;
}

// Counts each name target `t` binds (inside tuple, list and starred targets too) in `bound`.
void count_names(const nki::Expr& t, std::map<std::string, int>& bound) {
  if (t.kind == nki::ExprKind::Name) ++bound[static_cast<const nki::NameExpr&>(t).id];
  if (t.kind == nki::ExprKind::Tuple || t.kind == nki::ExprKind::List)
    for (const auto& x : static_cast<const nki::SequenceExpr&>(t).elts) count_names(*x, bound);
  if (t.kind == nki::ExprKind::Starred) count_names(*static_cast<const nki::StarredExpr&>(t).value, bound);
}

// The text of a string literal.
std::optional<std::string> string_literal(const nki::Expr& e) {
  if (e.kind != nki::ExprKind::Constant) return std::nullopt;
  const nki::Value& v = static_cast<const nki::ConstantExpr&>(e).value;
  if (!v.is(nki::ObjType::Str)) return std::nullopt;
  return static_cast<const nki::StrObj&>(*v.object()).s;
}

// `TILE = {"P": 128, "F": 1024}` at module level, bound by no other module statement: its entries
// with string keys and size values, by dict name and key (an assistant-drafted kernel's tile sizes,
// read in the kernel as `P, F = TILE["P"], TILE["F"]`).
std::map<std::string, std::map<std::string, LiteralBinding>> module_size_dicts(const nki::ModuleAst& module,
                                                                              const std::map<std::string, int64_t>& known) {
  std::map<std::string, int> bound;
  std::map<std::string, std::map<std::string, LiteralBinding>> out;
  for (const auto& s : module.body) {
    if (s->kind != nki::StmtKind::Assign) continue;
    const auto& a = static_cast<const nki::AssignStmt&>(*s);
    for (const auto& t : a.targets) count_names(*t, bound);
    if (a.targets.size() != 1 || a.targets[0]->kind != nki::ExprKind::Name || !a.value ||
        a.value->kind != nki::ExprKind::Dict)
      continue;
    const std::string& id = static_cast<const nki::NameExpr&>(*a.targets[0]).id;
    const auto& d = static_cast<const nki::DictExpr&>(*a.value);
    for (size_t i = 0; i < d.keys.size() && i < d.values.size(); ++i) {
      auto key = d.keys[i] ? string_literal(*d.keys[i]) : std::nullopt;
      auto v = key && d.values[i] ? size_expression_value(*d.values[i], known) : std::nullopt;
      if (v) out[id][*key] = {*key, d.values[i].get(), *v};
    }
  }
  for (auto it = out.begin(); it != out.end();) it = bound[it->first] == 1 ? std::next(it) : out.erase(it);
  return out;
}

}  // namespace

// `NAME = 2048` (or an expression of such names and limits, `NAME = 4 * nl.tile_size.pmax`; or one
// name of `P, F = 128, 512`) at module level, bound by no other module statement: a library
// kernel's tile size, passed by its entry point to the implementation (`_impl(x, out, ROWS, COLS)`),
// whose ceil-div trips and tail masks are written for any value of it.
std::vector<LiteralBinding> module_size_constants(const nki::ModuleAst& module) {
  std::map<std::string, int> bound;
  std::map<std::string, int64_t> known;  // in statement order: a name reads the ones above it
  std::vector<LiteralBinding> single;
  for (const auto& s : module.body) {
    if (s->kind != nki::StmtKind::Assign) continue;
    const auto& a = static_cast<const nki::AssignStmt&>(*s);
    auto pairs = bound_pairs(a);
    if (pairs.empty()) {
      // Every name the statement binds, inside tuple targets too (`P, F = sizes()`), is bound again.
      std::map<std::string, int> here;
      for (const auto& t : a.targets) count_names(*t, here);
      for (const auto& [id, n] : here) {
        bound[id] += n;
        known.erase(id);
      }
      continue;
    }
    for (const auto& [id, value] : pairs) {
      if (bound[id]++ != 0) {
        known.erase(id);
        continue;
      }
      if (auto v = size_expression_value(*value, known)) {
        known[id] = *v;
        single.push_back({id, value, *v});
      }
    }
  }
  std::vector<LiteralBinding> out;
  for (auto& b : single)
    if (bound[b.name] == 1) out.push_back(b);
  return out;
}

std::map<std::string, int> binding_counts(const nki::Block& body) {
  std::map<std::string, int> count;
  auto target = [&](const nki::Expr* e) {
    if (e) count_names(*e, count);
  };
  std::function<void(const nki::Block&)> block = [&](const nki::Block& b) {
    for (const auto& st : b) {
      switch (st->kind) {
        case nki::StmtKind::Assign:
          for (const auto& t : static_cast<const nki::AssignStmt&>(*st).targets) target(t.get());
          break;
        case nki::StmtKind::AugAssign: target(static_cast<const nki::AugAssignStmt&>(*st).target.get()); break;
        case nki::StmtKind::AnnAssign: target(static_cast<const nki::AnnAssignStmt&>(*st).target.get()); break;
        case nki::StmtKind::For: {
          const auto& f = static_cast<const nki::ForStmt&>(*st);
          target(f.target.get());
          block(f.body);
          block(f.orelse);
          break;
        }
        case nki::StmtKind::While: {
          const auto& w = static_cast<const nki::WhileStmt&>(*st);
          block(w.body);
          block(w.orelse);
          break;
        }
        case nki::StmtKind::If: {
          const auto& i = static_cast<const nki::IfStmt&>(*st);
          block(i.body);
          block(i.orelse);
          break;
        }
        case nki::StmtKind::With: {
          const auto& w = static_cast<const nki::WithStmt&>(*st);
          for (const auto& item : w.items) target(item.target.get());
          block(w.body);
          break;
        }
        case nki::StmtKind::Try: {
          const auto& t = static_cast<const nki::TryStmt&>(*st);
          block(t.body);
          for (const auto& h : t.handlers) {
            target(h.target.get());
            block(h.body);
          }
          block(t.orelse);
          block(t.finalbody);
          break;
        }
        case nki::StmtKind::FunctionDef:
          ++count[static_cast<const nki::FunctionDefStmt&>(*st).code->name];
          break;
        case nki::StmtKind::ClassDef: ++count[static_cast<const nki::ClassDefStmt&>(*st).code->name]; break;
        case nki::StmtKind::Global:
          for (const auto& n : static_cast<const nki::GlobalStmt&>(*st).names) count[n] += 2;
          break;
        default: break;
      }
    }
  };
  block(body);
  auto& mutable_body = const_cast<nki::Block&>(body);  // the walk only reads
  nki::for_each_expr(mutable_body, [&](nki::ExprPtr& p) {
    if (p && p->kind == nki::ExprKind::NamedExpr) target(static_cast<const nki::NamedExpr&>(*p).target.get());
  });
  return count;
}

// `NAME = 1024` among the kernel's own top-level statements (or one name of `P, F = 128, 512`),
// bound by no other statement of it and not a parameter: a tile size an author keeps as a local
// (`TP = 128; TF = 1024` at the top of an HPC-style kernel), the same choice as a module constant,
// and a site under the same rule. Given the module, a local bound to an entry of a module dict of
// sizes (`F = TILE["F"]`) is that entry: the edit is the dict's value.
std::vector<LiteralBinding> local_size_constants(const nki::FunctionCode& fn, const nki::ModuleAst* module) {
  std::map<std::string, int> bound = binding_counts(fn.body);
  for (const nki::Parameter& p : fn.params) bound[p.name] += 2;
  std::map<std::string, std::map<std::string, LiteralBinding>> dicts;
  if (module) {
    std::map<std::string, int64_t> module_known;
    for (const auto& b : module_size_constants(*module)) module_known[b.name] = b.value;
    dicts = module_size_dicts(*module, module_known);
    for (auto it = dicts.begin(); it != dicts.end();) it = bound.count(it->first) ? dicts.erase(it) : std::next(it);
  }
  // `TILE["F"]`: the entry of a module dict of sizes the kernel does not rebind.
  auto dict_entry = [&](const nki::Expr& e) -> const LiteralBinding* {
    if (e.kind != nki::ExprKind::Subscript) return nullptr;
    const auto& sub = static_cast<const nki::SubscriptExpr&>(e);
    if (!sub.value || sub.value->kind != nki::ExprKind::Name || !sub.index) return nullptr;
    auto d = dicts.find(static_cast<const nki::NameExpr&>(*sub.value).id);
    auto key = string_literal(*sub.index);
    if (d == dicts.end() || !key) return nullptr;
    auto entry = d->second.find(*key);
    return entry == d->second.end() ? nullptr : &entry->second;
  };
  std::vector<LiteralBinding> out;
  std::map<std::string, int64_t> known;  // the kernel's own constants above a statement
  for (const auto& s : fn.body) {
    if (s->kind != nki::StmtKind::Assign) continue;
    for (const auto& [id, value] : bound_pairs(static_cast<const nki::AssignStmt&>(*s))) {
      if (bound[id] != 1) continue;
      if (const LiteralBinding* entry = dict_entry(*value)) {
        known[id] = entry->value;
        out.push_back({id, entry->expr, entry->value});
      } else if (auto v = size_expression_value(*value, known)) {
        known[id] = *v;
        out.push_back({id, value, *v});
      }
    }
  }
  return out;
}

}  // namespace loopnest
