// Store sinking with buffer expansion (the dual of hoist_expand): a store inside loop L writing
// one tile per iteration to consecutive blocks of one free dim of its destination
//   for n in range(T): ps = matmul(..); nl.store(out[.., n*E:(n+1)*E], value=nl.copy(ps))
// =>
//   res = ndarray((P, T*E)); for n in range(T): res[:, n*E:(n+1)*E] = nl.copy(ps)
//   nl.store(out[.., 0:T*E], value=res)
// becomes one store of T times the bytes per partition after L. A DMA moves a 2 KiB-per-partition
// transfer at ~0.80 of its full throughput and needs >= 4 KiB to saturate
// (docs/trainium-measurements.md, "Payload rule of thumb", "Throughput vs bytes per partition"):
// fewer, larger stores are faster.
//
// Legal from dependences on the form:
// - L starts at 0, steps by 1, has a constant trip count T and is not a host loop; the store is a
//   statement directly in L's body (no condition between), unmasked, no index operand, no
//   read-modify-write of its destination;
// - its destination indexes one dim by `base + E * n` (base free of n) with a tile axis of size E,
//   stride 1, and no other dim uses n: the T tiles are contiguous along that dim;
// - its source is one SBUF tile V (not a view, not a list element), that axis covering V's whole
//   free dim f (start 0, size E = V's extent there), not the partition dim; V is written and read
//   only inside L, no reader of V before its first writer (nothing carried across iterations, which
//   distinct blocks would change), no access of V uses n but a block dim indexed by n alone (the
//   legacy style's per-iteration buffers; it is dropped), no mask of an op touching V uses n;
// - nothing else inside L reads or writes the HBM tensor where the T tiles go in the same iteration
//   of the loops around L (the store now happens after every iteration of L);
// - the buffer fits: T * (V's tile bytes per partition) beside one tile of every other SBUF tensor
//   within an SBUF partition (hoist_expand's capacity rule, nest_walk.h). No chunked variant.
// Where it pays (not legality): each tile is below the payload that saturates a DMA (4 KiB per
// partition), and L's stores together move more bytes per iteration of L than its other DMA (a K
// loop's loads, or a streaming loop's equal loads, hide the stores' lower efficiency).
// The value may be an inner call of the store (`value=nl.copy(ps)`): it becomes a statement of its
// own writing the buffer, the buffer named after the destination (`out_buf`).
// A loop with several such stores (rows jammed into it) also offers one site (`stores=S`) that
// coalesces all of them, each planned on the kernel the ones before it left.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/dma_payload.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

struct Plan {
  int stmt = -1;       // the store statement's node id
  int loop_node = -1;  // L's node id
  int loop = -1;       // L's loop id
  int value = -1;      // V
  int dim = -1;        // V's free dim f the tiles go along
  int drop = -1;       // V's block dim indexed by n alone (dropped), or -1
  int dst_dim = -1;    // the destination's dim g
  int64_t extent = 0, trip = 0;
  bool inner = false;  // V is the result of the store's inner call
  int64_t bytes = 0, live = 0, budget = 0;
};


bool is_store(const Kernel& k, const Op& op) {
  if (op.cls != OpClass::Store && op.cls != OpClass::DmaCopy) return false;
  if (!op.dst || k.tensor(storage_of(k, op.dst->tensor)).on_chip()) return false;
  auto rd = reads(op);
  return rd.size() == 1 && k.tensor(storage_of(k, rd[0]->tensor)).on_chip();
}

std::optional<Plan> plan_for(Kernel& k, Node& s, const std::vector<const Node*>& path) {
  if (path.empty() || path.back()->kind != NodeKind::Loop) return std::nullopt;
  if (s.ops.empty() || s.ops.size() > 2) return std::nullopt;
  const Op& st = s.ops.back();
  if (!is_store(k, st) || st.has_mask || st.accumulate || has_index_operand(st) || reads_destination(st))
    return std::nullopt;
  Plan p;
  p.stmt = s.id;
  p.loop_node = path.back()->id;
  p.loop = path.back()->loop;
  const Loop& lp = k.loops.at(p.loop);
  if (lp.host_items || !(lp.start == IExpr(0)) || lp.step != 1 || !lp.trip()) return std::nullopt;
  p.trip = *lp.trip();
  if (p.trip < 2) return std::nullopt;
  const int n = p.loop;
  const Access& dst = *st.dst;
  const Access& src = *reads(st)[0];
  p.value = src.tensor;
  const Tensor& v = k.tensor(p.value);
  if (v.memory != Memory::Sbuf || v.role == TensorRole::View || !v.list_name.empty() || v.list_loop >= 0 ||
      (v.role != TensorRole::Value && v.role != TensorRole::Buffer))
    return std::nullopt;
  for (const auto& o : k.tensors)
    if (o.id != v.id && storage_of(k, o.id) == v.id) return std::nullopt;
  // An inner call must be V's producer.
  if (s.ops.size() == 2) {
    if (s.ops[0].result != p.value) return std::nullopt;
    p.inner = true;
  }
  // The destination: one dim `base + E * n` with a stride-1 axis of size E; no other use of n.
  int axis = -1;
  for (size_t d = 0; d < dst.dims.size(); ++d) {
    const DimIndex& di = dst.dims[d];
    for (const auto& t : di.terms)
      if (!t.size.is_constant()) return std::nullopt;
    if (!di.start.uses(n)) continue;
    if (p.dst_dim >= 0 || di.terms.size() != 1) return std::nullopt;
    const AxisTerm& t = di.terms[0];
    if (!t.affine() || t.stride != 1) return std::nullopt;
    int64_t e = t.size.constant();
    if (di.start.coeff(n) != e || (di.start - IExpr::var(n) * e).uses(n)) return std::nullopt;
    p.dst_dim = static_cast<int>(d);
    p.extent = e;
    axis = t.axis;
  }
  if (p.dst_dim < 0) return std::nullopt;
  // The source: V's whole free dim f along that axis; another dim using n only a block dim `n`.
  for (size_t d = 0; d < src.dims.size(); ++d) {
    const DimIndex& di = src.dims[d];
    if (di.terms.empty() && di.start == IExpr::var(n) && static_cast<int>(d) != v.partition_dim) {
      p.drop = static_cast<int>(d);
      continue;
    }
    if (di.start.uses(n)) return std::nullopt;
    for (const auto& t : di.terms) {
      if (!t.size.is_constant()) return std::nullopt;  // (a size using n is no constant)
      if (t.axis != axis) continue;
      if (!t.affine() || t.stride != 1 || !(di.start == IExpr(0)) || t.size.constant() != p.extent ||
          di.terms.size() != 1)
        return std::nullopt;
      p.dim = static_cast<int>(d);
    }
  }
  if (p.dim < 0 || p.dim == v.partition_dim || !v.shape.at(static_cast<size_t>(p.dim)).is_constant() ||
      v.shape[static_cast<size_t>(p.dim)].constant() != p.extent)
    return std::nullopt;
  // V lives within L's iterations; nothing else in L touches where the tiles go.
  Analysis an(k);
  int first_write = -1;
  const OpRef* me = nullptr;
  Ranges ranges = k.ranges();
  int out = storage_of(k, dst.tensor);
  // The store moves to the end of the same iteration of the loops around L: an access inside L
  // matters where it meets the tiles in that iteration of those loops, at any iterations of L (the
  // jammed rows' stores `out[b, 512*mi + 128*r, ...]` of one `mi` are disjoint).
  std::set<int> around;
  for (size_t i = 0; i + 1 < path.size(); ++i)
    if (path[i]->kind == NodeKind::Loop) around.insert(path[i]->loop);
  for (const auto& r : an.ops) {
    if (r.node == &s && &r.op() == &st) me = &r;
    bool in_l = std::find(r.loops.begin(), r.loops.end(), n) != r.loops.end();
    if (is_declaration(r.op())) continue;
    std::vector<const Access*> touched;
    for (const Access* a : reads(r.op())) touched.push_back(a);
    for (const Access* a : writes(r.op())) touched.push_back(a);
    bool writes_v = r.op().result == p.value;
    for (const Access* a : writes(r.op())) writes_v = writes_v || a->tensor == p.value;
    bool touches_v = writes_v;
    for (const Access* a : touched) {
      if (a->tensor == p.value) {
        touches_v = true;
        if (size_uses_loop(*a, n)) return std::nullopt;
        for (size_t d = 0; d < a->dims.size(); ++d) {
          if (static_cast<int>(d) == p.drop) {
            if (!(a->dims[d].terms.empty() && a->dims[d].start == IExpr::var(n))) return std::nullopt;
            continue;
          }
          if (a->dims[d].start.uses(n)) return std::nullopt;
        }
      }
      if (&r.op() != &st && in_l && storage_of(k, a->tensor) == out &&
          may_overlap_within(k, *a, dst, ranges, around))
        return std::nullopt;
    }
    if (!touches_v) continue;
    // Every access of V is rewritten: none inside a helper's body or an inline call of one.
    if (r.node->kind != NodeKind::Stmt || r.node->frozen) return std::nullopt;
    if (!in_l || mask_uses(r.op(), n) || index_operand_uses(r.op(), n)) return std::nullopt;
    if (writes_v && first_write < 0) first_write = r.order;
    if (!writes_v && (first_write < 0 || r.order < first_write)) return std::nullopt;
  }
  if (!me || first_write < 0) return std::nullopt;
  // Pays only where the stores are the loop's main DMA traffic: the loads of a matmul's K loop inside
  // L keep the queues busy and hide the stores' lower efficiency (the bundled transpose_matmul's
  // 21 stores of 2 KiB coalesced: 14.646 -> 14.664 ms), and a streaming loop loading as much as it
  // stores overlaps each store with the next load, which one store at the end undoes (the tutorial
  // silu's 14 stores of 2 KiB: 0.8743 -> 0.8923 ms; docs/performance/builtin_agent.md).
  auto bytes_per_iteration = [&](const OpRef& r) {
    const Access* a = r.op().dst && !k.tensor(storage_of(k, r.op().dst->tensor)).on_chip() ? &*r.op().dst : reads(r.op()).empty() ? nullptr : reads(r.op())[0];
    if (!a) return 0.0;
    double b = static_cast<double>(itemsize_of(k.tensor(a->tensor).dtype));
    for (const auto& d : a->tile_shape()) b *= d.is_constant() ? static_cast<double>(d.constant()) : 1.0;
    auto at = std::find(r.loops.begin(), r.loops.end(), n);
    for (++at; at < r.loops.end(); ++at) b *= static_cast<double>(k.loops.at(*at).trip().value_or(1));
    return b;
  };
  // The loop's stores are weighed together: rows jammed into L store several tiles per iteration,
  // each a site of its own, and the loads are what would hide them all.
  double stored = 0, loaded = 0;
  for (const auto& r : an.ops) {
    if (is_declaration(r.op()) || std::find(r.loops.begin(), r.loops.end(), n) == r.loops.end()) continue;
    OpClass c = r.op().cls;
    if (c != OpClass::Load && c != OpClass::Store && c != OpClass::DmaCopy) continue;
    (is_store(k, r.op()) ? stored : loaded) += bytes_per_iteration(r);
  }
  if (stored <= loaded) return std::nullopt;
  // Capacity: T tiles of V (its free dims; a legacy buffer's block dims are one per iteration).
  int64_t per = itemsize_of(v.dtype);
  size_t from = k.dialect.new_api ? 0 : static_cast<size_t>(v.partition_dim);
  for (size_t d = from; d < v.shape.size(); ++d) {
    if (static_cast<int>(d) == v.partition_dim || static_cast<int>(d) == p.drop) continue;
    if (!v.shape[d].is_constant()) return std::nullopt;
    per *= v.shape[d].constant();
  }
  // A tile already at the payload that saturates a DMA gains nothing from a longer one: the
  // bundled silu's 4 KiB stores coalesced by 7 took 1.0959 -> 1.1075 ms (the last store waits for
  // the whole row).
  if (per >= kSaturatingPayload) return std::nullopt;
  p.bytes = per * p.trip;
  p.live = other_sbuf_bytes(k, an, p.value);
  p.budget = sbuf_budget();
  if (p.bytes + p.live > p.budget) return std::nullopt;
  return p;
}

void reshape(Access& a, const Plan& p, const IExpr& shift, std::optional<int64_t> size) {
  if (p.drop >= 0) a.dims.erase(a.dims.begin() + p.drop);
  DimIndex& di = a.dims.at(static_cast<size_t>(p.dim - (p.drop >= 0 && p.drop < p.dim ? 1 : 0)));
  di.start = di.start + shift;
  if (size)
    for (auto& t : di.terms) t.size = IExpr(*size);
}

void apply_plan(Kernel& k, const Plan& p) {
  size_t at = 0;
  std::vector<Node>* block = parent_block(k.body, p.stmt, at);
  if (!block) throw TransformError("coalesce_stores: the store is gone");
  Tensor& v0 = k.tensor(p.value);
  bool value = v0.role == TensorRole::Value;
  int store_id = p.stmt;
  if (p.inner) {
    // `nl.store(dst, value=nl.copy(ps))`: the copy becomes a statement writing the buffer.
    v0.name = fresh_loop_var(k, k.tensor(storage_of(k, (*block)[at].ops.back().dst->tensor)).name + "_buf");
    split_leading_ops(k, *block, at, 1);
    store_id = (*block)[at + 1].id;
  }
  // Producers writing V as their result now write its whole tile (reshaped below with the rest).
  Access whole = whole_of(k, p.value);
  IExpr shift = IExpr::var(p.loop) * p.extent;
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      if (is_declaration(op)) continue;
      bool touched = false;
      if (op.result == p.value) {
        op.result = -1;
        op.dst = whole;
        op.dst_first = false;
      }
      bool store = n.id == store_id && &op == &n.ops.back();
      if (op.dst && op.dst->tensor == p.value) {
        reshape(*op.dst, p, shift, std::nullopt);
        op.dst_origin = nullptr;
        touched = true;
      }
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == p.value) {
          if (store) reshape(a.value.access, p, IExpr(0), p.extent * p.trip);
          else reshape(a.value.access, p, shift, std::nullopt);
          a.value.origin = nullptr;
          touched = true;
        }
      if (store) {
        DimIndex& g = op.dst->dims.at(static_cast<size_t>(p.dst_dim));
        g.start = g.start.substitute(p.loop, IExpr(0));
        g.terms.at(0).size = IExpr(p.extent * p.trip);
        op.dst_origin = nullptr;
        touched = true;
      }
      if (touched) {
        n.dirty = true;
        n.patch.clear();
      }
    }
  });
  // The tensor: one tile per iteration of L along f, the block dim over L dropped.
  Tensor& v = k.tensor(p.value);
  v.shape.at(static_cast<size_t>(p.dim)) = IExpr(p.extent * p.trip);
  if (p.drop >= 0) {
    v.shape.erase(v.shape.begin() + p.drop);
    if (p.drop < v.partition_dim) --v.partition_dim;
    v.dim_text.clear();
  }
  v.role = TensorRole::Buffer;
  // The grown dim as the author's bound times the tile (`n_size // 512 * 512`) where printable
  // before L, so the declaration keeps the kernel's names.
  std::string bound = printable_bound(k, p.loop, names_local_to(k, *find_node(k, p.loop_node), {}));
  if (!bound.empty()) {
    v.dim_text.assign(v.shape.size(), {});
    size_t f = static_cast<size_t>(p.dim - (p.drop >= 0 && p.drop < p.dim ? 1 : 0));
    if (bound.find_first_of("+-") != std::string::npos) bound = "(" + bound + ")";
    v.dim_text[f] = {v.shape[f], fmt::format("{} * {}", bound, p.extent)};
  }
  bool clash = false;
  for (const auto& o : k.tensors) clash = clash || (o.id != v.id && !v.name.empty() && o.name == v.name);
  if (clash) v.name = fresh_copy_name(k, v.name);
  int around = -1;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
    if (n.id == p.loop_node) around = loops.empty() ? -1 : loops.back();
  });
  // The store moves after L; the declaration before it (one outside L stays where it is).
  Node store = *find_node(k, store_id);
  erase_node(k, store_id);
  std::optional<Node> decl;
  if (value) {
    decl = declaration_node(k, p.value);
    v.scope_loop = around;
  } else {
    int decl_id = -1;
    for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
      for (const auto& op : n.ops)
        if (is_declaration(op) && op.dst && op.dst->tensor == p.value) decl_id = n.id;
    });
    bool inside = false;
    if (decl_id >= 0)
      for_each_node(find_node(k, p.loop_node)->body, [&](const Node& n, const std::vector<int>&) {
        inside = inside || n.id == decl_id;
      });
    if (inside) {
      decl = *find_node(k, decl_id);
      erase_node(k, decl_id);
      v.scope_loop = around;
    }
  }
  size_t lat = 0;
  std::vector<Node>* lblock = parent_block(k.body, p.loop_node, lat);
  lblock->insert(lblock->begin() + static_cast<long>(lat) + 1, std::move(store));
  if (decl) lblock->insert(lblock->begin() + static_cast<long>(lat), std::move(*decl));
  redeclare(k, {p.value});
}

// The store `stmt` planned on the kernel as it is now (nullopt: it no longer coalesces).
std::optional<Plan> replan(Kernel& k, int stmt) {
  std::optional<Plan> out;
  each_stmt(k, [&](Node& n, const std::vector<const Node*>& path) {
    if (n.id == stmt && !out) out = plan_for(k, n, path);
  });
  return out;
}

// Several stores of one loop coalesced in one move, each planned on the kernel the ones before it
// left (legality per store, as for one; the buffers already made count in the capacity rule).
void apply_all(Kernel& k, const std::vector<int>& stmts) {
  for (int stmt : stmts) {
    std::optional<Plan> p = replan(k, stmt);
    if (!p) throw TransformError("coalesce_stores: a store of the loop no longer coalesces after the others");
    apply_plan(k, *p);
  }
}

class CoalesceStores : public Transform {
 public:
  std::string name() const override { return "coalesce_stores"; }
  std::string description() const override {
    return "assemble the tiles a loop stores to consecutive blocks of one free dim in an SBUF buffer and store it "
           "once after the loop: fewer, larger DMA transfers";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<Plan> plans;
    each_stmt(k, [&](Node& n, const std::vector<const Node*>& path) {
      if (auto p = plan_for(k, n, path)) plans.push_back(*p);
    });
    for (const Plan& p : plans) {
      Analysis an(k);
      const OpRef* anchor = nullptr;
      for (const auto& r : an.ops)
        if (r.node->id == p.stmt && &r.op() == &r.node->ops.back()) anchor = &r;
      if (!anchor) continue;
      const Tensor& out = k.tensor(storage_of(k, anchor->op().dst->tensor));
      Site site = make_site(
          k, an, *anchor,
          fmt::format("store to `{}` once after `for {}`: {} tiles of {} assembled in an SBUF buffer ({} KiB per "
                      "partition, {} KiB with the other tiles, of {} KiB)",
                      out.name.empty() ? "?" : out.name, k.var_name(p.loop), p.trip, p.extent, p.bytes / 1024,
                      (p.bytes + p.live) / 1024, p.budget / 1024),
          {{"tiles", std::to_string(p.trip)}});
      note_relief(k, an, {&anchor->op()}, site);
      Plan plan = p;
      if (sink(site, [&k, plan] { apply_plan(k, plan); })) return true;
    }
    // A loop storing several tiles per iteration (rows jammed into it): one more site that coalesces
    // all of them, so that one evaluation carries the whole gain (each store alone moves only its
    // share of the loop's stores). Offered when every store still coalesces after the others.
    std::map<int, std::vector<const Plan*>> per_loop;
    for (const Plan& p : plans) per_loop[p.loop_node].push_back(&p);
    for (const auto& [loop_node, group] : per_loop) {
      if (group.size() < 2) continue;
      std::vector<int> stmts;
      for (const Plan* p : group) stmts.push_back(p->stmt);
      try {
        Kernel trial = k;
        apply_all(trial, stmts);
      } catch (const TransformError&) {
        continue;
      }
      Analysis an(k);
      const OpRef* anchor = nullptr;
      std::set<const Op*> stores;
      for (const auto& r : an.ops)
        for (int stmt : stmts)
          if (r.node->id == stmt && &r.op() == &r.node->ops.back()) {
            if (!anchor) anchor = &r;
            stores.insert(&r.op());
          }
      if (!anchor || stores.size() != stmts.size()) continue;
      const Plan& first = *group.front();
      const Tensor& out = k.tensor(storage_of(k, anchor->op().dst->tensor));
      Site site = make_site(k, an, *anchor,
                            fmt::format("store to `{}` once after `for {}` for each of its {} stores: {} tiles of {} "
                                        "each assembled in an SBUF buffer",
                                        out.name.empty() ? "?" : out.name, k.var_name(first.loop), stmts.size(),
                                        first.trip, first.extent),
                            {{"tiles", std::to_string(first.trip)}, {"stores", std::to_string(stmts.size())}});
      note_relief(k, an, stores, site);
      if (sink(site, [&k, stmts] { apply_all(k, stmts); })) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_coalesce_stores() { return std::make_unique<CoalesceStores>(); }

}  // namespace loopnest
