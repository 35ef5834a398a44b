// Partition folding on the form: a loop whose tiles span few partitions (64 rows of RoPE's halves)
// works on views of its HBM tensors with twice the rows and half the columns
// (`x_fold = x.reshape((2 * rows, cols // 2))`: row r of the view is half r % 2 of row r // 2):
// every tile spans twice the partitions, every DMA and instruction does twice the work for one
// fixed cost, and the loop runs half the iterations. Legal when the loop body is elementwise
// (loads, stores, ALU and activation ops, copies) on row ranges that do not depend on the loop,
// its column tiles walk every column of tensors of one width, and no operand is per partition
// ([P, 1]): the same element-for-element map on every operand and result.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool elementwise(const Op& op) {
  switch (op.cls) {
    case OpClass::Load: case OpClass::Store: case OpClass::Elementwise: case OpClass::Activation: case OpClass::Copy:
    case OpClass::Alloc: case OpClass::Memset:
      return !op.accumulate;
    default: return false;
  }
}

struct Plan {
  int loop = -1;
  int64_t cols = 0;
  std::set<int> hbm;              // HBM tensors viewed folded
  std::set<int> tiles;            // on-chip tiles defined in the loop: [p, c] -> [2p, c]
  std::map<int, int> blocks;      // block buffers walked by the loop: block dim halves, partitions double
};

class FoldRows : public Transform {
 public:
  std::string name() const override { return "fold_rows"; }
  std::string description() const override {
    return "view HBM tensors with twice the rows and half the columns so tiles of few partitions span twice "
           "as many (every DMA and instruction does twice the work for one fixed cost)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<int> loops = open_loop_ids(k);
    for (int id : loops) {
      Node* n = find_node(k, id);
      auto plan = make_plan(k, *n);
      if (!plan) continue;
      Analysis an(k);
      auto s = make_loop_site(k, an, *n,
                              fmt::format("fold the rows of `for {}` onto twice the partitions (HBM views of half the "
                                          "columns)", k.loops.at(n->loop).var));
      if (!s) continue;
      Plan p = *plan;
      if (sink(*s, [&k, id, p] { apply(k, id, p); })) return true;
    }
    return false;
  }

 private:
  static std::optional<Plan> make_plan(Kernel& k, Node& loop_node) {
    Plan p;
    p.loop = loop_node.loop;
    int l = p.loop;
    const Loop& loop = k.loops.at(l);
    auto trip = loop.trip();
    if (!trip || *trip % 2 || !(loop.start == IExpr(0)) || loop.step != 1) return std::nullopt;
    bool bad = false;
    std::set<int> inner = {l};
    for_each_node(loop_node.body, [&](const Node& x, const std::vector<int>&) {
      if (x.frozen || x.kind == NodeKind::Loop || x.kind == NodeKind::If || x.kind == NodeKind::Inline) bad = true;
    });
    if (bad) return std::nullopt;
    std::vector<Op*> ops;
    ops_of(loop_node, ops);
    int64_t parts = 0;
    bool explicit_rows = false;
    for (Op* op : ops) {
      if (!elementwise(*op) || op->has_mask || has_index_operand(*op)) return std::nullopt;
      // Every access, the outputs an instruction writes besides its destination included: an
      // activation's reduce_res is a [P, 1] sum along the free axis, which no fold keeps.
      std::vector<const Access*> all = reads(*op);
      if (op->dst) all.push_back(&*op->dst);
      for (const Access* w : writes(*op))
        if (!op->dst || w != &*op->dst) all.push_back(w);
      for (const Access* a : all) {
        const Tensor& t = k.tensor(storage_of(k, a->tensor));
        auto shape = a->tile_shape();
        if (shape.size() != 2 || !shape[0].is_constant()) return std::nullopt;
        if (shape[1] == IExpr(1)) return std::nullopt;  // a per-partition operand
        int64_t pp = shape[0].constant();
        if (parts && pp != parts) return std::nullopt;
        parts = pp;
        if (!t.on_chip()) {
          if (a->tensor != t.id || t.shape.size() != 2 || a->dims.size() != 2) return std::nullopt;
          const DimIndex &rows = a->dims[0], &cols = a->dims[1];
          if (rows.start.uses(l) || rows.terms.size() != 1 || rows.terms[0].stride != 1 || rows.terms[0].axis != 0)
            return std::nullopt;
          if (!rows.start.is_constant()) return std::nullopt;
          if (rows.start.constant() != 0 || !(rows.terms[0].size == t.shape[0])) explicit_rows = true;
          int64_t c = cols.start.coeff(l);
          if (cols.terms.size() != 1 || cols.terms[0].axis != 1 || cols.terms[0].stride != 1 ||
              !(cols.terms[0].size == IExpr(c)) || !(cols.start == IExpr::var(l) * c) || !t.shape[1].is_constant())
            return std::nullopt;
          if (c * *trip != t.shape[1].constant()) return std::nullopt;  // the loop walks every column
          if (p.cols && p.cols != t.shape[1].constant()) return std::nullopt;
          p.cols = t.shape[1].constant();
          p.hbm.insert(t.id);
        } else if (inner.count(t.scope_loop)) {
          if (t.shape.size() != 2) return std::nullopt;
          p.tiles.insert(t.id);
        } else {
          // A block buffer walked by the loop (the published style).
          if (t.role != TensorRole::Buffer || t.partition_dim < 1) return std::nullopt;
          int bd = -1;
          for (size_t d = 0; d < a->dims.size(); ++d)
            if (a->dims[d].start.uses(l)) bd = static_cast<int>(d);
          if (bd < 0 || bd >= t.partition_dim || !(a->dims[static_cast<size_t>(bd)].start == IExpr::var(l)) ||
              !(t.shape[static_cast<size_t>(bd)] == IExpr(*trip)))
            return std::nullopt;
          if (p.blocks.count(t.id) && p.blocks[t.id] != bd) return std::nullopt;
          p.blocks[t.id] = bd;
        }
      }
    }
    // Twice the partitions must fit, and some access must name its rows (a kernel working on all
    // 128 partitions already gains nothing).
    if (parts == 0 || parts * 2 > 128 || !explicit_rows || p.hbm.empty()) return std::nullopt;
    // Block buffers are used only in the loop.
    Analysis an(k);
    for (const auto& [t, bd] : p.blocks) {
      for (const OpRef* r : an.readers(k, t))
        if (std::find(r->loops.begin(), r->loops.end(), l) == r->loops.end()) return std::nullopt;
      for (const OpRef* w : an.writers(k, t))
        if (std::find(w->loops.begin(), w->loops.end(), l) == w->loops.end() && !is_declaration(w->op()))
          return std::nullopt;
    }
    for (int t : p.hbm)
      for (const auto& r : an.ops)
        if (std::find(r.loops.begin(), r.loops.end(), l) == r.loops.end() && !is_declaration(r.op())) {
          for (const Access* x : reads(r.op()))
            if (storage_of(k, x->tensor) == t && x->tensor != t) return std::nullopt;
        }
    return p;
  }

  static std::vector<Node>* parent_of(std::vector<Node>& block, int id) {
    for (auto& n : block) {
      if (n.id == id) return &block;
      if (auto* p = parent_of(n.body, id)) return p;
      if (auto* p = parent_of(n.orelse, id)) return p;
    }
    return nullptr;
  }

  static void apply(Kernel& k, int id, const Plan& p) {
    int l = p.loop;
    Loop& loop = k.loops.at(l);
    loop.stop = IExpr(loop.stop.constant() / 2);
    // The views, declared before the loop.
    std::map<int, int> view_of;
    std::vector<Node> decls;
    for (int t : p.hbm) {
      int outer = -1;
      for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
        if (n.id == id) outer = loops.empty() ? -1 : loops.back();
      });
      int view = -1;
      Node decl = hbm_reshape_view(k, t, "_fold", {k.tensor(t).shape[0] * 2, IExpr(p.cols / 2)}, outer, view);
      view_of[t] = view;
      decls.push_back(std::move(decl));
    }
    for (int t : p.tiles) {
      Tensor& tensor = k.tensor(t);
      tensor.shape[0] = tensor.shape[0] * 2;
    }
    for (const auto& [t, bd] : p.blocks) {
      Tensor& tensor = k.tensor(t);
      tensor.shape[static_cast<size_t>(bd)] = IExpr(tensor.shape[static_cast<size_t>(bd)].constant() / 2);
      tensor.shape[static_cast<size_t>(tensor.partition_dim)] = tensor.shape[static_cast<size_t>(tensor.partition_dim)] * 2;
    }
    // The views are the loop's: an access of the same HBM tensor elsewhere (another nest over the
    // full row tiles, before the ragged rows' loop) keeps the tensor as declared.
    auto fold = [&](Access& a, const nki::Expr** origin, bool in_loop) {
      int s = storage_of(k, a.tensor);
      bool changed = false;
      if (view_of.count(s) && in_loop) {
        a.tensor = view_of[s];
        a.dims[0].start = a.dims[0].start * 2;
        a.dims[0].terms[0].size = a.dims[0].terms[0].size * 2;
        changed = true;
      } else if (p.tiles.count(s) || p.blocks.count(s)) {
        const Tensor& t = k.tensor(s);
        int pd = t.partition_dim < 0 ? 0 : t.partition_dim;
        for (auto& term : a.dims[static_cast<size_t>(pd)].terms)
          if (term.axis == 0) term.size = term.size * 2;
        changed = true;
      }
      if (changed && origin) *origin = nullptr;
      return changed;
    };
    for_each_node(k.body, [&](Node& n, const std::vector<int>& loops) {
      const bool in_loop = std::find(loops.begin(), loops.end(), l) != loops.end();
      for (auto& op : n.ops) {
        bool changed = false;
        if (is_declaration(op) && op.dst && (p.tiles.count(op.dst->tensor) || p.blocks.count(op.dst->tensor))) {
          const Tensor& t = k.tensor(op.dst->tensor);
          op.dst = whole_of(k, t.id);
          if (Arg* s = op.arg("shape"); s && s->value.kind == Operand::Kind::Shape) s->value.shape = t.shape, s->value.origin = nullptr;
          n.dirty = true;
          continue;
        }
        if (is_declaration(op)) continue;  // the HBM tensors themselves stay as declared
        if (op.dst) changed = fold(*op.dst, &op.dst_origin, in_loop) || changed;
        for (auto& a : op.args)
          if (a.value.kind == Operand::Kind::Tile) changed = fold(a.value.access, &a.value.origin, in_loop) || changed;
        if (op.result >= 0 && p.tiles.count(op.result)) changed = true;
        if (changed) n.dirty = true;
      }
    });
    Node* loop_node = find_node(k, id);
    loop_node->dirty = true;
    std::vector<Node>* parent = parent_of(k.body, id);
    auto pos = std::find_if(parent->begin(), parent->end(), [&](const Node& n) { return n.id == id; });
    parent->insert(pos, std::make_move_iterator(decls.begin()), std::make_move_iterator(decls.end()));
  }
};

}  // namespace

std::unique_ptr<Transform> make_fold_rows() { return std::make_unique<FoldRows>(); }

}  // namespace loopnest
