// What a move leaves behind that its author would not have written (tidy.h): a loop the move left
// with one iteration (a 64-row block loop split into halves, then the halves coarsened onto 128
// partitions: `for qb_in in nl.affine_range(1)`) and a binding nothing reads any more (`row0 = qb *
// 64` once every access of the rows is printed from the form). Dropped after the move, so a diff of
// the input and the printed result shows the move; the result is checked like any (emit_checked),
// and apply_site prints the move without the tidying where that check fails.
#include "loopnest/tidy.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "loopnest/emit.h"
#include "loopnest/name_uses.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"
#include "nki/ast.h"
#include "nki/ast_walk.h"

namespace loopnest {

namespace {

// A call that changes a host value in place (`rows.append(r)`): a binding making it is no dead code.
bool mutates(const nki::Expr& e) {
  static const char* kMutating[] = {"append", "pop", "extend", "insert", "remove", "clear", "update", "setdefault", "add"};
  bool found = false;
  nki::walk_pruned(e, [&](const nki::Expr& x) {
    if (x.kind == nki::ExprKind::Lambda || x.kind == nki::ExprKind::NamedExpr) found = true;
    if (x.kind == nki::ExprKind::Call && static_cast<const nki::CallExpr&>(x).func->kind == nki::ExprKind::Attribute) {
      const std::string& attr = static_cast<const nki::AttributeExpr&>(*static_cast<const nki::CallExpr&>(x).func).attr;
      for (const char* m : kMutating) found = found || attr == m;
    }
    return !found;
  });
  return found;
}

// The name a plain binding `name = value` binds (a Meta node of the kernel's own text), "" otherwise.
std::string plain_binding(const Node& n) {
  if (n.kind != NodeKind::Meta || n.meta != MetaKind::Binding || n.frozen || n.dirty || !n.origin || !n.ops.empty() ||
      n.binds.size() != 1 || n.origin->kind != nki::StmtKind::Assign)
    return "";
  const auto& a = static_cast<const nki::AssignStmt&>(*n.origin);
  if (a.targets.size() != 1 || a.targets[0]->kind != nki::ExprKind::Name || !a.value || mutates(*a.value)) return "";
  const std::string& name = static_cast<const nki::NameExpr&>(*a.targets[0]).id;
  return name == n.binds[0] ? name : "";
}

// The outer loop `parent` of a split (`qb_blk` around the dropped `qb_in`) takes the name `qb` when
// nothing of the kernel is called so; the text of the nodes in `body` copied as written follows.
void rename_split_outer(Kernel& k, int parent, const std::string& inner_var, std::vector<Node>& body) {
  const std::string in = "_in", blk = "_blk";
  if (parent < 0 || inner_var.size() <= in.size() || inner_var.compare(inner_var.size() - in.size(), in.size(), in) != 0)
    return;
  const std::string base = inner_var.substr(0, inner_var.size() - in.size());
  Loop& outer = k.loops.at(parent);
  if (outer.var != base + blk) return;
  bool taken = false;
  for (const auto& [id, l] : k.loops) taken = taken || l.var == base;
  for (const auto& t : k.tensors) taken = taken || t.name == base;
  for (const auto& p : k.params) taken = taken || p.name == base;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& b : n.binds) taken = taken || b == base;
  });
  if (taken) return;
  Node* head = loop_node(k, parent);
  if (!head) return;
  outer.var = base;
  head->dirty = true;
  head->patch.clear();
  for (auto& n : body) n.renames[outer.var + blk] = base;
  for (auto& n : head->body) n.renames[base + blk] = base;
}

// The names the kernel's function in `text` reads (the whole module's when it is not a top-level
// def there); nullopt when the text does not parse.
std::optional<NameReads> kernel_reads(const Kernel& k, const std::string& text) {
  auto module = parse_text(k.module->file->path, text);
  if (!module) return std::nullopt;
  const nki::FunctionDefStmt* def = top_level_def(*module, k.function->name);
  return def ? names_read(def->code->body) : names_read(module->body);
}

}  // namespace

std::set<int> single_trip_loops(const Kernel& k) {
  std::set<int> out;
  for (const auto& [id, l] : k.loops)
    if (l.trip() == 1) out.insert(id);
  return out;
}

int drop_single_trip_loops(Kernel& k, const std::set<int>& before) {
  int dropped = 0;
  for (bool again = true; again;) {
    again = false;
    for (int id : open_loop_ids(k)) {
      const Node* n = find_node(k, id);
      if (!n || n->kind != NodeKind::Loop) continue;
      const int l = n->loop;
      const Loop& loop = k.loops.at(l);
      if (loop.trip() != 1 || before.count(l) || loop.host_items || loop.program) continue;
      // A list appended to per iteration would hold one item where the loop is gone: kept.
      const bool lists = std::any_of(k.tensors.begin(), k.tensors.end(), [&](const Tensor& t) {
        return t.list_loop == l ||
               std::any_of(t.outer_lists.begin(), t.outer_lists.end(), [&](const auto& o) { return o.second == l; });
      });
      if (lists) continue;
      Kernel trial = k;
      const std::vector<int> around = loops_around(trial, id);
      const int parent = around.empty() ? -1 : around.back();
      size_t at = 0;
      std::vector<Node>* block = parent_block(trial.body, id, at);
      if (!block) continue;
      Node loop_node_copy = std::move((*block)[at]);
      std::vector<Node> body = std::move(loop_node_copy.body);
      const Ranges ranges = trial.ranges();
      const Loop gone = trial.loops.at(l);
      substitute_nodes(trial, body, l, gone.start, &ranges);
      if (!print_over_new_loops(trial, body, gone.var)) continue;
      for (auto& t : trial.tensors)
        if (t.scope_loop == l) t.scope_loop = parent;
      // The comment lines above the loop's header go above its first statement.
      if (!body.empty()) keep_leading_comments(loop_node_copy, body.front());
      // A loop split into `v_blk` around `v_in` (unflatten) whose inner loop goes is the loop `v` again.
      rename_split_outer(trial, parent, gone.var, body);
      block->erase(block->begin() + static_cast<long>(at));
      block->insert(block->begin() + static_cast<long>(at), std::make_move_iterator(body.begin()),
                    std::make_move_iterator(body.end()));
      trial.loops.erase(l);
      k = std::move(trial);
      ++dropped;
      again = true;
      break;
    }
  }
  return dropped;
}

int drop_empty_loops(Kernel& k) {
  int dropped = 0;
  std::function<void(std::vector<Node>&)> walk = [&](std::vector<Node>& nodes) {
    for (auto& n : nodes) walk(n.body), walk(n.orelse);
    const size_t before = nodes.size();
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                               [&](const Node& n) {
                                 if (n.kind != NodeKind::Loop || !n.body.empty() || n.frozen) return false;
                                 const Loop& l = k.loops.at(n.loop);
                                 return !l.host_items && !l.program;
                               }),
                nodes.end());
    dropped += static_cast<int>(before - nodes.size());
  };
  walk(k.body);
  return dropped;
}

int drop_dead_bindings(Kernel& k, const std::string& input) {
  // Names bound once in the form (no loop variable, tensor or second binding of the same name).
  std::map<std::string, int> bound;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& b : n.binds) ++bound[b];
  });
  for (const auto& [id, l] : k.loops) bound[l.var] += 2;
  for (const auto& t : k.tensors)
    if (!t.name.empty()) bound[t.name] += 2;
  for (const auto& p : k.params) bound[p.name] += 2;
  // Only what the move left unread goes: a binding the author's kernel reads.
  const std::optional<NameReads> authored = kernel_reads(k, input);
  if (!authored) return 0;
  int dropped = 0;
  for (bool again = true; again;) {
    again = false;
    std::optional<NameReads> printed;
    try {
      printed = kernel_reads(k, emit(k));
    } catch (const EmitError&) {
    }
    if (!printed) return dropped;
    std::vector<int> dead;
    for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
      const std::string name = plain_binding(n);
      if (name.empty() || bound[name] != 1) return;
      if (authored->count(name) && !printed->count(name)) dead.push_back(n.id);
    });
    for (int id : dead) {
      size_t at = 0;
      std::vector<Node>* block = parent_block(k.body, id, at);
      if (!block) continue;
      // The comment lines above it stay, above the statement after it.
      if (at + 1 < block->size()) keep_leading_comments((*block)[at], (*block)[at + 1]);
      block->erase(block->begin() + static_cast<long>(at));
      ++dropped;
      again = true;
    }
  }
  return dropped;
}

}  // namespace loopnest
