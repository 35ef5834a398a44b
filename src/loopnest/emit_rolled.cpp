// A comprehension lifted as the loop it means (lift_rolled.cpp: `scores = [nl.matmul(q, ...) for j
// in range(n)]`, a loop whose one statement makes the list's item) printed back: as written while
// the loop and its statement are unchanged; as a comprehension of the changed statement while the
// loop holds that one statement (hoist_transpose rewrote the matmul: `scores = [nl.matmul(q_t, ...,
// transpose_x=True) for j in range(n_blocks)]`, the author's spelling of the range kept while the
// loop is). Otherwise refused: find_sites offers no such site (transform.cpp, prints_back).
#include <algorithm>
#include <utility>

#include "loopnest/analysis.h"
#include "loopnest/emitter.h"
#include "loopnest/jam_inline.h"

namespace loopnest::detail {

namespace {

bool untouched(const Node& n) {
  if (n.dirty || !n.patch.empty() || !n.renames.empty()) return false;
  return std::all_of(n.body.begin(), n.body.end(), untouched) && std::all_of(n.orelse.begin(), n.orelse.end(), untouched);
}

// The comprehension a rolled loop was lifted from: the value of `name = [...]`, or of a helper's
// `return [...]` (opened into the kernel: printed from the form, named by the caller's binding).
const ComprehensionExpr* comprehension_of(const Stmt* s) {
  const Expr* v = nullptr;
  if (s && s->kind == StmtKind::Assign) v = static_cast<const AssignStmt&>(*s).value.get();
  if (s && s->kind == StmtKind::Return) v = static_cast<const ReturnStmt&>(*s).value.get();
  if (v && v->kind == ExprKind::ListComp) return static_cast<const ComprehensionExpr*>(v);
  return appended_comprehension(s);  // `x_t.append([...])` (lift_appended_rows.cpp)
}

}  // namespace

// A statement whose operation makes an item of a comprehension's list (its origin the statement
// binding the list): printed only as the comprehension's element, never as that statement's text.
bool Emitter::rolled_item(const Node& n) const {
  if (n.kind != NodeKind::Stmt || n.ops.empty() || !comprehension_of(n.origin)) return false;
  const int r = n.ops.back().result;
  // (A nested comprehension's item, or an appended comprehension's: a list of lists,
  // emit_nested_rolled.cpp, lift_appended_rows.cpp.)
  return r >= 0 && k_.tensor(r).list_loop >= 0 &&
         (k_.tensor(r).outer_lists.empty() ||
          ((nested_comprehension_of(n.origin) || appended_comprehension(n.origin)) && k_.tensor(r).outer_lists.size() == 1));
}

void Emitter::rolled_loop(const Node& n, int depth, std::string& out) {
  if (nested_rolled_loop(n, depth, out)) return;
  const ComprehensionExpr* comp = comprehension_of(n.origin);
  if (!comp || comp->generators.size() != 1) throw EmitError("a loop whose header is not a for statement");
  if (n.origin->kind == StmtKind::Return && !n.dirty) throw EmitError("a helper's returned comprehension outside it");
  const Loop& l = k_.loops.at(n.loop);
  // Unchanged (the loop's own renames, a row's tile names of jam_rows, apply to its text).
  // A statement moved in without marking the loop (fuse_nests of two comprehensions' loops) is no
  // longer the comprehension as written: copying it would drop the moved one.
  const bool clean = !n.dirty && n.patch.empty() && n.body.size() == 1 &&
                     std::all_of(n.body.begin(), n.body.end(), untouched);
  if (!o_.regenerate && clean) {
    copy(n.origin->span.line, last_line(*n.origin), n.origin->span.line, depth, out);
    return;
  }
  // `x_t.append([...])`: the list of lists' row level (lift_appended_rows.cpp), appended to the
  // name the author's text appends to.
  const bool appended = appended_comprehension(n.origin) != nullptr;
  std::vector<const Tensor*> lists;
  for (const auto& t : k_.tensors)
    if (t.list_loop == n.loop && (appended ? t.outer_lists.size() == 1 : t.outer_lists.empty())) lists.push_back(&t);
  if (lists.empty() || lists[0]->list_name.empty()) throw EmitError("a comprehension's loop filling no named list");
  const auto& g = comp->generators[0];
  // The loop's bounds as the author wrote them while the loop is unchanged, or a copy of it
  // (jam_rows' rows) over a range the kernel's names spell (`range(n_chunks)`: printed so first,
  // the check lifting it again; a helper's text, naming its locals, fails it), else the form's.
  std::string gen;
  const bool over_range = g.iter->kind == ExprKind::Call &&
                          static_cast<const CallExpr&>(*g.iter).func->kind == ExprKind::Name &&
                          static_cast<const NameExpr&>(*static_cast<const CallExpr&>(*g.iter).func).id == "range";
  if (!o_.regenerate && l.var == renamed(source(*g.target)) && (!n.dirty || (over_range && o_.authored_dims)))
    gen = l.var + " in " + source(*g.iter);
  else {
    std::string header = loop_header(l);  // `for j in range(8):`
    gen = header.substr(4, header.size() - 5);
  }
  if (n.body.size() == 1 && lists.size() == 1 && n.body[0].kind == NodeKind::Stmt && rolled_item(n.body[0]) &&
      n.body[0].ops.back().result == lists[0]->id) {
    const Node& item = n.body[0];
    auto scope = renames_.empty() ? std::map<std::string, std::string>{} : renames_.back();
    for (const auto& [from, to] : item.renames) scope[from] = to;
    renames_.push_back(std::move(scope));
    std::string element = call(item.ops.back(), item);
    renames_.pop_back();
    if (appended)
      out += indent(depth) + lists[0]->outer_lists[0].first + ".append([" + element + " for " + gen + "])\n";
    else
      out += indent(depth) + lists[0]->list_name + " = [" + element + " for " + gen + "]\n";
    return;
  }
  // Several statements (two loops fused, rows jammed): no comprehension says that, and a loop
  // appending to a list lifts as another form (a list of one tensor, not of its blocks).
  throw EmitError("a comprehension changed into more than one statement cannot be printed");
}

// `carry = [nl.zeros((nch, 1), ...) for _ in range(S)]`: a list of fresh tiles of one shape, one
// tensor of the form (lift_comprehension.cpp merge_fresh_tiles, Tensor::host_list). Moved out of
// the text that bound its names (an opened loop over a host sequence: its copies drop the host
// bindings `nch = min(P, C - ch0)` the author's text reads), it prints from the form: the list's
// name, the declaration without the list's dim, one per item.
bool Emitter::fresh_tiles_list(const Node& n, int depth, std::string& out) {
  if (n.helper != kComprehensionHelper || n.body.size() != 1 || n.body[0].kind != NodeKind::Stmt ||
      n.body[0].ops.size() != 1 || !n.body[0].patch.empty())
    return false;
  const Op& decl = n.body[0].ops[0];
  if (!is_declaration(decl) || !decl.dst || decl.result >= 0) return false;
  const Tensor& t = k_.tensor(decl.dst->tensor);
  if (!t.host_list || t.list_loop >= 0 || t.list_name.empty() || t.shape.empty() || !t.shape[0].is_constant())
    return false;
  out += indent(depth) + t.list_name + " = [" + call(decl, n.body[0]) + " for _ in range(" + str(t.shape[0]) + ")]\n";
  return true;
}

// `for t in chunks[1:]:` lifted over the block index (lift_item_loop.cpp). Copied as written while
// nothing in it changed; else its header is the form's (`for t in range(1, 8):`, `t` an index) and
// no statement under it may be the author's text (which reads `t` as a tile): all printed from the
// form, as a regenerating print would.
bool Emitter::untouched_loop(const Node& n) const { return untouched(n); }

void Emitter::regenerated_loop(const Node& n, int depth, std::string& out) {
  const bool saved = std::exchange(o_.regenerate, true);
  const bool saved_tail = std::exchange(tail_, true);
  const bool saved_header = std::exchange(header_as_written_, false);
  auto restore = [&] {
    o_.regenerate = saved;
    tail_ = saved_tail;
    header_as_written_ = saved_header;
  };
  try {
    out += indent(depth) + loop_header(k_.loops.at(n.loop)) + "\n";
    if (n.body.empty()) out += indent(depth + 1) + "pass\n";
    block(n.body, depth + 1, out);
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

}  // namespace loopnest::detail
