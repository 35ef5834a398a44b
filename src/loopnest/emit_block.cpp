// The kernel's body printed node by node (emitter.h): an unchanged statement or loop header copied
// as the author wrote it (re-indented, with the comments above it and the node's renames), a
// changed one printed from the form (emit_call.cpp), conditionals and `continue` guards as written.
#include "loopnest/emitter.h"

#include <algorithm>
#include <utility>

#include "loopnest/api.h"
#include "loopnest/item_loop.h"
#include "loopnest/jam_inline.h"

namespace loopnest::detail {

namespace {

// `acc = (nl.zeros(...),)`, `st = {"max": nl.max(t, axis=1)}`: a statement binding a name to a
// display whose one tile is known by the item's text (`acc[0]`, lift_assign.cpp
// display_of_results). Printed from the form it would assign the item of a name never bound.
bool display_item(const Node& n) {
  if (n.kind != NodeKind::Stmt || !n.origin || n.origin->kind != nki::StmtKind::Assign || n.ops.empty()) return false;
  const auto& a = static_cast<const nki::AssignStmt&>(*n.origin);
  if (a.targets.size() != 1 || a.targets[0]->kind != nki::ExprKind::Name) return false;
  const nki::ExprKind v = a.value->kind;
  return v == nki::ExprKind::Tuple || v == nki::ExprKind::List || v == nki::ExprKind::Dict;
}

}  // namespace

// The first line of each statement's leading region: the comments and blank lines between it
// and its predecessor (or its block's header) travel with it.
void Emitter::index_leading(const Block& b, uint32_t prev) {
  for (const auto& s : b) {
    leading_[s.get()] = prev + 1;
    if (s->kind == StmtKind::For) index_leading(static_cast<const ForStmt&>(*s).body, s->span.end_line);
    if (s->kind == StmtKind::With) index_leading(static_cast<const WithStmt&>(*s).body, s->span.end_line);
    if (s->kind == StmtKind::If) {
      auto& i = static_cast<const IfStmt&>(*s);
      index_leading(i.body, s->span.end_line);
      if (!i.orelse.empty()) {
        uint32_t after = i.body.empty() ? s->span.end_line : last_line(*i.body.back());
        index_leading(i.orelse, else_line(i).value_or(after));
      }
    }
    prev = last_line(*s);
  }
}

std::optional<uint32_t> Emitter::else_line(const IfStmt& i) const {
  if (i.orelse.empty()) return std::nullopt;
  uint32_t from = i.body.empty() ? i.span.end_line : last_line(*i.body.back());
  for (uint32_t l = from + 1; l < i.orelse.front()->span.line; ++l) {
    std::string t = line(l).substr(indent_of(line(l)));
    if (t.rfind("else", 0) == 0) return l;
  }
  return std::nullopt;
}

std::string Emitter::indent(int depth) const {
  std::string s = base_;
  for (int i = 0; i < depth; ++i) s += k_.dialect.indent;
  return s;
}

// `text` with the identifiers of the current renames replaced (whole words only).
std::string Emitter::renamed(const std::string& text) const {
  if (renames_.empty() || renames_.back().empty()) return text;
  std::string out;
  size_t i = 0;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < text.size()) {
    if (word(text[i]) && (i == 0 || !word(text[i - 1]))) {
      size_t j = i;
      while (j < text.size() && word(text[j])) ++j;
      std::string w = text.substr(i, j - i);
      auto it = renames_.back().find(w);
      out += it == renames_.back().end() ? w : it->second;
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// Source lines [from, to] moved from the indentation of line `anchor` to `depth`.
void Emitter::copy(uint32_t from, uint32_t to, uint32_t anchor, int depth, std::string& out) const {
  size_t orig = indent_of(line(anchor));
  std::string pad = indent(depth);
  for (uint32_t l = from; l <= to; ++l) {
    const std::string text = edited_line(l);
    size_t own = indent_of(text), strip = std::min(orig, own);
    if (text.size() == strip) {
      out += "\n";
      continue;
    }
    // A line left of the anchor (a comment the author dedented above a nested statement) keeps
    // its distance from it.
    size_t left = orig - strip;
    out += (pad.size() > left ? pad.substr(0, pad.size() - left) : std::string()) + renamed(text.substr(strip)) + "\n";
  }
}

void Emitter::leading(const Node& n, int depth, std::string& out) const {
  if (n.leading_of_removed && !n.repeat_copy) {
    const nki::Stmt* gone = n.leading_of_removed;
    auto it = leading_.find(gone);
    if (it != leading_.end() && it->second < gone->span.line) copy(it->second, gone->span.line - 1, gone->span.line, depth, out);
  }
  if (!n.origin || n.repeat_copy) return;
  auto it = leading_.find(n.origin);
  if (it == leading_.end() || it->second >= n.origin->span.line) return;
  copy(it->second, n.origin->span.line - 1, n.origin->span.line, depth, out);
}

void Emitter::block(const std::vector<Node>& nodes, int depth, std::string& out) {
  // tail_: the node is the last the loop around it runs in an iteration (a `continue` there skips
  // nothing the form runs).
  bool parent = tail_;
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (size_t run = list_display(nodes, j, depth, false, out)) {
      j += run - 1;
      continue;
    }
    tail_ = parent && j + 1 == nodes.size();
    node(nodes[j], depth, out);
  }
  tail_ = parent;
}

void Emitter::node(const Node& n, int depth, std::string& out) {
  auto scope = renames_.empty() ? std::map<std::string, std::string>{} : renames_.back();
  for (const auto& [from, to] : n.renames) scope[from] = to;
  renames_.push_back(std::move(scope));
  emit_node(n, depth, out);
  renames_.pop_back();
  // The author's grid name holds its grid in every statement printed after its binding.
  if (auto g = grid_bindings_.find(n.id); depth == 0 && g != grid_bindings_.end())
    for (const GridName& name : g->second) grid_names_[name.key] = name.name;
}

void Emitter::emit_node(const Node& n, int depth, std::string& out) {
  leading(n, depth, out);
  switch (n.kind) {
    case NodeKind::Inline:
      // A comprehension of fresh tiles whose declaration a move rewrote (psum_accumulate's buffer).
      if (n.dirty && !n.patch.empty()) {
        out += indent(depth) + n.patch + "\n";
        return;
      }
      if ((n.dirty || !n.origin) && fresh_tiles_list(n, depth, out)) return;
      if ((n.dirty || !n.origin) && !n.body.empty() && list_display(n.body, 0, depth, true, out) == n.body.size()) return;
      if (n.dirty || !n.origin) throw EmitError("a changed call of a helper function cannot be printed");
      copy(n.origin->span.line, last_line(*n.origin), n.origin->span.line, depth, out);
      return;
    case NodeKind::Stmt: case NodeKind::Meta: {
      // A gather's source operand (a scatter's dst) is the whole tensor it may read (write)
      // (loopnest::gathers, scatters): only the author's text says which rows, so it is always
      // copied, and a changed one is not printed.
      const bool gather = std::any_of(n.ops.begin(), n.ops.end(), [](const Op& op) { return indirect_dma(op); });
      if (gather && (n.dirty || !n.origin))
        throw EmitError("a changed gather or scatter (an indirect DMA) cannot be printed");
      // A statement making several named results (a dict display of calls: lift_assign.cpp
      // display_of_results) has no spelling of its own in the form: always copied as written.
      // So has one whose inner operation writes a destination of its own (the items of a tuple
      // carried through a loop, `a, b = nl.add(a, t), nl.add(b, t)`: lift_carry.cpp).
      const bool several = std::count_if(n.ops.begin(), n.ops.end(), [&](const Op& op) {
                             return op.result >= 0 && !k_.tensor(op.result).name.empty();
                           }) > 1 ||
                           std::any_of(n.ops.begin(), n.ops.empty() ? n.ops.end() : n.ops.end() - 1,
                                       [&](const Op& op) {
                                         int t = made_tile(op);
                                         return op.result < 0 && op.dst && (t < 0 || !k_.tensor(t).name.empty());
                                       });
      if (several && (n.dirty || !n.origin))
        throw EmitError("a changed statement making several named results cannot be printed");
      if (!n.dirty && n.origin && !rolled_item(n) &&
          (gather || several || display_item(n) || !(o_.regenerate && n.kind == NodeKind::Stmt && !walrus(*n.origin)))) {
        copy(n.origin->span.line, last_line(*n.origin), n.origin->span.line, depth, out);
      } else if (!n.patch.empty()) {
        out += indent(depth) + n.patch + "\n";
      } else if (n.kind == NodeKind::Stmt) {
        std::string text = statement(n);
        // A statement a move marked but whose text it left as it was (an operand named by a tile
        // that grew): copied, with the author's comments and line breaks.
        if (n.origin && !o_.regenerate && !walrus(*n.origin) && same_code(text, span_text(n.origin->span)))
          copy(n.origin->span.line, last_line(*n.origin), n.origin->span.line, depth, out);
        else
          out += indent(depth) + text + "\n";
      } else if (n.meta == MetaKind::View && n.view && !n.binds.empty()) {
        out += indent(depth) + n.binds[0] + " = " + view_binding(*n.view, n.binds[0]) + "\n";
      } else if (n.meta == MetaKind::Append && n.view && !n.binds.empty()) {
        out += indent(depth) + n.binds[0] + ".append(" + access(*n.view) + ")\n";
      } else {
        throw EmitError("a changed meta statement without its new text");
      }
      return;
    }
    case NodeKind::Loop: {
      if (rolled_comprehension(k_, n)) return rolled_loop(n, depth, out);
      if (item_loop(k_, n) && !o_.regenerate && !untouched_loop(n)) return regenerated_loop(n, depth, out);
      bool as_written = false;
      // A launch's program loop has no header in the text (its origin is the launched body's
      // first statement, for its line): always printed from the form.
      const bool has_header = n.origin && !k_.loops.at(n.loop).program;
      if (!n.dirty && has_header && (!o_.regenerate || walrus(*n.origin) || k_.loops.at(n.loop).host_items)) {
        copy(n.origin->span.line, n.origin->span.end_line, n.origin->span.line, depth, out);
        as_written = true;
      } else if (!n.patch.empty() && !o_.regenerate) {
        out += indent(depth) + n.patch + "\n";
      } else {
        out += indent(depth) + loop_header(k_.loops.at(n.loop)) + "\n";
      }
      if (n.body.empty()) out += indent(depth + 1) + "pass\n";
      {
        bool saved = std::exchange(tail_, true);
        bool saved_header = std::exchange(header_as_written_, as_written);
        block(n.body, depth + 1, out);
        tail_ = saved;
        header_as_written_ = saved_header;
      }
      return;
    }
    case NodeKind::If: {
      if (n.continues) return guard_continue(n, depth, out);
      if (!n.origin) throw EmitError("a new conditional cannot be printed");
      // A decided guard's copy around statements a move took out of it (nest_walk.h guard_copies),
      // or an opened helper's condition printed from the form (open_helpers.cpp): its else branch
      // as the form holds it.
      if (n.dirty && !n.patch.empty() && n.origin->kind == StmtKind::If) {
        out += indent(depth) + n.patch + "\n";
        if (n.body.empty()) out += indent(depth + 1) + "pass\n";
        block(n.body, depth + 1, out);
        if (!n.orelse.empty()) {
          out += indent(depth) + "else:\n";
          block(n.orelse, depth + 1, out);
        }
        return;
      }
      if (n.origin->kind == StmtKind::With) {  // a `with` block: lifted as a block always taken
        copy(n.origin->span.line, n.origin->span.end_line, n.origin->span.line, depth, out);
        if (n.body.empty()) out += indent(depth + 1) + "pass\n";
        block(n.body, depth + 1, out);
        return;
      }
      auto& i = static_cast<const IfStmt&>(*n.origin);
      if_header(n, depth, out);
      bool static_cond = n.cond_l.is_constant() && n.cond_r.is_constant();
      bool taken = static_cond && n.cond_l == n.cond_r;  // lifted as `0 == 0` when true
      if (static_cond && !taken) copy_block(i.body, depth + 1, out);
      else block(n.body, depth + 1, out);
      // (The form's body emptied by a move, a hoist out of a transparent block, leaves `pass`.)
      if ((static_cond && !taken) ? i.body.empty() : n.body.empty()) out += indent(depth + 1) + "pass\n";
      // `elif c:` (the else branch one if whose header the author wrote as elif): the chain as written.
      if (!i.orelse.empty() && elif_of(i)) {
        if (static_cond && taken) {
          copy(leading_.count(i.orelse.front().get()) ? leading_.at(i.orelse.front().get()) : i.orelse.front()->span.line,
               last_line(*i.orelse.back()), i.orelse.front()->span.line, depth, out);
          return;
        }
        if (n.orelse.size() == 1 && n.orelse.front().kind == NodeKind::If && n.orelse.front().origin == i.orelse.front().get()) {
          elif_node_ = &n.orelse.front();
          node(n.orelse.front(), depth, out);
          return;
        }
      }
      // A failing if's else branch emptied by a move (its statements before the loop they left,
      // nest_walk.h transparent_block) is left out: the if lifts again as the form reads it.
      if (!i.orelse.empty() && !(static_cond && !taken && n.orelse.empty())) {
        auto el = else_line(i);
        if (el) copy(*el, *el, n.origin->span.line, depth, out);
        else out += indent(depth) + "else:\n";
        if (static_cond && taken) copy_block(i.orelse, depth + 1, out);
        else block(n.orelse, depth + 1, out);
      }
      return;
    }
  }
}

// The if's else branch is one if statement written `elif c:` (its header line starts so).
bool Emitter::elif_of(const IfStmt& i) const {
  if (i.orelse.size() != 1 || i.orelse.front()->kind != StmtKind::If) return false;
  const std::string& l = line(i.orelse.front()->span.line);
  return l.compare(indent_of(l), 4, "elif") == 0;
}

// An if node's header as written; `elif c:` printed as `if c:` unless it continues the chain of
// the if printed just before it (elif_node_).
void Emitter::if_header(const Node& n, int depth, std::string& out) {
  std::string h;
  copy(n.origin->span.line, n.origin->span.end_line, n.origin->span.line, depth, h);
  bool chained = elif_node_ == &n;
  elif_node_ = nullptr;
  size_t at = h.find_first_not_of(' ');
  if (!chained && at != std::string::npos && h.compare(at, 4, "elif") == 0) h.replace(at, 4, "if");
  out += h;
}

// `if c: ...; continue` and the statements after it (Node::continues): as the author wrote it when
// the if is the last thing its loop runs, else as the if/else the form reads.
void Emitter::guard_continue(const Node& n, int depth, std::string& out) {
  auto& i = static_cast<const IfStmt&>(*n.origin);
  bool tail = tail_;
  if_header(n, depth, out);
  block(n.body, depth + 1, out);
  if (tail) {
    const Stmt& jump = *i.body.back();
    uint32_t from = leading_.count(&jump) ? leading_.at(&jump) : jump.span.line;
    // A break under its loop's header as written; under a header printed from the form (whose
    // stop ends the loop at the break, lift_break.cpp) or after a move changed the loop, the
    // continue the form reads: a break there could cut iterations a move put after it.
    if (jump.kind == StmtKind::Break && !header_as_written_) out += indent(depth + 1) + "continue\n";
    else copy(from, jump.span.end_line, jump.span.line, depth + 1, out);
    if (i.orelse.empty()) {
      block(n.orelse, depth, out);
      return;
    }
    // `elif c:` after the guard: the chain as written, the statements after it at the if's depth.
    if (elif_of(i) && !n.orelse.empty() && n.orelse.front().kind == NodeKind::If &&
        n.orelse.front().origin == i.orelse.front().get()) {
      elif_node_ = &n.orelse.front();
      block(n.orelse, depth, out);
      return;
    }
  } else if (n.body.empty()) {
    out += indent(depth + 1) + "pass\n";
  }
  out += indent(depth) + "else:\n";
  if (n.orelse.empty()) out += indent(depth + 1) + "pass\n";
  block(n.orelse, depth + 1, out);
}

// The statement (a loop: its header) binds a name with `:=`, which its operations in the form do
// not hold: it is copied, never regenerated (the name may be used later).
bool Emitter::walrus(const Stmt& s) const {
  for (uint32_t l = s.span.line; l <= s.span.end_line; ++l)
    if (line(l).find(":=") != std::string::npos) return true;
  return false;
}

void Emitter::copy_block(const Block& b, int depth, std::string& out) const {
  if (b.empty()) return;
  uint32_t from = leading_.count(b.front().get()) ? leading_.at(b.front().get()) : b.front()->span.line;
  copy(from, last_line(*b.back()), b.front()->span.line, depth, out);
}

}  // namespace loopnest::detail
