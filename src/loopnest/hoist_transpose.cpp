// Hoisting a Tensor Engine transpose out of a loop it does not depend on:
//   for m: xn = ...; for n: for k: acc += nl.matmul(xn[:, k-block], wt)
// =>
//   for m: xn = ...
//          xn_t = ndarray((KT, par_dim(128), 128), sbuf); for k: xn_t[k] = nl.transpose(xn[:, k-block])
//          for n: for k: acc += nl.matmul(xn_t[k], wt, transpose_x=True)
// `nl.matmul(x, y)` takes x as [M, K] rows: the compiler transposes each x tile on the Tensor Engine
// and copies it out of PSUM before the multiply (nki-language.md; src/nki/lib/language_math.cpp
// does the same), once per call. When x does not depend on a loop around the matmul (the row
// tile's K blocks are the same for every column block n), that transpose and its copy are redone
// per iteration of that loop. The move makes the transpose explicit (a transpose op writing an SBUF
// buffer, one tile per iteration of the loops the operand does use, filled by a copy of those loops
// before the loop it leaves) and the matmul reads the transposed tiles (`transpose_x=True`): the
// transposes run once per row tile instead of once per (row tile, column block).
// An explicit transpose in the loop (`tp = nisa.nc_transpose(xn[:, k-block])`, or nl.transpose,
// or destination-first), maybe copied out of PSUM (`xT = nl.copy(tp)`), whose tile only a matmul
// reads, moves the same way: the fill writes the transpose into the buffer (the PSUM copy is the
// compiler's), the copy goes, the matmul reads the buffer.
// A longer chain moves whole: a transpose (nc_transpose, nl.transpose, or a matmul by the identity
// with is_transpose=True), its PSUM copy, and the elementwise work on the transposed tile before
// the matmul (gamma of an RMSNorm applied per partition: `tensor_scalar(xT, multiply, g_cols[k])`,
// `nl.multiply(xT, g_cols[k])`), each tile read by the next step alone:
//   for m: xn = ...; for n: for k: tp = transpose(xn[:, k-block]); xT = copy(tp); xg = xT * g[k]
//                                  acc += nc_matmul(xg, w[k, n-block])
// =>
//   for m: xn = ...
//          xn_t = ndarray((KT, par_dim(128), 128)); for k: tp = transpose(..); xT = copy(tp); xn_t[k] = xT * g[k]
//          for n: for k: acc += nc_matmul(xn_t[k], w[k, n-block])
// The statements move as written (the PSUM copy stays: a matmul by the identity writes PSUM only),
// the last one writing the buffer; a legacy block buffer of the chain (`v16[i1, i2, i3]`) is first
// contracted to the tile of its iteration (contract.cpp), as the other styles write it.
//
// Legal from dependences on the form: nothing inside the loop it leaves writes a tensor the chain
// reads from outside itself (the transposed tile, the identity, gamma), none is declared inside
// it, and the chain reads none with the loop's variable (so its tiles are the same in every
// iteration and already written before the loop); every tile the chain writes is read by the next
// step alone (so nothing reads it with the loop's index but through the buffer); no condition
// stands between the loop and the matmul, the loops the chain uses have constant trips from 0 by
// 1, no index operand. Capacity: the buffer plus one tile of every other SBUF tensor must fit an
// SBUF partition of trn1 (as hoist_expand).
//
// The transposed tile may be loaded inside the loop the chain leaves (`loads=1`): generated code
// loads, transposes and copies the stationary operand's tile per (row, column, contraction) tile,
//   for m: for n: for k: x = load(lhs[m, k]); tp = nc_transpose(x); xT = copy(tp); acc += nc_matmul(xT, w[k, n])
// =>
//   for m: x_t = ndarray((KT, par_dim(128), 128)); for k: x = load(lhs[m, k]); x_t[k] = nc_transpose(x)
//          for n: for k: acc += nc_matmul(x_t[k], w[k, n])
// The load moves out first by hoist_expand's expansion (legal when it may leave the loop whole: its
// HBM source written by nothing, its tile by it alone), then the chain as above, then the two fills
// are fused and the load's buffer, read by the fill alone, is one tile of the fill's iteration
// again (hoist_fill.cpp, as hoist_compute leaves its loads). Each step's legality is its own,
// judged on the kernel the step before made; offered where the chain then leaves that loop.
//
// Printed in the kernel's dialect: `nisa.nc_transpose(data=...)` when the kernel imports nki.isa
// (the newer API's destination-first), else `nl.transpose(...)` (an nl-only kernel gets no new
// import); the legacy buffer has its block dims before the partition dim, the newer API's is
// partition-first. The buffer's block dims and the fill
// loops' headers keep the author's bounds (`nl.affine_range(k_tiles)`).
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/hoist_expand.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

// A transpose feeding a matmul: implicit (`nl.matmul(x, y)`: the transpose and the matmul are one
// op) or explicit (a transpose op whose tile, maybe copied out of PSUM, only that matmul reads).
struct Chain {
  int stmt = -1;         // the transpose's statement node id (the matmul's when implicit)
  size_t op = 0;         // its index in the statement's ops
  bool implicit = true;
  // explicit: the statements of the transpose and of what follows it up to the matmul (node ids,
  // in order), and the tiles they write.
  std::vector<int> erased;
  std::vector<int> tiles;
  // explicit, the statements move with the transpose (a Tensor Engine matmul by the identity, or
  // elementwise work after the PSUM copy): the fill runs them as written, the last one writing the
  // buffer. Otherwise the transpose alone writes the buffer and its PSUM copy goes.
  bool moves = false;
  int reader = -1;          // the matmul's statement node id
  size_t reader_op = 0;
  std::string param;        // the matmul operand reading the transposed tile
  std::string dtype;        // the transposed tile's dtype in SBUF
};

struct Plan {
  Chain chain;
  int outer = -1;      // the loop node it leaves
  std::vector<int> used;  // loop ids its operand uses between `outer` and the transpose, outermost first
  int64_t bytes = 0, live = 0, budget = 0;
  int load = -1;  // the statement loading the transposed tile inside `outer`, hoisted with the chain (-1: none)
  bool ahead = false;  // `outer` is the loop around the matmul itself, its transposes put ahead of it (ahead_plan)
};

// The operand a matmul transposes on the Tensor Engine before multiplying: x of `nl.matmul(x, y)`
// without transpose_x=True. nullptr for every other op.
const Arg* implicitly_transposed(const Op& op) {
  if (op.api != "nl.matmul" || symbol_of(op, "transpose_x") == "True") return nullptr;
  const Arg* x = op.arg("x");
  return x && x->value.kind == Operand::Kind::Tile ? x : nullptr;
}

// `nisa.nc_matmul(x, identity, is_transpose=True)`: the transpose other styles write nc_transpose.
bool matmul_transpose(const Op& op) { return op.api == "nisa.nc_matmul" && symbol_of(op, "is_transpose") == "True"; }

// The tile the operand `param` of `op` transposes: `x` of nl.matmul without transpose_x, `data` of
// nisa.nc_transpose, `x` of nl.transpose.
const char* transposed_param(const Op& op) {
  if (implicitly_transposed(op)) return "x";
  if (op.api == "nisa.nc_transpose") return "data";
  if (op.api == "nl.transpose") return "x";
  if (matmul_transpose(op)) return "stationary";
  return nullptr;
}

// A tile access naming one tile of `t` as a whole: all of it, or one block of a block buffer (the
// legacy style's `v16[i1, i2, i3, ...]`: each block dim indexed by a loop variable, the tile dims
// whole). A block buffer is contracted to a tile of the iteration before the chain moves.
bool names_one_tile(const Kernel& k, const Access& a) {
  if (accesses_whole(k, a)) return true;
  const Tensor& t = k.tensor(a.tensor);
  if (t.role != TensorRole::Buffer || t.partition_dim < 1 || a.dims.size() != t.shape.size()) return false;
  size_t blocks = static_cast<size_t>(t.partition_dim);
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const DimIndex& di = a.dims[d];
    if (d < blocks) {
      if (!di.terms.empty() || di.start.vars().size() != 1 || !(di.start == IExpr::var(di.start.vars()[0]))) return false;
      continue;
    }
    if (!(di.start == IExpr(0)) || di.terms.size() != 1 || di.terms[0].axis != static_cast<int>(d - blocks) ||
        di.terms[0].stride != 1 || !di.terms[0].affine() || !(di.terms[0].size == t.shape[d]))
      return false;
  }
  return true;
}

// A step of the chain after the transpose: a pure op of the Vector / Scalar Engine keeping the
// tile's shape (the PSUM copy, gamma's tensor_scalar or nl.multiply, an activation), alone in its
// statement.
bool chain_step(const Node& s, const Op& op) {
  if (op.accumulate || op.has_mask || has_index_operand(op) || op.arg("reduce_res")) return false;
  if (op.cls != OpClass::Copy && op.cls != OpClass::Elementwise && op.cls != OpClass::Activation) return false;
  return sole_op(s) == &op;
}

// The tile an op writes: its result, or its whole destination (destination-first, a declared tile).
int written_tile(const Kernel& k, const Op& op) {
  if (op.result >= 0) return op.result;
  if (op.dst && !op.accumulate && names_one_tile(k, *op.dst)) return op.dst->tensor;
  return -1;
}

// The one op reading tile `t` (every op but declarations), in `s`'s loops after it and alone in its
// statement; nullptr when there is none or more, or when another op writes `t`.
const OpRef* only_reader(const Kernel& k, const Analysis& an, const OpRef& writer, int t) {
  if (t < 0 || storage_of(k, t) != t) return nullptr;
  for (const auto& o : k.tensors)
    if (o.id != t && storage_of(k, o.id) == t) return nullptr;
  const OpRef* reader = nullptr;
  for (const auto& r : an.ops) {
    if (is_declaration(r.op())) continue;
    for (const Access* w : writes(r.op()))
      if (w->tensor == t && &r.op() != &writer.op()) return nullptr;
    for (const Access* a : reads(r.op()))
      if (a->tensor == t) {
        if (reader && reader != &r) return nullptr;
        reader = &r;
      }
  }
  if (!reader || reader->loops != writer.loops || reader->order < writer.order) return nullptr;
  return reader;
}

// The transpose chain at op `i` of statement `s`, if it is one.
std::optional<Chain> chain_at(Kernel& k, const Analysis& an, Node& s, size_t i) {
  const Op& op = s.ops[i];
  Chain c;
  c.stmt = s.id;
  c.op = i;
  if (const Arg* x = implicitly_transposed(op)) {
    c.reader = s.id;
    c.reader_op = i;
    c.param = "x";
    const Tensor& t = k.tensor(x->value.access.tensor);
    c.dtype = t.dtype.empty() ? k.tensor(storage_of(k, t.id)).dtype : t.dtype;
    return c;
  }
  const char* param = transposed_param(op);
  if (!param || op.has_mask || op.engine != Engine::Tensor) return std::nullopt;
  const Arg* data = op.arg(param);
  if (!data || data->value.kind != Operand::Kind::Tile) return std::nullopt;
  if (sole_op(s) != &op) return std::nullopt;  // alone in its statement (but declarations)
  c.implicit = false;
  c.erased = {s.id};
  const OpRef* me = an.find(&s, i);
  if (!me) return std::nullopt;
  int tile = written_tile(k, op);
  c.tiles = {tile};
  const OpRef* use = only_reader(k, an, *me, tile);
  // The steps between the transpose and the matmul (each tile read by the next step alone).
  constexpr size_t kMaxSteps = 8;
  while (use && use->op().cls != OpClass::Matmul && c.erased.size() <= kMaxSteps) {
    if (!chain_step(*use->node, use->op())) return std::nullopt;
    c.erased.push_back(use->node->id);
    tile = written_tile(k, use->op());
    c.tiles.push_back(tile);
    use = only_reader(k, an, *use, tile);
  }
  if (!use || use->op().cls != OpClass::Matmul) return std::nullopt;
  const Op& mm = use->op();
  for (const char* p : {"stationary", "x"}) {
    const Arg* a = mm.arg(p);
    if (a && a->value.kind == Operand::Kind::Tile && a->value.access.tensor == tile && names_one_tile(k, a->value.access))
      c.param = p;
  }
  if (c.param.empty() || (mm.api == "nl.matmul" && symbol_of(mm, "transpose_x") != "True") || matmul_transpose(mm))
    return std::nullopt;
  // Only a transpose op with at most its PSUM copy after it writes the buffer itself; in the newer
  // API, whose Tensor Engine instructions write a PSUM dst (nki-language.md 12), the copy stays.
  c.moves = matmul_transpose(op) || c.erased.size() > 2 ||
            (c.erased.size() == 2 &&
             (k.dialect.new_api || find_node(k, c.erased[1])->ops.back().cls != OpClass::Copy));
  c.reader = use->node->id;
  c.reader_op = use->index;
  c.dtype = k.tensor(tile).dtype;
  if (c.dtype.empty()) c.dtype = k.tensor(storage_of(k, data->value.access.tensor)).dtype;
  return c;
}

// The access of the transposed buffer's tile for the iteration of `loops` (block dims indexed by
// their variables): [K partitions, M free].
Access buffer_tile(const Kernel& k, int t, const std::vector<int>& loops, const IExpr& rows, const IExpr& cols) {
  const Tensor& tt = k.tensor(t);
  Access a;
  a.tensor = t;
  std::vector<DimIndex> blocks;
  for (int l : loops) blocks.push_back(DimIndex{IExpr::var(l), {}});
  DimIndex part{IExpr(0), {AxisTerm{0, cols, 1}}}, free{IExpr(0), {AxisTerm{1, rows, 1}}};
  if (tt.partition_dim == 0) {
    a.dims.push_back(part);
    a.dims.insert(a.dims.end(), blocks.begin(), blocks.end());
  } else {
    a.dims = blocks;
    a.dims.push_back(part);
  }
  a.dims.push_back(free);
  return a;
}

// A buffer with block dims before its partition dim (the legacy style's per-iteration tiles).
bool is_block_buffer(const Kernel& k, int t) {
  const Tensor& x = k.tensor(t);
  return x.role == TensorRole::Buffer && x.partition_dim >= 1;
}

// The operand the chain's transpose reads.
const Access& source_of(Kernel& k, const Chain& c) {
  const Op& op = find_node(k, c.stmt)->ops[c.op];
  return op.arg(transposed_param(op))->value.access;
}

// How the newer API writes an op into a declared tile: its ISA calls take `dst=`; a language call
// (`nl.copy`, `nl.transpose`) returns its tile, assigned into the destination's subscript.
bool destination_first(const Kernel& k, const Op& op) { return k.dialect.new_api && op.api.rfind("nisa.", 0) == 0; }

// Statements whose first op is an explicit transpose nested in the statement's own op (an unnamed
// tile: `nl.copy(nl.transpose(x))`).
std::vector<int> nested_transposes(Kernel& k) {
  std::vector<int> out;
  each_stmt(k, [&](Node& n, const std::vector<const Node*>&) {
    if (n.ops.size() < 2 || is_declaration(n.ops[0]) || n.ops[0].result < 0 || !k.tensor(n.ops[0].result).name.empty())
      return;
    if (transposed_param(n.ops[0]) && !implicitly_transposed(n.ops[0])) out.push_back(n.id);
  });
  return out;
}

// Statement `id`'s first inner call becomes a statement of its own before it; returns its id.
int split_off(Kernel& k, int id) {
  size_t at = 0;
  std::vector<Node>* block = parent_block(k.body, id, at);
  if (!block) throw TransformError("hoist_transpose: the statement is gone");
  // The transposed tile is named after its operand, so a chain that moves as written (the newer
  // API keeps the PSUM copy) prints the split statement as a binding: `blk_ps = nl.transpose(blk)`.
  Op& first = (*block)[at].ops.front();
  const Arg* data = first.arg(transposed_param(first));
  std::string base = data && data->value.kind == Operand::Kind::Tile ? k.tensor(data->value.access.tensor).name : "";
  k.tensor(first.result).name = fresh_loop_var(k, (base.empty() ? "x" : base) + "_ps");
  split_leading_ops(k, *block, at, 1);
  for (auto& op : (*block)[at + 1].ops)
    for (auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == (*block)[at].ops.back().result)
        a.value.origin = nullptr;
  return (*block)[at].id;
}

class HoistTranspose : public Transform {
 public:
  std::string name() const override { return "hoist_transpose"; }
  std::string description() const override {
    return "move a Tensor Engine transpose feeding a matmul (explicit, or the one nl.matmul does of its row operand) "
           "out of a loop its operand does not depend on, into an SBUF buffer of the transposed tiles: transposed "
           "once per row tile instead of once per column block";
  }

 protected:
  bool visit(Kernel& this_kernel, const SiteSink& sink) const override {
    Kernel& k = this_kernel;
    std::vector<Plan> plans;
    {
      Analysis an(k);
      each_stmt(k, [&](Node& n, const std::vector<const Node*>& path) {
        for (size_t i = 0; i < n.ops.size(); ++i)
          if (auto c = chain_at(k, an, n, i)) {
            if (auto p = plan_for(k, an, *c, path)) plans.push_back(*p);
            if (auto p = plan_with_load(k, an, *c, path)) plans.push_back(*p);
          }
      });
    }
    // A transpose written as the inner call of its copy (`x_t = nl.copy(nl.transpose(x_tile), dtype=..)`)
    // is the chain's first step once it is a statement of its own: each such statement is split on a
    // copy of the kernel, and the move splits it again before it applies.
    std::vector<int> split(plans.size(), -1);
    for (int id : nested_transposes(k)) {
      Kernel trial = k;
      int first = split_off(trial, id);
      Analysis an(trial);
      each_stmt(trial, [&](Node& n, const std::vector<const Node*>& path) {
        if (n.id != first) return;
        if (auto c = chain_at(trial, an, n, 0)) {
          for (auto p : {plan_for(trial, an, *c, path), plan_with_load(trial, an, *c, path)})
            if (p) {
              plans.push_back(*p);
              split.push_back(id);
            }
        }
      });
    }
    for (size_t i = 0; i < plans.size(); ++i) {
      const Plan& p = plans[i];
      Kernel trial;
      if (split[i] >= 0) {
        trial = k;
        split_off(trial, split[i]);
      }
      Kernel& k = split[i] >= 0 ? trial : this_kernel;
      Analysis an(k);
      const OpRef* anchor = nullptr;
      for (const auto& r : an.ops)
        if (r.node->id == p.chain.reader && r.index == p.chain.reader_op) anchor = &r;
      if (!anchor) continue;
      const Access& src = source_of(k, p.chain);
      std::string vars;
      int64_t tiles = 1;
      for (int l : p.used) {
        vars += (vars.empty() ? "" : ", ") + k.var_name(l);
        tiles *= *k.loops.at(l).trip();
      }
      const Tensor& x = k.tensor(src.tensor);
      const Node* outer = find_node(k, p.outer);
      std::map<std::string, std::string> params;
      if (p.load >= 0) {
        params["out_of"] = std::to_string(loops_left(k, p.load, p.outer, p.used));
        params["loads"] = "1";
      } else {
        params["out_of"] = std::to_string(loops_left(k, p.chain.stmt, p.outer, p.used));
      }
      Site site = make_site(k, an, *anchor,
                            fmt::format("{} `{}` {} `for {}` into a buffer of {} tile(s) indexed by [{}] "
                                        "({} KiB per partition, {} KiB with the other tiles, of {} KiB){}",
                                        p.load >= 0 ? "load and transpose" : "transpose", x.name.empty() ? "?" : x.name,
                                        p.ahead ? "ahead of its matmuls, in a loop before" : "once before",
                                        k.var_name(outer->loop), tiles, vars,
                                        p.bytes / 1024, (p.bytes + p.live) / 1024, p.budget / 1024,
                                        p.chain.implicit ? "; the matmul reads it with transpose_x=True"
                                        : p.chain.moves  ? fmt::format("; with the {} step(s) after it up to the matmul",
                                                                       p.chain.erased.size() - 1)
                                                         : ""),
                            params);
      // What runs fewer times: nl.matmul's own transpose (the Tensor Engine), or the explicit transpose
      // and its PSUM copy; the matmul reading the transposed tiles waits on them.
      if (p.ahead) {
        // The same transposes, no longer waited for one iteration at a time.
        site.relieves = {"serial"};
        site.feeds = {"pe"};
      } else if (p.chain.implicit) {
        site.relieves = {"pe"};
        site.feeds = {"pe"};
      } else {
        std::set<const Op*> fewer;
        for (int id : p.chain.erased)
          for (const auto& op : find_node(k, id)->ops) fewer.insert(&op);
        if (p.load >= 0)
          for (const auto& op : find_node(k, p.load)->ops) fewer.insert(&op);
        note_relief(k, an, fewer, site);
      }
      Plan plan = p;
      int nested = split[i];
      if (sink(site, [&this_kernel, plan, nested] {
            if (nested >= 0) split_off(this_kernel, nested);
            plan.load >= 0 ? apply_with_load(this_kernel, plan) : apply(this_kernel, plan);
          }))
        return true;
    }
    return false;
  }

 private:
  // The outermost loop the chain's transpose can leave, if any.
  // What the moving chain reads from outside itself: the transposed tile and, when the chain's
  // statements move, the other operands of its ops (the identity, gamma). Empty when one cannot
  // be read the same way before the loop (an index operand, a loop-dependent size).
  static std::vector<const Access*> inputs_of(Kernel& k, const Chain& c) {
    std::vector<const Access*> out = {&source_of(k, c)};
    const std::set<int> own(c.tiles.begin(), c.tiles.end());
    if (c.moves)
      for (int id : c.erased)
        for (const auto& op : find_node(k, id)->ops) {
          if (is_declaration(op)) continue;
          if (has_index_operand(op)) return {};
          for (const Access* r : reads(op))
            if (!own.count(storage_of(k, r->tensor)) && r != out[0]) out.push_back(r);
        }
    for (const Access* a : out)
      for (const auto& d : a->dims)
        for (const auto& t : d.terms)
          if (!t.size.is_constant()) return {};
    return out;
  }

  // Nothing inside loop node `loop` writes (or declares) a tensor `inputs` read.
  static bool unchanged_inside(const Kernel& k, const Analysis& an, const Node& loop,
                               const std::vector<const Access*>& inputs) {
    std::set<int> inside = loops_within(loop), read;
    for (const Access* a : inputs) read.insert(storage_of(k, a->tensor));
    for (int t : read)
      if (inside.count(k.tensor(t).scope_loop)) return false;
    for (const auto& r : an.ops) {
      if (std::find(r.loops.begin(), r.loops.end(), loop.loop) == r.loops.end()) continue;
      for (const Access* w : writes(r.op()))
        if (read.count(storage_of(k, w->tensor))) return false;
    }
    return true;
  }

  static std::optional<Plan> plan_for(Kernel& k, const Analysis& an, const Chain& c,
                                      const std::vector<const Node*>& path) {
    const Op& op = find_node(k, c.stmt)->ops[c.op];
    if (has_index_operand(op)) return std::nullopt;
    const Access& src = source_of(k, c);
    auto shape = src.tile_shape();
    if (shape.size() != 2 || !shape[0].is_constant() || !shape[1].is_constant() || shape[1].constant() > 128)
      return std::nullopt;
    auto inputs = inputs_of(k, c);
    if (inputs.empty()) return std::nullopt;
    if (k.tensor(storage_of(k, src.tensor)).memory == Memory::Hbm) return std::nullopt;
    // A block buffer of the chain becomes the tile of its iteration before the move (contract.cpp).
    if (c.moves)
      for (int t : c.tiles)
        if (is_block_buffer(k, t) && !contract_block_buffer(k, t, false)) return std::nullopt;
    auto uses = [&](int l) {
      return std::any_of(inputs.begin(), inputs.end(), [&](const Access* a) { return uses_loop(*a, l); });
    };
    for (size_t p = 0; p < path.size(); ++p) {
      if (path[p]->kind != NodeKind::Loop) continue;
      int m = path[p]->loop;
      if (uses(m)) continue;
      Plan plan;
      plan.chain = c;
      plan.outer = path[p]->id;
      bool ok = true;
      for (size_t q = p + 1; q < path.size() && ok; ++q) {
        if (path[q]->kind != NodeKind::Loop) {
          ok = false;  // a condition between: the transpose would run where it did not
          break;
        }
        int l = path[q]->loop;
        if (!uses(l)) continue;
        const Loop& lp = k.loops.at(l);
        ok = lp.start == IExpr(0) && lp.step == 1 && lp.trip().has_value();
        plan.used.push_back(l);
      }
      if (!ok) continue;
      // The chain's inputs are the same in every iteration of the loop.
      if (!unchanged_inside(k, an, *path[p], inputs)) continue;
      int64_t bytes = itemsize_of(c.dtype) * shape[0].constant();
      for (int l : plan.used) bytes *= *k.loops.at(l).trip();
      plan.bytes = bytes;
      plan.live = other_sbuf_bytes(k, an, -1);
      plan.budget = sbuf_budget();
      if (plan.bytes + plan.live > plan.budget) continue;
      return plan;  // the outermost loop it can leave
    }
    return ahead_plan(k, an, c, path, inputs, shape[0].constant());
  }

  // No loop to leave (the operand is made per iteration of every loop around, `e` of a P @ V loop
  // `for j: acc += nl.matmul(e[:, j-block], v[j])`): nl.matmul's own transposes, one per iteration of
  // the loop around the matmul, go ahead of it into a buffer of that loop's tiles (loop fission):
  //   eT = ndarray((J, par_dim(128), 128)); for j: eT[j] = nl.transpose(e[:, j-block])
  //   for j: acc += nl.matmul(eT[j], v[j], transpose_x=True)
  // The transposes are the same; what goes is the wait in every iteration: the Tensor Engine's
  // queue holds behind a matmul waiting on its operand's PSUM copy on another engine (simulator.md,
  // "The Tensor Engine's queue is held"), so the next iteration's transpose cannot start before it
  // and the loop runs transpose -> copy -> matmul one iteration after another; with the transposes
  // ahead, the copies stream behind them and each matmul finds its operand ready. An explicit chain
  // is pipeline_prep's (it splits such a loop after the transpose and its copy). Legal when nothing in
  // the loop writes (or declares) what the transposes read, the loop runs from 0 by 1 with a constant
  // trip, and the buffer fits as above.
  static std::optional<Plan> ahead_plan(Kernel& k, const Analysis& an, const Chain& c, const std::vector<const Node*>& path,
                                        const std::vector<const Access*>& inputs, int64_t rows) {
    if (!c.implicit || path.empty() || path.back()->kind != NodeKind::Loop) return std::nullopt;
    const Node& around = *path.back();
    const int l = around.loop;
    const Loop& lp = k.loops.at(l);
    if (!(lp.start == IExpr(0)) || lp.step != 1 || !lp.trip() ||
        std::none_of(inputs.begin(), inputs.end(), [&](const Access* a) { return uses_loop(*a, l); }))
      return std::nullopt;
    if (!unchanged_inside(k, an, around, inputs)) return std::nullopt;
    Plan plan;
    plan.chain = c;
    plan.outer = around.id;
    plan.used = {l};
    plan.ahead = true;
    plan.bytes = itemsize_of(c.dtype) * rows * *lp.trip();
    plan.live = other_sbuf_bytes(k, an, -1);
    plan.budget = sbuf_budget();
    if (plan.bytes + plan.live > plan.budget) return std::nullopt;
    return plan;
  }

  // The statement loading the tile the chain transposes inside one of the loops around it: the one
  // writer of that tile but its declaration, a load alone in its statement. -1 when there is none.
  static int feeding_load(Kernel& k, const Analysis& an, const Chain& c) {
    int t = storage_of(k, source_of(k, c).tensor);
    if (k.tensor(t).memory == Memory::Hbm) return -1;
    int load = -1;
    for (const auto& r : an.ops) {
      if (is_declaration(r.op())) continue;
      for (const Access* w : writes(r.op()))
        if (storage_of(k, w->tensor) == t) {
          if (load >= 0 || r.op().cls != OpClass::Load || sole_op(*r.node) != &r.op()) return -1;
          load = r.node->id;
        }
    }
    return load;
  }

  // The load hoisted out of loop node `outer` on `k` (hoist_expand's whole expansion), then the
  // chain's plan out of the same loop on what that makes; nullopt when a step is not legal.
  static std::optional<Plan> loaded_plan(Kernel& k, const Chain& c, int load, int outer) {
    auto ep = whole_expand_plan(k, load, outer, false);
    if (!ep) return std::nullopt;
    apply_expand(k, *ep);
    Node* s = nullptr;
    std::vector<const Node*> path;
    if (!locate_stmt(k, c.stmt, s, path)) return std::nullopt;
    Analysis an(k);
    auto again = chain_at(k, an, *s, c.op);
    if (!again) return std::nullopt;
    auto p = plan_for(k, an, *again, path);
    if (!p || p->ahead || p->outer != outer) return std::nullopt;
    p->load = load;
    return p;
  }

  // The chain with the load of its tile, out of the outermost loop around both that the load may
  // leave whole and the chain after it (tried on a copy of the kernel).
  static std::optional<Plan> plan_with_load(Kernel& k, const Analysis& an, const Chain& c,
                                            const std::vector<const Node*>& path) {
    int load = feeding_load(k, an, c);
    if (load < 0) return std::nullopt;
    std::vector<int> around = loops_around(k, load);
    for (const Node* p : path) {
      if (p->kind != NodeKind::Loop || std::find(around.begin(), around.end(), p->loop) == around.end()) continue;
      Kernel trial = k;
      if (auto plan = loaded_plan(trial, c, load, p->id)) return plan;
    }
    return std::nullopt;
  }

  // The load out of the loop, the chain after it, the two fills fused and the load's buffer (read by
  // the fill alone) one tile of the fill's iteration again.
  static void apply_with_load(Kernel& k, const Plan& p) {
    size_t before = 0, after = 0;
    if (!parent_block(k.body, p.outer, before)) throw TransformError("hoist_transpose: the loop is gone");
    const Op* load = sole_op(*find_node(k, p.load));
    const bool was_value = load && load->result >= 0;
    auto ep = whole_expand_plan(k, p.load, p.outer, false);
    if (!ep) throw TransformError("hoist_transpose: the load cannot leave the loop on this kernel");
    auto plan = loaded_plan(k, p.chain, p.load, p.outer);  // the load's expansion done on `k`
    if (!plan) throw TransformError("hoist_transpose: the chain cannot leave the loop on this kernel");
    apply(k, *plan);
    std::vector<Node>* block = parent_block(k.body, p.outer, after);
    int fill = merge_fills(k, *block, before, after);
    if (fill >= 0) private_tile(k, *ep, fill, was_value);
    // Fusing the fills may have contracted the load's buffer to a tile declared in the fill already.
    if (was_value && k.tensor(ep->tensor).role == TensorRole::Buffer) value_again(k, ep->tensor);
  }

  // The transpose alone writing the buffer (its PSUM copy is the compiler's), in copies of the
  // loops its operand uses.
  static std::vector<Node> lone_transpose(Kernel& k, const Plan& p, const Op& transpose, int buf, const IExpr& rows,
                             const IExpr& cols, const std::set<std::string>& local) {
    const Chain& c = p.chain;
    const Operand& data = transpose.arg(transposed_param(transpose))->value;
    Op tr;
    if (c.implicit) {
      bool isa = k.dialect.alias.count("nki.isa");
      tr.api = isa ? "nisa.nc_transpose" : "nl.transpose";
      tr.cls = OpClass::Transpose;
      tr.engine = Engine::Tensor;
      tr.args = {arg(isa ? "data" : "x", data)};
    } else {
      tr = transpose;
      tr.result = -1;
      tr.origin = nullptr;
    }
    tr.dst = buffer_tile(k, buf, p.used, rows, cols);
    tr.dst_origin = nullptr;
    tr.dst_first = destination_first(k, tr);
    Node fill = new_statement(k, {tr});
    forget_local_text(fill.ops, local);
    return {in_loop_copies(k, std::move(fill), p.used, local)};
  }

  // The chain's statements (and the declarations of its intermediate tiles made inside the loop it
  // leaves) taken out of the loop, in order, in copies of the loops its inputs use; the last one
  // writes the buffer's tile of the iteration. Its own tile is then touched by nothing and goes.
  static std::vector<Node> moved_chain(Kernel& k, const Plan& p, int buf, const IExpr& rows, const IExpr& cols,
                          const std::set<std::string>& local, int around) {
    const Chain& c = p.chain;
    const std::set<int> inner(c.tiles.begin(), c.tiles.end() - 1);
    std::vector<int> decls;
    for_each_node(find_node(k, p.outer)->body, [&](const Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::Stmt && n.ops.size() == 1 && is_declaration(n.ops[0]) && n.ops[0].dst &&
          inner.count(n.ops[0].dst->tensor))
        decls.push_back(n.id);
    });
    std::vector<Node> body;
    for (int id : decls) body.push_back(*find_node(k, id));
    for (int id : c.erased) {
      body.push_back(*find_node(k, id));
      forget_local_text(body.back().ops, local);
      body.back().dirty = true;
    }
    Op& last = body.back().ops.back();
    if (last.result >= 0) {
      last.result = -1;
      last.dst_first = destination_first(k, last);
    }
    last.dst = buffer_tile(k, buf, p.used, rows, cols);
    last.dst_origin = nullptr;
    for (int id : decls) erase_node(k, id);
    for (int id : c.erased) erase_node(k, id);
    auto nodes = in_loop_copies(k, std::move(body), p.used, local);
    // The intermediate tiles live in an iteration of the innermost copy.
    int innermost = around;
    for (const Node* n = &nodes.front(); n->kind == NodeKind::Loop && !n->body.empty(); n = &n->body.front())
      innermost = n->loop;
    for (int t : inner) k.tensor(t).scope_loop = innermost;
    return nodes;  // no loop copied (the chain uses none): the statements stand before the loop
  }

  static void apply(Kernel& k, const Plan& p) {
    const Chain& c = p.chain;
    if (c.moves)
      for (int t : c.tiles)
        if (is_block_buffer(k, t) && !contract_block_buffer(k, t, true))
          throw TransformError("hoist_transpose: a tile of the chain is not one per iteration");
    Op transpose = find_node(k, c.stmt)->ops[c.op];
    const char* param = transposed_param(transpose);
    const Access src = transpose.arg(param)->value.access;
    auto shape = src.tile_shape();
    const IExpr rows = shape[0], cols = shape[1];
    std::string base = k.tensor(src.tensor).name.empty() ? "x" : k.tensor(src.tensor).name;
    Node* outer = find_node(k, p.outer);
    std::set<std::string> local = names_local_to(k, *outer, p.used);

    // The buffer: one transposed tile per iteration of the loops x uses.
    Tensor t;
    t.name = fresh_loop_var(k, base + "_t");
    t.role = TensorRole::Buffer;
    t.memory = Memory::Sbuf;
    t.dtype = c.dtype;
    std::vector<IExpr> trips;
    std::vector<std::pair<IExpr, std::string>> trip_text;
    for (int l : p.used) {
      trips.push_back(IExpr(*k.loops.at(l).trip()));
      trip_text.push_back({trips.back(), printable_bound(k, l, local)});
    }
    if (k.dialect.new_api) {
      t.shape = {cols};
      t.shape.insert(t.shape.end(), trips.begin(), trips.end());
      t.partition_dim = 0;
      t.dim_text.push_back({});
      t.dim_text.insert(t.dim_text.end(), trip_text.begin(), trip_text.end());
    } else {
      t.shape = trips;
      t.shape.push_back(cols);
      t.partition_dim = static_cast<int>(trips.size());
      t.dim_text = trip_text;
      t.dim_text.push_back({});
    }
    t.shape.push_back(rows);
    t.dim_text.push_back({});
    int around = -1;
    for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
      if (n.id == p.outer) around = loops.empty() ? -1 : loops.back();
    });
    t.scope_loop = around;
    const int buf = add_tensor(k, std::move(t));

    // The fill: the transpose (the author's, or nl.matmul's made explicit) writing the buffer, in
    // copies of the loops its operand uses; or the chain's statements as written, the last one
    // writing the buffer.
    std::vector<Node> fill = c.moves ? moved_chain(k, p, buf, rows, cols, local, around)
                                     : lone_transpose(k, p, transpose, buf, rows, cols, local);

    // The matmul reads the transposed tile of this iteration; the explicit transpose and its copy go.
    // Every other nl.matmul in the loop that transposes the same tile (`g += nl.matmul(xk, wg)`,
    // `u += nl.matmul(xk, wu)`) reads the buffer too: one transpose per tile, whichever matmul the
    // site was found at.
    std::vector<std::pair<int, size_t>> readers = {{c.reader, c.reader_op}};
    if (c.implicit) {
      int outer_loop = outer->loop;
      Analysis an(k);
      for (const auto& r : an.ops) {
        if (r.node->id == c.reader && r.index == c.reader_op) continue;
        const Arg* x = implicitly_transposed(r.op());
        if (!x || r.op().has_mask || !(x->value.access == src)) continue;
        auto under = [&](int l) { return std::find(r.loops.begin(), r.loops.end(), l) != r.loops.end(); };
        if (under(outer_loop) && std::all_of(p.used.begin(), p.used.end(), under)) readers.push_back({r.node->id, r.index});
      }
    }
    for (const auto& [id, index] : readers) {
      Node* s = find_node(k, id);
      Op& mm = s->ops[index];
      Arg* mx = mm.arg(id == c.reader && index == c.reader_op ? c.param.c_str() : "x");
      mx->value.access = buffer_tile(k, buf, p.used, rows, cols);
      mx->value.origin = nullptr;
      if (c.implicit) {
        if (Arg* tx = mm.arg("transpose_x")) {
          tx->value = symbol("True");
        } else {
          mm.args.push_back(arg("transpose_x", symbol("True")));
        }
      }
      s->dirty = true;
    }
    if (!c.moves)
      for (int id : c.erased) erase_node(k, id);

    size_t at = 0;
    std::vector<Node>* block = parent_block(k.body, p.outer, at);
    block->insert(block->begin() + static_cast<long>(at), std::make_move_iterator(fill.begin()),
                  std::make_move_iterator(fill.end()));
    block->insert(block->begin() + static_cast<long>(at), declaration_node(k, buf));
  }
};

}  // namespace

std::unique_ptr<Transform> make_hoist_transpose() { return std::make_unique<HoistTranspose>(); }

}  // namespace loopnest
