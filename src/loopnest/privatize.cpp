// The privatizable analysis of privatize.h. A read in an iteration of L is covered (it reads what
// the same iteration wrote before it) by
//   (a) an earlier unconditional write of the same region (or of the whole buffer) in loops that
//       enclose the read (`ring[s] = exp(...)` then `for t: ... ring[s, :, 128*t + a[128]]`);
//   (b) inside a loop M in L, a first iteration of M that does not read the buffer (a
//       number-or-tile operand taking the number exactly when M is at its start,
//       `0.0 if blk == 0 else carry`, Operand::number_when; or an earlier write of the region under
//       a condition true exactly at M's start, `if blk == 0: memset(carry)`), and a write of the
//       same region in every iteration of M (in the same loops as the read, not moving with M) for
//       the iterations after it;
//   (c) the writes of an earlier loop M, unconditional, whose iterations together write one
//       interval holding the read's region (`for j: ring[s, :, 512*j + a1[512]] = ...` with j over
//       0..7, then `ring[s, :, a1[4096]]` read whole): M encloses the write directly, the loops
//       around M enclose the read, the read is not in M;
//   (d) earlier unconditional writes in loops around the read whose intervals along one dim chain
//       over the read's, each holding it in every other dim (two 64-partition halves written, then
//       the 128-partition tile read).
// "Holds" is decided per dim: a dim indexed by an integer alone (a ring's slot, a block) the same
// integer expression; an interval's bounds differ by amounts the loop ranges keep non-negative.
// Masked writes cover nothing.
#include "loopnest/privatize.h"

#include <algorithm>
#include <set>
#include <string>

#include "loopnest/analysis.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

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

// Whether `e` is >= 0 for every value the loop variables take.
bool nonnegative(const IExpr& e, const Ranges& ranges) {
  if (e.is_constant()) return e.constant() >= 0;
  auto b = e.bounds(ranges);
  return b && b->first >= 0;
}

// Whether write `w` covers every element read `r` reads, for the same values of the loop variables
// they share: per dim, w's interval holds r's; a dim indexed by an integer alone (a block of a list
// or ndarray, a ring's slot) the same integer.
bool covers(const Kernel& k, const Access& w, const Access& r) {
  if (w == r || accesses_whole(k, w)) return true;
  if (w.tensor != r.tensor || w.dims.size() != r.dims.size()) return false;
  Ranges ranges = k.ranges();
  for (size_t d = 0; d < w.dims.size(); ++d) {
    const DimIndex &wd = w.dims[d], &rd = r.dims[d];
    if (wd.terms.empty()) {
      if (!rd.terms.empty() || wd.start != rd.start) return false;
      continue;
    }
    if (wd.terms.size() != 1 || !wd.terms[0].affine() || wd.terms[0].stride != 1 || rd.terms.size() > 1) return false;
    IExpr r_size = rd.terms.empty() ? IExpr(1) : rd.terms[0].size;
    if (!rd.terms.empty() && (!rd.terms[0].affine() || rd.terms[0].stride != 1)) return false;
    if (!nonnegative(rd.start - wd.start, ranges) || !nonnegative(wd.start + wd.terms[0].size - (rd.start + r_size), ranges))
      return false;
  }
  return true;
}

// The region write `w` covers over all iterations of loop `m` (rule c): `w` with its one dim that
// moves with m widened to the union of its intervals; nullopt when that union is not one interval
// (each step of m moves the interval on by at most its size) or m's trip is unknown.
std::optional<Access> swept(const Kernel& k, const Access& w, int m) {
  const Loop& l = k.loops.at(m);
  auto trip = l.trip();
  if (!trip || *trip < 1) return std::nullopt;
  Access out = w;
  int moving = 0;
  for (DimIndex& d : out.dims) {
    for (const AxisTerm& t : d.terms)
      if (t.size.uses(m)) return std::nullopt;
    if (!d.start.uses(m)) continue;
    if (++moving > 1 || d.terms.size() != 1 || !d.terms[0].affine() || d.terms[0].stride != 1 ||
        !d.terms[0].size.is_constant())
      return std::nullopt;
    IExpr step = d.start.substitute(m, IExpr::var(m) + l.step) - d.start;
    if (!step.is_constant() || step.constant() <= 0 || step.constant() > d.terms[0].size.constant()) return std::nullopt;
    IExpr lo = d.start.substitute(m, l.start);
    IExpr hi = d.start.substitute(m, l.start + (*trip - 1) * l.step) + d.terms[0].size;
    d.start = lo;
    d.terms[0].size = hi - lo;
  }
  return out;
}

bool is_prefix(const std::vector<int>& a, const std::vector<int>& b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

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

// A write that sets every element of its region whenever it runs.
bool full_write(const Touch& w) { return w.write && w.conds.empty() && w.op->mask.empty(); }

// Rule (d): whether `writes` (earlier full writes around the read) together cover read `r`: along
// one dim d, those of them that hold r in every other dim chain their intervals from r's start to
// its end (`lo[0:64, :] = ...; lo[64:128, :] = ...` then `lo` read whole).
bool union_covers(const Kernel& k, const std::vector<const Access*>& writes, const Access& r) {
  Ranges ranges = k.ranges();
  for (size_t d = 0; d < r.dims.size(); ++d) {
    const DimIndex& rd = r.dims[d];
    if (rd.terms.size() != 1 || !rd.terms[0].affine() || rd.terms[0].stride != 1) continue;
    std::vector<std::pair<IExpr, IExpr>> spans;  // [start, end) of the writes holding r elsewhere
    for (const Access* w : writes) {
      if (w->tensor != r.tensor || w->dims.size() != r.dims.size()) continue;
      const DimIndex& wd = w->dims[d];
      if (wd.terms.size() != 1 || !wd.terms[0].affine() || wd.terms[0].stride != 1) continue;
      Access rest = r;
      rest.dims[d] = wd;  // r in every other dim, w's own interval in d
      if (covers(k, *w, rest)) spans.emplace_back(wd.start, wd.start + wd.terms[0].size);
    }
    if (spans.size() < 2) continue;
    IExpr at = rd.start, end = rd.start + rd.terms[0].size;
    for (size_t step = 0; step < spans.size() && !nonnegative(at - end, ranges); ++step)
      for (const auto& [lo, hi] : spans)
        if (nonnegative(at - lo, ranges) && nonnegative(hi - at - IExpr(1), ranges)) {
          at = hi;
          break;
        }
    if (nonnegative(at - end, ranges)) return true;
  }
  return false;
}

}  // namespace

namespace {

bool collect(const Kernel& k, const std::vector<Node>& body, int t, std::vector<int>& loops,
             std::vector<const Node*>& conds, std::vector<Touch>& out, bool helpers, bool in_helper) {
  for (const Node& n : body) {
    if (n.kind == NodeKind::Loop) {
      loops.push_back(n.loop);
      bool ok = collect(k, n.body, t, loops, conds, out, helpers, in_helper);
      loops.pop_back();
      if (!ok) return false;
      continue;
    }
    if (n.kind == NodeKind::Inline) {  // a helper's body touching it: its accesses are not the form's to rewrite
      std::vector<Touch> helper;
      if (!collect(k, n.body, t, loops, conds, helper, helpers, true) || (!helpers && !helper.empty())) return false;
      out.insert(out.end(), helper.begin(), helper.end());
    }
    if (n.kind == NodeKind::If) {
      conds.push_back(&n);
      bool ok = collect(k, n.body, t, loops, conds, out, helpers, in_helper) &&
                collect(k, n.orelse, t, loops, conds, out, helpers, in_helper);
      conds.pop_back();
      if (!ok) return false;
      continue;
    }
    for (const Op& op : n.ops) {
      bool touches = false;
      for (const Arg& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && storage_of(k, a.value.access.tensor) == t) {
          // An output operand (activation's reduce_res) is written, not read (analysis.h writes()).
          if (a.output) out.push_back({&op, &a.value.access, nullptr, true, loops, conds, in_helper});
          else out.push_back({&op, &a.value.access, &a.value, false, loops, conds, in_helper});
          touches = true;
        }
      if (op.dst && storage_of(k, op.dst->tensor) == t) {
        if (op.accumulate || reads_destination(op)) out.push_back({&op, &*op.dst, nullptr, false, loops, conds, in_helper});
        out.push_back({&op, &*op.dst, nullptr, true, loops, conds, in_helper});
        touches = true;
      }
      // The call's own operations, or a frozen statement of the kernel's own code: refused; a
      // statement of the helper's body only when the caller allows helpers.
      if (touches && (n.kind == NodeKind::Inline || (n.frozen && !(helpers && in_helper)))) return false;
    }
  }
  return true;
}

}  // namespace

bool collect_touches(const Kernel& k, const std::vector<Node>& body, int t, std::vector<int>& loops,
                     std::vector<const Node*>& conds, std::vector<Touch>& out, bool helpers) {
  return collect(k, body, t, loops, conds, out, helpers, false);
}

bool privatizable(const Kernel& k, const std::vector<Touch>& touches) {
  for (size_t i = 0; i < touches.size(); ++i) {
    const Touch& r = touches[i];
    if (r.write) continue;
    // The earlier unconditional writes in loops around the read: (a) one of them holds its region,
    // or (d) together they do.
    std::vector<const Access*> earlier;
    for (size_t j = 0; j < i; ++j)
      if (full_write(touches[j]) && touches[j].op != r.op && is_prefix(touches[j].loops, r.loops))
        earlier.push_back(touches[j].access);
    bool covered = std::any_of(earlier.begin(), earlier.end(), [&](const Access* w) { return covers(k, *w, *r.access); }) ||
                   union_covers(k, earlier, *r.access);
    // (c) every iteration of an earlier loop M writing a piece of the region.
    for (size_t j = 0; j < i && !covered; ++j) {
      const Touch& w = touches[j];
      if (!full_write(w) || w.op == r.op || w.loops.empty()) continue;
      std::vector<int> around(w.loops.begin(), w.loops.end() - 1);
      int m = w.loops.back();
      if (!is_prefix(around, r.loops) || std::count(r.loops.begin(), r.loops.end(), m)) continue;
      auto region = swept(k, *w.access, m);
      covered = region && covers(k, *region, *r.access);
    }
    // (b) a loop M whose first iteration does not read it and whose every iteration writes it.
    for (size_t d = 0; d < r.loops.size() && !covered; ++d) {
      int m = r.loops[d];
      if (uses_loop(*r.access, m)) continue;
      bool first = r.operand && r.operand->number_when && first_iteration_only(k, *r.operand->number_when, m);
      for (size_t j = 0; j < i && !first; ++j) {
        const Touch& w = touches[j];
        first = w.write && w.op->mask.empty() && w.conds.size() == 1 && first_iteration_only(k, *w.conds[0], m) &&
                is_prefix(w.loops, r.loops) && std::count(w.loops.begin(), w.loops.end(), m) &&
                covers(k, *w.access, *r.access);
      }
      if (!first) continue;
      covered = std::any_of(touches.begin(), touches.end(), [&](const Touch& w) {
        return full_write(w) && w.loops == r.loops && !uses_loop(*w.access, m) && covers(k, *w.access, *r.access);
      });
    }
    if (!covered) return false;
  }
  return true;
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

std::vector<std::string> authored_dims(const Kernel& k, const Operand& shape, const Tensor& t) {
  std::vector<std::string> out(t.shape.size());
  if (!shape.origin || shape.origin->kind != nki::ExprKind::Tuple || !k.module) return out;
  const auto& elts = static_cast<const nki::SequenceExpr&>(*shape.origin).elts;
  size_t first = t.list_levels();
  if (elts.size() + first != t.shape.size()) return out;
  for (size_t d = 0; d < elts.size(); ++d) {
    const nki::Span& sp = elts[d]->span;
    if (sp.line == 0 || sp.line != sp.end_line) continue;
    out[first + d] = k.module->file->line_text(sp.line).substr(sp.col - 1, sp.end_col - sp.col);
  }
  return out;
}

void drop_block_dim(Kernel& k, int t, int dim) {
  Tensor& tensor = k.tensor(t);
  tensor.shape.erase(tensor.shape.begin() + dim);
  if (tensor.dim_text.size() > static_cast<size_t>(dim)) tensor.dim_text.erase(tensor.dim_text.begin() + dim);
  --tensor.partition_dim;
  for_each_node(k.body, [&](Node& x, const std::vector<int>&) {
    for (auto& op : x.ops) {
      auto fix = [&](Access& a, const nki::Expr** origin) {
        if (a.tensor != t || a.dims.size() <= static_cast<size_t>(dim)) return;
        a.dims.erase(a.dims.begin() + dim);
        if (origin) *origin = nullptr;
        x.dirty = true;
      };
      if (op.dst) fix(*op.dst, &op.dst_origin);
      for (auto& arg : op.args)
        if (arg.value.kind == Operand::Kind::Tile) fix(arg.value.access, &arg.value.origin);
    }
  });
  redeclare(k, {t});
}

}  // namespace loopnest
