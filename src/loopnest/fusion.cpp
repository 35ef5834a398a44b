// Loop fusion on the form: two adjacent loops over the same range become one, the second's body
// after the first's (its induction variable renamed), so what the first produces for an iteration
// is consumed in that iteration instead of living until the second loop (stage fusion: the score
// rows of a softmax, written by one nest and read by the next, no longer spill).
// Legal when every dependence between the two bodies stays within one iteration: both accesses
// index some tensor dim by the same multiple of the loop variable with extents below that
// multiple (distinct iterations touch distinct elements), and the second loop reads no tile the
// first binds to a name per iteration.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/forward_scratch.h"
#include "loopnest/nest_walk.h"
#include "loopnest/scope_text.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool inside(const std::vector<int>& loops, int loop) { return std::find(loops.begin(), loops.end(), loop) != loops.end(); }

// The width of the elements `d` touches around its start: a backward term (negative stride)
// reaches below the start as far as a forward one reaches above it.
std::optional<int64_t> extent(const DimIndex& d) {
  int64_t e = 0;
  for (const auto& t : d.terms) {
    auto top = t.max_index();
    if (!top) return std::nullopt;
    e += std::llabs(t.stride) * *top;
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

}  // namespace

void substitute_access(Access& a, int from, const IExpr& with, const Ranges* ranges) {
  for (auto& d : a.dims) {
    d.start = d.start.substitute(from, with, ranges);
    for (auto& t : d.terms) t.size = t.size.substitute(from, with, ranges);
  }
}
void rename_access(Access& a, int from, int to) { substitute_access(a, from, IExpr::var(to)); }

// Loop variable `from` replaced by `with` in every index, mask, condition and bound of `nodes`.
void substitute_nodes(Kernel& k, std::vector<Node>& nodes, int from, const IExpr& with, const Ranges* ranges) {
  for_each_index_expr(k, nodes, [&](IExpr& e) { e = e.substitute(from, with, ranges); });
}
void rename_nodes(Kernel& k, std::vector<Node>& nodes, int from, int to) { substitute_nodes(k, nodes, from, IExpr::var(to)); }

namespace {

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
    // (Two loops side by side under a transparent block, nest_walk.h, are side by side.)
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      if (!n.frozen && n.kind == NodeKind::Loop) blocks.push_back(&n.body);
      else if (transparent_block(n)) blocks.push_back(&transparent_body(n));
    });
    for (auto* block : blocks) {
      for (size_t i = 0; i + 1 < block->size(); ++i) {
        Node& a = (*block)[i];
        if (a.kind != NodeKind::Loop || a.frozen) continue;
        // Between the two loops: end-of-loop strings, and declarations of tiles the first loop does
        // not use (`w_tiles = nl.ndarray(...)` written where the second loop needs it, where another
        // style declares every buffer up front); the fusion moves those before the first loop.
        size_t j = i + 1;
        std::vector<int> decls;
        for (; j < block->size(); ++j) {
          const Node& n = (*block)[j];
          if (n.kind == NodeKind::Meta && n.meta == MetaKind::Docstring) continue;
          if (!unused_declaration(n, a)) break;
          decls.push_back(n.id);
        }
        if (j >= block->size()) continue;
        Node& b = (*block)[j];
        if (b.kind != NodeKind::Loop || b.frozen) continue;
        const Loop &la = k.loops.at(a.loop), &lb = k.loops.at(b.loop);
        // legal() orders iterations by the loop variable's value: loops walking backwards are left alone.
        if (la.kind != lb.kind || la.start != lb.start || la.stop != lb.stop || la.step != lb.step || la.step <= 0 || !la.trip()) continue;
        if (!legal(k, a, b)) continue;
        Analysis an(k);
        auto s = make_loop_site(k, an, a,
                                fmt::format("fuse `for {}` with the next loop `for {}` over the same range", la.var, lb.var));
        if (!s) continue;
        int a_id = a.id, b_id = b.id;
        std::vector<Node>* parent = block;
        if (sink(*s, [&k, parent, a_id, b_id, decls] {
              hoist_before(*parent, a_id, decls);
              fuse(k, a_id, b_id);
            }))
          return true;
        if (!blockable(k, *block, a, b)) continue;
        for (int64_t factor : {2, 4}) {
          if (*la.trip() % factor || *la.trip() / factor < 2) continue;
          Site sb = *s;
          sb.params["block"] = std::to_string(factor);
          sb.summary = fmt::format("fuse `for {}` with the next loop `for {}` in blocks of {} iterations (both loops run "
                                   "over a block, then the next block)", la.var, lb.var, factor);
          if (sink(sb, [&k, parent, a_id, b_id, decls, factor] {
                hoist_before(*parent, a_id, decls);
                fuse_blocked(k, *parent, a_id, b_id, factor);
              }))
            return true;
        }
      }
    }
    return false;
  }

 private:
  // A statement that only declares tiles (no initial values) that nothing in loop `a` touches.
  static bool unused_declaration(const Node& n, const Node& a) {
    if (n.kind != NodeKind::Stmt || n.frozen || n.ops.empty()) return false;
    std::set<int> declared;
    for (const auto& op : n.ops) {
      if (op.cls != OpClass::Alloc || !op.dst) return false;
      declared.insert(op.dst->tensor);
    }
    bool used = false;
    for_each_node(a.body, [&](const Node& m, const std::vector<int>&) {
      for (const auto& op : m.ops) {
        if (op.dst && declared.count(op.dst->tensor)) used = true;
        for (const auto& arg : op.args)
          if (arg.value.kind == Operand::Kind::Tile && declared.count(arg.value.access.tensor)) used = true;
      }
      if (m.view && declared.count(m.view->tensor)) used = true;
    });
    return !used;
  }

  // Moves the nodes `ids` of `block` (in their order) to just before node `before`.
  static void hoist_before(std::vector<Node>& block, int before, const std::vector<int>& ids) {
    for (int id : ids) {
      auto at = std::find_if(block.begin(), block.end(), [&](const Node& n) { return n.id == id; });
      if (at == block.end()) continue;
      Node moved = std::move(*at);
      block.erase(at);
      auto to = std::find_if(block.begin(), block.end(), [&](const Node& n) { return n.id == before; });
      block.insert(to, std::move(moved));
    }
  }

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
    // A condition in either body (but a transparent block, which always runs) is refused.
    bool a_has_if = false;
    auto opaque_if = [](const Node& n) { return n.kind == NodeKind::If && !transparent_block(n); };
    for_each_node(a.body, [&](const Node& n, const std::vector<int>&) { a_has_if = a_has_if || opaque_if(n); });
    for_each_node(b.body, [&](const Node& n, const std::vector<int>&) { a_has_if = a_has_if || opaque_if(n); });
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

  // Every tile access of node `n`: its operations' destinations and tile operands, its view.
  static void each_access(const Node& n, const std::function<void(const Access&)>& fn) {
    for (const auto& op : n.ops) {
      if (op.dst) fn(*op.dst);
      for (const auto& arg : op.args)
        if (arg.value.kind == Operand::Kind::Tile) fn(arg.value.access);
    }
    if (n.view) fn(*n.view);
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
      for (const auto* body : {&a.body, &b.body}) {
        int loop = body == &a.body ? a.loop : b.loop;
        for_each_node(*body, [&](const Node& n, const std::vector<int>&) {
          each_access(n, [&](const Access& x) {
            if (x.tensor == t.id && !(x.dims[0].start == IExpr::var(loop))) own = false;
          });
        });
      }
      if (!own) return false;
      // Nor read after the pair: the list holds one block's tiles now (`chunks[c]` in a later
      // loop over all of them would index past it).
      bool elsewhere = false;
      auto touches = [&](const Node& m, const std::vector<int>&) {
        each_access(m, [&](const Access& x) { elsewhere = elsewhere || x.tensor == t.id; });
      };
      for (const auto& n : block) {
        if (n.id == a.id || n.id == b.id) continue;
        touches(n, {});
        for_each_node(n.body, touches);
      }
      if (elsewhere) return false;
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
    outer.var = fresh_loop_var(k, la.var + "_blk");
    outer.stop = IExpr(*la.trip() / block);
    int outer_id = add_loop(k, outer);
    inner.var = fresh_loop_var(k, la.var + "_in");
    inner.stop = IExpr(block);
    int ia = add_loop(k, inner), ib = add_loop(k, inner);
    auto half = [&](Node& src, const Loop& old, int in) {
      IExpr index = IExpr::var(outer_id) * block + IExpr::var(in);
      std::vector<Node> body = std::move(src.body);
      substitute_nodes(k, body, old.id, index);
      for (auto& t : k.tensors)
        if (t.scope_loop == old.id) t.scope_loop = in;
      Node bind = split_index_binding(k, old.var, k.loops.at(outer_id).var, fmt::format("{}", block), k.loops.at(in).var);
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

 public:  // fuse_loops() (forward_scratch) fuses with its own legality; fusable_loops() (forward_stages) asks fuse_nests' rule
  static bool can_fuse(Kernel& k, Node& a, Node& b) { return legal(k, a, b); }
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
    auto end_marker = [](const Node& n) { return n.kind == NodeKind::Meta && n.meta == MetaKind::Docstring; };
    size_t at = a->body.size();
    while (at > 0 && end_marker(a->body[at - 1])) --at;
    // The second loop's own closing markers go with it when the first loop has its own.
    if (at < a->body.size())
      while (!moved.empty() && end_marker(moved.back())) moved.pop_back();
    for (auto& n : moved) {
      // The second loop's own renames (a variable of a loop fused around it) scoped its body.
      for (const auto& [from, to] : b->renames) n.renames.emplace(from, to);
      if (old_var != new_var) n.renames[old_var] = new_var;
      a->body.insert(a->body.begin() + static_cast<long>(at++), std::move(n));
    }
    erase_node(k, b_id);
    // The buffers the two loops shared (and those of either body) are now used one iteration at a
    // time: each becomes a tile of the iteration, as a kernel written with per-iteration tiles has it.
    contract_block_buffers(k, to);
  }
};


// Pipelining the preparation of a row operand (loop fission with expansion):
//   for m: HEAD (load, transpose, copy of the row operand); TAIL (matmuls reading it)
// =>
//   lhs_t = nl.ndarray((E, par_dim(P), F)); for m: HEAD writing lhs_t[m]; for m: TAIL reading lhs_t[m]
// The Tensor Engine then no longer waits, row after row, on the load -> transpose -> copy chain:
// every row's operand is ready when the matmul loop starts. The tiles HEAD makes per iteration and
// TAIL reads get a block dim over the loop (one tile per row, declared before the loops); the
// other per-iteration tiles stay with the half that uses them. Legal when every dependence between
// the halves stays within one iteration or goes through an expanded tile, HEAD reads nothing TAIL
// writes in another iteration, and no handed-over tile is a PSUM tile.
class PipelinePrep : public Transform {
 public:
  std::string name() const override { return "pipeline_prep"; }
  std::string description() const override {
    return "split a row loop after the load and transpose of its row operand, the operands of all rows kept "
           "on chip: the matmuls no longer wait on each row's load -> transpose -> copy chain";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    for (int id : open_loop_ids(k)) {
      Node* n = find_node(k, id);
      auto plan = make_plan(k, *n);
      if (!plan) continue;
      Analysis an(k);
      std::string names;
      for (int t : plan->handed) names += (names.empty() ? "" : ", ") + (k.tensor(t).name.empty() ? "?" : k.tensor(t).name);
      std::map<std::string, std::string> params;
      if (!plan->loaded) params["source"] = "on_chip";  // blocks of a tile made before the loop
      auto s = make_loop_site(k, an, *n, fmt::format("split `for {}` after the preparation of `{}` (kept for every "
                                                     "iteration) into two loops", k.loops.at(n->loop).var, names),
                              params);
      if (!s) continue;
      Plan p = *plan;
      if (sink(*s, [&k, id, p] { apply(k, id, p); })) return true;
    }
    return false;
  }

 private:
  struct Plan {
    size_t head = 0;          // body[0, head) is HEAD
    bool loaded = true;       // HEAD transposes a tile it loads (else one made before the loop)
    std::set<int> expand;     // per-iteration tiles HEAD writes and TAIL reads
    std::set<int> tail_decl;  // per-iteration tiles declared in HEAD but used only in TAIL
    std::set<int> handed;     // what HEAD prepares for TAIL: `expand`, or block buffers indexed by the loop
    // Slot lists HEAD fills and TAIL reads, one slot per iteration in turn (`pt = pT[kq % 2]`, the
    // newer API's multi-buffering): each gets a buffer with one slot per iteration instead.
    std::set<int> slots;
  };

  // The tile `op` transposes is written only outside loop `n` (before it: read in every iteration).
  static bool before_loop(Kernel& k, Node& n, const Op& op) {
    const Operand* data = transposed_operand(op);
    if (!data || data->kind != Operand::Kind::Tile) return false;
    int t = storage_of(k, data->access.tensor);
    if (!k.tensor(t).on_chip()) return false;
    bool written_inside = false;
    for_each_node(n.body, [&](const Node& x, const std::vector<int>&) {
      for (const auto& o : x.ops)
        for (const Access* w : writes(o)) written_inside = written_inside || storage_of(k, w->tensor) == t;
    });
    return !written_inside;
  }

  // The tile a transpose reads, whatever the API names it: `data` (nisa.nc_transpose), `x`
  // (nl.transpose: before session 22 a probabilities tile transposed by `nl.transpose(x=p[...])`
  // was not seen as made before the loop, and the P @ V loop had no site), `stationary` (a
  // matmul by the identity).
  static const Operand* transposed_operand(const Op& op) {
    const ApiSpec* spec = find_api(op.api);
    if (!spec || spec->shape_from.empty()) return nullptr;
    return operand(op, spec->shape_from[0].c_str());
  }

  static bool is_transpose(const Op& op) {
    return op.cls == OpClass::Transpose || (op.api == "nisa.nc_matmul" && symbol_of(op, "is_transpose") == "True");
  }

  // Whether `t` is a list of slots (`pT = [nl.ndarray(...) for _ in range(2)]`) used only inside loop
  // `n`, always at slot `var % m` of its m slots, written whole by HEAD alone and read by nothing in
  // HEAD: each iteration fills its slot and TAIL reads it in the same iteration, so after the split
  // one slot per iteration (a block buffer over the loop) holds what every TAIL iteration reads.
  static bool rotating_slots(const Kernel& k, const Analysis& an, const Node& n, const std::set<const Node*>& head_nodes,
                             int t) {
    const Tensor& tt = k.tensor(t);
    if (!tt.host_list || tt.memory != Memory::Sbuf || tt.partition_dim != 1 || !tt.shape[0].is_constant() ||
        tt.list_loop >= 0)
      return false;
    const int64_t m = tt.shape[0].constant();
    const IExpr slot = IExpr::mod(IExpr::var(n.loop), m);
    auto at_slot = [&](const Access& a) { return !a.dims.empty() && a.dims[0].terms.empty() && a.dims[0].start == slot; };
    auto whole_slot = [&](const Access& a) {
      if (a.dims.size() != tt.shape.size()) return false;
      for (size_t d = 1; d < a.dims.size(); ++d)
        if (!(a.dims[d].start == IExpr(0)) || a.dims[d].terms.size() != 1 || !a.dims[d].terms[0].affine() ||
            a.dims[d].terms[0].stride != 1 || !(a.dims[d].terms[0].size == tt.shape[d]))
          return false;
      return true;
    };
    bool written = false;
    for (const auto& r : an.ops) {
      for (const Access* a : writes(r.op())) {
        if (storage_of(k, a->tensor) != t) continue;
        if (a->tensor != t || !inside(r.loops, n.loop) || !head_nodes.count(r.node) || !at_slot(*a) || !whole_slot(*a)) return false;
        written = true;
      }
      for (const Access* a : reads(r.op())) {
        if (storage_of(k, a->tensor) != t) continue;
        if (a->tensor != t || !inside(r.loops, n.loop) || head_nodes.count(r.node) || !at_slot(*a)) return false;
      }
    }
    for (const auto& other : k.tensors)
      if (other.id != t && other.role == TensorRole::View && storage_of(k, other.id) == t) return false;
    // Names bound to a slot sit in the loop's own body.
    bool outside = false;
    for_each_node(k.body, [&](const Node& x, const std::vector<int>& loops) {
      if (x.kind == NodeKind::Meta && x.meta == MetaKind::View && x.view && storage_of(k, x.view->tensor) == t &&
          !(inside(loops, n.loop) && !loops.empty() && loops.back() == n.loop && at_slot(*x.view)))
        outside = true;
    });
    return written && !outside;
  }

  // A loop whose body is only transposes (statements of one operation each), none of them frozen.
  static bool transpose_loop(const Node& x) {
    if (x.kind != NodeKind::Loop || x.body.empty()) return false;
    bool any = false;
    for (const Node& b : x.body) {
      // Index arithmetic (`kt = kq * 4 + i`) binds no tile.
      if (b.kind == NodeKind::Meta && b.meta == MetaKind::Binding) continue;
      if (b.kind != NodeKind::Stmt || b.frozen || b.ops.size() != 1 || !is_transpose(b.ops[0])) return false;
      any = true;
    }
    return any;
  }

  // HEAD goes on over the preparation of further rows' operands: rows jammed into the loop
  // (jam_rows: `p_psum_0 = transpose(P_0[t]); p_psum_1 = transpose(P_1[t]); p_t_0 = copy(p_psum_0);
  // p_t_1 = copy(p_psum_1)`, then the matmuls) prepare one operand each, and HEAD ending at the
  // first row's transpose handed its PSUM tile over (refused): a loop that a jam by 2 rows had left
  // offered no site (a bundled gqa_full with its KV head's loads shared by its two query heads kept
  // both P @ V loops waiting on each block's copy). Taken while the statements are loads (and the
  // declarations and views between them), transposes of tiles HEAD loads or the loop's body does
  // not write, and copies of what those transposes wrote; HEAD ends at the last transpose or copy.
  static void extend_head_over_jammed_rows(Kernel& k, Node& n, Plan& p) {
    std::set<int> loaded, transposed;
    auto note = [&](const Op& op) {
      for (const Access* w : writes(op)) {
        if (op.cls == OpClass::Load || op.cls == OpClass::DmaCopy) loaded.insert(storage_of(k, w->tensor));
        if (is_transpose(op)) transposed.insert(storage_of(k, w->tensor));
      }
    };
    for (size_t h = 0; h < p.head; ++h) {
      for (const auto& op : n.body[h].ops) note(op);
      for_each_node(n.body[h].body, [&](const Node& x, const std::vector<int>&) {
        for (const auto& op : x.ops) note(op);
      });
    }
    auto prepares = [&](const Op& op) {
      if (!is_transpose(op)) return false;
      const Operand* data = transposed_operand(op);
      if (data && data->kind == Operand::Kind::Tile && loaded.count(storage_of(k, data->access.tensor))) return true;
      return before_loop(k, n, op);
    };
    size_t end = p.head;
    for (size_t j = p.head; j < n.body.size(); ++j) {
      const Node& x = n.body[j];
      if (x.frozen) break;
      if (x.kind == NodeKind::Meta && (x.meta == MetaKind::View || x.meta == MetaKind::Binding)) continue;
      if (x.kind == NodeKind::Loop) {
        if (!transpose_loop(x)) break;
        std::vector<const Op*> step;
        for_each_node(x.body, [&](const Node& y, const std::vector<int>&) {
          for (const auto& op : y.ops) step.push_back(&op);
        });
        bool all = true;
        for (const Op* op : step) all = all && prepares(*op);
        if (!all) break;
        for (const Op* op : step) note(*op);
        end = j + 1;
        continue;
      }
      if (x.kind != NodeKind::Stmt || x.ops.size() != 1) break;
      const Op& op = x.ops[0];
      if (op.cls == OpClass::Alloc) continue;
      if (op.cls == OpClass::Load) {
        note(op);
        continue;
      }
      if (prepares(op)) {
        note(op);
        end = j + 1;
        continue;
      }
      bool copies_transposed = false;
      if (op.cls == OpClass::Copy)
        for (const Access* r : reads(op)) copies_transposed = copies_transposed || transposed.count(storage_of(k, r->tensor));
      if (!copies_transposed) break;
      end = j + 1;
    }
    p.head = end;
  }

  static std::optional<Plan> make_plan(Kernel& k, Node& n) {
    const Loop& loop = k.loops.at(n.loop);
    auto trip = loop.trip();
    if (!independent_iterations(k, n.loop) || !trip || *trip < 2 || !(loop.start == IExpr(0)) || loop.step != 1) return std::nullopt;
    // HEAD: statements up to the transpose of a loaded tile (and the copy of its result right after),
    // or of a tile made before the loop (attention's probabilities, transposed block by block for
    // the P @ V matmuls): either way the Tensor Engine then runs the transposes back to back instead
    // of waiting, iteration after iteration, for each one's copy out of PSUM.
    Plan p;
    bool load = false;
    size_t i = 0;
    for (; i < n.body.size(); ++i) {
      Node& x = n.body[i];
      if (x.kind == NodeKind::If || x.kind == NodeKind::Inline || x.frozen) return std::nullopt;
      // A loop of transposes (`for i in range(4): nc_transpose(dst=tp[:, i*P:(i+1)*P], data=s[...])`:
      // several blocks into one PSUM bank, copied out by one instruction) is one transpose step.
      std::vector<Op*> step;
      if (x.kind == NodeKind::Loop) {
        if (!transpose_loop(x)) return std::nullopt;
        ops_of(x, step);
      } else {
        for (auto& op : x.ops) step.push_back(&op);
      }
      bool transpose = false, made_before = false;
      for (const Op* opp : step) {
        const Op& op = *opp;
        bool from_hbm = op.cls == OpClass::DmaCopy && operand(op, "src") && operand(op, "src")->kind == Operand::Kind::Tile &&
                        !k.tensor(operand(op, "src")->access.tensor).on_chip();
        load = load || op.cls == OpClass::Load || from_hbm;
        if (is_transpose(op)) {
          transpose = true;
          made_before = made_before || before_loop(k, n, op);
        }
      }
      if (transpose && (load || made_before)) break;
    }
    if (i >= n.body.size()) return std::nullopt;
    p.head = i + 1;
    p.loaded = load;
    // The copy of the transposed tile out of PSUM, after the declaration of its destination.
    size_t next = p.head;
    auto single = [&](size_t at) { return n.body[at].kind == NodeKind::Stmt && n.body[at].ops.size() == 1; };
    auto view = [&](size_t at) { return n.body[at].kind == NodeKind::Meta && n.body[at].meta == MetaKind::View; };
    while (next < n.body.size() && (view(next) || (single(next) && n.body[next].ops[0].cls == OpClass::Alloc))) ++next;
    if (next < n.body.size() && single(next) && n.body[next].ops[0].cls == OpClass::Copy) p.head = next + 1;
    extend_head_over_jammed_rows(k, n, p);
    if (p.head >= n.body.size()) return std::nullopt;
    // Who touches what, per half.
    Analysis an(k);
    std::set<const Node*> head_nodes;
    for (size_t h = 0; h < p.head; ++h) {
      head_nodes.insert(&n.body[h]);
      for_each_node(n.body[h].body, [&](const Node& x, const std::vector<int>&) { head_nodes.insert(&x); });
    }
    std::vector<const OpRef*> head, tail;
    bool matmul = false;
    for (const auto& r : an.ops) {
      if (!inside(r.loops, n.loop)) continue;
      if (r.node->frozen) return std::nullopt;
      if (head_nodes.count(r.node)) head.push_back(&r);
      else tail.push_back(&r);
      if (!head_nodes.count(r.node) && r.op().cls == OpClass::Matmul && !is_transpose(r.op())) matmul = true;
    }
    if (!matmul) return std::nullopt;
    std::set<int> head_touch, tail_touch;
    for (const OpRef* r : head) {
      for (const Access* a : reads(r->op())) head_touch.insert(storage_of(k, a->tensor));
      for (const Access* a : writes(r->op())) head_touch.insert(storage_of(k, a->tensor));
    }
    for (const OpRef* r : tail) {
      for (const Access* a : reads(r->op())) tail_touch.insert(storage_of(k, a->tensor));
      for (const Access* a : writes(r->op())) tail_touch.insert(storage_of(k, a->tensor));
    }
    for (const OpRef* h : head)
      for (const Access* w : writes(h->op()))
        if (rotating_slots(k, an, n, head_nodes, storage_of(k, w->tensor))) p.slots.insert(storage_of(k, w->tensor));
    for (const OpRef* h : head) {
      if (is_declaration(h->op())) {
        int t = h->op().dst ? h->op().dst->tensor : -1;
        bool used_in_head = false;
        for (const OpRef* o : head)
          if (o != h) {
            for (const Access* a : reads(o->op())) used_in_head = used_in_head || storage_of(k, a->tensor) == t;
            for (const Access* a : writes(o->op())) used_in_head = used_in_head || storage_of(k, a->tensor) == t;
          }
        if (!used_in_head && t >= 0 && h->node->ops.size() == 1) p.tail_decl.insert(t);
        else if (used_in_head && tail_touch.count(t)) {
          if (k.tensor(t).scope_loop != n.loop || h->node->ops.size() != 1) return std::nullopt;
          p.expand.insert(t);
        }
        continue;
      }
      for (const OpRef* t : tail) {
        auto conflict = [&](const Access& x, const Access& y) {
          int sx = storage_of(k, x.tensor);
          if (sx != storage_of(k, y.tensor)) return false;
          const Tensor& tt = k.tensor(sx);
          if (tt.scope_loop == n.loop && tt.on_chip() && tt.role != TensorRole::View) return false;  // decided below
          if (p.slots.count(sx)) return false;  // one slot per iteration after the split
          return !same_iteration_only(x, y, n.loop);
        };
        for (const Access* w : writes(h->op())) {
          for (const Access* x : reads(t->op()))
            if (conflict(*w, *x)) return std::nullopt;
          for (const Access* x : writes(t->op()))
            if (conflict(*w, *x)) return std::nullopt;
        }
        for (const Access* w : writes(t->op()))
          for (const Access* x : reads(h->op()))
            if (conflict(*w, *x)) return std::nullopt;
      }
      // Per-iteration tiles HEAD writes and TAIL uses are handed over: one per iteration.
      for (const Access* w : writes(h->op())) {
        int t = storage_of(k, w->tensor);
        const Tensor& tt = k.tensor(t);
        if (tt.scope_loop != n.loop || !tail_touch.count(t)) continue;
        if (tt.memory == Memory::Psum || !tt.on_chip() || w->tensor != t || tt.list_loop >= 0) return std::nullopt;
        p.expand.insert(t);
      }
    }
    // A list appended per iteration (`scores.append(row)`) goes with TAIL, whose tiles it holds.
    for (const auto& t : k.tensors)
      if (t.list_loop == n.loop && (head_touch.count(t.id) || !tail_touch.count(t.id))) return std::nullopt;
    // A tile TAIL writes and HEAD reads, per iteration: refused (HEAD would read another iteration's).
    for (const OpRef* t : tail)
      for (const Access* w : writes(t->op())) {
        int s = storage_of(k, w->tensor);
        if (k.tensor(s).scope_loop == n.loop && head_touch.count(s) && !p.expand.count(s)) return std::nullopt;
      }
    for (int t : p.expand) {
      // Written whole by one HEAD op, never by TAIL.
      for (const OpRef* r : tail)
        for (const Access* w : writes(r->op()))
          if (storage_of(k, w->tensor) == t) return std::nullopt;
      for (const auto& other : k.tensors)
        if (other.id != t && other.role == TensorRole::View && storage_of(k, other.id) == t) return std::nullopt;
    }
    for (size_t h = 0; h < p.head; ++h) {
      const Node& x = n.body[h];
      // A name for a slot of a list of buffers (`tp = tps[kq % 2]`) stays with HEAD; TAIL must not
      // name it (its statements would lose the binding).
      if (x.kind == NodeKind::Meta && x.meta == MetaKind::View) {
        bool named_in_tail = x.binds.empty();
        for (size_t t = p.head; t < n.body.size() && !named_in_tail; ++t)
          for_each_node(std::vector<Node>{n.body[t]}, [&](const Node& y, const std::vector<int>&) {
            for (const auto& name : x.binds) named_in_tail = named_in_tail || mentions(k, y, name);
          });
        if (x.view && p.slots.count(storage_of(k, x.view->tensor))) named_in_tail = false;  // TAIL's reads are reprinted
        if (named_in_tail) return std::nullopt;
      }
    }
    // Something HEAD prepares must reach TAIL (a tile to expand, or a block buffer already indexed
    // by the loop, as the legacy style writes them).
    p.handed = p.expand;
    p.handed.insert(p.slots.begin(), p.slots.end());
    for (const OpRef* h : head)
      for (const Access* w : writes(h->op()))
        for (const OpRef* t : tail)
          for (const Access* x : reads(t->op()))
            if (storage_of(k, w->tensor) == storage_of(k, x->tensor)) p.handed.insert(storage_of(k, w->tensor));
    if (p.handed.empty()) return std::nullopt;
    return p;
  }



  static void apply(Kernel& k, int id, const Plan& p) {
    Node* n = find_node(k, id);
    int l = n->loop;
    // The second loop's header as the author wrote the first's bound (`nl.affine_range(kv_tiles)`,
    // not its value), where that header prints as written and its names keep their value after it.
    const std::string header2 =
        n->dirty || text_outside_kernel(k, *n) || reads_any(bound_names(*n), names_local_to(k, *n, {}))
            ? ""
            : authored_header(*n, k.loops.at(l).var, 1);
    Loop second = k.loops.at(l);
    second.id = static_cast<int>(k.loops.size());
    while (k.loops.count(second.id)) ++second.id;
    k.loops[second.id] = second;
    // Split the body; bindings of HEAD are repeated in TAIL (its statements read them).
    std::vector<Node> head, tail, tail_decls, outer_decls;
    for (size_t i = 0; i < n->body.size(); ++i) {
      Node& x = n->body[i];
      if (i >= p.head) {
        tail.push_back(std::move(x));
        continue;
      }
      bool decl = x.kind == NodeKind::Stmt && x.ops.size() == 1 && is_declaration(x.ops[0]) && x.ops[0].dst;
      if (decl && p.tail_decl.count(x.ops[0].dst->tensor)) {
        tail_decls.push_back(std::move(x));
      } else if (decl && p.expand.count(x.ops[0].dst->tensor)) {
        outer_decls.push_back(std::move(x));
      } else {
        if (x.kind == NodeKind::Meta && x.meta == MetaKind::Binding) {
          Node again = x;
          again.id = k.next_node++;
          tail_decls.push_back(std::move(again));
        }
        head.push_back(std::move(x));
      }
    }
    for (auto it = tail_decls.rbegin(); it != tail_decls.rend(); ++it) tail.insert(tail.begin(), std::move(*it));
    rename_nodes(k, tail, l, second.id);
    // Tiles of TAIL now belong to the second loop.
    std::set<int> in_tail;
    for_each_node(tail, [&](const Node& x, const std::vector<int>&) {
      for (const auto& op : x.ops) {
        for (const Access* a : reads(op)) in_tail.insert(a->tensor);
        for (const Access* a : writes(op)) in_tail.insert(a->tensor);
        if (op.dst) in_tail.insert(op.dst->tensor);
      }
    });
    std::set<int> in_head;
    for_each_node(head, [&](const Node& x, const std::vector<int>&) {
      for (const auto& op : x.ops) {
        for (const Access* a : reads(op)) in_head.insert(a->tensor);
        for (const Access* a : writes(op)) in_head.insert(a->tensor);
        if (op.dst) in_head.insert(op.dst->tensor);
      }
    });
    int parent = -1;
    for_each_node(k.body, [&](const Node& x, const std::vector<int>& loops) {
      if (x.id == id) parent = loops.empty() ? -1 : loops.back();
    });
    for (auto& t : k.tensors) {
      if (t.scope_loop == l && in_tail.count(t.id) && !in_head.count(t.id) && !p.expand.count(t.id)) t.scope_loop = second.id;
      if (t.list_loop == l) t.list_loop = second.id;
    }
    // Expand the handed-over tiles: a block dim over the loop in front, or in the newer API (which
    // has no block dims: the partition dim comes first) a free dim right after the partition dim
    // (`pT[:, t, :]`), as hoist_expand places its new dims. Before session 22 a newer-API kernel got
    // `nl.ndarray((32, nl.par_dim(128), 128))`, which that API refuses (the simulator costs both the same).
    IExpr trip = k.loops.at(l).stop;
    const bool free_dim = k.dialect.new_api;
    for (int t : p.expand) {
      Tensor& tt = k.tensor(t);
      const size_t pos = free_dim ? static_cast<size_t>(tt.partition_dim) + 1 : 0;
      tt.shape.insert(tt.shape.begin() + static_cast<long>(pos), trip);
      if (!free_dim) tt.partition_dim += 1;
      tt.scope_loop = parent;
      bool value = tt.role == TensorRole::Value;
      tt.role = TensorRole::Buffer;
      auto fix = [&](std::vector<Node>& nodes, int var) {
        for_each_node(nodes, [&](Node& x, const std::vector<int>&) {
          for (auto& op : x.ops) {
            bool touched = false;
            auto at_loop = [&](std::vector<DimIndex>& dims) {
              dims.insert(dims.begin() + static_cast<long>(pos), DimIndex{IExpr::var(var), {}});
            };
            if (op.result == t) {
              Access whole;
              whole.tensor = t;
              for (size_t d = 0, axis = 0; d < tt.shape.size(); ++d)
                if (d != pos) whole.dims.push_back(DimIndex{IExpr(0), {AxisTerm{static_cast<int>(axis++), tt.shape[d], 1}}});
              op.result = -1;
              op.dst = whole;
              op.dst_first = false;
              at_loop(op.dst->dims);
              op.dst_origin = nullptr;
              touched = true;
            } else if (op.dst && op.dst->tensor == t) {
              at_loop(op.dst->dims);
              op.dst_origin = nullptr;
              touched = true;
            }
            for (auto& a : op.args)
              if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) {
                at_loop(a.value.access.dims);
                a.value.origin = nullptr;
                touched = true;
              }
            if (touched) x.dirty = true;
          }
        });
      };
      fix(head, l);
      fix(tail, second.id);
      bool declared = false;
      for (auto& d : outer_decls) {
        if (d.ops[0].dst->tensor != t) continue;
        declared = true;
        Op& op = d.ops[0];
        for (auto& di : op.dst->dims)
          for (auto& term : di.terms)
            if (term.axis >= static_cast<int>(pos)) term.axis += 1;
        op.dst->dims.insert(op.dst->dims.begin() + static_cast<long>(pos),
                            DimIndex{IExpr(0), {AxisTerm{static_cast<int>(pos), trip, 1}}});
        if (Arg* shape = op.arg("shape"); shape && shape->value.kind == Operand::Kind::Shape) {
          shape->value.shape.insert(shape->value.shape.begin() + static_cast<long>(pos), trip);
          shape->value.origin = nullptr;
        }
        d.dirty = true;
      }
      if (value || !declared) {
        if (!declared) outer_decls.push_back(declaration_node(k, t));
      }
    }
    // Slot lists: a new buffer with one slot per iteration takes every access.
    for (int t : p.slots) {
      Tensor nt = k.tensor(t);
      nt.host_list = false;
      nt.list_name.clear();
      nt.name = fresh_loop_var(k, (nt.name.empty() ? std::string("slots") : nt.name) + "_all");
      nt.label.clear();
      nt.dim_text.clear();
      nt.shape[0] = trip;
      if (free_dim) {  // the slots after the partition dim (see the expanded tiles above)
        nt.shape.erase(nt.shape.begin());
        nt.shape.insert(nt.shape.begin() + 1, trip);
        nt.partition_dim = 0;
      }
      nt.scope_loop = parent;
      nt.role = TensorRole::Buffer;
      const int made = add_tensor(k, std::move(nt));
      auto retarget = [&](std::vector<Node>& nodes, int var) {
        for_each_node(nodes, [&](Node& x, const std::vector<int>&) {
          if (x.kind == NodeKind::Meta) return;
          bool touched = false;
          auto fix = [&](Access& a) {
            if (a.tensor != t) return;
            a.tensor = made;
            a.dims[0] = DimIndex{IExpr::var(var), {}};
            if (free_dim) std::swap(a.dims[0], a.dims[1]);
            touched = true;
          };
          for (auto& op : x.ops) {
            if (op.dst && op.dst->tensor == t) {
              fix(*op.dst);
              op.dst_origin = nullptr;
            }
            for (auto& a : op.args)
              if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) {
                fix(a.value.access);
                a.value.origin = nullptr;
              }
          }
          if (touched) {
            x.dirty = true;
            x.patch.clear();
          }
        });
      };
      retarget(head, l);
      retarget(tail, second.id);
      outer_decls.push_back(declaration_node(k, made));
    }
    Node loop2;
    loop2.kind = NodeKind::Loop;
    loop2.id = k.next_node++;
    loop2.loop = second.id;
    loop2.dirty = true;
    loop2.patch = header2;
    loop2.body = std::move(tail);
    n->body = std::move(head);
    // The declarations go before the first loop, the second loop after it.
    std::vector<Node>* block = nullptr;
    size_t at = 0;
    std::function<bool(std::vector<Node>&)> locate = [&](std::vector<Node>& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i].id == id) {
          block = &b;
          at = i;
          return true;
        }
        if (locate(b[i].body) || locate(b[i].orelse)) return true;
      }
      return false;
    };
    locate(k.body);
    block->insert(block->begin() + static_cast<long>(at) + 1, std::move(loop2));
    for (auto it = outer_decls.rbegin(); it != outer_decls.rend(); ++it)
      block->insert(block->begin() + static_cast<long>(at), std::move(*it));
  }
};

}  // namespace

std::unique_ptr<Transform> make_pipeline_prep() { return std::make_unique<PipelinePrep>(); }
std::unique_ptr<Transform> make_fuse_nests() { return std::make_unique<FuseNests>(); }

void fuse_loops(Kernel& k, int a_id, int b_id) { FuseNests::fuse(k, a_id, b_id); }

bool fusable_loops(Kernel& k, int a_id, int b_id) {
  Node* a = find_node(k, a_id);
  Node* b = find_node(k, b_id);
  if (!a || !b || a->kind != NodeKind::Loop || b->kind != NodeKind::Loop || a->frozen || b->frozen) return false;
  const Loop &la = k.loops.at(a->loop), &lb = k.loops.at(b->loop);
  if (la.kind != lb.kind || la.start != lb.start || la.stop != lb.stop || la.step != lb.step || la.step <= 0 || !la.trip() ||
      la.program || lb.program || la.host_items || lb.host_items || la.ordered || lb.ordered)
    return false;
  return FuseNests::can_fuse(k, *a, *b);
}

}  // namespace loopnest
