// Loop fusion on the form: two adjacent loops over the same range become one, the second's body
// after the first's (its induction variable renamed), so what the first produces for an iteration
// is consumed in that iteration instead of living until the second loop (stage fusion: the score
// rows of a softmax, written by one nest and read by the next, no longer spill).
// Legal when every dependence between the two bodies stays within one iteration: both accesses
// index some tensor dim by the same multiple of the loop variable with extents below that
// multiple (distinct iterations touch distinct elements), and the second loop reads no tile the
// first binds to a name per iteration.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool inside(const std::vector<int>& loops, int loop) { return std::find(loops.begin(), loops.end(), loop) != loops.end(); }

std::optional<int64_t> extent(const DimIndex& d) {
  int64_t e = 0;
  for (const auto& t : d.terms) {
    if (!t.size.is_constant()) return std::nullopt;
    e += t.stride * (t.size.constant() - 1);
  }
  return e;
}

// Distinct iterations of loop `l` touch distinct elements through `a` and `b` (b renamed to l).
bool same_iteration_only(const Access& a, const Access& b, int l) {
  if (a.dims.size() != b.dims.size()) return false;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    int64_t ca = a.dims[d].start.coeff(l), cb = b.dims[d].start.coeff(l);
    if (ca == 0 || ca != cb) continue;
    IExpr ra = a.dims[d].start - IExpr::var(l) * ca, rb = b.dims[d].start - IExpr::var(l) * cb;
    if (ra.uses(l) || rb.uses(l) || ra != rb) continue;
    auto ea = extent(a.dims[d]), eb = extent(b.dims[d]);
    if (ea && eb && *ea < std::llabs(ca) && *eb < std::llabs(ca)) return true;
  }
  return false;
}

void rename_access(Access& a, int from, int to) {
  for (auto& d : a.dims) {
    d.start = d.start.substitute(from, IExpr::var(to));
    for (auto& t : d.terms) t.size = t.size.substitute(from, IExpr::var(to));
  }
}

void rename_nodes(Kernel& k, std::vector<Node>& nodes, int from, int to) {
  for_each_node(nodes, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      if (op.dst) rename_access(*op.dst, from, to);
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile) rename_access(a.value.access, from, to);
      for (auto& c : op.mask) c.expr = c.expr.substitute(from, IExpr::var(to));
    }
    if (n.view) rename_access(*n.view, from, to);
    if (n.kind == NodeKind::If) {
      n.cond_l = n.cond_l.substitute(from, IExpr::var(to));
      n.cond_r = n.cond_r.substitute(from, IExpr::var(to));
    }
    if (n.kind == NodeKind::Loop) {
      Loop& l = k.loops.at(n.loop);
      l.start = l.start.substitute(from, IExpr::var(to));
      l.stop = l.stop.substitute(from, IExpr::var(to));
    }
  });
}

class FuseNests : public Transform {
 public:
  std::string name() const override { return "fuse_nests"; }
  std::string description() const override {
    return "fuse two adjacent loops over the same range so what the first produces is consumed in the same "
           "iteration (tiles live one iteration instead of the whole loop: no spill, overlap of the stages)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<std::vector<Node>*> blocks = {&k.body};
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      if (!n.frozen && n.kind == NodeKind::Loop) blocks.push_back(&n.body);
    });
    for (auto* block : blocks) {
      for (size_t i = 0; i + 1 < block->size(); ++i) {
        Node& a = (*block)[i];
        if (a.kind != NodeKind::Loop || a.frozen) continue;
        size_t j = i + 1;
        while (j < block->size() && (*block)[j].kind == NodeKind::Meta && (*block)[j].meta == MetaKind::Docstring) ++j;
        if (j >= block->size()) continue;
        Node& b = (*block)[j];
        if (b.kind != NodeKind::Loop || b.frozen) continue;
        const Loop &la = k.loops.at(a.loop), &lb = k.loops.at(b.loop);
        if (la.kind != lb.kind || la.start != lb.start || la.stop != lb.stop || la.step != lb.step || !la.trip()) continue;
        if (!legal(k, a, b)) continue;
        Analysis an(k);
        const OpRef* anchor = first_op_in(an, a.loop);
        if (!anchor) continue;
        Site s = make_site(k, an, *anchor, fmt::format("fuse `for {}` with the next loop `for {}` over the same range",
                                                       la.var, lb.var));
        s.node = a.id;
        s.line = a.origin ? static_cast<int>(a.origin->span.line) : 0;
        int a_id = a.id, b_id = b.id;
        if (sink(s, [&k, a_id, b_id] { fuse(k, a_id, b_id); })) return true;
      }
    }
    return false;
  }

 private:
  static bool legal(Kernel& k, Node& a, Node& b) {
    Analysis an(k);
    std::vector<const OpRef*> in_a, in_b;
    for (const auto& r : an.ops) {
      if (r.node->frozen && (inside(r.loops, a.loop) || inside(r.loops, b.loop))) return false;
      if (inside(r.loops, a.loop)) in_a.push_back(&r);
      if (inside(r.loops, b.loop)) in_b.push_back(&r);
    }
    std::set<int> a_loops = {a.loop};
    for_each_node(a.body, [&](const Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::Loop) a_loops.insert(n.loop);
    });
    bool a_has_if = false;
    for_each_node(a.body, [&](const Node& n, const std::vector<int>&) { a_has_if = a_has_if || n.kind == NodeKind::If; });
    for_each_node(b.body, [&](const Node& n, const std::vector<int>&) { a_has_if = a_has_if || n.kind == NodeKind::If; });
    if (a_has_if) return false;
    for (const OpRef* rb : in_b) {
      // A tile the first loop binds per iteration, read after it: its last iteration's value.
      for (const Access* x : reads(rb->op()))
        if (a_loops.count(k.tensor(x->tensor).scope_loop)) return false;
      for (const OpRef* ra : in_a) {
        const Op &oa = ra->op(), &ob = rb->op();
        auto check = [&](const Access& wa, const Access& xb) {
          if (storage_of(k, wa.tensor) != storage_of(k, xb.tensor)) return true;
          Access renamed = xb;
          rename_access(renamed, b.loop, a.loop);
          return same_iteration_only(wa, renamed, a.loop);
        };
        for (const Access* wa : writes(oa)) {
          for (const Access* x : reads(ob))
            if (!check(*wa, *x)) return false;
          for (const Access* wb : writes(ob))
            if (!check(*wa, *wb)) return false;
        }
        for (const Access* wb : writes(ob))
          for (const Access* x : reads(oa))
            if (!check(*x, *wb)) return false;
      }
    }
    return true;
  }

  static void fuse(Kernel& k, int a_id, int b_id) {
    Node* a = find_node(k, a_id);
    Node* b = find_node(k, b_id);
    int from = b->loop, to = a->loop;
    std::vector<Node> moved = std::move(b->body);
    rename_nodes(k, moved, from, to);
    for (auto& t : k.tensors)
      if (t.scope_loop == from) t.scope_loop = to;
    std::string old_var = k.loops.at(from).var, new_var = k.loops.at(to).var;
    // Before the first loop's closing end-of-loop string markers.
    size_t at = a->body.size();
    while (at > 0 && a->body[at - 1].kind == NodeKind::Meta && a->body[at - 1].meta == MetaKind::Docstring) --at;
    for (auto& n : moved) {
      if (old_var != new_var) n.renames[old_var] = new_var;
      a->body.insert(a->body.begin() + static_cast<long>(at++), std::move(n));
    }
    erase_node(k, b_id);
  }
};

}  // namespace

std::unique_ptr<Transform> make_fuse_nests() { return std::make_unique<FuseNests>(); }

}  // namespace loopnest
