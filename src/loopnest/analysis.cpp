#include "loopnest/analysis.h"

#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "loopnest/api.h"

namespace loopnest {

namespace {

void collect(std::vector<Node>& block, std::vector<int>& loops, std::vector<OpRef>& out) {
  for (size_t i = 0; i < block.size(); ++i) {
    Node& n = block[i];
    for (size_t o = 0; o < n.ops.size(); ++o) {
      OpRef r;
      r.node = &n;
      r.index = o;
      r.block = &block;
      r.position = i;
      r.loops = loops;
      r.order = static_cast<int>(out.size());
      out.push_back(r);
    }
    if (n.kind == NodeKind::Loop) loops.push_back(n.loop);
    collect(n.body, loops, out);
    collect(n.orelse, loops, out);
    if (n.kind == NodeKind::Loop) loops.pop_back();
  }
}

}  // namespace

Analysis::Analysis(Kernel& k) {
  std::vector<int> loops;
  collect(k.body, loops, ops);
}

int storage_of(const Kernel& k, int t) {
  while (t >= 0 && k.tensor(t).role == TensorRole::View && k.tensor(t).base >= 0) t = k.tensor(t).base;
  return t;
}

// A DMA read-modify-write (`nisa.dma_copy(..., dst_rmw_op=np.add)`) reads its destination back
// before writing it: the region depends on every earlier write of it.
bool reads_destination(const Op& op) {
  const Arg* rmw = op.arg("dst_rmw_op");
  return rmw && rmw->value.kind != Operand::Kind::None;
}

std::vector<const Access*> reads(const Op& op) {
  std::vector<const Access*> out;
  for (const auto& a : op.args)
    if (a.value.kind == Operand::Kind::Tile && !a.output) out.push_back(&a.value.access);
  if (op.dst && (op.accumulate || reads_destination(op))) out.push_back(&*op.dst);
  return out;
}

std::vector<const Access*> writes(const Op& op) {
  std::vector<const Access*> out;
  if (op.dst && op.cls != OpClass::Alloc) out.push_back(&*op.dst);
  for (const auto& a : op.args)
    if (a.value.kind == Operand::Kind::Tile && a.output) out.push_back(&a.value.access);
  return out;
}

std::vector<const OpRef*> Analysis::readers(const Kernel& k, int t) const {
  std::vector<const OpRef*> out;
  int s = storage_of(k, t);
  for (const auto& r : ops)
    for (const Access* a : reads(r.op()))
      if (storage_of(k, a->tensor) == s) {
        out.push_back(&r);
        break;
      }
  return out;
}

std::vector<const OpRef*> Analysis::writers(const Kernel& k, int t) const {
  std::vector<const OpRef*> out;
  int s = storage_of(k, t);
  for (const auto& r : ops)
    for (const Access* a : writes(r.op()))
      if (storage_of(k, a->tensor) == s) {
        out.push_back(&r);
        break;
      }
  return out;
}

std::vector<const OpRef*> Analysis::region_readers(const Kernel& k, const Access& a) const {
  std::vector<const OpRef*> out;
  Ranges ranges = k.ranges();
  for (const OpRef* r : readers(k, a.tensor))
    for (const Access* x : reads(r->op()))
      if (may_overlap_across(k, *x, a, ranges)) {
        out.push_back(r);
        break;
      }
  return out;
}

const OpRef* Analysis::find(const Node* node, size_t index) const {
  for (const auto& r : ops)
    if (r.node == node && r.index == index) return &r;
  return nullptr;
}

namespace {

// How far a dim's axis terms reach from its start: [lo, hi] with lo <= 0 <= hi (a negative stride
// walks down from the start). A term's largest index is size - 1, or (size - 1) // div capped by
// mod - 1 (a grid `i // K`, `i % K`); sizes at their largest over `ranges`.
std::optional<std::pair<int64_t, int64_t>> reach(const DimIndex& di, const Ranges& ranges) {
  int64_t lo = 0, hi = 0;
  for (const auto& t : di.terms) {
    auto sz = t.size.bounds(ranges);
    if (!sz) return std::nullopt;
    int64_t top = sz->second - 1;
    if (!t.affine()) top = std::min(top / t.div, t.mod > 0 ? t.mod - 1 : top);
    (t.stride < 0 ? lo : hi) += t.stride * top;
  }
  return std::make_pair(lo, hi);
}

// `b` with every variable not in `shared` renamed to one no other access uses (with the same
// range), so that subtracting it from `a` cancels only the shared variables.
Access rename_unshared(const Access& a, const Access& b, Ranges& ranges, const std::set<int>& shared) {
  std::set<int> vars;
  int next = 0;
  for (const Access* x : {&a, &b})
    for (const auto& d : x->dims) {
      for (int v : d.start.vars()) vars.insert(v);
      for (const auto& t : d.terms)
        for (int v : t.size.vars()) vars.insert(v);
    }
  if (!vars.empty()) next = *vars.rbegin() + 1;
  if (!ranges.empty()) next = std::max(next, ranges.rbegin()->first + 1);
  Access out = b;
  for (int v : vars) {
    if (shared.count(v)) continue;
    int fresh = next++;
    if (auto r = ranges.find(v); r != ranges.end()) ranges[fresh] = r->second;
    for (auto& d : out.dims) {
      d.start = d.start.substitute(v, IExpr::var(fresh));
      for (auto& t : d.terms) t.size = t.size.substitute(v, IExpr::var(fresh));
    }
  }
  return out;
}

}  // namespace

bool may_overlap_within(const Kernel& k, const Access& a, const Access& b0, const Ranges& ranges0,
                        const std::set<int>& shared) {
  if (storage_of(k, a.tensor) != storage_of(k, b0.tensor)) return false;
  if (a.tensor != b0.tensor || a.dims.size() != b0.dims.size()) return true;  // views: assume they may
  Ranges ranges = ranges0;
  Access b = rename_unshared(a, b0, ranges, shared);
  for (size_t d = 0; d < a.dims.size(); ++d) {
    // a covers [sa + la, sa + ha], b [sb + lb, sb + hb]: disjoint when sa - sb stays above
    // hb - la or below lb - ha for every value of the variables.
    auto diff = (a.dims[d].start - b.dims[d].start).bounds(ranges);
    auto ra = reach(a.dims[d], ranges), rb = reach(b.dims[d], ranges);
    if (!diff || !ra || !rb) continue;
    if (diff->second + ra->second < rb->first || diff->first + ra->first > rb->second) return false;
  }
  return true;
}

bool may_overlap_across(const Kernel& k, const Access& a, const Access& b, const Ranges& ranges) {
  return may_overlap_within(k, a, b, ranges, {});
}

std::set<int> carried_tensors(const Kernel& k, int loop) {
  const Node* node = loop_node(k, loop);
  std::set<int> carried;
  if (!node) return carried;
  std::set<int> inner = {loop};  // the loop and the loops nested in it: tensors declared there are per iteration
  for_each_node(node->body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Loop) inner.insert(n.loop);
  });
  std::set<int> read_so_far, written;
  for_each_node(node->body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      for (const Access* a : reads(op)) read_so_far.insert(storage_of(k, a->tensor));
      if (op.accumulate || !op.dst || op.cls == OpClass::Alloc) continue;
      int t = storage_of(k, op.dst->tensor);
      if (written.count(t) || inner.count(k.tensor(t).scope_loop) || uses_loop(*op.dst, loop)) continue;
      written.insert(t);
      if (read_so_far.count(t)) carried.insert(t);
    }
  });
  return carried;
}

bool independent_iterations(const Kernel& k, int loop) {
  const Loop& l = k.loops.at(loop);
  if (l.kind == LoopKind::Affine) return carried_tensors(k, loop).empty();
  // An unrolled loop (nl.static_range, or a range in the newer API, where affine_range is an alias
  // of it: nki-language.md section 2) promises nothing: its iterations are independent where the
  // dependences show it. A sequential loop (and a legacy range, which the compiler makes one)
  // keeps its order for the simulator's engines; it becomes affine through affine_loop first.
  bool unrolled = l.kind == LoopKind::Static || (l.kind == LoopKind::Range && k.dialect.new_api);
  return unrolled && iterations_commute(k, loop);
}

namespace {

// Every operation of `body` and of the nodes below it, and the loops among those nodes.
void collect_ops(const std::vector<Node>& body, std::vector<const Op*>& ops, std::set<int>& loops) {
  for_each_node(body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Loop) loops.insert(n.loop);
    for (const auto& op : n.ops) ops.push_back(&op);
  });
}

}  // namespace

// Whether `op` continues the accumulator its engine kept from an earlier instruction
// (`reduce_cmd=reduce`, or a command chosen per iteration: `reset_reduce if c == 0 else reduce`,
// a running sum carried across chunks inside the instruction, tests/kernels/corpus/new_cumsum_carry.py):
// a dependence on the engine's state, which no tile access shows.
bool continues_engine_accumulator(const Op& op) {
  const Arg* cmd = op.arg("reduce_cmd");
  if (!cmd) return false;
  const Operand& o = cmd->value;
  constexpr int64_t kReduce = 2;  // nisa.reduce_cmd: idle 0, reset 1, reduce 2, reset_reduce 3
  switch (o.kind) {
    case Operand::Kind::None: return false;
    case Operand::Kind::Symbol: return o.symbol.substr(o.symbol.rfind(':') + 1) == "reduce";
    case Operand::Kind::Number: return o.number == kReduce;
    case Operand::Kind::Index: return !o.index.is_constant() || o.index.constant() == kReduce;
    default: return true;
  }
}

bool adds_into_destination(const Op& op) {
  if (!op.dst) return false;
  if (op.accumulate) return true;
  if (op_kind(op) != "add" || op.mask.size()) return false;
  int same = 0, tiles = 0;
  for (const auto& a : op.args) {
    if (a.value.kind != Operand::Kind::Tile || a.output) continue;
    ++tiles;
    if (a.value.access == *op.dst) ++same;
  }
  return tiles == 2 && same == 1;
}

std::set<int> summed_carries(const Kernel& k, int loop) {
  std::set<int> sums;
  const Node* node = loop_node(k, loop);
  if (!node) return sums;
  for (int t : carried_tensors(k, loop)) {
    bool ok = true;
    for_each_node(node->body, [&](const Node& n, const std::vector<int>&) {
      for (const auto& op : n.ops) {
        bool touches = false;
        for (const Access* a : reads(op)) touches = touches || storage_of(k, a->tensor) == t;
        for (const Access* a : writes(op)) touches = touches || storage_of(k, a->tensor) == t;
        if (!touches) continue;
        // The add's own read of the region it writes is the only read: the other operand is no
        // part of the sum, the region the same tensor (no view) and fixed across iterations.
        bool adds = adds_into_destination(op) && op.dst->tensor == t && !uses_loop(*op.dst, loop) &&
                    writes(op).size() == 1;
        if (adds)
          for (const auto& a : op.args)
            if (a.value.kind == Operand::Kind::Tile && !a.output && !(a.value.access == *op.dst) &&
                storage_of(k, a.value.access.tensor) == t)
              adds = false;
        ok = ok && adds;
      }
    });
    if (ok) sums.insert(t);
  }
  return sums;
}

bool iterations_commute(const Kernel& k, int loop) { return iterations_commute(k, loop, {}); }

bool iterations_commute(const Kernel& k, int loop, const std::set<int>& sums) {
  const Node* node = loop_node(k, loop);
  if (!node) return false;
  for (int t : carried_tensors(k, loop))
    if (!sums.count(t)) return false;
  auto accumulates = [&](const Op& op) {
    return op.accumulate || (op.dst && sums.count(storage_of(k, op.dst->tensor)) && adds_into_destination(op));
  };
  const Loop& l = k.loops.at(loop);
  std::optional<int64_t> trip = l.trip();
  if (trip && *trip <= 1) return true;
  std::vector<const Op*> ops;
  std::set<int> inner = {loop};  // tiles declared at these loops are one per iteration of `loop`
  collect_ops(node->body, ops, inner);
  if (std::any_of(ops.begin(), ops.end(), [](const Op* op) { return continues_engine_accumulator(*op); })) return false;
  // The loops around it keep their values from one of its iterations to the next.
  std::set<int> shared = {loop};
  shared.insert(k.grid.begin(), k.grid.end());
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& around) {
    if (&n == node) shared.insert(around.begin(), around.end());
  });
  // A later iteration: the loop variable moved on by step * (1 + later), later in [0, trip - 2]
  // (unbounded when the trip is not known: nothing is then decided by its bounds).
  Ranges ranges = k.ranges();
  int later = k.loops.empty() ? 0 : k.loops.rbegin()->first + 1;
  if (!ranges.empty()) later = std::max(later, ranges.rbegin()->first + 1);
  if (trip) ranges[later] = {0, *trip - 2};
  IExpr moved_on = IExpr::var(loop) + (IExpr::var(later) + 1) * l.step;
  auto meet_later = [&](const Access& now, const Access& then) {
    Access shifted = then;
    for (auto& d : shifted.dims) {
      d.start = d.start.substitute(loop, moved_on);
      for (auto& t : d.terms) t.size = t.size.substitute(loop, moved_on);
    }
    return may_overlap_within(k, now, shifted, ranges, shared);
  };
  for (const Op* p : ops)
    for (const Access* w : writes(*p)) {
      int t = storage_of(k, w->tensor);
      if (inner.count(k.tensor(t).scope_loop)) continue;
      for (const Op* q : ops) {
        std::vector<const Access*> touched = reads(*q), written = writes(*q);
        touched.insert(touched.end(), written.begin(), written.end());
        for (const Access* x : touched) {
          if (storage_of(k, x->tensor) != t) continue;
          bool both_accumulate = accumulates(*p) && accumulates(*q) && w == &*p->dst &&
                                 (x == &*q->dst || (!q->accumulate && x->tensor == q->dst->tensor && *x == *q->dst));
          if (!both_accumulate && (meet_later(*w, *x) || meet_later(*x, *w))) return false;
        }
      }
    }
  return true;
}

bool size_uses_loop(const Access& a, int loop) {
  for (const auto& d : a.dims)
    for (const auto& t : d.terms)
      if (t.size.uses(loop)) return true;
  return false;
}

bool uses_loop(const DimIndex& d, int loop) {
  if (d.start.uses(loop)) return true;
  for (const auto& t : d.terms)
    if (t.size.uses(loop)) return true;
  return false;
}

bool uses_loop(const Access& a, int loop) {
  for (const auto& d : a.dims)
    if (uses_loop(d, loop)) return true;
  return false;
}

bool index_operand_uses(const Operand& o, int loop) {
  if (o.kind == Operand::Kind::Index) return o.index.uses(loop);
  if (o.number_when) return o.number_when->uses(loop);
  if (o.kind != Operand::Kind::Grid) return false;
  if (o.grid.start.uses(loop)) return true;
  for (const auto& t : o.grid.terms)
    if (t.size.uses(loop)) return true;
  return false;
}

bool index_operand_uses(const Op& op, int loop) {
  for (const auto& a : op.args)
    if (index_operand_uses(a.value, loop)) return true;
  return false;
}

bool has_index_operand(const Op& op) {
  for (const auto& a : op.args)
    if (a.value.kind == Operand::Kind::Index || a.value.kind == Operand::Kind::Grid || a.value.number_when) return true;
  return false;
}

bool uses_loop(const Op& op, int loop) {
  if (op.dst && uses_loop(*op.dst, loop)) return true;
  if (index_operand_uses(op, loop)) return true;
  for (const auto& a : op.args)
    if (a.value.kind == Operand::Kind::Tile && uses_loop(a.value.access, loop)) return true;
  return mask_uses(op, loop);
}

bool mask_uses(const Op& op, int loop) {
  for (const auto& c : op.mask)
    if (c.expr.uses(loop)) return true;
  return false;
}

bool same_mask(const Op& a, const Op& b) {
  if (a.has_mask != b.has_mask || a.mask.size() != b.mask.size()) return false;
  for (size_t i = 0; i < a.mask.size(); ++i)
    if (!(a.mask[i].expr == b.mask[i].expr) || a.mask[i].axes != b.mask[i].axes || a.mask[i].cmp != b.mask[i].cmp)
      return false;
  return true;
}

bool mask_implies(const Op& consumer, const Op& producer) {
  return !producer.has_mask || same_mask(consumer, producer);
}

bool masks_rows_only(const Op& op) {
  for (const auto& c : op.mask)
    for (const auto& [axis, coeff] : c.axes)
      if (axis != 0 && coeff != 0) return false;
  return true;
}

namespace {

// Whether `op` reads exactly the region `a` (an in-place update: `nisa.tensor_scalar(dst=den,
// data=den, ...)`).
bool reads_exactly(const Op& op, const Access& a) {
  for (const Access* x : reads(op))
    if (*x == a) return true;
  return false;
}

}  // namespace

const OpRef* sole_producer(const Kernel& k, const Analysis& an, const OpRef& consumer, const Access& a) {
  const Tensor& t = k.tensor(a.tensor);
  if (t.role != TensorRole::Value && t.role != TensorRole::Buffer) return nullptr;
  if (storage_of(k, a.tensor) != a.tensor) return nullptr;
  // The region's writers: one op, writing exactly it (a buffer holding several temporaries, like
  // v8[i0, i1, i2, 3, ...] and v8[i0, i1, i2, 4, ...], has one writer per region). Or two, the
  // later updating in place what the earlier wrote fresh in the same iteration (`den = sqrt(v)`
  // then `nisa.tensor_scalar(dst=den, data=den, op0=nl.add, ...)`, the destination-first style's
  // chain in one buffer): the later one is the producer, and folding it away leaves the buffer
  // holding the earlier value, which the fold reads as the producer's operand.
  Ranges ranges = k.ranges();
  std::vector<const OpRef*> ws;
  for (const OpRef* x : an.writers(k, a.tensor)) {
    bool overlaps = false;
    for (const Access* wa : writes(x->op())) overlaps = overlaps || may_overlap_across(k, *wa, a, ranges);
    if (overlaps) ws.push_back(x);
  }
  if (ws.empty() || ws.size() > 2) return nullptr;
  const OpRef* w = ws.back();
  const OpRef* fresh = nullptr;
  if (ws.size() == 2) {
    fresh = ws.front();
    if (fresh->block != w->block || fresh->position > w->position) std::swap(fresh, w);
    // The earlier write covers the region anew each iteration (else the in-place update carries a
    // value across iterations, which removing it would lose), alone in its statement, before the
    // update in the same block; the update reads exactly that region.
    const Op& f = fresh->op();
    if (fresh->block != w->block || fresh->position >= w->position || fresh->node->ops.size() != 1 || f.accumulate ||
        !f.dst || !(*f.dst == a) || !reads_exactly(w->op(), a))
      return nullptr;
  }
  const Op& wop = w->op();
  if (wop.accumulate || !wop.dst || !(*wop.dst == a)) return nullptr;
  // An earlier statement of the same block, alone in its statement; or an inner call of the
  // consumer's own statement (`nl.rsqrt(nl.add(x, eps))`).
  bool same_statement = w->node == consumer.node && w->index < consumer.index;
  bool earlier = w->block == consumer.block && w->position < consumer.position && w->node->ops.size() == 1;
  if (!same_statement && !earlier) return nullptr;
  if (fresh && !earlier) return nullptr;
  if (w->node->kind != NodeKind::Stmt || w->node->frozen) return nullptr;
  // Readers: the consumer, and the in-place update itself; nothing else sees the value.
  for (const OpRef* r : an.readers(k, a.tensor)) {
    bool same = r->node == consumer.node && r->index == consumer.index;
    bool update = fresh && r->node == w->node && r->index == w->index;
    for (const Access* x : reads(r->op())) {
      if (storage_of(k, x->tensor) != storage_of(k, a.tensor) || !may_overlap_across(k, *x, a, ranges)) continue;
      if (!(same || update) || !(*x == a)) return nullptr;
    }
  }
  return w;
}

bool is_declaration(const Op& op) {
  if (op.cls == OpClass::Alloc) return true;
  const ApiSpec* spec = find_api(op.api);
  return spec && spec->creates;
}

const OpRef* first_op_in(const Analysis& an, int loop) {
  for (const auto& r : an.ops)
    if (std::find(r.loops.begin(), r.loops.end(), loop) != r.loops.end() && !is_declaration(r.op())) return &r;
  return nullptr;
}

bool scalar_like(const Operand& o) {
  if (o.kind == Operand::Kind::Number) return true;
  if (o.kind != Operand::Kind::Tile) return false;
  auto shape = o.access.tile_shape();
  if (shape.empty() || shape.size() > 2) return false;
  return shape.size() == 1 || shape[1] == IExpr(1);
}

bool tensor_scalar_form(const Operand& x, const Operand& y) {
  bool xn = x.kind == Operand::Kind::Number, yn = y.kind == Operand::Kind::Number;
  if (xn || yn) return xn != yn;
  if (x.kind != Operand::Kind::Tile || y.kind != Operand::Kind::Tile) return false;
  return scalar_like(x) != scalar_like(y);
}

std::string op_kind(const Op& op) {
  auto sym = [&](const char* p) -> std::string {
    const Arg* a = op.arg(p);
    return a && a->value.kind == Operand::Kind::Symbol ? a->value.symbol : "";
  };
  const std::string& api = op.api;
  if (api == "nisa.tensor_tensor") return sym("op");
  if (api == "nisa.tensor_scalar") return "ts(" + sym("op0") + (sym("op1").empty() ? "" : "+" + sym("op1")) + ")";
  if (api == "nisa.scalar_tensor_tensor") return "stt(" + sym("op0") + "+" + sym("op1") + ")";
  if (api == "nisa.activation" || api == "nisa.activation_reduce") return "act(" + sym("op") + ")";
  if (api == "nisa.reciprocal" || api == "nl.reciprocal") return "reciprocal";
  if (api == "nl.copy" || api == "nisa.tensor_copy" || api == "assign") return op.accumulate ? "accumulate" : "copy";
  if (api == "nisa.tensor_reduce") return "reduce(" + sym("op") + ")";
  // A matmul by the identity with is_transpose is the transpose nc_transpose writes in other styles.
  if (api == "nisa.nc_matmul" && sym("is_transpose") == "True") return "transpose";
  if (op.cls == OpClass::Activation && api.rfind("nl.", 0) == 0) return "act(" + api.substr(3) + ")";
  if (op.cls == OpClass::Reduce && api.rfind("nl.", 0) == 0 && api != "nl.loop_reduce") {
    std::string r = api.substr(3);
    return "reduce(" + (r == "sum" ? std::string("add") : r) + ")";
  }
  if (op.cls == OpClass::Elementwise && api.rfind("nl.", 0) == 0) {
    // nl.multiply(x, 0.5) and nl.multiply(x, inv[P, 1]) are tensor_scalar instructions.
    const Arg *x = op.arg("x"), *y = op.arg("y");
    if (x && y && tensor_scalar_form(x->value, y->value)) return "ts(" + api.substr(3) + ")";
    return api.substr(3);
  }
  return to_string(op.cls);
}

namespace {

std::string nest_trips(const Kernel& k, const OpRef& r) {
  std::string trips;
  for (int l : r.loops) {
    auto t = k.loops.at(l).trip();
    trips += (trips.empty() ? "" : "x") + (t ? std::to_string(*t) : std::string("?"));
  }
  return trips.empty() ? "-" : trips;
}

}  // namespace

std::string op_signature(const Kernel& k, const Analysis& an, const OpRef& r) {
  std::string base = nest_trips(k, r) + "/" + op_kind(r.op());
  int ordinal = 0;
  for (const auto& other : an.ops) {
    if (other.node == r.node && other.index == r.index) break;
    if (nest_trips(k, other) + "/" + op_kind(other.op()) == base) ++ordinal;
  }
  return fmt::format("{}#{}", base, ordinal);
}

}  // namespace loopnest
