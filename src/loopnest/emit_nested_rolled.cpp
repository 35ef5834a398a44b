// A nested comprehension lifted as its loop nest (lift_nested_rolled.cpp: `x_t = [[nl.transpose(
// nl.load(x[r, :, k, :])) for k in range(KT)] for r in range(R)]`, an outer loop whose one node is the
// inner comprehension's loop) printed back: as written while the nest and its statement are
// unchanged; as a nested comprehension of the changed statement while the nest still holds that one
// statement (the author's ranges kept where the loops are, else the form's). Otherwise refused, as a
// one-level comprehension is (emit_rolled.cpp): find_sites then drops the site (prints_back).
// A flattened comprehension's nest (lift_flat_rolled.cpp: `[... for j in range(J) for c in
// range(C)]`, one list, flat_list.h) prints the same ways, changed as a two-clause comprehension.
#include <algorithm>

#include "loopnest/emitter.h"
#include "loopnest/flat_list.h"
#include "loopnest/jam_inline.h"

namespace loopnest::detail {

namespace {

bool unchanged(const Node& n) {
  if (n.dirty || !n.patch.empty() || !n.renames.empty()) return false;
  return std::all_of(n.body.begin(), n.body.end(), unchanged) && std::all_of(n.orelse.begin(), n.orelse.end(), unchanged);
}

}  // namespace

const ComprehensionExpr* Emitter::nested_comprehension_of(const Stmt* s) {
  if (!s || s->kind != StmtKind::Assign) return nullptr;
  const Expr* v = static_cast<const AssignStmt&>(*s).value.get();
  if (v->kind != ExprKind::ListComp) return nullptr;
  const auto* c = static_cast<const ComprehensionExpr*>(v);
  // (Or flattened, `[... for j in range(J) for c in range(C)]`: lift_flat_rolled.cpp.)
  if (c->generators.size() == 2) return c;
  return c->generators.size() == 1 && c->elt->kind == ExprKind::ListComp ? c : nullptr;
}

// A rolled loop's generator text: the author's `k in range(KT)` while the loop is unchanged (or
// only its range reads the kernel's names), else the form's header.
std::string Emitter::rolled_generator(const Comprehension& g, const Node& loop_node) {
  const Loop& l = k_.loops.at(loop_node.loop);
  const bool over_range = g.iter->kind == ExprKind::Call &&
                          static_cast<const CallExpr&>(*g.iter).func->kind == ExprKind::Name &&
                          static_cast<const NameExpr&>(*static_cast<const CallExpr&>(*g.iter).func).id == "range";
  if (!o_.regenerate && l.var == renamed(source(*g.target)) && (!loop_node.dirty || (over_range && o_.authored_dims)))
    return l.var + " in " + source(*g.iter);
  std::string header = loop_header(l);  // `for k in range(8):`
  return header.substr(4, header.size() - 5);
}

bool Emitter::nested_rolled_loop(const Node& n, int depth, std::string& out) {
  const ComprehensionExpr* comp = nested_comprehension_of(n.origin);
  if (!comp) return false;
  // (The inner loop printed alone, a move having taken it out of the outer one, is refused below.)
  const bool nest = n.body.size() == 1 && rolled_comprehension(k_, n.body[0]);
  if (!o_.regenerate && nest && !n.dirty && n.patch.empty() && unchanged(n.body[0])) {
    copy(n.origin->span.line, last_line(*n.origin), n.origin->span.line, depth, out);
    return true;
  }
  const bool flat = comp->generators.size() == 2;
  if (!nest || n.body[0].body.size() != 1 ||
      !rolled_item(n.body[0].body[0]))
    throw EmitError("a nested comprehension changed into more than one statement cannot be printed");
  const Node& in = n.body[0];
  const Node& item = in.body[0];
  const Tensor& t = k_.tensor(item.ops.back().result);
  if (t.list_loop != in.loop || t.outer_lists.size() != 1 || t.outer_lists[0].second != n.loop ||
      t.outer_lists[0].first.empty() || flat != flat_list(t))
    throw EmitError("a nested comprehension's loops filling no named list of lists");
  auto scope = renames_.empty() ? std::map<std::string, std::string>{} : renames_.back();
  for (const auto& [from, to] : item.renames) scope[from] = to;
  renames_.push_back(std::move(scope));
  std::string element = call(item.ops.back(), item);
  renames_.pop_back();
  if (flat) {
    out += indent(depth) + t.list_name + " = [" + element + " for " + rolled_generator(comp->generators[0], n) + " for " +
           rolled_generator(comp->generators[1], in) + "]\n";
    return true;
  }
  const auto& inner = static_cast<const ComprehensionExpr&>(*comp->elt);
  out += indent(depth) + t.outer_lists[0].first + " = [[" + element + " for " + rolled_generator(inner.generators[0], in) +
         "] for " + rolled_generator(comp->generators[0], n) + "]\n";
  return true;
}

}  // namespace loopnest::detail
