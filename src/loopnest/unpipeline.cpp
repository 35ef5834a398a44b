// Hand-written software pipelines seen through (session 30). An author who schedules loads by hand
// loads tile `start` before the loop (the prologue) and, in iteration j, the tile of iteration j + 1
// into the other slot of a rotating buffer (`buf[(j + 1) % 2] = nl.load(...)`, under `if j + 1 < N:`)
// before computing tile j from `buf[j % 2]`. On the form the buffer then carries a value from one
// iteration to the next, so no move sees a per-iteration tile (jam, hoist, fusion, free size...).
//
// unpipeline_loops puts every such prefetch back into its own iteration: the prologue goes, the
// prefetch loads tile j (its accesses with j - 1 for j) at the top of the body, outside the guard,
// and the rotating buffer becomes one tile declared in the loop (its slot dim dropped, as
// contract.cpp does for block buffers). The same loads and the same compute; the Tile scheduler
// overlaps an iteration's load with the previous iteration's compute by itself (a loop's tiles are
// renamed per iteration), so the simulated latency is the same (a ping-pong of row tiles: 7.332 us
// both ways). Also undone: a loop stopping one tile early whose epilogue computes the last tile
// (it runs once more instead), and two named tiles swapped by rebinding (`x_next = nl.load(...)`,
// ..., `x_cur = x_next`: the next tile loaded into `x_cur` itself).
//
// Legal from the form: the loop has constant bounds and step 1; the guard holds in every iteration
// but the last (host-integer bindings beside the prefetches go with it); the prefetch is a plain
// DMA of HBM tensors no operation writes into slot `(j + 1) % D` of an on-chip buffer (one slot dim
// of constant size D), or such a DMA into a fresh tile that only a partition broadcast into the
// slot reads (session 37); it writes the whole slot, or a region of it whose extent is a function
// of j alone (a ragged last tile) when every read of slot j % D in iteration j stays inside the
// region written for j, evaluated over the loop's values; the prologue, in the loop's block before
// it, is the same operations at j = start - 1 into slot `start % D`; the buffer is declared once
// (in that block, or further out) and every other access of it (views of a whole slot included) is
// a read inside the loop of slot `j % D`. So slot j % D holds tile j while iteration j reads it,
// in both programs. A scratch ring of the same loop (written, then read, in each iteration at slot
// j % D) becomes one tile per iteration with it.
#include <algorithm>
#include <functional>
#include <set>

#include "loopnest/transform.h"

namespace loopnest {

namespace {

// The source text of `e` when it sits on one line; "" otherwise.
std::string source_of(const Kernel& k, const nki::Expr& e) {
  const nki::Span& sp = e.span;
  if (!k.module || sp.line == 0 || sp.line != sp.end_line || sp.col == 0 || sp.end_col <= sp.col) return "";
  std::string line = k.module->file->line_text(sp.line);
  if (sp.end_col - 1 > line.size()) return "";
  return line.substr(sp.col - 1, sp.end_col - sp.col);
}

bool has(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The loop of node `n` when a hand-written pipeline in it can be undone: a device loop of constant
// bounds, step 1, at least one iteration; nullptr otherwise.
const Loop* pipelinable_loop(const Kernel& k, const Node& n) {
  if (n.kind != NodeKind::Loop || n.frozen) return nullptr;
  const Loop& l = k.loops.at(n.loop);
  if (l.host_items || l.program || l.step != 1 || !l.start.is_constant() || !l.stop.is_constant()) return nullptr;
  return l.stop.constant() - l.start.constant() >= 1 ? &l : nullptr;
}

// Whether If node `n` holds in every iteration of loop `l` but the last (`if j + 1 < N:`, `if j <
// N - 1:`), judged by evaluating it over the loop's values.
bool guards_all_but_last(const Node& n, const Loop& l, int64_t start, int64_t stop) {
  if (n.kind != NodeKind::If || !n.orelse.empty() || n.continues || n.frozen) return false;
  for (const IExpr* e : {&n.cond_l, &n.cond_r})
    for (int v : e->vars())
      if (v != l.id) return false;
  for (int64_t j = start; j < stop; ++j) {
    std::map<int, int64_t> at = {{l.id, j}};
    auto a = n.cond_l.eval(at), b = n.cond_r.eval(at);
    if (!a || !b || holds(*a, n.cond, *b) != (j + 1 < stop)) return false;
  }
  return true;
}

// Whether `a` covers a whole slot of its buffer: every dim after the slot dim from 0 over its size.
bool whole_slot(const Kernel& k, const Access& a) {
  const Tensor& t = k.tensor(a.tensor);
  if (a.dims.size() != t.shape.size()) return false;
  for (size_t d = 1; d < a.dims.size(); ++d) {
    const DimIndex& di = a.dims[d];
    if (di.start != IExpr(0) || di.terms.size() != 1 || di.terms[0].stride != 1 || !di.terms[0].affine() ||
        di.terms[0].size != t.shape[d])
      return false;
  }
  return true;
}

// Whether `a` writes a region of one slot whose extent is a function of loop `loop` alone (a
// ragged last tile: `ring[slot, 0:nrows, :]` with `nrows = min(P, M - r0)`): every dim after the
// slot dim one axis, stride 1, its start and size naming no other variable. The reads it must
// cover are checked over the loop's values (buffer_ok).
bool slot_region(const Kernel& k, const Access& a, int loop) {
  if (whole_slot(k, a)) return true;
  if (a.dims.size() != k.tensor(a.tensor).shape.size()) return false;
  for (size_t d = 1; d < a.dims.size(); ++d) {
    const DimIndex& di = a.dims[d];
    if (di.terms.size() != 1 || di.terms[0].stride != 1 || !di.terms[0].affine()) return false;
    for (const IExpr* e : {&di.start, &di.terms[0].size})
      for (int v : e->vars())
        if (v != loop) return false;
  }
  return true;
}

// A plain DMA reading HBM tensors nothing writes: loading tile j + 1 now or in iteration j + 1
// reads the same.
bool plain_hbm_dma(const Kernel& k, const Analysis& an, const Op& op) {
  if ((op.cls != OpClass::Load && op.cls != OpClass::DmaCopy) || op.accumulate || op.has_mask || indirect_dma(op))
    return false;
  for (const Access* a : reads(op)) {
    const Tensor& src = k.tensor(a->tensor);
    if (src.on_chip() || !an.writers(k, storage_of(k, a->tensor)).empty()) return false;
  }
  return true;
}

// The operations of statement nodes, in order.
std::vector<const Op*> ops_of(const std::vector<const Node*>& nodes) {
  std::vector<const Op*> out;
  for (const Node* n : nodes)
    for (const Op& op : n->ops) out.push_back(&op);
  return out;
}

// The rotating buffer statements `nodes` fill, slot `(j + 1) % D` of it (or -1): a plain DMA into
// (a region of) the slot, or a DMA into a fresh tile read only by a partition broadcast into the
// slot (`ring[(s + 1) % 2] = nl.load(b[s + 1:s + 2, :]).broadcast_to((P, F))`).
int prefetched_buffer(const Kernel& k, const Analysis& an, const std::vector<const Node*>& nodes, int loop) {
  for (const Node* n : nodes)
    if (n->kind != NodeKind::Stmt || n->frozen) return -1;
  const auto ops = ops_of(nodes);
  if (ops.empty() || ops.size() > 2) return -1;
  const Op& last = *ops.back();
  if (!last.dst || last.accumulate || last.has_mask || last.result >= 0) return -1;
  if (ops.size() == 1) {
    if (!plain_hbm_dma(k, an, last)) return -1;
  } else {
    const Op& load = *ops[0];
    if (!plain_hbm_dma(k, an, load) || load.result < 0 || (load.dst && load.dst->tensor != load.result) ||
        last.cls != OpClass::Broadcast)
      return -1;
    // The broadcast reads the loaded tile whole, and nothing else reads it.
    int tiles = 0;
    for (const auto& a : last.args)
      if (a.value.kind == Operand::Kind::Tile) {
        ++tiles;
        if (a.value.access.tensor != load.result || !accesses_whole(k, a.value.access)) return -1;
      }
    if (tiles != 1) return -1;
    for (const auto& r : an.ops)
      if (&r.op() != &last)
        for (const Access* a : reads(r.op()))
          if (storage_of(k, a->tensor) == load.result) return -1;
  }
  const Tensor& buf = k.tensor(last.dst->tensor);
  if (buf.role != TensorRole::Buffer || !buf.on_chip() || buf.partition_dim != 1 || buf.list_loop >= 0 ||
      buf.bound_items || !buf.shape[0].is_constant() || buf.shape[0].constant() < 2)
    return -1;
  const int64_t slots = buf.shape[0].constant();
  if (!last.dst->dims[0].terms.empty() || last.dst->dims[0].start != IExpr::mod(IExpr::var(loop) + 1, slots) ||
      !slot_region(k, *last.dst, loop))
    return -1;
  return buf.id;
}

// Whether DMA `op` moves what `want` (the prefetch at j = start - 1) does: same call, sources and
// options (the destinations are the caller's).
bool same_dma(const Op& op, const Op& want) {
  if (op.api != want.api || op.has_mask || op.accumulate || op.args.size() != want.args.size()) return false;
  for (size_t a = 0; a < op.args.size(); ++a) {
    const Operand &x = op.args[a].value, &y = want.args[a].value;
    if (op.args[a].name != want.args[a].name || x.kind != y.kind) return false;
    if (x.kind == Operand::Kind::Tile && !(x.access == y.access)) return false;
    if (x.kind != Operand::Kind::Tile && x.kind != Operand::Kind::None && x.kind != Operand::Kind::Symbol) return false;
    if (x.kind == Operand::Kind::Symbol && x.symbol != y.symbol) return false;
  }
  return true;
}

// The prefetch `pre` (statement of loop `l`) as it loads the first tile, at j = start - 1.
Op first_load(const Node& pre, const Loop& l) {
  Op want = pre.ops[0];
  const IExpr at(l.start.constant() - 1);
  if (want.dst) substitute_access(*want.dst, l.id, at);
  for (auto& a : want.args)
    if (a.value.kind == Operand::Kind::Tile) substitute_access(a.value.access, l.id, at);
  return want;
}

// Whether two integer expressions have the same value (a prologue's `0` and a prefetch's `(j + 1) %
// 2` at j = -1; `128` and `min(10944 - 128 * 0, 128)`).
bool same_value(const IExpr& a, const IExpr& b) {
  if (a == b) return true;
  auto x = a.eval({}), y = b.eval({});
  return x && y && *x == *y;
}

// Whether accesses `a` and `b` denote the same elements the same way (value by value).
bool same_access(const Access& a, const Access& b) {
  if (a == b) return true;
  if (a.tensor != b.tensor || a.rank != b.rank || a.dims.size() != b.dims.size()) return false;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const DimIndex &x = a.dims[d], &y = b.dims[d];
    if (!same_value(x.start, y.start) || x.terms.size() != y.terms.size()) return false;
    for (size_t t = 0; t < x.terms.size(); ++t) {
      const AxisTerm &u = x.terms[t], &v = y.terms[t];
      if (u.axis != v.axis || u.stride != v.stride || u.div != v.div || u.mod != v.mod || !same_value(u.size, v.size))
        return false;
    }
  }
  return true;
}

// The operations of prefetch `nodes` (statements of loop `l`) as they load the first tile, at j =
// start - 1.
std::vector<Op> first_loads(const std::vector<const Node*>& nodes, const Loop& l) {
  std::vector<Op> out;
  const IExpr at(l.start.constant() - 1);
  for (const Op* op : ops_of(nodes)) {
    Op want = *op;
    if (want.dst) substitute_access(*want.dst, l.id, at);
    for (auto& a : want.args)
      if (a.value.kind == Operand::Kind::Tile) substitute_access(a.value.access, l.id, at);
    out.push_back(std::move(want));
  }
  return out;
}

// Whether operations `ops` (a prologue) do what `want` (a prefetch at j = start - 1) does: the same
// calls, sources, options and slot; the fresh tile a load makes for a broadcast paired with the
// prologue's own.
bool same_ops(const std::vector<const Op*>& ops, const std::vector<Op>& want) {
  if (ops.size() != want.size()) return false;
  std::map<int, int> pairs;
  auto same_tile = [&](const Access& x, const Access& y) {
    Access mapped = y;
    if (auto it = pairs.find(y.tensor); it != pairs.end()) mapped.tensor = it->second;
    return same_access(x, mapped);
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op &op = *ops[i], &w = want[i];
    if (op.api != w.api || op.cls != w.cls || op.has_mask || op.accumulate || op.args.size() != w.args.size() ||
        (op.result >= 0) != (w.result >= 0) || op.dst.has_value() != w.dst.has_value())
      return false;
    if (w.result >= 0) {
      pairs[w.result] = op.result;
      if (w.dst && (w.dst->tensor != w.result || op.dst->tensor != op.result)) return false;
    } else if (!w.dst || !same_tile(*op.dst, *w.dst)) {
      return false;
    }
    for (size_t a = 0; a < op.args.size(); ++a) {
      const Operand &x = op.args[a].value, &y = w.args[a].value;
      if (op.args[a].name != w.args[a].name || x.kind != y.kind) return false;
      switch (x.kind) {
        case Operand::Kind::Tile: if (!same_tile(x.access, y.access)) return false; break;
        case Operand::Kind::Symbol: if (x.symbol != y.symbol) return false; break;
        case Operand::Kind::Shape:
          if (x.shape.size() != y.shape.size()) return false;
          for (size_t d = 0; d < x.shape.size(); ++d)
            if (!same_value(x.shape[d], y.shape[d])) return false;
          break;
        case Operand::Kind::None: break;
        default: return false;
      }
    }
  }
  return true;
}

// The elements [lo, hi] dim `di` covers with the loop variables at `at`; nullopt when that does
// not evaluate.
std::optional<std::pair<int64_t, int64_t>> extent(const DimIndex& di, const std::map<int, int64_t>& at) {
  auto lo = di.start.eval(at);
  if (!lo) return std::nullopt;
  int64_t hi = *lo;
  for (const AxisTerm& t : di.terms) {
    if (t.stride < 0) return std::nullopt;
    std::optional<int64_t> top;
    if (t.affine()) {
      if (auto size = t.size.eval(at); size && *size >= 1) top = *size - 1;
    } else {
      top = t.max_index();
    }
    if (!top) return std::nullopt;
    hi += *top * t.stride;
  }
  return std::make_pair(*lo, hi);
}

// Whether every read in `reads` (of slot j % D, in iteration j) stays inside the region the slot
// holds then: the prologue's `first` at j = start, the prefetch's `region` of iteration j - 1 after.
// `lag` 1; a slot written in its own iteration (a scratch ring), `lag` 0.
bool reads_inside(const std::vector<Access>& reads, const Access& first, const Access& region, const Loop& l,
                  int64_t lag = 1) {
  const int64_t start = l.start.constant(), stop = l.stop.constant();
  for (const Access& r : reads) {
    for (size_t d = 1; d < r.dims.size(); ++d)
      for (const IExpr* e : [&] {
             std::vector<const IExpr*> es = {&r.dims[d].start};
             for (const AxisTerm& t : r.dims[d].terms) es.push_back(&t.size);
             return es;
           }())
        for (int v : e->vars())
          if (v != l.id) return false;
    for (int64_t j = start; j < stop; ++j) {
      const Access& w = j == start ? first : region;
      const std::map<int, int64_t> at_w = {{l.id, j - lag}}, at_r = {{l.id, j}};
      for (size_t d = 1; d < r.dims.size(); ++d) {
        auto got = extent(w.dims[d], at_w), want = extent(r.dims[d], at_r);
        if (!got || !want || want->first < got->first || want->second > got->second) return false;
      }
    }
  }
  return true;
}

struct Pipeline {
  int loop_node = -1, loop = -1;
  int guard = -1;                 // the If node holding the prefetches
  // Each prefetch's statement nodes (a load, or a load and the broadcast of what it loaded), in order.
  std::vector<std::vector<int>> prefetches;
  std::vector<std::vector<int>> prologues;  // one per prefetch
  std::vector<int> declarations;  // one per buffer
  std::vector<int> buffers;
  std::vector<int> views;         // Meta nodes naming one slot (`d_t = dbuf[j % 2]`): dropped
  // Unguarded prefetches (the loop stops one iteration early): the nodes after the loop computing
  // its last tile again (Meta nodes among them included); the loop then runs once more instead.
  std::vector<int> epilogue;
};

// Matching an epilogue against the loop's body at j = stop: the tiles each side makes per
// iteration are paired as they are met (`y` of the body, `y` again after the loop).
struct Matcher {
  const Kernel& k;
  int loop;
  int64_t at;
  std::map<int, int> pairs;

  bool tensor(int b, int e) {
    if (b == e) return k.tensor(b).scope_loop != loop;
    const Tensor &tb = k.tensor(b), &te = k.tensor(e);
    if (tb.scope_loop != loop || tb.memory != te.memory || tb.dtype != te.dtype || tb.role != te.role ||
        tb.shape != te.shape || tb.partition_dim != te.partition_dim)
      return false;
    auto [it, added] = pairs.emplace(b, e);
    return added ? true : it->second == e;
  }
  bool access(const Access& b, const Access& e) {
    Access sb = b;
    substitute_access(sb, loop, IExpr(at));
    if (!tensor(sb.tensor, e.tensor)) return false;
    sb.tensor = e.tensor;
    return sb == e;
  }
  bool operand(const Operand& b, const Operand& e) {
    if (b.kind != e.kind || b.number_when || e.number_when) return false;
    switch (b.kind) {
      case Operand::Kind::Tile: return access(b.access, e.access);
      case Operand::Kind::Number: return b.number == e.number && b.integer == e.integer && b.number_type == e.number_type;
      case Operand::Kind::Symbol: return b.symbol == e.symbol;
      case Operand::Kind::Shape: return b.shape == e.shape;
      case Operand::Kind::None: return true;
      case Operand::Kind::Index: return b.index.substitute(loop, IExpr(at)) == e.index;
      default: return false;
    }
  }
  bool op(const Op& b, const Op& e) {
    if (b.api != e.api || b.cls != e.cls || b.engine != e.engine || b.accumulate != e.accumulate || b.has_mask ||
        e.has_mask || b.dtype != e.dtype || b.args.size() != e.args.size() || b.dst.has_value() != e.dst.has_value() ||
        (b.result >= 0) != (e.result >= 0))
      return false;
    if (b.result >= 0 && !tensor(b.result, e.result)) return false;
    if (b.dst && !access(*b.dst, *e.dst)) return false;
    for (size_t i = 0; i < b.args.size(); ++i)
      if (b.args[i].name != e.args[i].name || b.args[i].output != e.args[i].output ||
          !operand(b.args[i].value, e.args[i].value))
        return false;
    return true;
  }
  bool node(const Node& b, const Node& e) {
    if (b.kind != NodeKind::Stmt || e.kind != NodeKind::Stmt || b.frozen || e.frozen || b.ops.size() != e.ops.size())
      return false;
    for (size_t i = 0; i < b.ops.size(); ++i)
      if (!op(b.ops[i], e.ops[i])) return false;
    return true;
  }
};

// The epilogue of loop node `n` (in `block`) whose body, without the prefetches `skip`, is
// straight-line statements: the nodes after the loop doing that body's work at j = stop, the Meta
// nodes among them (`tl = T - 1`, `cur = xbuf[tl % 2]`) included. Empty when there is none.
std::vector<int> epilogue_of(const Kernel& k, const std::vector<Node>& block, const Node& n, const std::vector<int>& skip) {
  const Loop& l = k.loops.at(n.loop);
  std::vector<const Node*> work;
  for (const Node& b : n.body) {
    if (has(skip, b.id) || b.kind == NodeKind::Meta) continue;
    if (b.kind != NodeKind::Stmt) return {};
    work.push_back(&b);
  }
  if (work.empty()) return {};
  Matcher m{k, l.id, l.stop.constant(), {}};
  std::vector<int> out;
  size_t at = 0;
  while (at < block.size() && block[at].id != n.id) ++at;
  size_t next = 0;
  for (size_t i = at + 1; i < block.size() && next < work.size(); ++i) {
    const Node& e = block[i];
    if (e.kind == NodeKind::Meta && e.meta != MetaKind::Return && e.meta != MetaKind::Append &&
        e.meta != MetaKind::Assert) {
      out.push_back(e.id);
      continue;
    }
    if (!m.node(*work[next], e)) return {};
    out.push_back(e.id);
    ++next;
  }
  return next == work.size() ? out : std::vector<int>{};
}

// The accesses of tensor `t` (not a view of it) op makes.
std::vector<const Access*> accesses_of(const Op& op, int t) {
  std::vector<const Access*> out;
  if (op.dst && op.dst->tensor == t) out.push_back(&*op.dst);
  for (const auto& a : op.args)
    if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) out.push_back(&a.value.access);
  return out;
}

// The pipeline of buffer `buf` whose prefetch is `pre` (its statement nodes) in loop node
// `loop_node` of block `block`.
bool buffer_ok(Kernel& k, const Analysis& an, const std::vector<Node>& block, const Node& loop_node,
               const std::vector<const Node*>& pre, int buf, Pipeline& p) {
  // The epilogue's reads (slot stop % D, after the loop) go with it.
  std::set<int> gone(p.epilogue.begin(), p.epilogue.end());
  std::set<int> pre_ids;
  for (const Node* n : pre) pre_ids.insert(n->id);
  const Loop& l = k.loops.at(loop_node.loop);
  const Tensor& t = k.tensor(buf);
  const int64_t slots = t.shape[0].constant();
  for (const auto& other : k.tensors)
    if (other.id != buf && storage_of(k, other.id) == buf) return false;  // a reshape of it
  // The prologue: the prefetch at j = start - 1 into slot start % D, its statements the ones
  // ending with the write of the buffer (a load and its broadcast may be one statement or two).
  const std::vector<Op> want = first_loads(pre, l);
  std::vector<int> prologue;
  const Access* first = nullptr;
  int declaration = -1, declared_in = -1;
  size_t loop_at = block.size();
  for (size_t i = 0; i < block.size(); ++i)
    if (block[i].id == loop_node.id) loop_at = i;
  for (size_t i = 0; i < loop_at; ++i) {
    const Node& n = block[i];
    // The newer API's list of buffers (`x_sb = [nl.ndarray(...) for _ in range(2)]`): declared by
    // the comprehension's node.
    if (n.kind == NodeKind::Inline && n.helper == kComprehensionHelper && t.host_list && n.body.size() == 1 &&
        n.body[0].ops.size() == 1 && is_declaration(n.body[0].ops[0]) && n.body[0].ops[0].dst &&
        n.body[0].ops[0].dst->tensor == buf)
      declaration = n.id, declared_in = n.body[0].id;
    if (n.kind != NodeKind::Stmt || n.frozen) continue;
    if (n.ops.size() == 1 && is_declaration(n.ops[0]) && n.ops[0].cls == OpClass::Alloc && n.ops[0].dst &&
        n.ops[0].dst->tensor == buf) {
      declaration = n.id;
      continue;
    }
    const Op& op = n.ops.back();
    if (!op.dst || op.dst->tensor != buf || is_declaration(op)) continue;
    if (!prologue.empty()) return false;
    std::vector<const Node*> nodes = {&n};
    size_t count = n.ops.size();
    for (size_t j = i; count < want.size() && j-- > 0;) {
      if (block[j].kind != NodeKind::Stmt || block[j].frozen) return false;
      nodes.insert(nodes.begin(), &block[j]);
      count += block[j].ops.size();
    }
    if (!same_ops(ops_of(nodes), want)) return false;
    for (const Node* m : nodes) prologue.push_back(m->id);
    first = &*op.dst;
  }
  // A buffer declared further out (at the kernel's top, the prologue in an enclosing loop's body):
  // its declaration, outside the loop.
  if (declaration < 0)
    for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
      if (n.kind == NodeKind::Stmt && !n.frozen && n.ops.size() == 1 && is_declaration(n.ops[0]) &&
          n.ops[0].cls == OpClass::Alloc && n.ops[0].dst && n.ops[0].dst->tensor == buf && !has(loops, l.id))
        declaration = n.id;
    });
  if (prologue.empty() || declaration < 0) return false;
  // Every other access: a read of slot j % D inside the loop, inside the region the slot holds in
  // that iteration when the prefetch writes part of it.
  const Access& region = *ops_of(pre).back()->dst;
  const bool partial = !whole_slot(k, region) || !whole_slot(k, *first);
  std::vector<Access> slot_reads;
  const IExpr slot = IExpr::mod(IExpr::var(l.id), slots);
  auto is_mine = [&](int id) {
    return has(prologue, id) || id == declaration || id == declared_in || pre_ids.count(id) || gone.count(id);
  };
  for (const auto& r : an.ops) {
    const Op& op = r.op();
    auto acc = accesses_of(op, buf);
    bool via_view = false;
    for (const Access* a : reads(op))
      if (a->tensor != buf && storage_of(k, a->tensor) == buf) via_view = true;
    if (via_view && (partial || !is_mine(r.node->id))) return false;
    if (acc.empty() || is_mine(r.node->id)) continue;
    if (!has(r.loops, l.id) || r.node->frozen || r.node->kind != NodeKind::Stmt) return false;
    if (op.dst && op.dst->tensor == buf) return false;
    for (const Access* a : acc) {
      if (a->dims.size() != t.shape.size() || !a->dims[0].terms.empty() || a->dims[0].start != slot) return false;
      slot_reads.push_back(*a);
    }
  }
  if (partial && !reads_inside(slot_reads, *first, region, l)) return false;
  bool bad_view = false;
  std::vector<int> views;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
    if (n.kind != NodeKind::Meta || !n.view || storage_of(k, n.view->tensor) != buf || gone.count(n.id)) return;
    if (partial || n.view->tensor != buf || !has(loops, l.id) || n.view->dims.empty() ||
        !n.view->dims[0].terms.empty() || n.view->dims[0].start != slot)
      bad_view = true;
    views.push_back(n.id);
  });
  if (bad_view) return false;
  p.prologues.push_back(prologue);
  p.declarations.push_back(declaration);
  p.buffers.push_back(buf);
  p.views.insert(p.views.end(), views.begin(), views.end());
  return true;
}

// The item a comprehension declaring a list of buffers makes, as written (`nl.ndarray((P, cols),
// dtype=x.dtype, buffer=nl.sbuf)` of `[... for _ in range(2)]`); "" when not one line.
std::string comprehension_item(const Kernel& k, const Node& n) {
  if (!n.origin || n.origin->kind != nki::StmtKind::Assign) return "";
  const auto& a = static_cast<const nki::AssignStmt&>(*n.origin);
  if (!a.value || a.value->kind != nki::ExprKind::ListComp) return "";
  const auto& c = static_cast<const nki::ComprehensionExpr&>(*a.value);
  return c.elt ? source_of(k, *c.elt) : "";
}

// The prefetches among `body` (statements of loop `loop`): one statement, or a load and the
// broadcast of what it loaded in the next; `all` false when some statement is none (but the
// bindings of host integers).
std::vector<std::pair<std::vector<const Node*>, int>> prefetches_in(const Kernel& k, const Analysis& an,
                                                                   const std::vector<Node>& body, int loop, bool& all) {
  std::vector<std::pair<std::vector<const Node*>, int>> out;
  all = true;
  for (size_t i = 0; i < body.size(); ++i) {
    // The next tile's coordinates bound beside the prefetch (`rn0 = ((t + 1) // n_col) * P`): host
    // integers, gone with the guard (a statement after it naming one does not print back).
    const MetaKind m = body[i].meta;
    if (body[i].kind == NodeKind::Meta && !body[i].view &&
        (m == MetaKind::Binding || m == MetaKind::None || m == MetaKind::Pass || m == MetaKind::Docstring))
      continue;
    if (int buf = prefetched_buffer(k, an, {&body[i]}, loop); buf >= 0) {
      out.push_back({{&body[i]}, buf});
    } else if (i + 1 < body.size() && (buf = prefetched_buffer(k, an, {&body[i], &body[i + 1]}, loop)) >= 0) {
      out.push_back({{&body[i], &body[i + 1]}, buf});
      ++i;
    } else {
      all = false;
    }
  }
  return out;
}

std::vector<int> ids_of(const std::vector<const Node*>& nodes) {
  std::vector<int> out;
  for (const Node* n : nodes) out.push_back(n->id);
  return out;
}

// A rotating buffer loop node `ln` writes and reads only within one iteration (`res[j % 2, 0:rows,
// :] = ...`, then stored from there): its slot dim only keeps iterations apart, which the form
// reads as a value carried across them. Undone with the loop's pipeline, it is one tile per
// iteration too. Legal: declared outside the loop; every access a statement of the loop's body (not
// nested), of slot j % D; one write, first, the reads after it inside the region it writes.
bool scratch_ring(const Kernel& k, const Analysis& an, const Node& ln, const Loop& l, int buf, int& declaration) {
  const Tensor& t = k.tensor(buf);
  if (t.role != TensorRole::Buffer || !t.on_chip() || t.partition_dim != 1 || t.list_loop >= 0 || t.bound_items ||
      t.host_list || t.shape.empty() || !t.shape[0].is_constant() || t.shape[0].constant() < 2)
    return false;
  for (const auto& other : k.tensors)
    if (other.id != buf && storage_of(k, other.id) == buf) return false;
  declaration = -1;
  bool viewed = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
    if (n.kind == NodeKind::Meta && n.view && storage_of(k, n.view->tensor) == buf) viewed = true;
    if (n.kind == NodeKind::Stmt && !n.frozen && n.ops.size() == 1 && is_declaration(n.ops[0]) &&
        n.ops[0].cls == OpClass::Alloc && n.ops[0].dst && n.ops[0].dst->tensor == buf && !has(loops, l.id))
      declaration = n.id;
  });
  if (viewed || declaration < 0) return false;
  std::set<int> body;
  for (const Node& b : ln.body) body.insert(b.id);
  const IExpr slot = IExpr::mod(IExpr::var(l.id), t.shape[0].constant());
  const Access* write = nullptr;
  int write_order = -1;
  std::vector<Access> slot_reads;
  for (const auto& r : an.ops) {
    const Op& op = r.op();
    auto acc = accesses_of(op, buf);
    if (acc.empty() || r.node->id == declaration) continue;
    if (!body.count(r.node->id) || r.node->frozen || r.node->kind != NodeKind::Stmt) return false;
    for (const Access* a : acc)
      if (a->dims.size() != t.shape.size() || !a->dims[0].terms.empty() || a->dims[0].start != slot) return false;
    if (op.dst && op.dst->tensor == buf) {
      if (write || op.accumulate || op.has_mask || acc.size() != 1) return false;
      write = &*op.dst;
      write_order = r.order;
      continue;
    }
    if (!write || r.order < write_order) return false;
    for (const Access* a : acc) slot_reads.push_back(*a);
  }
  if (!write || !slot_region(k, *write, l.id)) return false;
  return whole_slot(k, *write) || reads_inside(slot_reads, *write, *write, l, 0);
}

std::optional<Pipeline> pipeline_of(Kernel& k, const std::vector<Node>& block, const Node& n) {
  const Loop* lp = pipelinable_loop(k, n);
  if (!lp) return std::nullopt;
  const Loop& l = *lp;
  const int64_t start = l.start.constant(), stop = l.stop.constant();
  Analysis an(k);
  Pipeline p;
  p.loop_node = n.id;
  p.loop = n.loop;
  for (const Node& g : n.body) {
    if (!guards_all_but_last(g, l, start, stop)) continue;
    if (p.guard >= 0 || g.body.empty()) return std::nullopt;
    bool all = false;
    for (const auto& [pre, buf] : prefetches_in(k, an, g.body, l.id, all)) {
      if (!all || has(p.buffers, buf) || !buffer_ok(k, an, block, n, pre, buf, p)) return std::nullopt;
      p.prefetches.push_back(ids_of(pre));
    }
    if (!all) return std::nullopt;
    p.guard = g.id;
  }
  if (p.guard < 0) {
    // Unguarded prefetches: the loop stops before the last tile, an epilogue computes it.
    bool all = false;
    auto pres = prefetches_in(k, an, n.body, l.id, all);
    if (pres.empty()) return std::nullopt;
    std::vector<int> skip;
    for (const auto& [pre, buf] : pres) {
      p.prefetches.push_back(ids_of(pre));
      for (int id : p.prefetches.back()) skip.push_back(id);
    }
    p.epilogue = epilogue_of(k, block, n, skip);
    if (p.epilogue.empty()) return std::nullopt;
    for (const auto& [pre, buf] : pres)
      if (has(p.buffers, buf) || !buffer_ok(k, an, block, n, pre, buf, p)) return std::nullopt;
  }
  // The loop's scratch rings go with its pipeline.
  std::set<int> seen(p.buffers.begin(), p.buffers.end());
  for (const auto& r : an.ops) {
    const Op& op = r.op();
    if (!op.dst || !has(r.loops, l.id) || !seen.insert(op.dst->tensor).second) continue;
    if (int declaration = -1; scratch_ring(k, an, n, l, op.dst->tensor, declaration)) {
      p.buffers.push_back(op.dst->tensor);
      p.declarations.push_back(declaration);
    }
  }
  return p;
}

void drop_slot(Access& a) { a.dims.erase(a.dims.begin()); }

// Loop node `n` runs once more (its epilogue folded back in): its stop one higher, the header
// written with the author's bound (`T - 1` -> `T`, else `B + 1`) where the header is authored.
void extend(Kernel& k, Node& n) {
  Loop& l = k.loops.at(n.loop);
  l.stop = l.stop + 1;
  std::string bound = authored_bound(n);
  n.dirty = true;
  if (bound.empty()) {
    n.patch.clear();
    return;
  }
  std::string header = n.patch;
  if (header.empty()) {
    header = k.module->file->line_text(n.origin->span.line);
    header = header.substr(header.find_first_not_of(' '));
  }
  std::string wider = bound.size() > 4 && bound.compare(bound.size() - 4, 4, " - 1") == 0
                          ? bound.substr(0, bound.size() - 4)
                          : bound + " + 1";
  const std::string from = "(" + bound + ")";
  size_t at = header.find(from);
  if (at == std::string::npos) {
    n.patch.clear();
    return;
  }
  n.patch = header.replace(at, from.size(), "(" + wider + ")");
}


void undo(Kernel& k, const Pipeline& p) {
  const int v = k.loops.at(p.loop).id;
  // Each prefetch's statements loading tile j (their accesses at j - 1).
  std::vector<Node> loads;
  for (const auto& ids : p.prefetches)
    for (int id : ids) {
      Node pre = *find_node(k, id);
      for (Op& op : pre.ops) {
        if (op.dst) substitute_access(*op.dst, v, IExpr::var(v) - 1), op.dst_origin = nullptr;
        for (auto& a : op.args) {
          if (a.value.kind == Operand::Kind::Tile)
            substitute_access(a.value.access, v, IExpr::var(v) - 1), a.value.origin = nullptr;
          if (a.value.kind == Operand::Kind::Index) a.value.index = a.value.index.substitute(v, IExpr::var(v) - 1);
        }
      }
      pre.dirty = true;
      pre.patch.clear();
      loads.push_back(std::move(pre));
    }
  if (p.guard >= 0) erase_node(k, p.guard);
  for (const auto& ids : p.prefetches)
    for (int id : ids) erase_node(k, id);
  for (int id : p.epilogue) erase_node(k, id);
  for (const auto& ids : p.prologues)
    for (int id : ids) erase_node(k, id);
  for (int id : p.views) erase_node(k, id);
  std::vector<Node> decls;
  std::vector<int> listed;  // buffers declared by a comprehension: declared afresh below
  std::vector<std::string> listed_text;
  for (int id : p.declarations) {
    Node d = *find_node(k, id);
    erase_node(k, id);
    if (d.kind == NodeKind::Inline) {
      listed.push_back(d.body[0].ops[0].dst->tensor);
      listed_text.push_back(comprehension_item(k, d));
      continue;
    }
    Op& op = d.ops[0];
    drop_slot(*op.dst);
    for (auto& dim : op.dst->dims)
      for (auto& term : dim.terms) term.axis -= 1;
    if (Arg* shape = op.arg("shape"); shape && shape->value.kind == Operand::Kind::Shape && !shape->value.shape.empty()) {
      shape->value.shape.erase(shape->value.shape.begin());
      // The author's text of the dims kept (`nl.par_dim(P), F`), printed while they keep their value.
      Tensor& t = k.tensor(op.dst->tensor);
      const nki::Expr* w = shape->value.written ? shape->value.written : shape->value.origin;
      if (w && (w->kind == nki::ExprKind::Tuple || w->kind == nki::ExprKind::List)) {
        const auto& elts = static_cast<const nki::SequenceExpr&>(*w).elts;
        if (elts.size() == t.shape.size()) {
          t.dim_text.assign(t.shape.size() - 1, {IExpr(), ""});
          for (size_t d = 1; d < elts.size(); ++d) t.dim_text[d - 1] = {t.shape[d], source_of(k, *elts[d])};
        }
      }
      shape->value.origin = nullptr;
    }
    d.dirty = true;
    d.patch.clear();
    decls.push_back(std::move(d));
  }
  const std::set<int> bufs(p.buffers.begin(), p.buffers.end());
  for (int b : p.buffers) {
    Tensor& t = k.tensor(b);
    t.shape.erase(t.shape.begin());
    t.partition_dim = 0;
    t.scope_loop = p.loop;
    t.host_list = false;
  }
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      bool touched = false;
      if (op.dst && bufs.count(op.dst->tensor)) drop_slot(*op.dst), op.dst_origin = nullptr, touched = true;
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && bufs.count(a.value.access.tensor))
          drop_slot(a.value.access), a.value.origin = nullptr, touched = true;
      if (touched) n.dirty = true;
    }
  });
  for (auto& load : loads)
    for (Op& op : load.ops)
      if (op.dst && bufs.count(op.dst->tensor) && op.dst->dims.size() == k.tensor(op.dst->tensor).shape.size() + 1)
        drop_slot(*op.dst);
  for (size_t i = 0; i < listed.size(); ++i) {
    decls.push_back(declaration_node(k, listed[i]));
    if (!listed_text[i].empty()) decls.back().patch = k.tensor(listed[i]).name + " = " + listed_text[i];
  }
  Node* loop = find_node(k, p.loop_node);
  std::vector<Node> head = std::move(decls);
  for (auto& n : loads) head.push_back(std::move(n));
  loop->body.insert(loop->body.begin(), std::make_move_iterator(head.begin()), std::make_move_iterator(head.end()));
  // Sequential for the carried buffer alone: the plain loop it schedules is affine.
  write_affine(k, p.loop_node);
  if (!p.epilogue.empty()) extend(k, *loop);
}

// Two named tiles swapped by rebinding (`a_nxt = nl.load(tile j + 1)`, computing from `a_cur`, then
// `a_cur = a_nxt`; `a_cur` loaded before the loop): the prefetch, the rebinding and the prologue.
struct Rebound {
  int prefetch = -1, rebind = -1, prologue = -1;
  int cur = -1, next = -1;
};
struct RebindPipeline {
  int loop_node = -1, loop = -1;
  std::vector<Rebound> pairs;
  std::vector<int> guards;    // If nodes (`if j + 1 < N:`) holding only prefetches or only rebindings
  std::vector<int> epilogue;  // as Pipeline::epilogue, for a loop stopping one tile early
};

// The tile `n` loads for the next iteration (`a_nxt = nl.load(x[j + 1])`: a value made in loop
// `l` by a plain DMA of HBM tensors nothing writes); -1 when `n` is none.
int prefetched_value(const Kernel& k, const Analysis& an, const Node& n, const Loop& l) {
  if (n.kind != NodeKind::Stmt || n.frozen || n.ops.size() != 1) return -1;
  const Op& op = n.ops[0];
  if ((op.cls != OpClass::Load && op.cls != OpClass::DmaCopy) || op.accumulate || op.has_mask || op.result < 0 ||
      (op.dst && op.dst->tensor != op.result) || indirect_dma(op))
    return -1;
  bool uses = false;
  for (const Access* a : reads(op)) {
    const Tensor& src = k.tensor(a->tensor);
    if (src.on_chip() || !an.writers(k, storage_of(k, a->tensor)).empty()) return -1;
    uses = uses || uses_loop(*a, l.id);
  }
  return uses ? op.result : -1;
}

// The tile `op` binds whole (its result, or the whole tile it writes: the lift's `assign` of a
// name); -1 otherwise.
int made(const Kernel& k, const Op& op) {
  if (op.result >= 0) return !op.dst || op.dst->tensor == op.result ? op.result : -1;
  return op.dst && !op.accumulate && accesses_whole(k, *op.dst) ? op.dst->tensor : -1;
}

// The rebinding `cur = next` (the lift's `assign` of the whole tile): cur's id, or -1.
int rebinds(const Kernel& k, const Node& n, int next) {
  if (n.kind != NodeKind::Stmt || n.frozen || n.ops.size() != 1) return -1;
  const Op& op = n.ops[0];
  const int cur = made(k, op);
  if (op.api != "assign" || cur < 0 || cur == next || op.args.size() != 1 ||
      op.args[0].value.kind != Operand::Kind::Tile || op.args[0].value.access.tensor != next ||
      !accesses_whole(k, op.args[0].value.access))
    return -1;
  return cur;
}

std::optional<RebindPipeline> rebind_pipeline_of(Kernel& k, const std::vector<Node>& block, const Node& n) {
  const Loop* lp = pipelinable_loop(k, n);
  if (!lp) return std::nullopt;
  const Loop& l = *lp;
  const int64_t start = l.start.constant(), stop = l.stop.constant();
  Analysis an(k);
  RebindPipeline p;
  p.loop_node = n.id;
  p.loop = n.loop;
  // The body's top-level statements, a guard's looked into: (node, guard id or -1).
  std::vector<std::pair<const Node*, int>> stmts;
  for (const Node& b : n.body) {
    if (guards_all_but_last(b, l, start, stop)) {
      for (const Node& g : b.body) stmts.push_back({&g, b.id});
      p.guards.push_back(b.id);
    } else {
      stmts.push_back({&b, -1});
    }
  }
  bool guarded = false, unguarded = false;
  for (size_t i = 0; i < stmts.size(); ++i) {
    int next = prefetched_value(k, an, *stmts[i].first, l);
    if (next < 0) continue;
    Rebound r;
    r.prefetch = stmts[i].first->id;
    r.next = next;
    for (size_t j = i + 1; j < stmts.size() && r.cur < 0; ++j)
      if (int cur = rebinds(k, *stmts[j].first, next); cur >= 0) {
        r.cur = cur, r.rebind = stmts[j].first->id;
        // Prefetch and rebinding both guarded or both not; the rebinding the last reader of cur.
        if ((stmts[i].second >= 0) != (stmts[j].second >= 0)) return std::nullopt;
        (stmts[i].second >= 0 ? guarded : unguarded) = true;
      }
    if (r.cur < 0) continue;  // a load of the next tile kept apart: no pipeline of names
    p.pairs.push_back(r);
  }
  if (p.pairs.empty() || (guarded && unguarded)) return std::nullopt;
  // Every guard holds only prefetches and rebindings.
  std::set<int> mine;
  for (const auto& r : p.pairs) mine.insert(r.prefetch), mine.insert(r.rebind);
  for (const auto& [node, guard] : stmts)
    if (guard >= 0 && !mine.count(node->id)) return std::nullopt;
  if (unguarded) {
    std::vector<int> skip(mine.begin(), mine.end());
    p.epilogue = epilogue_of(k, block, n, skip);
    if (p.epilogue.empty()) return std::nullopt;
  }
  std::set<int> gone(p.epilogue.begin(), p.epilogue.end());
  size_t loop_at = 0;
  while (loop_at < block.size() && block[loop_at].id != n.id) ++loop_at;
  for (auto& r : p.pairs) {
    const Op want = first_load(*find_node(k, r.prefetch), l);
    // The prologue: cur loaded with the first tile before the loop, in its block.
    for (size_t i = 0; i < loop_at; ++i) {
      const Node& b = block[i];
      if (b.kind == NodeKind::Stmt && b.ops.size() == 1 && made(k, b.ops[0]) == r.cur && !b.frozen &&
          same_dma(b.ops[0], want))
        r.prologue = b.id;
    }
    if (r.prologue < 0) return std::nullopt;
    // next is touched by its prefetch and rebinding alone; cur, besides them and the prologue,
    // only read in the body before the rebinding (or in the epilogue).
    int rebind_order = -1;
    for (const auto& o : an.ops)
      if (o.node->id == r.rebind) rebind_order = o.order;
    for (const auto& o : an.ops) {
      const int id = o.node->id;
      if (id == r.prefetch || id == r.rebind || id == r.prologue || gone.count(id)) continue;
      const Op& op = o.op();
      bool reads_next = false, reads_cur = false;
      for (const Access* a : reads(op)) {
        reads_next = reads_next || storage_of(k, a->tensor) == r.next;
        reads_cur = reads_cur || storage_of(k, a->tensor) == r.cur;
      }
      if (reads_next || op.result == r.next || op.result == r.cur) return std::nullopt;
      for (const Access* a : writes(op))
        if (storage_of(k, a->tensor) == r.cur || storage_of(k, a->tensor) == r.next) return std::nullopt;
      if (reads_cur && (!has(o.loops, l.id) || o.order > rebind_order)) return std::nullopt;
    }
  }
  return p;
}

void undo_rebound(Kernel& k, const RebindPipeline& p) {
  const Loop& l = k.loops.at(p.loop);
  std::vector<Node> loads;
  for (const auto& r : p.pairs) {
    Node pre = *find_node(k, r.prefetch);
    Op& op = pre.ops[0];
    for (auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile)
        substitute_access(a.value.access, l.id, IExpr::var(l.id) - 1), a.value.origin = nullptr;
    op.result = r.cur;  // tile j loaded into cur itself
    if (op.dst) op.dst->tensor = r.cur, op.dst_origin = nullptr;
    pre.dirty = true;
    pre.patch.clear();
    loads.push_back(std::move(pre));
    k.tensor(r.cur).scope_loop = p.loop;
  }
  for (const auto& r : p.pairs) erase_node(k, r.prefetch), erase_node(k, r.rebind), erase_node(k, r.prologue);
  for (int g : p.guards)
    if (Node* n = find_node(k, g); n && n->body.empty()) erase_node(k, g);
  for (int id : p.epilogue) erase_node(k, id);
  Node* loop = find_node(k, p.loop_node);
  loop->body.insert(loop->body.begin(), std::make_move_iterator(loads.begin()), std::make_move_iterator(loads.end()));
  write_affine(k, p.loop_node);
  if (!p.epilogue.empty()) extend(k, *loop);
}

// Every pipeline of the kernel, outermost loops first (ids: undoing one moves nodes).
bool undo_one(Kernel& k) {
  std::optional<RebindPipeline> rebound;
  std::optional<Pipeline> found;
  std::function<void(std::vector<Node>&)> walk = [&](std::vector<Node>& block) {
    for (auto& n : block) {
      if (found || rebound) return;
      if (n.kind == NodeKind::Loop) {
        found = pipeline_of(k, block, n);
        if (found) return;
        rebound = rebind_pipeline_of(k, block, n);
        if (rebound) return;
      }
      if (!n.frozen) walk(n.body), walk(n.orelse);
    }
  };
  walk(k.body);
  if (rebound) undo_rebound(k, *rebound);
  else if (found) undo(k, *found);
  return found || rebound;
}

}  // namespace

int unpipeline_loops(Kernel& k) {
  int count = 0;
  while (count < 16 && undo_one(k)) ++count;
  return count;
}

}  // namespace loopnest
