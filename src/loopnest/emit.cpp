#include "loopnest/emit.h"
#include "loopnest/grid_names.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"

namespace loopnest {

namespace {

using namespace nki;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t indent_of(const std::string& line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

// The last source line of a statement, its nested blocks included.
uint32_t last_line(const Stmt& s) {
  uint32_t last = s.span.end_line;
  auto deepest = [&](const Block& b) {
    if (!b.empty()) last = std::max(last, last_line(*b.back()));
  };
  if (s.kind == StmtKind::For) deepest(static_cast<const ForStmt&>(s).body);
  if (s.kind == StmtKind::If) {
    deepest(static_cast<const IfStmt&>(s).body);
    deepest(static_cast<const IfStmt&>(s).orelse);
  }
  if (s.kind == StmtKind::While) deepest(static_cast<const WhileStmt&>(s).body);
  if (s.kind == StmtKind::With) deepest(static_cast<const WithStmt&>(s).body);
  if (s.kind == StmtKind::FunctionDef) deepest(static_cast<const FunctionDefStmt&>(s).code->body);
  if (s.kind == StmtKind::Try) {
    auto& t = static_cast<const TryStmt&>(s);
    deepest(t.body);
    for (const auto& h : t.handlers) deepest(h.body);
    deepest(t.orelse);
    deepest(t.finalbody);
  }
  return last;
}

std::string number_literal(double v) {
  if (std::isinf(v)) return v > 0 ? "float('inf')" : "-float('inf')";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.1f}", v);
  return fmt::format("{}", v);
}

class Emitter {
 public:
  Emitter(const Kernel& k, const EmitOptions& o) : k_(k), o_(o), lines_(split_lines(k.module->file->text)) {
    const Block& body = k.function->body;
    if (body.empty()) throw EmitError("the kernel has an empty body");
    first_ = body.front()->span.line;
    base_ = std::string(body.front()->span.col - 1, ' ');
    end_ = 0;
    for (const auto& s : body) end_ = std::max(end_, last_line(*s));
    index_leading(body, first_ - 1);
    // A launched kernel's program ids (Kernel::grid) print as the calls that read them.
    if (!k.grid.empty()) {
      // (nl when the file does not import nki.language: emit_checked's lift then refuses it.)
      auto nl = k.dialect.alias.find("nki.language");
      for (size_t d = 0; d < k.grid.size(); ++d)
        program_ids_[k.grid[d]] = fmt::format("{}.program_id({})", nl == k.dialect.alias.end() ? "nl" : nl->second, d);
    }
    for (const auto& t : k.tensors)
      if (!t.name.empty()) names_in_scope_.insert(t.name);
    if (auto nl = k.dialect.alias.find("nki.language"); nl != k.dialect.alias.end())
      grid_bindings_ = authored_grid_names(k, nl->second);
    // A module the printed text needs goes with the file's own imports: after the last one at
    // the top level before the kernel (a reader looks there, and a diff shows one added line).
    for (const auto& s : k.module->body)
      if ((s->kind == StmtKind::Import || s->kind == StmtKind::ImportFrom) && last_line(*s) < first_)
        imports_after_ = std::max(imports_after_, last_line(*s));
  }

  std::string run() {
    std::string out;
    tail_ = false;
    std::string imports = missing_imports();
    const uint32_t decorate_at = undecorated_def_line();
    for (uint32_t l = 1; l < first_; ++l) {
      if (l == decorate_at) out += line(l).substr(0, line(l).find("def")) + "@" + k_.dialect.decorate + "\n";
      out += line(l) + "\n";
      if (l == imports_after_) out += imports;
    }
    // A file without top-level imports imports inside the kernel: the new one goes there too.
    if (imports_after_ == 0) out += indented(imports);
    block(k_.body, 0, out);
    for (uint32_t l = end_ + 1; l <= lines_.size(); ++l) out += line(l) + "\n";
    return out;
  }

 private:
  std::string str(const IExpr& e) const {
    return e.str([this](int v) {
      auto it = program_ids_.find(v);
      return it != program_ids_.end() ? it->second : k_.var_name(v);
    });
  }

  std::string line(uint32_t l) const { return l >= 1 && l <= lines_.size() ? lines_[l - 1] : ""; }

  // The first line of each statement's leading region: the comments and blank lines between it
  // and its predecessor (or its block's header) travel with it.
  void index_leading(const Block& b, uint32_t prev) {
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

  std::optional<uint32_t> else_line(const IfStmt& i) const {
    if (i.orelse.empty()) return std::nullopt;
    uint32_t from = i.body.empty() ? i.span.end_line : last_line(*i.body.back());
    for (uint32_t l = from + 1; l < i.orelse.front()->span.line; ++l) {
      std::string t = line(l).substr(indent_of(line(l)));
      if (t.rfind("else", 0) == 0) return l;
    }
    return std::nullopt;
  }

  std::string indent(int depth) const {
    std::string s = base_;
    for (int i = 0; i < depth; ++i) s += k_.dialect.indent;
    return s;
  }

  // `text` with the identifiers of the current renames replaced (whole words only).
  std::string renamed(const std::string& text) const {
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
  void copy(uint32_t from, uint32_t to, uint32_t anchor, int depth, std::string& out) const {
    size_t orig = indent_of(line(anchor));
    std::string pad = indent(depth);
    for (uint32_t l = from; l <= to; ++l) {
      const std::string& text = line(l);
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

  void leading(const Node& n, int depth, std::string& out) const {
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

  void block(const std::vector<Node>& nodes, int depth, std::string& out) {
    // tail_: the node is the last the loop around it runs in an iteration (a `continue` there skips
    // nothing the form runs).
    bool parent = tail_;
    for (size_t j = 0; j < nodes.size(); ++j) {
      tail_ = parent && j + 1 == nodes.size();
      node(nodes[j], depth, out);
    }
    tail_ = parent;
  }

  void node(const Node& n, int depth, std::string& out) {
    auto scope = renames_.empty() ? std::map<std::string, std::string>{} : renames_.back();
    for (const auto& [from, to] : n.renames) scope[from] = to;
    renames_.push_back(std::move(scope));
    emit_node(n, depth, out);
    renames_.pop_back();
    // The author's grid name holds its grid in every statement printed after its binding.
    if (auto g = grid_bindings_.find(n.id); depth == 0 && g != grid_bindings_.end()) grid_names_[g->second.key] = g->second.name;
  }

  void emit_node(const Node& n, int depth, std::string& out) {
    leading(n, depth, out);
    switch (n.kind) {
      case NodeKind::Inline:
        // A comprehension of fresh tiles whose declaration a move rewrote (psum_accumulate's buffer).
        if (n.dirty && !n.patch.empty()) {
          out += indent(depth) + n.patch + "\n";
          return;
        }
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
        // A statement making several named results (a dict display of calls: lift_stmt.cpp
        // display_of_results) has no spelling of its own in the form: always copied as written.
        const bool several = std::count_if(n.ops.begin(), n.ops.end(), [&](const Op& op) {
                               return op.result >= 0 && !k_.tensor(op.result).name.empty();
                             }) > 1;
        if (several && (n.dirty || !n.origin))
          throw EmitError("a changed statement making several named results cannot be printed");
        if (!n.dirty && n.origin &&
            (gather || several || !(o_.regenerate && n.kind == NodeKind::Stmt && !walrus(*n.origin)))) {
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
        if (i.body.empty() && n.body.empty()) out += indent(depth + 1) + "pass\n";
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
        if (!i.orelse.empty()) {
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
  bool elif_of(const IfStmt& i) const {
    if (i.orelse.size() != 1 || i.orelse.front()->kind != StmtKind::If) return false;
    const std::string& l = line(i.orelse.front()->span.line);
    return l.compare(indent_of(l), 4, "elif") == 0;
  }

  // An if node's header as written; `elif c:` printed as `if c:` unless it continues the chain of
  // the if printed just before it (elif_node_).
  void if_header(const Node& n, int depth, std::string& out) {
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
  void guard_continue(const Node& n, int depth, std::string& out) {
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
  bool walrus(const Stmt& s) const {
    for (uint32_t l = s.span.line; l <= s.span.end_line; ++l)
      if (line(l).find(":=") != std::string::npos) return true;
    return false;
  }

  void copy_block(const Block& b, int depth, std::string& out) const {
    if (b.empty()) return;
    uint32_t from = leading_.count(b.front().get()) ? leading_.at(b.front().get()) : b.front()->span.line;
    copy(from, last_line(*b.back()), b.front()->span.line, depth, out);
  }

  // ---- regenerated text ----

  // The source text a span covers (lines joined), with the node's renames.
  std::string span_text(const Span& s) const {
    if (s.line == 0) return "";
    if (s.line == s.end_line) return renamed(line(s.line).substr(s.col - 1, s.end_col - s.col));
    std::string out = line(s.line).substr(s.col - 1);
    for (uint32_t l = s.line + 1; l < s.end_line; ++l) out += " " + line(l);
    return renamed(out + " " + line(s.end_line).substr(0, s.end_col - 1));
  }

  // The same code but for spaces and line breaks outside string literals.
  static bool same_code(const std::string& a, const std::string& b) {
    auto squeeze = [](const std::string& t) {
      std::string out;
      char quote = 0;
      for (char c : t) {
        if (quote) {
          out += c;
          if (c == quote) quote = 0;
          continue;
        }
        if (c == '\'' || c == '"') quote = c;
        if (c == '\\') return std::string();  // a continuation: compared as different
        if (c != ' ' && c != '\t' && c != '\n') out += c;
      }
      return out;
    };
    std::string x = squeeze(a), y = squeeze(b);
    return !x.empty() && x == y;
  }

  // An unchanged expression of a changed statement, with the node's renames (a loop variable
  // after fusion), as a copied statement has them.
  std::string source(const Expr& e) const {
    const Span& s = e.span;
    if (s.line == 0) throw EmitError("an expression without a source position");
    if (s.line == s.end_line) return renamed(line(s.line).substr(s.col - 1, s.end_col - s.col));
    std::string out = line(s.line).substr(s.col - 1);
    for (uint32_t l = s.line + 1; l < s.end_line; ++l) out += " " + line(l).substr(indent_of(line(l)));
    std::string last = line(s.end_line).substr(0, s.end_col - 1);
    return renamed(out + " " + last.substr(indent_of(last)));
  }

  std::string alias(const std::string& module) {
    auto it = k_.dialect.alias.find(module);
    if (it != k_.dialect.alias.end()) return it->second;
    needed_.insert(module);
    return module == "nki.isa" ? "nisa" : module == "nki.language" ? "nl" : module == "numpy" ? "np" : module;
  }

  std::string api_text(const std::string& api) {
    if (api.rfind("nl.", 0) == 0) return alias("nki.language") + api.substr(2);
    if (api.rfind("nisa.", 0) == 0) return alias("nki.isa") + api.substr(4);
    if (api.rfind("np.", 0) == 0) return alias("numpy") + api.substr(2);
    return api;
  }

  std::string symbol_text(const std::string& s) {
    auto colon = s.find(':');
    if (colon == std::string::npos) {
      if (s == "True" || s == "False") return s;
      return alias("nki.language") + "." + s;
    }
    std::string kind = s.substr(0, colon), name = s.substr(colon + 1);
    if (kind == "engine") return alias("nki.isa") + "." + name + "_engine";
    if (kind == "dtype") return alias("nki.language") + "." + (name == "bool" ? "bool_" : name);  // nl.bool_
    if (kind == "buffer") return alias("nki.language") + "." + name;
    if (kind.rfind("isa.", 0) == 0) return alias("nki.isa") + "." + kind.substr(4) + "." + name;  // nisa.reduce_cmd.X
    return name;
  }

  // A backward slice whose stop is not a number known to be -1 or more: printed as a slice it
  // could read as counting from the end, so the access is printed as an index grid.
  static bool backward_stop(const DimIndex& d, const AxisTerm& term) {
    if (term.stride >= 0) return false;
    IExpr stop = d.start + (term.size - 1) * term.stride - 1;
    return !stop.is_constant() || stop.constant() < -1;
  }

  bool whole(const Access& a) const {
    const Tensor& t = k_.tensor(a.tensor);
    if (a.dims.size() != t.shape.size()) return false;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const DimIndex& di = a.dims[d];
      if (!(di.start == IExpr(0)) || di.terms.size() != 1 || di.terms[0].axis != static_cast<int>(d) ||
          di.terms[0].stride != 1 || !di.terms[0].affine() || di.terms[0].size != t.shape[d])
        return false;
    }
    return true;
  }

  // The access `rest` (without the list dim) of a list element, written with the element's name.
  std::string list_element(const Tensor& t, const Access& rest, bool write) {
    Tensor element = t;
    size_t levels = t.list_levels();
    element.shape.erase(element.shape.begin(), element.shape.begin() + static_cast<long>(levels));
    element.list_loop = -1;
    element.outer_lists.clear();
    if (element.on_chip()) element.partition_dim -= static_cast<int>(levels);
    bool whole_rest = rest.dims.size() == element.shape.size();
    for (size_t d = 0; whole_rest && d < rest.dims.size(); ++d) {
      const DimIndex& di = rest.dims[d];
      whole_rest = di.start == IExpr(0) && di.terms.size() == 1 && di.terms[0].axis == static_cast<int>(d) &&
                   di.terms[0].stride == 1 && di.terms[0].affine() && di.terms[0].size == element.shape[d];
    }
    // An item the kernel binds (Tensor::bound_items) is rebound, never written into.
    if (whole_rest) return write && !t.bound_items ? t.name + "[...]" : t.name;
    std::string out = t.name + "[";
    // Slices only when every dim is one axis (a reshaped item, `ps.reshape((P, 4, P))`, has a dim
    // of two axes: an index grid throughout, slices and grids do not mix).
    bool slices = !k_.dialect.grid_indexing && rest.rank < 0 && affine(rest) &&
                  std::all_of(rest.dims.begin(), rest.dims.end(), [](const DimIndex& d) { return d.terms.size() <= 1; });
    size_t rank = rest.tile_shape().size();
    for (size_t d = 0; d < rest.dims.size(); ++d) {
      const DimIndex& di = rest.dims[d];
      std::string s;
      if (slices && di.terms.size() == 1) {
        const AxisTerm& term = di.terms[0];
        IExpr hi = di.start + term.size * term.stride;
        bool full = di.start == IExpr(0) && term.stride == 1 && hi == element.shape[d];
        s = full ? ":" : fmt::format("{}:{}", str(di.start), str(hi));
      } else {
        bool zero = di.start.is_constant() && di.start.constant() == 0;
        if (!zero || di.terms.empty()) s = str(di.start);
        for (const auto& term : di.terms) s += (s.empty() ? "" : " + ") + grid_term(term, rank);
      }
      out += (d ? ", " : "") + s;
    }
    return out + "]";
  }

  // An integer operand of the loop variables; a condition (`k > 0`, an integer 1 / 0 on the form)
  // as the comparison, a `float(...)` as written.
  std::string index_text(const Operand& o) {
    if (o.number_type == "float") return "float(" + str(o.index) + ")";
    if (o.number_type != "bool") return str(o.index);
    return bool_text(o.index);
  }

  // A bool expression of the loop variables (1 / 0): the comparison it selects on, as written.
  std::string bool_text(const IExpr& e) {
    if (e.is_constant()) return e.constant() ? "True" : "False";
    if (e.constant() == 0 && e.terms().size() == 1) {
      const auto& [term, coeff] = e.terms().begin()->second;
      if (term.kind == TermKind::Select && coeff == 1 && term.args[2] == IExpr(1) && term.args[3] == IExpr(0))
        return fmt::format("{} {} {}", str(term.args[0]), symbol(term.cmp), str(term.args[1]));
    }
    return "bool(" + str(e) + ")";
  }

  std::string number_text(const Operand& o) {
    if (!o.number_type.empty()) {
      std::string np = alias("numpy");
      std::string v = o.number_type.find("int") != std::string::npos && o.number == std::floor(o.number)
                          ? fmt::format("{}", static_cast<int64_t>(o.number))
                          : number_literal(o.number);
      return fmt::format("{}.dtype({}.{}).type({})", np, np, o.number_type, v);
    }
    return o.integer ? fmt::format("{}", static_cast<int64_t>(o.number)) : number_literal(o.number);
  }

  // An index grid operand: its start plus its terms (`128*r + 1 + nl.arange(128)[:, None]`).
  std::string grid_text(const DimIndex& g, size_t rank) {
    bool zero = g.start.is_constant() && g.start.constant() == 0;
    std::string s = zero && !g.terms.empty() ? "" : str(g.start);
    for (const auto& term : g.terms) s += (s.empty() ? "" : " + ") + grid_term(term, rank);
    return s;
  }

  std::string grid_term(const AxisTerm& t, size_t rank) {
    std::string place;
    for (size_t a = 0; a < rank; ++a) place += (a ? ", " : "") + std::string(static_cast<int>(a) == t.axis ? ":" : "None");
    auto named = t.size.is_constant() && t.affine() && t.stride == 1
                     ? grid_names_.find(grid_key(t.size.constant(), t.axis, rank))
                     : grid_names_.end();
    if (named != grid_names_.end()) return named->second;
    std::string g = fmt::format("{}.arange({})[{}]", alias("nki.language"), str(t.size), place);
    if (t.div != 1) g = fmt::format("{} // {}", g, t.div);
    if (t.mod != 0) g = t.div != 1 ? fmt::format("({}) % {}", g, t.mod) : fmt::format("{} % {}", g, t.mod);
    if (t.stride != 1 && !t.affine()) g = "(" + g + ")";
    return t.stride == 1 ? g : fmt::format("{}*{}", t.stride, g);
  }

  // Every term plain affine (a quasi-affine one has no slice form).
  static bool affine(const Access& a) {
    for (const auto& d : a.dims)
      for (const auto& t : d.terms)
        if (!t.affine()) return false;
    return true;
  }

  // What a view statement binds `name` to: the access, or, where the access is the whole view the
  // statement names (`g_col = g.reshape((K, 1))` of an opened helper, printed from the form), the
  // reshape it is (its own name would print `g_col = g_col`).
  // The line of the kernel's `def` when it must get Dialect::decorate (it has no decorator), else 0.
  uint32_t undecorated_def_line() const {
    if (k_.dialect.decorate.empty()) return 0;
    for (const auto& s : k_.module->body) {
      if (s->kind != StmtKind::FunctionDef) continue;
      const auto& def = static_cast<const nki::FunctionDefStmt&>(*s);
      if (def.code.get() == k_.function && def.decorators.empty()) return def.span.line;
    }
    return 0;
  }

  std::string view_binding(const Access& a, const std::string& name) {
    std::string text = access(a);
    const Tensor& t = k_.tensor(a.tensor);
    if (text != name || t.name != name || t.role != TensorRole::View || t.base < 0) return text;
    return reshape_text(t);
  }

  std::string reshape_text(const Tensor& t) {
    std::string shape;
    for (size_t d = 0; d < t.shape.size(); ++d) shape += (d ? ", " : "") + str(t.shape[d]);
    return fmt::format("{}.reshape(({}{}))", tensor_text(k_.tensor(t.base)), shape, t.shape.size() == 1 ? "," : "");
  }

  // A tensor's name in the text: views of HBM tensors are written as the reshape they are.
  std::string tensor_text(const Tensor& t) {
    if (!t.name.empty()) return t.name;
    if (t.role == TensorRole::View && t.base >= 0) return reshape_text(t);
    throw EmitError("an access to an unnamed tensor outside its statement");
  }

  // A destination a move rewrote, spelled as the lift read it where it can (Op::dst_written).
  std::string dst_text(const Op& op) { return access(*op.dst, true, op.dst_written, op.dst_written_access.get()); }

  // The author's subscript elements of `written` (one per dim of `a`), when it subscripts the same
  // tensor as `old` (what the lift read there) by name, one plain element per dim; else empty.
  std::vector<const Expr*> written_elements(const Access& a, const std::string& name, const Expr* written,
                                            const Access* old) const {
    if (!o_.authored_dims || o_.regenerate || !written || !old || old->tensor != a.tensor ||
        old->dims.size() > a.dims.size() || written->kind != ExprKind::Subscript)
      return {};
    const auto& sub = static_cast<const SubscriptExpr&>(*written);
    if (!sub.value || sub.value->kind != ExprKind::Name || static_cast<const NameExpr&>(*sub.value).id != name) return {};
    std::vector<const Expr*> elems;
    if (sub.index->kind == ExprKind::Tuple)
      for (const auto& e : static_cast<const SequenceExpr&>(*sub.index).elts) elems.push_back(e.get());
    else
      elems.push_back(sub.index.get());
    if (elems.size() != old->dims.size()) return {};
    for (const Expr* e : elems) {
      if (e->kind == ExprKind::Starred) return {};
      if (e->kind == ExprKind::Constant && !static_cast<const ConstantExpr&>(*e).value.is_int()) return {};  // None, ...
    }
    return elems;
  }

  // The author's elements of a shape a move rewrote (Operand::written_shape), `rank` of them; else empty.
  std::vector<const Expr*> written_dims(const Operand& o, size_t rank) const {
    if (!o_.authored_dims || o_.regenerate || !o.written || !o.written_shape || o.written_shape->size() != rank ||
        (o.written->kind != ExprKind::Tuple && o.written->kind != ExprKind::List))
      return {};
    std::vector<const Expr*> elems;
    for (const auto& e : static_cast<const SequenceExpr&>(*o.written).elts) {
      if (e->kind == ExprKind::Starred) return {};
      elems.push_back(e.get());
    }
    return elems.size() == rank ? elems : std::vector<const Expr*>{};
  }

  // The same index, or the same once loop variables are named (a copy of a loop, `for t` filling a
  // hoisted buffer, has its own id and the author's name): the author's text names it alike.
  bool same_dim(const DimIndex& now, const DimIndex& was) const {
    if (now == was) return true;
    DimIndex a = now, b = was;
    a.start = IExpr(0), b.start = IExpr(0);
    if (!(a == b)) return false;
    std::string x = k_.str(now.start), y = k_.str(was.start);
    return x == y && x.find('?') == std::string::npos;
  }

  // The author's `nl.ds(...)` call: its callee as written; "" when the element is not one.
  std::string ds_callee(const Expr* e) const {
    if (!e || e->kind != ExprKind::Call) return "";
    const auto& c = static_cast<const CallExpr&>(*e);
    const Expr& f = *c.func;
    const bool ds = (f.kind == ExprKind::Attribute && static_cast<const AttributeExpr&>(f).attr == "ds") ||
                    (f.kind == ExprKind::Name && static_cast<const NameExpr&>(f).id == "ds");
    return ds && c.args.size() == 2 && c.keywords.empty() ? source(f) : "";
  }

  // `write`: the access is a destination, so a whole tensor is `t[...]` (a bare name would rebind).
  // `written` / `old`: the expression and access the lift read for it (Operand::written): the dims
  // equal to the old ones print as the author wrote them, the others in the author's spelling.
  std::string access(const Access& a, bool write = false, const Expr* written = nullptr, const Access* old = nullptr) {
    const Tensor& t = k_.tensor(a.tensor);
    size_t levels = t.list_levels();
    bool list_indexed = levels > 0 && a.dims.size() >= levels;
    for (size_t d = 0; list_indexed && d < levels; ++d) list_indexed = a.dims[d].terms.empty();
    if (list_indexed) {
      // A list element: the iteration's own tile by its name, another one through the list in
      // scope (`scores[m]`; in lists of lists the deepest level whose loops enclose the access:
      // `result_tiles[m][bm][bn]` outside the m loop, `block_tiles[bm][bn]` inside it).
      Access rest = a;
      rest.dims.erase(rest.dims.begin(), rest.dims.begin() + static_cast<long>(levels));
      std::string inner = list_element(t, rest, write);
      std::vector<std::pair<std::string, int>> lists = t.outer_lists;
      lists.push_back({t.list_name, t.list_loop});
      size_t in_scope = 0;
      while (in_scope < levels && a.dims[in_scope].start == IExpr::var(lists[in_scope].second)) ++in_scope;
      if (in_scope == levels) return inner;
      std::string sub = inner.size() > t.name.size() ? inner.substr(t.name.size()) : "";
      std::string index;
      for (size_t d = in_scope; d < levels; ++d) index += "[" + str(a.dims[d].start) + "]";
      return lists[in_scope].first + index + sub;
    }
    std::string name = tensor_text(t);
    if (whole(a)) {
      if (!write) return name;
      if (t.shape.empty() || t.partition_dim <= 0) return name + "[...]";
    }
    size_t rank = a.tile_shape().size();
    // Slices when every dim has at most one term, on axes in increasing order.
    bool slices = !k_.dialect.grid_indexing && a.rank < 0 && affine(a);
    int next = 0;
    for (const auto& d : a.dims) {
      if (d.terms.size() > 1) slices = false;
      for (const auto& term : d.terms) slices = slices && term.axis == next++ && !backward_stop(d, term);
    }
    // The author's elements, where the tile keeps its rank (a copied index grid names its axes).
    std::vector<const Expr*> written_elems = written_elements(a, name, written, old);
    if (!written_elems.empty() && (old->rank != a.rank || old->tile_shape().size() != rank)) written_elems.clear();
    // Each dim's author's element and old index: dims a move inserted (block dims of an expanded
    // buffer) have none; the others keep their order around them.
    std::vector<const Expr*> elems(a.dims.size(), nullptr);
    std::vector<const DimIndex*> was(a.dims.size(), nullptr);
    if (!written_elems.empty()) {
      const size_t added = a.dims.size() - old->dims.size();
      size_t best = 0, best_equal = 0;
      for (size_t pos = 0; pos <= old->dims.size() && added > 0; ++pos) {
        size_t equal = 0;
        for (size_t i = 0; i < old->dims.size(); ++i) equal += old->dims[i] == a.dims[i < pos ? i : i + added];
        if (equal > best_equal) best = pos, best_equal = equal;
      }
      for (size_t i = 0; i < old->dims.size(); ++i) {
        const size_t d = i < best ? i : i + added;
        elems[d] = written_elems[i];
        was[d] = &old->dims[i];
      }
    }
    std::string out = name + "[";
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const DimIndex& di = a.dims[d];
      std::string s;
      // (An index grid's text may carry extents on other axes the form does not show: `i_p` of
      // `i_p, i_f = nl.mgrid[0:64, 0:768]` is (64, 768); only slices, `nl.ds` and integers copy.)
      if (elems[d] && same_dim(di, *was[d]) &&
          (di.terms.empty() || elems[d]->kind == ExprKind::Slice || !ds_callee(elems[d]).empty())) {
        s = source(*elems[d]);
      } else if (slices && di.terms.size() == 1) {
        const AxisTerm& term = di.terms[0];
        // The stop of a strided slice is one past its last element (`1::2` of 64 is 1:64:2, not
        // 1:65:2, which reaches outside the dim).
        IExpr hi = term.stride == 1 ? di.start + term.size : di.start + (term.size - 1) * term.stride + 1;
        bool full = di.start == IExpr(0) && term.stride == 1 && d < t.shape.size() && hi == t.shape[d];
        s = full ? ":" : fmt::format("{}:{}", str(di.start), str(hi));
        // Where the author wrote `nl.ds(start, size)`, the new start and size in it.
        if (std::string ds = ds_callee(elems[d]); !full && !ds.empty() && term.stride == 1 && term.affine())
          s = fmt::format("{}({}, {})", ds, str(di.start), str(term.size));
        // Walking backwards the stop is one before the last element; past index 0 Python has no
        // number for it (-1 counts from the end), so it is left out (`255::-1`).
        if (term.stride < 0) {
          IExpr stop = di.start + (term.size - 1) * term.stride - 1;
          s = stop == IExpr(-1) ? str(di.start) + ":" : fmt::format("{}:{}", str(di.start), str(stop));
        }
        if (term.stride != 1) s += fmt::format(":{}", term.stride);
      } else {
        bool zero = di.start.is_constant() && di.start.constant() == 0;
        if (!zero || di.terms.empty()) s = str(di.start);
        for (const auto& term : di.terms) s += (s.empty() ? "" : " + ") + grid_term(term, rank);
      }
      out += (d ? ", " : "") + s;
    }
    return out + "]";
  }

  // The source of an unchanged expression (null when regenerating everything).
  const Expr* kept(const Expr* e) const { return o_.regenerate ? nullptr : e; }

  std::string operand(const Operand& o, const Node& n) {
    // The result of an inner call of the statement is that call, written from its op (it may
    // have changed while the operand's source text still shows the old call).
    if (o.kind == Operand::Kind::Tile && k_.tensor(o.access.tensor).name.empty())
      for (const Op& inner : n.ops)
        if (made_tile(inner) == o.access.tensor) return call(inner, n);
    // `(scale := 2.0)`: the span leaves out the parentheses an assignment expression needs.
    if (kept(o.origin) && (!o.origin_moved || o_.moved_origins))
      return o.origin->kind == ExprKind::NamedExpr ? "(" + source(*o.origin) + ")" : source(*o.origin);
    switch (o.kind) {
      case Operand::Kind::Tile:
        if (o.number_when)
          return fmt::format("({} if {} else {})", number_text(o), bool_text(*o.number_when),
                             access(o.access, false, o.written, o.written_access.get()));
        return access(o.access, false, o.written, o.written_access.get());
      case Operand::Kind::Number: return number_text(o);
      case Operand::Kind::Symbol: return symbol_text(o.symbol);
      case Operand::Kind::Shape: {
        std::vector<const Expr*> elems = written_dims(o, o.shape.size());
        std::string s = "(";
        for (size_t i = 0; i < o.shape.size(); ++i)
          s += (i ? ", " : "") + (elems.empty() || !(o.shape[i] == (*o.written_shape)[i]) ? str(o.shape[i]) : source(*elems[i]));
        return s + (o.shape.size() == 1 ? ",)" : ")");
      }
      case Operand::Kind::None: return "None";
      case Operand::Kind::Other: return o.text;
      case Operand::Kind::Index: return index_text(o);
      case Operand::Kind::Grid: return grid_text(o.grid, static_cast<size_t>(o.grid_rank));
    }
    return "None";
  }

  std::string shape_text(const Tensor& t, const Op& op) {
    std::string par = alias("nki.language") + ".par_dim";
    // The author's par_dim spelling, from the shape as written (or the call, once a move resized it).
    const Expr* written = nullptr;
    if (const Arg* s = op.arg("shape"); s && s->value.origin) written = s->value.origin;
    else if (op.origin) written = op.origin;
    if (written) {
      std::string orig = source(*written);
      if (orig.find("nl.par_dim") == std::string::npos && orig.find("par_dim(") != std::string::npos) par = "par_dim";
    }
    std::string s = "(";
    size_t first = t.list_levels();  // a list element is declared without the lists' dims
    const Arg* shape_arg = op.arg("shape");
    std::vector<const Expr*> elems = shape_arg ? written_dims(shape_arg->value, t.shape.size() - first) : std::vector<const Expr*>{};
    for (size_t d = first; d < t.shape.size(); ++d) {
      std::string dim = str(t.shape[d]);
      // A dim the move left as it was: the author's text (`BLOCK_M`, `nl.par_dim(P)`).
      if (!elems.empty() && t.shape[d] == (*shape_arg->value.written_shape)[d - first]) {
        s += (d > first ? ", " : "") + source(*elems[d - first]);
        continue;
      }
      if (t.dim_text.size() == t.shape.size() && !t.dim_text[d].second.empty() && t.dim_text[d].first == t.shape[d])
        dim = t.dim_text[d].second;
      int pd = t.partition_dim - static_cast<int>(first);
      if (pd > 0 && static_cast<int>(d - first) == pd) dim = fmt::format("{}({})", par, dim);
      s += (d > first ? ", " : "") + dim;
    }
    return s + (t.shape.size() - first == 1 ? ",)" : ")");
  }

  std::string call(const Op& op, const Node& n) {
    bool same_call = kept(op.origin) && op.api == op.origin_api;
    std::string callee = same_call ? source(*op.origin->func) : api_text(op.api);
    std::string args;
    bool keywords_only = !same_call;
    auto add = [&](const std::string& name, const std::string& text, bool positional) {
      bool pos = positional && !keywords_only;
      if (!pos) keywords_only = true;
      args += (args.empty() ? "" : ", ") + (pos ? text : name + "=" + text);
    };
    // The destination stays positional where the author wrote it so: it was the call's first
    // positional argument (also after a move rewrote its index and dropped its origin).
    auto dst_positional = [&] {
      if (!op.origin || op.origin->args.empty()) return false;
      if (op.dst_origin) return op.dst_origin == op.origin->args.front().get();
      for (const auto& kw : op.origin->keywords)
        if (kw.name == "dst") return false;
      return true;
    };
    if (op.dst_first && op.dst && op.api != "nl.store")
      add("dst", kept(op.dst_origin) ? source(*op.dst_origin) : dst_text(op), dst_positional());
    if (op.api == "nl.store" && op.dst)
      add("dst", kept(op.dst_origin) ? source(*op.dst_origin) : dst_text(op), dst_positional() || !same_call);
    const Tensor* created = nullptr;
    const ApiSpec* spec = find_api(op.api);
    if (spec && spec->creates && op.dst) created = &k_.tensor(op.dst->tensor);
    for (const Arg& a : op.args) {
      if (created && a.name == "shape") {
        add("shape", shape_text(*created, op), a.positional);
        continue;
      }
      if (a.name == "mask" && !kept(a.value.origin) && !op.mask.empty()) {
        add("mask", mask_text(op), a.positional);
        continue;
      }
      add(a.name, operand(a.value, n), a.positional);
    }
    return callee + "(" + args + ")";
  }

  // A mask a move rewrote, from its constraints: `(2048*t - 8192 + nl.arange(2048)[None, :] < 0)`,
  // each axis an index grid of the op's tile (the destination's, else its first tile operand's).
  std::string mask_text(const Op& op) {
    std::vector<IExpr> shape;
    if (op.dst) shape = op.dst->tile_shape();
    for (size_t i = 0; shape.empty() && i < op.args.size(); ++i)
      if (op.args[i].value.kind == Operand::Kind::Tile) shape = op.args[i].value.access.tile_shape();
    std::string out;
    for (const Constraint& c : op.mask) {
      DimIndex lhs{c.expr, {}};
      for (const auto& [axis, coeff] : c.axes) {
        if (axis < 0 || static_cast<size_t>(axis) >= shape.size()) throw EmitError("a mask on an axis the tile does not have");
        lhs.terms.push_back({axis, shape[static_cast<size_t>(axis)], coeff});
      }
      out += (out.empty() ? "" : " & ") + fmt::format("({} {} 0)", grid_text(lhs, shape.size()), symbol(c.cmp));
    }
    return op.mask.size() == 1 ? out : "(" + out + ")";
  }

  std::string statement(const Node& n) {
    if (n.ops.empty()) throw EmitError("a changed statement without operations");
    const Op& root = n.ops.back();
    for (size_t i = 0; i + 1 < n.ops.size(); ++i) {
      int t = made_tile(n.ops[i]);
      if (t < 0 || !k_.tensor(t).name.empty()) throw EmitError("a statement whose inner operation has its own destination");
    }
    const ApiSpec* spec = find_api(root.api);
    if (root.api == "assign") {
      const Arg* src = root.arg("src");
      if (!src || !root.dst) throw EmitError("an assignment without source or destination");
      std::string dst = kept(root.dst_origin) ? source(*root.dst_origin) : dst_text(root);
      return dst + (root.accumulate ? " += " : " = ") + operand(src->value, n);
    }
    if (root.result >= 0) {
      // `blocks.append(nl.load(...))`: the result goes into the list as the author wrote it.
      if (std::string list = appended_list(n); !list.empty()) return list + ".append(" + call(root, n) + ")";
      const std::string& name = k_.tensor(root.result).name;
      return name.empty() ? call(root, n) : name + " = " + call(root, n);  // a result nobody reads
    }
    if (spec && spec->creates && root.dst) {
      // `outs.append(nl.ndarray(...))`: the allocation goes into the list as the author wrote it.
      if (std::string list = appended_list(n); !list.empty()) return list + ".append(" + call(root, n) + ")";
      const Tensor& t = k_.tensor(root.dst->tensor);
      return t.name + " = " + call(root, n);
    }
    if (root.dst_first || root.cls == OpClass::Store || root.cls == OpClass::DmaCopy) return call(root, n);
    if (!root.dst) return call(root, n);
    std::string dst = kept(root.dst_origin) ? source(*root.dst_origin) : dst_text(root);
    return dst + (root.accumulate ? " += " : " = ") + call(root, n);
  }

  std::string loop_header(const Loop& l) {
    std::string fn = l.kind == LoopKind::Range ? "range"
                     : l.dynamic && l.kind == LoopKind::Sequential ? alias("nki.language") + ".dynamic_range"
                                                                   : alias("nki.language") + "." + to_string(l.kind);
    std::string range = l.start.is_constant() && l.start.constant() == 0 && l.step == 1
                            ? str(l.stop)
                            : fmt::format("{}, {}{}", str(l.start), str(l.stop), l.step == 1 ? "" : fmt::format(", {}", l.step));
    return fmt::format("for {} in {}({}):", l.var, fn, range);
  }

  std::string indented(const std::string& lines) const {
    std::string out;
    for (const auto& l : split_lines(lines)) out += base_ + l + "\n";
    return out;
  }

  std::string missing_imports() {
    // A first pass finds the modules regenerated text needs that the kernel does not import.
    std::string scratch;
    std::set<std::string> before = needed_;
    block(k_.body, 0, scratch);
    std::string out;
    for (const auto& m : needed_) {
      if (before.count(m)) continue;
      std::string path = k_.dialect.new_api ? m : (m == "numpy" ? m : "neuronxcc." + m);
      std::string as = m == "nki.isa" ? "nisa" : m == "nki.language" ? "nl" : "np";
      out += fmt::format("import {} as {}\n", path, as);
    }
    return out;
  }

  const Kernel& k_;
  EmitOptions o_;
  std::vector<std::string> lines_;
  uint32_t first_ = 1, end_ = 0;
  uint32_t imports_after_ = 0;  // the file's last top-level import line before the kernel (0: none)
  std::string base_;
  std::map<const Stmt*, uint32_t> leading_;
  std::set<std::string> needed_;
  bool tail_ = false;  // the node being printed is the last its loop runs (block)
  bool header_as_written_ = true;  // the loop around the node printed its header as the author wrote it
  const Node* elif_node_ = nullptr;  // the if node being printed as the `elif` of the one before
  std::set<std::string> names_in_scope_;
  std::map<int, GridName> grid_bindings_;          // the author's grid names, by binding node
  std::map<std::string, std::string> grid_names_;  // grid_key -> name, once its binding is printed
  std::map<int, std::string> program_ids_;  // loop id -> `nl.program_id(d)` (Kernel::grid)
  std::vector<std::map<std::string, std::string>> renames_;
};

std::string first_difference(const std::string& a, const std::string& b) {
  auto la = split_lines(a), lb = split_lines(b);
  for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
    std::string x = i < la.size() ? la[i] : "<end>", y = i < lb.size() ? lb[i] : "<end>";
    if (x != y) return fmt::format("line {}:\n  form:    {}\n  printed: {}", i + 1, x, y);
  }
  return "";
}

}  // namespace

std::string emit(const Kernel& k, const EmitOptions& options) { return Emitter(k, options).run(); }

namespace {

bool has_moved_origin(const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    for (const Op& op : n.ops)
      for (const Arg& a : op.args)
        if (a.value.origin_moved && a.value.origin) return true;
    if (has_moved_origin(n.body) || has_moved_origin(n.orelse)) return true;
  }
  return false;
}

// A loop whose variable an enclosing loop's also names: printed, the inner one hides the outer one
// from every statement under it, and the form printed back reads alike (both print as `t`), so
// the comparison below cannot see the change of meaning.
void check_no_hidden_loop_vars(const Kernel& k) {
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& around) {
    if (n.kind != NodeKind::Loop) return;
    for (int o : around)
      if (o != n.loop && k.var_name(o) == k.var_name(n.loop))
        throw EmitError(fmt::format("the loop over '{}' would hide the enclosing loop's variable of that name",
                                    k.var_name(n.loop)));
  });
}

std::string emit_checked_once(const Kernel& k, const std::vector<ArgSpec>& args, const EmitOptions& options) {
  check_no_hidden_loop_vars(k);
  std::string text = emit(k, options);
  Kernel again;
  try {
    again = lift_source(k.module->file->path, text, args, k.entry, k.nc_version);
  } catch (const LiftError& e) {
    throw EmitError("the printed kernel does not lift:\n" + e.render());
  }
  std::string want = dump(k), got = dump(again);
  if (want != got && std::getenv("ACCELOPT_DUMP_FORMS")) fmt::print(stderr, "--- form\n{}--- printed\n{}", want, got);
  if (want != got) throw EmitError("the printed kernel has another loop-nest form than the transformed one, at " +
                                   first_difference(want, got));
  return text;
}

}  // namespace

namespace {

std::string emit_checked_origins(const Kernel& k, const std::vector<ArgSpec>& args, const EmitOptions& options) {
  if (!options.moved_origins || !has_moved_origin(k.body)) return emit_checked_once(k, args, options);
  try {
    return emit_checked_once(k, args, options);
  } catch (const EmitError&) {
    // A carried name is not in scope where the operand landed, or means another value there.
    EmitOptions values = options;
    values.moved_origins = false;
    return emit_checked_once(k, args, values);
  }
}

}  // namespace

std::string emit_checked(const Kernel& k, const std::vector<ArgSpec>& args, const EmitOptions& options) {
  if (!options.authored_dims || options.regenerate) return emit_checked_origins(k, args, options);
  try {
    return emit_checked_origins(k, args, options);
  } catch (const EmitError&) {
    // An author's index text copied where it names another value (a name rebound, out of scope).
    EmitOptions plain = options;
    plain.authored_dims = false;
    return emit_checked_origins(k, args, plain);
  }
}

}  // namespace loopnest
