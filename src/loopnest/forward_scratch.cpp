// Scratch forwarding on the form: a private HBM tensor S (`buffer=nl.hbm`) written tile by tile by
// one loop nest and read back tile by tile, at the same indices, by a later nest is a round trip
// through HBM the kernel does not need. The two nests are fused level by level down to the store
// and the load, and the loaded tile becomes the stored one: the store, the load and S go away, and
// the consumer of a row tile starts as soon as the producer made it (rmsnorm_matmul,
// add_rmsnorm_matmul, swiglu).
//
// Legality comes from dependences on the form, whatever the style: S has one writer (a store) and
// one reader (a load), masked alike when at all (a ragged last block); the scratch tensors stored
// by the same nest and loaded by the same later nest (m' and v' of a two-pass update) go together,
// each one's round trip ignored by the dependence test of the fusion; at every level the nodes
// between the two nests move out of the way only when they commute (neither writes a tensor the
// other touches), and the fusion of each level is fuse_nests's (every dependence between the
// bodies within one iteration); the loaded tile T and
// the stored tile V have the same shape, layout and dtype, the load's region of T is the store's
// region of V, V has no other writer and T no other writer than the load, so every element of T a
// reader sees holds the same value in V.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/commute.h"
#include "loopnest/emit.h"
#include "loopnest/forward_scratch.h"
#include "loopnest/transform.h"

namespace loopnest {

// The block holding node `id` and its position there.
static std::optional<std::pair<std::vector<Node>*, size_t>> locate(std::vector<Node>& block, int id) {
  for (size_t i = 0; i < block.size(); ++i) {
    if (block[i].id == id) return std::make_pair(&block, i);
    if (auto r = locate(block[i].body, id)) return r;
    if (auto r = locate(block[i].orelse, id)) return r;
  }
  return std::nullopt;
}

// Brings the loop nodes `a` and `b` of one block next to each other: each node between them moves
// above `a` when it commutes with it, else below `b` when it commutes with `b` (and with every
// node moving above that it passes). False when one cannot move.
bool make_adjacent(Kernel& k, int a_id, int b_id) {
  auto pa = locate(k.body, a_id), pb = locate(k.body, b_id);
  if (!pa || !pb || pa->first != pb->first || pa->second >= pb->second) return false;
  std::vector<Node>& block = *pa->first;
  size_t ia = pa->second, ib = pb->second;
  std::vector<Node> above, below;
  for (size_t i = ia + 1; i < ib; ++i) {
    const Node& m = block[i];
    bool passes_below = std::all_of(below.begin(), below.end(), [&](const Node& x) { return commute(k, x, m); });
    if (commute(k, block[ia], m) && passes_below) {
      above.push_back(m);
    } else if (commute(k, block[ib], m)) {
      below.push_back(m);
    } else {
      return false;
    }
  }
  std::vector<Node> out(block.begin(), block.begin() + static_cast<long>(ia));
  for (auto& n : above) out.push_back(std::move(n));
  out.push_back(std::move(block[ia]));
  out.push_back(std::move(block[ib]));
  for (auto& n : below) out.push_back(std::move(n));
  for (size_t i = ib + 1; i < block.size(); ++i) out.push_back(std::move(block[i]));
  block = std::move(out);
  return true;
}

// The tensors an op defines (a named result, a declared tile): what a name in its nest denotes.
static void defined_in(const Kernel& k, const Node& n, std::map<std::string, int>& out) {
  auto one = [&](const Node& x) {
    for (const auto& op : x.ops) {
      int t = op.result >= 0 ? op.result : (op.cls == OpClass::Alloc && op.dst ? op.dst->tensor : -1);
      if (t >= 0 && !k.tensor(t).name.empty()) out[k.tensor(t).name] = t;
    }
  };
  one(n);
  for_each_node(n.body, [&](const Node& x, const std::vector<int>&) { one(x); });
}

// The consumer nest's tiles named like one of the producer's get a fresh name (`x_t_2`), so the
// fused body keeps every name denoting one tile.
void rename_clashes(Kernel& k, Node& a, Node& b) {
  std::map<std::string, int> in_a, in_b;
  defined_in(k, a, in_a);
  defined_in(k, b, in_b);
  std::set<std::string> taken;
  for (const auto& t : k.tensors) taken.insert(t.name);
  for (const auto& [id, l] : k.loops) taken.insert(l.var);
  std::map<std::string, std::string> renames;
  for (const auto& [name, t] : in_b) {
    auto it = in_a.find(name);
    if (it == in_a.end() || it->second == t) continue;
    std::string fresh = fresh_copy_name(k, name, taken);
    taken.insert(fresh);
    for (auto& tensor : k.tensors)
      if (tensor.name == name && tensor.id != it->second) {
        bool in_b_nest = false;
        for_each_node(b.body, [&](const Node& x, const std::vector<int>&) {
          for (const auto& op : x.ops)
            if (op.result == tensor.id || (op.cls == OpClass::Alloc && op.dst && op.dst->tensor == tensor.id)) in_b_nest = true;
        });
        if (in_b_nest) tensor.name = fresh;
      }
    renames[name] = fresh;
  }
  if (renames.empty()) return;
  for (auto& n : b.body)
    for (const auto& [from, to] : renames) n.renames[from] = to;
}

namespace {

struct Ends {
  const OpRef* store = nullptr;
  const OpRef* load = nullptr;
};

bool same_mask(const std::vector<Constraint>& a, const std::vector<Constraint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Constraint& x, const Constraint& y) {
    return x.expr == y.expr && x.axes == y.axes && x.cmp == y.cmp;
  });
}

// S's one store and one load (each the only op of its statement), or none. Either may be masked
// (a ragged last row block, `rows < M`); the masks are compared where the two meet.
std::optional<Ends> ends_of(const Kernel& k, const Analysis& an, int s) {
  if (std::count(k.outputs.begin(), k.outputs.end(), s)) return std::nullopt;
  for (const auto& t : k.tensors)
    if (t.base == s) return std::nullopt;
  auto w = an.writers(k, s), r = an.readers(k, s);
  if (w.size() != 1 || r.size() != 1) return std::nullopt;
  Ends e{w[0], r[0]};
  const Op &st = e.store->op(), &ld = e.load->op();
  if (st.cls != OpClass::Store || ld.cls != OpClass::Load || st.accumulate || ld.accumulate) return std::nullopt;
  if (e.store->node->ops.size() != 1 || e.load->node->ops.size() != 1) return std::nullopt;
  if (reads(st).size() != 1 || writes(st).size() != 1 || reads(ld).size() != 1 || writes(ld).size() != 1) return std::nullopt;
  if (e.store->loops.empty() || e.store->loops.size() != e.load->loops.size() || e.store->order >= e.load->order)
    return std::nullopt;
  return e;
}

// The scratch tensors stored by the nest that stores S and loaded back by the nest that loads S,
// at the same loop depth (m' and v' of a two-pass update): they are forwarded together, since
// fusing the two nests for one of them is blocked by the other's round trip. S first among them
// (the lowest id) or none: the group is one site.
struct Group {
  std::vector<int> scratch;
  std::vector<int> la, lb;  // the loops around the stores, around the loads
};

std::optional<Group> group_of(const Kernel& k, const Analysis& an, int s) {
  auto e = ends_of(k, an, s);
  if (!e) return std::nullopt;
  Group g{{}, e->store->loops, e->load->loops};
  for (const auto& t : k.tensors) {
    if (t.role != TensorRole::Scratch) continue;
    auto f = ends_of(k, an, t.id);
    if (f && f->store->loops == g.la && f->load->loops == g.lb) g.scratch.push_back(t.id);
  }
  if (g.scratch.empty() || g.scratch.front() != s) return std::nullopt;
  return g;
}

// Whether B loads, in each iteration of its path loops, exactly the region (and under the same
// mask) A stored in the same iteration of its own (B's variables renamed to A's), and distinct
// iterations store disjoint regions (enumerated: the load sees the tile of its own iteration,
// never another's).
bool round_trip_aligns(Kernel& k, const Ends& e, const Group& g) {
  const std::vector<int> &la = g.la, &lb = g.lb;
  auto rename = [&](IExpr x) {
    for (size_t d = 0; d < la.size(); ++d) x = x.substitute(lb[d], IExpr::var(la[d]));
    return x;
  };
  Access stored = *e.store->op().dst, loaded = *reads(e.load->op())[0];
  for (auto& dim : loaded.dims) {
    dim.start = rename(dim.start);
    for (auto& t : dim.terms) t.size = rename(t.size);
  }
  if (!(stored == loaded)) return false;
  std::vector<Constraint> load_mask = e.load->op().mask;
  for (auto& c : load_mask) c.expr = rename(c.expr);
  if (!same_mask(e.store->op().mask, load_mask)) return false;
  // Each iteration's region as a box of element intervals (a ragged window's extent evaluated in
  // its iteration); no two boxes meet.
  struct Box {
    std::vector<int64_t> start, extent;
  };
  std::vector<Box> boxes;
  std::map<int, int64_t> at;
  constexpr size_t kMaxIterations = 4096;
  std::function<bool(size_t)> walk = [&](size_t d) {
    if (d == la.size()) {
      Box box;
      for (const auto& dim : stored.dims) {
        auto v = dim.start.eval(at);
        if (!v) return false;
        int64_t ext = 0;
        for (const auto& t : dim.terms) {
          auto size = t.size.eval(at);
          if (!size || *size < 1) return false;
          AxisTerm here = t;  // the term with its size in this iteration
          here.size = IExpr(*size);
          ext += std::llabs(t.stride) * *here.max_index();
        }
        box.start.push_back(*v);
        box.extent.push_back(ext);
      }
      boxes.push_back(std::move(box));
      return boxes.size() <= kMaxIterations;
    }
    const Loop& l = k.loops.at(la[d]);
    for (int64_t i = 0; i < *l.trip(); ++i) {
      at[la[d]] = l.start.constant() + i * l.step;
      if (!walk(d + 1)) return false;
    }
    return true;
  };
  if (!walk(0)) return false;
  for (size_t x = 0; x < boxes.size(); ++x)
    for (size_t y = x + 1; y < boxes.size(); ++y) {
      bool apart = false;
      for (size_t d = 0; d < boxes[x].start.size() && !apart; ++d)
        apart = boxes[x].start[d] + boxes[x].extent[d] < boxes[y].start[d] ||
                boxes[y].start[d] + boxes[y].extent[d] < boxes[x].start[d];
      if (!apart) return false;
    }
  return true;
}

// Whether the whole nests around the group's stores (A) and loads (B) may be fused level by level:
// the same loops (kind, range) at every level; apart from the group's tensors and what both only
// read, neither nest touches what the other writes; every round trip aligns.
bool nests_align(Kernel& k, const Analysis& an, const Group& g) {
  const std::vector<int> &la = g.la, &lb = g.lb;
  for (size_t d = 0; d < la.size(); ++d) {
    const Loop &x = k.loops.at(la[d]), &y = k.loops.at(lb[d]);
    if (x.kind != y.kind || x.start != y.start || x.stop != y.stop || x.step != y.step || !x.trip() || x.step <= 0 ||
        !x.start.is_constant())
      return false;
  }
  Node* a = loop_node(k, la[0]);
  Node* b = loop_node(k, lb[0]);
  if (!a || !b) return false;
  if (depend(k, *a, *b, std::set<int>(g.scratch.begin(), g.scratch.end()))) return false;
  for (int s : g.scratch) {
    auto e = ends_of(k, an, s);
    if (!e || !round_trip_aligns(k, *e, g)) return false;
  }
  return true;
}

}  // namespace

// With S's store and load in one iteration of the fused nest: the loaded tile becomes the stored
// one, and the store, the load and S go. False (with `k` in any state) when that is not legal.
bool forward_tile(Kernel& k, int s, int store_node, int load_node, bool keep_store) {
  Analysis an(k);
  std::optional<Ends> e;
  if (store_node < 0) {
    e = ends_of(k, an, s);
  } else {  // one of several stores of S and its load (forward_stages checked that they pair up)
    Ends pair;
    for (const auto& r : an.ops) {
      if (r.node->id == store_node && r.op().cls == OpClass::Store && r.node->ops.size() == 1) pair.store = &r;
      if (r.node->id == load_node && r.op().cls == OpClass::Load && r.node->ops.size() == 1) pair.load = &r;
    }
    if (pair.store && pair.load && pair.store->op().dst && pair.store->op().dst->tensor == s &&
        reads(pair.load->op()).size() == 1 && reads(pair.load->op())[0]->tensor == s && !pair.store->op().accumulate &&
        !pair.load->op().accumulate && pair.store->order < pair.load->order)
      e = pair;
  }
  if (!e) return false;
  const Op &st = e->store->op(), &ld = e->load->op();
  // The same region of S under the same mask, now in the same iteration.
  if (!(*st.dst == *reads(ld)[0]) || !same_mask(st.mask, ld.mask)) return false;
  const Access v = *reads(st)[0], t = *writes(ld)[0];
  const Tensor &tv = k.tensor(v.tensor), &tt = k.tensor(t.tensor), &ts = k.tensor(s);
  if (!tv.on_chip() || tv.memory != tt.memory || tv.base >= 0 || tt.base >= 0 || tv.dtype.empty() ||
      tv.dtype != tt.dtype || tv.dtype != ts.dtype || (!ld.dtype.empty() && ld.dtype != tv.dtype))
    return false;
  for (const auto& u : k.tensors)
    if (u.base == v.tensor || u.base == t.tensor) return false;
  bool viewed = false;  // a name bound to a region of T or V (`row = t[...]`) would still name it
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    viewed = viewed || (n.view && (n.view->tensor == t.tensor || n.view->tensor == v.tensor));
  });
  if (viewed) return false;
  Ranges ranges = k.ranges();
  // V keeps the stored tile while it is read: every op writing that region runs before the store in
  // the same iteration of the loops around it (a producer, and any update in place after it:
  // `a = a * 0.2` in the destination-first style), and the load is the only one writing T's region.
  int v_writers = 0;
  const std::vector<int>& around = e->store->loops;
  for (const OpRef* w : an.writers(k, v.tensor))
    for (const Access* x : writes(w->op())) {
      if (!may_overlap_across(k, *x, v, ranges)) continue;
      if (w->order > e->store->order || w->loops.size() < around.size() ||
          !std::equal(around.begin(), around.end(), w->loops.begin()))
        return false;
      ++v_writers;
    }
  if (v_writers < 1) return false;
  for (const OpRef* w : an.writers(k, t.tensor))
    for (const Access* x : writes(w->op()))
      if (w != e->load && may_overlap_across(k, *x, t, ranges)) return false;
  // Every read of the loaded region follows the load in the same iteration of the fused loops, and
  // either reads that region whole (it becomes V's region) or T is V's twin (same shape and layout,
  // loaded from nothing else: every access of T becomes the same access of V).
  bool whole_region = true;
  for (const OpRef* r : an.readers(k, t.tensor))
    for (const Access* x : reads(r->op())) {
      if (!may_overlap_across(k, *x, t, ranges)) continue;
      if (r->order < e->load->order || r->loops.size() < e->load->loops.size() ||
          !std::equal(e->load->loops.begin(), e->load->loops.end(), r->loops.begin()))
        return false;
      whole_region = whole_region && *x == t;
    }
  Access twin = t;
  twin.tensor = v.tensor;
  bool twins = tv.shape == tt.shape && tv.partition_dim == tt.partition_dim && twin == v &&
               an.writers(k, t.tensor).size() == 1;
  if (!whole_region && !twins) return false;
  int store_node_id = e->store->node->id, load_node_id = e->load->node->id;
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops)
      for (auto& a : op.args) {
        if (a.value.kind != Operand::Kind::Tile || a.output || a.value.access.tensor != t.tensor) continue;
        if (whole_region) {
          if (!(a.value.access == t)) continue;
          a.value.access = v;
        } else {
          a.value.access.tensor = v.tensor;
        }
        a.value.origin = nullptr;
        n.dirty = true;
      }
  });
  erase_node(k, load_node_id);
  if (keep_store) return true;
  erase_node(k, store_node_id);
  // S's declaration goes with its last use.
  {
    Analysis left(k);
    if (!left.writers(k, s).empty() || !left.readers(k, s).empty()) return true;
  }
  std::vector<int> decls;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Stmt && n.ops.size() == 1 && n.ops[0].cls == OpClass::Alloc && n.ops[0].dst &&
        n.ops[0].dst->tensor == s)
      decls.push_back(n.id);
  });
  for (int id : decls) erase_node(k, id);
  return true;
}

// `nl.store(s[...], value=nl.sigmoid(t))`: the stored value computed in the store's own statement (two
// operations in one node, which the forwarding cannot take apart) becomes a statement of its own
// binding it to a name (`sig_tile = nl.sigmoid(t)`), read by the store; the same operations in the
// same order. Every store of S so written is split (none: `k` unchanged).
void split_computed_stores(Kernel& k, int s) {
  Analysis an(k);
  for (const OpRef* w : an.writers(k, s)) {
    Node& n = *w->node;
    if (w->op().cls != OpClass::Store || w->index + 1 != n.ops.size() || n.ops.size() < 2 || n.kind != NodeKind::Stmt)
      continue;
    const Op& store = n.ops.back();
    const Arg* value = store.arg("value");
    const int t = made_tile(n.ops[n.ops.size() - 2]);
    if (!value || value->value.kind != Operand::Kind::Tile || value->value.access.tensor != t || t < 0 ||
        !k.tensor(t).name.empty())
      continue;
    const std::string base = k.tensor(s).name.empty() ? "stored" : k.tensor(s).name;
    k.tensor(t).name = fresh_loop_var(k, base + "_tile");
    std::vector<Op> compute(n.ops.begin(), n.ops.end() - 1);
    Node value_node = new_statement(k, std::move(compute));
    n.ops.erase(n.ops.begin(), n.ops.end() - 1);
    for (auto& a : n.ops.back().args) a.value.origin = nullptr;
    n.dirty = true;
    n.patch.clear();
    w->block->insert(w->block->begin() + static_cast<long>(w->position), std::move(value_node));
    return split_computed_stores(k, s);  // the analysis is stale after an insertion
  }
}

namespace {

// Fuses the two nests around the stores and loads of S's group level by level, then forwards each
// tile. False (with `k` in any state) when a step is not legal.
bool forward(Kernel& k, int s) {
  Group g;
  {
    Analysis an(k);
    auto found = group_of(k, an, s);
    if (!found || !nests_align(k, an, *found)) return false;
    g = *found;
  }
  for (size_t d = 0; d < g.la.size(); ++d) {
    Node* a = loop_node(k, g.la[d]);
    Node* b = loop_node(k, g.lb[d]);
    if (!a || !b || a->frozen || b->frozen) return false;
    int a_id = a->id, b_id = b->id;
    if (!make_adjacent(k, a_id, b_id)) return false;
    a = find_node(k, a_id), b = find_node(k, b_id);
    rename_clashes(k, *a, *b);
    fuse_loops(k, a_id, b_id);
  }
  for (int x : g.scratch)
    if (!forward_tile(k, x)) return false;
  remove_dead_buffers(k);
  return true;
}

class ForwardScratch : public Transform {
 public:
  std::string name() const override { return "forward_scratch"; }
  std::string description() const override {
    return "fuse the loop nest that stores tiles to a private HBM scratch tensor with the nest that loads them "
           "back at the same indices, and forward each tile on chip (no HBM round trip, no wait for the whole "
           "producer nest)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::set<int> offered;  // the scratch tensors forwarded the plain way
    for (const auto& t : k.tensors) {
      if (t.role != TensorRole::Scratch) continue;
      int s = t.id;
      Kernel split = k;  // its stores of computed values split (split_computed_stores)
      split_computed_stores(split, s);
      Kernel trial = split;
      if (!forward(trial, s)) continue;
      Analysis an(split);
      auto e = ends_of(split, an, s);
      auto g = group_of(split, an, s);
      if (!e || !g) continue;
      std::string names;
      for (int x : g->scratch) {
        const Tensor& u = split.tensor(x);
        names += fmt::format("{}`{}`", names.empty() ? "" : ", ", u.name.empty() ? u.label : u.name);
      }
      Site site = make_site(split, an, *e->store,
                            fmt::format("forward the tiles of HBM scratch {} on chip: fuse the nest storing them with "
                                        "the nest loading them back",
                                        names));
      if (sink(site, [&k, s] {
            split_computed_stores(k, s);
            if (!forward(k, s)) throw TransformError("forward_scratch: the site is no longer legal");
          }))
        return true;
      offered.insert(s);
    }
    // The passes of an eager-mode port (forward_stages.cpp): a scratch loaded by several later
    // passes, or walked by them in inner loops of their own, kept on chip per iteration of the loops
    // they share; `stages=one` for one scratch, `stages=all` for every one in turn.
    for (const auto& t : k.tensors) {
      if (t.role != TensorRole::Scratch || offered.count(t.id)) continue;
      const int s = t.id;
      Kernel split = k;
      split_computed_stores(split, s);
      Kernel trial = split;
      if (!forward_stage(trial, s)) continue;
      if (auto site = stage_site(split, s, "one")) {
        if (sink(*site, [&k, s] {
              if (!forward_stage(k, s)) throw TransformError("forward_scratch: the site is no longer legal");
            }))
          return true;
      }
    }
    Kernel all = k;
    std::vector<int> done = forward_all_stages(all);
    if (done.size() >= 2) {
      Kernel split = k;
      split_computed_stores(split, done.front());
      if (auto site = stage_site(split, done.front(), "all")) {
        site->summary = fmt::format("forward {} HBM scratch tensors on chip one after the other, fusing the passes "
                                    "that store and load them",
                                    done.size());
        if (sink(*site, [&k] {
              if (forward_all_stages(k).empty()) throw TransformError("forward_scratch: the site is no longer legal");
            }))
          return true;
      }
    }
    return false;
  }

 private:
  static std::optional<Site> stage_site(Kernel& split, int s, const std::string& stages) {
    Analysis an(split);
    auto w = an.writers(split, s);  // several: a ragged tail's store beside the full tiles'; the first names it
    if (w.empty()) return std::nullopt;
    const Tensor& u = split.tensor(s);
    return make_site(split, an, *w[0],
                     fmt::format("fuse the passes storing and loading HBM scratch `{}` down to the loops they share and "
                                 "keep its tiles on chip",
                                 u.name.empty() ? u.label : u.name),
                     {{"stages", stages}});
  }
};

}  // namespace

std::unique_ptr<Transform> make_forward_scratch() { return std::make_unique<ForwardScratch>(); }

}  // namespace loopnest
