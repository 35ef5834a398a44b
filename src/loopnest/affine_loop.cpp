// A sequential loop whose iterations are independent, written `nl.affine_range`: the move a kernel
// engineer makes once the profile shows engines idle inside a loop that runs in order. Inside a
// `sequential_range` the compiler keeps each engine's and queue's program order and starts nothing
// of an iteration before the previous one (docs/simulator.md, Dependences and program order); an
// `affine_range` promises independent iterations, which it may overlap. A legacy (neuronxcc)
// kernel's Python `range` is such a loop too: the legacy compiler rewrites it to `sequential_range`
// (LANG; nki-language.md section 5), and the published RoPE kernels loop with it. In the newer
// `nki` API `range` already is affine (an alias, nki-language.md section 2): no site there.
//
// Legal when the iterations depend on each other only through accumulations (iterations_commute,
// analysis.h: from the form's accesses, whatever the style), and refused for loops the form marks
// ordered (random numbers' generator state, nl.fori_loop). Only the loop's header changes; it
// keeps the author's arguments and comment, with the call named as the kernel names
// nki.language.
#include <fmt/core.h>

#include "loopnest/nest_walk.h"
#include "loopnest/scope_text.h"
#include "loopnest/transform.h"

namespace loopnest {

int write_every_loop_affine(Kernel& k);

namespace {

// The call of a loop's header (`range(...)`, `nl.sequential_range(...)`) when the header is one
// line, calls its range function with positional arguments only (a `directives=` hint is not
// affine_range's) and the callee's name sits on that line; else null.
const nki::CallExpr* header_call(const Node& n) {
  if (!n.origin || n.origin->kind != nki::StmtKind::For) return nullptr;
  const auto& f = static_cast<const nki::ForStmt&>(*n.origin);
  if (!f.iter || f.iter->kind != nki::ExprKind::Call) return nullptr;
  const auto& call = static_cast<const nki::CallExpr&>(*f.iter);
  if (!call.keywords.empty() || !call.func) return nullptr;
  const nki::Span& head = f.span;
  const nki::Span& fn = call.func->span;
  if (fn.line != head.line || fn.end_line != head.line || fn.col == 0 || fn.end_col <= fn.col) return nullptr;
  return &call;
}

// The header as written, the callee's name replaced (columns count characters, 1-based). An
// opened helper's header names the helper's scope: printed from the form instead ("").
std::optional<std::string> affine_header(const Kernel& k, const Node& n, const std::string& nl) {
  const nki::CallExpr* call = header_call(n);
  if (!call) return std::nullopt;
  std::string header;
  if (!text_outside_kernel(k, n)) {
    std::string line = k.module->file->line_text(n.origin->span.line);
    const nki::Span& fn = call->func->span;
    if (fn.end_col - 1 > line.size()) return std::nullopt;
    header = line.substr(0, fn.col - 1) + nl + ".affine_range" + line.substr(fn.end_col - 1);
    header = header.substr(header.find_first_not_of(' '));
  }
  return header;
}

class AffineLoop : public Transform {
 public:
  std::string name() const override { return "affine_loop"; }
  std::string description() const override {
    return "write a loop the compiler runs in order (Python `range` in a legacy kernel, `nl.sequential_range`) whose "
           "iterations are independent as `nl.affine_range`, so that the compiler may overlap them";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    auto nl = k.dialect.alias.find("nki.language");
    if (nl == k.dialect.alias.end()) return false;  // no name to call affine_range by
    bool first = true;
    for (int id : open_loop_ids(k)) {
      Node* n = find_node(k, id);
      if (!n) continue;
      const Loop& l = k.loops.at(n->loop);
      // Also a loop of one iteration (at these arguments): inside it each engine still keeps
      // program order.
      if (!runs_in_order(k, l) || l.ordered) continue;
      if (!iterations_commute(k, n->loop)) continue;
      auto header = affine_header(k, *n, nl->second);
      if (!header) continue;
      Analysis an(k);
      std::optional<Site> s = make_loop_site(
          k, an, *n,
          fmt::format("write `for {}` ({}, {} trips) as affine_range: no iteration touches what another writes "
                      "(accumulations aside), so the compiler may overlap them",
                      l.var, to_string(l.kind), l.trip() ? std::to_string(*l.trip()) : "?"));
      if (!s) continue;
      int loop = n->loop;
      if (sink(*s, [&k, id, loop, header] {
            Node* node = find_node(k, id);
            k.loops.at(loop).kind = LoopKind::Affine;
            node->patch = *header;
            node->dirty = true;
          }))
        return true;
      // Every such loop at once, one site beside the first loop's own: an author who writes every
      // loop with Python `range` (a PyTorch port) has several, each drawn first where the kernel
      // waits (roofline.h), and one header alone rarely overlaps anything while the loops around it
      // still run in order: a round's plans went to four single headers that gained 0.2% together.
      if (first) {
        first = false;
        Kernel trial = k;
        const int all = write_every_loop_affine(trial);
        if (all < 2) continue;
        Site every = *s;
        every.params["all"] = std::to_string(all);
        every.summary = fmt::format(
            "write the {} loops the compiler runs in order whose iterations are independent as affine_range, so "
            "that the compiler may overlap them",
            all);
        if (sink(every, [&k, all] {
              if (write_every_loop_affine(k) != all) throw TransformError("affine_loop: the loops to rewrite changed");
            }))
          return true;
      }
    }
    return false;
  }
};

}  // namespace

bool write_affine(Kernel& k, int id) {
  auto nl = k.dialect.alias.find("nki.language");
  Node* n = find_node(k, id);
  if (nl == k.dialect.alias.end() || !n || n->kind != NodeKind::Loop) return false;
  Loop& l = k.loops.at(n->loop);
  if (!runs_in_order(k, l) || l.ordered || !iterations_commute(k, n->loop)) return false;
  auto header = affine_header(k, *n, nl->second);
  if (!header) return false;
  l.kind = LoopKind::Affine;
  n->patch = *header;
  n->dirty = true;
  return true;
}

// Every open loop write_affine takes, in the form's order; how many.
int write_every_loop_affine(Kernel& k) {
  int written = 0;
  for (int id : open_loop_ids(k))
    if (write_affine(k, id)) ++written;
  return written;
}

std::unique_ptr<Transform> make_affine_loop() { return std::make_unique<AffineLoop>(); }

}  // namespace loopnest
