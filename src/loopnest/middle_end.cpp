// The compiler's middle end back on: a kernel decorated `@nki.compiler.skip_middle_end_transformations`
// (CS149-style course kernels put it on to make timings readable) runs in program order on every
// engine and queue, with none of the compiler's loop vectorization (docs/simulator.md, Dependences
// and program order: "program order is what runs", CS149; nki-language.md's directive table). A
// kernel engineer who wants speed removes the decorator: the instructions and the numerics are the
// same, the compiler may then reorder independent instructions and overlap affine iterations.
//
// The site: every such decorator of a function of the kernel's module (the kernel, a kernel it
// launches or calls), each on a line of its own, deleted from the source, which is lifted again on
// the kernel's own arguments (a source edit, as param_size's). Anchored at the kernel's first loop;
// no site in a kernel without loops (nothing to reorder across iterations) or whose edited source
// does not lift, nor in one that places its own buffers (`buffer=ncc.sbuf.mod_alloc(...)`,
// `.alloc(func)`): the directive is documented for such manual-allocation kernels
// (nki-language.md 1.7), which may need it. Like affine_loop it adds no work and only lifts
// ordering constraints. A second site (`then=affine_range`) also writes the loops the compiler runs
// in order (a legacy `range`, a sequential_range) whose iterations commute as affine_range, as
// affine_loop would: a course-style kernel has both, and each alone leaves program order in place.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "loopnest/lift.h"
#include "loopnest/source_edit.h"
#include "loopnest/transform.h"

namespace loopnest {

// affine_loop.cpp: every loop run in order whose iterations commute written affine_range; how many.
int write_every_loop_affine(Kernel& k);

namespace {

constexpr const char* kDirective = "skip_middle_end_transformations";

// Whether decorator `e` is the directive (`nki.compiler.skip_middle_end_transformations`, an
// imported name of it, or either called with no arguments).
bool is_directive(const nki::Expr& e) {
  if (e.kind == nki::ExprKind::Call) {
    const auto& call = static_cast<const nki::CallExpr&>(e);
    return call.args.empty() && call.keywords.empty() && is_directive(*call.func);
  }
  if (e.kind == nki::ExprKind::Attribute) return static_cast<const nki::AttributeExpr&>(e).attr == kDirective;
  if (e.kind == nki::ExprKind::Name) return static_cast<const nki::NameExpr&>(e).id == kDirective;
  return false;
}

// The source lines (1-based) holding only such a decorator, in the module's functions and the
// functions defined in their bodies.
void directive_lines(const std::vector<nki::StmtPtr>& body, const std::string& text, std::vector<uint32_t>& out) {
  for (const auto& st : body) {
    if (st->kind != nki::StmtKind::FunctionDef) continue;
    const auto& def = static_cast<const nki::FunctionDefStmt&>(*st);
    for (const auto& d : def.decorators) {
      if (!is_directive(*d) || d->span.line != d->span.end_line) continue;
      // The line is `@` and the expression, blanks and a comment around them.
      const size_t at = source_offset(text, d->span.line, 1);
      if (at == std::string::npos) continue;
      std::string line = text.substr(at, text.find('\n', at) - at);
      const size_t end = d->span.end_col - 1, start = line.find_first_not_of(" \t");
      const size_t rest = line.find_first_not_of(" \t", end);
      if (start == std::string::npos || line[start] != '@' || line.find_first_not_of(" \t", start + 1) != d->span.col - 1)
        continue;
      if (rest != std::string::npos && line[rest] != '#') continue;
      out.push_back(d->span.line);
    }
    directive_lines(def.code->body, text, out);
  }
}

// Whether a declaration of the kernel places its tile itself (`buffer=` an allocator call other than
// auto_alloc: mod_alloc, alloc).
bool allocates_directly(const Kernel& k) {
  bool direct = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const Op& op : n.ops) {
      const Arg* b = op.arg("buffer");
      if (!b || !b->value.origin || b->value.origin->kind != nki::ExprKind::Call) continue;
      const nki::Expr& f = *static_cast<const nki::CallExpr&>(*b->value.origin).func;
      if (f.kind == nki::ExprKind::Attribute && static_cast<const nki::AttributeExpr&>(f).attr != "auto_alloc") direct = true;
    }
  });
  return direct;
}

// `text` without the given lines.
std::string without_lines(const std::string& text, const std::vector<uint32_t>& lines) {
  std::string out;
  uint32_t line = 1;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) out += text.substr(at, end - at);
    at = end;
    ++line;
  }
  return out;
}

class MiddleEnd : public Transform {
 public:
  std::string name() const override { return "middle_end"; }
  std::string description() const override {
    return "remove @nki.compiler.skip_middle_end_transformations, so that the compiler may reorder independent "
           "instructions and overlap loop iterations (the kernel ran in program order on every engine)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    if (!k.module || !k.module->file) return false;
    const std::string& text = k.module->file->text;
    std::vector<uint32_t> lines;
    directive_lines(k.module->body, text, lines);
    if (lines.empty() || allocates_directly(k)) return false;
    std::vector<int> loops = open_loop_ids(k);
    Node* first = loops.empty() ? nullptr : find_node(k, loops.front());
    auto args = own_arguments(k);
    if (!first || !args) return false;
    std::shared_ptr<Kernel> after;
    try {
      after = std::make_shared<Kernel>(
          lift_source(k.module->file->path, without_lines(text, lines), *args, k.entry, k.nc_version));
    } catch (const LiftError&) {
      return false;
    }
    Analysis an(k);
    auto s = make_loop_site(k, an, *first,
                            fmt::format("remove the `{}` decorator{}: the compiler may then reorder and overlap "
                                        "what the kernel now runs in program order",
                                        kDirective, lines.size() > 1 ? "s" : ""),
                            {{"decorators", std::to_string(lines.size())}});
    if (!s) return false;
    if (sink(*s, [&k, after] { k = *after; })) return true;
    // With the loops the compiler also runs in order (a legacy `range`) written affine_range where
    // their iterations commute: either alone keeps program order (the decorator orders every
    // engine, a sequential loop its iterations), so each alone gains nothing and a beam drops it.
    auto both = std::make_shared<Kernel>(*after);
    const int loops_written = write_every_loop_affine(*both);
    if (loops_written == 0) return false;
    Site with_loops = *s;
    with_loops.params["then"] = "affine_range";
    with_loops.summary = fmt::format("remove the `{}` decorator and write the {} loop{} run in order as affine_range: "
                                     "the compiler may then reorder and overlap the iterations",
                                     kDirective, loops_written, loops_written > 1 ? "s" : "");
    return sink(with_loops, [&k, both] { k = *both; });
  }
};

}  // namespace

std::unique_ptr<Transform> make_middle_end() { return std::make_unique<MiddleEnd>(); }

}  // namespace loopnest
