// A DMA load of an HBM region that an earlier load of the same block already brought on chip
// becomes an engine copy of those partitions:
//
//   X[...] = nl.load(x[:, cols])                     X[...] = nl.load(x[:, cols])
//   XS[0:64, :] = nl.load(x[64:128, cols])      ->   XS[0:64, :] = nisa.tensor_copy(X[64:128, :])
//   C2[0:64, :] = nl.load(cos[:, cols])              C2[0:64, :] = nl.load(cos[:, cols])
//   C2[64:128, :] = nl.load(cos[:, cols])            C2[64:128, :] = nisa.tensor_copy(C2[0:64, :])
//
// Kernels that want a region on both partition halves (a table duplicated to fill 128 partitions,
// a tensor with its halves swapped) often read it from HBM twice. On a DMA-bound kernel every
// second read is DMA time the engines can save: an elementwise copy of 64 partitions takes one
// engine pass, and the DMA queues move half the bytes (a hand-pipelined RoPE of that shape:
// 2.477 -> 1.594 ms).
//
// Legal from the form: both loads plain (no mask, no dtype), of one HBM tensor no operation of the
// kernel writes, in the same block, the first before the second; the second's region the first's
// up to a sub-range of the partition (first) dim, every other dim equal; no node between them
// writes an element of the on-chip region copied; same dtype on chip. Engines map partitions one to
// one and move data across partitions only by halves (33-64 partitions, starts 0 or 64) or
// quadrants (<= 32, starts multiples of 32) (trainium-performance.md 1.4, ARCH2): a copy that moves
// partitions otherwise is not offered. One site per kernel rewrites every such load, so a kernel
// that reads its tables twice per pipeline stage loses all its duplicated reads in one move.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

struct Reuse {
  int node = -1;         // the second load's statement
  Access from;           // the on-chip region the first load filled, at the partitions it reads
  bool forward = false;  // the second tile is the first's twin: its readers read the first
};

bool plain_load(const Kernel& k, const OpRef& r) {
  const Op& op = r.op();
  if (op.cls != OpClass::Load || op.engine != Engine::Dma || r.node->frozen || r.node->ops.size() != 1 ||
      !op.dtype.empty() || !op.dst || op.accumulate)
    return false;
  if (op.api != "nl.load" && op.api != "nisa.dma_copy") return false;
  const Operand* src = operand(op, "src");
  if (!src || src->kind != Operand::Kind::Tile || k.tensor(src->access.tensor).memory != Memory::Hbm) return false;
  return k.tensor(op.dst->tensor).memory == Memory::Sbuf;
}

// The one affine term of a dim indexed `start + a` over `size` elements (stride 1), with a
// constant start and size.
std::optional<std::pair<int64_t, int64_t>> span(const DimIndex& d) {
  if (d.terms.size() != 1 || !d.terms[0].affine() || d.terms[0].stride != 1 || !d.start.is_constant() ||
      !d.terms[0].size.is_constant())
    return std::nullopt;
  return std::make_pair(d.start.constant(), d.terms[0].size.constant());
}

// The rows of an HBM dim indexed `start + a` over a constant `size` (stride 1): (start, size).
std::optional<std::pair<IExpr, int64_t>> rows(const DimIndex& d) {
  if (d.terms.size() != 1 || !d.terms[0].affine() || d.terms[0].stride != 1 || !d.terms[0].size.is_constant())
    return std::nullopt;
  return std::make_pair(d.start, d.terms[0].size.constant());
}

// Engines keep partitions one to one, and cross them only by halves or quadrants (ARCH2).
bool engine_can_move(int64_t from, int64_t to, int64_t n) {
  if (from == to) return true;
  if (n <= 32) return from % 32 == 0 && to % 32 == 0;
  if (n <= 64) return (from == 0 || from == 64) && (to == 0 || to == 64);
  return false;
}

// The region of `first`'s destination holding what `second` loads, or nullopt.
std::optional<Access> region_on_chip(const Kernel& k, const Op& first, const Op& second) {
  const Access& h1 = operand(first, "src")->access;
  const Access& h2 = operand(second, "src")->access;
  if (h1.tensor != h2.tensor || h1.dims.size() != h2.dims.size() || h1.dims.empty() || h1.rank != h2.rank) return std::nullopt;
  for (size_t d = 1; d < h1.dims.size(); ++d)
    if (!(h1.dims[d] == h2.dims[d])) return std::nullopt;
  // The HBM rows: a constant sub-range of the first's, or the same rows of a tile that moves with
  // the loops (`g[off + i_p, i_f]` loaded twice in one iteration).
  auto s1 = rows(h1.dims[0]), s2 = rows(h2.dims[0]);
  if (!s1 || !s2 || h1.dims[0].terms[0].axis != h2.dims[0].terms[0].axis) return std::nullopt;
  const IExpr shift = s2->first - s1->first;
  if (!shift.is_constant()) return std::nullopt;
  const int64_t off = shift.constant(), n = s2->second;
  if (off < 0 || off + n > s1->second) return std::nullopt;
  const int axis = h1.dims[0].terms[0].axis;
  // The partition dim of each destination is indexed by the axis that walks the HBM rows.
  const Access &d1 = *first.dst, &d2 = *second.dst;
  const Tensor &t1 = k.tensor(d1.tensor), &t2 = k.tensor(d2.tensor);
  if (t1.dtype.empty() || t1.dtype != t2.dtype || t1.dtype != k.tensor(h1.tensor).dtype) return std::nullopt;
  const size_t p1 = static_cast<size_t>(t1.partition_dim), p2 = static_cast<size_t>(t2.partition_dim);
  if (p1 >= d1.dims.size() || p2 >= d2.dims.size()) return std::nullopt;
  auto q1 = span(d1.dims[p1]), q2 = span(d2.dims[p2]);
  if (!q1 || !q2 || d1.dims[p1].terms[0].axis != axis || d2.dims[p2].terms[0].axis != axis || q1->second != s1->second ||
      q2->second != n)
    return std::nullopt;
  Access from = d1;
  from.dims[p1].start = IExpr(q1->first + off);
  from.dims[p1].terms[0].size = IExpr(n);
  if (from.tile_shape() != d2.tile_shape()) return std::nullopt;
  if (!engine_can_move(q1->first + off, q2->first, n)) return std::nullopt;
  return from;
}

// Whether the tile `second` loads whole is a twin of the one `first` loaded whole (same shape,
// layout and dtype, the same region of the same HBM tensor): each written by that load alone, no
// view or list of either, and every read of the second after it in the same iteration of its loops.
// Its readers may then read the first, and the second load goes with no engine copy at all (a
// generated kernel that loads an operand once per use: `g` read three times per tile).
bool twin_tiles(const Kernel& k, const Analysis& an, const OpRef& first, const OpRef& second, const Access& from) {
  const Access &d1 = *first.op().dst, &d2 = *second.op().dst;
  if (!(from == d1) || d1.tensor == d2.tensor) return false;
  const Tensor &t1 = k.tensor(d1.tensor), &t2 = k.tensor(d2.tensor);
  if (!(d1 == whole_of(k, t1.id)) || !(d2 == whole_of(k, t2.id)) || t1.shape != t2.shape ||
      t1.partition_dim != t2.partition_dim || t1.memory != t2.memory || t1.base >= 0 || t2.base >= 0)
    return false;
  for (const Tensor* t : {&t1, &t2})
    if (!t->list_name.empty() || t->host_list || t->bound_items || !t->outer_lists.empty()) return false;
  for (const auto& u : k.tensors)
    if (u.base == t1.id || u.base == t2.id) return false;
  bool viewed = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    viewed = viewed || (n.view && (n.view->tensor == t1.id || n.view->tensor == t2.id));
  });
  if (viewed) return false;
  const auto w1 = an.writers(k, t1.id), w2 = an.writers(k, t2.id);
  if (w1.size() != 1 || w1[0] != &first || w2.size() != 1 || w2[0] != &second) return false;
  for (const OpRef* r : an.readers(k, t2.id))
    if (r->order < second.order || r->loops.size() < second.loops.size() ||
        !std::equal(second.loops.begin(), second.loops.end(), r->loops.begin()))
      return false;
  return true;
}

class ReuseLoaded : public Transform {
 public:
  std::string name() const override { return "reuse_loaded"; }
  std::string description() const override {
    return "copy on chip a region an earlier load of the same block already read from HBM, instead of reading it again";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    std::vector<Reuse> found;
    std::set<int> forwarded;  // tiles of the twins found so far
    const OpRef* anchor = nullptr;
    const Ranges ranges = k.ranges();
    for (const OpRef& second : an.ops) {
      if (!plain_load(k, second)) continue;
      const int hbm = operand(second.op(), "src")->access.tensor;
      if (!an.writers(k, hbm).empty()) continue;
      for (const OpRef& first : an.ops) {
        if (first.order >= second.order) break;
        if (first.block != second.block || !plain_load(k, first)) continue;
        // A tile whose reload already goes (its readers read its twin) is filled by nothing.
        if (forwarded.count(first.op().dst->tensor)) continue;
        auto from = region_on_chip(k, first.op(), second.op());
        if (!from || !same_mask(first.op(), second.op())) continue;
        const bool twin = twin_tiles(k, an, first, second, *from);
        // A mask (a ragged last tile) constrains the rows each load read: a copy keeps it only
        // from the same rows of the same partitions.
        if (second.op().has_mask && !twin && !(*from == *first.op().dst && from->dims == second.op().dst->dims))
          continue;
        // Nothing between them writes the copied region, and the second load's own destination is
        // not the region it would copy from.
        const std::set<int> shared(first.loops.begin(), first.loops.end());
        bool clobbered = may_overlap_within(k, *second.op().dst, *from, ranges, shared);
        for (size_t i = first.position + 1; i < second.position && !clobbered; ++i) {
          std::vector<Op*> between;
          ops_of((*first.block)[i], between);
          for (const Op* op : between)
            for (const Access* w : writes(*op))
              if (storage_of(k, w->tensor) == storage_of(k, from->tensor) &&
                  may_overlap_within(k, *w, *from, ranges, shared))
                clobbered = true;
        }
        if (clobbered) continue;
        found.push_back({second.node->id, *from, twin});
        if (twin) forwarded.insert(second.op().dst->tensor);
        if (!anchor) anchor = &second;
        break;
      }
    }
    if (found.empty()) return false;
    const size_t twins = static_cast<size_t>(std::count_if(found.begin(), found.end(), [](const Reuse& r) { return r.forward; }));
    Site s = make_site(k, an, *anchor,
                       twins == found.size()
                           ? fmt::format("read {} tile(s) loaded twice from HBM from the earlier load of the same region "
                                         "(no second DMA read, no copy)",
                                         found.size())
                           : fmt::format("copy {} region(s) loaded twice from HBM from the partitions an earlier load "
                                         "filled (an engine copy instead of a second DMA read)",
                                         found.size()),
                       {{"loads", std::to_string(found.size())}});
    s.relieves = {"dma"};
    if (twins < found.size()) s.feeds = {"dve"};
    return sink(s, [&k, found] { apply(k, found); });
  }

 private:
  static void apply(Kernel& k, const std::vector<Reuse>& found) {
    for (const Reuse& r : found) {
      Node* n = find_node(k, r.node);
      if (!n || n->ops.size() != 1) throw TransformError("reuse_loaded: the load is gone");
      const Op& load = n->ops[0];
      if (r.forward) {
        forward_twin(k, load.dst->tensor, r.from.tensor);
        keep_comments(k, *n);
        erase_node(k, r.node);
        continue;
      }
      Op cp;
      cp.api = "nisa.tensor_copy";
      cp.cls = OpClass::Copy;
      cp.engine = Engine::Vector;
      cp.result = load.result;
      cp.dst = load.dst;
      cp.dst_first = load.dst_first;
      cp.args = {arg("src", tile_operand(r.from))};
      // The same rows as the load (a ragged tile's guard): the mask and its argument as written.
      cp.mask = load.mask;
      cp.has_mask = load.has_mask;
      if (const Arg* m = load.arg("mask")) {
        Arg copy = *m;
        copy.positional = false;
        cp.args.push_back(copy);
      }
      n->ops = {cp};
      n->dirty = true;
      n->patch.clear();
    }
  }
  // The comment lines above the reload `n` (removed next) print above the statement after it in
  // its block, when there is one that has none carried already.
  static void keep_comments(Kernel& k, const Node& n) {
    size_t at = 0;
    std::vector<Node>* block = parent_block(k.body, n.id, at);
    if (block && at + 1 < block->size()) keep_leading_comments(n, (*block)[at + 1]);
  }
  // Every read of tile `from` reads its twin `to` (same shape and layout: the same access).
  static void forward_twin(Kernel& k, int from, int to) {
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      for (auto& op : n.ops)
        for (auto& a : op.args) {
          if (a.value.kind != Operand::Kind::Tile || a.output || a.value.access.tensor != from) continue;
          a.value.access.tensor = to;
          a.value.origin = nullptr;
          n.dirty = true;
        }
    });
  }
};

}  // namespace

std::unique_ptr<Transform> make_reuse_loaded() { return std::make_unique<ReuseLoaded>(); }

}  // namespace loopnest
