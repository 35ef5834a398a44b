// Reductions on the form.
//   fold_activation_reduce  e = activation(f, x); s = sum(e, last axis)  =>
//                           e = activation_reduce(f, x, reduce_op=add, reduce_res=s): the Scalar
//                           Engine sums while it writes, the Vector Engine pass disappears (e may
//                           have other readers: softmax's exponentials feed the sum and the product)
//   whole_row_reduce        for l: c[l] = reduce(op, x[.., c*l : c*l + c]); r = reduce(op, c)  =>
//                           r = reduce(op, x[.., 0 : c*T]): one reduction over the finished row
//                           instead of T partial ones and their combination
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/dump.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

const Operand* operand(const Op& op, const char* name) {
  const Arg* a = op.arg(name);
  return a ? &a->value : nullptr;
}

std::string symbol_of(const Op& op, const char* name) {
  const Operand* o = operand(op, name);
  return o && o->kind == Operand::Kind::Symbol ? o->symbol : "";
}

Operand symbol(const std::string& s) {
  Operand o;
  o.kind = Operand::Kind::Symbol;
  o.symbol = s;
  return o;
}

Arg arg(const std::string& name, Operand value, bool output = false) {
  Arg a;
  a.name = name;
  a.value = std::move(value);
  a.output = output;
  return a;
}

// The axis a tensor_reduce reduces when it is one axis: the last of a 2-D tile; -1 otherwise.
int reduced_axis(const Op& r) {
  const Operand* data = operand(r, "data");
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
      if (r.node->frozen || red.api != "nisa.tensor_reduce" || symbol_of(red, "op") != "add" || reduced_axis(red) < 0) continue;
      if (is_true(operand(red, "negate")) || red.has_mask || !red.dst) continue;
      const Access& e = operand(red, "data")->access;
      // The single writer of the summed region: an activation earlier in the same block.
      const OpRef* act = nullptr;
      int writers = 0;
      for (const OpRef* w : an.writers(k, e.tensor))
        for (const Access* wa : writes(w->op()))
          if (may_overlap(k, *wa, e, ranges)) ++writers, act = w;
      if (writers != 1 || !act->op().dst || !(*act->op().dst == e) || act->op().api != "nisa.activation") continue;
      if (act->block != r.block || act->position >= r.position || act->node->ops.size() != 1 || act->node->frozen) continue;
      if (operand(act->op(), "reduce_res") || act->op().accumulate) continue;
      // The sum is [P, 1] and nothing between the two statements touches it.
      std::vector<IExpr> s_shape = red.dst->tile_shape();
      if (s_shape.size() != 2 || !(s_shape[1] == IExpr(1))) continue;
      bool touched = false;
      for (const auto& other : an.ops)
        if (other.block == r.block && other.position > act->position && other.position < r.position)
          for (const Access* x : reads(other.op()))
            touched = touched || storage_of(k, x->tensor) == storage_of(k, red.dst->tensor);
      if (touched) continue;
      Site s = make_site(k, an, *act, fmt::format("sum the rows of `{}` inside the activation",
                                                  access_text(k, e)));
      const OpRef *a_ref = act, *r_ref = &r;
      if (sink(s, [&k, a_ref, r_ref] { apply(k, *a_ref, *r_ref); })) return true;
    }
    return false;
  }

 private:
  static void apply(Kernel& k, const OpRef& a, const OpRef& r) {
    Op red = r.op();
    Access sum = *red.dst;
    Tensor& t = k.tensor(sum.tensor);
    int removed = r.node->id;
    int act_id = a.node->id;
    // A sum bound to a name becomes a buffer declared before the activation.
    std::optional<Node> decl;
    if (red.result >= 0) {
      t.role = TensorRole::Buffer;
      Op alloc;
      alloc.api = "nl.ndarray";
      alloc.cls = OpClass::Alloc;
      alloc.dst = sum;
      Operand shape;
      shape.kind = Operand::Kind::Shape;
      shape.shape = t.shape;
      alloc.args = {arg("shape", shape), arg("dtype", symbol("dtype:" + (t.dtype.empty() ? "float32" : t.dtype))),
                    arg("buffer", symbol("buffer:sbuf"))};
      Node n;
      n.kind = NodeKind::Stmt;
      n.id = k.next_node++;
      n.ops = {alloc};
      n.dirty = true;
      decl = std::move(n);
    }
    Op& act = a.node->ops[a.index];
    act.api = "nisa.activation_reduce";
    act.args.push_back(arg("reduce_op", symbol("add")));
    act.args.push_back(arg("reduce_res", [&] {
      Operand o;
      o.kind = Operand::Kind::Tile;
      o.access = sum;
      o.origin = red.dst_origin;
      return o;
    }(), true));
    a.node->dirty = true;
    std::vector<Node>* block = a.block;
    erase_node(k, removed);
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
  std::string name() const override { return "whole_row_reduce"; }
  std::string description() const override {
    return "reduce a finished row once instead of reducing each chunk in the loop and then the partial results";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    Ranges ranges = k.ranges();
    for (const OpRef& r2 : an.ops) {
      const Op& outer = r2.op();
      if (r2.node->frozen || outer.api != "nisa.tensor_reduce" || reduced_axis(outer) < 0 || outer.has_mask) continue;
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
          if (may_overlap(k, *wa, c, ranges)) ++writers, r1 = w;
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
