// Whether a node's source text may be copied into the kernel's own body. A helper opened at its
// call (open_helpers.cpp) keeps its statements' origins in the helper's text, whose names (`d` of
// the helper's `n, d = x.shape`, its parameters) the kernel does not bind: a move that keeps a
// header or declaration "as the author spelled it" must print such a node from the form instead.
#pragma once

#include <cstdint>

#include "loopnest/form.h"
#include "nki/ast.h"

namespace loopnest {

namespace scope_text_detail {

// Whether `line` lies in a def nested anywhere in `body` (a closure of the kernel).
inline bool in_nested_def(const nki::Block& body, uint32_t line) {
  for (const auto& s : body) {
    if (line < s->span.line || line > s->span.end_line) continue;
    switch (s->kind) {
      case nki::StmtKind::FunctionDef:
      case nki::StmtKind::ClassDef: return true;
      case nki::StmtKind::If: {
        auto& i = static_cast<const nki::IfStmt&>(*s);
        return in_nested_def(i.body, line) || in_nested_def(i.orelse, line);
      }
      case nki::StmtKind::For: {
        auto& f = static_cast<const nki::ForStmt&>(*s);
        return in_nested_def(f.body, line) || in_nested_def(f.orelse, line);
      }
      case nki::StmtKind::While: {
        auto& w = static_cast<const nki::WhileStmt&>(*s);
        return in_nested_def(w.body, line) || in_nested_def(w.orelse, line);
      }
      case nki::StmtKind::With: return in_nested_def(static_cast<const nki::WithStmt&>(*s).body, line);
      case nki::StmtKind::Try: {
        auto& t = static_cast<const nki::TryStmt&>(*s);
        if (in_nested_def(t.body, line) || in_nested_def(t.orelse, line) || in_nested_def(t.finalbody, line)) return true;
        for (const auto& h : t.handlers)
          if (in_nested_def(h.body, line)) return true;
        return false;
      }
      default: return false;
    }
  }
  return false;
}

}  // namespace scope_text_detail

// True when `n`'s origin lies outside the kernel function's own scope: in another function of the
// module (an opened helper) or in a def nested in the kernel (an opened closure).
inline bool text_outside_kernel(const Kernel& k, const Node& n) {
  if (!n.origin || !k.function || k.function->body.empty()) return false;
  const uint32_t line = n.origin->span.line;
  const nki::Block& body = k.function->body;
  if (line < body.front()->span.line || line > body.back()->span.end_line) return true;
  return scope_text_detail::in_nested_def(body, line);
}

}  // namespace loopnest
