// Tile size on the form: a loop whose iterations walk a tile axis in contiguous blocks is
// coarsened (each iteration does `factor` blocks: trip / factor, tiles `factor` times wider) or
// split (trip * factor, tiles `factor` times narrower). Legal when every access inside the loop
// follows the loop in one of three ways:
//   - contiguous: `c*i + a[c]` on one tensor dim (slices `i*c:(i+1)*c` and index grids alike);
//   - block-dim: `buf[..., i, ...]` of an on-chip buffer declared outside the loop whose every
//     access is in the loop and walks that block dim (the published style): the buffer is laid
//     out again, block dim / factor, the free dim carrying the tile axis * factor;
//   - a tile defined inside the loop, used whole: it grows with its producer;
// and every instruction grows along one tile axis, with loop-invariant operands broadcast along it
// (a [128, 1] bias). Reductions along that axis (also into a reduce_res along a free axis) and
// masks using the loop variable are refused; a matmul grows along its moving free axis, to 512,
// or along its output partitions (the stationary's free axis), to 128.
// The partition axis grows too, to 128 partitions: a GPU port's 64-row blocks become one
// 128-row block (same instruction count, each instruction on twice the partitions for the same
// time: trainium-performance, "instructions on fewer than 128 partitions"). Along it a 2-D
// transpose turns the growing axis into its output's free axis (both at most 128), a broadcast
// along partitions grows its shape, and reductions into a reduce_res follow, being per partition.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/dump.h"
#include "loopnest/ragged_window.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

constexpr int64_t kMaxFreeElems = 8192;    // a tile's free size after the change (32 KiB of fp32 per partition)
constexpr int64_t kMaxMatmulMoving = 512;  // moving free size of the Tensor Engine (one PSUM bank of fp32)
constexpr int64_t kMaxPartitions = 128;    // partitions of a tile; stationary free size and transposes too

struct Plan {
  int loop = -1;
  int64_t mul = 1, div = 1;  // sizes * mul / div; trip * div / mul
  // Accesses to change: (op ref, which access: -1 dst, else arg index) -> (dim, axis).
  struct Change {
    Node* node;
    size_t op;
    int which;
    int dim;
    bool contiguous;  // start coefficient scales too
  };
  std::vector<Change> changes;
  std::map<int, int> grown;           // inner tensor -> dim whose size scales
  std::map<int, std::pair<int, int>> relaid;  // block buffer -> (block dim, free dim)
  std::vector<Node*> views;           // view bindings inside the loop that change
  struct ShapeChange {
    Node* node;
    size_t op;
    int dim;
  };
  std::vector<ShapeChange> shapes;  // broadcast_to calls whose shape grows along a dim
  std::set<Node*> dirty;
};

Access* access_of(Op& op, int which) {
  if (which < 0) return op.dst ? &*op.dst : nullptr;
  Arg& a = op.args[static_cast<size_t>(which)];
  return a.value.kind == Operand::Kind::Tile ? &a.value.access : nullptr;
}

bool inside(const std::vector<int>& loops, int loop) { return std::find(loops.begin(), loops.end(), loop) != loops.end(); }

// The output axis an operand's tile axis `a` feeds, for the op classes whose axes correspond;
// -2 when it does not (the operand must not change), -1 when the class is not supported.
int output_axis(const Op& op, const std::string& param, int a) {
  switch (op.cls) {
    case OpClass::Elementwise: case OpClass::Activation: case OpClass::Copy: case OpClass::Load: case OpClass::Store:
    case OpClass::DmaCopy: case OpClass::Scan: case OpClass::Memset: case OpClass::Alloc:
      return a;
    case OpClass::Reduce: return a;  // checked against the reduced axes below
    case OpClass::Matmul:
      if (param == "dst") return a;
      // The stationary's free axis is the output's partition axis; the contraction axis (the
      // inputs' partitions) feeds none.
      if (op.api == "nisa.nc_matmul") {
        if (param == "moving") return a == 1 ? 1 : -2;
        if (param == "stationary") return a == 1 ? 0 : -2;
      }
      if (op.api == "nl.matmul") {
        if (param == "y") return a == 1 ? 1 : -2;
        if (param == "x") return a == (symbol_of(op, "transpose_x") == "True" ? 1 : 0) ? 0 : -2;
      }
      return a == 1 ? 1 : -2;
    case OpClass::Transpose:
      if (param == "dst") return a;
      return a == 0 ? 1 : a == 1 ? 0 : -1;
    case OpClass::Broadcast: return a;  // a one-partition source broadcasts along the growing axis
    default: return -1;
  }
}

class Coarsen : public Transform {
 public:
  std::string name() const override { return "tile_size"; }
  bool resizes_tiles() const override { return true; }
  std::string description() const override {
    return "change a loop's tile size: coarsen (fewer iterations over wider tiles: fewer, larger DMAs and "
           "instructions, less fixed cost) or split (narrower tiles that overlap better and fit on chip)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<int> loops = open_loop_ids(k);
    for (int id : loops) {
      Node* n = find_node(k, id);
      if (!n) continue;
      const Loop& l = k.loops.at(n->loop);
      auto trip = l.trip();
      // A loop stepping by its tile (`for start in range(0, n, 512)`: the variable is the element
      // offset) coarsens by its step, as a unit-step loop does by its trip.
      if (!trip || !l.start.is_constant() || l.start.constant() != 0 || l.step < 1) continue;
      if (l.step > 1 && *trip * l.step != l.stop.constant()) continue;  // a partial last tile
      std::vector<std::pair<int64_t, int64_t>> options;  // (mul, div)
      for (int64_t f : {int64_t(2), *trip})
        if (f > 1 && *trip % f == 0 && (options.empty() || options.back().first != f)) options.push_back({f, 1});
      // Narrower matmuls only lose (the moving free size is at most 512 already and every
      // instruction has a fixed cost): loops holding one are coarsened, never split.
      bool has_matmul = false;
      for_each_node(n->body, [&](const Node& x, const std::vector<int>&) {
        for (const auto& op : x.ops) has_matmul = has_matmul || op.cls == OpClass::Matmul;
      });
      if (!has_matmul) options.push_back({1, 2});
      for (auto [mul, div] : options) {
        Analysis an(k);
        auto plan = plan_seeded(k, an, *n, mul, div, false);
        // Row blocks grow to more partitions only: narrower ones only lose (the same instructions,
        // each on fewer partitions in the same time).
        const bool rows = !plan && mul > 1;
        if (rows) plan = plan_seeded(k, an, *n, mul, div, true);
        if (!plan) continue;
        std::string dir = mul > 1 ? "coarsen" : "split";
        int64_t factor = mul > 1 ? mul : div;
        std::map<std::string, std::string> params = {
            {"direction", dir}, {"factor", std::to_string(factor)}, {"loop", loop_signature(k, an, *n)}};
        if (rows) params["rows"] = "1";
        auto s = make_loop_site(k, an, *n,
                                rows ? fmt::format("coarsen `for {}` by {}: {} iterations of tiles on {}x the partitions",
                                                   l.var, factor, *trip / mul, factor)
                                     : fmt::format("{} `for {}` by {}: {} iterations of {} tiles", dir, l.var, factor,
                                                   *trip * div / mul, mul > 1 ? "wider" : "narrower"),
                                params);
        if (!s) continue;
        Plan p = std::move(*plan);
        if (sink(*s, [&k, p]() mutable { apply_plan(k, p); })) return true;
      }
      if (ragged_window_sites(k, *n, sink)) return true;
    }
    return false;
  }

 private:
  // "32x7x2>2": the trips of the loop's nest and the loop's position in it.
  static std::string loop_signature(const Kernel& k, const Analysis& an, const Node& loop) {
    for (const auto& r : an.ops)
      if (inside(r.loops, loop.loop)) {
        std::string trips;
        int depth = 0;
        for (size_t i = 0; i < r.loops.size(); ++i) {
          auto t = k.loops.at(r.loops[i]).trip();
          trips += (i ? "x" : "") + (t ? std::to_string(*t) : std::string("?"));
          if (r.loops[i] == loop.loop) depth = static_cast<int>(i);
          if (r.loops[i] == loop.loop) break;
        }
        return fmt::format("{}>{}", trips, depth);
      }
    return "?";
  }

  // Ops whose result's size is their own to choose: declarations, memsets and broadcasts of one
  // partition.
  static bool fresh(const Op& op) {
    return is_declaration(op) || op.cls == OpClass::Memset || op.cls == OpClass::Broadcast;
  }

  // Whether the tile is made whole (nl.zeros, nl.full, nl.ndarray, broadcast_to) in loop `l`.
  static bool declared_in_loop(const Kernel& k, const Analysis& an, int tensor, int l) {
    for (const OpRef* w : an.writers(k, tensor))
      if (fresh(w->op()) && inside(w->loops, l)) return true;
    return false;
  }

  // Whether an on-chip tile made before loop `l` by fresh ops only (a gamma row broadcast to the
  // block's rows once) is read in `l` alone and written nowhere else: it may grow with the loop's
  // tiles. (One written in the loop carries something across its iterations, the rows of one
  // block into the next: a wider tile would not sum them alike.)
  static bool fresh_before_loop(const Kernel& k, const Analysis& an, int tensor, int l) {
    const Tensor& t = k.tensor(tensor);
    if (!t.on_chip() || (t.role != TensorRole::Value && t.role != TensorRole::Buffer)) return false;
    bool made = false;
    for (const OpRef* w : an.writers(k, tensor)) {
      if (inside(w->loops, l) || !fresh(w->op())) return false;
      made = true;
    }
    for (const OpRef* r : an.readers(k, tensor))
      if (!inside(r->loops, l)) return false;
    return made;
  }

  // The dim of `a` (a whole access of its tensor) that carries tile axis `axis`; -1 when none or
  // the access is a part of it along that dim.
  static int whole_dim(const Kernel& k, const Access& a, int axis) {
    const Tensor& t = k.tensor(a.tensor);
    if (a.dims.size() != t.shape.size()) return -1;
    int dim = -1;
    for (size_t d = 0; d < a.dims.size(); ++d)
      for (const auto& term : a.dims[d].terms)
        if (term.axis == axis) dim = static_cast<int>(d);
    if (dim < 0) return -1;
    const DimIndex& dd = a.dims[static_cast<size_t>(dim)];
    if (dd.terms.size() != 1 || !(dd.start == IExpr(0)) || !(dd.terms[0].size == t.shape[static_cast<size_t>(dim)])) return -1;
    return dim;
  }

  static bool defined_inside(const Kernel& k, int tensor, const std::set<int>& inner_loops) {
    int s = k.tensor(tensor).scope_loop;
    return s >= 0 && inner_loops.count(s);
  }

  // make_plan, seeding the fresh tiles (declared in the loop, or made before it and read only
  // there) that its refusals name, one at a time.
  static std::optional<Plan> plan_seeded(Kernel& k, const Analysis& an, Node& loop_node, int64_t mul, int64_t div,
                                         bool rows) {
    std::map<int, int> seed;
    for (int tries = 0; tries < 16; ++tries) {
      std::optional<std::pair<int, int>> wanted;
      auto plan = make_plan(k, an, loop_node, mul, div, rows, seed, wanted);
      if (plan || !wanted) return plan;
      seed[wanted->first] = wanted->second;
    }
    return std::nullopt;
  }

  // `rows`: the loop walks row blocks, and the partition axis may grow (to 128) with what
  // follows it; else only free axes grow, as before partitions were taken.
  // `seed`: tiles declared in the loop (`acc = nl.zeros(...)`) that grow along the given dim from
  // their declaration on; a plan refused because such a tile is read before it grew names it in
  // `wanted`, and the caller tries again with it seeded.
  static std::optional<Plan> make_plan(Kernel& k, const Analysis& an, Node& loop_node, int64_t mul, int64_t div,
                                       bool rows, const std::map<int, int>& seed, std::optional<std::pair<int, int>>& wanted) {
    Plan p;
    p.loop = loop_node.loop;
    p.mul = mul, p.div = div;
    int l = loop_node.loop;
    const int64_t step = k.loops.at(l).step;
    if ((step * mul) % div) return std::nullopt;
    std::set<int> inner_loops = {l};
    for_each_node(loop_node.body, [&](const Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::Loop) inner_loops.insert(n.loop);
      if (n.frozen || (n.kind == NodeKind::If && !directive_block(n)) || n.kind == NodeKind::Inline)
        inner_loops.insert(-1000);  // refuse
    });
    if (inner_loops.count(-1000)) return std::nullopt;
    auto scaled = [&](const IExpr& e) -> std::optional<IExpr> {
      if (!e.is_constant()) return std::nullopt;
      int64_t v = e.constant() * mul;
      if (v % div) return std::nullopt;
      return IExpr(v / div);
    };
    // Seeded tiles made before the loop grow there: a broadcast's shape, a declaration's shape.
    for (const auto& [t, dim] : seed) {
      if (defined_inside(k, t, inner_loops)) continue;
      const Tensor& tensor = k.tensor(t);
      auto s = scaled(tensor.shape[static_cast<size_t>(dim)]);
      const int64_t limit = dim == tensor.partition_dim ? kMaxPartitions : kMaxFreeElems;
      if (!s || s->constant() > limit) return std::nullopt;
      for (const OpRef* w : an.writers(k, t)) {
        if (inside(w->loops, l) || w->op().cls != OpClass::Broadcast) continue;
        const Arg* shape = w->op().arg("shape");
        if (!shape || shape->value.kind != Operand::Kind::Shape || shape->value.shape.size() != tensor.shape.size() ||
            !scaled(shape->value.shape[static_cast<size_t>(dim)]))
          return std::nullopt;
        p.shapes.push_back({w->node, w->index, dim});
        p.dirty.insert(w->node);
      }
      p.grown[t] = dim;
    }
    // Block buffers declared outside the loop and walked by it: every access must be inside it.
    std::map<int, int> block_dim;  // buffer -> dim indexed by the loop variable
    std::map<int, int> grow_axis;  // per op (order) -> output axis that grows
    bool any = false;
    for (const OpRef& r : an.ops) {
      if (!inside(r.loops, l)) continue;
      Op& op = r.op();
      if (mask_uses(op, l)) return std::nullopt;
      if (index_operand_uses(op, l)) return std::nullopt;  // its value per iteration would not follow
      std::optional<int> axis;
      auto agree = [&](int a) {
        if (axis && *axis != a) return false;
        axis = a;
        return true;
      };
      struct Item {
        int which;
        std::string param;
        Access* acc;
      };
      std::vector<Item> items;
      // A declaration (or partition broadcast) of a seeded tile makes it grown; it follows the
      // loop along that dim.
      if (fresh(op) && op.dst && seed.count(op.dst->tensor)) {
        // Written whole along that dim (a memset of a part would become one of the whole).
        const int dim = seed.at(op.dst->tensor);
        const DimIndex& d = op.dst->dims[static_cast<size_t>(dim)];
        if (d.terms.size() != 1 || whole_dim(k, *op.dst, d.terms[0].axis) != dim) return std::nullopt;
        p.grown[op.dst->tensor] = dim;
        if (op.cls == OpClass::Alloc) continue;  // no work: nothing to size
        agree(d.terms[0].axis);
      }
      if (op.dst && op.cls != OpClass::Alloc) items.push_back({-1, "dst", &*op.dst});
      for (size_t i = 0; i < op.args.size(); ++i)
        if (op.args[i].value.kind == Operand::Kind::Tile) items.push_back({static_cast<int>(i), op.args[i].name, &op.args[i].value.access});
      // Pass 1: what the accesses that follow the loop say about the growing axis.
      for (auto& it : items) {
        Access& a = *it.acc;
        const Tensor& t = k.tensor(a.tensor);
        int used_dim = -1, uses = 0;
        if (size_uses_loop(a, l)) return std::nullopt;
        for (size_t d = 0; d < a.dims.size(); ++d)
          if (a.dims[d].start.uses(l)) used_dim = static_cast<int>(d), ++uses;
        if (uses == 0) continue;
        if (uses > 1) return std::nullopt;
        const DimIndex& di = a.dims[static_cast<size_t>(used_dim)];
        int64_t c = di.start.coeff(l);
        if (c == 0 || (di.start - IExpr::var(l) * c).uses(l)) return std::nullopt;
        if (di.terms.size() == 1 && di.terms[0].stride == 1 && di.terms[0].size == IExpr(c * step)) {
          int oa = output_axis(op, it.param, di.terms[0].axis);
          if (oa < 0 || !agree(oa)) return std::nullopt;
          p.changes.push_back({r.node, r.index, it.which, used_dim, true});
          any = true;
          continue;
        }
        // Block-dim access of an on-chip buffer declared outside the loop.
        if (di.terms.empty() && c == 1 && step == 1 && t.on_chip() && t.role == TensorRole::Buffer && !defined_inside(k, t.id, inner_loops) &&
            used_dim < t.partition_dim) {
          auto trip = k.loops.at(l).trip();
          if (!trip || !(t.shape[static_cast<size_t>(used_dim)] == IExpr(*trip))) return std::nullopt;
          if (block_dim.count(t.id) && block_dim[t.id] != used_dim) return std::nullopt;
          block_dim[t.id] = used_dim;
          continue;
        }
        return std::nullopt;
      }
      // Buffers an earlier op of the loop laid out again: their growing free dim names the axis.
      for (auto& it : items) {
        auto rel = p.relaid.find(it.acc->tensor);
        if (rel == p.relaid.end()) continue;
        const DimIndex& fd = it.acc->dims[static_cast<size_t>(rel->second.second)];
        if (fd.terms.size() != 1) return std::nullopt;
        int oa = output_axis(op, it.param, fd.terms[0].axis);
        if (oa < 0 || !agree(oa)) return std::nullopt;
      }
      // Tiles defined inside the loop, already grown by their producer: read whole along the dim
      // that grows. A part of it (`h[:, 127:128]`, a scan's last column carried to the next
      // chunk) names a place in the narrow tile that is another place in the wide one.
      for (auto& it : items) {
        if (it.which < 0) continue;
        auto g = p.grown.find(it.acc->tensor);
        if (g == p.grown.end()) continue;
        const Tensor& t = k.tensor(it.acc->tensor);
        if (it.acc->dims.size() != t.shape.size()) return std::nullopt;
        const DimIndex& gd = it.acc->dims[static_cast<size_t>(g->second)];
        if (gd.terms.size() != 1 || !(gd.start == IExpr(0)) || !(gd.terms[0].size == t.shape[static_cast<size_t>(g->second)]))
          return std::nullopt;
        int oa = output_axis(op, it.param, gd.terms[0].axis);
        if (oa < 0 || !agree(oa)) return std::nullopt;
      }
      if (!axis) {
        // Nothing of this op follows the loop: it must not touch what grows, and it runs `factor`
        // times less often, so it may write only what each iteration makes afresh (a tile
        // declared in the loop): an update of state kept across iterations (`acc = acc * 2` on a
        // tile from before the loop) or an HBM write would happen fewer times.
        for (auto& it : items) {
          if (p.grown.count(it.acc->tensor) || block_dim.count(it.acc->tensor)) return std::nullopt;
          const bool writes = it.which < 0 || op.args[static_cast<size_t>(it.which)].output;
          if (writes && !defined_inside(k, it.acc->tensor, inner_loops)) return std::nullopt;
        }
        continue;
      }
      if (op.cls == OpClass::Reduce) {
        const Operand* ax = op.arg("axis") ? &op.arg("axis")->value : nullptr;
        if (!ax || ax->kind == Operand::Kind::None) return std::nullopt;
        for (const auto& x : ax->shape)
          if (!x.is_constant() || x.constant() <= *axis) return std::nullopt;
        if (ax->kind == Operand::Kind::Number && ax->number <= *axis) return std::nullopt;
      }
      const bool partitions = *axis == 0;
      if (op.cls == OpClass::Other || (partitions && !rows)) return std::nullopt;
      // Transposes and broadcast_to follow only where the partition axis grows (a loop over row
      // blocks): a 2-D transpose turns it into its output's free axis, a broadcast along
      // partitions grows its shape's first dim.
      if ((op.cls == OpClass::Transpose && !rows) || (op.cls == OpClass::Broadcast && !partitions)) return std::nullopt;
      if (op.cls == OpClass::Transpose && (!op.dst || op.dst->tile_shape().size() != 2)) return std::nullopt;
      if (op.cls == OpClass::Broadcast) {
        const Arg* shape = op.arg("shape");
        if (!shape || shape->value.kind != Operand::Kind::Shape || shape->value.shape.empty() ||
            !scaled(shape->value.shape[0]))
          return std::nullopt;
        p.shapes.push_back({r.node, r.index, 0});
      }
      // A scan runs along the last free axis (nki-language.md 8.3, tensor_tensor_scan): a wider
      // tile continues one recurrence through blocks that each started their own.
      if (op.cls == OpClass::Scan && (!op.dst || static_cast<int>(op.dst->tile_shape().size()) == *axis + 1))
        return std::nullopt;
      // A reduction into an output operand (activation's / tensor_scalar_reduce's reduce_res) runs
      // along the free axes: a wider tile sums `factor` blocks into one where each block had its own.
      // Along partitions each partition keeps its own: the output grows with the op.
      for (const auto& a : op.args)
        if (a.output && a.value.kind == Operand::Kind::Tile && !partitions) return std::nullopt;
      // Pass 2: every other access grows along the axis or is broadcast along it.
      for (auto& it : items) {
        Access& a = *it.acc;
        bool follows = false;
        for (const auto& d : a.dims) follows = follows || d.start.uses(l);
        int oa_from = -1;
        if (follows) {
          if (block_dim.count(a.tensor)) {
            // The free dim carrying the growing axis, whole, grows; the block dim shrinks.
            const Tensor& t = k.tensor(a.tensor);
            int free_dim = -1;
            for (size_t d = 0; d < a.dims.size(); ++d)
              for (const auto& term : a.dims[d].terms)
                if (output_axis(op, it.param, term.axis) == *axis) free_dim = static_cast<int>(d);
            if (free_dim <= t.partition_dim) return std::nullopt;
            const DimIndex& fd = a.dims[static_cast<size_t>(free_dim)];
            if (fd.terms.size() != 1 || fd.terms[0].stride != 1 || !(fd.start == IExpr(0)) ||
                !(fd.terms[0].size == t.shape[static_cast<size_t>(free_dim)]))
              return std::nullopt;
            auto rel = p.relaid.find(a.tensor);
            if (rel != p.relaid.end() && rel->second.second != free_dim) return std::nullopt;
            p.relaid[a.tensor] = {block_dim[a.tensor], free_dim};
          }
          continue;
        }
        const Tensor& t = k.tensor(a.tensor);
        std::vector<IExpr> shape = a.tile_shape();
        // Which of this operand's axes feeds the growing output axis.
        for (size_t ax = 0; ax < shape.size(); ++ax)
          if (output_axis(op, it.param, static_cast<int>(ax)) == *axis) oa_from = static_cast<int>(ax);
        if (oa_from < 0) continue;  // an operand whose axes do not follow (matmul stationary)
        bool broadcast = shape[static_cast<size_t>(oa_from)] == IExpr(1);
        if (p.grown.count(a.tensor)) continue;
        if (defined_inside(k, a.tensor, inner_loops) && (t.role == TensorRole::Value || t.role == TensorRole::Buffer)) {
          if (broadcast && it.which >= 0) continue;
          // Grows with its producer: only whole accesses, the growing axis one of its dims.
          const int dim = whole_dim(k, a, oa_from);
          if (dim < 0) return std::nullopt;
          const bool written = it.which < 0 || op.args[static_cast<size_t>(it.which)].output;
          if (!written) {  // read before anything in the loop grew it: its declaration may grow it
            if (declared_in_loop(k, an, a.tensor, l) && !seed.count(a.tensor)) wanted = std::make_pair(a.tensor, dim);
            return std::nullopt;
          }
          p.grown[a.tensor] = dim;
          continue;
        }
        if (broadcast) {
          // Broadcast along the growing axis, it must be the same in the iterations merged: a
          // tile the loop writes (`h = a[:, t] * h + b[:, t]`, a recurrence carried from one
          // iteration to the next) is not, and written by this op it would grow.
          const bool written = it.which < 0 || op.args[static_cast<size_t>(it.which)].output;
          if (written) return std::nullopt;
          for (const OpRef* w : an.writers(k, storage_of(k, a.tensor)))
            if (inside(w->loops, l)) return std::nullopt;
        }
        if (!broadcast) {
          const int dim = whole_dim(k, a, oa_from);
          if (dim >= 0 && !seed.count(a.tensor) && fresh_before_loop(k, an, a.tensor, l)) wanted = std::make_pair(a.tensor, dim);
          return std::nullopt;
        }
      }
      // Sizes after the change. What grows along partitions (and both sides of a transpose, the
      // stationary's free axis) stays within 128; a free axis within a tile's free size, a
      // matmul's moving one within a PSUM bank.
      const bool within_partitions = partitions || op.cls == OpClass::Transpose;
      if (!within_partitions && op.cls == OpClass::Matmul) {
        for (auto& it : items) {
          std::vector<IExpr> shape = it.acc->tile_shape();
          if (shape.size() < 2) continue;
          auto s = scaled(shape[1]);
          if ((it.param == "moving" || it.param == "y" || it.which < 0) && (!s || s->constant() > kMaxMatmulMoving))
            return std::nullopt;
        }
      }
      const int64_t limit = within_partitions ? kMaxPartitions : kMaxFreeElems;
      for (auto& it : items) {
        std::vector<IExpr> shape = it.acc->tile_shape();
        for (size_t ax = 0; ax < shape.size(); ++ax) {
          if (output_axis(op, it.param, static_cast<int>(ax)) != *axis || shape[ax] == IExpr(1)) continue;
          auto s = scaled(shape[ax]);
          if (!s || s->constant() < 1 || s->constant() > limit) return std::nullopt;
        }
      }
      p.dirty.insert(r.node);
    }
    if (!any) return std::nullopt;
    // Every access of a relaid buffer is inside the loop and walks the block dim.
    for (auto& [buf, dims] : p.relaid) {
      // (Its declaration, `nl.zeros((16, 32, 8, par_dim(128), 512), ...)` up front, is laid out again too.)
      for (const OpRef* r : an.readers(k, buf))
        if (!inside(r->loops, l)) return std::nullopt;
      for (const OpRef* r : an.writers(k, buf))
        if (!inside(r->loops, l) && !is_declaration(r->op())) return std::nullopt;
      const Tensor& t = k.tensor(buf);
      if (!scaled(t.shape[static_cast<size_t>(dims.second)])) return std::nullopt;
      int64_t blocks = t.shape[static_cast<size_t>(dims.first)].constant();
      if ((blocks * div) % mul) return std::nullopt;
    }
    for (auto& [buf, dim] : block_dim)
      if (!p.relaid.count(buf)) return std::nullopt;
    for (auto& [t, dim] : p.grown)
      if (!scaled(k.tensor(t).shape[static_cast<size_t>(dim)])) return std::nullopt;
    // View bindings in the loop whose region follows it change with it.
    std::function<void(std::vector<Node>&)> views = [&](std::vector<Node>& b) {
      for (auto& n : b) {
        if (n.kind == NodeKind::Meta && n.meta == MetaKind::View && n.view && uses_loop(*n.view, l)) p.views.push_back(&n);
        views(n.body);
      }
    };
    views(loop_node.body);
    for (Node* v : p.views) {
      const Access& a = *v->view;
      bool ok = false;
      for (const auto& d : a.dims)
        if (d.start.uses(l) && d.terms.size() == 1 && d.terms[0].size == IExpr(d.start.coeff(l) * step)) ok = true;
      if (!ok) return std::nullopt;
    }
    return p;
  }

  // A unit-step loop's variable counts tiles, so its coefficient scales with the tile; a stepped
  // loop's variable is already the element offset (its step scales instead).
  static void scale_dim(DimIndex& d, int loop, int64_t mul, int64_t div, bool contiguous) {
    if (contiguous) {
      int64_t c = d.start.coeff(loop);
      d.start = d.start - IExpr::var(loop) * c + IExpr::var(loop) * (c * mul / div);
    }
    for (auto& t : d.terms) t.size = IExpr(t.size.constant() * mul / div);
  }

  // Whether node `n` is the author's `name = ...` of the whole tile `a` names (`acc = acc + t`).
  static bool assigned_by_name(const Kernel& k, const Node& n, const Access& a) {
    if (!n.origin || n.origin->kind != nki::StmtKind::Assign || !accesses_whole(k, a)) return false;
    const auto& s = static_cast<const nki::AssignStmt&>(*n.origin);
    return s.targets.size() == 1 && s.targets[0]->kind == nki::ExprKind::Name &&
           static_cast<const nki::NameExpr&>(*s.targets[0]).id == k.tensor(a.tensor).name;
  }

  static void apply_plan(Kernel& k, Plan& p) {
    Loop& loop = k.loops.at(p.loop);
    const bool stepped = loop.step != 1;
    if (stepped)
      loop.step = loop.step * p.mul / p.div;
    else
      loop.stop = IExpr(loop.stop.constant() * p.div / p.mul);
    if (Node* n = loop_node(k, p.loop)) {
      n->dirty = true;
      // A bound the author named (`for cb in nl.affine_range(n_cblk)`) stays named: `n_cblk // 2`.
      if (!stepped && p.div == 1 && n->origin && n->origin->kind == nki::StmtKind::For) {
        const auto& f = static_cast<const nki::ForStmt&>(*n->origin);
        const auto* call = f.iter && f.iter->kind == nki::ExprKind::Call ? static_cast<const nki::CallExpr*>(f.iter.get()) : nullptr;
        if (call && call->args.size() == 1 && call->args[0]->kind == nki::ExprKind::Name)
          n->patch = authored_header(*n, loop.var, p.mul);
      }
    }
    // Names bound to views that change keep naming them: operands spelled by such a name stay.
    std::map<std::string, Access> old_views;
    for (Node* v : p.views) old_views[v->binds.empty() ? "" : v->binds[0]] = *v->view;
    auto keep_origin = [&](const Operand& o) {
      if (!o.origin || o.origin->kind != nki::ExprKind::Name) return false;
      auto it = old_views.find(static_cast<const nki::NameExpr&>(*o.origin).id);
      return it != old_views.end() && it->second == o.access;
    };
    for (auto& c : p.changes) {
      Op& op = c.node->ops[c.op];
      Access* a = access_of(op, c.which);
      if (c.which >= 0 && !keep_origin(op.args[static_cast<size_t>(c.which)].value)) op.args[static_cast<size_t>(c.which)].value.origin = nullptr;
      if (c.which < 0) op.dst_origin = nullptr;
      scale_dim(a->dims[static_cast<size_t>(c.dim)], p.loop, p.mul, p.div, !stepped);
      c.node->dirty = true;
    }
    for (Node* v : p.views) {
      for (auto& d : v->view->dims)
        if (d.start.uses(p.loop)) scale_dim(d, p.loop, p.mul, p.div, !stepped);
      v->dirty = true;
    }
    for (auto& [node, index, dim] : p.shapes) {
      Operand& shape = node->ops[index].arg("shape")->value;
      IExpr& size = shape.shape[static_cast<size_t>(dim)];
      size = IExpr(size.constant() * p.mul / p.div);
      shape.origin = nullptr;
      node->dirty = true;
    }
    // Tensors that change shape, and every access of them.
    std::map<int, int> grow = p.grown;  // tensor -> dim scaled by mul/div
    for (auto& [buf, dims] : p.relaid) grow[buf] = dims.second;
    for (auto& [t, dim] : grow) {
      Tensor& tensor = k.tensor(t);
      tensor.shape[static_cast<size_t>(dim)] = IExpr(tensor.shape[static_cast<size_t>(dim)].constant() * p.mul / p.div);
      if (p.relaid.count(t)) {
        int bd = p.relaid[t].first;
        tensor.shape[static_cast<size_t>(bd)] = IExpr(tensor.shape[static_cast<size_t>(bd)].constant() * p.div / p.mul);
      }
    }
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      for (auto& op : n.ops) {
        // A declaration of a tensor that changes shape declares the new shape.
        const ApiSpec* spec = find_api(op.api);
        if (spec && spec->creates && op.dst && grow.count(op.dst->tensor)) {
          const Tensor& t = k.tensor(op.dst->tensor);
          op.dst = whole_of(k, t.id);
          if (Arg* s = op.arg("shape"); s && s->value.kind == Operand::Kind::Shape) s->value.shape = t.shape;
          n.dirty = true;
          continue;
        }
        auto fix = [&](Access& a, const nki::Expr** origin) {
          auto g = grow.find(a.tensor);
          if (g == grow.end()) return;
          DimIndex& d = a.dims[static_cast<size_t>(g->second)];
          for (auto& t : d.terms) t.size = k.tensor(a.tensor).shape[static_cast<size_t>(g->second)];
          // A tile named whole (`acc`, `h`) keeps its text: the statement reads as written.
          const bool by_name = origin && *origin && (*origin)->kind == nki::ExprKind::Name && accesses_whole(k, a);
          if (by_name || (origin == &op.dst_origin && !*origin && assigned_by_name(k, n, a))) return;
          // An inner call's result (written by it, read by the statement's own operation) is that call
          // in the text.
          if (k.tensor(a.tensor).name.empty() &&
              std::any_of(n.ops.begin(), n.ops.end(), [&](const Op& o) { return o.result == a.tensor; }))
            return;
          if (origin) *origin = nullptr;
          n.dirty = true;
        };
        if (op.dst) fix(*op.dst, &op.dst_origin);
        for (auto& arg : op.args) {
          if (arg.value.kind == Operand::Kind::Tile) fix(arg.value.access, &arg.value.origin);
          if (arg.name == "shape" && op.dst && grow.count(op.dst->tensor) && find_api(op.api) && find_api(op.api)->creates)
            arg.value.origin = nullptr;
        }
      }
    });
  }
};

}  // namespace

std::unique_ptr<Transform> make_coarsen() { return std::make_unique<Coarsen>(); }

}  // namespace loopnest
