#include "loopnest/grid_names.h"

#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loopnest/literal_constants.h"
#include "nki/ast.h"

namespace loopnest {

std::string grid_key(int64_t size, int axis, size_t rank) { return fmt::format("{}:{}/{}", size, axis, rank); }

std::string dense_grid_key(const std::vector<int64_t>& shape, int axis) {
  return fmt::format("mgrid {}:{}", fmt::join(shape, "x"), axis);
}

namespace {

// The key of `<nl>.arange(N)[p0, p1, ...]` with exactly one bare `:` among None places, else "".
std::string grid_of(const nki::Expr& e, const std::string& nl_alias) {
  using namespace nki;
  if (e.kind != ExprKind::Subscript) return "";
  const auto& sub = static_cast<const SubscriptExpr&>(e);
  if (!sub.value || sub.value->kind != ExprKind::Call || !sub.index || sub.index->kind != ExprKind::Tuple) return "";
  const auto& call = static_cast<const CallExpr&>(*sub.value);
  if (!call.func || call.func->kind != ExprKind::Attribute || call.args.size() != 1 || !call.keywords.empty()) return "";
  const auto& fn = static_cast<const AttributeExpr&>(*call.func);
  if (fn.attr != "arange" || !fn.value || fn.value->kind != ExprKind::Name ||
      static_cast<const NameExpr&>(*fn.value).id != nl_alias)
    return "";
  if (call.args[0]->kind != ExprKind::Constant) return "";
  const Value& n = static_cast<const ConstantExpr&>(*call.args[0]).value;
  if (!n.is_int()) return "";
  const auto& places = static_cast<const SequenceExpr&>(*sub.index).elts;
  int axis = -1;
  for (size_t i = 0; i < places.size(); ++i) {
    const Expr& p = *places[i];
    if (p.kind == ExprKind::Slice) {
      const auto& s = static_cast<const SliceExpr&>(p);
      if (s.lower || s.upper || s.step || axis >= 0) return "";
      axis = static_cast<int>(i);
    } else if (p.kind != ExprKind::Constant || !static_cast<const ConstantExpr&>(p).value.is_none()) {
      return "";
    }
  }
  return axis < 0 ? "" : grid_key(n.as_int(), axis, places.size());
}

// Integer sizes bound once by name (literal_constants.h): the module's, unless the kernel binds
// the name itself, then the kernel's own.
std::map<std::string, int64_t> integer_constants(const Kernel& k) {
  std::map<std::string, int64_t> out;
  if (!k.function) return out;
  auto add = [&](const std::vector<LiteralBinding>& bindings) {
    for (const auto& b : bindings) out[b.name] = b.value;
  };
  if (k.module) add(module_size_constants(*k.module));
  std::map<std::string, int> kernel_bound = binding_counts(k.function->body);
  for (const nki::Parameter& p : k.function->params) ++kernel_bound[p.name];
  for (auto it = out.begin(); it != out.end();) it = kernel_bound.count(it->first) ? out.erase(it) : std::next(it);
  add(local_size_constants(*k.function, k.module.get()));
  return out;
}

// The keys of `<nl>.mgrid[0:A, 0:B, ...]` (bounds literals or names of `constants`, lower bounds
// 0 or left out, no steps): one per axis, in order; empty when it is not one.
std::vector<std::string> mgrid_keys(const nki::Expr& e, const std::string& nl_alias,
                                    const std::map<std::string, int64_t>& constants) {
  using namespace nki;
  if (e.kind != ExprKind::Subscript) return {};
  const auto& sub = static_cast<const SubscriptExpr&>(e);
  if (!sub.value || sub.value->kind != ExprKind::Attribute || !sub.index || sub.index->kind != ExprKind::Tuple) return {};
  const auto& fn = static_cast<const AttributeExpr&>(*sub.value);
  if (fn.attr != "mgrid" || !fn.value || fn.value->kind != ExprKind::Name ||
      static_cast<const NameExpr&>(*fn.value).id != nl_alias)
    return {};
  auto integer = [&](const Expr* x) -> std::optional<int64_t> {
    if (!x) return std::nullopt;
    if (x->kind == ExprKind::Constant && static_cast<const ConstantExpr&>(*x).value.is_int())
      return static_cast<const ConstantExpr&>(*x).value.as_int();
    if (x->kind == ExprKind::Name)
      if (auto it = constants.find(static_cast<const NameExpr&>(*x).id); it != constants.end()) return it->second;
    return std::nullopt;
  };
  const auto& places = static_cast<const SequenceExpr&>(*sub.index).elts;
  std::vector<int64_t> shape;
  for (size_t i = 0; i < places.size(); ++i) {
    if (places[i]->kind != ExprKind::Slice) return {};
    const auto& s = static_cast<const SliceExpr&>(*places[i]);
    auto lo = s.lower ? integer(s.lower.get()) : std::optional<int64_t>(0);
    auto hi = integer(s.upper.get());
    if (s.step || !lo || *lo != 0 || !hi || *hi < 1) return {};
    shape.push_back(*hi);
  }
  std::vector<std::string> keys;
  for (size_t i = 0; i < shape.size(); ++i) keys.push_back(dense_grid_key(shape, static_cast<int>(i)));
  return keys;
}

}  // namespace

std::map<int, std::vector<GridName>> authored_grid_names(const Kernel& k, const std::string& nl_alias) {
  std::map<std::string, int> bound;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& b : n.binds) ++bound[b];
  });
  for (const auto& [id, loop] : k.loops) ++bound[loop.var];
  const std::map<std::string, int64_t> constants = integer_constants(k);
  std::map<int, std::vector<GridName>> out;
  for (const Node& n : k.body) {
    if (n.kind != NodeKind::Meta || n.meta != MetaKind::Binding || n.binds.empty() || !n.origin ||
        n.origin->kind != nki::StmtKind::Assign)
      continue;
    const auto& a = static_cast<const nki::AssignStmt&>(*n.origin);
    if (a.targets.size() != 1 || !a.value) continue;
    if (a.targets[0]->kind == nki::ExprKind::Name) {
      std::string key = grid_of(*a.value, nl_alias);
      if (!key.empty() && n.binds.size() == 1 && bound[n.binds[0]] == 1) out[n.id].push_back(GridName{n.binds[0], key});
      continue;
    }
    if (a.targets[0]->kind != nki::ExprKind::Tuple) continue;
    const auto& names = static_cast<const nki::SequenceExpr&>(*a.targets[0]).elts;
    std::vector<std::string> keys = mgrid_keys(*a.value, nl_alias, constants);
    if (keys.size() != names.size()) continue;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i]->kind != nki::ExprKind::Name) continue;
      const std::string& id = static_cast<const nki::NameExpr&>(*names[i]).id;
      if (bound[id] == 1) out[n.id].push_back(GridName{id, keys[i]});
    }
  }
  return out;
}

}  // namespace loopnest
