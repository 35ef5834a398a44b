// Partition filling on the form: a loop whose straight-line, elementwise body works on tiles of P <=
// 64 partitions (a rotary embedding's two 64-row halves streamed in (64, 512) chunks) re-lays
// every tile it defines as (P * f, F / f), f = 128 / P: piece j of the F columns goes to partitions
// [j*P, (j+1)*P). Each load becomes f loads of the same rows, HBM columns start + j*F/f.., into
// the tile's partition block j; each store f stores; the elementwise instructions are unchanged but
// run on full tiles. An engine instruction costs the same on 64 partitions as on 128, and two
// 64-partition Vector Engine instructions do not run in parallel on trn1 (trainium-performance.md
// 1.4, ARCH2, PERF Opt #5b): half the instructions' cost for P = 64.
//
// Unlike fold_rows (HBM views of twice the rows), the loop, its trip count and the HBM tensors stay
// as written: any walk of the columns (a `range(0, T, 512)` loop, tensors of different widths).
//
// Legal from the form:
// - the loop body is straight-line statements (no loop, condition or helper call) whose operations
//   are declarations, DMA loads HBM -> SBUF, elementwise instructions (tensor_tensor, tensor_scalar
//   with number operands, activation without a bias or scale tile, copies) and DMA stores SBUF ->
//   HBM; no mask, no index operand, no accumulation, no read-modify-write;
// - every on-chip tile an operation touches is defined in the loop (a value, or a buffer every
//   access of which is inside it), of P partitions (the same P for all, P * f = 128, f >= 2) and one
//   free dim F divisible by f, block dims (the legacy style's per-iteration buffers) indexed by
//   integers; every access of it is whole (per block): no op mixes partitions or reads part of a
//   tile, so the same element-for-element map holds on every operand and result;
// - a load's / store's HBM access has the tile's free axis on one dim, stride 1 and affine, and the
//   partition axis on another: the f pieces are contiguous column ranges of the same rows.
// Where it pays (not legality): each piece moves at least 4 KiB per partition (kSaturatingPayload).
// A load written as the leading inner call of a statement (`nl.multiply(nl.load(a[..]), b)`) and a
// store's inner value (`nl.store(out[..], value=nl.add(a, b))`) become statements of their own, the
// tile named after the tensor (`a_tile`, `out_tile`); a value a load returns (`t = nl.load(..)`)
// becomes a declared tile filled by the f loads (as coalesce_stores does with its buffer).
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/dma_payload.h"
#include "loopnest/nest_walk.h"
#include "loopnest/param_size.h"
#include "loopnest/transform.h"
#include "trn/tile_limits.h"

namespace loopnest {

namespace {

// Partitions of an SBUF tile: the engines' lanes (trn/tile_limits.h).
constexpr int64_t kPartitions = trn::limits::pmax;
// Each piece of a split load or store must move at least kSaturatingPayload (dma_payload.h), or the
// f-fold transfers' fixed costs (~1300 ns each, one at a time per queue: docs/simulator.md) outweigh
// the engine time saved: rope streamed in (64, 512) fp32 tiles (1 KiB pieces) took 2.96 -> 5.33 ms,
// in (64, 1024) tiles (2 KiB) 2.89 -> 2.66 ms, in (64, 2048) tiles (4 KiB) 2.86 -> 1.49 ms
// (docs/performance/builtin_agent.md).

enum class Dma : uint8_t { None, Load, Store };

// A DMA between HBM and on chip: which way.
Dma dma_kind(const Kernel& k, const Op& op) {
  if (op.cls != OpClass::Load && op.cls != OpClass::Store && op.cls != OpClass::DmaCopy) return Dma::None;
  auto rd = reads(op);
  if (rd.size() != 1) return Dma::None;
  bool src_chip = k.tensor(storage_of(k, rd[0]->tensor)).on_chip();
  bool dst_chip = op.result >= 0 || (op.dst && k.tensor(storage_of(k, op.dst->tensor)).on_chip());
  if (!src_chip && dst_chip) return Dma::Load;
  if (src_chip && !dst_chip) return Dma::Store;
  return Dma::None;
}

// An instruction computing each output element from the same element of its operands.
bool elementwise(const Op& op) {
  switch (op.cls) {
    case OpClass::Elementwise: case OpClass::Copy: return true;
    case OpClass::Activation:
      // A bias or scale tile is per partition ([P, 1]): refused below as a tile of another shape,
      // but say so here for the activation's own operands.
      for (const char* name : {"bias", "scale"}) {
        const Operand* o = operand(op, name);
        if (o && o->kind == Operand::Kind::Tile) return false;
      }
      return true;
    default: return false;
  }
}

struct Plan {
  int loop = -1;
  int loop_node = -1;
  int64_t parts = 0;  // P
  int64_t fold = 0;   // f
  std::set<int> tiles;  // on-chip tensors re-laid
};

// Whether `a` covers tensor `t` whole per block: block dims by integers, the partition dim [0, P)
// on tile axis 0, the free dim [0, F) on tile axis 1, both stride 1.
bool whole_per_block(const Tensor& t, const Access& a) {
  if (a.dims.size() != t.shape.size() || t.partition_dim < 0 ||
      static_cast<size_t>(t.partition_dim) + 2 != t.shape.size())
    return false;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const DimIndex& di = a.dims[d];
    if (d < static_cast<size_t>(t.partition_dim)) {
      if (!di.terms.empty()) return false;
      continue;
    }
    int axis = d == static_cast<size_t>(t.partition_dim) ? 0 : 1;
    if (!(di.start == IExpr(0)) || di.terms.size() != 1) return false;
    const AxisTerm& term = di.terms[0];
    if (term.axis != axis || !term.affine() || term.stride != 1 || !(term.size == t.shape[d])) return false;
  }
  return a.rank < 0 || a.rank == 2;
}

// The HBM dim holding the tile's free axis (stride 1, affine, whole tile width `width`), the
// partition axis on another dim; -1 when the access is not so.
int column_dim(const Access& a, int64_t parts, int64_t width) {
  if (a.rank >= 0 && a.rank != 2) return -1;
  int col = -1, row = -1;
  for (size_t d = 0; d < a.dims.size(); ++d)
    for (const auto& t : a.dims[d].terms) {
      if (!t.affine() || !t.size.is_constant()) return -1;
      if (t.axis == 1) {
        if (col >= 0 || a.dims[d].terms.size() != 1 || t.stride != 1 || t.size.constant() != width) return -1;
        col = static_cast<int>(d);
      } else if (t.axis == 0) {
        if (row >= 0 || t.size.constant() != parts) return -1;
        row = static_cast<int>(d);
      } else {
        return -1;
      }
    }
  return row >= 0 && col >= 0 && row != col ? col : -1;
}

// `short_pieces` (when given) is set when the loop is legal but some split piece would move less
// than the saturating payload: widening its tiles first (tile_size) would make it pay.
std::optional<Plan> plan_for(Kernel& k, Node& loop_node, bool* short_pieces = nullptr) {
  Plan p;
  bool short_payload = false;
  p.loop = loop_node.loop;
  p.loop_node = loop_node.id;
  if (k.loops.at(p.loop).host_items) return std::nullopt;
  for (const Node& n : loop_node.body) {
    if (n.frozen || n.kind == NodeKind::Loop || n.kind == NodeKind::If || n.kind == NodeKind::Inline) return std::nullopt;
    if (n.kind == NodeKind::Meta && n.meta == MetaKind::View) return std::nullopt;
  }
  Analysis an(k);
  std::vector<const OpRef*> body;
  for (const auto& r : an.ops)
    if (std::find(r.loops.begin(), r.loops.end(), p.loop) != r.loops.end()) body.push_back(&r);
  int engine_ops = 0;
  // Every on-chip tensor touched: its P and F; and the statements' load order (leading only).
  auto note_tile = [&](int t) {
    const Tensor& tt = k.tensor(t);
    if (tt.memory != Memory::Sbuf || tt.role == TensorRole::View || !tt.list_name.empty() || tt.list_loop >= 0 ||
        (tt.role != TensorRole::Value && tt.role != TensorRole::Buffer))
      return false;
    for (const auto& o : k.tensors)
      if (o.id != t && storage_of(k, o.id) == t) return false;
    if (tt.partition_dim < 0 || static_cast<size_t>(tt.partition_dim) + 2 != tt.shape.size()) return false;
    const IExpr& pp = tt.shape[static_cast<size_t>(tt.partition_dim)];
    const IExpr& ff = tt.shape.back();
    if (!pp.is_constant() || !ff.is_constant()) return false;
    for (int d = 0; d < tt.partition_dim; ++d)
      if (!tt.shape[static_cast<size_t>(d)].is_constant()) return false;
    int64_t parts = pp.constant();
    if (p.parts && parts != p.parts) return false;
    if (parts < 1 || parts * 2 > kPartitions || kPartitions % parts) return false;
    p.parts = parts;
    p.fold = kPartitions / parts;
    if (ff.constant() % p.fold) return false;
    p.tiles.insert(t);
    return true;
  };
  const Node* stmt = nullptr;
  bool past_loads = false;
  for (const OpRef* r : body) {
    const Op& op = r->op();
    if (r->node != stmt) stmt = r->node, past_loads = false;
    if (r->loops.back() != p.loop) return std::nullopt;  // straight-line: nothing nested
    if (is_declaration(op)) {
      if (op.cls != OpClass::Alloc || !op.dst) return std::nullopt;  // nl.zeros / nl.full write values
      continue;
    }
    if (op.has_mask || op.accumulate || has_index_operand(op) || reads_destination(op)) return std::nullopt;
    for (const auto& a : op.args)
      if (a.output) return std::nullopt;  // reduce_res and the like
    Dma dma = dma_kind(k, op);
    if (dma == Dma::Load) {
      // A load is a statement of its own or one of its leading inner calls.
      if (past_loads) return std::nullopt;
    } else {
      past_loads = true;
    }
    if (dma == Dma::Store && &op != &r->node->ops.back()) return std::nullopt;
    if (dma == Dma::None && !elementwise(op)) return std::nullopt;
    if (dma == Dma::None) ++engine_ops;
    // The tiles it touches.
    std::vector<const Access*> chip;
    const Access* hbm = nullptr;
    for (const Access* a : reads(op)) {
      if (k.tensor(storage_of(k, a->tensor)).on_chip()) chip.push_back(a);
      else hbm = a;
    }
    if (op.dst) {
      if (k.tensor(storage_of(k, op.dst->tensor)).on_chip()) chip.push_back(&*op.dst);
      else hbm = &*op.dst;
    }
    for (const Access* a : chip)
      if (!note_tile(a->tensor) || !whole_per_block(k.tensor(a->tensor), *a)) return std::nullopt;
    if (op.result >= 0 && !note_tile(op.result)) return std::nullopt;
    if (dma != Dma::None) {
      int tile = op.result >= 0 ? op.result : chip.empty() ? -1 : chip[0]->tensor;
      if (tile < 0 || !hbm || !p.parts) return std::nullopt;
      const Tensor& tt = k.tensor(tile);
      int64_t width = tt.shape.back().constant();
      if (column_dim(*hbm, p.parts, width) < 0) return std::nullopt;
      if (width / p.fold * itemsize_of(tt.dtype) < kSaturatingPayload) short_payload = true;
    } else {
      // Numbers and symbols are the same for every element; any other operand (a Python value
      // the form does not see into) might not be.
      for (const auto& a : op.args)
        if (a.value.kind == Operand::Kind::Other) return std::nullopt;
    }
  }
  if (!p.parts || engine_ops == 0) return std::nullopt;
  // The tiles live within the loop: every access of them is one of the body's.
  for (int t : p.tiles) {
    for (const OpRef* r : an.readers(k, t))
      if (std::find(r->loops.begin(), r->loops.end(), p.loop) == r->loops.end()) return std::nullopt;
    for (const OpRef* r : an.writers(k, t))
      if (std::find(r->loops.begin(), r->loops.end(), p.loop) == r->loops.end() && !is_declaration(r->op()))
        return std::nullopt;
    if (k.tensor(t).role == TensorRole::Value && k.tensor(t).scope_loop != p.loop) return std::nullopt;
  }
  if (short_payload) {
    if (short_pieces) *short_pieces = true;
    return std::nullopt;
  }
  return p;
}

// The loop widened by tile_size (coarsened by 2, up to three times) until its split pieces
// saturate a DMA: a fill that only pays on wider tiles is offered as one move, since the widening
// alone gains nothing and a search keeping no-slower kernels drops it (a held-out rope kernel
// streaming (64, 512) chunks: widened twice and filled, 2.81 -> 1.49 ms; neither step alone).
// Returns the number of doublings and the plan on `w`, widened; nothing when no widening pays.
std::optional<std::pair<int, Plan>> widened_plan(Kernel& w, int loop_node_id) {
  auto coarsen = make_coarsen();
  auto within_loop = [&](int node) {
    // A loop's site is anchored at the loop node itself (make_loop_site) or at a node in it.
    Node* l = find_node(w, loop_node_id);
    bool found = node == loop_node_id;
    if (l) for_each_node(l->body, [&](const Node& x, const std::vector<int>&) { found = found || x.id == node; });
    return found;
  };
  for (int times = 1; times <= 3; ++times) {
    bool widened = false;
    for (const Site& s : coarsen->find(w)) {
      auto dir = s.params.find("direction"), factor = s.params.find("factor");
      if (dir == s.params.end() || dir->second != "coarsen" || factor == s.params.end() || factor->second != "2" ||
          !within_loop(s.node))
        continue;
      coarsen->apply(w, s);
      widened = true;
      break;
    }
    Node* n = widened ? find_node(w, loop_node_id) : nullptr;
    if (!n) return std::nullopt;
    bool short_pieces = false;
    if (auto plan = plan_for(w, *n, &short_pieces)) return std::make_pair(times, *plan);
    if (!short_pieces) return std::nullopt;
  }
  return std::nullopt;
}

// A loop walking its columns in ragged windows (the last one masked or cut by `min()`,
// ragged_window.cpp), which plan_for refuses for its guard, given the narrowest wider window that
// fills: one that divides the axis drops the guard, and its pieces saturate a DMA. One move for the
// same reason as widened_plan's (a held-out rope's 768-column masked windows: 2048-column windows
// alone 2.91 -> 2.86 ms, then filled 1.49 ms). Returns the width and the plan on `w`, so re-windowed.
std::optional<std::pair<int64_t, Plan>> windowed_plan(Kernel& w, int loop_node_id) {
  auto coarsen = make_coarsen();
  std::vector<std::pair<int64_t, Site>> windows;
  for (Site& s : coarsen->find(w))
    if (s.node == loop_node_id && s.params.count("window") && s.params.at("direction") == "coarsen")
      windows.push_back({std::stoll(s.params.at("window")), s});
  std::sort(windows.begin(), windows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [width, site] : windows) {
    Kernel c = w;
    coarsen->apply(c, site);
    Node* n = find_node(c, loop_node_id);
    auto plan = n ? plan_for(c, *n) : std::nullopt;
    if (!plan) continue;
    w = std::move(c);
    return std::make_pair(width, *plan);
  }
  return std::nullopt;
}

// The loop of `k` (node `loop_node_id`) in `after`, the same kernel lifted again from text whose
// lines are the same (an edited literal): the loop node of the same statement.
Node* same_loop(const Kernel& k, int loop_node_id, Kernel& after) {
  const nki::Stmt* origin = nullptr;
  for_each_node(k.body, [&](const Node& x, const std::vector<int>&) {
    if (x.id == loop_node_id) origin = x.origin;
  });
  if (!origin) return nullptr;
  int id = -1;
  for_each_node(after.body, [&](const Node& x, const std::vector<int>&) {
    if (id < 0 && x.kind == NodeKind::Loop && x.origin && x.origin->span.line == origin->span.line &&
        x.origin->span.col == origin->span.col)
      id = x.id;
  });
  return id < 0 ? nullptr : find_node(after, id);
}

// The loop widened through the kernel's size constant (`edits`: free_size's edits of `F = 512` to
// 2x, 4x or 8x, the kernel lifted again) until its split pieces saturate a DMA, when tile_size has
// no site on it: a loop over a reshaped HBM view (`x_v = x.reshape((D, T // F, F))`, `x_v[0:H, nt,
// :]`) is widened only by its constant (session 37: an outside author's rope, 2.987 -> 1.490 ms
// with F = 2048 and filled; F = 1024 or 2048 alone 2.97 ms). The smallest factor that fills, and
// its plan on that edit's kernel.
std::optional<std::pair<const SizeEdit*, Plan>> constant_widened_plan(const Kernel& k, int loop_node_id,
                                                                        std::vector<SizeEdit>& edits) {
  for (SizeEdit& e : edits) {
    Node* n = same_loop(k, loop_node_id, e.after);
    if (auto plan = n ? plan_for(e.after, *n) : std::nullopt) return std::make_pair(&e, *plan);
  }
  return std::nullopt;
}

// The plan on `k` once its loop is re-shaped as a site says (re-windowed, else widened); nothing
// when it no longer fills.
std::optional<Plan> reshaped_plan(Kernel& k, int loop_node_id, bool rewindow) {
  if (rewindow) {
    auto wp = windowed_plan(k, loop_node_id);
    return wp ? std::optional<Plan>(wp->second) : std::nullopt;
  }
  auto wp = widened_plan(k, loop_node_id);
  return wp ? std::optional<Plan>(wp->second) : std::nullopt;
}

// The loop's engine instructions: each does its work in 1/f of the instructions' time once filled.
std::set<const Op*> engine_ops_in(const Kernel& k, const Analysis& an, int loop) {
  std::set<const Op*> out;
  for (const auto& r : an.ops)
    if (std::find(r.loops.begin(), r.loops.end(), loop) != r.loops.end() && !is_declaration(r.op()) &&
        dma_kind(k, r.op()) == Dma::None)
      out.insert(&r.op());
  return out;
}

// A name for the tile a split-off load or store value becomes: `<tensor>_tile` (fresh).
std::string tile_name(const Kernel& k, int hbm) {
  const std::string& base = k.tensor(storage_of(k, hbm)).name;
  return fresh_loop_var(k, (base.empty() ? std::string("t") : base) + "_tile");
}

// Splits the leading loads and a store's inner value of every statement of the loop into
// statements of their own (each a named tile).
void separate_dmas(Kernel& k, const Plan& p) {
  Node* loop_node = find_node(k, p.loop_node);
  std::vector<Node>& body = loop_node->body;
  for (size_t i = 0; i < body.size(); ++i) {
    Node& n = body[i];
    if (n.kind != NodeKind::Stmt || n.ops.size() < 2) continue;
    if (dma_kind(k, n.ops[0]) == Dma::Load && n.ops[0].result >= 0) {
      Tensor& t = k.tensor(n.ops[0].result);
      if (t.name.empty()) t.name = tile_name(k, reads(n.ops[0])[0]->tensor);
      split_leading_ops(k, body, i, 1);
      continue;  // the rest of the statement is looked at next
    }
    const Op& last = n.ops.back();
    if (dma_kind(k, last) == Dma::Store && n.ops[n.ops.size() - 2].result >= 0) {
      Tensor& t = k.tensor(n.ops[n.ops.size() - 2].result);
      if (t.name.empty()) t.name = tile_name(k, last.dst->tensor);
      split_leading_ops(k, body, i, n.ops.size() - 1);
    }
  }
}

// Piece j of an access of a re-laid tile: partition block j, F / f columns.
void piece_of_tile(const Kernel& k, Access& a, const Plan& p, int64_t j) {
  const Tensor& t = k.tensor(a.tensor);
  DimIndex& rows = a.dims[static_cast<size_t>(t.partition_dim)];
  rows.start = IExpr(j * p.parts);
  rows.terms[0].size = IExpr(p.parts);
  a.dims.back().terms[0].size = t.shape.back();
}

// Piece j of the HBM access: columns j * F/f .. of the same rows.
void piece_of_hbm(Access& a, const Plan& p, int64_t j) {
  int col = column_dim(a, p.parts, a.tile_shape().at(1).constant());
  DimIndex& cols = a.dims[static_cast<size_t>(col)];
  int64_t width = cols.terms[0].size.constant() / p.fold;
  cols.start = cols.start + IExpr(j * width);
  cols.terms[0].size = IExpr(width);
}

void apply_plan(Kernel& k, const Plan& p) {
  separate_dmas(k, p);
  // Old shapes, for the HBM pieces (they are read from the tile's access before it changes).
  for (int t : p.tiles) {
    Tensor& tt = k.tensor(t);
    tt.shape[static_cast<size_t>(tt.partition_dim)] = IExpr(kPartitions);
    tt.shape.back() = IExpr(tt.shape.back().constant() / p.fold);
    tt.dim_text.clear();
  }
  Node* loop_node = find_node(k, p.loop_node);
  std::vector<Node> out;
  std::set<int> declared;  // values that a load filled, now declared tiles
  for (Node& n : loop_node->body) {
    Dma dma = n.kind == NodeKind::Stmt && n.ops.size() == 1 ? dma_kind(k, n.ops[0]) : Dma::None;
    if (dma == Dma::None) {
      // Elementwise statements and declarations: the same accesses of the new shapes.
      for (auto& op : n.ops) {
        auto grow = [&](Access& a, const nki::Expr** origin) {
          if (!p.tiles.count(a.tensor)) return;
          const Tensor& t = k.tensor(a.tensor);
          a.dims[static_cast<size_t>(t.partition_dim)].terms[0].size = IExpr(kPartitions);
          a.dims.back().terms[0].size = t.shape.back();
          // A name still denotes the whole tile (`data1=x0`); an index expression names the old rows.
          if (origin && *origin && (*origin)->kind != nki::ExprKind::Name) *origin = nullptr;
          n.dirty = true;
        };
        if (is_declaration(op)) continue;  // redeclared below
        if (op.dst) grow(*op.dst, &op.dst_origin);
        for (auto& a : op.args)
          if (a.value.kind == Operand::Kind::Tile) grow(a.value.access, &a.value.origin);
        if (op.result >= 0 && p.tiles.count(op.result)) n.dirty = true;
      }
      if (n.dirty) n.patch.clear();
      out.push_back(std::move(n));
      continue;
    }
    Op op = n.ops[0];
    if (op.result >= 0) {
      // `t = nl.load(..)`: t becomes a declared tile the f loads fill.
      int t = op.result;
      k.tensor(t).role = TensorRole::Buffer;
      op.result = -1;
      Access whole = whole_of(k, t);
      whole.dims[0].terms[0].size = IExpr(kPartitions);
      op.dst = whole;
      op.dst_first = false;
      if (declared.insert(t).second) out.push_back(declaration_node(k, t));
    }
    for (int64_t j = 0; j < p.fold; ++j) {
      Op piece = op;
      piece.dst_origin = nullptr;
      for (auto& a : piece.args) a.value.origin = nullptr;
      Access* chip = nullptr;
      Access* hbm = nullptr;
      if (dma == Dma::Load) {
        chip = &*piece.dst;
        for (auto& a : piece.args)
          if (a.value.kind == Operand::Kind::Tile) hbm = &a.value.access;
      } else {
        hbm = &*piece.dst;
        for (auto& a : piece.args)
          if (a.value.kind == Operand::Kind::Tile) chip = &a.value.access;
      }
      piece_of_hbm(*hbm, p, j);
      piece_of_tile(k, *chip, p, j);
      out.push_back(new_statement(k, {piece}));
    }
  }
  loop_node->body = std::move(out);
  redeclare(k, p.tiles);
}

class FillPartitions : public Transform {
 public:
  std::string name() const override { return "fill_partitions"; }
  bool resizes_tiles() const override { return true; }
  std::string description() const override {
    return "re-lay an elementwise loop's half-height tiles (P <= 64 partitions) as full-height tiles of a fraction "
           "of the columns: each load and store becomes one per partition block, every instruction runs on 128 "
           "partitions for the cost of one";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::optional<std::vector<SizeEdit>> size_edits;
    for (int id : open_loop_ids(k)) {
      Node* n = find_node(k, id);
      if (!n) continue;
      bool short_pieces = false;
      auto plan = plan_for(k, *n, &short_pieces);
      int widen = 1, fold = plan ? plan->fold : 0;
      int64_t window = 0;
      if (!plan && short_pieces) {
        Kernel w = k;
        if (auto wp = widened_plan(w, id)) widen = 1 << wp->first, fold = wp->second.fold;
      } else if (!plan) {
        Kernel w = k;
        if (auto wp = windowed_plan(w, id)) window = wp->first, fold = wp->second.fold;
      }
      if (!plan && widen == 1 && window == 0 && short_pieces) {
        // The constant's edits lift the kernel again: made once per visit, for the loops that need them.
        if (!size_edits) size_edits = widened_sizes(k, {2, 4, 8});
        if (auto cw = constant_widened_plan(k, id, *size_edits)) {
          Analysis an(k);
          const SizeEdit& e = *cw->first;
          auto s = make_loop_site(
              k, an, *n,
              fmt::format("set the kernel's `{}` from {} to {} (tiles of {}x the columns) and fill the partitions of "
                          "`for {}`: half-height tiles re-laid on 128 partitions",
                          e.var, e.from, e.to, e.to / e.from, k.loops.at(n->loop).var),
              {{"fold", std::to_string(cw->second.fold)}, {"widen", std::to_string(e.to / e.from)}, {"var", e.var}});
          if (!s) continue;
          note_relief(k, an, engine_ops_in(k, an, n->loop), *s);
          // The plan was made on the edited kernel, which the action installs unchanged.
          auto widened = std::make_shared<Kernel>(e.after);
          Plan p = cw->second;
          if (sink(*s, [&k, widened, p] {
                k = *widened;
                apply_plan(k, p);
              }))
            return true;
        }
        continue;
      }
      if (!plan && widen == 1 && window == 0) continue;
      Analysis an(k);
      if (widen > 1 || window > 0) {
        // Widened or re-windowed, then filled, one move: the site is on this kernel, the action
        // re-shapes the loop and plans again.
        const std::string& var = k.loops.at(n->loop).var;
        bool rewindow = window > 0;
        std::string summary =
            rewindow ? fmt::format("walk `for {}` in windows of {} columns (no guard) and fill its partitions: "
                                   "half-height tiles re-laid on 128 partitions",
                                   var, window)
                     : fmt::format("widen `for {}` {}x (tiles of {}x the columns) and fill its partitions: "
                                   "half-height tiles re-laid on 128 partitions",
                                   var, widen, widen);
        auto s = make_loop_site(k, an, *n, summary,
                                {{"fold", std::to_string(fold)},
                                 {rewindow ? "window" : "widen", std::to_string(rewindow ? window : widen)}});
        if (!s) continue;
        note_relief(k, an, engine_ops_in(k, an, n->loop), *s);
        if (sink(*s, [&k, id, rewindow] {
              auto plan = reshaped_plan(k, id, rewindow);
              if (!plan) throw TransformError("the re-shaped loop no longer fills its partitions");
              apply_plan(k, *plan);
            }))
          return true;
        continue;
      }
      auto s = make_loop_site(k, an, *n,
                              fmt::format("fill the partitions of `for {}`: its tiles of {} partitions re-laid as {} x "
                                          "1/{} of the columns; {} loads / stores per DMA",
                                          k.loops.at(n->loop).var, plan->parts, kPartitions, plan->fold, plan->fold),
                              {{"fold", std::to_string(plan->fold)}});
      if (!s) continue;
      note_relief(k, an, engine_ops_in(k, an, plan->loop), *s);
      Plan p = *plan;
      if (sink(*s, [&k, p] { apply_plan(k, p); })) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_fill_partitions() { return std::make_unique<FillPartitions>(); }

}  // namespace loopnest
