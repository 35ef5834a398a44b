// Deferred normalization on the form (attention's P @ V):
//   X = tensor_scalar(P, multiply|divide, s)           (s per row: one value per partition)
//   for t: T = transpose(X[rows, cols(t)]); [Tc = copy(T)]; acc += matmul(Tc, V(t))
//   R = copy(acc)
// =>
//   for t: T = transpose(P[rows, cols(t)]); ...;  R = tensor_scalar(acc, multiply|divide, s)
// Row r of acc is sum_k X[r, k] V[k, :] = s[r] * sum_k P[r, k] V[k, :] (the transposed tile is the
// matmul's stationary operand, so the result's partition is X's row), so scaling the [rows, D]
// result replaces scaling the [rows, N] probabilities: one pass over D columns instead of N.
// Legal when X flows only into those transposes, each transposed tile (or its copy) only into
// the stationary operand of one accumulation into acc, acc is only zeroed, accumulated there and
// read once by the copy after the loop, and neither P nor s is written between.
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/dump.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool has(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The operand a transpose transposes: nc_transpose / nl.transpose data, or the stationary operand
// of a matmul by the identity with is_transpose.
const char* transposed_param(const Op& op) {
  if (op.api == "nisa.nc_transpose") return "data";
  if (op.api == "nl.transpose") return "x";
  if (op.api == "nisa.nc_matmul" && symbol_of(op, "is_transpose") == "True") return "stationary";
  return nullptr;
}

// Same tile axes (terms) in every dim: the accesses differ only in where they start.
bool parallel(const Access& a, const Access& b) {
  if (a.dims.size() != b.dims.size()) return false;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const auto &ta = a.dims[d].terms, &tb = b.dims[d].terms;
    if (ta.size() != tb.size()) return false;
    for (size_t i = 0; i < ta.size(); ++i)
      if (ta[i].axis != tb[i].axis || ta[i].size != tb[i].size || ta[i].stride != tb[i].stride) return false;
  }
  return true;
}

// The only op reading tensor `t` (storage), or null.
const OpRef* sole_reader(const Kernel& k, const Analysis& an, int t, const OpRef* besides = nullptr) {
  const OpRef* found = nullptr;
  for (const OpRef* r : an.readers(k, t)) {
    if (r == besides) continue;
    if (found) return nullptr;
    found = r;
  }
  return found;
}

bool written_between(const Kernel& k, const Analysis& an, int t, int from, int to) {
  for (const OpRef* w : an.writers(k, t))
    if (w->order > from && w->order < to) return true;
  return false;
}

struct Plan {
  const OpRef* scale = nullptr;                 // X = tensor_scalar(P, op, s)
  std::vector<const OpRef*> transposes;         // readers of X
  const OpRef* result = nullptr;                // R = copy(acc)
};

std::optional<Plan> plan(Kernel& k, const Analysis& an, const OpRef& n) {
  const Op& op = n.op();
  if (n.node->frozen || op.api != "nisa.tensor_scalar" || op.accumulate || op.has_mask || has_index_operand(op) || n.node->ops.size() != 1)
    return std::nullopt;
  std::string how = symbol_of(op, "op0");
  if ((how != "multiply" && how != "divide") || symbol_of(op, "reverse0") == "True") return std::nullopt;
  if (const Operand* o1 = operand(op, "op1"); o1 && o1->kind != Operand::Kind::None) return std::nullopt;
  const Operand* data = operand(op, "data");
  const Operand* s = operand(op, "operand0");
  if (!data || data->kind != Operand::Kind::Tile || !s || !scalar_like(*s)) return std::nullopt;
  auto w = writes(op);
  if (w.size() != 1 || !parallel(*w[0], data->access)) return std::nullopt;
  int x = storage_of(k, w[0]->tensor);
  if (x != w[0]->tensor || has(k.outputs, x) || an.writers(k, x).size() != 1) return std::nullopt;
  Plan p;
  p.scale = &n;
  int loop = -1, acc = -1, last = n.order;
  Access acc_access;
  for (const OpRef* r : an.readers(k, x)) {
    const char* param = transposed_param(r->op());
    const Operand* in = param ? operand(r->op(), param) : nullptr;
    if (!in || in->kind != Operand::Kind::Tile || in->access.tensor != x || r->node->frozen) return std::nullopt;
    for (const Access* other : reads(r->op()))
      if (other != &in->access && storage_of(k, other->tensor) == x) return std::nullopt;
    // Inside one loop that is a later sibling of the scaling statement.
    if (r->loops.size() <= n.loops.size() || r->order < n.order) return std::nullopt;
    int l = r->loops[n.loops.size()];
    if (loop >= 0 && l != loop) return std::nullopt;
    loop = l;
    last = std::max(last, r->order);
    // The transposed tile, maybe copied out of PSUM, is the stationary operand of one accumulation.
    auto tw = writes(r->op());
    if (tw.size() != 1) return std::nullopt;
    const OpRef* use = sole_reader(k, an, storage_of(k, tw[0]->tensor));
    if (use && use->op().cls == OpClass::Copy && !use->op().accumulate) {
      auto cw = writes(use->op());
      if (cw.size() != 1) return std::nullopt;
      use = sole_reader(k, an, storage_of(k, cw[0]->tensor));
    }
    if (!use || use->op().api != "nisa.nc_matmul" || !use->op().accumulate || transposed_param(use->op()) ||
        !use->op().dst || !has(use->loops, loop))
      return std::nullopt;
    const Operand* st = operand(use->op(), "stationary");
    const Operand* mv = operand(use->op(), "moving");
    if (!st || st->kind != Operand::Kind::Tile || (mv && mv->kind == Operand::Kind::Tile &&
                                                   storage_of(k, mv->access.tensor) == storage_of(k, st->access.tensor)))
      return std::nullopt;
    int a = storage_of(k, use->op().dst->tensor);
    if (acc >= 0 && (a != acc || !(*use->op().dst == acc_access))) return std::nullopt;
    acc = a;
    acc_access = *use->op().dst;
    p.transposes.push_back(r);
  }
  if (p.transposes.empty() || acc < 0 || has(k.outputs, acc)) return std::nullopt;
  // acc: zeroed, accumulated in the loop, read once after it by a plain copy of the same region.
  for (const OpRef* wr : an.writers(k, acc)) {
    bool accumulation = wr->op().api == "nisa.nc_matmul" && wr->op().accumulate && has(wr->loops, loop);
    if (!accumulation && wr->op().cls != OpClass::Memset) return std::nullopt;
    if (!accumulation && wr->order > n.order && has(wr->loops, loop)) return std::nullopt;
  }
  const OpRef* r = nullptr;
  for (const OpRef* rd : an.readers(k, acc)) {
    if (rd->op().api == "nisa.nc_matmul" && rd->op().accumulate && has(rd->loops, loop)) continue;
    if (r) return std::nullopt;
    r = rd;
  }
  if (!r || r->op().cls != OpClass::Copy || r->op().accumulate || r->op().has_mask || r->node->frozen ||
      r->block != n.block || r->position <= n.position || r->node->ops.size() != 1 || has(r->loops, loop))
    return std::nullopt;
  const Operand* src = operand(r->op(), "src");
  if (!src || src->kind != Operand::Kind::Tile || !(src->access == acc_access)) return std::nullopt;
  // The copy keeps fp32 (or the dtype the accumulator has): the scaling then rounds once, as before.
  if (s->kind == Operand::Kind::Tile && written_between(k, an, storage_of(k, s->access.tensor), n.order, r->order))
    return std::nullopt;
  if (written_between(k, an, storage_of(k, data->access.tensor), n.order, last + 1)) return std::nullopt;
  p.result = r;
  return p;
}

class DeferNormalization : public Transform {
 public:
  std::string name() const override { return "defer_normalization"; }
  std::string description() const override {
    return "scale the rows of the P @ V result instead of the probabilities P ((P * s) @ V = (P @ V) * s): one "
           "pass over the [rows, D] result instead of one over [rows, N]";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& n : an.ops) {
      auto p = plan(k, an, n);
      if (!p) continue;
      Site s = make_site(k, an, n, fmt::format("scale the rows of `{}` after the loop instead of `{}`",
                                               access_text(k, operand(p->result->op(), "src")->access),
                                               access_text(k, *writes(n.op())[0])));
      if (sink(s, [&k, p] { apply(k, *p); })) return true;
    }
    return false;
  }

 private:
  static void apply(Kernel& k, const Plan& p) {
    const Op& scale = p.scale->op();
    Access xw = *writes(scale)[0];
    Access pa = operand(scale, "data")->access;
    for (const OpRef* t : p.transposes) {
      Arg* a = t->op().arg(transposed_param(t->op()));
      Access& in = a->value.access;
      for (size_t d = 0; d < in.dims.size(); ++d) in.dims[d].start = in.dims[d].start - xw.dims[d].start + pa.dims[d].start;
      in.tensor = pa.tensor;
      a->value.origin = nullptr;
      t->node->dirty = true;
    }
    const Op& copy = p.result->op();
    Operand s = *operand(scale, "operand0");
    s.origin = nullptr;
    std::vector<Arg> args = {arg("data", *operand(copy, "src")), arg("op0", symbol(symbol_of(scale, "op0"))),
                             arg("operand0", s)};
    Op scaled = rebuild(copy, "nisa.tensor_scalar", std::move(args));
    scaled.origin = nullptr;
    p.result->node->ops[p.result->index] = std::move(scaled);
    p.result->node->dirty = true;
    erase_node(k, p.scale->node->id);
    remove_dead_buffers(k);
  }
};

}  // namespace

std::unique_ptr<Transform> make_defer_normalization() { return std::make_unique<DeferNormalization>(); }

}  // namespace loopnest
