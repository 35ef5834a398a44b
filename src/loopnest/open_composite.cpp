// open_composite: a composite language call spelled out as the instructions it runs.
//
//   y = f(nl.softmax(x, axis=a))  =>  neg_max = nisa.tensor_reduce(nl.max, data=x, axis=a, negate=True,
//                                                                   keepdims=True, dtype=nl.float32)
//                                     exps = nisa.activation(op=nl.exp, data=x, bias=neg_max, dtype=nl.float32)
//                                     row_sum = nl.sum(exps, axis=a, keepdims=True, dtype=nl.float32)
//                                     inv_sum = nl.reciprocal(row_sum)
//                                     y = f(nl.multiply(exps, inv_sum))
//
// The form lifts nl.softmax as one operation on the Scalar Engine (api.cpp), but the interpreter
// runs it as this sequence (src/nki/lib/language_math.cpp nl_softmax): the max, sum, reciprocal and
// multiply on the Vector Engine, only the exponentials on the Scalar Engine. As one opaque op no
// move can touch its parts; opened, fold_activation_reduce sums inside the activation and
// engine_assign moves a pass to another engine. Each call above is the one the interpreter makes
// with the same arguments (the reductions and exponentials in fp32, the product in the softmax's
// dtype), so the numerics are the same: always legal. The negated max and the bias need nisa; the
// printer adds its import when the kernel lacks it (emit.cpp missing_imports).
#include <functional>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

// The reduced axis of a 2-D tile when it is the last one (`axis=[1]`, `axis=1`, `axis=-1`).
bool reduces_last_of_2d(const Op& op, const Access& x) {
  const Operand* axis = operand(op, "axis");
  if (!axis || x.tile_shape().size() != 2) return false;
  int64_t a = -2;
  if (axis->kind == Operand::Kind::Shape && axis->shape.size() == 1 && axis->shape[0].is_constant())
    a = axis->shape[0].constant();
  if (axis->kind == Operand::Kind::Number && axis->integer) a = static_cast<int64_t>(axis->number);
  return a == 1 || a == -1;
}

class OpenComposite : public Transform {
 public:
  std::string name() const override { return "open_composite"; }
  std::string description() const override {
    return "spell nl.softmax out as the instructions it runs (negated max, exp with that bias, row sum, reciprocal, "
           "multiply), so the moves on those instructions apply and its Vector Engine passes show";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& r : an.ops) {
      const Op& sm = r.op();
      if (sm.api != "nl.softmax" || r.node->frozen || r.node->kind != NodeKind::Stmt || sm.has_mask || sm.accumulate)
        continue;
      const Operand* x = operand(sm, "x");
      if (!x || x->kind != Operand::Kind::Tile || !reduces_last_of_2d(sm, x->access)) continue;
      if (k.tensor(x->access.tensor).dtype.empty()) continue;
      // x computed by an inner call of the same statement would need a name of its own first.
      bool inner_x = false;
      for (size_t i = 0; i < r.index; ++i) inner_x = inner_x || r.node->ops[i].result == x->access.tensor;
      if (inner_x) continue;
      Site s = make_site(k, an, r, fmt::format("spell out the softmax of `{}` as the instructions it runs",
                                               k.tensor(x->access.tensor).name));
      int node = r.node->id;
      size_t index = r.index;
      int scope = r.loops.empty() ? -1 : r.loops.back();
      if (sink(s, [&k, node, index, scope] { open(k, node, index, scope); })) return true;
    }
    return false;
  }

 private:
  static void open(Kernel& k, int node_id, size_t index, int scope) {
    Node* n = find_node(k, node_id);
    if (!n || index >= n->ops.size()) throw TransformError("open_composite: the softmax moved");
    const Op sm = n->ops[index];
    const Arg* xa = sm.arg("x");
    const Arg* axis = sm.arg("axis");
    Access x = xa->value.access;
    std::vector<IExpr> rows = x.tile_shape();
    std::string x_dtype = k.tensor(x.tensor).dtype;

    // A new fp32 value tile of `shape`, named after `base` where the kernel does not use it.
    auto value = [&](const std::string& base, std::vector<IExpr> shape) {
      Tensor t;
      t.name = fresh_loop_var(k, base);
      t.role = TensorRole::Value;
      t.memory = Memory::Sbuf;
      t.shape = std::move(shape);
      t.dtype = "float32";
      t.scope_loop = scope;
      return whole_of(k, add_tensor(k, std::move(t)));
    };
    auto make = [&](const std::string& api, std::vector<Arg> args, const Access& out, const std::string& dtype) {
      const ApiSpec* spec = find_api(api);
      Op op;
      op.api = api;
      op.cls = spec ? spec->cls : OpClass::Other;
      op.engine = spec ? spec->engine : Engine::None;
      op.args = std::move(args);
      if (!dtype.empty()) {
        op.args.push_back(arg("dtype", symbol("dtype:" + dtype)));
        op.dtype = dtype;
      }
      op.result = out.tensor;
      op.dst = out;
      return op;
    };
    auto stmt = [&](Op op) { return new_statement(k, {std::move(op)}); };
    Arg data = *xa;
    data.name = "data";
    data.positional = false;
    Arg ax = *axis;
    ax.positional = false;

    std::vector<IExpr> col = {rows[0], IExpr(1)};
    Access neg_max = value("neg_max", col);
    Access exps = value("exps", rows);
    Access row_sum = value("row_sum", col);
    Access inv_sum = value("inv_sum", col);
    std::vector<Node> before;
    before.push_back(stmt(make("nisa.tensor_reduce",
                               {arg("op", symbol("max")), data, ax, arg("negate", symbol("True")),
                                arg("keepdims", symbol("True"))},
                               neg_max, "float32")));
    before.push_back(stmt(make("nisa.activation", {arg("op", symbol("exp")), data, arg("bias", tile_operand(neg_max))}, exps,
                               "float32")));
    Arg sum_x = arg("x", tile_operand(exps));
    sum_x.positional = true;
    before.push_back(stmt(make("nl.sum", {sum_x, ax, arg("keepdims", symbol("True"))}, row_sum, "float32")));
    Arg rec_x = arg("x", tile_operand(row_sum));
    rec_x.positional = true;
    before.push_back(stmt(make("nl.reciprocal", {rec_x}, inv_sum, "")));

    // The product keeps the softmax's place (its result or destination): the softmax's dtype, else x's.
    std::string out_dtype = !sm.dtype.empty() ? sm.dtype : (x_dtype == "float32" ? "" : x_dtype);
    Arg mx = arg("x", tile_operand(exps)), my = arg("y", tile_operand(inv_sum));
    mx.positional = my.positional = true;
    Op mul = make("nl.multiply", {mx, my}, *sm.dst, out_dtype);
    mul.result = sm.result;
    mul.dst_origin = sm.dst_origin;
    mul.dst_first = sm.dst_first;
    n->ops[index] = std::move(mul);
    n->dirty = true;

    // The new statements go right before the statement that used the softmax.
    bool placed = false;
    std::function<bool(std::vector<Node>&)> insert = [&](std::vector<Node>& block) {
      for (size_t i = 0; i < block.size(); ++i) {
        if (block[i].id == node_id) {
          block.insert(block.begin() + static_cast<long>(i), std::make_move_iterator(before.begin()),
                       std::make_move_iterator(before.end()));
          return true;
        }
        if (insert(block[i].body) || insert(block[i].orelse)) return true;
      }
      return false;
    };
    placed = insert(k.body);
    if (!placed) throw TransformError("open_composite: the softmax's statement is not in the kernel");
  }
};

}  // namespace

std::unique_ptr<Transform> make_open_composite() { return std::make_unique<OpenComposite>(); }

int open_composites(Kernel& k) {
  const OpenComposite t;
  const Transform& base = t;
  int opened = 0;
  // Each application changes the form: the next site is found again on the changed kernel.
  for (auto sites = t.find(k); !sites.empty(); sites = t.find(k)) {
    base.apply(k, sites.front());
    ++opened;
  }
  return opened;
}

}  // namespace loopnest
