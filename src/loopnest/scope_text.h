// Whether a node's source text may be copied into the kernel's own body. A helper opened at its
// call (open_helpers.cpp) keeps its statements' origins in the helper's text, whose names (`d` of
// the helper's `n, d = x.shape`, its parameters) the kernel does not bind: a move that keeps a
// header or declaration "as the author spelled it" must print such a node from the form instead.
#pragma once

#include <algorithm>
#include <cstdint>

#include "loopnest/form.h"
#include "nki/ast.h"

namespace loopnest {

namespace scope_text_detail {

inline uint32_t block_end(const nki::Block& b);

// The last line of `s`: a compound statement's span is its header only, so its blocks decide.
inline uint32_t stmt_end(const nki::Stmt& s) {
  uint32_t end = s.span.end_line;
  auto more = [&](const nki::Block& b) { end = std::max(end, block_end(b)); };
  switch (s.kind) {
    case nki::StmtKind::FunctionDef: more(static_cast<const nki::FunctionDefStmt&>(s).code->body); break;
    case nki::StmtKind::ClassDef: more(static_cast<const nki::ClassDefStmt&>(s).code->body); break;
    case nki::StmtKind::If: {
      auto& i = static_cast<const nki::IfStmt&>(s);
      more(i.body), more(i.orelse);
      break;
    }
    case nki::StmtKind::For: {
      auto& f = static_cast<const nki::ForStmt&>(s);
      more(f.body), more(f.orelse);
      break;
    }
    case nki::StmtKind::While: {
      auto& w = static_cast<const nki::WhileStmt&>(s);
      more(w.body), more(w.orelse);
      break;
    }
    case nki::StmtKind::With: more(static_cast<const nki::WithStmt&>(s).body); break;
    case nki::StmtKind::Try: {
      auto& t = static_cast<const nki::TryStmt&>(s);
      more(t.body), more(t.orelse), more(t.finalbody);
      for (const auto& h : t.handlers) more(h.body);
      break;
    }
    default: break;
  }
  return end;
}

inline uint32_t block_end(const nki::Block& b) { return b.empty() ? 0 : stmt_end(*b.back()); }

// Whether `line` lies in a def (or class) nested anywhere in `body`: a closure of the kernel.
inline bool in_nested_def(const nki::Block& body, uint32_t line) {
  for (const auto& s : body) {
    if (line < s->span.line || line > stmt_end(*s)) continue;
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
  if (line < body.front()->span.line || line > scope_text_detail::block_end(body)) return true;
  return scope_text_detail::in_nested_def(body, line);
}

}  // namespace loopnest
