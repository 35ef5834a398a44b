// reduce_per_chunk: the inverse of reduce_row_once (reduce.cpp).
//   for l in range(T): X[r, c*l : c*l + c] = f(...)        for l in range(T):
//   y = reduce(op, X[r, 0 : c*T])                    =>      X[r, c*l : c*l + c] = f(...)
//                                                            part[r, l] = reduce(op, X[r, c*l : c*l + c])
//                                                          y = reduce(op, part)
// A row's maximum (or sum) taken on each chunk as soon as the chunk is written: the Vector Engine
// works while the loop still produces the row, and the one reduction left after the loop reads T
// elements per row instead of c*T. An attention kernel whose row max waits for the whole score row
// (gqa_full: 3.7 us per [128, 4096] row on VectorE after the last score matmul, then the
// exponentials, while the Tensor Engine waits for them) loses that wait. The combination is exact
// for max / min; for add it regroups the sum (what an accumulation allows).
// Legality from the dependences: one writer of the reduced region, a plain (not accumulating,
// unmasked) write in the loop's body (directly, or under branches decided at trace time), whose
// chunks of two elements or more tile the region exactly; between the loop and the reduction no
// statement writes the row and no loop or branch stands.
#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/api.h"
#include "loopnest/reduce_ops.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

using namespace reduce_ops;

// The dim of `a` the tile's last axis walks with stride 1 and nothing else (the reduced axis of a
// 2-D tile); -1 otherwise.
int last_axis_dim(const Access& a) {
  int found = -1;
  for (size_t d = 0; d < a.dims.size(); ++d)
    for (const auto& t : a.dims[d].terms)
      if (t.axis == 1) {
        if (found >= 0 || a.dims[d].terms.size() != 1 || t.stride != 1 || !t.affine()) return -1;
        found = static_cast<int>(d);
      }
  return found;
}

// The dims of `a` and `b` other than `skip` index the same elements (the same rows of the tile).
bool same_other_dims(const Access& a, const Access& b, int skip) {
  if (a.dims.size() != b.dims.size()) return false;
  for (size_t d = 0; d < a.dims.size(); ++d)
    if (static_cast<int>(d) != skip && !(a.dims[d] == b.dims[d])) return false;
  return true;
}

// Whether node `id` lies in `block` with only branches decided at trace time around it (an `if` on
// constants: a configuration's choice, `if 0 == 0:`) taken the way that reaches it, so it runs in
// every iteration.
bool in_every_iteration(const std::vector<Node>& block, int id) {
  for (const Node& n : block) {
    if (n.id == id) return true;
    if (n.kind != NodeKind::If) continue;
    bool decided = n.cond_l.is_constant() && n.cond_r.is_constant();
    bool taken = decided && holds(n.cond_l.constant(), n.cond, n.cond_r.constant());
    if (in_every_iteration(n.body, id)) return decided && taken;
    if (in_every_iteration(n.orelse, id)) return decided && !taken;
  }
  return false;
}

class ReducePerChunk : public Transform {
 public:
  std::string name() const override { return "reduce_per_chunk"; }
  std::string description() const override {
    return "reduce each chunk of a row inside the loop that writes it, then the partial results, instead of the "
           "whole row after the loop";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    Ranges ranges = k.ranges();
    for (const OpRef& r : an.ops) {
      const Op& red = r.op();
      if (r.node->frozen || red.api != "nisa.tensor_reduce" || reduced_axis(red) < 0 || red.has_mask ||
          has_index_operand(red) || red.accumulate || continues_engine_accumulator(red))
        continue;
      std::string op = symbol_of(red, "op");
      if (op != "max" && op != "min" && op != "add") continue;
      // The reduction is a statement's own operation (its data no inner call's result).
      if (r.index + 1 != r.node->ops.size()) continue;
      const Access& x = operand(red, "data")->access;
      const Tensor& xt = k.tensor(x.tensor);
      if (!xt.on_chip() || xt.role == TensorRole::View) continue;
      const int xd = last_axis_dim(x);
      if (xd < 0) continue;
      const DimIndex& xdim = x.dims[static_cast<size_t>(xd)];
      std::optional<int64_t> width = xdim.terms[0].size.is_constant() ? std::optional<int64_t>(xdim.terms[0].size.constant())
                                                                       : std::nullopt;
      if (!width) continue;
      // The one writer of the region the reduction reads.
      const OpRef* w = nullptr;
      int writers = 0;
      for (const OpRef* cand : an.writers(k, x.tensor))
        for (const Access* wa : writes(cand->op()))
          if (!is_declaration(cand->op()) && may_overlap_across(k, *wa, x, ranges)) ++writers, w = cand;
      if (writers != 1 || w->node->frozen || w->loops.size() != r.loops.size() + 1) continue;
      const Op& wop = w->op();
      if (!wop.dst || wop.accumulate || wop.has_mask || reads_destination(wop) || writes(wop).size() != 1) continue;
      // The writer sits in the body of a loop L over range(T) (directly, or in a branch of it: a
      // configuration's `if` decided at trace time), L a statement of the reduction's block before
      // it; every statement between L and the reduction leaves X alone. The partial reduction goes
      // right after the writer, in the writer's own block: it reduces a chunk where one is written.
      const int l = w->loops.back();
      const Loop& loop = k.loops.at(l);
      auto trip = loop.trip();
      if (!trip || *trip < 2 || !(loop.start == IExpr(0)) || loop.step != 1 || loop.host_items) continue;
      size_t lp = r.position;
      bool found = false, clear = true;
      while (lp > 0 && clear) {
        --lp;
        const Node& n = (*r.block)[lp];
        if (n.kind == NodeKind::Loop && n.loop == l) {
          found = true;
          break;
        }
        if (n.kind == NodeKind::Stmt) {
          for (const Op& o : n.ops)
            for (const Access* wa : writes(o)) clear = clear && storage_of(k, wa->tensor) != storage_of(k, x.tensor);
        } else if (n.kind != NodeKind::Meta || n.meta != MetaKind::Docstring) {
          clear = false;  // a loop or branch between: left alone
        }
      }
      if (!found || !clear || (*r.block)[lp].frozen || !in_every_iteration((*r.block)[lp].body, w->node->id)) continue;
      // The writer's chunk (two elements at least: the reduction of one is a copy, and a loop writing
      // one element per iteration is reduce_row_once's partial results): X[rows, s0 + c*l + a[c]] with the reduction's rows, so over the loop
      // the chunks are X[rows, s0 + a[c*T]], exactly the region reduced.
      const Access& wd = *wop.dst;
      if (wd.tensor != x.tensor || wd.tile_shape().size() != 2 || last_axis_dim(wd) != xd || !same_other_dims(wd, x, xd))
        continue;
      const DimIndex& wdim = wd.dims[static_cast<size_t>(xd)];
      const int64_t chunk = wdim.start.coeff(l);
      if (chunk < 2 || !(wdim.terms[0].size == IExpr(chunk)) || chunk * *trip != *width) continue;
      if (!(wdim.start - IExpr::var(l) * chunk == xdim.start)) continue;
      // Rows: the partition dim of the tile (axis 0), whose size the partial results take.
      std::vector<IExpr> rows = x.tile_shape();
      if (rows.size() != 2 || !rows[0].is_constant()) continue;
      Site s = make_site(k, an, r,
                         fmt::format("reduce `{}` chunk by chunk inside `for {}` ({} chunks of {}), then the {} partial "
                                     "results",
                                     k.tensor(x.tensor).name.empty() ? std::string("the row") : k.tensor(x.tensor).name,
                                     k.var_name(l), *trip, chunk, *trip),
                         {{"op", op}});
      const int red_node = r.node->id;
      const size_t red_index = r.index;
      const int loop_node_id = (*r.block)[lp].id;
      const int writer_node = w->node->id;
      const int scope = r.loops.empty() ? -1 : r.loops.back();
      const Access chunk_access = wd;
      const int64_t parts = *trip;
      const IExpr partitions = rows[0];
      if (sink(s, [&k, red_node, red_index, loop_node_id, writer_node, scope, chunk_access, parts, partitions, l] {
            apply(k, red_node, red_index, loop_node_id, writer_node, scope, chunk_access, parts, partitions, l);
          }))
        return true;
    }
    return false;
  }

 private:
  static void apply(Kernel& k, int red_node, size_t red_index, int loop_node_id, int writer_node, int scope,
                    const Access& chunk_access, int64_t parts, const IExpr& partitions, int l) {
    Node* rn = find_node(k, red_node);
    if (!rn || red_index >= rn->ops.size()) throw TransformError("reduce_per_chunk: the reduction moved");
    const Op red = rn->ops[red_index];
    // The partial results: an fp32 buffer [rows, T] declared with the row (before the loop).
    Tensor part;
    const Tensor& xt = k.tensor(chunk_access.tensor);
    part.name = fresh_loop_var(k, (xt.name.empty() ? std::string("row") : xt.name) + "_" + symbol_of(red, "op"));
    part.role = TensorRole::Buffer;
    part.memory = Memory::Sbuf;
    part.shape = {partitions, IExpr(parts)};
    part.partition_dim = 0;
    part.dtype = "float32";
    part.scope_loop = scope;
    const int pt = add_tensor(k, std::move(part));
    Node decl = declaration_node(k, pt);

    // part[:, l:l+1] = tensor_reduce(op, X[chunk], axis, keepdims=True), right after the writer.
    Access dst = whole_of(k, pt);
    dst.dims[1].start = IExpr::var(l);
    dst.dims[1].terms[0].size = IExpr(1);
    Op partial;
    partial.api = "nisa.tensor_reduce";
    const ApiSpec* spec = find_api(partial.api);
    partial.cls = spec ? spec->cls : OpClass::Reduce;
    partial.engine = spec ? spec->engine : Engine::Vector;
    Arg data = arg("data", tile_operand(chunk_access));
    std::vector<Arg> args = {arg("op", symbol(symbol_of(red, "op"))), data};
    if (const Arg* ax = red.arg("axis")) {
      Arg a = *ax;
      a.positional = false;
      args.push_back(a);
    }
    args.push_back(arg("keepdims", symbol("True")));
    partial.args = std::move(args);
    partial.dst = dst;
    partial.dst_first = k.dialect.new_api;  // the newer API writes destination-first (`dst=`)
    Node partial_stmt = new_statement(k, {partial});

    Node* ln = find_node(k, loop_node_id);
    if (!ln) throw TransformError("reduce_per_chunk: the loop moved");
    std::function<bool(std::vector<Node>&)> after_writer = [&](std::vector<Node>& block) {
      for (size_t i = 0; i < block.size(); ++i) {
        if (block[i].id == writer_node) {
          block.insert(block.begin() + static_cast<long>(i) + 1, std::move(partial_stmt));
          return true;
        }
        if (block[i].kind == NodeKind::If && (after_writer(block[i].body) || after_writer(block[i].orelse))) return true;
      }
      return false;
    };
    if (!after_writer(ln->body)) throw TransformError("reduce_per_chunk: the writer is not in the loop's body");

    // The reduction reads the partial results.
    rn = find_node(k, red_node);
    Arg* rd = rn->ops[red_index].arg("data");
    rd->value = tile_operand(whole_of(k, pt));
    rd->value.origin = nullptr;
    rn->dirty = true;

    // The declaration goes right before the loop.
    std::function<bool(std::vector<Node>&)> insert = [&](std::vector<Node>& block) {
      for (size_t i = 0; i < block.size(); ++i) {
        if (block[i].id == loop_node_id) {
          block.insert(block.begin() + static_cast<long>(i), std::move(decl));
          return true;
        }
        if (insert(block[i].body) || insert(block[i].orelse)) return true;
      }
      return false;
    };
    if (!insert(k.body)) throw TransformError("reduce_per_chunk: the loop is not in the kernel");
  }
};

}  // namespace

std::unique_ptr<Transform> make_reduce_per_chunk() { return std::make_unique<ReducePerChunk>(); }

}  // namespace loopnest
