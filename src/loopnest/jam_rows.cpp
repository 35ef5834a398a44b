// Unroll and jam on the form: a loop over rows runs F rows per iteration, its nested loops keep
// one header (jammed), and the work that does not depend on the row (a streamed operand's load,
// its transpose) is done once for the F rows instead of once per row: reuse across iterations.
// Rows' own work is replicated with per-row tiles. Legal for an affine loop (its iterations are
// independent), with inner loop bounds that do not depend on the row; a mask using the row is
// written per row (each copy keeps its row's guard).
// A row-independent instruction that writes a per-row block of a buffer (`v6[i0, i1, ...]` in the
// published style) is done once into the first row's block and the other rows read that block.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/flat_list.h"
#include "loopnest/jam_inline.h"
#include "loopnest/scope_text.h"
#include "loopnest/api.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"
#include "nki/ast.h"
#include "trn/tile_limits.h"

namespace loopnest {

namespace {

// `name = []`: the statement making an empty list under `name` alone.
bool makes_empty_list(const nki::Stmt& s, const std::string& name) {
  if (s.kind != nki::StmtKind::Assign) return false;
  const auto& a = static_cast<const nki::AssignStmt&>(s);
  if (a.targets.size() != 1 || a.targets[0]->kind != nki::ExprKind::Name || !a.value ||
      static_cast<const nki::NameExpr&>(*a.targets[0]).id != name || a.value->kind != nki::ExprKind::List)
    return false;
  return static_cast<const nki::SequenceExpr&>(*a.value).elts.empty();
}

// `name.append(item)` with `item` a name: the statement appending a named tile to the list.
bool appends_name(const nki::Stmt& s, const std::string& name, const std::string& item) {
  if (s.kind != nki::StmtKind::Expr) return false;
  const auto& e = static_cast<const nki::ExprStmt&>(s);
  if (!e.value || e.value->kind != nki::ExprKind::Call) return false;
  const auto& c = static_cast<const nki::CallExpr&>(*e.value);
  if (c.func->kind != nki::ExprKind::Attribute || c.args.size() != 1 || !c.keywords.empty()) return false;
  const auto& f = static_cast<const nki::AttributeExpr&>(*c.func);
  return f.attr == "append" && f.value->kind == nki::ExprKind::Name &&
         static_cast<const nki::NameExpr&>(*f.value).id == name && c.args[0]->kind == nki::ExprKind::Name &&
         static_cast<const nki::NameExpr&>(*c.args[0]).id == item;
}

// Whether the list of tensor t is made (`name = []`) and appended to (`name.append(tile)`) by
// exactly one statement each under the loop, both as written: each row's copy prints them again
// under its own names.
bool list_statements_copyable(const Node& loop_node, const Tensor& t) {
  int made = 0, appended = 0;
  for_each_node(loop_node.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind != NodeKind::Meta || n.meta != MetaKind::Binding || !n.origin || !n.patch.empty() || n.dirty) return;
    made += makes_empty_list(*n.origin, t.list_name) ? 1 : 0;
    appended += appends_name(*n.origin, t.list_name, t.name) ? 1 : 0;
  });
  return made == 1 && appended == 1;
}

bool inside(const std::vector<int>& loops, int loop) { return std::find(loops.begin(), loops.end(), loop) != loops.end(); }

struct Plan {
  int loop = -1;
  int64_t factor = 2;
  std::set<const Op*> per_row;     // ops replicated per row
  std::set<int> row_tensors;       // tensors defined in the loop whose content differs per row (copied)
  // Scratch buffers declared before the loop that the rows write and read inside it only (the
  // iterations are independent, so no value goes from a row to the next): row j >= 1 gets a copy,
  // declared before the loop (privatization: `nbias`, `rsum` of a per-row softmax).
  std::set<int> private_tensors;
  std::map<int, int> shared_blocks;  // buffer written once per block into the first row's block -> its dim
  // Admitted because each row goes from an engine to another and back (nothing shared, no
  // in-order loop): a nested loop doing only the row's work is copied whole per row, so one row's
  // loop completes (and its consumer on the next engine can start) while the next row's runs.
  // Jammed, both rows' results would be ready only at the end of the joint loop.
  bool whole_inner_loops = false;
  // Lists a comprehension lifted as its loop makes (lift_rolled.cpp): copied per row whole.
  std::set<int> rolled_lists;
};

// Whether the loop's body runs a loop in order (a sequential_range, a Python range in legacy code)
// that carries a tile from one iteration to the next: a dependence chain per row.
bool has_ordered_chain(const Kernel& k, const Node& loop_node) {
  bool chain = false;
  for_each_node(loop_node.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind != NodeKind::Loop || n.loop == loop_node.loop) return;
    const LoopKind kind = k.loops.at(n.loop).kind;
    if ((kind == LoopKind::Sequential || kind == LoopKind::Range) && !carried_tensors(k, n.loop).empty()) chain = true;
  });
  return chain;
}

constexpr const char* kOverlap = "overlap";  // the site parameter of a round-trip-only jam

bool compute_engine(Engine e) { return e == Engine::Tensor || e == Engine::Vector || e == Engine::Scalar || e == Engine::GpSimd; }

// Whether the row's work leaves a compute engine and comes back to it through a dependence
// (scores on the Tensor Engine -> exp on the Scalar Engine -> transposes and P @ V on the Tensor
// Engine): engines run their instructions in program order, so with one row per iteration the
// first engine waits while the second works on the same row. F rows interleaved give it another
// row's independent instruction to run meanwhile (the row's engines overlap).
bool has_engine_round_trip(const Kernel& k, const std::vector<Op*>& ops) {
  std::vector<std::set<int>> written(ops.size());     // storages each op writes
  std::vector<std::set<Engine>> upstream(ops.size());  // engines of the ops each op depends on
  for (size_t c = 0; c < ops.size(); ++c) {
    for (const Access* w : writes(*ops[c])) written[c].insert(storage_of(k, w->tensor));
    std::set<int> read;
    for (const Access* r : reads(*ops[c])) read.insert(storage_of(k, r->tensor));
    for (size_t b = 0; b < c; ++b) {
      if (!std::any_of(written[b].begin(), written[b].end(), [&](int t) { return read.count(t) > 0; })) continue;
      const Engine eb = ops[b]->engine, ec = ops[c]->engine;
      if (compute_engine(eb) && compute_engine(ec) && eb != ec && upstream[b].count(ec)) return true;
      upstream[c].insert(upstream[b].begin(), upstream[b].end());
      if (compute_engine(eb)) upstream[c].insert(eb);
    }
  }
  return false;
}

// Whether the rows of each jammed block write different blocks of `w`'s tensor: its index as a
// function of the row (the other variables held at 0) takes `factor` different values in every
// block of rows (`out[kv, h % group]` with `kv = h // group` does; `bufs[i % 2]` at factor 4 does not).
bool distinct_per_row(const Access& w, int l, int64_t trip, int64_t factor) {
  std::map<int, int64_t> values;
  for (const DimIndex& d : w.dims)
    for (int v : d.start.vars()) values[v] = 0;
  for (int64_t block = 0; block < trip / factor; ++block) {
    std::set<std::vector<int64_t>> seen;
    for (int64_t j = 0; j < factor; ++j) {
      values[l] = block * factor + j;
      std::vector<int64_t> index;
      for (const DimIndex& d : w.dims) {
        auto x = d.start.eval(values);
        if (!x) return false;
        index.push_back(*x);
      }
      if (!seen.insert(index).second) return false;
    }
  }
  return true;
}

// Whether `a` reads a different element for some two rows of one jammed block: its index with the
// row written as `factor * b + j` (b the block) differs between the j. A read through the row's
// quotient by the block (`k[h // 2]` at factor 2: the query heads of one KV group read one K/V
// head) does not, and the rows share it like a read not naming the row at all.
bool varies_in_block(const Kernel& k, const Access& a, int l, int64_t trip, int64_t factor) {
  if (!uses_loop(a, l)) return false;
  const int b = (k.loops.empty() ? 0 : k.loops.rbegin()->first) + 1;  // the block's variable, unused by the kernel
  Ranges ranges = k.ranges();
  ranges[b] = {0, trip / factor - 1};
  auto at = [&](const IExpr& e, int64_t j) { return e.substitute(l, IExpr::var(b) * factor + IExpr(j), &ranges); };
  for (const DimIndex& d : a.dims)
    for (int64_t j = 1; j < factor; ++j) {
      if (!(at(d.start, j) == at(d.start, 0))) return true;
      for (const auto& t : d.terms)
        if (!(at(t.size, j) == at(t.size, 0))) return true;
    }
  return false;
}

// The divisors of the quotients of the loop's variable in the accesses under it (`h // 2`): a
// jam by such a divisor shares what the rows of one quotient read alike.
std::set<int64_t> quotient_divisors(const Node& loop_node) {
  std::set<int64_t> out;
  const int l = loop_node.loop;
  std::function<void(const IExpr&)> scan = [&](const IExpr& e) {
    for (const auto& [key, tc] : e.terms()) {
      const Term& t = tc.first;
      if (t.kind == TermKind::FloorDiv && !t.args.empty() && t.args[0].uses(l)) out.insert(t.divisor);
      for (const IExpr& x : t.args) scan(x);
    }
  };
  for_each_node(loop_node.body, [&](const Node& n, const std::vector<int>&) {
    for (const Op& op : n.ops) {
      auto each = [&](const Access& a) {
        for (const DimIndex& d : a.dims) scan(d.start);
      };
      if (op.dst) each(*op.dst);
      for (const auto& arg : op.args)
        if (arg.value.kind == Operand::Kind::Tile) each(arg.value.access);
    }
  });
  return out;
}

// The id of the statement of `block` (searched through loops and conditionals) declaring tensor
// t: its declaration, or the comprehension (an inline node) making a list of fresh tiles. -1: none.
int declaring_node(const std::vector<Node>& block, int t) {
  std::function<bool(const Node&)> declares = [&](const Node& n) {
    for (const Op& op : n.ops)
      if (is_declaration(op) && (op.result == t || (op.result < 0 && op.dst && op.dst->tensor == t))) return true;
    for (const Node& b : n.body)
      if (b.kind != NodeKind::Loop && declares(b)) return true;
    return false;
  };
  for (const Node& n : block) {
    if (n.kind == NodeKind::Stmt || n.kind == NodeKind::Inline) {
      if (declares(n)) return n.id;
      continue;
    }
    for (const auto* b : {&n.body, &n.orelse})
      if (int id = declaring_node(*b, t); id >= 0) return id;
  }
  return -1;
}

// `n` (a copy of a declaration statement) with fresh node ids, printed as a copy (no comments
// again), declaring tensor `to` where it declared `from`.
void renumber(Kernel& k, Node& n, int from, int to) {
  n.id = k.next_node++;
  n.repeat_copy = true;
  for (Op& op : n.ops) {
    if (op.result == from) op.result = to;
    if (op.dst && op.dst->tensor == from) op.dst->tensor = to;
  }
  for (Node& b : n.body) renumber(k, b, from, to);
}

std::optional<Plan> make_plan(Kernel& k, Node& loop_node, int64_t factor) {
  Plan p;
  p.loop = loop_node.loop;
  p.factor = factor;
  int l = loop_node.loop;
  const Loop& loop = k.loops.at(l);
  auto trip = loop.trip();
  if (!trip || *trip % factor || *trip / factor < 1 || !(loop.start == IExpr(0)) || loop.step != 1)
    return std::nullopt;
  // An unrolled loop (a range of the newer API, a static_range) whose iterations do not commute
  // only because they reuse scratch buffers declared before it: the rows' copies of those are
  // private (checked below), and nothing is carried from a row to the next.
  // The tensors each loop carries to its next iteration (carried_tensors walks the loop's body),
  // found once per loop: the checks below ask for this loop's and its enclosing loops' per buffer.
  std::map<int, std::set<int>> carried_by;
  auto carried = [&](int loop_id) -> const std::set<int>& {
    auto it = carried_by.find(loop_id);
    if (it == carried_by.end()) it = carried_by.emplace(loop_id, carried_tensors(k, loop_id)).first;
    return it->second;
  };
  bool reuses_scratch = false;
  if (!independent_iterations(k, l)) {
    const bool unrolled = loop.kind == LoopKind::Static || (loop.kind == LoopKind::Range && k.dialect.new_api);
    if (!unrolled || !carried(l).empty()) return std::nullopt;
    reuses_scratch = true;
  }
  std::set<int> inner = {l};
  std::set<int> rolled;  // comprehensions lifted as loops: copied per row whole (copy_loop)
  bool bad = false;
  // An Inline node (a comprehension of tiles, a helper call, an unrolled host loop) is copied per
  // row whole, as its text with the row's names (jam_inline.cpp); what it holds is the helper's.
  const std::set<std::string> bound_in_loop = names_bound_in(loop_node.body);
  std::function<void(const std::vector<Node>&, bool)> scan = [&](const std::vector<Node>& nodes, bool in_inline) {
    for (const Node& n : nodes) {
      if (n.kind == NodeKind::Inline && !in_inline && !inline_copyable_whole(k, n, loop.var, bound_in_loop)) bad = true;
      if (n.frozen && !in_inline && n.kind != NodeKind::Inline) bad = true;
      if (n.kind == NodeKind::If && (n.cond_l.uses(l) || n.cond_r.uses(l))) bad = true;
      if (n.kind == NodeKind::Loop) {
        inner.insert(n.loop);
        if (rolled_comprehension(k, n)) rolled.insert(n.loop);
        const Loop& m = k.loops.at(n.loop);
        if (m.start.uses(l) || m.stop.uses(l)) bad = true;
      }
      scan(n.body, in_inline || n.kind == NodeKind::Inline);
      scan(n.orelse, in_inline || n.kind == NodeKind::Inline);
    }
  };
  scan(loop_node.body, false);
  if (bad) return std::nullopt;
  std::vector<Op*> ops;
  ops_of(loop_node, ops);
  // A list of tiles built in the body (`tiles.append(t)`) is one Python list per iteration: the
  // rows' copies need a list each. A one-level list made in the body and appended to in a loop of
  // it, both as written (`scores = []` ... `scores.append(row)`), is copied per row when its tiles
  // are the row's (`scores_0 = []`, `scores_0.append(row_0)`: list_statement); any other refuses.
  std::set<int> body_lists;
  for (Op* op : ops)
    for (const Access* w : writes(*op)) {
      const Tensor& t = k.tensor(w->tensor);
      if (t.list_loop < 0 || !inner.count(t.scope_loop)) continue;
      // (A flattened comprehension's nest, flat_list.h, is one list too: both its loops rolled.)
      const bool flat = flat_list(t) && rolled.count(t.outer_lists[0].second);
      if (rolled.count(t.list_loop) && (t.outer_lists.empty() || flat) && !t.list_name.empty()) {
        body_lists.insert(w->tensor);
        p.rolled_lists.insert(w->tensor);
        continue;
      }
      if (!t.outer_lists.empty() || t.host_list || t.list_name.empty() || !inner.count(t.list_loop) ||
          !list_statements_copyable(loop_node, t))
        return std::nullopt;
      body_lists.insert(w->tensor);
    }
  auto defined_inside = [&](int t) { return inner.count(k.tensor(t).scope_loop) > 0; };
  auto reads_use_row = [&](const Op& op) {
    for (const Access* r : reads(op))
      if (varies_in_block(k, *r, l, *trip, factor)) return true;
    return false;
  };
  for (Op* op : ops) {
    // A mask naming the row (a ragged last row tile guarded by `rows < M`, a library kernel's mask
    // on every instruction) is written per row like the op's accesses: each copy keeps its row's
    // guard. An index operand naming it is not (no move rewrites those per copy).
    if (index_operand_uses(*op, l)) return std::nullopt;
    // A Python list of tiles the rows append themselves (`rows.append(s)` in this loop) and read
    // by the row (`rows[m]`): F rows would append F tiles per iteration, which the form's list (one
    // tile per iteration) does not hold. A list an earlier loop completed is read as any block:
    // `scores[2 * m_blk + 1]` (the lifter reads a complete list by any index).
    for (const Access* r : reads(*op))
      if (k.tensor(r->tensor).list_loop >= 0 && uses_loop(*r, l) && inner.count(k.tensor(r->tensor).list_loop))
        return std::nullopt;
    // An argument kept as the author's text (affine_select's `pred=`) naming the row's variable
    // cannot be written per row. A mask is the form's constraints (written per row below).
    for (const auto& a : op->args)
      if (a.value.kind == Operand::Kind::Other && names_word(a.value.text, loop.var) && !(a.name == "mask" && op->has_mask))
        return std::nullopt;
    // A tile whose size depends on the row (`min(128, M - 128 * m)`, a ragged last tile): the rows'
    // copies print one size for all (p12_new_matmul_ragged_min).
    for (const Access* a : reads(*op))
      if (size_uses_loop(*a, l)) return std::nullopt;
    for (const Access* a : writes(*op))
      if (size_uses_loop(*a, l)) return std::nullopt;
  }
  // Fixpoint: an op is per row when it reads something per row or writes a tile per row.
  std::set<int> varying;  // storage ids
  bool changed = true;
  while (changed) {
    changed = false;
    for (Op* op : ops) {
      if (p.per_row.count(op)) continue;
      bool row = reads_use_row(*op) || mask_uses(*op, l);
      for (const Access* r : reads(*op)) row = row || varying.count(storage_of(k, r->tensor));
      // Writing a tile that differs per row: one defined in the loop, or the row's block of a
      // buffer declared up front (`acc[i0, ...] = 0.0` before a per-row `acc[i0, ...] += ...`).
      for (const Access* w : writes(*op))
        if (varying.count(storage_of(k, w->tensor)) && (defined_inside(storage_of(k, w->tensor)) || uses_loop(*w, l)))
          row = true;
      // The declaration of a tile that differs per row is one per row too.
      if (is_declaration(*op) && op->dst && varying.count(storage_of(k, op->dst->tensor)) &&
          defined_inside(storage_of(k, op->dst->tensor)))
        row = true;
      if (!row) continue;
      p.per_row.insert(op);
      changed = true;
      for (const Access* w : writes(*op)) varying.insert(storage_of(k, w->tensor));
    }
  }
  // What per-row ops write: tiles defined in the loop (copied per row), blocks indexed by the
  // row, scratch buffers only the rows use (a copy per row), or an accumulation across rows.
  // The kernel's dependences and the loop's first and last operations in program order, made
  // once, on the first buffer that may be private scratch.
  std::optional<Analysis> deps;
  const OpRef* first = nullptr;
  int last_order = 0;
  auto private_scratch = [&](int t) {
    const Tensor& tensor = k.tensor(t);
    if (tensor.role != TensorRole::Buffer || !tensor.on_chip() || tensor.base >= 0 || tensor.list_loop >= 0 ||
        (!tensor.host_list && !tensor.list_name.empty()) || (tensor.host_list && tensor.list_name.empty()))
      return false;
    // The rows read only what they wrote: the loop carries nothing through the buffer.
    if (carried(l).count(t)) return false;
    if (!deps) {
      deps.emplace(k);
      first = first_op_in(*deps, l);
      if (first) last_order = first->order;
      for (const OpRef& r : deps->ops)
        if (first && inside(r.loops, l)) last_order = std::max(last_order, r.order);
    }
    if (!first) return false;
    // Accesses outside the loop come before it and see nothing the loop wrote: none after it, and
    // no loop around both carries the buffer to its next iteration (the K^T preparation before
    // the row loop writes its own PSUM tile before reading it).
    auto outside_is_before = [&](const OpRef& x) {
      if (inside(x.loops, l)) return true;
      if (x.order > last_order) return false;
      for (int e : x.loops)
        if (inside(first->loops, e) && carried(e).count(t)) return false;
      return true;
    };
    for (const OpRef* r : deps->readers(k, t))
      if (!outside_is_before(*r)) return false;
    for (const OpRef* w : deps->writers(k, t)) {
      if (is_declaration(w->op())) continue;
      if (!outside_is_before(*w)) return false;
      if (inside(w->loops, l) && !p.per_row.count(&w->op())) return false;
    }
    return true;
  };
  for (const Op* op : p.per_row)
    for (const Access* w : writes(*op)) {
      int t = storage_of(k, w->tensor);
      if (defined_inside(t)) {
        // A list of numbers the row binds to tiles (`carry = [0.0] * S`, Tensor::bound_items): a
        // copy per row would need the list statement printed again per row, which copies do not.
        if (k.tensor(t).bound_items) return std::nullopt;
        p.row_tensors.insert(t);
        continue;
      }
      if (!uses_loop(*w, l) && !op->accumulate) {
        if (!private_scratch(t)) return std::nullopt;
        p.private_tensors.insert(t);
      }
      // A block chosen by the row must be the row's own: `bufs[i % 2]` (a list of buffers used in
      // turn) gives rows i and i + 2 of one jammed block the same buffer.
      if (uses_loop(*w, l) && !op->accumulate && !distinct_per_row(*w, l, *trip, factor)) return std::nullopt;
    }
  // A list of PSUM tiles an Inline node makes per row (the row's chunks of scores, one bank each)
  // is held whole until read: F rows hold F of them, and past the PSUM's banks the tiles spill (a
  // row of 8 banks jammed by 2 ran 2.2x slower, 1.1 GB of spill).
  {
    std::map<int, const Node*> made_in;
    tensors_made_in_inlines(loop_node.body, made_in);
    const int64_t list_bytes = std::max(largest_psum_list_bytes(k, p.row_tensors, made_in),
                                        largest_rolled_psum_list_bytes(k, p.row_tensors, loop_node.body));
    if (list_bytes * factor > trn::limits::psum_bank_bytes * trn::limits::psum_num_banks) return std::nullopt;
  }
  for (int t : body_lists)
    if (!p.row_tensors.count(t)) return std::nullopt;
  // Row-independent ops writing a row's block: once, into the first row's block.
  int shared_work = 0;
  for (Op* op : ops) {
    if (p.per_row.count(op)) continue;
    if (!is_declaration(*op)) ++shared_work;
    for (const Access* w : writes(*op)) {
      if (!uses_loop(*w, l)) continue;
      int t = storage_of(k, w->tensor);
      const Tensor& tensor = k.tensor(t);
      if (tensor.role != TensorRole::Buffer || defined_inside(t)) return std::nullopt;
      int dim = -1;
      for (size_t d = 0; d < w->dims.size(); ++d)
        if (w->dims[d].start.uses(l)) dim = dim < 0 ? static_cast<int>(d) : -2;
      if (dim < 0 || !(w->dims[static_cast<size_t>(dim)].start == IExpr::var(l)) || !w->dims[static_cast<size_t>(dim)].terms.empty())
        return std::nullopt;
      p.shared_blocks[t] = dim;
    }
  }
  // What the iterations of such a loop write outside their own tiles is a row's own block or
  // private scratch (or an accumulation, whose order only rounds differently).
  if (reuses_scratch)
    for (Op* op : ops)
      for (const Access* w : writes(*op)) {
        const int t = storage_of(k, w->tensor);
        if (defined_inside(t) || p.private_tensors.count(t) || op->accumulate || is_declaration(*op)) continue;
        if (uses_loop(*w, l) && distinct_per_row(*w, l, *trip, factor)) continue;
        return std::nullopt;
      }
  // Without shared work the rows gain only where each runs an in-order chain (a loop run in order
  // carrying a running value: online softmax over key blocks, a scan) or goes from an engine to
  // another and back: F chains interleave, each engine has F independent instructions where it had
  // one waiting on the last.
  if (p.per_row.empty()) return std::nullopt;
  if (shared_work == 0 && !has_ordered_chain(k, loop_node)) {
    std::vector<Op*> row_ops;
    for (Op* op : ops)
      if (p.per_row.count(op)) row_ops.push_back(op);
    if (!has_engine_round_trip(k, row_ops)) return std::nullopt;
    p.whole_inner_loops = true;
  }
  // A shared block is read only in the loop, by the row's index.
  Analysis an(k);
  for (const auto& [t, dim] : p.shared_blocks) {
    for (const OpRef* r : an.readers(k, t)) {
      if (!inside(r->loops, l)) return std::nullopt;
      for (const Access* x : reads(r->op()))
        if (storage_of(k, x->tensor) == t && !(x->dims[static_cast<size_t>(dim)].start == IExpr::var(l))) return std::nullopt;
    }
    for (const OpRef* w : an.writers(k, t))
      if (!inside(w->loops, l) && !is_declaration(w->op())) return std::nullopt;
  }
  return p;
}

// The operations of the loop whose values do not depend on its row by data flow: what the rows
// could share, whatever storage the style keeps them in (a named tile, an inner call's result, a
// block of a buffer indexed by the row in the published style, which the plan above replicates).
// An operation depends on the row when it reads the row's part of the kernel's inputs (or an index
// operand of the row), or reads what a dependent operation of the loop writes, or writes where one
// does (an accumulator zeroed per row).
std::set<const Op*> row_independent(Kernel& k, Node& loop_node, int64_t factor) {
  int l = loop_node.loop;
  const int64_t trip = k.loops.at(l).trip().value_or(factor);
  std::vector<Op*> ops;
  ops_of(loop_node, ops);
  Ranges ranges = k.ranges();
  auto overlap = [&](const Access& a, const Op& other) {
    for (const Access* w : writes(other))
      if (may_overlap_across(k, a, *w, ranges)) return true;
    return false;
  };
  std::set<const Op*> dependent;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Op* op : ops) {
      if (dependent.count(op)) continue;
      bool dep = index_operand_uses(*op, l);
      for (const Access* r : reads(*op)) {
        bool written_here = false;
        for (const Op* other : ops) {
          if (other == op || !overlap(*r, *other)) continue;
          written_here = true;
          dep = dep || dependent.count(other);
        }
        if (!written_here) dep = dep || varies_in_block(k, *r, l, trip, factor);
      }
      for (const Access* w : writes(*op))
        for (const Op* other : dependent) dep = dep || overlap(*w, *other);
      if (!dep) continue;
      dependent.insert(op);
      changed = true;
    }
  }
  std::set<const Op*> out;
  for (const Op* op : ops)
    if (!dependent.count(op)) out.insert(op);
  return out;
}

class UnrollJam : public Transform {
 public:
  std::string name() const override { return "jam_rows"; }
  std::string description() const override {
    return "run F rows per iteration with the nested loops jammed: work that does not depend on the row (a "
           "streamed operand's load or transpose) is done once for F rows";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<int> loops = open_loop_ids(k);
    for (int id : loops) {
      std::set<int64_t> factors = {2, 4};
      if (const Node* n = find_node(k, id); n && n->kind == NodeKind::Loop)
        for (int64_t d : quotient_divisors(*n))
          if (d > 1 && d <= 8) factors.insert(d);
      for (int64_t f : factors) {
        Node* n = find_node(k, id);
        if (!n) continue;
        auto plan = make_plan(k, *n, f);
        if (!plan) continue;
        Analysis an(k);
        std::map<std::string, std::string> params = {{"factor", std::to_string(f)}};
        // Admitted for the rows' engine round trips alone: the planner weighs it by the waiting.
        if (plan->whole_inner_loops) params[kOverlap] = "engines";
        auto s = make_loop_site(k, an, *n,
                                fmt::format("run {} iterations of `for {}` at once, sharing what does not depend on it",
                                            f, k.loops.at(n->loop).var),
                                params);
        if (!s) continue;
        // What the rows can share runs once per block: its engines are what the move relieves; with
        // nothing shared, the rows' in-order chains overlap (the waiting between their steps).
        note_relief(k, an, row_independent(k, *n, f), *s);
        if (s->relieves.empty()) s->relieves.insert("serial");
        Plan p = *plan;
        if (sink(*s, [&k, id, p] { apply(k, id, p); })) return true;
      }
    }
    return false;
  }

 public:
  static void run(Kernel& k, int id, const Plan& p) { apply(k, id, p); }

 private:
  struct Ctx {
    Kernel* k;
    const Plan* p;
    int l, nl;  // old and new loop
    std::vector<std::map<int, int>> copies;  // per row j: tensor id -> its copy
    std::set<std::string> var_names;         // names that mention the row (views, bindings)
  };

  // Whether the expression reads a name bound to a tile of the row: its Name nodes, not its text
  // (an attribute or a string with the name in it is no read of the tile).
  static bool names_a_row_tile(const Ctx& c, const nki::Expr& e) {
    std::set<std::string> names;
    names_of(e, names);
    for (int t : c.p->row_tensors)
      if (!c.k->tensor(t).name.empty() && names.count(c.k->tensor(t).name)) return true;
    return false;
  }

  static IExpr row(const Ctx& c, int64_t j) { return IExpr::var(c.nl) * c.p->factor + IExpr(j); }

  static void remap(Ctx& c, Access& a, int64_t j, bool shared_read) {
    auto it = c.copies[static_cast<size_t>(j)].find(a.tensor);
    if (it != c.copies[static_cast<size_t>(j)].end()) a.tensor = it->second;
    IExpr with = shared_read ? row(c, 0) : row(c, j);
    for (auto& d : a.dims) {
      d.start = d.start.substitute(c.l, with);
      for (auto& t : d.terms) t.size = t.size.substitute(c.l, with);
    }
  }

  static Node copy_node(Ctx& c, const Node& src, int64_t j, bool shared_stmt = false) {
    Node n = src;
    n.id = c.k->next_node++;
    n.dirty = true;
    n.origin = src.origin;
    n.repeat_copy = src.repeat_copy || j > 0;
    // The statement's inner calls make their own (unnamed) tiles in every copy.
    // So does an allocation's unnamed tile: `acc[i0, j] = nl.zeros(...)` lifts as `%1 = nl.zeros(...)`
    // then `acc[i0, j] = %1`, and each printed copy allocates its own.
    std::map<int, int> inner;
    for (auto& op : n.ops) {
      int t = op.result >= 0 ? op.result : op.dst && is_declaration(op) ? op.dst->tensor : -1;
      if (t >= 0 && c.k->tensor(t).name.empty() && !inner.count(t)) inner[t] = add_tensor(*c.k, c.k->tensor(t));
    }
    auto rename_inner = [&](Access& a) {
      auto it = inner.find(a.tensor);
      if (it != inner.end()) a.tensor = it->second;
    };
    for (auto& op : n.ops) {
      if (op.result >= 0 && inner.count(op.result)) op.result = inner[op.result];
      if (op.dst) rename_inner(*op.dst);
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile) rename_inner(a.value.access);
    }
    for (auto& op : n.ops) {
      // The row's guard: printed from its constraints (a mask the author named, `mask=ok`, may name the row).
      if (mask_uses(op, c.l)) {
        for (auto& con : op.mask) con.expr = con.expr.substitute(c.l, row(c, j));
        if (Arg* m = op.arg("mask")) m->value.origin = nullptr;
      }
      auto shared = [&](const Access& a) { return c.p->shared_blocks.count(storage_of(*c.k, a.tensor)) > 0; };
      if (op.dst) {
        // A statement the rows share keeps its destination as written when the move leaves it
        // alone (`dst=k_t` of a K head's load shared by a group's query heads).
        const bool kept = shared_stmt && !uses_loop(*op.dst, c.l) && !c.copies[0].count(op.dst->tensor);
        remap(c, *op.dst, j, false);
        if (!kept) op.dst_origin = nullptr;
      }
      if (op.result >= 0) {
        auto it = c.copies[static_cast<size_t>(j)].find(op.result);
        if (it != c.copies[static_cast<size_t>(j)].end()) op.result = it->second;
      }
      for (auto& a : op.args) {
        if (a.value.kind != Operand::Kind::Tile) {
          // A dtype or number as written may name a tile of the row (`dtype=result_tiles.dtype`,
          // the row's tile now `result_tiles_0`): printed from the form then.
          if (a.value.origin && names_a_row_tile(c, *a.value.origin)) a.value.origin = nullptr;
          continue;
        }
        bool sh = shared(a.value.access);
        remap(c, a.value.access, j, sh);
        a.value.origin = nullptr;
      }
    }
    return n;
  }

  static bool node_per_row(const Plan& p, const Node& n) {
    for (const auto& op : n.ops)
      if (p.per_row.count(&op)) return true;
    return false;
  }
  static bool node_per_row(const Ctx& c, const Node& n) { return node_per_row(*c.p, n); }

  // Whether an operation of the node or of a node inside it is the row's.
  static bool holds_row_work(const Ctx& c, const Node& n) {
    if (node_per_row(c, n)) return true;
    for (const auto* b : {&n.body, &n.orelse})
      for (const Node& x : *b)
        if (holds_row_work(c, x)) return true;
    return false;
  }

  // Row j's copy of an Inline node: its operations (and those of the nodes inside) the row's, its
  // text the author's with the row's tile names (jam_inline.cpp).
  static Node copy_whole(Ctx& c, const Node& src, int64_t j) {
    Node m = copy_node(c, src, j);
    m.dirty = src.dirty;
    for (auto* b : {&m.body, &m.orelse})
      for (auto& x : *b) x = copy_whole(c, x, j);
    return m;
  }

  static Node copy_inline(Ctx& c, const Node& src, int64_t j) {
    Node m = copy_whole(c, src, j);
    for (const auto& [t, copy] : c.copies[static_cast<size_t>(j)]) {
      const std::string from = text_name(c.k->tensor(t).name), to = text_name(c.k->tensor(copy).name);
      if (!from.empty() && !to.empty() && from != to) m.renames[from] = to;
      // A list a rolled comprehension makes is read in the text by its list's name (`weights[c]`).
      const std::string& lf = c.k->tensor(t).list_name;
      const std::string& lt = c.k->tensor(copy).list_name;
      if (!lf.empty() && !lt.empty() && lf != lt) m.renames[lf] = lt;
    }
    return m;
  }

  // Whether a view or binding names the row: its loop variable, a name computed from it, or a tile
  // of the row (`g_h = grad_tile[:, f0:f0 + 512]`: the row's tile is a copy per row now). The
  // copies' accesses write it out instead.
  static bool of_row(const Ctx& c, const Node& n) {
    if (n.meta != MetaKind::Binding && n.meta != MetaKind::View) return false;
    if (n.view && uses_loop(*n.view, c.l)) return true;
    if (n.view && c.p->row_tensors.count(storage_of(*c.k, n.view->tensor))) return true;
    if (mentions(*c.k, n, c.k->loops.at(c.l).var)) return true;
    for (const auto& name : c.var_names)
      if (mentions(*c.k, n, name)) return true;
    return false;
  }

  // The row tensor whose list the node makes (`scores = []`, a binding of the list's name alone)
  // or appends to (`scores.append(row)`); -1: none.
  static int row_list_of(const Ctx& c, const Node& n) {
    for (int t : c.p->row_tensors) {
      const Tensor& tensor = c.k->tensor(t);
      if (tensor.list_name.empty() || tensor.list_loop < 0) continue;
      if (n.meta == MetaKind::Binding && n.origin && n.patch.empty() &&
          (makes_empty_list(*n.origin, tensor.list_name) || appends_name(*n.origin, tensor.list_name, tensor.name)))
        return t;
    }
    return -1;
  }

  // Row j's copy of a statement making or appending to the list of row tensor t.
  static Node list_statement(Ctx& c, const Node& n, int t, int64_t j) {
    const Tensor& copy = c.k->tensor(c.copies[static_cast<size_t>(j)].at(t));
    Node m = n;
    m.id = c.k->next_node++;
    m.repeat_copy = n.repeat_copy || j > 0;
    m.dirty = true;
    m.patch = makes_empty_list(*n.origin, c.k->tensor(t).list_name) ? fmt::format("{} = []", copy.list_name)
                                                                     : fmt::format("{}.append({})", copy.list_name, copy.name);
    return m;
  }

  // Whether every statement under the loop is the row's work (and no condition or helper call).
  static bool only_row_work(const Ctx& c, const Node& loop) {
    bool only = true;
    for_each_node(loop.body, [&](const Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::If || n.kind == NodeKind::Inline) only = false;
      if (n.kind == NodeKind::Stmt && !node_per_row(c, n)) only = false;
    });
    return only;
  }

  // Row j's copy of a loop holding only the row's work: the loop and its nested loops get ids of
  // their own (same variable names: the copies run one after another), the statements are row j's.
  static Node copy_loop(Ctx& c, const Node& src, int64_t j) {
    Node m = src;
    m.id = c.k->next_node++;
    m.dirty = true;
    m.repeat_copy = src.repeat_copy || j > 0;
    m.loop = add_loop(*c.k, c.k->loops.at(src.loop));
    rename_nodes(*c.k, m.body, src.loop, m.loop);
    for (const auto& [t, copy] : c.copies[static_cast<size_t>(j)]) {
      if (c.k->tensor(copy).scope_loop == src.loop) c.k->tensors[static_cast<size_t>(copy)].scope_loop = m.loop;
      // The row's list is appended to by the row's copy of the loop.
      if (c.k->tensor(copy).list_loop == src.loop) c.k->tensors[static_cast<size_t>(copy)].list_loop = m.loop;
      // (An outer level filled by this loop too: a list of lists, a flattened comprehension's nest.)
      for (auto& outer : c.k->tensors[static_cast<size_t>(copy)].outer_lists)
        if (outer.second == src.loop) outer.second = m.loop;
    }
    std::vector<Node> body;
    for (const Node& n : m.body) {
      if (n.kind == NodeKind::Loop) body.push_back(copy_loop(c, n, j));
      else if (n.kind == NodeKind::Stmt) body.push_back(copy_node(c, n, j));
      else if (int t = n.kind == NodeKind::Meta ? row_list_of(c, n) : -1; t >= 0) body.push_back(list_statement(c, n, t, j));
      else if (n.kind != NodeKind::Meta || !of_row(c, n)) body.push_back(n);
      else c.var_names.insert(n.binds.begin(), n.binds.end());
    }
    m.body = std::move(body);
    return m;
  }

  static void build(Ctx& c, std::vector<Node>& src, std::vector<Node>& out) {
    for (auto& n : src) {
      switch (n.kind) {
        case NodeKind::Loop: case NodeKind::If: {
          if ((c.p->whole_inner_loops || rolled_comprehension(*c.k, n)) && n.kind == NodeKind::Loop && only_row_work(c, n)) {
            for (int64_t j = 0; j < c.p->factor; ++j) out.push_back(copy_loop(c, n, j));
            break;
          }
          Node m = std::move(n);
          std::vector<Node> body, orelse;
          build(c, m.body, body);
          build(c, m.orelse, orelse);
          m.body = std::move(body);
          m.orelse = std::move(orelse);
          out.push_back(std::move(m));
          break;
        }
        case NodeKind::Meta: {
          // A list of the row's tiles: its making (`scores = []`) and its appends, once per row
          // under the row's list name (`scores_0 = []`, `scores_0.append(row_0)`).
          if (int t = row_list_of(c, n); t >= 0) {
            for (int64_t j = 0; j < c.p->factor; ++j) out.push_back(list_statement(c, n, t, j));
            break;
          }
          // Views and bindings of the row are written out in the copies' accesses instead (the
          // copies are printed from the form), and so are the bindings that name them in turn
          // (`n_end = n_start + BLOCK_N` after `n_start = n * BLOCK_N`: kept, it named a binding
          // no longer printed, and the printed kernel failed its re-lift check).
          if (of_row(c, n)) {
            c.var_names.insert(n.binds.begin(), n.binds.end());
            break;
          }
          out.push_back(std::move(n));
          break;
        }
        case NodeKind::Stmt:
          if (!node_per_row(c, n)) {
            // Once for the F rows: a write of a row's block goes to the first row's block.
            // So is one reading what the rows of a block read alike through the row's quotient
            // (`k[h // 2]` -> `k[h_blk]`): printed from the form with the first row's index.
            bool touches_block = false;
            for (auto& op : n.ops) {
              for (const Access* w : writes(op)) touches_block = touches_block || uses_loop(*w, c.l);
              for (const Access* r : reads(op)) touches_block = touches_block || uses_loop(*r, c.l);
            }
            // Printed from the form, too, when its text names a binding of the row that is no
            // longer printed (`rb = t // ncb` after `t = t_blk * 8 + t_in`: the row block's scale
            // load depends on t_blk alone, yet its text reads rb).
            for (const auto& name : c.var_names) touches_block = touches_block || mentions(*c.k, n, name);
            if (touches_block) out.push_back(copy_node(c, n, 0, true));
            else out.push_back(std::move(n));
            break;
          }
          for (int64_t j = 0; j < c.p->factor; ++j) out.push_back(copy_node(c, n, j));
          break;
        case NodeKind::Inline:
          if (!holds_row_work(c, n)) {
            out.push_back(std::move(n));
            break;
          }
          for (int64_t j = 0; j < c.p->factor; ++j) out.push_back(copy_inline(c, n, j));
          break;
        default: out.push_back(std::move(n)); break;
      }
    }
  }

  // The leading inner calls of a per-row statement that do not depend on the row (the load in
  // `acc += nisa.nc_matmul(x_t[k], nl.load(w[k, :, cols]))`), per statement id. Recorded before
  // anything moves: the plan holds pointers to the operations.
  static void shared_inner_calls(const Kernel& k, const std::vector<Node>& block, const Plan& p,
                                 std::map<int, size_t>& out) {
    for (const Node& n : block) {
      if (n.kind == NodeKind::Inline) continue;  // copied whole, as written
      shared_inner_calls(k, n.body, p, out);
      shared_inner_calls(k, n.orelse, p, out);
      if (n.kind != NodeKind::Stmt || n.ops.size() < 2 || !node_per_row(p, n)) continue;
      size_t lead = 0;
      while (lead + 1 < n.ops.size() && !p.per_row.count(&n.ops[lead]) && n.ops[lead].result >= 0 &&
             k.tensor(n.ops[lead].result).name.empty())
        ++lead;
      if (lead > 0) out[n.id] = lead;
    }
  }

  static std::string name_for(const Kernel& k, const Op& op) {
    for (const auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile && !k.tensor(a.value.access.tensor).name.empty())
        return fresh_loop_var(k, k.tensor(a.value.access.tensor).name + "_tile");
    return fresh_loop_var(k, "shared_tile");
  }

  // Each such call becomes a named statement of its own before its statement, so the rows share
  // it as they share a named tile, whatever the author's style of writing it inline.
  static bool split_shared_inner_calls(Kernel& k, std::vector<Node>& block, const std::map<int, size_t>& lead) {
    bool any = false;
    for (size_t i = 0; i < block.size(); ++i) {
      any = split_shared_inner_calls(k, block[i].body, lead) || any;
      any = split_shared_inner_calls(k, block[i].orelse, lead) || any;
      auto it = lead.find(block[i].id);
      if (it == lead.end()) continue;
      std::set<int> named;
      for (size_t j = 0; j < it->second; ++j) {
        Op& op = block[i].ops.front();
        named.insert(op.result);
        k.tensors[static_cast<size_t>(op.result)].name = name_for(k, op);
        split_leading_ops(k, block, i, 1);
        ++i;
      }
      // A read of a call now named prints its name, not the call's text.
      for (auto& op : block[i].ops)
        for (auto& a : op.args)
          if (a.value.kind == Operand::Kind::Tile && named.count(a.value.access.tensor)) a.value.origin = nullptr;
      any = true;
    }
    return any;
  }

  // A view of a row's tile (`res.reshape((BM, 4, 128))` read by the row's store) is the row's too:
  // each row's copy views that row's copy of the tile, printed as the reshape it is
  // (`res_1.reshape(...)`); else every copy would read a view of the tile the rows no longer
  // have. Views of views follow.
  static void copy_views_of_row_tiles(Ctx& c) {
    Kernel& k = *c.k;
    for (bool more = true; more;) {
      more = false;
      const size_t known = k.tensors.size();
      for (size_t v = 0; v < known; ++v) {
        const Tensor& view = k.tensors[v];
        const auto& first = c.copies[0];
        if (view.role != TensorRole::View || view.base < 0 || !first.count(view.base) ||
            first.count(static_cast<int>(v)))
          continue;
        for (size_t j = 0; j < c.copies.size(); ++j) {
          Tensor copy = k.tensors[v];
          copy.base = c.copies[j].at(copy.base);
          copy.name.clear();  // its binding, if any, is not printed for the copies (build: views of the row)
          c.copies[j][static_cast<int>(v)] = add_tensor(k, std::move(copy));
        }
        more = true;
      }
    }
  }

  static void apply(Kernel& k, int id, const Plan& planned) {
    Plan p = planned;
    {
      std::map<int, size_t> lead;
      shared_inner_calls(k, find_node(k, id)->body, p, lead);
      if (!lead.empty() && split_shared_inner_calls(k, find_node(k, id)->body, lead)) {
        auto again = make_plan(k, *find_node(k, id), p.factor);
        if (!again) throw TransformError("jam_rows: naming the shared inner calls made the loop unjammable");
        p = std::move(*again);
      }
    }
    Node* loop_node = find_node(k, id);
    // A loop already printed from the form (an opened helper's `for ct in nl.affine_range(
    // ceil_div(M, rows))`, whose bound names the helper's locals) keeps being printed so.
    const bool header_from_form = loop_node->dirty && loop_node->patch.empty();
    Ctx c;
    c.k = &k;
    c.p = &p;
    c.l = p.loop;
    Loop nl = k.loops.at(p.loop);
    nl.id = static_cast<int>(k.loops.size());
    while (k.loops.count(nl.id)) ++nl.id;
    nl.var = fresh_loop_var(k, nl.var + "_blk");
    nl.stop = IExpr(nl.stop.constant() / p.factor);
    k.loops[nl.id] = nl;
    c.nl = nl.id;
    // Per-row tiles: one copy per row, named name_j.
    c.copies.resize(static_cast<size_t>(p.factor));
    std::map<int, const Node*> in_inline;  // a row tile an Inline node makes: named as its text binds it
    tensors_made_in_inlines(loop_node->body, in_inline);
    for (int t : p.row_tensors) {
      for (int64_t j = 0; j < p.factor; ++j) {
        Tensor copy = k.tensor(t);
        if (auto it = in_inline.find(t); it != in_inline.end()) copy.name = inline_copy_name(k, *it->second, copy.name, j);
        else if (!copy.name.empty()) copy.name = fmt::format("{}_{}", copy.name, j);
        if (!copy.list_name.empty()) {
          // A rolled comprehension's item is named after its list (`parts_item`, lift_rolled.cpp):
          // the row's follows the row's list (`parts_0_item`), as the printed copy lifts again.
          const bool item_of_list = p.rolled_lists.count(t) && k.tensor(t).name == copy.list_name + "_item";
          const bool flat = flat_list(copy);
          copy.list_name = fmt::format("{}_{}", copy.list_name, j);
          if (flat) copy.outer_lists[0].first = copy.list_name;  // still one list (flat_list.h)
          if (item_of_list) copy.name = copy.list_name + "_item";
        }
        if (copy.scope_loop == p.loop) copy.scope_loop = nl.id;
        c.copies[static_cast<size_t>(j)][t] = add_tensor(k, std::move(copy));
      }
    }
    copy_views_of_row_tiles(c);
    // Private scratch: row 0 keeps the author's buffer, the others get copies declared next to it:
    // its declaration statement (a comprehension making a list of them too) printed again under
    // the copy's name.
    for (int t : p.private_tensors) {
      size_t at = 0;
      const int decl = declaring_node(k.body, t);
      std::vector<Node>* block = decl >= 0 ? parent_block(k.body, decl, at) : nullptr;
      if (!block) throw TransformError("jam_rows: the declaration of a private scratch buffer was not found");
      const Node original = (*block)[at];
      const std::string name = k.tensor(t).host_list ? k.tensor(t).list_name : k.tensor(t).name;
      std::vector<Node> copies;
      for (int64_t j = 1; j < p.factor; ++j) {
        Tensor copy = k.tensor(t);
        copy.name = fresh_loop_var(k, fmt::format("{}_{}", name, j));
        if (copy.host_list) copy.list_name = copy.name;
        copy.label.clear();
        copy.dim_text.clear();
        const std::string copy_name = copy.name;
        const int id_copy = add_tensor(k, std::move(copy));
        c.copies[static_cast<size_t>(j)][t] = id_copy;
        Node n = original;
        renumber(k, n, t, id_copy);
        n.renames[name] = copy_name;
        copies.push_back(std::move(n));
      }
      block->insert(block->begin() + static_cast<long>(at) + 1, std::make_move_iterator(copies.begin()),
                    std::make_move_iterator(copies.end()));
    }
    for (auto& t : k.tensors)
      if (t.scope_loop == p.loop) t.scope_loop = nl.id;
    loop_node = find_node(k, id);
    std::vector<Node> body;
    build(c, loop_node->body, body);
    loop_node->body = std::move(body);
    loop_node->loop = nl.id;
    loop_node->dirty = true;
    // The blocked loop's header keeps the author's bound when it is an expression:
    // `for m in nl.affine_range(m_tiles)` -> `for m_blk in nl.affine_range(m_tiles // 2)`.
    loop_node->patch = header_from_form || text_outside_kernel(k, *loop_node) ? "" : authored_header(*loop_node, nl.var, p.factor);
  }
};

}  // namespace

std::unique_ptr<Transform> make_jam_rows() { return std::make_unique<UnrollJam>(); }

bool overlaps_rows_only(const std::string& transform, const std::map<std::string, std::string>& params) {
  return transform == "jam_rows" && params.count(kOverlap) > 0;
}

bool can_jam_rows(Kernel& k, int id, int64_t factor) {
  Node* n = find_node(k, id);
  return n && n->kind == NodeKind::Loop && make_plan(k, *n, factor).has_value();
}

void jam_rows(Kernel& k, int id, int64_t factor) {
  Node* n = find_node(k, id);
  auto plan = n && n->kind == NodeKind::Loop ? make_plan(k, *n, factor) : std::nullopt;
  if (!plan) throw TransformError(fmt::format("jam_rows: the loop cannot run {} iterations at once", factor));
  UnrollJam::run(k, id, *plan);
}

}  // namespace loopnest
