// Hoisting a load out of an enclosing loop it does not depend on, with array expansion:
//   for m: ...; for n: for k: wt = load(w[k, :, n-block]); acc += matmul(xT[k], wt)
// =>
//   wt = ndarray((N, K, P, F)); for n: for k: wt[n, k] = load(w[k, :, n-block])
//   for m: ...; for n: for k: acc += matmul(xT[k], wt[n, k])
// The weight is read from HBM once instead of once per row tile. `hoist` (hoist.cpp) moves only
// what is invariant in its immediately enclosing loop; here the load sits below loops whose
// variables it uses (n, k) inside one whose variable it does not use (m): it moves before that loop
// into a buffer with one block per iteration of the loops it uses (a copy of those loops fills it),
// and its readers read their block.
//
// Legal from dependences on the form: the load is the only writer of its tile (no view aliases it),
// every reader of the tile lies inside every loop the load uses and after it (so the block index
// is in scope and holds this iteration's tile), nothing writes the HBM tensor it reads inside a loop
// it leaves (a scratch an earlier nest filled may be read),
// no index operand, no condition between the loop and the load, a mask only of the loops it uses
// (the fill loads what the load loaded), constant trip counts starting at 0 of the loops it uses. A
// block dim the tile already has over a loop it leaves (the legacy style's buffers indexed by every
// enclosing loop) is dropped: every access indexes it by that loop.
//
// Capacity: the expanded buffer plus one tile of every other SBUF tensor must fit an SBUF partition
// (trn::ArchConfig::sbuf_bytes_per_partition, trn1 = the smaller). When it does not, the first loop
// the load uses (`for n`, directly in the loop it leaves) is cut into chunks of C iterations, C the
// largest divisor of its trip whose buffer fits, and the chunk loop goes around the loop it leaves:
//   for n_blk: wt = ndarray((C, K, P, F)); for n_in: n = n_blk * C + n_in; for k: wt[n_in, k] = load(..)
//              for m: ...; for n_in: n = n_blk * C + n_in; (body as written, reading wt[n_in, k])
// (C = 1: `for n` itself goes around `for m`). The weight is then read once per chunk instead of
// once per row tile, and what `for m` does outside `for n` runs once per chunk: legal when both
// loops are affine (their iterations independent, so any order of (m, n) pairs computes the same)
// and that part writes only on-chip tensors that live within one iteration of `for m`.
//
// Printing keeps the author's names: the fill loops' headers and the buffer's block dims are the
// bounds as written (`for n in nl.affine_range(N // NB)`, `nl.ndarray((N // NB, KT, ...))`), the
// chunk loop `(N // NB) // C`.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/scope_text.h"
#include "loopnest/hoist_expand.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool loop_dim(const DimIndex& d, int l) { return d.terms.empty() && d.start == IExpr::var(l); }

using Plan = ExpandPlan;

// Whether a comprehension computing tiles (an Inline node of kComprehensionHelper, printed as
// written) touches storage `t`: its text names the tile as the author wrote it (often through a
// helper's views), so a tile it reads cannot become a slot of a bigger buffer.
bool touched_by_comprehension(const Kernel& k, const std::vector<Node>& body, int t, bool inside = false) {
  for (const Node& n : body) {
    bool here = inside || (n.kind == NodeKind::Inline && n.helper.find(kComprehensionHelper) != std::string::npos);
    if (here)
      for (const Op& op : n.ops) {
        for (const Access* a : reads(op))
          if (storage_of(k, a->tensor) == t) return true;
        if (op.dst && storage_of(k, op.dst->tensor) == t) return true;
      }
    if (touched_by_comprehension(k, n.body, t, here) || touched_by_comprehension(k, n.orelse, t, here)) return true;
  }
  return false;
}

}  // namespace

// Pure on-chip computations whose only effect is the tile they write. A matmul (PSUM, an
// accumulation group), a scan (hoist.cpp's `pure` leaves it too) and anything opaque stay. A
// transpose writing a tile whole or a block of one (`kT[:, t*128:(t+1)*128] = nl.transpose(kt)`,
// a key block built per query block of an attention kernel) moves: its tile is the expansion's,
// which is SBUF only (plans_for), so no PSUM tile is ever expanded.
bool movable_compute(const Op& op) {
  if (op.accumulate || op.has_mask || has_index_operand(op)) return false;
  switch (op.cls) {
    case OpClass::Elementwise: case OpClass::Activation: case OpClass::Copy: case OpClass::Broadcast:
    case OpClass::Reduce: case OpClass::Transpose:
      return true;
    default:
      return false;
  }
}

namespace {

class HoistExpand : public Transform {
 public:
  std::string name() const override { return "hoist_expand"; }
  std::string description() const override {
    return "move a load out of an enclosing loop whose variable it does not use, into a buffer with one tile per "
           "iteration of the inner loops it does use (filled before the loop): a weight re-read from HBM once per "
           "row tile is read once";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<Plan> plans;
    each_stmt(k, [&](Node& n, const std::vector<const Node*>& path) {
      for (auto& p : plans_for(k, n, path)) plans.push_back(p);
    });
    for (const Plan& p : plans) {
      Analysis an(k);
      const OpRef* anchor = nullptr;
      for (const auto& r : an.ops)
        if (r.node->id == p.stmt && !is_declaration(r.op())) anchor = &r;
      if (!anchor) continue;
      const Node* outer = find_node(k, p.outer);
      std::string vars;
      int64_t tiles = 1;
      for (int l : p.used) {
        vars += (vars.empty() ? "" : ", ") + k.var_name(l);
        tiles *= *k.loops.at(l).trip();
      }
      const Tensor& t = k.tensor(p.tensor);
      std::map<std::string, std::string> params = {{"out_of", std::to_string(loops_left(k, p.stmt, p.outer, p.used))}};
      std::string how = fmt::format("once before `for {}`", k.var_name(outer->loop));
      if (p.chunk > 0) {
        params["chunk"] = std::to_string(p.chunk);
        tiles = tiles / *k.loops.at(p.used[0]).trip() * p.chunk;
        how = fmt::format("before `for {}` once per chunk of {} iteration(s) of `for {}` (that loop cut around it)",
                          k.var_name(outer->loop), p.chunk, k.var_name(p.used[0]));
      }
      Site site = make_site(k, an, *anchor,
                            fmt::format("load `{}` {} into a buffer of {} tile(s) indexed by [{}] "
                                        "({} KiB per partition, {} KiB with the other tiles, of {} KiB)",
                                        t.name.empty() ? "?" : t.name, how, tiles, vars, p.bytes / 1024,
                                        (p.bytes + p.live) / 1024, p.budget / 1024),
                            params);
      note_relief(k, an, {&anchor->op()}, site);
      Plan plan = p;
      if (sink(site, [&k, plan] { apply(k, plan); })) return true;
    }
    return false;
  }

 private:
  friend std::vector<ExpandPlan> loopnest::expand_plans(Kernel&, Node&, const std::vector<const Node*>&, bool);
  friend void loopnest::apply_expand(Kernel&, const ExpandPlan&);

  // `copied`: names a binding copied with the fill binds (cut_into_chunks), printable there.
  // `compute`: the statement is an on-chip instruction (hoist_compute) rather than a load; its
  // operands then must not be written inside the loop it leaves (checked per loop below).
  // `innermost`: also out of the loop right around it (plain hoisting, no block dim; hoist_compute
  // takes the loads feeding an instruction out of that loop with it).
  static std::vector<Plan> plans_for(Kernel& k, Node& s, const std::vector<const Node*>& path,
                                     const std::set<std::string>& copied = {}, bool compute = false,
                                     bool innermost = false) {
    std::vector<Plan> out;
    const Op* load = sole_op(s);
    if (!load || load->accumulate || has_index_operand(*load)) return out;
    if (compute ? !movable_compute(*load) : load->cls != OpClass::Load) return out;
    auto rd = reads(*load);
    if (rd.empty() || (!compute && rd.size() != 1)) return out;
    std::set<int> sources;  // what it reads: the HBM tensor of a load, the on-chip tensors of compute
    for (const Access* r : rd) {
      if (k.tensor(storage_of(k, r->tensor)).on_chip() != compute) return out;
      sources.insert(storage_of(k, r->tensor));
    }
    // Whether it uses loop `l` (any operand; a destination indexed by a loop is plan_tensor's).
    auto uses = [&](int l) {
      for (const Access* r : rd)
        if (uses_loop(*r, l)) return true;
      return false;
    };
    int t = -1;
    if (load->result >= 0) {
      t = load->result;
    } else {
      auto wr = writes(*load);
      if (wr.size() != 1) return out;
      t = wr[0]->tensor;
    }
    const Tensor& tt = k.tensor(t);
    if (tt.memory != Memory::Sbuf || tt.role == TensorRole::View || !tt.list_name.empty() || tt.list_loop >= 0)
      return out;
    if (touched_by_comprehension(k, k.body, t)) return out;
    for (const auto& other : k.tensors)
      if (other.id != t && storage_of(k, other.id) == t) return out;
    // Nothing writes what it reads inside a loop it leaves (an HBM scratch the kernel filled in an
    // earlier nest is read-only in this one: the fill stays before the hoisted load); nothing but it
    // (and a declaration) writes its tile.
    Analysis an(k);
    const OpRef* me = nullptr;
    std::set<int> written_in;  // loops around a writer of what it reads (it may change there)
    for (const auto& r : an.ops) {
      if (r.node == &s && &r.op() == load) me = &r;
      for (const Access* w : writes(r.op())) {
        if (sources.count(storage_of(k, w->tensor))) written_in.insert(r.loops.begin(), r.loops.end());
        if (storage_of(k, w->tensor) == t && &r.op() != load && !is_declaration(r.op())) return out;
      }
    }
    if (!me) return out;
    for (const Access* r : rd)
      for (const auto& term : r->dims)
        for (const auto& x : term.terms)
          if (!x.size.is_constant()) return out;  // a loop-dependent partial tile
    // Each enclosing loop it does not use (with at least one loop inside it around the load, unless
    // `innermost`).
    std::vector<int> loops;
    for (const Node* p : path) loops.push_back(p->kind == NodeKind::Loop ? p->loop : -1);
    for (size_t p = 0; p + (innermost ? 0 : 1) < path.size(); ++p) {
      if (path[p]->kind != NodeKind::Loop) continue;
      int m = path[p]->loop;
      if (uses(m) || written_in.count(m)) continue;
      Plan plan;
      plan.stmt = s.id;
      plan.outer = path[p]->id;
      plan.tensor = t;
      bool ok = true;
      std::set<int> leaves = {m};
      for (size_t q = p + 1; q < path.size() && ok; ++q) {
        if (path[q]->kind != NodeKind::Loop) {
          ok = false;  // a condition between: the load would run where it did not
          break;
        }
        int l = path[q]->loop;
        if (!uses(l)) {
          leaves.insert(l);
          continue;
        }
        const Loop& lp = k.loops.at(l);
        ok = lp.start == IExpr(0) && lp.step == 1 && lp.trip().has_value();
        plan.used.push_back(l);
      }
      if (!ok) continue;
      // A mask of the loops it leaves would change per iteration of them; one printed as written must
      // name nothing bound inside the loop it leaves but the loops it uses.
      if (load->has_mask) {
        for (int l : leaves) ok = ok && !mask_uses(*load, l);
        std::set<std::string> names;
        if (const Arg* m = load->arg("mask"); m && m->value.origin) names_of(*m->value.origin, names);
        std::set<std::string> local = names_local_to(k, *path[p], plan.used);
        for (const auto& c : copied) local.erase(c);
        ok = ok && !reads_any(names, local);
        if (!ok) continue;
      }
      if (!plan_tensor(k, an, *me, plan, leaves)) continue;
      // An instruction's buffer is judged by hoist_compute on the kernel it makes (the buffers of the
      // loads it moves first contract when only it reads them).
      if (compute || plan.bytes + plan.live <= plan.budget) {
        out.push_back(plan);
      } else if (auto chunked = chunk_plan(k, path, p, plan)) {
        out.push_back(*chunked);
      }
    }
    return out;
  }

  // The partial hoist when the whole buffer does not fit: the first loop the load uses, directly in
  // the loop it leaves, cut into the largest chunks whose buffer fits (see the top of the file).
  static std::optional<Plan> chunk_plan(Kernel& k, const std::vector<const Node*>& path, size_t p, const Plan& plan) {
    if (plan.used.empty() || p + 1 >= path.size()) return std::nullopt;
    const Node& m = *path[p];
    const Node& n = *path[p + 1];
    if (n.kind != NodeKind::Loop || n.loop != plan.used[0]) return std::nullopt;
    // Directly in `m` (not under a transparent block between them): the cut moves `n`'s body in `m`.
    if (std::none_of(m.body.begin(), m.body.end(), [&](const Node& x) { return x.id == n.id; })) return std::nullopt;
    if (std::find(plan.added.begin(), plan.added.end(), n.loop) == plan.added.end()) return std::nullopt;
    const Loop& ln = k.loops.at(n.loop);
    if (!independent_iterations(k, m.loop) || !independent_iterations(k, n.loop)) return std::nullopt;
    int64_t trip = *ln.trip(), per = plan.bytes / trip;
    int64_t chunk = 0;
    for (int64_t c = trip - 1; c >= 1 && !chunk; --c)
      if (trip % c == 0 && c * per + plan.live <= plan.budget) chunk = c;
    if (!chunk || !replayable(k, m, n) || !reads_less(k, m, n, plan.stmt, trip / chunk)) return std::nullopt;
    Plan q = plan;
    q.chunk = chunk;
    q.bytes = chunk * per;
    return q;
  }

  // Whether the cut nest reads less from HBM: the load once in all instead of once per iteration of
  // `m`, but what `m` loads besides `n` once per chunk (a weight that `m` loads for its rows
  // would be re-read per chunk: cutting then costs more than it saves).
  static bool reads_less(Kernel& k, const Node& m, const Node& n, int stmt, int64_t chunks) {
    std::set<int> inner = loops_within(m), in_n = loops_within(n);
    inner.erase(m.loop);
    Analysis an(k);
    double load = 0, rest = 0;  // bytes per iteration of `m`
    for (const auto& r : an.ops) {
      if (r.op().cls != OpClass::Load || std::find(r.loops.begin(), r.loops.end(), m.loop) == r.loops.end()) continue;
      auto rd = reads(r.op());
      if (rd.empty()) continue;
      double bytes = access_bytes(k, *rd[0]);
      bool under_n = false;
      for (int l : r.loops) {
        if (inner.count(l)) bytes *= static_cast<double>(k.loops.at(l).trip().value_or(1));
        under_n = under_n || in_n.count(l);
      }
      if (r.node->id == stmt) load += bytes;
      else if (!under_n) rest += bytes;
    }
    double rows = static_cast<double>(*k.loops.at(m.loop).trip());
    return load + static_cast<double>(chunks) * rows * rest < rows * load + rows * rest;
  }

  // What `m` does besides `n` may run once per chunk: it writes only on-chip tensors that live
  // within one iteration of `m` (nothing another iteration or the rest of the kernel reads). A
  // loop of loads there (a weight block `m` keeps for its iteration, hoisted out of `n` already)
  // is re-filled once per chunk: reads_less weighs that against the load read once (an lhs
  // re-read per column block against the column blocks re-read per chunk of rows).
  static bool replayable(const Kernel& k, const Node& m, const Node& n) {
    std::set<int> inside = loops_within(m);
    bool ok = true;
    for (const auto& x : m.body) {
      if (&x == &n) continue;
      std::vector<Node> one = {x};
      for_each_node(one, [&](const Node& y, const std::vector<int>&) {
        for (const auto& op : y.ops)
          for (const Access* w : writes(op)) {
            const Tensor& t = k.tensor(storage_of(k, w->tensor));
            ok = ok && t.on_chip() && inside.count(t.scope_loop);
          }
      });
    }
    return ok;
  }

  // Whether the loop `l` writes dim `d` of tile `t` in contiguous blocks that cover it (`kT[:, t *
  // 128:(t + 1) * 128]` over `for t in range(4)` of a (D, 512) tile): the loop fills the tile along
  // that dim, as a block dim over it would, and the buffer needs no new dim for it.
  static bool walks_dim(const Kernel& k, const Tensor& t, size_t d, const DimIndex& di, int l) {
    if (di.terms.size() != 1 || di.terms[0].stride != 1 || !di.terms[0].affine() || !di.terms[0].size.is_constant()) return false;
    const int64_t c = di.terms[0].size.constant();
    auto trip = k.loops.at(l).trip();
    return trip && di.start == IExpr::var(l) * c && t.shape[d] == IExpr(*trip * c);
  }

  // Which dims of the tile to drop and which loops get a new dim; readers in scope; the buffer's
  // bytes per partition and those of the other tiles (the caller judges the capacity).
  static bool plan_tensor(Kernel& k, const Analysis& an, const OpRef& me, Plan& plan, const std::set<int>& leaves) {
    const Tensor& t = k.tensor(plan.tensor);
    const Op& load = me.op();
    std::vector<std::pair<const OpRef*, const Access*>> accesses;  // every non-declaration access
    for (const auto& r : an.ops) {
      if (is_declaration(r.op())) continue;
      for (const Access* a : reads(r.op()))
        if (a->tensor == plan.tensor) accesses.push_back({&r, a});
      for (const Access* a : writes(r.op()))
        if (a->tensor == plan.tensor) accesses.push_back({&r, a});
    }
    std::set<int> reused;
    if (load.result < 0) {
      const Access& w = *load.dst;
      for (size_t d = 0; d < w.dims.size(); ++d) {
        if (static_cast<int>(d) == t.partition_dim) continue;
        const DimIndex& di = w.dims[d];
        bool by_used = false;
        for (int l : plan.used) by_used = by_used || di.start.uses(l);
        bool by_left = false;
        for (int l : leaves) by_left = by_left || di.start.uses(l);
        if (by_used) {
          int which = -1;
          for (int l : plan.used)
            if (loop_dim(di, l) || walks_dim(k, t, d, di, l)) which = l;
          if (which < 0 || reused.count(which)) return false;
          reused.insert(which);
        } else if (by_left) {
          int which = -1;
          for (int l : leaves)
            if (loop_dim(di, l)) which = l;
          if (which < 0) return false;
          for (const auto& [r, a] : accesses)
            if (a->dims.size() != w.dims.size() || !loop_dim(a->dims[d], which)) return false;
          plan.dropped.push_back(static_cast<int>(d));
        }
      }
    }
    for (int l : plan.used)
      if (!reused.count(l)) plan.added.push_back(l);
    if (!plan.added.empty())
      for (const auto& [r, a] : accesses) {
        if (&r->op() == &load) continue;
        for (int l : plan.added)
          if (std::find(r->loops.begin(), r->loops.end(), l) == r->loops.end()) return false;
        if (r->order < me.order) return false;
      }
    std::set<int> drop(plan.dropped.begin(), plan.dropped.end());
    // The buffer keeps a free dim after its partition dim: a declared SBUF tensor needs one (the
    // interpreter refuses `(4, 2, par_dim(128))`), which a 1-D tile (`x[i, 0:128]`) has not.
    if (!k.dialect.new_api) {
      bool free_dim = false;
      for (size_t d = static_cast<size_t>(t.partition_dim) + 1; d < t.shape.size(); ++d)
        free_dim = free_dim || !drop.count(static_cast<int>(d));
      if (!free_dim) return false;
    }
    // Capacity: the expanded buffer (every dim but the partition dim) beside one tile of every other
    // SBUF tensor.
    int64_t per = itemsize_of(t.dtype);
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (static_cast<int>(d) == t.partition_dim || drop.count(static_cast<int>(d))) continue;
      if (!t.shape[d].is_constant()) return false;
      per *= t.shape[d].constant();
    }
    for (int l : plan.added) per *= *k.loops.at(l).trip();
    int64_t live = other_sbuf_bytes(k, an, plan.tensor);
    plan.bytes = per;
    plan.live = live;
    plan.budget = sbuf_budget();
    return true;
  }

  static void apply(Kernel& k, const Plan& p) { apply_whole(k, p.chunk > 0 ? cut_into_chunks(k, p) : p); }

  // Cuts the first loop the load uses into chunks around the loop it leaves (top of the file) and
  // returns the plan of the whole hoist out of that loop, which now fits.
  static Plan cut_into_chunks(Kernel& k, const Plan& p) {
    Node* m = find_node(k, p.outer);
    int n_loop = p.used[0];
    auto at = std::find_if(m->body.begin(), m->body.end(),
                           [&](const Node& x) { return x.kind == NodeKind::Loop && x.loop == n_loop; });
    if (at == m->body.end()) throw TransformError("hoist_expand: the chunked loop is not in the loop it leaves");
    Loop ln = k.loops.at(n_loop);
    int64_t trip = *ln.trip();
    int binding = -1;
    Node around;  // the loop that goes around `m`
    around.kind = NodeKind::Loop;
    if (p.chunk == 1) {
      // `for n` itself goes around `m`; its body takes its place in `m`.
      Node n = std::move(*at);
      at = m->body.erase(at);
      for (auto& x : n.body) at = m->body.insert(at, std::move(x)) + 1;
      n.body.clear();
      around = std::move(n);
      for (auto& t : k.tensors)
        if (t.scope_loop == n_loop) t.scope_loop = m->loop;
    } else {
      Loop outer = ln, inner = ln;
      outer.var = fresh_loop_var(k, ln.var + "_blk");
      outer.stop = IExpr(trip / p.chunk);
      int nc = add_loop(k, outer);
      inner.var = fresh_loop_var(k, ln.var + "_in");
      inner.stop = IExpr(p.chunk);
      int ni = add_loop(k, inner);
      substitute_nodes(k, at->body, n_loop, IExpr::var(nc) * p.chunk + IExpr::var(ni));
      for (auto& t : k.tensors)
        if (t.scope_loop == n_loop) t.scope_loop = ni;
      Node bind = split_index_binding(k, ln.var, outer.var, fmt::format("{}", p.chunk), inner.var);
      binding = bind.id;
      at->body.insert(at->body.begin(), std::move(bind));
      around.id = k.next_node++;
      around.loop = nc;
      around.dirty = true;
      if (!text_outside_kernel(k, *at) && !reads_any(bound_names(*at), names_local_to(k, *m, {}))) around.patch = authored_header(*at, outer.var, p.chunk);
      at->loop = ni;
      at->dirty = true;
      at->patch.clear();
      k.loops.erase(n_loop);
    }
    size_t pos = 0;
    std::vector<Node>* block = parent_block(k.body, p.outer, pos);
    around.body.push_back(std::move((*block)[pos]));
    (*block)[pos] = std::move(around);
    // The whole hoist out of `m`, planned again on the cut nest.
    std::optional<Plan> whole;
    each_stmt(k, [&](Node& n, const std::vector<const Node*>& path) {
      if (n.id != p.stmt) return;
      for (auto& q : plans_for(k, n, path, {ln.var}))
        if (q.outer == p.outer && q.chunk == 0) whole = q;
    });
    if (!whole) throw TransformError("hoist_expand: the chunked buffer does not fit after all");
    whole->binding = binding;
    return *whole;
  }

  static void apply_whole(Kernel& k, const Plan& p) {
    Tensor& t = k.tensor(p.tensor);
    int old_partition = t.partition_dim;
    int pd = old_partition;
    for (int d : p.dropped) pd -= d < old_partition ? 1 : 0;
    // New dims: before the partition dim (block dims), or after it in the newer API, whose tiles
    // put the partition dim first.
    size_t pos = static_cast<size_t>(k.dialect.new_api ? pd + 1 : pd);
    auto reshape = [&](std::vector<DimIndex>& dims) {
      for (auto it = p.dropped.rbegin(); it != p.dropped.rend(); ++it) dims.erase(dims.begin() + *it);
      std::vector<DimIndex> ins;
      for (int l : p.added) ins.push_back(DimIndex{IExpr::var(l), {}});
      dims.insert(dims.begin() + static_cast<long>(pos), ins.begin(), ins.end());
    };
    // The load becomes a write of its block of the buffer.
    Node* s = find_node(k, p.stmt);
    Op* load = nullptr;
    for (auto& op : s->ops)
      if (!is_declaration(op)) load = &op;
    bool value = load->result >= 0;
    if (value) {
      load->result = -1;
      load->dst = whole_of(k, p.tensor);
      load->dst_first = false;
    }
    // Every access of the tile.
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      for (auto& op : n.ops) {
        if (is_declaration(op)) continue;
        bool touched = false;
        if (op.dst && op.dst->tensor == p.tensor) {
          reshape(op.dst->dims);
          op.dst_origin = nullptr;
          touched = true;
        }
        for (auto& a : op.args)
          if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == p.tensor) {
            reshape(a.value.access.dims);
            a.value.origin = nullptr;
            touched = true;
          }
        if (touched) n.dirty = true;
      }
    });
    // The tensor: dims dropped, one per added loop, declared before the loop it leaves.
    for (auto it = p.dropped.rbegin(); it != p.dropped.rend(); ++it) t.shape.erase(t.shape.begin() + *it);
    t.partition_dim = pd;
    std::vector<IExpr> trips;
    for (int l : p.added) trips.push_back(IExpr(*k.loops.at(l).trip()));
    t.shape.insert(t.shape.begin() + static_cast<long>(pos), trips.begin(), trips.end());
    if (!k.dialect.new_api) t.partition_dim += static_cast<int>(trips.size());
    t.role = TensorRole::Buffer;
    // The buffer now lives across the loop: a name another tile of the kernel also takes
    // (`rhs_tile` of a tail loop) would be rebound inside the loop before a read. Every access of
    // the buffer is printed from the form, so a fresh name (`rhs_tile_2`) reaches them all.
    bool clash = false;
    for (const auto& o : k.tensors) clash = clash || (o.id != t.id && !t.name.empty() && o.name == t.name);
    if (clash) t.name = fresh_copy_name(k, t.name);
    int around = -1;
    for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
      if (n.id == p.outer) around = loops.empty() ? -1 : loops.back();
    });
    int declared_scope = t.scope_loop;  // where a declaration that stays put (below) keeps it
    t.scope_loop = around;
    // The statement moves into copies of the loops it uses; the declaration before them. The
    // loaded region keeps the author's text (`w[k, :, nl.ds(n * NB, NB)]`) unless it names something
    // bound inside the loop it leaves (a loop-local offset), which is not bound where it goes; so do
    // the copies' headers (`for k in nl.affine_range(KT)`). A binding heading the first loop's body
    // (`n = n_blk * C + n_in` of a chunked loop) is copied with it.
    std::set<std::string> local = names_local_to(k, *find_node(k, p.outer), p.used);
    // Out of decided guards (nest_walk.h): the fill, with a declaration moving with it, printed under
    // copies of their conditions, and the guards' bindings its text names copied before it where
    // they read nothing bound in the loop (`start = full_chunks * 512` under `if tail > 0:`), so the
    // text keeps naming them rather than their traced values.
    std::vector<Node> guards, bound;
    {
      const Node& outer = *find_node(k, p.outer);
      std::vector<const Node*> blocks = blocks_between(outer, p.stmt);
      const std::set<std::string> in_loop = names_local_to(k, outer, {});
      guards = guard_copies(k, blocks, in_loop);
      bound = named_guard_bindings(k, blocks, *s, in_loop);
      for (const Node& b : bound)
        for (const auto& n : b.binds) local.erase(n);
    }
    std::optional<Node> binding;
    if (p.binding >= 0) {
      binding = *find_node(k, p.binding);
      binding->id = k.next_node++;
      for (const auto& b : binding->binds) local.erase(b);
    }
    // The buffer's new dims as their loops' authored bounds (`N // NB`, `KT`) where they are printable.
    std::vector<std::pair<IExpr, std::string>> dim_text(t.shape.size());
    for (size_t d = 0; d < p.added.size(); ++d)
      if (auto text = printable_bound(k, p.added[d], local); !text.empty()) dim_text[pos + d] = {t.shape[pos + d], text};
    t.dim_text = dim_text;
    Node moved = *s;
    erase_node(k, p.stmt);
    forget_local_text(moved.ops, local);
    moved.dirty = true;
    Node fill = in_loop_copies(k, std::move(moved), p.used, local, binding);
    std::optional<Node> decl;
    if (value) {
      decl = declaration_node(k, p.tensor);
    } else {
      // A declaration inside the loop it leaves moves before it; one outside stays where it is.
      int decl_id = -1;
      bool inside = false;
      for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
        for (const auto& op : n.ops)
          if (is_declaration(op) && op.dst && op.dst->tensor == p.tensor) decl_id = n.id;
      });
      if (decl_id >= 0)
        for_each_node(find_node(k, p.outer)->body, [&](const Node& n, const std::vector<int>&) {
          inside = inside || n.id == decl_id;
        });
      if (inside) {
        decl = *find_node(k, decl_id);
        erase_node(k, decl_id);
      } else if (decl_id >= 0) {
        t.scope_loop = declared_scope;  // a buffer declared outside the loop it leaves (the legacy style's, at the top)
      }
    }
    std::vector<Node> placed = std::move(bound);
    if (decl) placed.push_back(std::move(*decl));
    placed.push_back(std::move(fill));
    placed = under_copies(std::move(placed), std::move(guards));
    size_t at = 0;
    std::vector<Node>* block = parent_block(k.body, p.outer, at);
    insert_merged(*block, at, std::move(placed));
    redeclare(k, {p.tensor});
  }
};

}  // namespace

std::vector<ExpandPlan> expand_plans(Kernel& k, Node& s, const std::vector<const Node*>& path, bool compute) {
  return HoistExpand::plans_for(k, s, path, {}, compute, true);
}

void apply_expand(Kernel& k, const ExpandPlan& p) { HoistExpand::apply(k, p); }

std::unique_ptr<Transform> make_hoist_expand() { return std::make_unique<HoistExpand>(); }

}  // namespace loopnest
