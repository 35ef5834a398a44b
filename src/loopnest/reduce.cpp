// Reductions on the form.
//   fold_activation_reduce  e = activation(f, x); s = sum(e, last axis)  =>
//                           e = activation_reduce(f, x, reduce_op=add, reduce_res=s): the Scalar
//                           Engine sums while it writes, the Vector Engine pass disappears (e may
//                           have other readers: softmax's exponentials feed the sum and the product)
//   reduce_row_once         for l: c[l] = reduce(op, x[.., c*l : c*l + c]); r = reduce(op, c)  =>
//                           r = reduce(op, x[.., 0 : c*T]): one reduction over the finished row
//                           instead of T partial ones and their combination
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/dump.h"
#include "loopnest/reduce_ops.h"
#include "loopnest/scalar_step.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace reduce_ops {

// The data parameter of a reduction: nisa.tensor_reduce(data=...), nl.sum(x, ...).
const char* data_param(const Op& r) { return r.api == "nisa.tensor_reduce" ? "data" : "x"; }

// The axis a reduction reduces when it is one axis: the last of a 2-D tile; -1 otherwise.
int reduced_axis(const Op& r) {
  const Operand* data = operand(r, data_param(r));
  const Operand* axis = operand(r, "axis");
  if (!data || data->kind != Operand::Kind::Tile || !axis) return -1;
  size_t rank = data->access.tile_shape().size();
  int64_t a = -1;
  if (axis->kind == Operand::Kind::Shape && axis->shape.size() == 1 && axis->shape[0].is_constant()) a = axis->shape[0].constant();
  if (axis->kind == Operand::Kind::Number) a = static_cast<int64_t>(axis->number);
  if (a < 0) a += static_cast<int64_t>(rank);
  return a == static_cast<int64_t>(rank) - 1 && rank == 2 ? static_cast<int>(a) : -1;
}

bool is_true(const Operand* o) { return o && o->kind == Operand::Kind::Symbol && o->symbol == "True"; }

// A sum along the last axis: nisa.tensor_reduce(op=add) or nl.sum.
bool row_sum(const Op& r) {
  if (r.api == "nisa.tensor_reduce") return symbol_of(r, "op") == "add" && !is_true(operand(r, "negate"));
  return r.api == "nl.sum";
}

// An activation that can also reduce: nisa.activation, or a language unary function (nl.square).
bool plain_activation(const Op& a) {
  if (a.api == "nisa.activation") return !operand(a, "reduce_res") && !a.accumulate;
  return a.cls == OpClass::Activation && is_unary_language_op(a.api) && !a.accumulate;
}

// `act` (an activation: nisa.activation or an nl.* unary function) as nisa.activation_reduce
// summing its rows into `res`.
void to_activation_reduce(Op& act, Operand res) {
  if (act.api != "nisa.activation") {
    // nl.square(y) -> nisa.activation_reduce(op=nl.square, data=y, ...)
    Operand fn = symbol(act.api.substr(3));
    Arg data = *act.arg("x");
    data.name = "data";
    data.positional = false;
    std::vector<Arg> args = {arg("op", fn), data};
    for (const auto& keep : act.args)
      if (keep.name == "dtype" || keep.name == "mask") args.push_back(keep);
    act.args = std::move(args);
    act.origin_api = act.origin ? act.origin_api : "";
  }
  act.api = "nisa.activation_reduce";
  for (auto& x : act.args) x.positional = false;
  act.args.push_back(arg("reduce_op", symbol("add")));
  act.args.push_back(arg("reduce_res", std::move(res), true));
}

}  // namespace reduce_ops

namespace {

using namespace reduce_ops;

// A sum the lift holds as a partition vector (`s = nl.sum(e, axis=1)` without keepdims: [P]): the
// buffer activation_reduce accumulates into is an SBUF tile, which needs a free dim, and NKI reads
// a [P] partition vector as [P, 1] (nki-language.md 3.7). The tensor gains a unit free dim, which
// every access of it indexes with 0: a reader (`nl.reciprocal(s[0:128, 0])`) still reads the [P]
// vector it read, so nothing computed from it changes shape.
void widen_partition_vector(Kernel& k, int tensor) {
  Tensor& t = k.tensor(tensor);
  t.shape.push_back(IExpr(1));
  if (!t.dim_text.empty()) t.dim_text.push_back({IExpr(1), ""});
  auto widen = [tensor](Access& a) {
    if (a.tensor != tensor) return false;
    a.dims.push_back(DimIndex{IExpr(0), {}});
    return true;
  };
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (Op& op : n.ops) {
      if (op.dst && widen(*op.dst)) n.dirty = true;
      for (Arg& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && widen(a.value.access)) {
          a.value.origin = nullptr;  // printed from the form: the text read the [P] vector whole
          n.dirty = true;
        }
    }
  });
}

class FoldActivationReduce : public Transform {
 public:
  std::string name() const override { return "fold_activation_reduce"; }
  std::string description() const override {
    return "let the activation accumulate its row sum (activation_reduce) instead of a separate tensor_reduce on "
           "the Vector Engine";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    Ranges ranges = k.ranges();
    for (const OpRef& r : an.ops) {
      const Op& red = r.op();
      if (r.node->frozen || !row_sum(red) || reduced_axis(red) < 0 || has_index_operand(red) || red.accumulate) continue;
      // Where the sum goes: its destination, or its whole result (`total = nl.sum(e, ...)`).
      // A result must be the statement's named value (`s = nl.sum(e, ...)`): it becomes a declared
      // buffer, which an anonymous inner value (`nl.divide(nl.sum(...), w)`) cannot be.
      if (red.result >= 0 && k.tensor(red.result).name.empty()) continue;
      if (!red.dst && red.result < 0) continue;
      const Access red_dst = red.dst ? *red.dst : whole_of(k, red.result);
      const Access& e = operand(red, data_param(red))->access;
      // The single writer of the summed region: an activation earlier in the block, or an inner
      // call of the same statement.
      const OpRef* act = nullptr;
      int writers = 0;
      for (const OpRef* w : an.writers(k, e.tensor))
        for (const Access* wa : writes(w->op()))
          if (may_overlap_across(k, *wa, e, ranges)) ++writers, act = w;
      // The engine sums the activation's fp32 results before the output's rounding: an integer
      // output (truncated) is no tile of those values.
      if (writers != 1 || !plain_activation(act->op()) || !keeps_its_value(k, act->op())) continue;
      // A masked sum (a ragged tile's guard): the activation that reduces keeps its own mask, so the
      // two must guard the same elements, and only whole rows (a mask on the partition axis alone:
      // the rows left out are neither computed nor summed, in both forms).
      if (red.has_mask && !(same_mask(red, act->op()) && masks_rows_only(act->op()))) continue;
      // The activation writes exactly the summed tile: its destination, or its whole result (`e =
      // nl.exp(x)`, the style that names values instead of writing into tiles).
      const Op& a_op = act->op();
      if (a_op.dst ? !(*a_op.dst == e) : (a_op.result != e.tensor || !accesses_whole(k, e))) continue;
      bool inner = act->node == r.node && act->index < r.index;
      // (an earlier statement's own operation: its inner calls, `bias=nl.multiply(m, -1.0)`, stay)
      bool earlier = act->block == r.block && act->position < r.position && act->index + 1 == act->node->ops.size();
      if ((!inner && !earlier) || act->node->frozen) continue;
      // The sum is [P, 1]; nothing between the two statements reads it.
      std::vector<IExpr> s_shape = red_dst.tile_shape();
      if (!(s_shape.size() == 2 && s_shape[1] == IExpr(1)) && !(s_shape.size() == 1 && red.result >= 0)) continue;
      bool touched = false;
      int sum_storage = storage_of(k, red_dst.tensor);
      for (const auto& other : an.ops)
        if (other.block == r.block && other.position > act->position && other.position < r.position)
          for (const Access* x : reads(other.op())) touched = touched || storage_of(k, x->tensor) == sum_storage;
      if (touched) continue;
      Site s = make_site(k, an, *act, fmt::format("sum the rows of `{}` inside the activation", access_text(k, e)));
      const OpRef *a_ref = act, *r_ref = &r;
      if (sink(s, [&k, &an, a_ref, r_ref] { apply(k, an, *a_ref, *r_ref); })) return true;
    }
    return visit_list_sums(k, sink);
  }

 private:
  static void apply(Kernel& k, const Analysis& an, const OpRef& a, const OpRef& r) {
    Op red = r.op();
    int red_id = r.node->id;
    Access sum = red.dst ? *red.dst : whole_of(k, red.result);
    Tensor& t = k.tensor(sum.tensor);
    int act_id = a.node->id;
    bool inner = a.node == r.node;
    std::vector<Node>* block = a.block;
    // Where the sum's storage comes from: a name bound to the reduction becomes a buffer declared
    // before the activation; a buffer declared between the two moves up.
    std::optional<Node> decl;
    if (red.result >= 0) {
      if (t.shape.size() == 1) widen_partition_vector(k, sum.tensor), sum = whole_of(k, sum.tensor);
      t.role = TensorRole::Buffer;
      decl = declaration_node(k, sum.tensor);
    } else {
      for (const auto& other : an.ops)
        if (other.block == block && other.position > a.position && other.position < r.position &&
            other.op().cls == OpClass::Alloc && other.op().dst && other.op().dst->tensor == sum.tensor &&
            other.node->ops.size() == 1) {
          decl = *other.node;
          erase_node(k, other.node->id);
          break;
        }
    }
    Node* anode = find_node(k, act_id);
    Op& act = anode->ops[a.index];
    Operand res = tile_operand(sum);
    res.origin = red.result >= 0 ? nullptr : red.dst_origin;
    to_activation_reduce(act, res);
    anode->dirty = true;
    if (inner) {
      // The statement keeps the activation as its own operation; the sum's op goes.
      Node& n = *anode;
      n.ops.erase(n.ops.begin() + static_cast<long>(r.index));  // the squares themselves are not used any more
    } else {
      erase_node(k, red_id);
    }
    if (decl) {
      for (size_t i = 0; i < block->size(); ++i)
        if ((*block)[i].id == act_id) {
          block->insert(block->begin() + static_cast<long>(i), std::move(*decl));
          break;
        }
    }
  }
};

class WholeRowReduce : public Transform {
 public:
  std::string name() const override { return "reduce_row_once"; }
  std::string description() const override {
    return "reduce a finished row once instead of reducing each chunk in the loop and then the partial results";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    Ranges ranges = k.ranges();
    for (const OpRef& r2 : an.ops) {
      const Op& outer = r2.op();
      if (r2.node->frozen || outer.api != "nisa.tensor_reduce" || reduced_axis(outer) < 0 || outer.has_mask || has_index_operand(outer)) continue;

      std::string op = symbol_of(outer, "op");
      if (op != "max" && op != "min" && op != "add") continue;
      const Access& c = operand(outer, "data")->access;
      // c[.., s0 + a[T]]: the partial results along the reduced axis.
      int cd = -1;
      for (size_t d = 0; d < c.dims.size(); ++d)
        for (const auto& t : c.dims[d].terms)
          if (t.axis == 1) cd = static_cast<int>(d);
      if (cd < 0 || c.dims[static_cast<size_t>(cd)].terms.size() != 1 || c.dims[static_cast<size_t>(cd)].terms[0].stride != 1)
        continue;
      const OpRef* r1 = nullptr;
      int writers = 0;
      for (const OpRef* w : an.writers(k, c.tensor))
        for (const Access* wa : writes(w->op()))
          if (may_overlap_across(k, *wa, c, ranges)) ++writers, r1 = w;
      if (writers != 1 || r1->node->frozen || r1->op().api != "nisa.tensor_reduce" || symbol_of(r1->op(), "op") != op) continue;
      if (is_true(operand(r1->op(), "negate")) || r1->op().has_mask || reduced_axis(r1->op()) < 0) continue;
      // r1 is directly in a loop L that is the statement right before r2 (only markers between).
      if (r1->loops.empty()) continue;
      int l = r1->loops.back();
      const Loop& loop = k.loops.at(l);
      auto trip = loop.trip();
      if (!trip || !(loop.start == IExpr(0)) || loop.step != 1) continue;
      if (r1->block->empty() || r2.loops.size() + 1 != r1->loops.size()) continue;
      size_t lp = r2.position;
      bool found = false;
      while (lp > 0) {
        --lp;
        const Node& n = (*r2.block)[lp];
        if (n.kind == NodeKind::Meta && n.meta == MetaKind::Docstring) continue;
        found = n.kind == NodeKind::Loop && n.loop == l && &n.body == r1->block;
        break;
      }
      if (!found) continue;
      // r1 writes c[.., s0 + l] (one element per iteration), covering c's read range.
      const Access& w = *r1->op().dst;
      const DimIndex& wd = w.dims[static_cast<size_t>(cd)];
      const DimIndex& rd = c.dims[static_cast<size_t>(cd)];
      bool one = wd.terms.empty() || (wd.terms.size() == 1 && wd.terms[0].size == IExpr(1));
      if (!one || wd.start != rd.start + IExpr::var(l) || !(rd.terms[0].size == IExpr(*trip))) continue;
      bool same_row = w.dims.size() == c.dims.size();
      for (size_t d = 0; same_row && d < c.dims.size(); ++d) {
        if (static_cast<int>(d) == cd) continue;
        same_row = w.dims[d].start == c.dims[d].start && w.dims[d].terms.size() == c.dims[d].terms.size();
        for (size_t t = 0; same_row && t < c.dims[d].terms.size(); ++t)
          same_row = w.dims[d].terms[t].size == c.dims[d].terms[t].size && w.dims[d].terms[t].stride == c.dims[d].terms[t].stride;
      }
      if (!same_row) continue;
      // r1 reads x[.., e + c*l + a[c]]: over the loop, x[.., e + a[c*T]].
      const Access& x = operand(r1->op(), "data")->access;
      int xd = -1;
      for (size_t d = 0; d < x.dims.size(); ++d)
        if (x.dims[d].start.uses(l)) xd = xd < 0 ? static_cast<int>(d) : -2;
      if (xd < 0) continue;
      const DimIndex& xdim = x.dims[static_cast<size_t>(xd)];
      int64_t chunk = xdim.start.coeff(l);
      if (xdim.terms.size() != 1 || xdim.terms[0].stride != 1 || !(xdim.terms[0].size == IExpr(chunk)) || xdim.terms[0].axis != 1)
        continue;
      // No one else reads the partial results; nothing writes x after the loop before r2.
      bool other_reader = false;
      for (const OpRef* rr : an.readers(k, c.tensor))
        if (!(rr->node == r2.node && rr->index == r2.index)) other_reader = true;
      if (other_reader) continue;
      Access whole = x;
      DimIndex& nd = whole.dims[static_cast<size_t>(xd)];
      nd.start = nd.start - IExpr::var(l) * chunk;
      nd.terms[0].size = IExpr(chunk * *trip);
      Site s = make_site(k, an, *r1, fmt::format("reduce `{}` once after its loop instead of {} chunks of {}",
                                                 access_text(k, whole), *trip, chunk), {{"op", op}});
      int gone = r1->node->id;
      const OpRef* target = &r2;
      if (sink(s, [&k, target, whole, gone] {
            Op& o = target->op();
            Arg* data = o.arg("data");
            data->value.access = whole;
            data->value.origin = nullptr;
            target->node->dirty = true;
            erase_node(k, gone);
          }))
        return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_fold_activation_reduce() { return std::make_unique<FoldActivationReduce>(); }
std::unique_ptr<Transform> make_whole_row_reduce() { return std::make_unique<WholeRowReduce>(); }

}  // namespace loopnest
