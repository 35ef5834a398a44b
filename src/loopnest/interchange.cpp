// Loop interchange on the form: the two loops of a perfect nest swap places, which changes which
// operand stays resident across the inner loop and the order of the DMAs. Legal for two affine
// loops (their iterations are independent; accumulations only change order) whose bounds do not
// depend on each other, unless both loops carry one tile (a name rebound in every iteration); and for
// a loop run in order with another when no dependence between their iterations has direction (<, >)
// (swap_reverses_a_dependence).
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/scope_text.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

// The only loop in `body` besides docstrings and, where `bindings`, Python bindings before it (which
// move into the inner loop), or null. A transparent block (nest_walk.h) that is all of the body but
// such bindings is looked into: `for a: if K <= 128: for b:` swaps as `for a: for b:` does, the
// block staying between the two loops (its condition names neither).
Node* sole_loop_in(std::vector<Node>& body, bool bindings) {
  Node* inner = nullptr;
  for (auto& b : body) {
    if (b.kind == NodeKind::Meta && b.meta == MetaKind::Docstring) continue;
    if (bindings && !inner && b.kind == NodeKind::Meta && (b.meta == MetaKind::Binding || b.meta == MetaKind::View))
      continue;
    if (!inner && transparent_block(b)) {
      inner = sole_loop_in(transparent_body(b), false);
      if (!inner) return nullptr;
      continue;
    }
    if (b.kind != NodeKind::Loop || inner) return nullptr;
    inner = &b;
  }
  return inner;
}

// The only loop in `n`'s body besides end-of-loop markers and Python bindings before it.
Node* sole_inner_loop(Node& n) { return sole_loop_in(n.body, true); }

// The source of a loop's `for ...:` line, "" when it spans lines or has no source.
std::string header_text(const Kernel& k, const Node& n) {
  // (A launch's program loop has no header of its own: its origin is the launched body's first line.)
  if (!n.origin || text_outside_kernel(k, n) || n.origin->kind != nki::StmtKind::For || n.origin->span.line != n.origin->span.end_line)
    return "";
  std::string line = k.module->file->line_text(n.origin->span.line);
  size_t start = line.find_first_not_of(' ');
  return start == std::string::npos ? "" : line.substr(start);
}

bool carried_by_both(const Kernel& k, int outer, int inner) {
  std::set<int> a = carried_tensors(k, outer), b = carried_tensors(k, inner);
  return std::any_of(a.begin(), a.end(), [&](int t) { return b.count(t) > 0; });
}

// Whether a later iteration of the outer loop at an earlier iteration of the inner loop, (o', i')
// with o' > o and i' < i, touches an element iteration (o, i) touches, one of the two touches a
// write and not both accumulations: a dependence of direction (<, >), which the swap would reverse
// (Allen & Kennedy, "Optimizing Compilers for Modern Architectures", 5.2: interchange is legal when
// no dependence has that direction). Tiles declared inside the nest are one per iteration and
// carry nothing. Conservative: true wherever the bounds cannot decide (an unknown trip, an
// unbounded variable), and a read chosen away per iteration (Operand::number_when) still counts.
bool swap_reverses_a_dependence(const Kernel& k, const Node& outer, int lo, int li) {
  const Loop &o = k.loops.at(lo), &i = k.loops.at(li);
  auto to = o.trip(), ti = i.trip();
  if (!to || !ti) return true;
  if (*to < 2 || *ti < 2) return false;
  std::vector<const Op*> ops;
  for_each_node(outer.body, [&](const Node& n, const std::vector<int>&) {
    for (const Op& op : n.ops) ops.push_back(&op);
  });
  // An engine's accumulator continued across iterations (`reduce_cmd=reduce` after a reset at the
  // first chunk): the swap interleaves the other loop's iterations into the running sum.
  if (std::any_of(ops.begin(), ops.end(), [](const Op* op) { return continues_engine_accumulator(*op); })) return true;
  std::set<int> nest = loops_within(outer);
  std::set<int> shared = {lo, li};
  shared.insert(k.grid.begin(), k.grid.end());
  std::vector<int> around = loops_around(k, outer.id);
  shared.insert(around.begin(), around.end());
  Ranges ranges = k.ranges();
  int a = std::max(k.loops.empty() ? 0 : k.loops.rbegin()->first + 1, ranges.empty() ? 0 : ranges.rbegin()->first + 1);
  int b = a + 1;
  ranges[a] = {0, *to - 2};
  ranges[b] = {0, *ti - 2};
  IExpr later = IExpr::var(lo) + (IExpr::var(a) + 1) * o.step, earlier = IExpr::var(li) - (IExpr::var(b) + 1) * i.step;
  auto meet = [&](const Access& now, const Access& then) {
    Access moved = then;
    for (auto& d : moved.dims) {
      d.start = d.start.substitute(lo, later).substitute(li, earlier);
      for (auto& t : d.terms) t.size = t.size.substitute(lo, later).substitute(li, earlier);
    }
    return may_overlap_within(k, now, moved, ranges, shared);
  };
  for (const Op* p : ops)
    for (const Access* w : writes(*p)) {
      int t = storage_of(k, w->tensor);
      if (nest.count(k.tensor(t).scope_loop)) continue;
      for (const Op* q : ops) {
        std::vector<const Access*> touched = reads(*q), written = writes(*q);
        touched.insert(touched.end(), written.begin(), written.end());
        for (const Access* x : touched) {
          if (storage_of(k, x->tensor) != t) continue;
          bool both_accumulate = p->accumulate && q->accumulate && w == &*p->dst && x == &*q->dst;
          if (!both_accumulate && (meet(*w, *x) || meet(*x, *w))) return true;
        }
      }
    }
  return false;
}

// After a swap, the bindings leading the inner body that do not name the inner loop's variable (nor
// a binding that stays) move up before the inner loop: `for s: for blk: t0 = blk * W; for ct:`
// swapped is `for blk: t0 = blk * W; for s: for ct:`, so a later move that hoists a load naming
// t0 out of `for s` finds t0 bound outside it (hoist refuses a statement naming a binding of the
// loop's body).
void lift_bindings_out(const Kernel& k, Node& outer, int inner_id) {
  auto at = std::find_if(outer.body.begin(), outer.body.end(), [&](const Node& n) { return n.id == inner_id; });
  if (at == outer.body.end()) return;
  Node& inner = *at;
  std::vector<std::string> staying = {k.loops.at(inner.loop).var};
  std::vector<Node> up;
  auto it = inner.body.begin();
  while (it != inner.body.end() && it->kind == NodeKind::Meta &&
         (it->meta == MetaKind::Binding || it->meta == MetaKind::View)) {
    bool stays = std::any_of(staying.begin(), staying.end(), [&](const std::string& name) { return mentions(k, *it, name); });
    if (stays) {
      staying.insert(staying.end(), it->binds.begin(), it->binds.end());
      ++it;
    } else {
      up.push_back(std::move(*it));
      it = inner.body.erase(it);
    }
  }
  if (up.empty()) return;
  outer.dirty = inner.dirty = true;
  outer.body.insert(at, std::make_move_iterator(up.begin()), std::make_move_iterator(up.end()));
}

// What the swap does to the loads of the inner loop's own body (the innermost loop around them, the
// one the compiler takes an unchanged load out of: src/lower/hoist_loads.cpp). A load naming the
// inner variable and not the outer one is read once per (outer, inner) pair now and becomes
// invariant in the new innermost loop; one naming only the outer variable goes the other way.
// The Mamba tutorial's v1 (`for state: for channel_tile: load(delta[tile])`) reads delta and u once
// per state; swapped it is the tutorial's v2, which reads them once (trainium-measurements 1.7:
// 2.34 -> 1.61 ms on Trn1). `saved` and `lost` are the HBM bytes the whole nest reads fewer / more;
// `fewer` the loads and the tensor_tensor work on them only (the compiler's rule hoists those too).
struct InvariantLoads {
  double saved = 0, lost = 0;
  std::set<const Op*> fewer;
};

InvariantLoads loads_made_invariant(const Kernel& k, const Analysis& an, const Loop& lo, const Loop& li) {
  InvariantLoads r;
  auto to = lo.trip(), ti = li.trip();
  if (!to || !ti) return r;
  std::set<int> hoisted;  // tensors the invariant operations write whole
  for (const OpRef& ref : an.ops) {
    if (ref.loops.empty() || ref.loops.back() != li.id) continue;
    const Op& op = ref.op();
    bool by_outer = uses_loop(op, lo.id) || mask_uses(op, lo.id) || index_operand_uses(op, lo.id);
    bool by_inner = uses_loop(op, li.id) || mask_uses(op, li.id) || index_operand_uses(op, li.id);
    if (op.cls == OpClass::Load) {
      std::vector<const Access*> src = reads(op);
      if (src.empty() || k.tensor(storage_of(k, src[0]->tensor)).memory != Memory::Hbm) continue;
      double bytes = access_bytes(k, *src[0]);
      if (by_inner && !by_outer) {
        r.saved += bytes * static_cast<double>(*ti) * static_cast<double>(*to - 1);
        r.fewer.insert(&op);
        if (int t = written_whole(k, op); t >= 0) hoisted.insert(t);
      } else if (by_outer && !by_inner) {
        r.lost += bytes * static_cast<double>(*to) * static_cast<double>(*ti - 1);
      }
    } else if (op.cls == OpClass::Elementwise && !by_outer) {
      std::vector<const Access*> in = reads(op);
      bool on_hoisted = !in.empty() && std::all_of(in.begin(), in.end(), [&](const Access* a) {
        return hoisted.count(storage_of(k, a->tensor)) > 0;
      });
      if (!on_hoisted) continue;
      r.fewer.insert(&op);
      if (int t = written_whole(k, op); t >= 0) hoisted.insert(t);
    }
  }
  return r;
}

class Interchange : public Transform {
 public:
  std::string name() const override { return "interchange_loops"; }
  std::string description() const override {
    return "swap the two loops of a perfect nest (which operand stays resident across the inner loop, the order of "
           "the DMAs)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<int> outers = open_loop_ids(k);
    for (int id : outers) {
      Node* outer = find_node(k, id);
      Node* inner = outer ? sole_inner_loop(*outer) : nullptr;
      if (!inner || inner->frozen) continue;
      const Loop &lo = k.loops.at(outer->loop), &li = k.loops.at(inner->loop);
      if (li.start.uses(lo.id) || li.stop.uses(lo.id)) continue;
      // Iterations the program needs in order (a host counter's bumps printed as written, affine
      // loops too: lift_counter.cpp).
      if (lo.ordered || li.ordered) continue;
      if (lo.kind == LoopKind::Affine && li.kind == LoopKind::Affine) {
        // A tile both loops carry (written where neither variable moves it, read before the write: a
        // name rebound each iteration, lift_carry.cpp): the swap reorders its updates.
        if (carried_by_both(k, lo.id, li.id)) continue;
      } else {
        // A loop run in order (a scan's carry across sequence blocks) swaps with an affine one when
        // no dependence runs backwards in it (a state loop whose buffers expand_buffer made private).
        if (lo.ordered || li.ordered || lo.host_items || li.host_items) continue;
        if (swap_reverses_a_dependence(k, *outer, lo.id, li.id)) continue;
      }
      Analysis an(k);
      const OpRef* anchor = first_op_in(an, inner->loop);
      if (!anchor) continue;
      // `depth`: the loops around the outer one. Two nested pairs of one nest have the same anchor (the
      // first op of the inner loop: `for s: for blk: for ct: load` swaps s/blk or blk/ct).
      int depth = static_cast<int>(loops_around(k, id).size());
      std::map<std::string, std::string> params = {{"depth", std::to_string(depth)}};
      InvariantLoads inv = loads_made_invariant(k, an, lo, li);
      std::string why;
      if (inv.saved > inv.lost) {
        // Evidence for the planner: the swap reads this many fewer KiB from HBM once the compiler (or
        // a hoist) takes the now-invariant loads out of the innermost loop.
        int64_t kib = static_cast<int64_t>((inv.saved - inv.lost) / 1024);
        params["reads_saved_kib"] = std::to_string(kib);
        why = fmt::format(" ({} KiB fewer HBM reads: loads invariant in the new inner loop)", kib);
      }
      Site s = make_site(k, an, *anchor, fmt::format("interchange `for {}` and `for {}`{}", lo.var, li.var, why),
                         std::move(params));
      if (inv.saved > inv.lost) note_relief(k, an, inv.fewer, s);
      // One loop runs in order and the other not: the swap changes which iterations the compiler
      // may overlap, not only their program order (a held-out silu, `for row (affine): for col
      // (range)`, 1.21x swapped): the waiting it can win, besides the families the form found (the
      // loads it makes invariant) or, when it found none, the planner's table families.
      if (runs_in_order(k, lo) != runs_in_order(k, li)) {
        if (s.relieves.empty()) s.relieves.insert({"dma", "pe"});
        s.relieves.insert("serial");
      }
      s.node = outer->id;
      s.line = outer->origin ? static_cast<int>(outer->origin->span.line) : 0;
      int inner_id = inner->id;
      if (sink(s, [&k, id, inner_id] {
            Node* o = find_node(k, id);
            Node* i = find_node(k, inner_id);
            int was_inner = i->loop;
            // Bindings of the outer variable before the inner loop move into it.
            std::vector<Node> moved;
            for (auto it = o->body.begin(); it != o->body.end();) {
              if (it->kind == NodeKind::Meta && (it->meta == MetaKind::Binding || it->meta == MetaKind::View)) {
                moved.push_back(std::move(*it));
                it = o->body.erase(it);
              } else {
                ++it;
              }
            }
            i = find_node(k, inner_id);
            i->body.insert(i->body.begin(), std::make_move_iterator(moved.begin()), std::make_move_iterator(moved.end()));
            std::swap(o->loop, i->loop);
            // Each header keeps the author's spelling of its loop (`cols // block`).
            std::string oh = header_text(k, *o), ih = header_text(k, *i);
            o->patch = ih, i->patch = oh;
            o->dirty = true;
            i->dirty = true;
            // Tiles of the innermost body are now per iteration of the other loop.
            for (auto& t : k.tensors)
              if (t.scope_loop == was_inner) t.scope_loop = i->loop;
            lift_bindings_out(k, *o, inner_id);  // last: it inserts into o's body, so `i` dangles after it
          }))
        return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_interchange() { return std::make_unique<Interchange>(); }

}  // namespace loopnest
