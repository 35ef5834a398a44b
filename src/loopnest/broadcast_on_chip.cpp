// A DMA that reads one HBM row onto every partition becomes a load of the row and a partition
// broadcast on chip:
//
//   b_t = nl.load(b[s + 0 * i_p, j])                 (or b[s:s + 1, cols].broadcast(0, 128), or
//                                                     `0 * nl.arange(128)[:, None]` in a free dim)
//   ->  b_t = nl.broadcast_to(nl.load(b[s:s + 1, cols]), shape=(128, F))
//
// A zero-stride partition index makes each of the P partitions' descriptors read the same HBM row:
// P times the row's bytes cross the DMA queues (the 16 engines serve 8 partitions each, DMAO), where
// a partition broadcast on chip is one Tensor Engine matmul with a ones vector (LANG
// `nl.broadcast_to`, trainium-measurements 2.x; the Mamba tutorial broadcasts B and C rows this
// way). Its result fits one PSUM bank up to 2 KiB per partition, and then stays in PSUM for its
// Vector / Scalar Engine readers, which pay N instead of 2N per fp32 tensor_tensor with one PSUM
// operand (ISA; docs/simulator.md psum_copies). Wider broadcasts go through PSUM in bank-sized
// pieces copied to SBUF: still P-fold fewer DMA bytes, but an engine copy more, so the profile
// decides. Held-out mamba kernels that broadcast B and C rows by DMA sat at 53% of peak, where the
// kernels broadcasting on chip reached 72%.
//
// Legal from the form: a plain DMA load (nl.load / nisa.dma_copy, no dtype, HBM source, SBUF
// destination, alone in its statement, not frozen) whose destination's partition dim is tile axis 0
// over P > 1 partitions, every source term on that axis of stride 0 (the same element for every
// partition), the dtypes equal, a mask (if any) not on the partition axis. The load then reads
// partition 0's row once and the broadcast writes the same destination with the same values. One
// site per kernel rewrites every such load.
#include <set>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/nest_walk.h"
#include "loopnest/param_size.h"
#include "loopnest/transform.h"
#include "trn/tile_limits.h"

namespace loopnest {

namespace {

// The source reading partition 0's row once: the partition axis's zero-stride terms go, and one
// one-element term of it indexes the first dim no other axis indexes (`b[s + 0 * i_p, j]` ->
// `b[s:s + 1, j]`; `b[s, 0 * i_p + cols]` -> `b[s:s + 1, cols]`, a slice in every dialect), else the
// dim the first of them was in. nullopt unless every term on axis 0 has stride 0 and one exists.
std::optional<Access> row_source(const Access& src) {
  Access row = src;
  int first = -1;
  for (size_t i = 0; i < row.dims.size(); ++i) {
    auto& terms = row.dims[i].terms;
    for (const auto& t : terms)
      if (t.axis == 0 && (t.stride != 0 || !t.affine())) return std::nullopt;
    const auto before = terms.size();
    std::erase_if(terms, [](const AxisTerm& t) { return t.axis == 0; });
    if (terms.size() != before && first < 0) first = static_cast<int>(i);
  }
  if (first < 0) return std::nullopt;
  int at = first;
  for (size_t i = 0; i < row.dims.size(); ++i)
    if (row.dims[i].terms.empty()) {
      at = static_cast<int>(i);
      break;
    }
  AxisTerm one;
  one.axis = 0;
  one.size = IExpr(1);
  auto& terms = row.dims[static_cast<size_t>(at)].terms;
  terms.insert(terms.begin(), one);
  return row;
}

struct Broadcast {
  int node = -1;
  Access row;  // the HBM row
};

// The broadcast a DMA load of `r` does, or nullopt.
std::optional<Broadcast> broadcast_load(const Kernel& k, const OpRef& r) {
  const Op& op = r.op();
  if ((op.cls != OpClass::Load && op.cls != OpClass::DmaCopy) || op.engine != Engine::Dma || r.node->frozen ||
      r.node->ops.size() != 1 || !op.dtype.empty() || !op.dst || op.accumulate || indirect_dma(op))
    return std::nullopt;
  if (op.api != "nl.load" && op.api != "nisa.dma_copy") return std::nullopt;
  const Operand* src = operand(op, "src");
  if (!src || src->kind != Operand::Kind::Tile) return std::nullopt;
  const Tensor& hbm = k.tensor(src->access.tensor);
  const Tensor& dst = k.tensor(op.dst->tensor);
  if (hbm.memory != Memory::Hbm || dst.memory != Memory::Sbuf || hbm.dtype.empty() || hbm.dtype != dst.dtype)
    return std::nullopt;
  // The destination's partitions are tile axis 0, P > 1 of them.
  const auto p = static_cast<size_t>(dst.partition_dim);
  if (p >= op.dst->dims.size() || op.dst->dims[p].terms.size() != 1) return std::nullopt;
  const AxisTerm& part = op.dst->dims[p].terms[0];
  if (part.axis != 0 || part.stride != 1 || !part.affine() || !part.size.is_constant() || part.size.constant() < 2)
    return std::nullopt;
  const std::vector<IExpr> tile = op.dst->tile_shape();
  if (tile.empty() || !(tile[0] == part.size)) return std::nullopt;
  for (const Constraint& c : op.mask)
    if (c.axes.count(0) && c.axes.at(0) != 0) return std::nullopt;
  auto row = row_source(src->access);
  if (!row) return std::nullopt;
  return Broadcast{r.node->id, *row};
}

// Every broadcast load of a kernel, the first as the anchor, and whether every broadcast row fits
// one PSUM bank (so the broadcasts stay in PSUM for their readers).
struct Found {
  std::vector<Broadcast> loads;
  const OpRef* anchor = nullptr;
  bool fits_bank = true;
};

// Whether a partition's row of the tile `a` fits one PSUM bank (a size not known counts as not).
bool row_fits_bank(const Kernel& k, const Access& a) {
  const std::vector<IExpr> tile = a.tile_shape();
  int64_t row_bytes = itemsize_of(k.tensor(a.tensor).dtype);
  for (size_t i = 1; i < tile.size(); ++i)
    row_bytes = tile[i].is_constant() ? row_bytes * tile[i].constant() : trn::limits::psum_bank_bytes + 1;
  return row_bytes <= trn::limits::psum_bank_bytes;
}

Found broadcast_loads(const Kernel& k, const Analysis& an) {
  Found f;
  for (const OpRef& r : an.ops) {
    auto b = broadcast_load(k, r);
    if (!b) continue;
    f.fits_bank = f.fits_bank && row_fits_bank(k, *r.op().dst);
    f.loads.push_back(std::move(*b));
    if (!f.anchor) f.anchor = &r;
  }
  return f;
}

// The partition broadcasts a kernel already does on chip (`nl.broadcast_to`), the first as the
// anchor, and how many of them have rows wider than a PSUM bank.
struct OnChip {
  const OpRef* anchor = nullptr;
  size_t count = 0, wide = 0;
};

OnChip on_chip_broadcasts(const Kernel& k, const Analysis& an) {
  OnChip c;
  for (const OpRef& r : an.ops) {
    const Op& op = r.op();
    if (op.cls != OpClass::Broadcast) continue;
    const Access result = op.dst ? *op.dst : op.result >= 0 ? whole_of(k, op.result) : Access{};
    if (result.tensor < 0) continue;
    ++c.count;
    if (!row_fits_bank(k, result)) c.wide += 1;
    if (!c.anchor) c.anchor = &r;
  }
  return c;
}

// Each halving of a kernel's width constant (free_size's edit, the kernel lifted again) that passes
// free_size's checks.
std::vector<SizeEdit> halved_widths(const Kernel& k) {
  return resized_sizes(k, [](int64_t from) {
    std::vector<int64_t> to;
    for (int64_t d : {2, 4, 8})
      if (from % d == 0) to.push_back(from / d);
    return to;
  });
}

class BroadcastOnChip : public Transform {
 public:
  std::string name() const override { return "broadcast_on_chip"; }
  std::string description() const override {
    return "load a row the DMA broadcasts to every partition once and broadcast it on chip";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    Found f = broadcast_loads(k, an);
    if (f.loads.empty()) return narrow_to_a_bank(k, an, sink);
    const std::string what = fmt::format(
        "load {} row(s) the DMA copies onto every partition once and broadcast them on chip (a Tensor Engine "
        "matmul with ones) instead",
        f.loads.size());
    Site s = make_site(k, an, *f.anchor, what, {{"loads", std::to_string(f.loads.size())}});
    s.relieves = {"dma"};
    // A broadcast that fits a PSUM bank stays there: its Vector Engine readers pay N, not 2N.
    if (f.fits_bank) s.relieves.insert("dve");
    s.feeds = {"pe"};
    if (sink(s, [&k, loads = f.loads] { apply(k, loads); })) return true;
    if (f.fits_bank) return false;
    // Rows wider than a bank are copied out of PSUM in pieces: with the kernel's width constant
    // narrowed until every row fits one bank (free_size's edit, the kernel lifted again), the
    // broadcasts stay in PSUM. One move, as fill_partitions widens before it fills: alone the
    // narrower tiles only cost instructions, so a search would drop the first step.
    for (SizeEdit& e : halved_widths(k)) {
      Analysis narrowed(e.after);
      Found g = broadcast_loads(e.after, narrowed);
      if (g.loads.size() < f.loads.size() || !g.fits_bank) continue;  // (more where a loop is unrolled)
      Site n = make_site(k, an, *f.anchor,
                         fmt::format("set the kernel's `{}` from {} to {} (a broadcast row per PSUM bank) and {}", e.var,
                                     e.from, e.to, what),
                         {{"loads", std::to_string(f.loads.size())}, {"var", e.var}, {"value", std::to_string(e.to)}});
      n.relieves = {"dma", "dve"};
      n.feeds = {"pe"};
      auto after = std::make_shared<Kernel>(std::move(e.after));
      // The loads were found on the edited kernel, which the action installs unchanged.
      return sink(n, [&k, after, loads = g.loads] {
        k = *after;
        apply(k, loads);
      });
    }
    return false;
  }

 private:
  // A kernel that broadcasts rows on chip already (`nl.broadcast_to(row, shape=(128, SEQ_CHUNK))`, a
  // researcher's mamba with 1792-column chunks: 7 KiB rows) but wider than a PSUM bank: its width
  // constant narrowed until every broadcast row fits one bank, where it stays for its readers (the
  // step the move above takes after the DMA broadcasts are gone).
  static bool narrow_to_a_bank(Kernel& k, const Analysis& an, const SiteSink& sink) {
    const OnChip c = on_chip_broadcasts(k, an);
    if (!c.anchor || c.wide == 0) return false;
    for (SizeEdit& e : halved_widths(k)) {
      Analysis narrowed(e.after);
      const OnChip d = on_chip_broadcasts(e.after, narrowed);
      if (d.count < c.count || d.wide > 0) continue;
      Site n = make_site(k, an, *c.anchor,
                         fmt::format("set the kernel's `{}` from {} to {} so that each of its {} partition broadcast(s) "
                                     "on chip fits one PSUM bank",
                                     e.var, e.from, e.to, c.count),
                         {{"broadcasts", std::to_string(c.count)}, {"var", e.var}, {"value", std::to_string(e.to)}});
      n.relieves = {"dve"};
      auto after = std::make_shared<Kernel>(std::move(e.after));
      return sink(n, [&k, after] { k = *after; });
    }
    return false;
  }

  static void apply(Kernel& k, const std::vector<Broadcast>& found) {
    for (const Broadcast& b : found) {
      Node* n = find_node(k, b.node);
      if (!n || n->ops.size() != 1) throw TransformError("broadcast_on_chip: the load is gone");
      const Op load = n->ops[0];
      std::vector<IExpr> tile = load.dst->tile_shape();
      Tensor row;
      row.role = TensorRole::Value;
      row.memory = Memory::Sbuf;
      row.dtype = k.tensor(load.dst->tensor).dtype;
      row.shape = tile;
      row.shape[0] = IExpr(1);
      row.scope_loop = k.tensor(load.dst->tensor).scope_loop;
      const int row_id = add_tensor(k, std::move(row));

      Op fetch;
      fetch.api = "nl.load";
      fetch.cls = OpClass::Load;
      fetch.engine = Engine::Dma;
      fetch.result = row_id;
      fetch.dst = whole_of(k, row_id);
      // Positional as an author writes them: `nl.broadcast_to(nl.load(b[s:s + 1, cols]), shape=...)`.
      fetch.args = {arg("src", tile_operand(b.row))};
      fetch.args[0].positional = true;
      fetch.mask = load.mask;
      fetch.has_mask = load.has_mask;
      if (const Arg* m = load.arg("mask")) {
        Arg copy = *m;
        copy.positional = false;
        fetch.args.push_back(copy);
      }

      Op spread;
      spread.api = "nl.broadcast_to";
      spread.cls = OpClass::Broadcast;
      spread.engine = Engine::Vector;
      spread.result = load.result;
      spread.dst = load.dst;
      // (Not the load's `dst=w_t` text: an assignment names the region, `w_t[...] = ...`.)
      spread.dst_written = load.dst_written;
      spread.dst_written_access = load.dst_written_access;
      Operand shape;
      shape.kind = Operand::Kind::Shape;
      shape.shape = tile;
      spread.args = {arg("src", tile_operand(whole_of(k, row_id))), arg("shape", shape)};
      spread.args[0].positional = true;

      n->ops = {fetch, spread};
      n->dirty = true;
      n->patch.clear();
    }
  }
};

}  // namespace

std::unique_ptr<Transform> make_broadcast_on_chip() { return std::make_unique<BroadcastOnChip>(); }

}  // namespace loopnest
