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
//   - no value is live into an iteration of L (privatizable, privatize.h): every read of the buffer
//     in L's body reads what the same iteration wrote before it (the coverage rules: privatize.cpp,
//     shared with private_ring);
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
#include "loopnest/privatize.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

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
  if (!collect_touches(k, k.body, t, loops, conds, all) || !collect_touches(k, ln.body, t, loops, conds, within)) return std::nullopt;
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
// not change (all but the last), so the redeclaration still reads `n_ct`.
void keep_authored_dims(const Kernel& k, const Operand& shape, Tensor& t) {
  std::vector<std::string> text = authored_dims(k, shape, t);
  for (size_t d = 0; d + 1 < text.size(); ++d)
    if (!text[d].empty() && static_cast<int>(d) != t.partition_dim)  // printed as par_dim(...) from the form
      t.dim_text[d] = {t.shape[d], text[d]};
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
