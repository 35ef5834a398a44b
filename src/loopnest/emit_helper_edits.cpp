// The statements a move changed inside a helper's body (helper_bodies.h), printed there: the calls
// of the helper (and a loop over a host sequence) are copied as written, so each changed statement
// is printed from the form once, over the statement's own lines wherever they are copied (a module
// helper above or below the kernel, a closure or a host loop inside it). Every call of the helper
// must print the same text for it; the printed kernel's lift then holds each call to it
// (emit_checked), so a move made at one call only is refused, never printed for all.
#include "loopnest/emitter.h"

#include <functional>

#include "loopnest/transform.h"

namespace loopnest::detail {

std::string Emitter::helper_statement(const Node& n) {
  // A helper's `return f(x)`: the value it returns, unnamed in the form.
  if (n.origin->kind == StmtKind::Return) {
    if (n.ops.empty() || n.ops.back().result < 0 || !k_.tensor(n.ops.back().result).name.empty())
      throw EmitError("a changed return of a helper cannot be printed in its body");
    return "return " + call(n.ops.back(), n);
  }
  if (n.origin->kind != StmtKind::Assign && n.origin->kind != StmtKind::Expr)
    throw EmitError("a changed helper statement of this kind cannot be printed in its body");
  return statement(n);
}

void Emitter::collect_helper_edits() {
  edits_.clear();
  std::function<void(const std::vector<Node>&, bool)> walk = [&](const std::vector<Node>& nodes, bool inside) {
    for (const Node& n : nodes) {
      if (inside && n.dirty) {
        if (n.kind != NodeKind::Stmt || !n.origin || !n.patch.empty() || !n.renames.empty() || n.repeat_copy)
          throw EmitError("a changed node of a helper's body cannot be printed in that body");
        if (n.origin->span.col != indent_of(line(n.origin->span.line)) + 1)
          throw EmitError("a changed helper statement sharing its line cannot be printed in its body");
        std::string text = helper_statement(n);
        const uint32_t first = n.origin->span.line, last = last_line(*n.origin);
        auto [it, fresh] = edits_.try_emplace(first, last, text);
        if (!fresh && it->second.second != text)
          throw EmitError("a helper statement changed differently at two of its calls");
      }
      const bool in = inside || (n.kind == NodeKind::Inline && openable_kind(n) && !n.dirty && n.origin);
      walk(n.body, in);
      walk(n.orelse, in);
    }
  };
  walk(k_.body, false);
}

std::string Emitter::edited_line(uint32_t& l) const {
  auto e = edits_.find(l);
  if (e == edits_.end()) return line(l);
  const std::string first = line(l);
  l = e->second.first;
  return first.substr(0, indent_of(first)) + e->second.second;
}

}  // namespace loopnest::detail
