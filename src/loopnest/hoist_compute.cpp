// Loop-invariant code motion of compute, with the loads feeding it (a chunked selective scan):
//   for s:                                   # state loop
//     for j: d = load(delta[.., j]); uu = load(u[.., j])
//            decay = exp(d * a[:, s]); drive = (d * uu) * b[s, j]; h = scan(decay, drive, carry) ...
// =>
//   d = ndarray((J, P, CH)); uu = ...; du = ...
//   for j: d[j] = load(delta[.., j]); uu[j] = load(u[.., j]); du[j] = d[j] * uu[j]
//   for s:
//     for j: decay = exp(d[j] * a[:, s]); drive = du[j] * b[s, j]; ...
// `d`, `uu` and `d * uu` do not depend on the state: they were loaded and computed once per state,
// now once. hoist_expand (hoist_expand.cpp) moves one load; hoist (hoist.cpp) moves a statement
// invariant in its immediately enclosing loop whose operands that loop does not write. Here the
// instruction's operands are loaded inside the loop it leaves, below loops it still varies with, so
// the loads go first (each by hoist_expand's expansion), then the instruction by the same expansion:
// one buffer block per iteration of the inner loops it uses, filled before the loop it leaves.
//
// Legal from dependences on the form: the instruction is pure (elementwise, activation, copy,
// broadcast, reduce; no accumulation, mask or index operand), does not use the loop's variable, and
// each of its operands is either written nowhere inside the loop or written there only by one load
// that hoist_expand may move out of the same loop whole (no chunking). Its result is written by it
// alone and read only after it inside every loop it uses (not carried: the block read is this
// iteration's), and the buffers it adds with the other SBUF tiles fit a partition (hoist_expand's
// capacity rule, judged after the loads' buffers are added). An instruction written as the first
// inner call of a statement (`drive = nl.multiply(nl.multiply(d, uu), b_row)`) becomes a named
// statement of its own first, so the same nest offers the same site however it is spelled.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/hoist_expand.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

struct Move {
  int stmt = -1;         // the instruction's statement
  bool split = false;    // the instruction is the statement's first inner call (split off first)
  int outer = -1;        // the loop node it leaves
  std::vector<int> loads;  // statements of the loads feeding it, hoisted first
  std::vector<int> loops;  // the loop it leaves and the loops between it and the statement
};

// A name for the split-off call's tile from its operands' (`d_uu` for `nl.multiply(d, uu)`).
std::string name_for(const Kernel& k, const Op& op) {
  std::string base;
  for (const auto& a : op.args)
    if (a.value.kind == Operand::Kind::Tile && !k.tensor(a.value.access.tensor).name.empty())
      base += (base.empty() ? "" : "_") + k.tensor(a.value.access.tensor).name;
  return fresh_loop_var(k, base.empty() ? "invariant" : base);
}

// The first inner call of statement `id` becomes a statement of its own before it, its tile named;
// returns that statement's id.
int split_first_call(Kernel& k, int id) {
  size_t at = 0;
  std::vector<Node>* block = parent_block(k.body, id, at);
  Node& n = (*block)[at];
  Op& first = n.ops.front();
  int t = first.result;
  k.tensor(t).name = name_for(k, first);
  split_leading_ops(k, *block, at, 1);
  for (auto& op : (*block)[at + 1].ops)
    for (auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) a.value.origin = nullptr;
  return (*block)[at].id;
}

// Applies the move on `k`; the instruction's plan, or nullopt when a step is not legal (`k` is then
// partly changed: callers try on a copy first).
std::optional<ExpandPlan> perform(Kernel& k, const Move& m) {
  size_t before = 0;
  if (!parent_block(k.body, m.outer, before)) return std::nullopt;
  std::vector<std::pair<ExpandPlan, bool>> loads;  // each load's plan, and whether it returned a value
  for (int id : m.loads) {
    auto p = whole_expand_plan(k, id, m.outer, false);
    if (!p) return std::nullopt;
    const Op* load = sole_op(*find_node(k, id));
    loads.push_back({*p, load && load->result >= 0});
    apply_expand(k, *p);
  }
  int stmt = m.split ? split_first_call(k, m.stmt) : m.stmt;
  auto p = whole_expand_plan(k, stmt, m.outer, true);
  if (!p) return std::nullopt;
  const Op* x = sole_op(*find_node(k, stmt));
  const bool x_value = x && x->result >= 0;
  apply_expand(k, *p);
  for (const auto& [lp, value] : loads)
    if (value) value_again(k, lp);
  if (x_value) value_again(k, *p);
  size_t after = 0;
  std::vector<Node>* block = parent_block(k.body, m.outer, after);
  int fill = merge_fills(k, *block, before, after);
  if (fill >= 0)
    for (const auto& [lp, value] : loads) private_tile(k, lp, fill, value);
  return p;
}

// A transpose into PSUM copied out by one copy into an SBUF tile's region (`k_t_psum =
// nl.transpose(k_tile); k_t[:, ks * 128:(ks + 1) * 128] = nl.copy(k_t_psum, dtype=..)`): the copy's
// statement id, when the transpose's tile is written by it alone and read by that copy alone, whole.
// Legacy API only: there a transpose writes an SBUF destination itself (the PSUM copy is the
// compiler's, as hoist_transpose prints it); the newer API's Tensor Engine writes PSUM only.
std::vector<int> transpose_copies(Kernel& k) {
  std::vector<int> out;
  if (k.dialect.new_api) return out;
  Analysis an(k);
  for (const auto& r : an.ops) {
    const Op& c = r.op();
    if (sole_op(*r.node) != &c || c.cls != OpClass::Copy || !movable_compute(c) || c.result >= 0 || !c.dst || c.dst_first)
      continue;  // (a copy returning its tile is hoist_transpose's chain)
    const Arg* src = c.arg("src");
    if (!src || src->value.kind != Operand::Kind::Tile || !accesses_whole(k, src->value.access)) continue;
    int t = src->value.access.tensor;
    if (storage_of(k, t) != t || k.tensor(t).memory != Memory::Psum) continue;
    auto ws = an.writers(k, t);
    if (ws.size() != 1 || ws[0]->op().cls != OpClass::Transpose || ws[0]->op().result != t ||
        sole_op(*ws[0]->node) != &ws[0]->op() || !movable_compute(ws[0]->op()) || ws[0]->loops != r.loops)
      continue;
    bool alone = true;
    for (const auto& o : an.ops)
      for (const Access* a : reads(o.op())) alone = alone && (a->tensor != t || &o == &r);
    if (alone) out.push_back(r.node->id);
  }
  return out;
}

// The transpose writes the copy's destination itself; its own statement goes.
void fold_transpose_copy(Kernel& k, int copy) {
  Node* c = find_node(k, copy);
  if (!c) throw TransformError("hoist_compute: the copy is gone");
  const int t = c->ops.back().arg("src")->value.access.tensor;
  Analysis an(k);
  auto ws = an.writers(k, t);
  if (ws.size() != 1) throw TransformError("hoist_compute: the transpose is gone");
  Op tr = ws[0]->op();
  const int tr_stmt = ws[0]->node->id;
  tr.result = -1;
  tr.origin = nullptr;
  tr.dst = c->ops.back().dst;
  tr.dst_origin = nullptr;
  tr.dst_first = false;
  c->ops.back() = tr;
  c->dirty = true;
  erase_node(k, tr_stmt);
}

class HoistCompute : public Transform {
 public:
  std::string name() const override { return "hoist_compute"; }
  std::string description() const override {
    return "move an instruction that does not depend on an enclosing loop (and the loads feeding it) out of that "
           "loop, into a buffer with one tile per iteration of the inner loops it does use: work repeated per state "
           "or per row tile is done once";
  }

 protected:
  bool visit(Kernel& this_kernel, const SiteSink& sink) const override {
    std::vector<Move> moves;
    std::vector<int> folded;  // per move: the transpose copy folded first (-1: none)
    collect(this_kernel, -1, moves);
    folded.resize(moves.size(), -1);
    // A transpose copied out of PSUM into a region of an SBUF tile moves as the transpose writing
    // that region (tried on a copy with the pair folded; the move folds it again first).
    for (int id : transpose_copies(this_kernel)) {
      Kernel trial = this_kernel;
      fold_transpose_copy(trial, id);
      collect(trial, id, moves);
      folded.resize(moves.size(), id);
    }
    for (size_t i = 0; i < moves.size(); ++i) {
      const Move& m = moves[i];
      Kernel base;
      if (folded[i] >= 0) {
        base = this_kernel;
        fold_transpose_copy(base, folded[i]);
      }
      Kernel& k = folded[i] >= 0 ? base : this_kernel;
      Kernel trial = k;
      auto plan = perform(trial, m);
      if (!plan) continue;
      // Capacity (hoist_expand's rule, on the kernel the move makes): every SBUF tile, the new buffers
      // counted whole, fits a partition of the smallest architecture.
      int64_t total = other_sbuf_bytes(trial, Analysis(trial), -1);
      if (total > sbuf_budget()) continue;
      if (site_for(k, trial, this_kernel, m, *plan, total, folded[i], sink)) return true;
    }
    return false;
  }

 private:
  // The moves of statement `only` (every statement: -1) of `k`.
  static void collect(Kernel& k, int only, std::vector<Move>& moves) {
    Analysis an(k);
    each_stmt(k, [&](Node& n, const std::vector<const Node*>& path) {
      if (only >= 0 && n.id != only) return;
      const Op* x = sole_op(n);
      bool split = false;
      if (!x || !movable_compute(*x)) {
        // The first inner call of a statement whose own operation stays.
        if (n.ops.size() < 2 || is_declaration(n.ops[0]) || !movable_compute(n.ops[0]) || n.ops[0].result < 0 ||
            !k.tensor(n.ops[0].result).name.empty())
          return;
        x = &n.ops[0];
        split = true;
      }
      for (size_t p = 0; p < path.size(); ++p) {
        if (path[p]->kind != NodeKind::Loop) continue;
        const bool innermost = std::none_of(path.begin() + static_cast<long>(p) + 1, path.end(),
                                            [](const Node* q) { return q->kind == NodeKind::Loop; });
        int l = path[p]->loop;
        Move m{n.id, split, path[p]->id, {}, {}};
        for (size_t q = p; q < path.size(); ++q)
          if (path[q]->kind == NodeKind::Loop) m.loops.push_back(path[q]->loop);
        bool ok = true;
        for (const Access* r : reads(*x)) {
          bool fed = false;  // by a load inside the loop: its hoist may drop a block dim over the loop
          for (const OpRef* w : an.writers(k, r->tensor)) {
            if (is_declaration(w->op()) || std::find(w->loops.begin(), w->loops.end(), l) == w->loops.end()) continue;
            const Op* load = sole_op(*w->node);
            ok = ok && load == &w->op() && load->cls == OpClass::Load;
            fed = true;
            if (ok && std::find(m.loads.begin(), m.loads.end(), w->node->id) == m.loads.end())
              m.loads.push_back(w->node->id);
          }
          ok = ok && (fed || !uses_loop(*r, l));
        }
        // Out of the innermost loop with nothing loaded there to take along, `hoist` is the move.
        if (ok && !(innermost && m.loads.empty())) moves.push_back(m);
      }
    });
  }

  // The site of move `m` found on `k` (`this_kernel` with the transpose copy `folded` folded, or
  // itself; `trial`: the kernel the move makes of it); its apply works on `this_kernel`.
  static bool site_for(Kernel& k, const Kernel& trial, Kernel& this_kernel, const Move& m, const ExpandPlan& plan_found,
                       int64_t total, int folded, const SiteSink& sink) {
      const ExpandPlan* plan = &plan_found;
      Analysis now(k);
      const OpRef* anchor = nullptr;
      std::set<const Op*> fewer;
      for (const auto& r : now.ops) {
        if (r.node->id == m.stmt && !is_declaration(r.op()) && !anchor && (m.split ? r.index == 0 : true)) anchor = &r;
        if (std::find(m.loads.begin(), m.loads.end(), r.node->id) != m.loads.end() && !is_declaration(r.op()))
          fewer.insert(&r.op());
      }
      if (!anchor) return false;
      fewer.insert(&anchor->op());
      std::string vars;
      int64_t tiles = 1;
      int left = 0;  // style-independent: the loops it leaves
      for (int l : m.loops) left += std::count(plan->used.begin(), plan->used.end(), l) ? 0 : 1;
      for (int l : plan->used) {
        vars += (vars.empty() ? "" : ", ") + trial.var_name(l);
        tiles *= *trial.loops.at(l).trip();
      }
      const Node* outer = find_node(k, m.outer);
      Site site = make_site(
          k, now, *anchor,
          fmt::format("compute `{}` ({} load(s) feeding it with it) once before `for {}` into a buffer of {} tile(s) "
                      "indexed by [{}] ({} KiB per partition, {} KiB with the other tiles, of {} KiB)",
                      op_kind(anchor->op()), m.loads.size(), k.var_name(outer->loop), tiles, vars, plan->bytes / 1024,
                      total / 1024, sbuf_budget() / 1024),
          {{"out_of", std::to_string(left)},
           {"loads", std::to_string(m.loads.size())}});
      note_relief(k, now, fewer, site);
      Move move = m;
      return sink(site, [&this_kernel, move, folded] {
        if (folded >= 0) fold_transpose_copy(this_kernel, folded);
        if (!perform(this_kernel, move)) throw TransformError("hoist_compute: the move is not legal on this kernel");
      });
  }
};

}  // namespace

std::unique_ptr<Transform> make_hoist_compute() { return std::make_unique<HoistCompute>(); }

}  // namespace loopnest
