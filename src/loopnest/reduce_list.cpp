// fold_activation_reduce over a list (a site of that move): the row sums of a list's items added up
// by a chain carried over the list, the items made by an activation in a comprehension,
//
//     exps = [nl.exp(t - row_max) for t in chunks]          # loop L1 (lift_rolled.cpp)
//     denom = nl.sum(exps[0], axis=1, keepdims=True)        # the seed S
//     for e in exps[1:]:                                    # loop L2, carrying denom
//         denom = denom + nl.sum(e, axis=1, keepdims=True)  #   (lift_item_loop.cpp)
//  =>
//     denom_parts = nl.ndarray((P, n), dtype=nl.float32, buffer=nl.sbuf)
//     exps = [nisa.activation_reduce(op=nl.exp, data=..., reduce_op=nl.add,
//                                    reduce_res=denom_parts[:, t:t + 1]) for t in range(n)]
//     denom = nl.sum(denom_parts, axis=1, keepdims=True)
//
// The Scalar Engine sums each item's rows while it writes them; the Vector Engine's n passes over
// [P, F] items (and n - 1 additions of [P, 1] columns) become one reduction of the [P, n] partial
// sums. The exp and the sum sit in different loops, so the plain fold (reduce.cpp: an activation
// and a sum in one block) finds nothing; fusing the two loops first has no comprehension spelling.
//
// Legal from the form: the activation is the only writer of the list E, made in a comprehension's
// loop over every block 0..n-1; the seed sums block 0 whole into C ([P, 1]); the next node touching
// C is the chain loop over blocks 1..n-1 whose body is exactly `p = sum(E[l])` and `C = C + p` (C
// read and written whole: the carried value, a true recurrence), p read by nothing else. Then C
// after the chain is the sum of the n row sums, which one reduction of the partial sums gives
// (the order of the additions changes, as any fold of a sum does).
#include <set>
#include <vector>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/reduce_ops.h"

namespace loopnest::reduce_ops {

namespace {

// `a` reads block `block` of list tensor `t` whole (`exps[0]`, `exps[e]` in a loop over e).
bool whole_block(const Kernel& k, const Access& a, int t, const IExpr& block) {
  const Tensor& tt = k.tensor(t);
  if (a.tensor != t || a.dims.size() != tt.shape.size() || a.dims.empty()) return false;
  if (!a.dims[0].terms.empty() || !(a.dims[0].start == block)) return false;
  for (size_t d = 1; d < a.dims.size(); ++d) {
    const DimIndex& x = a.dims[d];
    if (!(x.start == IExpr(0)) || x.terms.size() != 1 || x.terms[0].stride != 1 || !x.terms[0].affine() ||
        !(x.terms[0].size == tt.shape[d]))
      return false;
  }
  return true;
}

// The tensor an op writes whole (its result, or a whole destination), -1 otherwise.
int whole_target(const Kernel& k, const Op& op) {
  if (op.result >= 0) return op.result;
  if (op.dst && !op.accumulate && accesses_whole(k, *op.dst)) return op.dst->tensor;
  return -1;
}

bool row_add(const Op& op) {
  if (op.api == "nl.add") return true;
  return op.api == "nisa.tensor_tensor" && symbol_of(op, "op") == "add";
}

// The two tile operands of an addition (x, y / data1, data2).
std::pair<const Operand*, const Operand*> add_operands(const Op& op) {
  if (op.api == "nl.add") return {operand(op, "x"), operand(op, "y")};
  return {operand(op, "data1"), operand(op, "data2")};
}

bool touches(const Kernel& k, const Op& op, int t) {
  const int s = storage_of(k, t);
  for (const Access* a : reads(op))
    if (storage_of(k, a->tensor) == s) return true;
  for (const Access* a : writes(op))
    if (storage_of(k, a->tensor) == s) return true;
  return false;
}

bool node_touches(const Kernel& k, Node& n, int t) {
  std::vector<Op*> ops;
  ops_of(n, ops);
  for (const Op* op : ops)
    if (touches(k, *op, t)) return true;
  return false;
}

struct Chain {
  const OpRef* act = nullptr;  // the activation making the list's items
  const OpRef* seed = nullptr;  // C = sum(E[0])
  int l1_node = -1, l2_node = -1;
  int list = -1, carried = -1;
  int64_t count = 0;
  bool zeros = false;  // the seed is `c = nl.zeros(...)`, the chain adds every item
};

// The chain loop after the seed: body `p = sum(E[l2])`, `C = C + p` (one statement or two).
bool chain_loop(const Kernel& k, const Analysis& an, Node& loop, int list, int carried, int64_t from, int64_t count) {
  if (loop.kind != NodeKind::Loop || loop.frozen || !loop.orelse.empty()) return false;
  const Loop& l = k.loops.at(loop.loop);
  if (!(l.start == IExpr(from)) || !(l.stop == IExpr(count)) || l.step != 1 || l.program || l.host_items) return false;
  std::vector<Op*> ops;
  for (Node& n : loop.body) {
    if (n.kind == NodeKind::Meta && n.meta == MetaKind::Docstring) continue;
    if (n.kind != NodeKind::Stmt || n.frozen) return false;
    for (Op& op : n.ops) ops.push_back(&op);
  }
  if (ops.size() != 2) return false;
  const Op &part = *ops[0], &add = *ops[1];
  if (!row_sum(part) || reduced_axis(part) < 0 || part.accumulate || part.has_mask || has_index_operand(part) ||
      part.result < 0)
    return false;
  const Operand* data = operand(part, data_param(part));
  if (!data || data->kind != Operand::Kind::Tile || !whole_block(k, data->access, list, IExpr::var(loop.loop)))
    return false;
  if (!row_add(add) || add.has_mask || add.accumulate || add.result >= 0 || !add.dst ||
      !accesses_whole(k, *add.dst) || add.dst->tensor != carried)
    return false;
  auto [x, y] = add_operands(add);
  if (!x || !y || x->kind != Operand::Kind::Tile || y->kind != Operand::Kind::Tile) return false;
  auto is = [&](const Operand* o, int t) { return o->access.tensor == t && accesses_whole(k, o->access); };
  if (!((is(x, carried) && is(y, part.result)) || (is(y, carried) && is(x, part.result)))) return false;
  // The partial sum is the addition's alone.
  for (const OpRef* r : an.readers(k, part.result))
    if (&r->op() != &add) return false;
  return k.tensor(part.result).dtype == k.tensor(carried).dtype || k.tensor(part.result).dtype.empty();
}

// `c = nl.zeros(shape, ...)` declaring the whole [P, 1] tile c: a chain's seed from a constant.
bool zero_seed(const Kernel& k, const Op& op) {
  return op.api == "nl.zeros" && op.cls == OpClass::Memset && op.dst && accesses_whole(k, *op.dst) && !op.has_mask;
}

// The list a chain after `r` sums (`for e in exps` after a zeros seed): the block-0 operand of the
// first row sum of the next node touching the seeded tile; -1 when there is none.
int list_summed_after(const Kernel& k, const OpRef& r, int c) {
  std::vector<Node>& block = *r.block;
  for (size_t i = r.position + 1; i < block.size(); ++i) {
    if (!node_touches(k, block[i], c)) continue;
    std::vector<Op*> ops;
    ops_of(block[i], ops);
    for (const Op* op : ops) {
      if (!row_sum(*op)) continue;
      const Operand* d = operand(*op, data_param(*op));
      return d && d->kind == Operand::Kind::Tile ? d->access.tensor : -1;
    }
    return -1;
  }
  return -1;
}

std::optional<Chain> find_chain(Kernel& k, const Analysis& an, const OpRef& r) {
  const Op& seed = r.op();
  if (r.node->frozen || r.node->kind != NodeKind::Stmt || r.node->ops.size() != 1) return std::nullopt;
  // The seed: the sum of item 0 (the chain then adds items 1..n-1), or zeros (it adds them all).
  const bool zeros = zero_seed(k, seed);
  if (!zeros && (!row_sum(seed) || reduced_axis(seed) < 0 || seed.accumulate || seed.has_mask || has_index_operand(seed)))
    return std::nullopt;
  const int c = zeros ? seed.dst->tensor : whole_target(k, seed);
  if (c < 0 || !k.tensor(c).on_chip() || k.tensor(c).list_loop >= 0) return std::nullopt;
  const std::vector<IExpr> c_shape = whole_of(k, c).tile_shape();
  if (c_shape.size() != 2 || !(c_shape[1] == IExpr(1)) || !c_shape[0].is_constant()) return std::nullopt;
  const Operand* data = zeros ? nullptr : operand(seed, data_param(seed));
  if (!zeros && (!data || data->kind != Operand::Kind::Tile)) return std::nullopt;
  const int e = zeros ? list_summed_after(k, r, c) : data->access.tensor;
  if (e < 0) return std::nullopt;
  const Tensor& et = k.tensor(e);
  if (et.list_loop < 0 || !et.outer_lists.empty() || et.host_list || (!zeros && !whole_block(k, data->access, e, IExpr(0))))
    return std::nullopt;
  const Loop& l1 = k.loops.at(et.list_loop);
  auto n = l1.trip();
  if (!n || *n < 2 || !(l1.start == IExpr(0)) || l1.step != 1) return std::nullopt;
  // The activation: the list's only writer, the statement of the comprehension's loop (in the
  // seed's block), its result the list.
  const auto writers = an.writers(k, e);
  if (writers.size() != 1) return std::nullopt;
  const OpRef* act = writers[0];
  if (act->node->frozen || !plain_activation(act->op()) || act->op().result != e || act->op().has_mask ||
      act->index + 1 != act->node->ops.size() || act->loops.empty() || act->loops.back() != et.list_loop ||
      act->loops.size() != r.loops.size() + 1)
    return std::nullopt;
  Chain out;
  out.act = act;
  out.seed = &r;
  out.list = e;
  out.carried = c;
  out.count = *n;
  std::vector<Node>& block = *r.block;
  for (size_t i = 0; i < r.position; ++i)
    if (block[i].kind == NodeKind::Loop && block[i].loop == et.list_loop) out.l1_node = block[i].id;
  if (out.l1_node < 0) return std::nullopt;
  // The next node touching C is the chain loop.
  for (size_t i = r.position + 1; i < block.size(); ++i) {
    if (!node_touches(k, block[i], c)) continue;
    if (!chain_loop(k, an, block[i], e, c, zeros ? 0 : 1, *n)) return std::nullopt;
    out.l2_node = block[i].id;
    break;
  }
  if (out.l2_node < 0) return std::nullopt;
  // The seed's sum and the chain's agree on the carried tile's type.
  if (seed.result >= 0 && k.tensor(seed.result).dtype != k.tensor(c).dtype) return std::nullopt;
  out.zeros = zeros;
  return out;
}

void apply_chain(Kernel& k, const Chain& ch) {
  const int act_node = ch.act->node->id, act_index = static_cast<int>(ch.act->index);
  const int seed_node = ch.seed->node->id;
  std::vector<Node>* block = ch.seed->block;
  const int l1 = k.tensor(ch.list).list_loop;
  const int scope = ch.seed->loops.empty() ? -1 : ch.seed->loops.back();
  const Tensor& c = k.tensor(ch.carried);
  const IExpr rows = whole_of(k, ch.carried).tile_shape()[0];
  // The partial sums: one column per item.
  Tensor parts;
  parts.name = fresh_loop_var(k, (c.name.empty() ? std::string("row_sum") : c.name) + "_parts");
  parts.role = TensorRole::Buffer;
  parts.memory = Memory::Sbuf;
  parts.shape = {rows, IExpr(ch.count)};
  parts.partition_dim = 0;
  parts.dtype = c.dtype.empty() ? "float32" : c.dtype;
  parts.scope_loop = scope;
  const int p = add_tensor(k, std::move(parts));
  Access column;
  column.tensor = p;
  column.dims.push_back(DimIndex{IExpr(0), {AxisTerm{0, rows, 1}}});
  column.dims.push_back(DimIndex{IExpr::var(l1), {AxisTerm{1, IExpr(1), 1}}});
  Node* an = find_node(k, act_node);
  to_activation_reduce(an->ops[static_cast<size_t>(act_index)], tile_operand(column));
  an->dirty = true;
  // The new column is indexed by the loop's variable: the comprehension is printed over its index
  // (`for b in range(4)`, the items `row[b]`), not over the list as written (`for b in row`, where
  // `b` is a tile), so no operand of its element keeps the author's text.
  for (Op& op : an->ops)
    for (Arg& a : op.args) a.value.origin = nullptr;
  if (Node* loop = find_node(k, ch.l1_node)) loop->dirty = true;
  Node* sn = find_node(k, seed_node);
  if (ch.zeros) {
    // `c = nl.zeros(...)` stays c's declaration; the sum of the partials (the chain's own row sum,
    // over them) writes it after the comprehension, where the chain loop was.
    Node* l2 = find_node(k, ch.l2_node);
    std::vector<Op*> chain_ops;
    ops_of(*l2, chain_ops);
    Op sum = *chain_ops.front();
    sum.arg(data_param(sum))->value = tile_operand(whole_of(k, p));
    k.tensor(sum.result).name = "";
    sum.result = -1;
    sum.dst = whole_of(k, ch.carried);
    sum.dst_origin = nullptr;
    sum.origin = nullptr;
    for (Arg& a : sum.args) a.value.origin = nullptr;
    Node total = new_statement(k, {sum});
    for (size_t i = 0; i < block->size(); ++i)
      if ((*block)[i].id == ch.l2_node) {
        (*block)[i] = std::move(total);
        break;
      }
  } else {
    Op& seed = sn->ops.back();
    Arg* data = seed.arg(data_param(seed));
    data->value = tile_operand(whole_of(k, p));
    sn->dirty = true;
    erase_node(k, ch.l2_node);
  }
  Node decl = declaration_node(k, p);
  for (size_t i = 0; i < block->size(); ++i)
    if ((*block)[i].id == ch.l1_node) {
      block->insert(block->begin() + static_cast<long>(i), std::move(decl));
      return;
    }
  throw TransformError("the comprehension's loop moved");
}

}  // namespace

bool visit_list_sums(Kernel& k, const SiteSink& sink) {
  Analysis an(k);
  for (const OpRef& r : an.ops) {
    auto ch = find_chain(k, an, r);
    if (!ch) continue;
    const Tensor& e = k.tensor(ch->list);
    const std::string list = e.list_name.empty() ? e.name : e.list_name;
    Site s = make_site(k, an, *ch->act,
                       fmt::format("sum the rows of the {} items of `{}` inside their activation, then their {} "
                                   "partial sums once (not a Vector Engine pass per item)",
                                   ch->count, list, ch->count),
                       {{"over", "list"}});
    // The work that goes: the chain's sums and additions (the Vector Engine's passes over the items).
    std::set<const Op*> fewer;
    std::vector<Op*> chain_ops;
    if (Node* l2 = find_node(k, ch->l2_node)) ops_of(*l2, chain_ops);
    fewer.insert(chain_ops.begin(), chain_ops.end());
    note_relief(k, an, fewer, s);
    const Chain chain = *ch;
    if (sink(s, [&k, chain] { apply_chain(k, chain); })) return true;
  }
  return false;
}

}  // namespace loopnest::reduce_ops
