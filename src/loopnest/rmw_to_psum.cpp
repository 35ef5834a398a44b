// A split-K sum done by the DMA engines moved into the Tensor Engine's PSUM accumulation. A loop
// whose every iteration computes a matmul, copies it out of PSUM and adds it into one HBM region
// by DMA read-modify-write (`nisa.dma_copy(dst=out, src=part, dst_rmw_op=np.add)`), the first
// iteration writing instead of adding (`if c == 0:` a plain dma_copy, or the region zeroed by a
// store of zeros before the loop), computes the same sum as accumulating the matmuls in one PSUM
// tile and storing it once:
//
//   for c: part = copy(matmul(a_c, b_c)); if c == 0: dma(out, part) else: dma(out, part, add)
//   ->  acc = zeros(psum); for c: acc += matmul(a_c, b_c)
//       part = copy(acc); dma(out, part)
//
// Each read-modify-write is a DMA that reads the region back from HBM and writes it again, and
// each iteration pays a copy out of PSUM; after the move the loop holds the matmuls alone (the
// Tensor Engine sums in PSUM for free) and one copy and one store remain. usr_splitk_dma_accumulate
// 9.270 -> 7.219 us by hand.
//
// Legal from the dependences on the form, not from the text:
//   - the RMW (op add) and the first-iteration write store the same region D of an fp32 HBM tensor,
//     the same in every iteration (no index of the loop or of a loop inside it), from the same
//     SBUF fp32 tile S;
//   - the first write is taken exactly in the first iteration: under a condition of the loop's
//     variable alone, evaluated over the loop's (constant) range, with the RMW in the other
//     branch; or it is a store to D of a zeroed tile before the loop, with nothing touching D in
//     between, and the RMW taken in every iteration;
//   - S is written once per iteration, directly in the loop's body, by a copy of a whole PSUM tile P
//     that one matmul (no accumulate flag, no mask) writes in the body and only that copy reads; S
//     is read by those two DMAs alone;
//   - nothing else inside the loop reads or writes any element of D (a read of `out` in the loop
//     would see the partial sums);
//   - P fits one PSUM bank (2 KiB per partition, at most 128 partitions), the accumulator the
//     matmuls then write; fp32 PSUM accumulation is the fp32 RMW's arithmetic.
#include <algorithm>
#include <optional>

#include <fmt/core.h>

#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"
#include "trn/tile_limits.h"

namespace loopnest {

namespace {

// A DMA of an on-chip tile into HBM: a store (`nl.store`, `nisa.dma_copy` to HBM).
bool dma_to_hbm(const Kernel& k, const Op& op) {
  return (op.cls == OpClass::Store || op.cls == OpClass::DmaCopy) && op.dst && !k.tensor(op.dst->tensor).on_chip() &&
         !op.has_mask && !op.accumulate;
}

// The operation's read-modify-write operator ("" for a plain write).
std::string rmw_op(const Op& op) {
  const Operand* r = operand(op, "dst_rmw_op");
  if (!r || r->kind == Operand::Kind::None) return "";
  return r->kind == Operand::Kind::Symbol ? r->symbol : "?";
}

// The tile a store writes (`src=` of dma_copy, `value=` of nl.store).
const Operand* stored_tile(const Op& op) {
  const Operand* s = operand(op, "src");
  if (!s) s = operand(op, "value");
  return s && s->kind == Operand::Kind::Tile ? s : nullptr;
}

bool is_zeroing(const Op& op) {
  if (op.api == "nl.zeros" || op.api == "nl.zeros_like") return true;
  if (op.cls != OpClass::Memset) return false;
  const Operand* v = operand(op, "value");
  if (!v) v = operand(op, "fill_value");
  return v && v->kind == Operand::Kind::Number && v->number == 0;
}

bool single_stmt(const Node& n) { return n.kind == NodeKind::Stmt && n.ops.size() == 1 && !n.frozen; }

struct Found {
  int loop_node = -1, loop = -1;
  int mm_node = -1, copy_node = -1;  // equal when the copy's statement holds the matmul as inner call
  int rmw_node = -1;                 // the RMW's statement (case zeroed), or the If holding it
  int zero_node = -1;                // the store of zeros before the loop (-1: first write under a condition)
  int zero_tile = -1;
  int psum = -1, part = -1, out = -1;
  Op matmul, copy, rmw;
  int outer = -1;  // the loop around the loop (-1: the kernel)
};

class RmwToPsum : public Transform {
 public:
  std::string name() const override { return "rmw_to_psum"; }
  std::string description() const override {
    return "sum a loop's matmul results in PSUM and store once, instead of adding each into HBM by DMA "
           "read-modify-write";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    // Every loop, also one over a host sequence (Loop::host_items, whose header the move keeps).
    std::vector<int> ids;
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::Loop && !n.frozen) ids.push_back(n.id);
    });
    for (int id : ids) {
      Analysis an(k);
      Node* loop = find_node(k, id);
      if (!loop) continue;
      auto f = candidate(k, an, *loop);
      if (!f) continue;
      const OpRef* anchor = nullptr;
      for (const auto& r : an.ops)
        if (r.node->id == f->mm_node && r.op().cls == OpClass::Matmul) anchor = &r;
      if (!anchor) continue;
      Site s = make_site(k, an, *anchor,
                         fmt::format("accumulate the matmuls in one PSUM tile and store `{}` once after the loop, "
                                     "instead of a copy out of PSUM and a DMA read-modify-write per iteration",
                                     k.tensor(f->out).name),
                         {{"first", f->zero_node >= 0 ? "zeroed" : "branch"}});
      s.relieves = {"dma", to_string(f->copy.engine)};
      Found found = *f;
      if (sink(s, [&k, found] { apply(k, found); })) return true;
    }
    return false;
  }

 private:
  static std::optional<Found> candidate(Kernel& k, const Analysis& an, Node& loop_node) {
    const Loop& L = k.loops.at(loop_node.loop);
    auto trip = L.trip();
    if (!trip || *trip < 1) return std::nullopt;
    Found f;
    f.loop_node = loop_node.id;
    f.loop = L.id;
    // The RMW: directly in the body, or in one branch of a condition directly in it.
    const Node* rmw_holder = nullptr;
    const Node* first_node = nullptr;  // the first write's statement under the condition
    const Node* cond = nullptr;
    bool rmw_in_else = false;
    for (const Node& n : loop_node.body) {
      if (single_stmt(n) && dma_to_hbm(k, n.ops[0]) && rmw_op(n.ops[0]) == "add") {
        if (rmw_holder) return std::nullopt;
        rmw_holder = &n;
      }
      if (n.kind == NodeKind::If && n.body.size() == 1 && n.orelse.size() == 1 && single_stmt(n.body[0]) &&
          single_stmt(n.orelse[0])) {
        const Op& a = n.body[0].ops[0];
        const Op& b = n.orelse[0].ops[0];
        if (!dma_to_hbm(k, a) || !dma_to_hbm(k, b)) continue;
        std::string ra = rmw_op(a), rb = rmw_op(b);
        if (!((ra.empty() && rb == "add") || (ra == "add" && rb.empty()))) continue;
        if (rmw_holder) return std::nullopt;
        rmw_holder = &n;
        cond = &n;
        rmw_in_else = rb == "add";
        first_node = rmw_in_else ? &n.body[0] : &n.orelse[0];
      }
    }
    if (!rmw_holder) return std::nullopt;
    const Node& rmw_stmt = cond ? (rmw_in_else ? cond->orelse[0] : cond->body[0]) : *rmw_holder;
    f.rmw = rmw_stmt.ops[0];
    f.rmw_node = rmw_holder->id;
    const Access& D = *f.rmw.dst;
    f.out = D.tensor;
    if (k.tensor(f.out).dtype != "float32") return std::nullopt;
    // The same region in every iteration.
    std::set<int> inner = loops_within(loop_node);
    for (int l : inner)
      if (uses_loop(D, l)) return std::nullopt;
    const Operand* src = stored_tile(f.rmw);
    if (!src || !accesses_whole(k, src->access)) return std::nullopt;
    f.part = src->access.tensor;
    if (cond) {
      // The condition reads the loop's variable alone and holds in the first iteration only.
      for (const IExpr* e : {&cond->cond_l, &cond->cond_r})
        for (int v : e->vars())
          if (v != L.id) return std::nullopt;
      // Evaluated at the loop's values, which need a constant start (`range(3 * h, 3 * h + 3)` has
      // a constant trip but no value of its own: `k == 0` may hold in no iteration of it).
      if (!L.start.is_constant()) return std::nullopt;
      for (int64_t i = 0; i < *trip; ++i) {
        std::map<int, int64_t> vals = {{L.id, L.start.constant() + i * L.step}};
        auto l = cond->cond_l.eval(vals), r = cond->cond_r.eval(vals);
        if (!l || !r) return std::nullopt;
        bool holds = false;
        switch (cond->cond) {
          case Cmp::Lt: holds = *l < *r; break;
          case Cmp::Le: holds = *l <= *r; break;
          case Cmp::Gt: holds = *l > *r; break;
          case Cmp::Ge: holds = *l >= *r; break;
          case Cmp::Eq: holds = *l == *r; break;
          case Cmp::Ne: holds = *l != *r; break;
        }
        bool first_taken = rmw_in_else ? holds : !holds;
        if (first_taken != (i == 0)) return std::nullopt;
      }
      const Op& w = first_node->ops[0];
      const Operand* wsrc = stored_tile(w);
      if (!w.dst || !(*w.dst == D) || !wsrc || !(wsrc->access == src->access)) return std::nullopt;
    }
    // The copy out of PSUM writing S, and the matmul writing what it copies.
    const OpRef* copy = nullptr;
    for (const OpRef* w : an.writers(k, f.part)) {
      if (copy) return std::nullopt;
      copy = w;
    }
    if (!copy || copy->block != &loop_node.body || copy->node->frozen) return std::nullopt;
    const Op& c = copy->op();
    if (c.cls != OpClass::Copy || c.has_mask || c.result != f.part || copy->index + 1 != copy->node->ops.size())
      return std::nullopt;
    const Tensor& part = k.tensor(f.part);
    if (part.memory != Memory::Sbuf || part.dtype != "float32" || !part.list_name.empty()) return std::nullopt;
    const Operand* from = nullptr;
    for (const auto& a : c.args)
      if (a.value.kind == Operand::Kind::Tile) {
        if (from) return std::nullopt;
        from = &a.value;
      }
    if (!from || !accesses_whole(k, from->access)) return std::nullopt;
    f.psum = from->access.tensor;
    const Tensor& P = k.tensor(f.psum);
    if (P.memory != Memory::Psum || P.dtype != "float32" || P.role != TensorRole::Value || P.partition_dim != 0)
      return std::nullopt;
    auto bytes = tile_bytes(P, 0);
    if (!bytes || *bytes > trn::limits::psum_bank_bytes || P.shape.empty() || !P.shape[0].is_constant() ||
        P.shape[0].constant() > trn::limits::pmax)
      return std::nullopt;
    const OpRef* mm = nullptr;
    for (const OpRef* w : an.writers(k, f.psum)) {
      if (mm) return std::nullopt;
      mm = w;
    }
    if (!mm || mm->block != &loop_node.body || mm->node->frozen) return std::nullopt;
    const Op& m = mm->op();
    if (m.cls != OpClass::Matmul || m.accumulate || m.arg("accumulate") || m.has_mask || m.result != f.psum)
      return std::nullopt;
    if (mm->node == copy->node) {
      if (copy->node->ops.size() != 2) return std::nullopt;  // `part = nl.copy(nisa.nc_matmul(a, b))`
    } else if (mm->node->ops.size() != 1 || copy->node->ops.size() != 1) {
      return std::nullopt;
    }
    auto p_readers = an.readers(k, f.psum);
    if (p_readers.size() != 1 || p_readers[0] != copy) return std::nullopt;
    f.matmul = m;
    f.copy = c;
    f.mm_node = mm->node->id;
    f.copy_node = copy->node->id;
    // S is read by the two DMAs alone.
    for (const OpRef* r : an.readers(k, f.part)) {
      bool ours = r->node->id == rmw_stmt.id || (first_node && r->node->id == first_node->id);
      if (!ours) return std::nullopt;
    }
    // Nothing else in the loop touches D.
    Ranges ranges = k.ranges();
    int loop_first = -1;
    for (const auto& r : an.ops) {
      if (std::find(r.loops.begin(), r.loops.end(), L.id) == r.loops.end()) continue;
      if (loop_first < 0) loop_first = r.order;
      if (r.node->id == rmw_stmt.id || (first_node && r.node->id == first_node->id)) continue;
      std::vector<const Access*> touched = reads(r.op());
      for (const Access* a : writes(r.op())) touched.push_back(a);
      for (const Access* a : touched)
        if (storage_of(k, a->tensor) == storage_of(k, f.out) && may_overlap_across(k, *a, D, ranges)) return std::nullopt;
    }
    const OpRef* first_in_loop = mm;
    for (const auto& r : an.ops)
      if (r.order == loop_first) first_in_loop = &r;
    f.outer = mm->loops.size() >= 2 ? mm->loops[mm->loops.size() - 2] : -1;
    if (!cond) {
      // Zeroed before the loop: a store of a zeroed tile into exactly D, at the loop's level, and
      // nothing touching D between it and the loop.
      const OpRef* zero = nullptr;
      for (const auto& r : an.ops) {
        if (r.order >= first_in_loop->order) break;
        std::vector<const Access*> touched = reads(r.op());
        for (const Access* a : writes(r.op())) touched.push_back(a);
        bool touches = false;
        for (const Access* a : touched)
          touches = touches || (storage_of(k, a->tensor) == storage_of(k, f.out) && may_overlap_across(k, *a, D, ranges));
        if (!touches) continue;
        const Op& op = r.op();
        const Operand* z = stored_tile(op);
        if (single_stmt(*r.node) && dma_to_hbm(k, op) && rmw_op(op).empty() && *op.dst == D && z &&
            accesses_whole(k, z->access))
          zero = &r;
        else
          zero = nullptr;  // a later touch of D after the zeroing store (or another writer)
      }
      if (!zero) return std::nullopt;
      size_t at = 0;
      std::vector<Node>* parent = parent_block(k.body, loop_node.id, at);
      if (!parent || zero->block != parent || zero->position > at) return std::nullopt;
      int zt = stored_tile(zero->op())->access.tensor;
      bool zeroed = false;
      for (const OpRef* w : an.writers(k, zt)) {
        if (!is_zeroing(w->op()) || !accesses_whole(k, *w->op().dst) || w->order > zero->order) return std::nullopt;
        zeroed = true;
      }
      for (const auto& r : an.ops)
        if (is_declaration(r.op()) && r.op().dst && r.op().dst->tensor == zt && is_zeroing(r.op())) zeroed = true;
      if (!zeroed) return std::nullopt;
      f.zero_node = zero->node->id;
      f.zero_tile = zt;
    }
    return f;
  }

  static void apply(Kernel& k, const Found& f) {
    Tensor& P = k.tensor(f.psum);
    P.role = TensorRole::Buffer;
    if (P.name.empty()) P.name = fresh_loop_var(k, "acc_psum");
    P.scope_loop = f.outer;
    k.tensor(f.part).scope_loop = f.outer;
    Access whole = whole_of(k, f.psum);
    // acc = nl.zeros(shape, float32, psum) before the loop.
    Op zeros = zeros_declaration(k, f.psum, Memory::Psum);
    // acc += matmul(...) where the matmul was.
    Op mm = f.matmul;
    mm.result = -1;
    mm.accumulate = true;
    mm.dst = whole;
    mm.dst_origin = nullptr;
    Node* mm_node = find_node(k, f.mm_node);
    if (!mm_node) throw TransformError("rmw_to_psum: the matmul is gone");
    mm_node->ops = {mm};
    mm_node->dirty = true;
    mm_node->patch.clear();
    if (f.copy_node != f.mm_node) erase_node(k, f.copy_node);
    // part = copy(acc) and the plain store after the loop.
    Op copy = f.copy;
    for (auto& a : copy.args)
      if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == f.psum) a.value = tile_operand(whole);
    Op store = f.rmw;
    store.args.erase(std::remove_if(store.args.begin(), store.args.end(),
                                    [](const Arg& a) { return a.name == "dst_rmw_op"; }),
                     store.args.end());
    erase_node(k, f.rmw_node);
    if (f.zero_node >= 0) erase_node(k, f.zero_node);
    size_t at = 0;
    std::vector<Node>* parent = parent_block(k.body, f.loop_node, at);
    if (!parent) throw TransformError("rmw_to_psum: the loop is gone");
    parent->insert(parent->begin() + static_cast<long>(at) + 1, new_statement(k, {store}));
    parent->insert(parent->begin() + static_cast<long>(at) + 1, new_statement(k, {copy}));
    parent->insert(parent->begin() + static_cast<long>(at), new_statement(k, {zeros}));
    if (f.zero_tile >= 0) {
      // The zeroed tile goes with its store when nothing else reads it.
      Analysis an(k);
      if (an.readers(k, f.zero_tile).empty()) {
        std::vector<int> dead;
        for (const auto& r : an.ops)
          if (r.op().dst && r.op().dst->tensor == f.zero_tile && r.node->ops.size() == 1) dead.push_back(r.node->id);
        for (int id : dead) erase_node(k, id);
      }
    }
    remove_dead_buffers(k);
  }
};

}  // namespace

std::unique_ptr<Transform> make_rmw_to_psum() { return std::make_unique<RmwToPsum>(); }

}  // namespace loopnest
