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
// the stationary operand of one accumulation into acc, acc is only zeroed (in the same iteration,
// outside the accumulation's loops), accumulated there and read once by the copy after it, and
// neither P nor s is written between. The accumulation may be a later nest of the iteration: the
// transposed row tiles of rmsnorm_matmul's x * rsqrt(mean(x^2)) kept in a block buffer and
// multiplied per column block, each column block's result scaled as it leaves PSUM.
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/dump.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

template <class T>
bool has(const std::vector<T>& v, const T& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// `loops` starts with `outer`: the op runs inside every loop around the other, in its iteration.
bool within(const std::vector<int>& loops, const std::vector<int>& outer) {
  return loops.size() >= outer.size() && std::equal(outer.begin(), outer.end(), loops.begin());
}

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

// The same tile (axes in the same order), wherever the accesses place it: block dims indexed by a
// constant or a loop (no tile axis) do not count (`v16[...]` and `v14[i0, 2, ...]` of one row).
bool same_tile(const Access& a, const Access& b) {
  auto axes = [](const Access& x) {
    std::vector<const AxisTerm*> out;
    for (const auto& d : x.dims)
      for (const auto& t : d.terms) out.push_back(&t);
    return out;
  };
  auto ta = axes(a), tb = axes(b);
  if (ta.size() != tb.size()) return false;
  for (size_t i = 0; i < ta.size(); ++i)
    if (ta[i]->axis != tb[i]->axis || ta[i]->size != tb[i]->size || ta[i]->stride != tb[i]->stride ||
        !ta[i]->affine() || !tb[i]->affine())
      return false;
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

// The ops writing elements of region `a` (a slot of a block buffer is apart from its other slots:
// the legacy style keeps a row's tiles as slots `v14[i0, 0]`, `v14[i0, 2]` of one buffer).
std::vector<const OpRef*> region_writers(const Kernel& k, const Analysis& an, const Access& a) {
  std::vector<const OpRef*> out;
  Ranges ranges = k.ranges();
  for (const OpRef* w : an.writers(k, a.tensor))
    for (const Access* x : writes(w->op()))
      if (may_overlap_across(k, *x, a, ranges)) {
        out.push_back(w);
        break;
      }
  return out;
}

struct Plan {
  const OpRef* scale = nullptr;                 // X = tensor_scalar(P, op, s)
  std::vector<const OpRef*> transposes;         // readers of X
  std::vector<const OpRef*> accumulations;      // acc += matmul(transposed X, V)
  const OpRef* result = nullptr;                // R = copy(acc)
  const OpRef* through = nullptr;               // Y = X * G, when the transposes read Y
  std::string how;                              // multiply / divide
};

// X = P * s or P / s, s one value per row: a tensor_scalar, or an nl.multiply / nl.divide of a
// tile and a per-row scalar.
struct Scale {
  const Operand* data = nullptr;  // P
  const Operand* s = nullptr;
  std::string how;                // "multiply" / "divide"
};

std::optional<Scale> scale_of(const Op& op) {
  if (op.accumulate || op.has_mask || has_index_operand(op)) return std::nullopt;
  Scale sc;
  if (op.api == "nisa.tensor_scalar") {
    sc.how = symbol_of(op, "op0");
    if (symbol_of(op, "reverse0") == "True") return std::nullopt;
    if (const Operand* o1 = operand(op, "op1"); o1 && o1->kind != Operand::Kind::None) return std::nullopt;
    sc.data = operand(op, "data");
    sc.s = operand(op, "operand0");
  } else if (op.api == "nl.multiply" || op.api == "nl.divide") {
    const Operand *x = operand(op, "x"), *y = operand(op, "y");
    if (!x || !y) return std::nullopt;
    sc.how = op.api.substr(3);
    sc.data = x, sc.s = y;
    if (sc.how == "multiply" && x->kind == Operand::Kind::Tile && scalar_like(*x) && !scalar_like(*y)) std::swap(sc.data, sc.s);
  } else {
    return std::nullopt;
  }
  if ((sc.how != "multiply" && sc.how != "divide") || !sc.data || sc.data->kind != Operand::Kind::Tile ||
      scalar_like(*sc.data) || !sc.s || !scalar_like(*sc.s))
    return std::nullopt;
  return sc;
}

// Y = X * G, elementwise with a tile G (gamma after the row scale): (P * s) * G = (P * G) * s, so
// the scale passes through it. The operand reading X, or null.
Arg* multiplied_operand(Op& op, int x, const Kernel& k) {
  if (op_kind(op) != "multiply" || op.accumulate || op.has_mask || has_index_operand(op)) return nullptr;
  Arg* found = nullptr;
  int tiles = 0;
  for (Arg& a : op.args) {
    if (a.output || a.value.kind != Operand::Kind::Tile) continue;
    ++tiles;
    if (storage_of(k, a.value.access.tensor) == x) {
      if (found) return nullptr;
      found = &a;
    }
  }
  return tiles == 2 ? found : nullptr;
}

std::optional<Plan> plan(Kernel& k, const Analysis& an, const OpRef& n) {
  const Op& op = n.op();
  auto sc = n.node->frozen ? std::nullopt : scale_of(op);
  if (!sc) return std::nullopt;
  std::string how = sc->how;
  const Operand* data = sc->data;
  const Operand* s = sc->s;
  auto w = writes(op);
  if (w.size() != 1 || !parallel(*w[0], data->access)) return std::nullopt;
  int x = storage_of(k, w[0]->tensor);
  if (x != w[0]->tensor || has(k.outputs, x) || region_writers(k, an, *w[0]).size() != 1) return std::nullopt;
  // The transposes read X, or Y = X * G when that multiply is X's only reader.
  int target = x;
  Access target_region = *w[0];
  const OpRef* through = nullptr;
  if (auto xr = an.region_readers(k, *w[0]); xr.size() == 1 && !transposed_param(xr[0]->op())) {
    const OpRef* m = xr[0];
    Arg* in = m->node->frozen ? nullptr : multiplied_operand(m->op(), x, k);
    auto mw = writes(m->op());
    if (!in || mw.size() != 1 || !same_tile(*mw[0], in->value.access) || m->order < n.order) return std::nullopt;
    int y = storage_of(k, mw[0]->tensor);
    if (y != mw[0]->tensor || has(k.outputs, y) || region_writers(k, an, *mw[0]).size() != 1) return std::nullopt;
    target_region = *mw[0];
    if (written_between(k, an, storage_of(k, data->access.tensor), n.order, m->order)) return std::nullopt;
    through = m;
    target = y;
  }
  // A call nested in a statement (`nl.multiply(nl.multiply(y, inv), g)`) goes when its statement's
  // own operation is the multiply it passes through.
  if (n.node->ops.size() != 1 && (!through || through->node != n.node)) return std::nullopt;
  Plan p;
  p.scale = &n;
  p.how = how;
  p.through = through;
  int loop = -1, acc = -1, last = n.order;
  Access acc_access;
  for (const OpRef* r : an.region_readers(k, target_region)) {
    const char* param = transposed_param(r->op());
    const Operand* in = param ? operand(r->op(), param) : nullptr;
    if (!in || in->kind != Operand::Kind::Tile || in->access.tensor != target || r->node->frozen) return std::nullopt;
    for (const Access* other : reads(r->op()))
      if (other != &in->access && storage_of(k, other->tensor) == target &&
          may_overlap_across(k, *other, target_region, k.ranges()))
        return std::nullopt;
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
    // The accumulation may sit in this loop or in a later nest of the same iteration (the
    // transposed row tiles kept in a block buffer, multiplied per column block): after the
    // transpose, inside every loop enclosing the scaling statement.
    if (!use || use->op().api != "nisa.nc_matmul" || !use->op().accumulate || transposed_param(use->op()) ||
        !use->op().dst || use->order < r->order || !within(use->loops, n.loops))
      return std::nullopt;
    if (!has(p.accumulations, use)) p.accumulations.push_back(use);
    const Operand* st = operand(use->op(), "stationary");
    const Operand* mv = operand(use->op(), "moving");
    if (!st || st->kind != Operand::Kind::Tile || (mv && mv->kind == Operand::Kind::Tile &&
                                                   storage_of(k, mv->access.tensor) == storage_of(k, st->access.tensor)))
      return std::nullopt;
    int a = storage_of(k, use->op().dst->tensor);
    if (acc >= 0 && (a != acc || !(*use->op().dst == acc_access))) return std::nullopt;
    acc = a;
    acc_access = *use->op().dst;
    last = std::max(last, use->order);
    p.transposes.push_back(r);
  }
  if (p.transposes.empty() || acc < 0 || has(k.outputs, acc)) return std::nullopt;
  auto accumulates = [&](const OpRef* o) { return has(p.accumulations, o); };
  // acc: read once after the accumulation by a plain copy of the same region, in the same
  // iteration of the loops around the scaling statement.
  const OpRef* r = nullptr;
  for (const OpRef* rd : an.readers(k, acc)) {
    if (accumulates(rd)) continue;
    if (r) return std::nullopt;
    r = rd;
  }
  if (!r || r->op().cls != OpClass::Copy || r->op().accumulate || r->op().has_mask || r->node->frozen ||
      r->order <= last || !within(r->loops, n.loops) || r->node->ops.size() != 1)
    return std::nullopt;
  // The loops the accumulation runs over (around the matmul, not around the copy).
  std::vector<int> reduction;
  for (const OpRef* u : p.accumulations)
    for (int l : u->loops)
      if (!has(r->loops, l) && !has(reduction, l)) reduction.push_back(l);
  if (reduction.empty()) return std::nullopt;
  // Each iteration of the loops around the scaling statement accumulates into a block of its own
  // (the legacy style's PSUM buffer `v24[i0, i4]`, zeroed once up front or not at all).
  bool own_block = !n.loops.empty() && std::all_of(n.loops.begin(), n.loops.end(), [&](int l) {
    return uses_loop(acc_access, l);
  });
  // acc is written by those accumulations, and zeroed in the iteration of the scaling statement
  // outside the loops they run over (or before everything, into per-iteration blocks): every sum
  // the copy reads is over products of this iteration's X, all scaled by the same s.
  bool zeroed = false;
  for (const OpRef* wr : an.writers(k, acc)) {
    if (accumulates(wr)) continue;
    if (wr->op().cls != OpClass::Memset) return std::nullopt;
    bool up_front = own_block && wr->order < n.order && !within(wr->loops, n.loops);
    if (!up_front && !within(wr->loops, n.loops)) return std::nullopt;
    for (int l : wr->loops)
      if (has(reduction, l)) return std::nullopt;
    zeroed = true;
  }
  // Or acc is declared afresh in that iteration, outside the accumulation's loops (the newer
  // API's PSUM tile per column block, which the first matmul initialises).
  if (!zeroed && !own_block) {
    int scope = k.tensor(acc).scope_loop;
    auto at = std::find(r->loops.begin(), r->loops.end(), scope);
    bool fresh = scope >= 0 && at != r->loops.end() && !has(reduction, scope) &&
                 (n.loops.empty() || static_cast<size_t>(at - r->loops.begin()) + 1 >= n.loops.size());
    if (!fresh) return std::nullopt;
  }
  const Operand* src = operand(r->op(), "src");
  if (!src || src->kind != Operand::Kind::Tile || !(src->access == acc_access)) return std::nullopt;
  // The copy keeps fp32 (or the dtype the accumulator has): the scaling then rounds once, as before.
  if (s->kind == Operand::Kind::Tile && written_between(k, an, storage_of(k, s->access.tensor), n.order, r->order))
    return std::nullopt;
  if (written_between(k, an, storage_of(k, data->access.tensor), n.order, last + 1)) return std::nullopt;
  p.result = r;
  // A division prints as nl.divide, which returns its tile: a destination-first copy has no such
  // spelling (divide is no tensor_scalar operator, nki-language.md 9.1).
  if (how == "divide" && r->op().dst_first) return std::nullopt;
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
  // Every place at once (`places=N`): the rows jam_rows runs together each scale their own
  // probabilities, and one copy deferred alone gains little while the others still make their
  // pass over [rows, N] (bundled gqa_full jammed by 2 query heads: 15.75 -> 15.71 ms for one row,
  // 13.68 ms for both); as one move per copy, a search of a few rounds spent a round per row
  // (fold_scale_through_reduce does the same).
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    std::vector<std::pair<const OpRef*, Plan>> plans;
    for (const OpRef& n : an.ops)
      if (auto p = plan(k, an, n)) plans.emplace_back(&n, *p);
    if (plans.empty()) return false;
    const auto& [n, p] = plans.front();
    const size_t places = plans.size();
    const std::string where = places == 1 ? "" : fmt::format(" (at {} places)", places);
    Site s = make_site(k, an, *n, fmt::format("scale the rows of `{}` after the loop instead of `{}`{}",
                                              access_text(k, operand(p.result->op(), "src")->access),
                                              access_text(k, *writes(n->op())[0]), where));
    if (places > 1) s.params["places"] = std::to_string(places);
    if (places == 1) return sink(s, [&k, p = p] { apply(k, p); });
    return sink(s, [&k, places] {
      // Each application erases a node (the OpRefs of the others dangle): plan again each time.
      for (size_t i = 0; i < places; ++i) {
        Analysis again(k);
        std::optional<Plan> next;
        for (const OpRef& m : again.ops)
          if ((next = plan(k, again, m))) break;
        if (!next) throw TransformError("defer_normalization: a place changed");
        apply(k, *next);
      }
    });
  }

 private:
  static void apply(Kernel& k, const Plan& p) {
    const Op& scale = p.scale->op();
    auto sc = scale_of(scale);
    if (!sc) throw TransformError("defer_normalization: the scaling changed");
    Access xw = *writes(scale)[0];
    Access pa = sc->data->access;
    Operand s = *sc->s;
    s.origin = nullptr;
    // The readers of X (the transposes, or the multiply by G) read P instead.
    auto read_p = [&](Arg* a, Node* node) {
      Access& in = a->value.access;
      for (size_t d = 0; d < in.dims.size(); ++d) in.dims[d].start = in.dims[d].start - xw.dims[d].start + pa.dims[d].start;
      in.tensor = pa.tensor;
      a->value.origin = nullptr;
      node->dirty = true;
    };
    if (p.through) {
      read_p(multiplied_operand(p.through->op(), storage_of(k, xw.tensor), k), p.through->node);
    } else {
      for (const OpRef* t : p.transposes) read_p(t->op().arg(transposed_param(t->op())), t->node);
    }
    const Op& copy = p.result->op();
    // A division prints as the language nl.divide (the column broadcast along the rows): divide
    // is no operator of nisa.tensor_scalar (nki-language.md 9.1).
    Op scaled = p.how == "divide"
                    ? rebuild(copy, "nl.divide", {arg("x", *operand(copy, "src")), arg("y", s)})
                    : rebuild(copy, "nisa.tensor_scalar",
                              {arg("data", *operand(copy, "src")), arg("op0", symbol(p.how)), arg("operand0", s)});
    scaled.origin = nullptr;
    p.result->node->ops[p.result->index] = std::move(scaled);
    p.result->node->dirty = true;
    if (p.scale->node->ops.size() == 1) {
      erase_node(k, p.scale->node->id);
    } else {  // a call nested in the multiply's statement
      p.scale->node->ops.erase(p.scale->node->ops.begin() + static_cast<long>(p.scale->index));
      p.scale->node->dirty = true;
    }
    remove_dead_buffers(k);
  }
};

}  // namespace

std::unique_ptr<Transform> make_defer_normalization() { return std::make_unique<DeferNormalization>(); }

}  // namespace loopnest
