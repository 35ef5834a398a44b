// Free size of a nested column block on the form: a loop `n` whose iterations walk blocks of
// columns that inner loops cut again (`rhs[k, :, 1024*n + a[1024]]` loaded once per block, the
// block's 512-column halves `512*h + a[512]` multiplied and stored) changes its block: half as many
// columns per iteration (twice the trip) or twice as many (half the trip). A smaller block keeps
// a column block resident while the rows stream through it; a larger one cuts fixed costs.
//
// Legality on the form, whatever the style: every index that follows `n` is either
//   - contiguous: `c*n + rest` where rest's pieces (inner loop variables with their strides, tile
//     axes) tile exactly [0, c) (slices, index grids, `col` bindings alike): its outermost piece
//     is halved (doubled) and c with it;
//   - a block dim of an on-chip buffer declared up front (`v6[i0, ...]`, the published style): the
//     dim's size changes inversely with the trip.
// A piece that changes propagates: a loop's trip changes for every index using it, a tile axis
// for every operand of its instruction, an on-chip tensor's dim for every access of it; each such
// index must have the changed piece as its outermost piece. Anything else (masks, bounds or
// conditions using a changed loop, views, transposes, reductions along the axis, partition axes,
// HBM indices that do not follow `n`) refuses the site. Only nested blocks are sites here (some
// inner loop's trip changes); a loop walking one tile axis is tile_size's (coarsen.cpp).
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/param_size.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

constexpr int64_t kMaxFreeElems = 8192;    // a tile's free size after the change (32 KiB of fp32 per partition)
constexpr int64_t kMaxMatmulMoving = 512;  // moving free size of the Tensor Engine (one PSUM bank of fp32)
constexpr int64_t kMinBlock = 128;         // a block narrower than the partition count is not worth a site

// One operand of one operation: -1 its destination, else the index of a tile argument.
struct AccessRef {
  Node* node = nullptr;
  size_t op = 0;
  int which = -1;
  std::vector<int> loops;  // enclosing loops, outermost first
  Access& access() const {
    Op& o = node->ops[op];
    return which < 0 ? *o.dst : o.args[static_cast<size_t>(which)].value.access;
  }
  const std::string& param() const {
    static const std::string dst = "dst";
    return which < 0 ? dst : node->ops[op].args[static_cast<size_t>(which)].name;
  }
};

// A piece of a dim index below the block: an inner loop's variable or a tile axis.
struct Piece {
  bool axis = false;
  int id = -1;  // loop id or axis
  int64_t stride = 1, extent = 1;
};

// The axis group an operand's tile axis belongs to: operands of one group share their axes (the
// elementwise case); -1 when the axis must not change (a matmul's contraction, a stationary
// operand's axes, instructions whose axes do not correspond).
int axis_group(const Op& op, const std::string& param, int axis) {
  switch (op.cls) {
    case OpClass::Elementwise: case OpClass::Activation: case OpClass::Copy: case OpClass::Load: case OpClass::Store:
    case OpClass::DmaCopy: case OpClass::Memset: case OpClass::Alloc:
      return axis;
    case OpClass::Matmul:
      // nl.matmul(x, y): y [K, N] is the moving operand whatever transpose_x says of x.
      if (op.api == "nl.matmul") return (param == "y" || param == "dst") && axis == 1 ? 1 : -1;
      if (op.api != "nisa.nc_matmul") return -1;
      return (param == "moving" || param == "dst") && axis == 1 ? 1 : -1;
    default:
      return -1;
  }
}

bool inside(const std::vector<int>& loops, int loop) { return std::find(loops.begin(), loops.end(), loop) != loops.end(); }

struct Plan {
  int loop = -1;
  int64_t mul = 1, div = 1;  // pieces * mul / div; the loop's trip * div / mul
  int64_t block = 0;          // the largest coefficient of the loop variable (columns per iteration)
  std::set<int> loops;                         // inner loops whose trip changes
  std::set<std::pair<Op*, int>> axes;          // (instruction, axis group) whose size changes
  std::set<std::pair<int, int>> dims;          // on-chip (tensor, dim) whose size changes
  std::set<std::pair<int, int>> block_dims;    // (buffer, dim) indexed by the loop: size * div / mul
  std::map<std::pair<Access*, int>, int> hit;  // index already changed -> how (piece key)
  std::vector<std::pair<AccessRef, int>> contiguous;  // (access, dim) whose coefficient of the loop scales
  std::vector<std::string> reprint_vars;  // loop variables whose bindings are dropped (drop_stale_bindings)
  int node = -1;                          // the loop's node
};

class FreeSize : public Transform {
 public:
  std::string name() const override { return "free_size"; }
  bool resizes_tiles() const override { return true; }
  std::string description() const override {
    return "change the column block of a loop whose blocks inner loops cut again: fewer columns per iteration keep "
           "the block resident while rows stream through it, more cut fixed costs";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    for (int id : open_loop_ids(k)) {
      Node* n = find_node(k, id);
      if (!n) continue;
      const Loop& l = k.loops.at(n->loop);
      auto trip = l.trip();
      if (!trip || !(l.start == IExpr(0)) || l.step != 1) continue;
      // The move merges neighbouring iterations: they may depend on each other through a running
      // sum (`acc[...] = nl.add(acc[...], o_ps)` in a sequential loop), which it regroups
      // (sums_regroup), and through nothing else.
      std::set<int> sums = summed_carries(k, n->loop);
      if (!independent_iterations(k, n->loop) && !iterations_commute(k, n->loop, sums)) continue;
      for (auto [mul, div] : {std::pair<int64_t, int64_t>{1, 2}, {2, 1}}) {
        auto plan = make_plan(k, *n, mul, div);
        if (!plan || lists_change(k, *plan) || !sums_regroup(k, *n, *plan, sums)) continue;
        int64_t to = plan->block * mul / div;
        Analysis an(k);
        auto s = make_loop_site(k, an, *n,
                                fmt::format("{} columns per iteration of `for {}` instead of {} ({} iterations)", to,
                                            l.var, plan->block, *trip * div / mul),
                                {{"from", std::to_string(plan->block)}, {"value", std::to_string(to)}});
        if (!s) continue;
        Plan p = std::move(*plan);
        if (sink(*s, [&k, p]() mutable { apply_plan(k, p); })) return true;
      }
    }
    // A kernel constant that only divides a size (`T // F`) is no free_size site of its own: on 16 of
    // 72 held-out kernels it added quarter / half sites of matmul chunk widths (`N_CHUNK = 512`)
    // the search would draw unmeasured; fill_partitions widens through it where that fills.
    return visit_parameter_sizes(k, sink, /*dividing_constants=*/false);
  }

 private:
  static std::vector<AccessRef> all_accesses(Kernel& k) {
    std::vector<AccessRef> out;
    for_each_node(k.body, [&](Node& n, const std::vector<int>& loops) {
      std::vector<int> chain = loops;
      if (n.kind == NodeKind::Loop && !chain.empty() && chain.back() == n.loop) chain.pop_back();
      for (size_t i = 0; i < n.ops.size(); ++i) {
        Op& op = n.ops[i];
        if (op.dst) out.push_back({&n, i, -1, chain});
        for (size_t a = 0; a < op.args.size(); ++a)
          if (op.args[a].value.kind == Operand::Kind::Tile) out.push_back({&n, i, static_cast<int>(a), chain});
      }
    });
    return out;
  }

  // The pieces of dim index `d` below the block (inner loops of `inner`, tile axes), outermost
  // last, when they tile [0, span) exactly; nullopt otherwise. Loops outside give the offset.
  static std::optional<std::vector<Piece>> pieces(const Kernel& k, const DimIndex& d, int loop, const std::set<int>& inner,
                                                  int64_t& span) {
    if (!d.start.is_affine()) return std::nullopt;
    std::vector<Piece> ps;
    for (int v : d.start.vars()) {
      if (v == loop || !inner.count(v)) continue;
      const Loop& l = k.loops.at(v);
      auto t = l.trip();
      if (!t || !(l.start == IExpr(0)) || l.step != 1) return std::nullopt;
      if (*t > 1) ps.push_back({false, v, d.start.coeff(v), *t});
    }
    for (const auto& t : d.terms) {
      if (!t.affine() || !t.size.is_constant()) return std::nullopt;
      if (t.size.constant() > 1) ps.push_back({true, t.axis, t.stride, t.size.constant()});
    }
    std::sort(ps.begin(), ps.end(), [](const Piece& a, const Piece& b) { return a.stride < b.stride; });
    span = 1;
    for (const auto& p : ps) {
      if (p.stride != span) return std::nullopt;
      span *= p.extent;
    }
    return ps;
  }

  // Whether loop variable `v` decides something in `body` besides indices: a condition, a mask, an
  // index operand (`range_start=c * P`).
  static bool controls(const std::vector<Node>& body, int v) {
    bool used = false;
    for_each_node(body, [&](const Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::If && (n.cond_l.uses(v) || n.cond_r.uses(v))) used = true;
      for (const auto& op : n.ops) {
        if (mask_uses(op, v) || index_operand_uses(op, v)) used = true;
      }
    });
    return used;
  }

  static std::optional<Plan> make_plan(Kernel& k, Node& loop_node, int64_t mul, int64_t div) {
    Plan p;
    p.loop = loop_node.loop, p.mul = mul, p.div = div;
    const int l = loop_node.loop;
    const int64_t trip = *k.loops.at(l).trip();
    if (trip * div % mul) return std::nullopt;
    std::set<int> inner;
    bool bad = false;
    for_each_node(loop_node.body, [&](const Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::Loop) inner.insert(n.loop);
      if (n.frozen || n.kind == NodeKind::Inline) bad = true;
    });
    if (bad || controls(loop_node.body, l)) return std::nullopt;
    std::vector<AccessRef> accesses = all_accesses(k);
    std::vector<std::pair<int, int>> todo_dims;  // (tensor, dim)
    std::vector<int> todo_loops;
    std::vector<std::pair<Op*, int>> todo_axes;
    // An index's span changes by its outermost piece: record it (refusing a second, different way).
    auto change = [&](const AccessRef& r, int dim, const std::vector<Piece>& ps) -> bool {
      if (ps.empty()) return false;
      const Piece& out = ps.back();
      if ((out.extent * mul) % div) return false;
      int key = out.axis ? -1 - out.id : out.id;
      auto at = p.hit.find({&r.access(), dim});
      if (at != p.hit.end()) return at->second == key;
      p.hit[{&r.access(), dim}] = key;
      if (out.axis) {
        Op& op = r.node->ops[r.op];
        int g = axis_group(op, r.param(), out.id);
        if (g <= 0) return false;  // axis 0: the partition axis
        if (p.axes.insert({&op, g}).second) todo_axes.push_back({&op, g});
      } else if (p.loops.insert(out.id).second) {
        todo_loops.push_back(out.id);
      }
      return true;
    };
    // Whether (access, dim), whose span changes, is consistent: it follows the loop (contiguous,
    // handled from the start), or it spans a whole dim of an on-chip tensor, which changes size.
    auto span_changes = [&](const AccessRef& r, int dim) -> bool {
      const Access& a = r.access();
      const DimIndex& d = a.dims[static_cast<size_t>(dim)];
      if (d.start.uses(l)) return p.hit.count({&r.access(), dim}) > 0;
      const Tensor& t = k.tensor(a.tensor);
      if (!t.on_chip() || t.role == TensorRole::View || t.base >= 0 || dim == t.partition_dim) return false;
      int64_t span = 0;
      auto ps = pieces(k, d, l, inner, span);
      if (!ps || !t.shape[static_cast<size_t>(dim)].is_constant() || span != t.shape[static_cast<size_t>(dim)].constant())
        return false;
      if (p.dims.insert({a.tensor, dim}).second) todo_dims.push_back({a.tensor, dim});
      return change(r, dim, *ps);
    };
    // The start: every index that follows the loop.
    bool any_contiguous = false;
    for (const AccessRef& r : accesses) {
      Access& a = r.access();
      if (size_uses_loop(a, l)) return std::nullopt;
      for (size_t d = 0; d < a.dims.size(); ++d) {
        const DimIndex& di = a.dims[d];
        if (!di.start.uses(l)) continue;
        if (!inside(r.loops, l)) return std::nullopt;
        int64_t c = di.start.coeff(l);
        if (c <= 0 || (di.start - IExpr::var(l) * c).uses(l)) return std::nullopt;
        const Tensor& t = k.tensor(a.tensor);
        if (c == 1 && di.terms.empty() && t.on_chip() && t.role == TensorRole::Buffer && t.base < 0 &&
            static_cast<int>(d) < t.partition_dim && t.scope_loop != l && !inner.count(t.scope_loop) &&
            t.shape[d] == IExpr(trip) && (di.start - IExpr::var(l)).vars().empty()) {
          p.block_dims.insert({a.tensor, static_cast<int>(d)});
          continue;
        }
        int64_t span = 0;
        auto ps = pieces(k, di, l, inner, span);
        if (!ps || span != c || !change(r, static_cast<int>(d), *ps)) return std::nullopt;
        p.contiguous.push_back({r, static_cast<int>(d)});
        p.block = std::max(p.block, c);
        any_contiguous = true;
      }
    }
    if (!any_contiguous || p.block * mul / div < kMinBlock || p.block * mul / div > kMaxFreeElems) return std::nullopt;
    // Block dims: every access of the buffer indexes that dim by the loop variable alone.
    for (auto [t, dim] : p.block_dims)
      for (const AccessRef& r : accesses) {
        if (r.access().tensor != t) continue;
        const DimIndex& di = r.access().dims[static_cast<size_t>(dim)];
        bool declaration = r.which < 0 && find_api(r.node->ops[r.op].api) && find_api(r.node->ops[r.op].api)->creates;
        if (!declaration && !(di.start == IExpr::var(l) && di.terms.empty())) return std::nullopt;
      }
    // Propagate until nothing new changes.
    while (!todo_dims.empty() || !todo_loops.empty() || !todo_axes.empty()) {
      if (!todo_loops.empty()) {
        int v = todo_loops.back();
        todo_loops.pop_back();
        if (!inner.count(v)) return std::nullopt;
        for (const auto& [id, other] : k.loops)
          if (other.start.uses(v) || other.stop.uses(v)) return std::nullopt;
        if (controls(loop_node.body, v)) return std::nullopt;
        for (const AccessRef& r : accesses) {
          const Access& a = r.access();
          for (size_t d = 0; d < a.dims.size(); ++d) {
            if (!a.dims[d].start.uses(v)) continue;
            if (!span_changes(r, static_cast<int>(d))) return std::nullopt;
            if (p.hit.at({&r.access(), static_cast<int>(d)}) != v) return std::nullopt;
          }
        }
        continue;
      }
      if (!todo_axes.empty()) {
        auto [op, g] = todo_axes.back();
        todo_axes.pop_back();
        // A mask may bound other axes (the rows of a ragged last tile), not the one that changes.
        for (const auto& c : op->mask)
          for (const auto& [axis, coeff] : c.axes)
            if (coeff != 0 && axis_group(*op, "dst", axis) == g) return std::nullopt;
        for (const AccessRef& r : accesses) {
          if (&r.node->ops[r.op] != op) continue;
          const Access& a = r.access();
          for (size_t d = 0; d < a.dims.size(); ++d)
            for (const auto& t : a.dims[d].terms) {
              if (axis_group(*op, r.param(), t.axis) != g || !t.size.is_constant() || t.size.constant() == 1) continue;
              int64_t to = t.size.constant() * mul / div;
              if (to > kMaxFreeElems || (op->cls == OpClass::Matmul && to > kMaxMatmulMoving)) return std::nullopt;
              if (!span_changes(r, static_cast<int>(d))) return std::nullopt;
              if (p.hit.at({&r.access(), static_cast<int>(d)}) != -1 - t.axis) return std::nullopt;
            }
        }
        continue;
      }
      auto [t, dim] = todo_dims.back();
      todo_dims.pop_back();
      for (const AccessRef& r : accesses) {
        const Access& a = r.access();
        if (storage_of(k, a.tensor) != t && a.tensor != t) continue;
        if (a.tensor != t) return std::nullopt;  // through a view
        Op& op = r.node->ops[r.op];
        const ApiSpec* spec = find_api(op.api);
        if (r.which < 0 && spec && spec->creates) continue;  // the declaration is written again
        if (!span_changes(r, dim)) return std::nullopt;
      }
    }
    if (p.loops.empty()) return std::nullopt;  // one tile axis only: tile_size's site
    // A name bound to a region (`xs = x_tile[:, h * 512:(h + 1) * 512]`) keeps naming the same
    // region: only the trips of its loops may change, never its expression.
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      if (!n.view) return;
      const Access& a = *n.view;
      for (size_t d = 0; d < a.dims.size(); ++d) {
        const DimIndex& di = a.dims[d];
        if (p.block_dims.count({a.tensor, static_cast<int>(d)})) {
          bad = bad || !(di.start == IExpr::var(l) && di.terms.empty());
          continue;
        }
        if (di.start.uses(l)) bad = true;
        int64_t span = 0;
        auto ps = pieces(k, di, l, inner, span);
        bool changes = p.dims.count({a.tensor, static_cast<int>(d)}) > 0;
        if (!ps) {
          bad = bad || changes;
          continue;
        }
        for (size_t i = 0; i < ps->size(); ++i) {
          const Piece& pc = (*ps)[i];
          bool outer = i + 1 == ps->size();
          if (!pc.axis && p.loops.count(pc.id) && !(outer && changes)) bad = true;
          if (outer && changes && pc.axis) bad = true;
        }
        if (changes && ps->empty()) bad = true;
      }
    });
    if (bad) return std::nullopt;
    if (!drop_stale_bindings(k, loop_node, p)) return std::nullopt;
    return p;
  }

  // A Python list appended once per iteration of a loop whose trip changes (`rhs_tiles.append(t)` in
  // `for bk_r`) would hold another number of tiles: its dim follows the trip in the form, but the
  // printer has no declaration to write it in (the newer-API fully optimized matmul's k blocks).
  static bool lists_change(const Kernel& k, const Plan& p) {
    for (const auto& t : k.tensors) {
      if (t.list_loop >= 0 && p.loops.count(t.list_loop)) return true;
      for (const auto& [name, loop] : t.outer_lists)
        if (p.loops.count(loop)) return true;
    }
    return false;
  }

  // Merging iterations of `n` and lengthening the loops of p.loops with them regroups every sum
  // over those loops: a tile accumulated (`+=`) in a loop whose trip changes and declared outside
  // it holds, after the loop, the terms of more (or fewer) iterations. Exact where such a partial
  // sum is read, outside its loop, only by adds into a tensor declared outside `n` (a `+=`, or a
  // running sum `n` carries: `sums`): the same terms reach the total in other groups. Conversely an
  // operation of `n` outside the changed loops that adds into a tensor declared outside `n` runs
  // less (more) often: it must add such a partial sum. (`acc = acc + exp(o_ps)`, a count `c += 1`,
  // a prefix sum read inside the loop: no site.)
  static bool sums_regroup(Kernel& k, const Node& loop_node, const Plan& p, const std::set<int>& sums) {
    const int l = loop_node.loop;
    std::set<int> in_n = {l};
    for_each_node(loop_node.body, [&](const Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::Loop) in_n.insert(n.loop);
    });
    Analysis an(k);
    auto changed_around = [&](const std::vector<int>& loops) {
      for (int v : loops)
        if (p.loops.count(v)) return v;
      return -1;
    };
    auto outside_n = [&](int t) { return !in_n.count(k.tensor(storage_of(k, t)).scope_loop); };
    // A region of a buffer declared up front that moves with `n` (`v19[i6, ...]`, the published
    // style's per-iteration tiles) is no total across iterations: each iteration has its own.
    auto adds_into_total = [&](const Op& op) {
      if (!op.dst || !outside_n(op.dst->tensor) || uses_loop(*op.dst, l)) return false;
      return op.accumulate || (sums.count(storage_of(k, op.dst->tensor)) && adds_into_destination(op));
    };
    // The partial sums: tensor -> the (outermost) changed loop it sums over, one region for all
    // its iterations (`acc[i5] += ...` per iteration of i5 is a sum over the loops inside only).
    std::map<int, int> partial;
    for (const OpRef& r : an.ops) {
      const Op& op = r.op();
      if (!op.dst || !adds_into_destination(op)) continue;
      int t = storage_of(k, op.dst->tensor);
      int scope = k.tensor(t).scope_loop;
      for (size_t i = 0; i < r.loops.size(); ++i) {
        int lc = r.loops[i];
        if (!p.loops.count(lc) || uses_loop(*op.dst, lc)) continue;
        bool declared_inside = false;
        for (size_t j = i; j < r.loops.size(); ++j) declared_inside = declared_inside || r.loops[j] == scope;
        if (!declared_inside && !partial.count(t)) partial[t] = lc;
        break;
      }
    }
    for (const OpRef& r : an.ops) {
      if (!inside(r.loops, l)) continue;
      const Op& op = r.op();
      bool in_changed = changed_around(r.loops) >= 0;
      for (const Access* a : reads(op)) {
        auto pt = partial.find(storage_of(k, a->tensor));
        if (pt == partial.end()) continue;
        bool in_its_loop = inside(r.loops, pt->second);
        if (in_its_loop && !(op.dst && a == &*op.dst && op.accumulate) &&
            !(adds_into_destination(op) && storage_of(k, op.dst->tensor) == pt->first && *a == *op.dst))
          return false;  // read while it sums
        if (!in_its_loop && (!adds_into_total(op) || a == &*op.dst)) return false;
      }
      if (!in_changed && adds_into_total(op)) {
        // What it adds must be a partial sum.
        if (op.cls == OpClass::Matmul) return false;
        for (const auto& arg : op.args) {
          if (arg.value.kind != Operand::Kind::Tile || arg.output || arg.value.access == *op.dst) continue;
          if (!partial.count(storage_of(k, arg.value.access.tensor))) return false;
        }
      }
    }
    return true;
  }

  // A binding computed from the loops whose trips change (`qt = qt_blk * 4 + qt_in`, written by a
  // blocked fusion) would keep the old block size in its text: such bindings go and what names
  // them prints from the form (unflatten's rule); no site when something cannot.
  static bool drop_stale_bindings(Kernel& k, const Node& loop_node, Plan& p) {
    std::vector<std::string> changing = {k.loops.at(p.loop).var};
    for (int v : p.loops) changing.push_back(k.loops.at(v).var);
    bool stale = false;
    for_each_node(loop_node.body, [&](const Node& n, const std::vector<int>&) {
      if (n.kind != NodeKind::Meta || n.meta != MetaKind::Binding) return;
      for (const auto& var : changing) stale = stale || mentions(k, n, var);
    });
    if (!stale) return true;
    Kernel trial = k;
    Node* body = find_node(trial, loop_node.id);
    for (const auto& var : changing)
      if (!body || !print_over_new_loops(trial, body->body, var)) return false;
    p.reprint_vars = changing;
    p.node = loop_node.id;
    return true;
  }

  static void apply_plan(Kernel& k, Plan& p) {
    Loop& loop = k.loops.at(p.loop);
    loop.stop = IExpr(loop.stop.constant() * p.div / p.mul);
    for (int v : p.loops) {
      Loop& inner = k.loops.at(v);
      inner.stop = IExpr(inner.stop.constant() * p.mul / p.div);
    }
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::Loop && (n.loop == p.loop || p.loops.count(n.loop))) n.dirty = true, n.patch.clear();
    });
    // Tensor shapes.
    std::set<int> reshaped;
    std::set<std::pair<const Access*, int>> scaled;
    for (auto [t, dim] : p.dims) {
      IExpr& s = k.tensor(t).shape[static_cast<size_t>(dim)];
      s = IExpr(s.constant() * p.mul / p.div);
      reshaped.insert(t);
    }
    for (auto [t, dim] : p.block_dims) {
      IExpr& s = k.tensor(t).shape[static_cast<size_t>(dim)];
      s = IExpr(s.constant() * p.div / p.mul);
      reshaped.insert(t);
    }
    // Coefficients of the loop in the indices that follow it, and tile axes that change size.
    std::set<const Access*> rewritten;
    for (auto& [r, dim] : p.contiguous) {
      if (!scaled.insert({&r.access(), dim}).second) continue;
      rewritten.insert(&r.access());
      DimIndex& d = r.access().dims[static_cast<size_t>(dim)];
      int64_t c = d.start.coeff(p.loop);
      d.start = d.start - IExpr::var(p.loop) * c + IExpr::var(p.loop) * (c * p.mul / p.div);
    }
    for (auto& [key, how] : p.hit) {
      if (how >= 0) continue;  // an inner loop's trip: the index reads the same
      rewritten.insert(key.first);
      for (auto& t : key.first->dims[static_cast<size_t>(key.second)].terms)
        if (t.axis == -1 - how) t.size = IExpr(t.size.constant() * p.mul / p.div);
    }
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      for (auto& op : n.ops) {
        const ApiSpec* spec = find_api(op.api);
        if (spec && spec->creates && op.dst && reshaped.count(op.dst->tensor)) continue;  // redeclared below
        // An index written anew; a name denoting the whole tile still does.
        auto fix = [&](const Access& a, const nki::Expr** origin) {
          if (!rewritten.count(&a)) return;
          if (origin && !(whole(k, a) && *origin && (*origin)->kind == nki::ExprKind::Name)) *origin = nullptr;
          n.dirty = true;
        };
        if (op.dst) fix(*op.dst, &op.dst_origin);
        for (auto& arg : op.args)
          if (arg.value.kind == Operand::Kind::Tile) fix(arg.value.access, &arg.value.origin);
      }
    });
    redeclare(k, reshaped);
    // Last: dropping bindings moves the nodes the plan points into.
    for (const auto& var : p.reprint_vars) {
      Node* n = find_node(k, p.node);
      if (!n || !print_over_new_loops(k, n->body, var))
        throw TransformError("free_size: a binding of the loop cannot be printed over the new trips");
    }
  }

  static bool whole(const Kernel& k, const Access& a) {
    const Tensor& t = k.tensor(a.tensor);
    if (a.dims.size() != t.shape.size()) return false;
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (!(a.dims[d].start == IExpr(0)) || a.dims[d].terms.size() != 1 || a.dims[d].terms[0].stride != 1 ||
          !(a.dims[d].terms[0].size == t.shape[d]))
        return false;
    return true;
  }
};

}  // namespace

std::unique_ptr<Transform> make_free_size() { return std::make_unique<FreeSize>(); }

}  // namespace loopnest
