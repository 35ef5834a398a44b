// Ragged windows on the form. Authors walk a long free axis of S columns in windows of W that need
// not divide it: the legacy API masks the last window (`mask=(col < S)` on every load, instruction
// and store, the tile a full W wide), the newer API and slice-style kernels cut it with `min()`
// (`w = min(W, S - t * W)`, every access `w` wide). tile_size and free_size refuse such loops (a
// mask or a size that uses the loop variable), so a kernel written with W = 768 kept its narrow
// windows whatever the agent tried, and fill_partitions, which needs >= 4 KiB pieces, never paid.
//
// The move gives the loop another window width W': trip ceil(S / W'), every access that walks the
// axis starting at W' * t, every tile of the window W' wide. When W' divides S every window is
// full, so the guard goes: no mask, no `min()`. Otherwise it stays, written for W' (a mask
// `W' * t + a < S`, a size `min(W', S - W' * t)`): a masked kernel keeps its masks, a `min()`
// kernel its `min()`.
//
// Legal from the form when
//   - the loop starts at 0, steps by 1, runs ceil(S / W) times and its iterations commute
//     (iterations_commute: nothing carried, no iteration touches what another writes);
//   - its body is straight-line (no loop, condition, helper call or view binding) of
//     declarations, loads, stores and elementwise instructions (no accumulation, reduction,
//     transpose, matmul, index operand or extra output), so each column is computed from the same
//     column of the inputs and the windows may be cut anywhere;
//   - every HBM access follows the loop on one dim only, `W * t + a` with a the window's tile axis
//     (stride 1, W or min(W, S - W * t) wide), every on-chip tile is made in the loop and holds the
//     window on one dim from 0, and every mask is the guard `W * t + a < S` on that axis;
//   - the window is a free axis of the tiles, not the partition axis (ragged rows: a wider
//     window of rows would exceed the 128 partitions);
//   - some guard says what S is (a mask or a `min()`): a loop whose windows divide the axis with
//     no guard is tile_size's ordinary site.
#include "loopnest/ragged_window.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"

namespace loopnest {

namespace {

constexpr int64_t kMinWindow = 128;   // free_size's smallest block: narrower is not worth a site
constexpr int64_t kMaxWindow = 8192;  // coarsen's largest free size (32 KiB of fp32 per partition)

struct Window {
  int64_t width = 0, extent = 0;  // W, S
};

// min(S - W * t, W): the width of window t, the last one cut short.
IExpr cut_width(int loop, int64_t width, int64_t extent) {
  return IExpr::min(IExpr(extent) - IExpr::var(loop) * width, IExpr(width));
}

// The extent S a `min()` width cuts windows of `width` at: `size` is min(S - W * t, W).
std::optional<int64_t> cut_extent(const IExpr& size, int loop, int64_t width) {
  if (size.is_constant() || size.constant() != 0 || size.terms().size() != 1) return std::nullopt;
  const auto& [term, coeff] = size.terms().begin()->second;
  if (term.kind != TermKind::Min || coeff != 1) return std::nullopt;
  for (const IExpr& a : term.args) {
    if (a.coeff(loop) != -width || !(a + IExpr::var(loop) * width).is_constant()) continue;
    int64_t extent = a.constant();
    if (size == cut_width(loop, width, extent)) return extent;
  }
  return std::nullopt;
}

// The axis and extent S of a mask constraint that is the guard `W * t + a < S` (or a spelling of
// it: `<= S - 1`, `S > W * t + a`); nullopt for any other constraint.
std::optional<std::pair<int, int64_t>> guard_of(const Constraint& c, int loop, int64_t width) {
  if (c.axes.size() != 1) return std::nullopt;
  auto [axis, sign] = *c.axes.begin();
  IExpr e = c.expr;
  Cmp cmp = c.cmp;
  if (sign == -1) {  // S - (W * t + a) > 0
    e = -e;
    cmp = cmp == Cmp::Gt ? Cmp::Lt : cmp == Cmp::Ge ? Cmp::Le : Cmp::Eq;
  } else if (sign != 1) {
    return std::nullopt;
  }
  if (cmp == Cmp::Le) e = e - IExpr(1), cmp = Cmp::Lt;  // W * t + a - S' <= 0: S = S' + 1
  if (cmp != Cmp::Lt || e.coeff(loop) != width || !(e - IExpr::var(loop) * width).is_constant()) return std::nullopt;
  return std::pair<int, int64_t>{axis, -e.constant()};
}

bool allowed_class(OpClass c) {
  switch (c) {
    case OpClass::Alloc: case OpClass::Memset: case OpClass::Load: case OpClass::Store: case OpClass::DmaCopy:
    case OpClass::Elementwise: case OpClass::Activation: case OpClass::Copy:
      return true;
    default:
      return false;
  }
}

struct Plan {
  int loop = -1;
  Window from;
  int64_t to = 0;
  std::vector<std::pair<Access*, int>> walks;  // HBM (access, dim) following the loop
  std::vector<std::pair<Access*, int>> tiles;  // on-chip (access, dim) holding the window
  std::map<int, int> tensor_dim;               // tensor made in the loop -> its window dim
  std::vector<Op*> guarded;                    // ops whose mask is the guard
  std::vector<std::pair<Node*, Op*>> ops;      // every op of the body
};

class Finder {
 public:
  Finder(Kernel& k, int loop) : k_(k), l_(loop) {}

  std::optional<Plan> run(Node& loop_node) {
    p_.loop = l_;
    if (!straight_line(loop_node.body) || !iterations_commute(k_, l_)) return std::nullopt;
    Analysis an(k_);
    std::vector<const OpRef*> body;
    for (const OpRef& r : an.ops)
      if (std::find(r.loops.begin(), r.loops.end(), l_) != r.loops.end()) body.push_back(&r);
    // The width first (a tile may be declared before the load that says what its window is).
    for (const OpRef* r : body)
      if (!width_from_walks(r->op())) return std::nullopt;
    for (const OpRef* r : body)
      if (!take(r->node, r->op())) return std::nullopt;
    const Loop& loop = k_.loops.at(l_);
    if (!width_ || !extent_ || *loop.trip() != (*extent_ + *width_ - 1) / *width_) return std::nullopt;
    // A walk a full W wide reads past the axis in the last window unless a mask guards it.
    if (*extent_ % *width_)
      for (Op* op : full_width_walks_)
        if (std::find(p_.guarded.begin(), p_.guarded.end(), op) == p_.guarded.end()) return std::nullopt;
    p_.from = {*width_, *extent_};
    return p_;
  }

 private:
  static bool straight_line(const std::vector<Node>& body) {
    for (const Node& n : body) {
      if (n.frozen || n.kind == NodeKind::Loop || n.kind == NodeKind::If || n.kind == NodeKind::Inline) return false;
      if (n.kind == NodeKind::Meta && n.meta == MetaKind::View) return false;
    }
    return true;
  }

  // The width W as the HBM accesses that follow the loop say it (`W * t` starts one window dim).
  bool width_from_walks(const Op& op) {
    std::vector<const Access*> accesses = reads(op), written = writes(op);
    accesses.insert(accesses.end(), written.begin(), written.end());
    for (const Access* a : accesses) {
      if (k_.tensor(a->tensor).on_chip()) continue;
      for (const auto& d : a->dims)
        if (d.start.coeff(l_) > 0 && !agree(width_, d.start.coeff(l_))) return false;
    }
    return true;
  }

  // Agrees on one width / extent across the body.
  bool agree(std::optional<int64_t>& slot, int64_t v) {
    if (slot && *slot != v) return false;
    slot = v;
    return true;
  }

  bool take(Node* node, Op& op) {
    if (!allowed_class(op.cls) || op.accumulate || has_index_operand(op)) return false;
    for (const auto& a : op.args)
      if (a.output) return false;
    p_.ops.push_back({node, &op});
    if (is_declaration(op)) return declare(op);
    std::vector<Access*> accesses;
    if (op.dst) accesses.push_back(&*op.dst);
    for (auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile) accesses.push_back(&a.value.access);
    std::optional<int> axis;
    for (Access* a : accesses)
      if (!axis_of(*a, axis)) return false;
    if (!axis) return accesses.empty();
    if (*axis == 0) return false;  // the partition axis: ragged rows are not a window of columns
    bool walks_with_full_width = false;
    for (Access* a : accesses) {
      auto full = check(*a, *axis);
      if (!full) return false;
      walks_with_full_width = walks_with_full_width || *full;
    }
    for (const auto& c : op.mask) {
      auto g = width_ ? guard_of(c, l_, *width_) : std::nullopt;
      if (!g || g->first != *axis || !agree(extent_, g->second)) return false;
    }
    if (!op.mask.empty()) p_.guarded.push_back(&op);
    if (walks_with_full_width) full_width_walks_.push_back(&op);
    return true;
  }

  // A declaration in the loop: the tile's window dim is the one W (or the cut width) wide.
  bool declare(Op& op) {
    if (!op.dst) return false;
    const Tensor& t = k_.tensor(op.dst->tensor);
    if (t.scope_loop != l_ || !t.on_chip()) return false;
    if (!width_) return false;  // no HBM access says what the window is
    int dim = -1;
    for (size_t d = static_cast<size_t>(t.partition_dim) + 1; d < t.shape.size(); ++d)
      if (window_width(t.shape[d])) {
        if (dim >= 0) return false;
        dim = static_cast<int>(d);
      }
    if (dim < 0) return false;
    p_.tensor_dim[t.id] = dim;
    return true;
  }

  // Whether `size` is the window's width: W, or the cut width min(S - W * t, W) (which fixes S).
  bool window_width(const IExpr& size) {
    if (!width_) return false;
    if (size == IExpr(*width_)) return true;
    auto s = cut_extent(size, l_, *width_);
    return s && agree(extent_, *s);
  }

  // The window's tile axis as access `a` shows it (an HBM walk, or a tile whose window dim is
  // known); nothing when it shows none. False when it contradicts `axis`.
  bool axis_of(const Access& a, std::optional<int>& axis) {
    const Tensor& t = k_.tensor(a.tensor);
    std::optional<int> found;
    if (!t.on_chip()) {
      for (const auto& d : a.dims) {
        int64_t w = d.start.coeff(l_);
        if (w <= 0 || d.terms.size() != 1) continue;
        if (!agree(width_, w)) return false;
        found = d.terms[0].axis;
      }
    } else if (auto td = p_.tensor_dim.find(t.id); td != p_.tensor_dim.end()) {
      const DimIndex& d = a.dims[static_cast<size_t>(td->second)];
      if (d.terms.size() != 1) return false;
      found = d.terms[0].axis;
    }
    if (!found) return true;
    if (axis && *axis != *found) return false;
    axis = found;
    return true;
  }

  // Checks access `a` of an op whose window axis is `axis` and records what changes. Returns
  // whether it is an HBM walk a full W wide (needs a guard on a ragged axis); nullopt: refused.
  std::optional<bool> check(Access& a, int axis) {
    const Tensor& t = k_.tensor(a.tensor);
    if (t.role == TensorRole::View || t.base >= 0) return std::nullopt;
    int dim = -1;
    for (size_t d = 0; d < a.dims.size(); ++d)
      for (const auto& term : a.dims[d].terms)
        if (term.axis == axis) {
          if (dim >= 0) return std::nullopt;
          dim = static_cast<int>(d);
        }
    if (dim < 0) return std::nullopt;  // not along the window (a [P, 1] column): not taken
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (static_cast<int>(d) != dim && uses_loop(a.dims[d], l_)) return std::nullopt;
    DimIndex& di = a.dims[static_cast<size_t>(dim)];
    const AxisTerm& term = di.terms[0];
    if (di.terms.size() != 1 || term.stride != 1 || !term.affine() || !window_width(term.size)) return std::nullopt;
    if (!t.on_chip()) {
      if (!(di.start == IExpr::var(l_) * *width_)) return std::nullopt;
      p_.walks.push_back({&a, dim});
      return term.size.is_constant();
    }
    // An on-chip tile made in the loop, holding the window from column 0.
    if (t.scope_loop != l_ || !(di.start == IExpr(0))) return std::nullopt;
    if (t.role != TensorRole::Value && t.role != TensorRole::Buffer) return std::nullopt;
    auto td = p_.tensor_dim.find(t.id);
    if (td == p_.tensor_dim.end()) {
      if (t.role != TensorRole::Value || !window_width(t.shape[static_cast<size_t>(dim)])) return std::nullopt;
      p_.tensor_dim[t.id] = dim;
    } else if (td->second != dim) {
      return std::nullopt;
    }
    p_.tiles.push_back({&a, dim});
    return false;
  }

  Kernel& k_;
  int l_;
  Plan p_;
  std::optional<int64_t> width_, extent_;
  std::vector<Op*> full_width_walks_;  // ops with an HBM walk W wide (no `min()`)
};

// The width a window of `old` becomes: W' when every window is full, else W' or min(S - W' t, W')
// as the old one was written.
IExpr new_width(const IExpr& old, int loop, int64_t to, int64_t extent) {
  if (extent % to == 0 || old.is_constant()) return IExpr(to);
  return cut_width(loop, to, extent);
}

void apply_plan(Kernel& k, const Plan& p) {
  const int64_t to = p.to, extent = p.from.extent;
  k.loops.at(p.loop).stop = IExpr((extent + to - 1) / to);
  if (Node* n = loop_node(k, p.loop)) n->dirty = true, n->patch.clear();
  std::set<const Access*> changed;
  for (auto [a, dim] : p.walks) {
    DimIndex& d = a->dims[static_cast<size_t>(dim)];
    d.start = IExpr::var(p.loop) * to;
    d.terms[0].size = new_width(d.terms[0].size, p.loop, to, extent);
    changed.insert(a);
  }
  for (auto [a, dim] : p.tiles) {
    AxisTerm& term = a->dims[static_cast<size_t>(dim)].terms[0];
    term.size = new_width(term.size, p.loop, to, extent);
    changed.insert(a);
  }
  for (auto [t, dim] : p.tensor_dim) {
    IExpr& s = k.tensor(t).shape[static_cast<size_t>(dim)];
    s = new_width(s, p.loop, to, extent);
  }
  for (Op* op : p.guarded) {
    Arg* mask = op->arg("mask");
    if (extent % to == 0) {  // every window full
      op->mask.clear(), op->has_mask = false;
      if (mask) op->args.erase(op->args.begin() + (mask - op->args.data()));
      continue;
    }
    for (auto& c : op->mask) {
      int axis = c.axes.begin()->first;
      c = Constraint{IExpr::var(p.loop) * to - IExpr(extent), {{axis, 1}}, Cmp::Lt};
    }
    if (mask) mask->value.origin = nullptr;  // printed from the constraints
  }
  for (auto [node, op] : p.ops) {
    node->dirty = true;
    if (is_declaration(*op)) {
      const Tensor& t = k.tensor(op->dst->tensor);
      op->dst = whole_of(k, t.id);
      if (Arg* s = op->arg("shape"); s && s->value.kind == Operand::Kind::Shape) s->value.shape = t.shape, s->value.origin = nullptr;
      continue;
    }
    // A name denoting a whole tile still does; an index is written anew.
    auto fix = [&](const Access& a, const nki::Expr** origin) {
      if (!changed.count(&a) || !*origin) return;
      if (!((*origin)->kind == nki::ExprKind::Name && accesses_whole(k, a))) *origin = nullptr;
    };
    if (op->dst) fix(*op->dst, &op->dst_origin);
    for (auto& arg : op->args)
      if (arg.value.kind == Operand::Kind::Tile) fix(arg.value.access, &arg.value.origin);
  }
}

// The widths offered for a window of W: the power of two below it and the two above it, within
// [kMinWindow, kMaxWindow] and at most the axis.
std::vector<int64_t> widths_for(const Window& w) {
  int64_t up = 1;
  while (up <= w.width) up *= 2;
  std::vector<int64_t> out;
  for (int64_t v : {up / 2 == w.width ? up / 4 : up / 2, up, up * 2})
    if (v >= kMinWindow && v <= kMaxWindow && v <= w.extent && v != w.width) out.push_back(v);
  return out;
}

}  // namespace

bool ragged_window_sites(Kernel& k, Node& loop_node, const SiteSink& sink) {
  const Loop& l = k.loops.at(loop_node.loop);
  if (!l.trip() || !(l.start == IExpr(0)) || l.step != 1 || l.host_items || l.ordered) return false;
  std::optional<Plan> found = Finder(k, loop_node.loop).run(loop_node);
  if (!found || (found->guarded.empty() && found->from.extent % found->from.width == 0)) return false;
  Analysis an(k);
  for (int64_t to : widths_for(found->from)) {
    bool whole = found->from.extent % to == 0;
    int64_t trip = (found->from.extent + to - 1) / to;
    auto s = make_loop_site(
        k, an, loop_node,
        fmt::format("windows of {} columns instead of {} in `for {}` ({} iterations{})", to, found->from.width, l.var, trip,
                    whole ? ", every window full: the guard goes" : ", the last one cut"),
        {{"direction", to > found->from.width ? "coarsen" : "split"},
         {"from", std::to_string(found->from.width)},
         {"window", std::to_string(to)}});
    if (!s) continue;
    // Found again on the kernel as it is when applied (pointers into this lift).
    if (sink(*s, [&k, &loop_node, to] {
          Plan p = *Finder(k, loop_node.loop).run(loop_node);
          p.to = to;
          apply_plan(k, p);
        }))
      return true;
  }
  return false;
}

}  // namespace loopnest
