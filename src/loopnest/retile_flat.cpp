// Flat re-tiling on the form: a loop nest doing straight-line elementwise work on tiles of P < 128
// partitions (an AdamW streamed in 96-row tiles because 96 divides its row count) walks flat views
// of its HBM tensors in tiles of all 128 partitions: `x_flat = x.reshape((n, 128, W2))`, one
// `affine_range(n)` loop, 128 * W2 * n = the element count. An engine instruction costs the same on
// 96 partitions as on 128 (trainium-performance.md 1.4), so every Vector / Scalar Engine instruction
// and every DMA of the nest does 128 / P times the work for one fixed cost.
//
// fold_rows (P <= 64: twice the rows) and fill_partitions (P * f = 128: re-laid tiles) need P to
// divide 128; this move does not, and any P < 128 whose nest covers its tensors qualifies.
//
// Legal from the form, never from text:
// - the nest is perfect (each loop's body is the next loop) and its innermost body straight-line
//   statements: declarations of on-chip tiles, DMA loads HBM -> SBUF, elementwise instructions
//   (ALU / activation / copies with number or symbol operands) and DMA stores SBUF -> HBM; no mask,
//   index operand, accumulation, read-modify-write or second output (reduce_res);
// - every on-chip tile is [P, F], accessed whole (no [P, 1] per-partition operand, no part of a
//   tile), and lives in the nest;
// - every HBM tensor touched has the same shape, and every load / store reaches it through the
//   same flat map: the row-major element offset of (loop variables, tile axes), affine; that map
//   is a mixed-radix numbering of [0, element count) (sorted by coefficient, each coefficient the
//   product of the counts below it, offset 0), so the nest's tiles cover every element exactly once.
// Then element e of every tensor is computed from element e of every operand, each once: any
// bijective re-tiling of the flat element range computes the same result, and the 128-row view is one.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/mixed_radix.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"
#include "trn/tile_limits.h"

namespace loopnest {

namespace {

constexpr int64_t kPartitions = trn::limits::pmax;
// A partition's contiguous run below which a DMA slows sharply (trainium-measurements.md,
// "Throughput vs bytes per partition": 2 KiB is ~0.80 of full throughput, 1 KiB well below): the
// new width keeps each run at least this long, or as long as the author's when that was shorter.
constexpr int64_t kMinRunBytes = 2048;

// The flat element offset an HBM access reads or writes: `offset` (affine in the loop variables)
// plus coeff[a] * i_a over tile axis a in [0, size[a]).
struct FlatMap {
  IExpr offset;
  int64_t coeff[2] = {0, 0};
  int64_t size[2] = {0, 0};
  bool operator==(const FlatMap& o) const {
    return offset == o.offset && coeff[0] == o.coeff[0] && coeff[1] == o.coeff[1] && size[0] == o.size[0] &&
           size[1] == o.size[1];
  }
};

std::optional<int64_t> element_count(const std::vector<IExpr>& shape) {
  int64_t n = 1;
  for (const IExpr& d : shape) {
    if (!d.is_constant() || d.constant() <= 0) return std::nullopt;
    n *= d.constant();
  }
  return n;
}

// The access's flat map over its tensor's (a view's) shape: a reshape of a whole tensor keeps the
// row-major offset of every element, so the map on any view equals the map on the storage.
std::optional<FlatMap> flat_map(const Kernel& k, const Access& a) {
  const Tensor& t = k.tensor(a.tensor);
  if (a.dims.size() != t.shape.size() || !element_count(t.shape) || (a.rank >= 0 && a.rank != 2)) return std::nullopt;
  FlatMap m;
  int64_t row = 1;
  for (size_t d = a.dims.size(); d-- > 0;) {
    const DimIndex& di = a.dims[d];
    if (!di.start.is_affine()) return std::nullopt;
    auto scaled = di.start * row;
    m.offset = m.offset + scaled;
    for (const AxisTerm& term : di.terms) {
      if (!term.affine() || !term.size.is_constant() || term.axis < 0 || term.axis > 1) return std::nullopt;
      int64_t sz = term.size.constant();
      if (m.size[term.axis] && m.size[term.axis] != sz) return std::nullopt;
      m.size[term.axis] = sz;
      m.coeff[term.axis] += term.stride * row;
    }
    row *= t.shape[d].constant();
  }
  if (!m.size[0] || !m.size[1]) return std::nullopt;
  return m;
}

// Whether the nest's loops and the tile axes number [0, count) exactly once through `m`.
bool covers_once(const Kernel& k, const FlatMap& m, const std::vector<int>& loops, int64_t count) {
  std::map<int, int64_t> at_start;
  std::vector<std::pair<int64_t, int64_t>> radix;  // (coefficient, count)
  for (int v : m.offset.vars())
    if (std::find(loops.begin(), loops.end(), v) == loops.end()) return false;  // a loop outside the nest
  for (int l : loops) {
    const Loop& loop = k.loops.at(l);
    auto trip = loop.trip();
    if (!trip || !loop.start.is_constant()) return false;
    at_start[l] = loop.start.constant();
    if (*trip > 1) radix.push_back({m.offset.coeff(l) * loop.step, *trip});
  }
  for (int a = 0; a < 2; ++a)
    if (m.size[a] > 1) radix.push_back({m.coeff[a], m.size[a]});
  auto base = m.offset.eval(at_start);
  if (!base || *base != 0) return false;
  return numbers_each_once(std::move(radix), count);
}

enum class Dma : uint8_t { None, Load, Store };

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

struct Plan {
  int outer_node = -1;
  std::vector<int> loops;   // the nest's loops, outermost first
  int64_t parts = 0, width = 0;  // the tiles' P and F
  int64_t new_width = 0, tiles = 0;
  std::set<int> hbm;        // storages viewed flat
  std::set<int> chip;       // the nest's on-chip tiles: [P, F] -> [128, W2]
};

// A tile accessed whole: [0, P) on tile axis 0, [0, F) on tile axis 1, stride 1.
bool whole_tile(const Tensor& t, const Access& a) {
  if (a.dims.size() != 2 || (a.rank >= 0 && a.rank != 2)) return false;
  for (int d = 0; d < 2; ++d) {
    const DimIndex& di = a.dims[static_cast<size_t>(d)];
    if (!(di.start == IExpr(0)) || di.terms.size() != 1) return false;
    const AxisTerm& term = di.terms[0];
    if (term.axis != d || !term.affine() || term.stride != 1 || !(term.size == t.shape[static_cast<size_t>(d)]))
      return false;
  }
  return true;
}

// The new width: a divisor of count / 128 near the author's per-tile work (P * F / 128 columns),
// no wider than F (no tile grows per partition), each partition's run no shorter than
// kMinRunBytes (or the author's run); among those within a factor 2 one dividing the tensor's
// last dim first (each partition then reads within one row), then the nearest.
std::optional<int64_t> choose_width(int64_t count, int64_t parts, int64_t width, int64_t itemsize, int64_t last_dim) {
  if (count % kPartitions) return std::nullopt;
  const int64_t per_partition = count / kPartitions;
  const double target = static_cast<double>(parts * width) / kPartitions;
  const int64_t min_run = std::min(kMinRunBytes, width * itemsize);
  std::optional<int64_t> best;
  auto rank = [&](int64_t w) {
    return std::make_pair(last_dim % w == 0 ? 0 : 1, std::abs(std::log(static_cast<double>(w) / target)));
  };
  for (int64_t w = 1; w <= width; ++w) {
    if (per_partition % w || w * itemsize < min_run) continue;
    if (static_cast<double>(w) < target / 2 || static_cast<double>(w) > target * 2) continue;
    if (!best || rank(w) < rank(*best)) best = w;
  }
  return best;
}

std::optional<Plan> plan_for(Kernel& k, Node& outer) {
  Plan p;
  p.outer_node = outer.id;
  Node* n = &outer;
  while (true) {
    if (n->kind != NodeKind::Loop || n->frozen) return std::nullopt;
    const Loop& l = k.loops.at(n->loop);
    if (l.host_items || l.program || l.ordered || l.step <= 0) return std::nullopt;
    p.loops.push_back(n->loop);
    if (n->body.size() == 1 && n->body[0].kind == NodeKind::Loop) {
      n = &n->body[0];
      continue;
    }
    break;
  }
  for (const Node& s : n->body) {
    if (s.frozen) return std::nullopt;
    if (s.kind == NodeKind::Stmt) continue;
    if (s.kind == NodeKind::Meta && (s.meta == MetaKind::Binding || s.meta == MetaKind::Pass)) continue;
    return std::nullopt;
  }
  Analysis an(k);
  const int outer_loop = p.loops.front();
  std::optional<FlatMap> map;
  std::optional<std::vector<IExpr>> shape;
  int64_t itemsize = 0;
  auto note_tile = [&](int t) {
    const Tensor& tt = k.tensor(t);
    if (tt.memory != Memory::Sbuf || (tt.role != TensorRole::Value && tt.role != TensorRole::Buffer) ||
        !tt.list_name.empty() || tt.list_loop >= 0 || tt.host_list || tt.partition_dim != 0 || tt.shape.size() != 2 ||
        !tt.shape[0].is_constant() || !tt.shape[1].is_constant())
      return false;
    int64_t pp = tt.shape[0].constant(), ff = tt.shape[1].constant();
    if ((p.parts && pp != p.parts) || (p.width && ff != p.width)) return false;
    p.parts = pp, p.width = ff;
    p.chip.insert(t);
    return true;
  };
  auto note_hbm = [&](const Access& a) {
    int s = storage_of(k, a.tensor);
    const Tensor& st = k.tensor(s);
    if (st.name.empty() || !element_count(st.shape)) return false;
    if (shape && !(*shape == st.shape)) return false;
    shape = st.shape;
    auto m = flat_map(k, a);
    if (!m || (map && !(*map == *m))) return false;
    map = m;
    int64_t size = itemsize_of(st.dtype);
    if (size <= 0) return false;
    itemsize = itemsize ? std::min(itemsize, size) : size;
    p.hbm.insert(s);
    return true;
  };
  int engine_ops = 0;
  for (const auto& r : an.ops) {
    if (std::find(r.loops.begin(), r.loops.end(), outer_loop) == r.loops.end()) continue;
    const Op& op = r.op();
    if (is_declaration(op)) {
      if (op.cls != OpClass::Alloc || !op.dst || !note_tile(op.dst->tensor)) return std::nullopt;
      continue;
    }
    if (op.has_mask || op.accumulate || has_index_operand(op) || reads_destination(op) || indirect_dma(op))
      return std::nullopt;
    for (const auto& a : op.args) {
      if (a.output) return std::nullopt;  // reduce_res: a [P, 1] sum along the free axis
      switch (a.value.kind) {
        case Operand::Kind::Tile: case Operand::Kind::Number: case Operand::Kind::Symbol: case Operand::Kind::None:
          break;
        default: return std::nullopt;  // a Python value the form does not see into, an index
      }
      if (a.value.number_when) return std::nullopt;
    }
    Dma dma = dma_kind(k, op);
    if (dma == Dma::None) {
      if (op.cls != OpClass::Elementwise && op.cls != OpClass::Activation && op.cls != OpClass::Copy)
        return std::nullopt;
      ++engine_ops;
    }
    std::vector<const Access*> all = reads(op);
    if (op.dst) all.push_back(&*op.dst);
    for (const Access* a : all) {
      int s = storage_of(k, a->tensor);
      if (k.tensor(s).on_chip()) {
        if (a->tensor != s || !note_tile(s) || !whole_tile(k.tensor(s), *a)) return std::nullopt;
      } else if (dma == Dma::None || !note_hbm(*a)) {
        return std::nullopt;
      }
    }
    if (op.result >= 0 && !note_tile(op.result)) return std::nullopt;
  }
  // Tiles of all 128 partitions already, or nothing to widen.
  if (!map || !p.parts || p.parts >= kPartitions || engine_ops == 0) return std::nullopt;
  if (map->size[0] != p.parts || map->size[1] != p.width) return std::nullopt;
  auto count = element_count(*shape);
  if (!count || !covers_once(k, *map, p.loops, *count)) return std::nullopt;
  // The tiles live in the nest: every access of them is one of its operations.
  for (int t : p.chip) {
    for (const OpRef* r : an.readers(k, t))
      if (std::find(r->loops.begin(), r->loops.end(), outer_loop) == r->loops.end()) return std::nullopt;
    for (const OpRef* r : an.writers(k, t))
      if (std::find(r->loops.begin(), r->loops.end(), outer_loop) == r->loops.end()) return std::nullopt;
    for (const auto& o : k.tensors)
      if (o.id != t && storage_of(k, o.id) == t) return std::nullopt;  // a view of the tile
  }
  auto w = choose_width(*count, p.parts, p.width, itemsize, shape->back().constant());
  if (!w) return std::nullopt;
  p.new_width = *w;
  p.tiles = *count / kPartitions / *w;
  return p;
}

std::vector<Node>* parent_of(std::vector<Node>& block, int id) {
  for (auto& n : block) {
    if (n.id == id) return &block;
    if (auto* p = parent_of(n.body, id)) return p;
    if (auto* p = parent_of(n.orelse, id)) return p;
  }
  return nullptr;
}

// The author's own views the nest reaches its storages through (`thv = theta.reshape((T, P, N))`),
// by storage: a view of the storage itself, declared by a statement of its own, that is the nest's
// only way to that storage and that nothing outside the nest reads or writes. Re-declared flat, the
// kernel keeps its names.
std::map<int, Node*> own_views(Kernel& k, const Plan& p) {
  std::map<int, std::set<int>> inside, outside;
  Analysis an(k);
  for (const auto& r : an.ops) {
    const bool in_nest = std::find(r.loops.begin(), r.loops.end(), p.loops.front()) != r.loops.end();
    std::vector<const Access*> all = reads(r.op());
    if (r.op().dst) all.push_back(&*r.op().dst);
    for (const Access* a : all) {
      int s = storage_of(k, a->tensor);
      if (p.hbm.count(s)) (in_nest ? inside : outside)[s].insert(a->tensor);
    }
  }
  std::map<int, Node*> out;
  for (int s : p.hbm) {
    if (inside[s].size() != 1) continue;
    int v = *inside[s].begin();
    const Tensor& vt = k.tensor(v);
    if (v == s || vt.role != TensorRole::View || vt.base != s || vt.name.empty() || outside[s].count(v)) continue;
    if (std::any_of(k.tensors.begin(), k.tensors.end(), [&](const Tensor& o) { return o.base == v; })) continue;
    Node* decl = nullptr;
    int decls = 0;
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      if (n.kind != NodeKind::Meta || n.meta != MetaKind::View || !n.view || n.view->tensor != v) return;
      ++decls;
      if (n.binds == std::vector<std::string>{vt.name} && accesses_whole(k, *n.view) && !n.frozen) decl = &n;
    });
    if (decl && decls == 1) out[s] = decl;
  }
  return out;
}

void apply_plan(Kernel& k, const Plan& p) {
  const int outer = p.loops.front();
  int enclosing = -1;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
    if (n.id == p.outer_node) enclosing = loops.empty() ? -1 : loops.back();
  });
  // The flat views: the author's own re-declared, new ones declared before the nest.
  std::map<int, int> view_of;
  std::vector<Node> decls;
  for (const auto& [s, decl] : own_views(k, p)) {
    int v = decl->view->tensor;
    Tensor& vt = k.tensor(v);
    vt.shape = {IExpr(p.tiles), IExpr(kPartitions), IExpr(p.new_width)};
    vt.dim_text.clear();
    decl->view = whole_of(k, v);
    decl->dirty = true;
    decl->patch = fmt::format("{} = {}.reshape(({}, {}, {}))", vt.name, k.tensor(s).name, p.tiles, kPartitions,
                              p.new_width);
    view_of[s] = v;
  }
  for (int s : p.hbm) {
    if (view_of.count(s)) continue;
    int id = -1;
    Node decl = hbm_reshape_view(k, s, "_flat", {IExpr(p.tiles), IExpr(kPartitions), IExpr(p.new_width)}, enclosing, id);
    view_of[s] = id;
    decls.push_back(std::move(decl));
  }
  // One loop over the tiles: the outer loop's node, the innermost body.
  Node* outer_node = find_node(k, p.outer_node);
  Node* inner = outer_node;
  while (inner->body.size() == 1 && inner->body[0].kind == NodeKind::Loop && inner->loop != p.loops.back())
    inner = &inner->body[0];
  std::vector<Node> body;
  for (Node& n : inner->body)
    if (n.kind == NodeKind::Stmt) body.push_back(std::move(n));  // bindings of the old loops' indices go
  outer_node->body = std::move(body);
  outer_node->dirty = true;
  outer_node->patch.clear();
  Loop& loop = k.loops.at(outer);
  loop.start = IExpr(0);
  loop.stop = IExpr(p.tiles);
  loop.step = 1;
  loop.kind = LoopKind::Affine;
  loop.dynamic = false;
  for (size_t i = 1; i < p.loops.size(); ++i) k.loops.erase(p.loops[i]);
  for (auto& t : k.tensors)
    if (std::find(p.loops.begin() + 1, p.loops.end(), t.scope_loop) != p.loops.end()) t.scope_loop = outer;
  for (int t : p.chip) {
    Tensor& tt = k.tensor(t);
    tt.shape = {IExpr(kPartitions), IExpr(p.new_width)};
    tt.dim_text.clear();
  }
  auto retile = [&](Access& a, const nki::Expr** origin, const nki::Expr** written,
                    std::shared_ptr<const Access>* written_access) {
    int s = storage_of(k, a.tensor);
    if (view_of.count(s)) {
      a.tensor = view_of[s];
      a.rank = -1;
      a.dims = {{IExpr::var(outer), {}},
                {IExpr(0), {{0, IExpr(kPartitions), 1}}},
                {IExpr(0), {{1, IExpr(p.new_width), 1}}}};
      if (origin) *origin = nullptr;
      if (written) *written = nullptr;
      if (written_access) written_access->reset();
      return true;
    }
    if (!p.chip.count(a.tensor)) return false;
    a.dims[0].terms[0].size = IExpr(kPartitions);
    a.dims[1].terms[0].size = IExpr(p.new_width);
    // A name (or the expression computing an anonymous tile) still denotes the whole tile, so the
    // statement prints as written; a subscript names the old extents.
    if (!origin || !*origin) return false;
    switch ((*origin)->kind) {
      case nki::ExprKind::Name: case nki::ExprKind::BinOp: case nki::ExprKind::UnaryOp: case nki::ExprKind::Call:
        return false;
      default: break;
    }
    *origin = nullptr;
    if (written_access) written_access->reset();
    if (written) *written = nullptr;
    return true;
  };
  for (Node& n : outer_node->body) {
    for (auto& op : n.ops) {
      if (is_declaration(op)) continue;  // redeclared below
      if (op.dst && retile(*op.dst, &op.dst_origin, &op.dst_written, &op.dst_written_access)) n.dirty = true;
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile &&
            retile(a.value.access, &a.value.origin, &a.value.written, &a.value.written_access))
          n.dirty = true;
    }
    if (n.dirty) n.patch.clear();
  }
  redeclare(k, p.chip);
  std::vector<Node>* parent = parent_of(k.body, p.outer_node);
  auto pos = std::find_if(parent->begin(), parent->end(), [&](const Node& n) { return n.id == p.outer_node; });
  parent->insert(pos, std::make_move_iterator(decls.begin()), std::make_move_iterator(decls.end()));
}

class RetileFlat : public Transform {
 public:
  std::string name() const override { return "retile_flat"; }
  bool resizes_tiles() const override { return true; }
  std::string description() const override {
    return "walk an elementwise nest's tensors through flat views in tiles of all 128 partitions (its tiles of "
           "P < 128 rows waste the rest of every engine instruction and DMA)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    for (int id : open_loop_ids(k)) {
      Node* n = find_node(k, id);
      if (!n) continue;
      auto plan = plan_for(k, *n);
      if (!plan) continue;
      Analysis an(k);
      std::string names;
      for (int s : plan->hbm) names += (names.empty() ? "`" : ", `") + k.tensor(s).name + "`";
      auto s = make_loop_site(
          k, an, *n,
          fmt::format("view {} flat as ({}, {}, {}) and walk them in one loop of {} tiles on {} partitions (was "
                      "[{}, {}] tiles)",
                      names, plan->tiles, kPartitions, plan->new_width, plan->tiles, kPartitions, plan->parts,
                      plan->width),
          {{"width", std::to_string(plan->new_width)}});
      if (!s) continue;
      Analysis fresh(k);
      std::set<const Op*> work;
      for (const auto& r : fresh.ops)
        if (std::find(r.loops.begin(), r.loops.end(), plan->loops.front()) != r.loops.end() && !is_declaration(r.op()))
          work.insert(&r.op());
      note_relief(k, fresh, work, *s);
      Plan p = *plan;
      if (sink(*s, [&k, p] { apply_plan(k, p); })) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_retile_flat() { return std::make_unique<RetileFlat>(); }

}  // namespace loopnest
