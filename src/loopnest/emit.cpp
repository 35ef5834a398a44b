// Printing a form back over the kernel's source (emit.h): the file around the kernel's body, kept
// line for line, with the imports and the decorator the printed body needs and without the helpers
// the body no longer calls; the body itself is emit_block.cpp's.
#include "loopnest/emitter.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/name_uses.h"

namespace loopnest {

namespace detail {

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


Emitter::Emitter(const Kernel& k, const EmitOptions& o) : k_(k), o_(o), lines_(split_lines(k.module->file->text)) {
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
  if (auto nl = k.dialect.alias.find("nki.language"); nl != k.dialect.alias.end())
    grid_bindings_ = authored_grid_names(k, nl->second);
  // A module the printed text needs goes with the file's own imports: after the last one at
  // the top level before the kernel (a reader looks there, and a diff shows one added line).
  for (const auto& s : k.module->body)
    if ((s->kind == StmtKind::Import || s->kind == StmtKind::ImportFrom) && last_line(*s) < first_)
      imports_after_ = std::max(imports_after_, last_line(*s));
}

std::string Emitter::run() {
  std::string out;
  tail_ = false;
  std::string imports = missing_imports();
  const uint32_t decorate_at = undecorated_def_line();
  for (uint32_t l = 1; l < first_; ++l) {
    if (l == decorate_at) out += line(l).substr(0, line(l).find("def")) + "@" + k_.dialect.decorate + "\n";
    const uint32_t at = l;
    out += edited_line(l) + "\n";
    if (at <= imports_after_ && imports_after_ <= l) out += imports;
  }
  // A file without top-level imports imports inside the kernel: the new one goes there too.
  if (imports_after_ == 0) out += indented(imports);
  block(k_.body, 0, out);
  for (uint32_t l = end_ + 1; l <= lines_.size(); ++l) out += edited_line(l) + "\n";
  return out;
}

std::string Emitter::missing_imports() {
  // A first pass finds the modules regenerated text needs that the kernel does not import.
  std::string scratch;
  std::set<std::string> before = needed_;
  collect_helper_edits();
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

std::string Emitter::indented(const std::string& lines) const {
  std::string out;
  for (const auto& l : split_lines(lines)) out += base_ + l + "\n";
  return out;
}

// The line of the kernel's `def` when it must get Dialect::decorate (it has no decorator), else 0.
uint32_t Emitter::undecorated_def_line() const {
  if (k_.dialect.decorate.empty()) return 0;
  for (const auto& s : k_.module->body) {
    if (s->kind != StmtKind::FunctionDef) continue;
    const auto& def = static_cast<const nki::FunctionDefStmt&>(*s);
    if (def.code.get() == k_.function && def.decorators.empty()) return def.span.line;
  }
  return 0;
}

namespace {

// How many times the module's top-level statements other than those in `skip` read `name`.
int reads_outside(const nki::ModuleAst& m, const std::vector<NameReads>& reads, const std::string& name,
                  const std::set<const Stmt*>& skip) {
  int n = 0;
  for (size_t i = 0; i < m.body.size(); ++i)
    if (!skip.count(m.body[i].get()))
      if (auto it = reads[i].find(name); it != reads[i].end()) n += it->second;
  return n;
}

std::vector<NameReads> reads_by_statement(const nki::ModuleAst& m) {
  std::vector<NameReads> out;
  for (auto& s : m.body) out.push_back(names_read(*s));
  return out;
}

// The first line of a top-level def with its decorators and the comment lines right above it
// (what they describe goes with them).
uint32_t first_line_of_def(const FunctionDefStmt& def, const std::vector<std::string>& lines) {
  uint32_t first = def.span.line;
  for (const auto& d : def.decorators) first = std::min(first, d->span.line);
  while (first > 1) {
    const std::string& above = lines[first - 2];
    if (above.empty() || above[0] != '#') break;
    --first;
  }
  return first;
}

// `text` (the printed module) without the helpers a move left uncalled: a top-level def other than
// the kernel's that the kernel's module reads (calls) and the printed one no longer does (the call
// opened into the kernel, `_impl(x, out)` or a launched body; also a helper only such a helper
// called). One the author left uncalled stays. Each goes with its decorators, the comment lines
// right above it and the blank lines after it.
std::string without_uncalled_helpers(const Kernel& k, const std::string& text) {
  int defs = 0;
  for (const auto& s : k.module->body) defs += s->kind == StmtKind::FunctionDef;
  if (defs < 2) return text;
  const nki::ModuleAst& input = *k.module;  // the author's module, parsed once by the lifter
  auto printed = parse_text(k.module->file->path, text);
  if (!printed) return text;
  const std::vector<NameReads> input_reads = reads_by_statement(input), printed_reads = reads_by_statement(*printed);
  auto called_in_input = [&](const std::string& name) {
    const Stmt* own = top_level_def(input, name);
    return reads_outside(input, input_reads, name, {own}) > 0;
  };
  std::set<const Stmt*> gone;
  for (bool again = true; again;) {
    again = false;
    for (const auto& s : printed->body) {
      if (s->kind != StmtKind::FunctionDef || gone.count(s.get())) continue;
      const std::string& name = static_cast<const FunctionDefStmt&>(*s).code->name;
      if (name == k.function->name || !called_in_input(name)) continue;
      std::set<const Stmt*> elsewhere = gone;
      elsewhere.insert(s.get());
      if (reads_outside(*printed, printed_reads, name, elsewhere) > 0) continue;
      gone.insert(s.get());
      again = true;
    }
  }
  if (gone.empty()) return text;
  const std::vector<std::string> lines = split_lines(text);
  std::vector<bool> keep(lines.size() + 1, true);
  for (const Stmt* s : gone) {
    uint32_t last = last_line(*s);
    while (last < lines.size() && lines[last].find_first_not_of(' ') == std::string::npos) ++last;
    for (uint32_t l = first_line_of_def(static_cast<const FunctionDefStmt&>(*s), lines); l <= last; ++l) keep[l] = false;
  }
  std::string out;
  for (uint32_t l = 1; l <= lines.size(); ++l)
    if (keep[l]) out += lines[l - 1] + "\n";
  return out;
}

}  // namespace

}  // namespace detail

std::string emit(const Kernel& k, const EmitOptions& options) {
  const std::string text = detail::Emitter(k, options).run();
  return options.drop_uncalled_helpers ? detail::without_uncalled_helpers(k, text) : text;
}

}  // namespace loopnest
