// jam_rows and Inline nodes (session 34). A researcher's high-level style keeps the row's work in
// nodes no move could copy or open (open_helpers keeps every node built with a comprehension
// closed): a list of tiles built by a comprehension (`scores = [nl.matmul(q_t, k_t[:, j * 512:(j +
// 1) * 512]) for j in range(n)]`), a helper over that list returning one (`probs =
// _rowwise_softmax(scores)`). The helper calls and host loops open_helpers does open (a newer-API
// `for t in range(n)` unrolled while tracing) are opened first (`helpers=open` sites). Such a node
// is printed as the author wrote it; one copy per row is the same text with the row's tile names
// substituted (`scores_0 = [nl.matmul(q_t_0, ...) ...]`), which lifts again to the row's copy of
// the node's operations. The printed kernel is still checked against the form (emit_checked), so a
// text whose renaming changes something else than the row's tiles is refused, never printed wrong.
#include "loopnest/jam_inline.h"

#include <algorithm>
#include <functional>

#include <fmt/core.h>

#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"
#include "nki/ast.h"
#include "nki/ast_walk.h"

namespace loopnest {

namespace {

// Whether the node's text, all its lines (a `for` statement's body too, which `mentions` does not
// read: its span is the header's), names `name` as a word.
bool text_names(const Kernel& k, const Node& n, const std::string& name) {
  if (!n.origin) return false;
  for (uint32_t line = n.origin->span.line; line <= nki::last_line(*n.origin); ++line)
    if (names_word(k.module->file->line_text(line), name)) return true;
  return false;
}

}  // namespace

bool inline_copyable_whole(const Kernel& k, const Node& n, const std::string& row_var,
                           const std::set<std::string>& bound_in_loop) {
  if (n.kind != NodeKind::Inline || !n.origin || n.dirty || !n.patch.empty() || !n.renames.empty()) return false;
  // A helper call or host loop open_helpers opens (`helpers=open`) is the kernel's own there, where
  // every move sees it: copied whole here too, each site would be listed twice. Only what never
  // opens (a comprehension computing tiles, a helper whose statement or return builds one) is.
  if (openable_kind(n)) return false;
  // A statement binding names (`scores = [...]`, `probs = f(scores)`): each row's copy binds the
  // row's. An update (`acc += sum(nl.matmul(a, b) for ...)`) lifts its copy with other tiles than
  // the form's (its partial sums), refused when printed: not offered.
  if (n.origin->kind != nki::StmtKind::Assign) return false;
  for (const auto& t : static_cast<const nki::AssignStmt&>(*n.origin).targets)
    if (!t || (t->kind != nki::ExprKind::Name && t->kind != nki::ExprKind::Tuple)) return false;
  if (text_names(k, n, row_var)) return false;
  for (const auto& name : bound_in_loop)
    if (text_names(k, n, name)) return false;
  // A loop inside (a helper's affine_range): its copies would share one loop of the form.
  bool loop = false;
  std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& nodes) {
    for (const Node& b : nodes) {
      if (b.kind == NodeKind::Loop) loop = true;
      walk(b.body);
      walk(b.orelse);
    }
  };
  walk(n.body);
  return !loop;
}

std::set<std::string> names_bound_in(const std::vector<Node>& body) {
  std::set<std::string> out;
  std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& nodes) {
    for (const Node& n : nodes) {
      if (n.kind == NodeKind::Inline) continue;
      if (n.kind == NodeKind::Meta) {
        out.insert(n.binds.begin(), n.binds.end());
        // A host binding (`r0 = r * TILE`) may name its targets only in its text.
        if (n.origin && n.origin->kind == nki::StmtKind::Assign)
          for (const auto& t : static_cast<const nki::AssignStmt&>(*n.origin).targets)
            if (t) names_of(*t, out);
      }
      walk(n.body);
      walk(n.orelse);
    }
  };
  walk(body);
  return out;
}

void tensors_made_in_inlines(const std::vector<Node>& body, std::map<int, const Node*>& out) {
  for (const Node& n : body) {
    if (n.kind != NodeKind::Inline) {
      tensors_made_in_inlines(n.body, out);
      tensors_made_in_inlines(n.orelse, out);
      continue;
    }
    std::function<void(const Node&)> made = [&](const Node& m) {
      for (const Op& op : m.ops) {
        if (op.result >= 0) out.emplace(op.result, &n);
        if (op.dst && is_declaration(op)) out.emplace(op.dst->tensor, &n);
      }
      for (const Node& b : m.body) made(b);
      for (const Node& b : m.orelse) made(b);
    };
    made(n);
  }
}

int64_t largest_psum_list_bytes(const Kernel& k, const std::set<int>& tensors, const std::map<int, const Node*>& made) {
  std::map<std::pair<const Node*, std::string>, int64_t> lists;
  int64_t largest = 0;
  for (int id : tensors) {
    auto it = made.find(id);
    const Tensor& t = k.tensor(id);
    if (it == made.end() || t.memory != Memory::Psum || t.name.find('[') == std::string::npos) continue;
    int64_t bytes = itemsize_of(t.dtype);
    for (size_t d = static_cast<size_t>(t.partition_dim) + 1; d < t.shape.size(); ++d)
      bytes *= t.shape[d].is_constant() ? t.shape[d].constant() : 0;
    int64_t& sum = lists[{it->second, text_name(t.name)}];
    sum += bytes;
    largest = std::max(largest, sum);
  }
  return largest;
}

std::string text_name(const std::string& name) { return name.substr(0, name.find('[')); }

bool rolled_comprehension(const Kernel& k, const Node& n) {
  if (n.kind != NodeKind::Loop || !n.origin || k.loops.at(n.loop).program) return false;
  const nki::Expr* v = nullptr;
  if (n.origin->kind == nki::StmtKind::Assign) v = static_cast<const nki::AssignStmt&>(*n.origin).value.get();
  if (n.origin->kind == nki::StmtKind::Return) v = static_cast<const nki::ReturnStmt&>(*n.origin).value.get();
  return (v && v->kind == nki::ExprKind::ListComp) || appended_comprehension(n.origin);
}

const nki::ComprehensionExpr* appended_comprehension(const nki::Stmt* s) {
  if (!s || s->kind != nki::StmtKind::Expr) return nullptr;
  const nki::Expr& e = *static_cast<const nki::ExprStmt&>(*s).value;
  if (e.kind != nki::ExprKind::Call) return nullptr;
  const auto& c = static_cast<const nki::CallExpr&>(e);
  if (c.func->kind != nki::ExprKind::Attribute || c.args.size() != 1 || !c.keywords.empty() ||
      c.args[0]->kind != nki::ExprKind::ListComp)
    return nullptr;
  const auto& attr = static_cast<const nki::AttributeExpr&>(*c.func);
  if (attr.attr != "append" || attr.value->kind != nki::ExprKind::Name) return nullptr;
  return static_cast<const nki::ComprehensionExpr*>(c.args[0].get());
}

int64_t largest_rolled_psum_list_bytes(const Kernel& k, const std::set<int>& tensors, const std::vector<Node>& body) {
  std::set<int> rolled;
  for_each_node(body, [&](const Node& n, const std::vector<int>&) {
    if (rolled_comprehension(k, n)) rolled.insert(n.loop);
  });
  int64_t largest = 0;
  for (int id : tensors) {
    const Tensor& t = k.tensor(id);
    if (t.memory != Memory::Psum || !rolled.count(t.list_loop)) continue;
    int64_t bytes = itemsize_of(t.dtype);
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (static_cast<int>(d) != t.partition_dim) bytes *= t.shape[d].is_constant() ? t.shape[d].constant() : 0;
    largest = std::max(largest, bytes);
  }
  return largest;
}

std::string inline_copy_name(const Kernel& k, const Node& n, const std::string& name, int64_t j) {
  const std::string base = text_name(name);
  if (base.empty() || !text_names(k, n, base)) return name;
  return fmt::format("{}_{}{}", base, j, name.substr(base.size()));
}

}  // namespace loopnest
