// Opening helper functions: a call of a module helper that does tile work lifts as an Inline node
// whose nodes are frozen (printed only as the call), so no transformation can change what the
// helper computes: a tutorial-style kernel that writes its math in `silu_tile(x)` or loads its
// weight in `load_rhs_tile(w, k, n)` offers no site there. Opened, the helper's nodes become the
// kernel's own at the call, printed from the form (the helper's local names kept, a name the kernel
// also uses renamed, the parameters read as the caller's tiles), and every transformation sees them.
//
// Only calls inside a loop that bind their results by name (`y = f(x)`, `a, b = f(x)`, or a bare
// `f(x)`) open: the statement then has no operation of its own around the helper's. A wrapper
// launching the kernel (the whole kernel body inlined at the top level) stays as written.
#include <functional>
#include <set>

#include <fmt/core.h>

#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool openable(const Node& n) { return n.kind == NodeKind::Inline && n.ops.empty(); }

// The helper's nodes as the kernel's: unfrozen, printed from the form (their source is the
// helper's text, whose names are not the caller's); bindings of host values and docstrings go
// (their values are in the operands).
void adopt(std::vector<Node>& nodes, std::vector<Node>& out) {
  for (auto& n : nodes) {
    if (n.kind == NodeKind::Meta && n.meta != MetaKind::View) continue;
    if (n.kind == NodeKind::Inline && openable(n)) {
      adopt(n.body, out);
      continue;
    }
    if (n.kind == NodeKind::If) throw TransformError("a helper with a condition cannot be opened");
    n.frozen = false;
    n.dirty = true;
    n.patch.clear();
    n.renames.clear();
    for (auto& op : n.ops) {
      // Text kept as the helper wrote it (a mask, a tuple) names the helper's parameters.
      for (const auto& a : op.args)
        if (a.value.kind == Operand::Kind::Other) throw TransformError("a helper operand kept as its text");
      op.origin = nullptr;
      op.origin_api.clear();
      op.dst_origin = nullptr;
      for (auto& a : op.args) a.value.origin = nullptr;
    }
    std::vector<Node> body = std::move(n.body);
    n.body.clear();
    adopt(body, n.body);
    out.push_back(std::move(n));
  }
}

// The tensors the nodes define (results, created tiles, views).
void defined(const std::vector<Node>& nodes, std::set<int>& out) {
  for_each_node(nodes, [&](const Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      if (op.result >= 0) out.insert(op.result);
      if (is_declaration(op) && op.dst) out.insert(op.dst->tensor);
    }
  });
}

// The names the calling statement binds (`g` of `g = project(...)`, `a, b` of `a, b = f(x)`): the
// caller's own, which its other statements (copied as written) read.
std::set<std::string> call_binds(const Node& call) {
  std::set<std::string> out;
  if (!call.origin || call.origin->kind != nki::StmtKind::Assign) return out;
  for (const auto& t : static_cast<const nki::AssignStmt&>(*call.origin).targets)
    if (t) names_of(*t, out);
  return out;
}

// A helper's local name that the kernel also uses gets a fresh one (`t` -> `t_2`); the names the
// call binds stay (the kernel already binds them there, as the author wrote: `g = project(...)` in
// two nests is two tiles named `g`, each read by its own nest's statements).
void rename_clashes(Kernel& k, const std::vector<Node>& nodes, const std::set<std::string>& bound) {
  std::set<int> mine;
  defined(nodes, mine);
  std::set<std::string> taken;
  for (const auto& t : k.tensors)
    if (!mine.count(t.id) && !t.name.empty()) taken.insert(t.name);
  for (const auto& [id, l] : k.loops) taken.insert(l.var);
  for (const auto& p : k.params) taken.insert(p.name);
  for (int id : mine) {
    Tensor& t = k.tensor(id);
    if (t.name.empty() || bound.count(t.name)) continue;
    if (!taken.count(t.name)) {
      taken.insert(t.name);  // a second tile of the helper's under this name is another one
      continue;
    }
    t.name = fresh_copy_name(k, t.name, taken);
    taken.insert(t.name);
  }
}

}  // namespace

int open_helpers(Kernel& k) {
  int opened = 0;
  std::function<void(std::vector<Node>&, bool)> walk = [&](std::vector<Node>& block, bool in_loop) {
    std::vector<Node> out;
    for (auto& n : block) {
      if (!in_loop || !openable(n)) {
        if (!n.frozen) {
          walk(n.body, in_loop || n.kind == NodeKind::Loop);
          walk(n.orelse, in_loop || n.kind == NodeKind::Loop);
        }
        out.push_back(std::move(n));
        continue;
      }
      std::vector<Node> nodes;
      adopt(n.body, nodes);
      rename_clashes(k, nodes, call_binds(n));
      for (auto& x : nodes) out.push_back(std::move(x));
      ++opened;
    }
    block = std::move(out);
  };
  walk(k.body, false);
  return opened;
}

}  // namespace loopnest
