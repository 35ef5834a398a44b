#include "loopnest/grid_names.h"

#include <fmt/format.h>

#include "nki/ast.h"

namespace loopnest {

std::string grid_key(int64_t size, int axis, size_t rank) { return fmt::format("{}:{}/{}", size, axis, rank); }

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

}  // namespace

std::map<int, GridName> authored_grid_names(const Kernel& k, const std::string& nl_alias) {
  std::map<std::string, int> bound;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& b : n.binds) ++bound[b];
  });
  for (const auto& [id, loop] : k.loops) ++bound[loop.var];
  std::map<int, GridName> out;
  for (const Node& n : k.body) {
    if (n.kind != NodeKind::Meta || n.meta != MetaKind::Binding || n.binds.size() != 1 || !n.origin ||
        n.origin->kind != nki::StmtKind::Assign || bound[n.binds[0]] != 1)
      continue;
    const auto& a = static_cast<const nki::AssignStmt&>(*n.origin);
    if (a.targets.size() != 1 || a.targets[0]->kind != nki::ExprKind::Name || !a.value) continue;
    std::string key = grid_of(*a.value, nl_alias);
    if (!key.empty()) out[n.id] = GridName{n.binds[0], key};
  }
  return out;
}

}  // namespace loopnest
