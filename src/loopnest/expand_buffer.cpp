// Scalar (array) expansion on the form: an on-chip buffer declared outside a loop L and reused by
// every iteration of it, whose value never flows from one iteration of L to the next, gets one copy
// per iteration of L. Its last free dim grows by L's trip and every access inside L reads and writes
// the iteration's own columns:
//   carry = (128, 1)                          carry = (128, S)
//   for s: for blk: ...                 =>    for s: for blk: ...
//     h = scan(..., initial=0.0 if blk == 0 else carry)    initial=0.0 if blk == 0 else carry[:, s:s+1]
//     carry = h[:, W-1:W]                                   carry[:, s:s+1] = h[:, W-1:W]
// The buffer then no longer ties the iterations of L together through its reuse (the anti and output
// dependences between one iteration's last write and the next one's first write go), so a loop
// inside L can move outside it (interchange_loops: the state loop of a selective scan inside its
// sequence-block loop, where the s-invariant loads and products can then leave it).
//
// Legal from the form when
//   - the buffer is declared on chip in SBUF (a declaration, one tile or a list of tiles), outside
//     L, and every other access of it lies inside L, none of them using L's variable, none in a
//     helper's frozen body, no view aliasing it; L starts at 0 and steps by 1, its trip known;
//   - no value is live into an iteration of L (privatizable): every read of the buffer in L's body
//     reads what the same iteration wrote before it. A read is covered
//       (a) by an earlier unconditional write of the same region (or of the whole buffer) in loops
//           that enclose the read, or
//       (b) inside a loop M in L, by a first iteration of M that does not read the buffer (a
//           number-or-tile operand taking the number exactly when M is at its start,
//           `0.0 if blk == 0 else carry`, Operand::number_when; or an earlier write of the region
//           under a condition true exactly at M's start, `if blk == 0: memset(carry)`), and a write
//           of the same region in every iteration of M (in the same loops as the read, not moving
//           with M) for the iterations after it;
//   - the expanded buffer with every other SBUF tile fits a partition of the smallest architecture
//     (hoist_expand's rule: other_sbuf_bytes, sbuf_budget).
// The value is dead after L for free: no access lies outside it.
//
// Printing keeps the author's style: a list of tiles stays a list of wider tiles, an ndarray gets a
// wider last dim; the new size is printed with L's authored bound (`(128, states)`).
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

// One access of the buffer inside L, in program order.
struct Touch {
  const Op* op = nullptr;
  const Access* access = nullptr;
  const Operand* operand = nullptr;  // the read's operand (null for writes and destination reads)
  bool write = false;
  std::vector<int> loops;            // loops between L and the access, outermost first
  std::vector<const Node*> conds;    // If nodes between L and the access
};

// Whether the bool expression `e` of loop `m`'s variable is 1 exactly at m's first iteration.
bool first_iteration_only(const Kernel& k, const IExpr& e, int m) {
  const Loop& l = k.loops.at(m);
  auto trip = l.trip();
  if (!trip || !l.start.is_constant()) return false;
  for (int v : e.vars())
    if (v != m) return false;
  for (int64_t i = 0; i < *trip; ++i) {
    auto value = e.eval({{m, l.start.constant() + i * l.step}});
    if (!value || (*value != 0) != (i == 0)) return false;
  }
  return true;
}

// The same for an If node's condition.
bool first_iteration_only(const Kernel& k, const Node& cond, int m) {
  if (!cond.orelse.empty()) return false;
  return first_iteration_only(k, IExpr::select(cond.cond_l, cond.cond, cond.cond_r, IExpr(1), IExpr(0)), m);
}

// Whether write `w` covers every element read `r` reads, for the same values of the loop variables:
// per dim, w's interval holds r's (the differences of their bounds constant); a dim indexed by an
// integer alone (a block of a list or ndarray) the same integer.
bool covers(const Kernel& k, const Access& w, const Access& r) {
  if (w == r || accesses_whole(k, w)) return true;
  if (w.tensor != r.tensor || w.dims.size() != r.dims.size()) return false;
  auto nonnegative = [](const IExpr& e) { return e.is_constant() && e.constant() >= 0; };
  for (size_t d = 0; d < w.dims.size(); ++d) {
    const DimIndex &wd = w.dims[d], &rd = r.dims[d];
    if (wd.terms.empty()) {
      if (!rd.terms.empty() || wd.start != rd.start) return false;
      continue;
    }
    if (wd.terms.size() != 1 || !wd.terms[0].affine() || wd.terms[0].stride != 1 || rd.terms.size() > 1) return false;
    IExpr r_size = rd.terms.empty() ? IExpr(1) : rd.terms[0].size;
    if (!rd.terms.empty() && (!rd.terms[0].affine() || rd.terms[0].stride != 1)) return false;
    if (!nonnegative(rd.start - wd.start) || !nonnegative(wd.start + wd.terms[0].size - (rd.start + r_size))) return false;
  }
  return true;
}

bool is_prefix(const std::vector<int>& a, const std::vector<int>& b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// Every access of storage `t` in `body` (program order), with the loops and conditions around it
// below L; false when one lies in a frozen node or a helper's call.
bool collect(const Kernel& k, const std::vector<Node>& body, int t, std::vector<int>& loops,
             std::vector<const Node*>& conds, std::vector<Touch>& out) {
  for (const Node& n : body) {
    if (n.kind == NodeKind::Loop) {
      loops.push_back(n.loop);
      bool ok = collect(k, n.body, t, loops, conds, out);
      loops.pop_back();
      if (!ok) return false;
      continue;
    }
    if (n.kind == NodeKind::Inline) {  // a helper's body touching it: its accesses are not the form's to rewrite
      std::vector<Touch> helper;
      if (!collect(k, n.body, t, loops, conds, helper) || !helper.empty()) return false;
    }
    if (n.kind == NodeKind::If) {
      conds.push_back(&n);
      bool ok = collect(k, n.body, t, loops, conds, out) && collect(k, n.orelse, t, loops, conds, out);
      conds.pop_back();
      if (!ok) return false;
      continue;
    }
    for (const Op& op : n.ops) {
      bool touches = false;
      for (const Arg& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && storage_of(k, a.value.access.tensor) == t) {
          out.push_back({&op, &a.value.access, &a.value, false, loops, conds});
          touches = true;
        }
      if (op.dst && storage_of(k, op.dst->tensor) == t) {
        if (op.accumulate || reads_destination(op)) out.push_back({&op, &*op.dst, nullptr, false, loops, conds});
        out.push_back({&op, &*op.dst, nullptr, true, loops, conds});
        touches = true;
      }
      if (touches && (n.frozen || n.kind == NodeKind::Inline)) return false;
    }
  }
  return true;
}

// Whether every read in `touches` (one iteration of L) reads what that iteration wrote before it.
bool privatizable(const Kernel& k, const std::vector<Touch>& touches) {
  for (size_t i = 0; i < touches.size(); ++i) {
    const Touch& r = touches[i];
    if (r.write) continue;
    // (a) an earlier unconditional write of the region, in loops around the read.
    bool covered = false;
    for (size_t j = 0; j < i && !covered; ++j) {
      const Touch& w = touches[j];
      covered = w.write && w.conds.empty() && w.op != r.op && is_prefix(w.loops, r.loops) &&
                covers(k, *w.access, *r.access);
    }
    // (b) a loop M whose first iteration does not read it and whose every iteration writes it.
    for (size_t d = 0; d < r.loops.size() && !covered; ++d) {
      int m = r.loops[d];
      if (uses_loop(*r.access, m)) continue;
      bool first = r.operand && r.operand->number_when && first_iteration_only(k, *r.operand->number_when, m);
      for (size_t j = 0; j < i && !first; ++j) {
        const Touch& w = touches[j];
        first = w.write && w.conds.size() == 1 && first_iteration_only(k, *w.conds[0], m) &&
                is_prefix(w.loops, r.loops) && std::count(w.loops.begin(), w.loops.end(), m) &&
                covers(k, *w.access, *r.access);
      }
      if (!first) continue;
      covered = std::any_of(touches.begin(), touches.end(), [&](const Touch& w) {
        return w.write && w.conds.empty() && w.loops == r.loops && !uses_loop(*w.access, m) &&
               covers(k, *w.access, *r.access);
      });
    }
    if (!covered) return false;
  }
  return true;
}

// How the author names the buffer: its list, else its own name.
std::string display_name(const Tensor& t) { return t.list_name.empty() ? t.name : t.list_name; }

struct Expansion {
  int tensor = -1;
  int loop = -1;       // L's loop id
  int loop_node = -1;  // L's node id
  int64_t trip = 0;
  int64_t width = 0;   // the last dim's size before
};

// Whether buffer `t` may be expanded over loop node `ln` (the rules above, capacity aside).
std::optional<Expansion> plan(Kernel& k, const Node& ln, int t) {
  const Tensor& tensor = k.tensor(t);
  if (tensor.role != TensorRole::Buffer || tensor.memory != Memory::Sbuf) return std::nullopt;
  if (tensor.shape.empty() || static_cast<size_t>(tensor.partition_dim) + 1 >= tensor.shape.size()) return std::nullopt;
  if (!tensor.shape.back().is_constant()) return std::nullopt;
  for (const Tensor& o : k.tensors)
    if (o.id != t && storage_of(k, o.id) == t) return std::nullopt;  // a view aliases it
  const Loop& l = k.loops.at(ln.loop);
  auto trip = l.trip();
  if (!trip || *trip < 2 || l.step != 1 || !l.start.is_constant() || l.start.constant() != 0) return std::nullopt;
  std::set<int> inside = loops_within(ln);
  if (inside.count(tensor.scope_loop) || inside.count(tensor.list_loop)) return std::nullopt;
  // Every access but the declaration lies in L.
  std::vector<int> loops;
  std::vector<const Node*> conds;
  std::vector<Touch> all, within;
  if (!collect(k, k.body, t, loops, conds, all) || !collect(k, ln.body, t, loops, conds, within)) return std::nullopt;
  size_t accesses = 0;  // every access but declarations
  for (const Touch& x : all) accesses += x.op->cls != OpClass::Alloc;
  if (within.empty() || accesses != within.size()) return std::nullopt;
  for (const Touch& x : within) {
    if (x.op->cls == OpClass::Alloc || uses_loop(*x.access, ln.loop)) return std::nullopt;
    if (x.operand && x.operand->number_when && x.operand->number_when->uses(ln.loop)) return std::nullopt;
  }
  if (!std::any_of(within.begin(), within.end(), [](const Touch& x) { return !x.write; })) return std::nullopt;
  if (!privatizable(k, within)) return std::nullopt;
  return Expansion{t, ln.loop, ln.id, *trip, tensor.shape.back().constant()};
}

// The author's text of the declared dims (`(n_ct, nl.par_dim(128), 1)`) kept for the dims that do
// not change, so the redeclaration still reads `n_ct`.
void keep_authored_dims(const Kernel& k, const Operand& shape, Tensor& t) {
  if (!shape.origin || shape.origin->kind != nki::ExprKind::Tuple || !k.module) return;
  const auto& elts = static_cast<const nki::SequenceExpr&>(*shape.origin).elts;
  size_t first = t.list_levels();
  if (elts.size() + first != t.shape.size()) return;
  for (size_t d = 0; d + 1 < elts.size(); ++d) {
    const nki::Span& sp = elts[d]->span;
    if (sp.line == 0 || sp.line != sp.end_line) continue;
    std::string text = k.module->file->line_text(sp.line).substr(sp.col - 1, sp.end_col - sp.col);
    if (static_cast<int>(first + d) == t.partition_dim) continue;  // printed as par_dim(...) from the form
    t.dim_text[first + d] = {t.shape[first + d], text};
  }
}

// Gives each iteration of L its own columns of the buffer.
// Whether node `n` still prints `name` once the buffer's reads are reprinted: a node printed as
// written where its text says it, one printed from the form (dirty) through an operand it prints as
// the author's text; a loop or branch through its header (its body's nodes are asked on their own).
bool prints_name(const Kernel& k, const Node& n, const std::string& name) {
  std::set<std::string> read;
  if (n.kind == NodeKind::Loop || n.kind == NodeKind::If) {
    if (n.origin && n.origin->kind == nki::StmtKind::For) names_of(*static_cast<const nki::ForStmt&>(*n.origin).iter, read);
    if (n.origin && n.origin->kind == nki::StmtKind::If) names_of(*static_cast<const nki::IfStmt&>(*n.origin).test, read);
    return read.count(name) > 0;
  }
  if (!n.dirty || !n.patch.empty()) return mentions(k, n, name);
  for (const Op& op : n.ops) {
    for (const Arg& a : op.args)
      if (a.value.origin) names_of(*a.value.origin, read);
    if (op.dst_origin) names_of(*op.dst_origin, read);
  }
  return read.count(name) > 0;
}

// A binding in L that an operand of the buffer was read through (`start = 0.0 if blk == 0 else
// carry`, `initial=start`; a view of the buffer, which expand does not widen): the reads now print
// the iteration's columns from the form, so when nothing else prints the name the binding is dead
// (and names the whole wider buffer): it goes.
void drop_unread_bindings(Kernel& k, Node& loop, const std::set<std::string>& names) {
  for (const std::string& name : names) {
    int binding = -1;
    bool read = false;
    for_each_node(loop.body, [&](const Node& n, const std::vector<int>&) {
      bool binds = n.kind == NodeKind::Meta && (n.meta == MetaKind::Binding || n.meta == MetaKind::View) &&
                   n.binds == std::vector<std::string>{name};
      if (binds) binding = binding < 0 ? n.id : -2;  // bound twice: left alone
      else read = read || prints_name(k, n, name);
    });
    size_t at = 0;
    if (binding < 0 || read) continue;
    if (std::vector<Node>* block = parent_block(loop.body, binding, at)) block->erase(block->begin() + long(at));
  }
}

void expand(Kernel& k, const Expansion& e) {
  Tensor& t = k.tensor(e.tensor);
  size_t last = t.shape.size() - 1;
  t.shape[last] = t.shape[last] * e.trip;
  std::string bound = printable_bound(k, e.loop, {});
  if (t.dim_text.size() != t.shape.size()) t.dim_text.assign(t.shape.size(), {IExpr(), ""});
  t.dim_text[last] = {t.shape[last], bound.empty() ? "" : e.width == 1 ? bound : fmt::format("{} * {}", e.width, bound)};
  IExpr column = IExpr::var(e.loop) * e.width;
  Node* ln = find_node(k, e.loop_node);
  std::set<std::string> through;  // the names the buffer's reads were written through
  for_each_node(ln->body, [&](Node& n, const std::vector<int>&) {
    for (Op& op : n.ops) {
      for (Arg& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && storage_of(k, a.value.access.tensor) == e.tensor) {
          a.value.access.dims[last].start = a.value.access.dims[last].start + column;
          if (a.value.origin && a.value.origin->kind == nki::ExprKind::Name)
            through.insert(static_cast<const nki::NameExpr&>(*a.value.origin).id);
          a.value.origin = nullptr;
          n.dirty = true;
        }
      if (op.dst && storage_of(k, op.dst->tensor) == e.tensor) {
        op.dst->dims[last].start = op.dst->dims[last].start + column;
        op.dst_origin = nullptr;
        n.dirty = true;
      }
    }
  });
  drop_unread_bindings(k, *ln, through);
  // The declaration (outside L) makes the wider tile; a list element's keeps its list index.
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (Op& op : n.ops) {
      if (op.cls != OpClass::Alloc || !op.dst || op.dst->tensor != e.tensor) continue;
      for (AxisTerm& term : op.dst->dims[last].terms) term.size = t.shape[last];
      if (Arg* shape = op.arg("shape"); shape && shape->value.kind == Operand::Kind::Shape) {
        keep_authored_dims(k, shape->value, t);
        shape->value.shape.back() = t.shape[last];
        shape->value.origin = nullptr;
      }
      n.dirty = true;
    }
  });
}

class ExpandBuffer : public Transform {
 public:
  std::string name() const override { return "expand_buffer"; }
  std::string description() const override {
    return "give an on-chip buffer every iteration of a loop reuses, whose value never flows from one iteration to "
           "the next, one copy per iteration (scalar expansion): the reuse no longer orders the iterations, so a loop "
           "inside it may move outside";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    for (int id : open_loop_ids(k)) {  // node ids
      for (size_t t = 0; t < k.tensors.size(); ++t) {
        const Node* ln = find_node(k, id);
        if (!ln) break;
        auto e = plan(k, *ln, static_cast<int>(t));
        if (!e) continue;
        Kernel trial = k;
        expand(trial, *e);
        int64_t total = other_sbuf_bytes(trial, Analysis(trial), -1);
        if (total > sbuf_budget()) continue;  // does not fit: no site
        // Anchored at the buffer's first reader in L (its writers differ by style: a memset at the first
        // block or a number chosen there), `over` the loops between L and it: the same in every style.
        Analysis an(k);
        const OpRef* anchor = nullptr;
        for (const OpRef* r : an.readers(k, e->tensor))
          if (!anchor && std::count(r->loops.begin(), r->loops.end(), ln->loop)) anchor = r;
        if (!anchor) continue;
        auto at = std::find(anchor->loops.begin(), anchor->loops.end(), ln->loop);
        Site site = make_site(
            k, an, *anchor,
            fmt::format("give each iteration of `for {}` its own `{}` ({} copies, {} KiB per partition with the other "
                        "tiles, of {} KiB)",
                        k.var_name(ln->loop), display_name(k.tensor(e->tensor)), e->trip, total / 1024, sbuf_budget() / 1024),
            {{"over", std::to_string(anchor->loops.end() - at)}});
        Expansion plan_now = *e;
        if (sink(site, [&k, plan_now] {
              const Node* n = find_node(k, plan_now.loop_node);
              if (!n || !plan(k, *n, plan_now.tensor)) throw TransformError("expand_buffer: the buffer is not private");
              expand(k, plan_now);
            }))
          return true;
      }
    }
    return false;
  }

};

}  // namespace

std::unique_ptr<Transform> make_expand_buffer() { return std::make_unique<ExpandBuffer>(); }

}  // namespace loopnest
