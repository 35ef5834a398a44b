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

void substitute_access(Access& a, int from, const IExpr& with) {
  for (auto& d : a.dims) {
    d.start = d.start.substitute(from, with);
    for (auto& t : d.terms) t.size = t.size.substitute(from, with);
  }
}
void rename_access(Access& a, int from, int to) { substitute_access(a, from, IExpr::var(to)); }

// Loop variable `from` replaced by `with` in every index, mask, condition and bound of `nodes`.
void substitute_nodes(Kernel& k, std::vector<Node>& nodes, int from, const IExpr& with) {
  for_each_node(nodes, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      if (op.dst) substitute_access(*op.dst, from, with);
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile) substitute_access(a.value.access, from, with);
      for (auto& c : op.mask) c.expr = c.expr.substitute(from, with);
    }
    if (n.view) substitute_access(*n.view, from, with);
    if (n.kind == NodeKind::If) {
      n.cond_l = n.cond_l.substitute(from, with);
      n.cond_r = n.cond_r.substitute(from, with);
    }
    if (n.kind == NodeKind::Loop) {
      Loop& l = k.loops.at(n.loop);
      l.start = l.start.substitute(from, with);
      l.stop = l.stop.substitute(from, with);
    }
  });
}
void rename_nodes(Kernel& k, std::vector<Node>& nodes, int from, int to) { substitute_nodes(k, nodes, from, IExpr::var(to)); }

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
        if (!blockable(k, *block, a, b)) continue;
        for (int64_t factor : {2, 4}) {
          if (*la.trip() % factor || *la.trip() / factor < 2) continue;
          Site sb = s;
          sb.params["block"] = std::to_string(factor);
          sb.summary = fmt::format("fuse `for {}` with the next loop `for {}` in blocks of {} iterations (both loops run "
                                   "over a block, then the next block)", la.var, lb.var, factor);
          std::vector<Node>* parent = block;
          if (sink(sb, [&k, parent, a_id, b_id, factor] { fuse_blocked(k, *parent, a_id, b_id, factor); })) return true;
        }
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

  // The statement `name = []` among `block`'s nodes (a list's creation), or null.
  static Node* list_creation(std::vector<Node>& block, const std::string& name) {
    for (auto& n : block)
      if (n.kind == NodeKind::Meta && n.meta == MetaKind::Binding && n.binds == std::vector<std::string>{name}) return &n;
    return nullptr;
  }

  // Blocks of iterations need a loop from 0 in steps of 1. A list the first loop appends to
  // (`scores.append(row)`, read as `scores[m]` by the second) becomes a list of the block's tiles:
  // it must be created in the block holding the two loops and read only by its own iteration.
  static bool blockable(Kernel& k, std::vector<Node>& block, const Node& a, const Node& b) {
    const Loop& la = k.loops.at(a.loop);
    if (!(la.start == IExpr(0)) || la.step != 1) return false;
    for (const auto& t : k.tensors) {
      if (t.list_loop == b.loop) return false;
      if (t.list_loop != a.loop) continue;
      if (!list_creation(block, t.list_name)) return false;
      bool own = true;
      auto check = [&](const Access& x, int loop) {
        if (x.tensor == t.id && !(x.dims[0].start == IExpr::var(loop))) own = false;
      };
      for (const auto* body : {&a.body, &b.body}) {
        int loop = body == &a.body ? a.loop : b.loop;
        for_each_node(*body, [&](const Node& n, const std::vector<int>&) {
          for (const auto& op : n.ops) {
            if (op.dst) check(*op.dst, loop);
            for (const auto& arg : op.args)
              if (arg.value.kind == Operand::Kind::Tile) check(arg.value.access, loop);
          }
          if (n.view) check(*n.view, loop);
        });
      }
      if (!own) return false;
    }
    return true;
  }

  // The list's tiles are those of one block: created in the block loop, numbered by the inner
  // loop; the second loop's reads (`scores[m]`) are printed with the inner variable.
  static void block_lists(Kernel& k, std::vector<Node>& parent, int outer_node, int old_a, int ia, int ib, int outer_id,
                          int64_t block) {
    for (auto& t : k.tensors) {
      if (t.list_loop != old_a) continue;
      int id = t.id;
      t.list_loop = ia;
      t.shape[0] = IExpr(block);
      t.scope_loop = outer_id;
      Node* made = list_creation(parent, t.list_name);
      Node creation = *made;
      erase_node(k, made->id);
      Node& outer = *find_node(k, outer_node);
      outer.body.insert(outer.body.begin(), std::move(creation));
      IExpr base = IExpr::var(outer_id) * block;
      for_each_node(outer.body, [&](Node& n, const std::vector<int>&) {
        auto fix = [&](Access& x) {
          if (x.tensor != id) return false;
          x.dims[0].start = x.dims[0].start - base;
          return x.dims[0].start == IExpr::var(ib);
        };
        for (auto& op : n.ops) {
          if (op.dst && fix(*op.dst)) op.dst_origin = nullptr, n.dirty = true;
          for (auto& arg : op.args)
            if (arg.value.kind == Operand::Kind::Tile && fix(arg.value.access)) arg.value.origin = nullptr, n.dirty = true;
        }
        if (n.view) fix(*n.view);
      });
    }
  }

  static std::string fresh_var(const Kernel& k, const std::string& base) {
    std::set<std::string> used;
    for (const auto& [id, l] : k.loops) used.insert(l.var);
    for (const auto& t : k.tensors) used.insert(t.name);
    const std::string& text = k.module->file->text;
    auto free = [&](const std::string& v) { return !used.count(v) && text.find(v) == std::string::npos; };
    std::string v = base;
    for (int i = 2; !free(v); ++i) v = fmt::format("{}{}", base, i);
    return v;
  }

  static int new_loop(Kernel& k, Loop l) {
    l.id = static_cast<int>(k.loops.size());
    while (k.loops.count(l.id)) ++l.id;
    k.loops[l.id] = l;
    return l.id;
  }

  // `for m_blk in R(E // F): (for m_in in R(F): m = m_blk * F + m_in; A) (for m_in in R(F): w =
  // m_blk * F + m_in; B)`: the bodies are copied as written, each under a binding of its own loop
  // variable, so the printed kernel shows the blocking and nothing else. The legality of the
  // per-iteration fusion covers any interleaving of whole iterations that keeps A(i) before B(i).
  static void fuse_blocked(Kernel& k, std::vector<Node>& parent, int a_id, int b_id, int64_t block) {
    Node* a = find_node(k, a_id);
    Node* b = find_node(k, b_id);
    int la_id = a->loop, lb_id = b->loop;
    Loop la = k.loops.at(la_id), lb = k.loops.at(lb_id);
    Loop outer = la, inner = la;
    outer.var = fresh_var(k, la.var + "_blk");
    outer.stop = IExpr(*la.trip() / block);
    int outer_id = new_loop(k, outer);
    inner.var = fresh_var(k, la.var + "_in");
    inner.stop = IExpr(block);
    int ia = new_loop(k, inner), ib = new_loop(k, inner);
    auto half = [&](Node& src, const Loop& old, int in) {
      IExpr index = IExpr::var(outer_id) * block + IExpr::var(in);
      std::vector<Node> body = std::move(src.body);
      substitute_nodes(k, body, old.id, index);
      for (auto& t : k.tensors)
        if (t.scope_loop == old.id) t.scope_loop = in;
      Node bind;
      bind.kind = NodeKind::Meta;
      bind.meta = MetaKind::Binding;
      bind.id = k.next_node++;
      bind.binds = {old.var};
      bind.dirty = true;
      bind.patch = fmt::format("{} = {} * {} + {}", old.var, k.loops.at(outer_id).var, block, k.loops.at(in).var);
      Node loop;
      loop.kind = NodeKind::Loop;
      loop.id = k.next_node++;
      loop.loop = in;
      loop.dirty = true;
      loop.body.push_back(std::move(bind));
      for (auto& n : body) loop.body.push_back(std::move(n));
      return loop;
    };
    Node first = half(*a, la, ia), second = half(*b, lb, ib);
    a->loop = outer_id;
    a->dirty = true;
    a->patch.clear();
    a->body.clear();
    a->body.push_back(std::move(first));
    a->body.push_back(std::move(second));
    erase_node(k, b_id);
    block_lists(k, parent, a_id, la_id, ia, ib, outer_id, block);
    k.loops.erase(la_id);
    k.loops.erase(lb_id);
    contract_block_buffers(k, outer_id);
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
    // The buffers the two loops shared (and those of either body) are now used one iteration at a
    // time: each becomes a tile of the iteration, as a kernel written with per-iteration tiles has it.
    contract_block_buffers(k, to);
  }
};

}  // namespace

std::unique_ptr<Transform> make_fuse_nests() { return std::make_unique<FuseNests>(); }

}  // namespace loopnest
