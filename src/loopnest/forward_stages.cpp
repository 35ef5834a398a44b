// Stage forwarding on the form: a kernel ported op by op from eager mode runs one pass per stage,
// each staging its result through a private HBM scratch tensor S that the later passes load again
// (softmax: scores, then a row max pass, an exp pass reading the scores and the max, a row sum pass,
// a divide pass). forward_scratch fuses a store with its one load when both walk S with the same
// loops; here S may be loaded by several later passes, and each of them may walk S's tiles in a
// loop of its own that cannot be fused with the store's (a sequential row reduction, or a pass that
// needs a whole-row statistic the previous pass makes first). The passes are fused down to the
// loops they share (the row tile's), and the store's inner loop keeps its tiles on chip, one block
// per inner iteration (`s_tile[n] = nl.copy(ps)`), which the later passes read at their own
// inner iteration (`nl.max(s_tile[n], ...)`). When the store and its loads share every loop the
// tile is forwarded to each load as forward_scratch does (a softmax's scores read by its exp-and-sum
// pass and again by its normalising pass, all per row tile).
//
// Legality from dependences on the form, whatever the style:
//   - S is private (role scratch, not returned, no view), has one writer, an unmasked store of a
//     whole on-chip tile V, and one or more readers, each an unmasked load of a whole tile into a
//     tile T nothing else writes, later in program order;
//   - the store and every load sit at the same depth; the loops above the store's innermost one
//     have, level by level, the same kind and range in every load's nest (they are fused), and the
//     innermost loops the same range (start 0, step 1; kinds may differ: a sequential reduction);
//   - with every load's loop variables renamed to the store's, the loaded region is the stored one,
//     and distinct iterations of the store's loops store disjoint regions (each loop variable in
//     one dim of the index, the dims' terms in mixed radix: the load's iteration sees exactly the
//     tile its own iteration stored, no other overwrote it);
//   - each fusion is fuse_nests' (every dependence between the bodies within one iteration), after
//     the nodes between the nests moved out of the way when they commute (make_adjacent);
//   - kept on chip: V is made per iteration of the store's inner loop (a value, SBUF, same dtype as
//     S and T), every write of V comes before the store in that iteration; T is read only whole,
//     after the load, inside the load's loop; T and V have one shape; the block (trip x V's bytes
//     per partition) with every other SBUF tile fits a partition (hoist_expand's budget).
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <set>

#include "loopnest/api.h"
#include "loopnest/forward_scratch.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

struct Ends {
  int store = -1;            // node ids: a node holds one op, so the node names it
  std::vector<int> loads;
};

const OpRef* by_node(const Analysis& an, int node) {
  for (const auto& r : an.ops)
    if (r.node->id == node) return &r;
  return nullptr;
}

// S's stores, each with the loads reading what it stores: one store and every load (the common
// case), or, where S has several stores of disjoint regions (a loop over the full row tiles and
// another for the ragged tail), each store with the loads overlapping its regions.
std::vector<Ends> ends_of(const Kernel& k, const Analysis& an, int s) {
  const Tensor& ts = k.tensor(s);
  if (ts.role != TensorRole::Scratch || std::count(k.outputs.begin(), k.outputs.end(), s)) return {};
  for (const auto& t : k.tensors)
    if (t.base == s) return {};
  auto w = an.writers(k, s), r = an.readers(k, s);
  if (w.empty() || r.empty()) return {};
  auto plain = [](const OpRef* x, OpClass cls) {
    const Op& op = x->op();
    return op.cls == cls && !op.accumulate && !op.has_mask && op.mask.empty() && !x->node->frozen &&
           x->node->ops.size() == 1 && reads(op).size() == 1 && writes(op).size() == 1 && !has_index_operand(op);
  };
  for (const OpRef* x : w)
    if (!plain(x, OpClass::Store) || x->loops.empty()) return {};
  const Ranges ranges = k.ranges();
  std::vector<Ends> out;
  for (const OpRef* st : w) {
    bool apart = true;
    for (const OpRef* other : w)
      apart = apart && (other == st || !may_overlap_across(k, *st->op().dst, *other->op().dst, ranges));
    if (!apart) continue;
    Ends e{st->node->id, {}};
    bool ok = true;
    for (const OpRef* ld : r) {
      bool meets = w.size() == 1;
      for (const Access* x : reads(ld->op()))
        meets = meets || (storage_of(k, x->tensor) == s && may_overlap_across(k, *st->op().dst, *x, ranges));
      if (!meets) continue;
      ok = ok && plain(ld, OpClass::Load) && ld->order > st->order && ld->loops.size() == st->loops.size();
      e.loads.push_back(ld->node->id);
    }
    if (ok && !e.loads.empty()) out.push_back(std::move(e));
  }
  return out;
}

bool same_header(const Loop& x, const Loop& y, bool kind) {
  return (!kind || x.kind == y.kind) && x.start == y.start && x.stop == y.stop && x.step == y.step && x.trip() &&
         x.step > 0 && x.start.is_constant() && !x.program && !y.program && !x.host_items && !y.host_items;
}

// Distinct iterations of `loops` touch disjoint regions through `a`: every loop variable occurs in
// the start of exactly one dim, affinely, and in each dim the variables' coefficients grow in mixed
// radix above the tile's extent there (two iterations differing in a variable differ in that dim
// by more than the extent).
bool injective(const Kernel& k, const Access& a, const std::vector<int>& loops) {
  std::set<int> seen;
  for (const auto& d : a.dims) {
    if (!d.start.is_affine()) return false;
    int64_t ext = 0;
    for (const auto& t : d.terms) {
      auto top = t.max_index();
      if (!top || !t.size.is_constant()) return false;
      ext += std::llabs(t.stride) * *top;
    }
    std::vector<std::pair<int64_t, int64_t>> radix;  // |coeff|, trip
    for (int l : loops) {
      int64_t c = d.start.coeff(l);
      if (c == 0) continue;
      if (seen.count(l)) return false;
      seen.insert(l);
      radix.emplace_back(std::llabs(c), *k.loops.at(l).trip());
    }
    std::sort(radix.begin(), radix.end());
    int64_t reach = ext;  // the farthest the variables below reach above the start
    for (const auto& [c, trip] : radix) {
      if (c <= reach) return false;
      reach += c * (trip - 1);
    }
  }
  return seen.size() == loops.size();
}

// Whether the loads read, iteration for iteration, what the store wrote (loads' variables renamed).
bool regions_align(const Kernel& k, const Analysis& an, const Ends& e) {
  const OpRef* st = by_node(an, e.store);
  const Access& stored = *st->op().dst;
  if (!injective(k, stored, st->loops)) return false;
  for (int id : e.loads) {
    const OpRef* ld = by_node(an, id);
    Access loaded = *reads(ld->op())[0];
    for (size_t d = 0; d < st->loops.size(); ++d) substitute_access(loaded, ld->loops[d], IExpr::var(st->loops[d]));
    if (!(loaded == stored)) return false;
  }
  return true;
}

// Fuses, level by level down to `depth`, the loops around the store with those around each load.
bool fuse_down(Kernel& k, const Ends& e, size_t depth) {
  for (size_t d = 0; d < depth; ++d)
    for (int id : e.loads) {
      Analysis an(k);
      const OpRef *st = by_node(an, e.store), *ld = by_node(an, id);
      if (!st || !ld) return false;
      int la = st->loops[d], lb = ld->loops[d];
      if (la == lb) continue;
      Node *a = loop_node(k, la), *b = loop_node(k, lb);
      if (!a || !b) return false;
      const int a_id = a->id, b_id = b->id;
      if (!make_adjacent(k, a_id, b_id) || !fusable_loops(k, a_id, b_id)) return false;
      rename_clashes(k, *find_node(k, a_id), *find_node(k, b_id));
      fuse_loops(k, a_id, b_id);
    }
  return true;
}

// The access of tile `t` whole with `index` inserted as the dim at `pos`.
Access block_of(const Kernel& k, int t, size_t pos, int loop) {
  Access whole;
  whole.tensor = t;
  const Tensor& tt = k.tensor(t);
  for (size_t d = 0, axis = 0; d < tt.shape.size(); ++d)
    if (d != pos) whole.dims.push_back(DimIndex{IExpr(0), {AxisTerm{static_cast<int>(axis++), tt.shape[d], 1}}});
  whole.dims.insert(whole.dims.begin() + static_cast<long>(pos), DimIndex{IExpr::var(loop), {}});
  return whole;
}

bool plain_tile(const Kernel& k, int t) {
  const Tensor& x = k.tensor(t);
  if (x.memory != Memory::Sbuf || x.role != TensorRole::Value || x.base >= 0 || x.host_list || x.list_loop >= 0 ||
      !x.outer_lists.empty() || x.bound_items || x.dtype.empty())
    return false;
  for (const auto& u : k.tensors)
    if (u.base == t) return false;
  bool viewed = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) { viewed = viewed || (n.view && n.view->tensor == t); });
  return !viewed;
}

// The store and its loads in sibling inner loops of one iteration of the shared loops: V gets a
// block dim over the store's inner loop, each load's tile reads become reads of V's block at the
// load's inner iteration, and the store, the loads and S go.
bool keep_block(Kernel& k, int s, const Ends& e) {
  Analysis an(k);
  const OpRef* st = by_node(an, e.store);
  if (!st) return false;
  const size_t depth = st->loops.size() - 1;
  const int inner = st->loops.back();
  const Loop& li = k.loops.at(inner);
  if (!(li.start == IExpr(0)) || li.step != 1 || !li.trip()) return false;
  const Access v = *reads(st->op())[0];
  if (!plain_tile(k, v.tensor) || !accesses_whole(k, v) || k.tensor(v.tensor).scope_loop != inner ||
      k.tensor(v.tensor).dtype != k.tensor(s).dtype)
    return false;
  // Every write of V before the store in the inner loop's iteration (what the block keeps is what
  // was stored).
  for (const OpRef* w : an.writers(k, v.tensor))
    if (w->order > st->order || std::find(w->loops.begin(), w->loops.end(), inner) == w->loops.end()) return false;
  // ... and every read of V in it: a read after the loop (the last iteration's tile, a name the
  // author reads later) would see a block instead.
  for (const OpRef* r : an.readers(k, v.tensor))
    if (std::find(r->loops.begin(), r->loops.end(), inner) == r->loops.end()) return false;
  std::vector<std::pair<int, int>> loaded;  // (T, the load's inner loop)
  for (int id : e.loads) {
    const OpRef* ld = by_node(an, id);
    if (!ld) return false;
    for (size_t d = 0; d < depth; ++d)
      if (ld->loops[d] != st->loops[d]) return false;  // fused
    const int lb = ld->loops.back();
    if (lb == inner || !same_header(k.loops.at(lb), li, false)) return false;
    const Access t = *writes(ld->op())[0];
    const Tensor &tt = k.tensor(t.tensor), &tv = k.tensor(v.tensor);
    if (!plain_tile(k, t.tensor) || !accesses_whole(k, t) || tt.scope_loop != lb || tt.shape != tv.shape ||
        tt.partition_dim != tv.partition_dim || tt.dtype != tv.dtype || an.writers(k, t.tensor).size() != 1)
      return false;
    for (const OpRef* r : an.readers(k, t.tensor)) {
      if (r->order < ld->order || std::find(r->loops.begin(), r->loops.end(), lb) == r->loops.end()) return false;
      for (const Access* x : reads(r->op()))
        if (x->tensor == t.tensor && !accesses_whole(k, *x)) return false;
      if (r->op().dst && r->op().dst->tensor == t.tensor) return false;
    }
    loaded.emplace_back(t.tensor, lb);
  }
  // V gets the block dim: in front (legacy block dims), or right after the partition dim in the
  // newer API, which has no block dims (as pipeline_prep and hoist_expand place theirs).
  Tensor& tv = k.tensor(v.tensor);
  const size_t pos = k.dialect.new_api ? static_cast<size_t>(tv.partition_dim) + 1 : 0;
  tv.shape.insert(tv.shape.begin() + static_cast<long>(pos), IExpr(*li.trip()));
  if (!tv.dim_text.empty()) tv.dim_text.insert(tv.dim_text.begin() + static_cast<long>(pos), {IExpr(*li.trip()), ""});
  if (!k.dialect.new_api) tv.partition_dim += 1;
  tv.role = TensorRole::Buffer;
  tv.scope_loop = depth > 0 ? st->loops[depth - 1] : -1;
  const int vt = v.tensor;
  std::set<int> loads(e.loads.begin(), e.loads.end());
  for_each_node(k.body, [&](Node& n, const std::vector<int>& loops) {
    if (n.id == e.store || loads.count(n.id)) return;
    const bool in_store_loop = std::find(loops.begin(), loops.end(), inner) != loops.end();
    for (auto& op : n.ops) {
      bool touched = false;
      if (in_store_loop && op.result == vt) {
        op.result = -1;
        op.dst = block_of(k, vt, pos, inner);
        op.dst_first = false;
        op.dst_origin = nullptr;
        touched = true;
      } else if (in_store_loop && op.dst && op.dst->tensor == vt) {
        op.dst->dims.insert(op.dst->dims.begin() + static_cast<long>(pos), DimIndex{IExpr::var(inner), {}});
        op.dst_origin = nullptr;
        touched = true;
      }
      for (auto& a : op.args) {
        if (a.value.kind != Operand::Kind::Tile) continue;
        Access& x = a.value.access;
        if (in_store_loop && x.tensor == vt) {
          x.dims.insert(x.dims.begin() + static_cast<long>(pos), DimIndex{IExpr::var(inner), {}});
        } else {
          auto it = std::find_if(loaded.begin(), loaded.end(), [&](const auto& p) { return p.first == x.tensor; });
          if (it == loaded.end()) continue;
          x = block_of(k, vt, pos, it->second);
        }
        a.value.origin = nullptr;
        touched = true;
      }
      if (touched) {
        n.dirty = true;
        n.patch.clear();
      }
    }
  });
  // Declared in the shared loops' body, before the store's inner loop.
  Node decl = declaration_node(k, vt);
  Node* inner_node = loop_node(k, inner);
  if (!inner_node) return false;
  const int inner_id = inner_node->id;
  erase_node(k, e.store);
  for (int id : e.loads) erase_node(k, id);
  bool placed = false;
  std::function<bool(std::vector<Node>&)> place = [&](std::vector<Node>& block) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block[i].id == inner_id) {
        block.insert(block.begin() + static_cast<long>(i), std::move(decl));
        return true;
      }
      if (place(block[i].body) || place(block[i].orelse)) return true;
    }
    return false;
  };
  placed = place(k.body);
  if (!placed) return false;
  std::vector<int> decls;
  bool used = false;  // another store of S (a ragged tail) keeps it
  {
    Analysis left(k);
    used = !left.writers(k, s).empty() || !left.readers(k, s).empty();
  }
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (!used && n.kind == NodeKind::Stmt && n.ops.size() == 1 && n.ops[0].cls == OpClass::Alloc && n.ops[0].dst &&
        n.ops[0].dst->tensor == s)
      decls.push_back(n.id);
  });
  for (int id : decls) erase_node(k, id);
  remove_dead_buffers(k);
  return other_sbuf_bytes(k, Analysis(k), -1) <= sbuf_budget();
}

}  // namespace

namespace {

// forward_stage with the tile forwarded (`whole`: the store and its loads fused down to every loop,
// each load then reading the stored tile) or kept in a block over the store's inner loop.
bool forward_stage_as(Kernel& k, int s, bool whole, size_t pick) {
  Ends e;
  size_t depth = 0;
  {
    Analysis an(k);
    auto found = ends_of(k, an, s);
    if (pick >= found.size()) return false;
    e = found[pick];
    const OpRef* st = by_node(an, e.store);
    const size_t n = st->loops.size();
    for (int id : e.loads) {
      const OpRef* ld = by_node(an, id);
      for (size_t d = 0; d < n; ++d)
        if (!same_header(k.loops.at(st->loops[d]), k.loops.at(ld->loops[d]), whole || d + 1 < n)) return false;
      // A load already in the store's inner loop cannot take a block of it.
      if (!whole && ld->loops.back() == st->loops.back()) return false;
    }
    if (!regions_align(k, an, e)) return false;
    depth = whole ? n : n - 1;
  }
  if (!fuse_down(k, e, depth)) return false;
  if (!whole) return keep_block(k, s, e);
  // Every load, now in the store's iteration, reads the stored tile; the store goes with the last.
  for (size_t j = 0; j < e.loads.size(); ++j)
    if (!forward_tile(k, s, e.store, e.loads[j], j + 1 < e.loads.size())) return false;
  remove_dead_buffers(k);
  return true;
}

}  // namespace

// `neg = nl.negative(nl.load(mx[...]))`: a load of S that is the first inner call of a statement
// becomes a statement of its own binding a named tile (`mx_tile = nl.load(...)`), which the forwarding
// can take (the same operations in the same order).
void split_nested_loads(Kernel& k, int s) {
  Analysis an(k);
  for (const OpRef* r : an.readers(k, s)) {
    Node& n = *r->node;
    if (r->op().cls != OpClass::Load || r->index != 0 || n.ops.size() < 2 || n.kind != NodeKind::Stmt || n.frozen)
      continue;
    const int t = made_tile(n.ops[0]);
    if (t < 0 || !k.tensor(t).name.empty()) continue;
    const std::string base = k.tensor(s).name.empty() ? "loaded" : k.tensor(s).name;
    k.tensor(t).name = fresh_loop_var(k, base + "_tile");
    for (auto& op : n.ops)
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) a.value.origin = nullptr;
    n.patch.clear();
    split_leading_ops(k, *r->block, r->position, 1);
    return split_nested_loads(k, s);  // the analysis is stale after an insertion
  }
}

bool forward_stage(Kernel& k, int s) {
  split_computed_stores(k, s);
  split_nested_loads(k, s);
  size_t pairs = 0;
  {
    Analysis an(k);
    pairs = ends_of(k, an, s).size();
  }
  for (size_t pick = 0; pick < pairs; ++pick)
    for (bool whole : {true, false}) {
      Kernel trial = k;
      if (forward_stage_as(trial, s, whole, pick)) {
        k = std::move(trial);
        return true;
      }
    }
  return false;
}

std::vector<int> forward_all_stages(Kernel& k) {
  std::vector<int> done;
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < k.tensors.size(); ++i) {
      if (k.tensors[i].role != TensorRole::Scratch) continue;
      Kernel trial = k;
      if (!forward_stage(trial, static_cast<int>(i))) continue;
      k = std::move(trial);
      done.push_back(static_cast<int>(i));
      again = true;
    }
  }
  return done;
}

}  // namespace loopnest
