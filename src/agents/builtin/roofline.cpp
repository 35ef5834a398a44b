#include "agents/builtin/roofline.h"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "agents/builtin/symptoms.h"
#include "loopnest/transform.h"
#include "tensor/dtype.h"

namespace agents::builtin {

Roofline roofline(const trn::Profile& p, const trn::ArchConfig& arch) {
  Roofline r;
  r.latency = p.latency;
  for (const char* f : {"dma", "pe", "dve", "act", "pool"}) {
    auto it = p.engine_busy_ms.find(f);
    r.busy[f] = it == p.engine_busy_ms.end() ? 0 : it->second;
  }
  if (arch.dma_bytes_per_ns() > 0)
    r.dma_ideal = arch.hbm_traffic_floor_ns(double(p.hbm_read_bytes), double(p.hbm_write_bytes)) * 1e-6;
  double flops_per_ms = arch.tensor_peak_flops() / 1e3;
  if (flops_per_ms > 0) r.pe_ideal = static_cast<double>(p.hardware_flops) / flops_per_ms;
  r.space_wait = space_wait_share(p);
  r.spills = p.spill_save_bytes + p.spill_reload_bytes > 0;
  r.dve_pool_shared = arch.shared_engine_ports;
  r.dve_ghz = arch.vector_ghz;
  r.pool_ghz = arch.gpsimd_ghz;
  for (const auto& [family, ms] : r.busy)
    if (ms > r.bound) r.bound = ms, r.limiter = family;

  if (r.latency > 0) r.serialization = std::max(0.0, (r.latency - r.bound) / r.latency);
  return r;
}

namespace {

// The families a transformation's sites take work off (or off the critical path).
const std::map<std::string, std::set<std::string>>& relieves() {
  static const std::map<std::string, std::set<std::string>> table = {
      {"fold_silu", {"dve", "act"}},
      {"fold_scalar_ops", {"dve", "act"}},
      {"fold_scale", {"dve", "act"}},
      {"fold_scalar_tensor_tensor", {"dve"}},
      {"fold_reciprocal", {"dve"}},
      {"fold_bias", {"dve"}},
      {"fold_scale_through_reduce", {"dve"}},
      {"fold_activation_reduce", {"dve"}},
      {"whole_row_reduce", {"dve"}},
      {"reduce_row_once", {"dve"}},
      // The reduction overlaps the loop writing the row: waiting goes, not any engine's work.
      {"reduce_per_chunk", {"serial"}},
      {"hoist", {"dma"}},
      {"hoist_expand", {"dma"}},
      {"hoist_compute", {"dma", "dve", "act"}},
      {"coalesce_stores", {"dma"}},
      {"fill_partitions", {"dve", "act", "pool"}},
      // Tiles of P < 128 rows walked as 128-row tiles of flat views: every engine instruction and
      // every DMA of the nest does 128 / P times the work for one fixed cost, and there are fewer.
      {"retile_flat", {"dma", "dve", "act", "pool"}},
      {"hoist_transpose", {"pe", "dve"}},
      {"jam_rows", {"dma", "pe"}},
      {"interchange_loops", {"dma", "pe"}},
      {"expand_interchange", {"dma", "pe"}},
      {"interchange", {"dma", "pe"}},
      {"chunk_rows", {"serial"}},
      // Iterations run in order overlap: the waiting between them goes, not any engine's work.
      {"affine_loop", {"serial"}},
      {"middle_end", {"serial"}},
      // The same for a loop a hand-written ring kept in order (privatize_buffer declares it per iteration).
      {"privatize_buffer", {"serial"}},
      {"fold_rows", {"dma", "dve", "act"}},
      {"algebraic_simplify", {"dve"}},
      {"drop_psum_copy", {"dve", "act"}},
      {"read_copy_source", {"dve", "act", "serial"}},
      // The scaling pass leaves the path between the probabilities and their transposes (on
      // whichever engine it ran: GpSimd after an engine move): gqa_full's Tensor Engine waited
      // for it (13.62 -> 11.70 ms with PE the limiter and 33% of the time waiting).
      {"defer_normalization", {"dve", "act", "pool", "serial"}},
      {"tile_size", {"dve", "act", "pool", "dma"}},
      {"free_size", {"dve", "act", "pool", "dma"}},
      {"fuse_nests", {"dma", "serial"}},
      {"fuse_stages", {"dma", "serial"}},
      {"forward_scratch", {"dma", "serial"}},
      {"hoist_invariant", {"dma"}},
      {"hoist_load_loop", {"dma"}},
      {"sink_recompute", {"serial"}},
      {"unroll_jam", {"dma", "pe"}},
      {"reorder_reuse", {"pe", "dma"}},
      {"pipeline_prep", {"serial", "pe"}},
      {"transpose_choice", {"pe"}},
      {"fold_partitions", {"dma"}},
      {"chunk_free_axis", {"serial"}},
      {"in_place", {"serial"}},
      {"forward_defer", {"dma", "serial"}},
      {"reuse_operand", {"dma", "pe"}},
      // Work is unchanged, but the Tensor Engine stops waiting behind other engines' queues: what
      // a kernel bound by the Tensor Engine with idle gaps needs.
      {"feed_pe_first", {"serial", "pe"}},
      // The same work; a consumer nest stops queueing behind another row's stage on their engine.
      {"order_stages", {"serial", "pe"}},
      // Opens the Vector / Scalar Engine passes of a composite to the moves that relieve them.
      {"open_composite", {"dve", "act", "serial"}},
      // The per-matmul PSUM copies (ScalarE / VectorE) and a spilled list's DMA go.
      {"evacuate_psum", {"act", "dve", "dma"}},
      // DMA bytes (P-fold) and, where the broadcast stays in PSUM, the readers' Vector Engine time.
      {"broadcast_on_chip", {"dma", "dve"}},
      // The accumulator's window fits a PSUM bank: its Vector Engine adds read PSUM at N, not 2N.
      {"pipeline_scan", {"dve"}},
  };
  return table;
}

std::string family_of_engine(const std::string& engine) {
  if (engine == "vector") return "dve";
  if (engine == "scalar") return "act";
  if (engine == "gpsimd") return "pool";
  return engine;
}

// Busy time of the timeline family `f` runs on (the Vector Engine and GpSimd share one when the
// architecture says so).
double timeline_busy(const Roofline& r, const std::string& f) {
  auto busy = [&](const std::string& g) { return r.busy.count(g) ? r.busy.at(g) : 0.0; };
  if (r.dve_pool_shared && (f == "dve" || f == "pool")) return busy("dve") + busy("pool");
  return busy(f);
}

// Whether families `a` and `b` run on one timeline: the same family, or the Vector Engine and
// GpSimd where the architecture shares their port.
bool one_timeline(const Roofline& r, const std::string& a, const std::string& b) {
  auto vector_side = [](const std::string& f) { return f == "dve" || f == "pool"; };
  return a == b || (r.dve_pool_shared && vector_side(a) && vector_side(b));
}

// The families a site relieves: the form's (with the table's "serial": waiting is not an engine's
// work), else the table's; none when neither says.
std::optional<std::set<std::string>> relieved_families(const std::string& transform, const SiteRelief& relief) {
  auto it = relieves().find(transform);
  if (it == relieves().end() && relief.relieves.empty()) return std::nullopt;
  std::set<std::string> families = relief.relieves;
  if (families.empty()) families = it->second;
  else if (it != relieves().end() && it->second.count("serial")) families.insert("serial");
  return families;
}

}  // namespace

bool move_within_one_timeline(const std::string& transform, const std::map<std::string, std::string>& params,
                              const Roofline& r) {
  if (!r.dve_pool_shared || (transform != "engine_move" && transform != "engine_assign")) return false;
  auto to = params.find("engine"), from = params.find("from");
  if (to == params.end() || from == params.end()) return false;
  std::set<std::string> pair = {family_of_engine(from->second), family_of_engine(to->second)};
  return pair == std::set<std::string>{"dve", "pool"};
}

bool gains_by_clock_on_one_timeline(const std::string& transform, const std::map<std::string, std::string>& params,
                                    const Roofline& r) {
  if (!move_within_one_timeline(transform, params, r)) return false;
  bool to_pool = family_of_engine(params.at("engine")) == "pool";
  return to_pool ? r.pool_ghz > r.dve_ghz : r.dve_ghz > r.pool_ghz;
}

namespace {

// Most of the time no family is busy: the kernel waits on dependences, not on an engine.
bool mostly_waiting(const Roofline& r) { return r.serialization > 0.3; }

}  // namespace

bool overlaps_rows_without_waiting(const std::string& transform, const std::map<std::string, std::string>& params,
                                   const Roofline& r) {
  return loopnest::overlaps_rows_only(transform, params) && r.latency > 0 && !mostly_waiting(r);
}

bool shortens_only_unbinding_dma(const Roofline& r, const SiteRelief& relief) {
  if (r.latency <= 0 || r.limiter.empty() || r.limiter == "dma" || mostly_waiting(r)) return false;
  return relief.relieves == std::set<std::string>{"dma"} && relief.feeds.empty();
}

bool only_reorders_iterations(const std::string& transform, const std::map<std::string, std::string>& params,
                              const SiteRelief& relief) {
  return transform == "interchange_loops" && !params.count("reads_saved_kib") && !relief.relieves.count("serial");
}

bool adds_work_past_latency(const std::map<std::string, double>& adds, const Roofline& r) {
  if (r.latency <= 0) return false;
  for (const auto& [family, ratio] : adds) {
    auto busy = r.busy.find(family);
    if (busy != r.busy.end() && busy->second * ratio >= r.latency) return true;
  }
  return false;
}

bool leaves_a_saturated_limiter(const std::string& transform, const Roofline& r, const SiteRelief& relief) {
  if (r.latency <= 0 || r.limiter.empty() || transform == "engine_move" || transform == "engine_assign") return false;
  if (timeline_busy(r, r.limiter) < kSaturatedShare * r.latency) return false;
  auto families = relieved_families(transform, relief);
  if (!families) return false;  // the move does not say: drawn by key
  return std::none_of(families->begin(), families->end(), [&](const std::string& f) { return one_timeline(r, f, r.limiter); });
}

bool moves_work_off_an_idle_engine(const std::string& transform, const std::map<std::string, std::string>& params,
                                   const Roofline& r) {
  if (r.latency <= 0 || r.limiter.empty() || (transform != "engine_move" && transform != "engine_assign")) return false;
  auto from = params.find("from");
  if (from == params.end()) return false;
  std::string src = family_of_engine(from->second);
  return !one_timeline(r, src, r.limiter) && timeline_busy(r, src) < kIdleSourceShare * r.latency;
}

bool fuses_where_nothing_spills(const std::string& transform, const Roofline& r) {
  return transform == "fuse_nests" && r.latency > 0 && !r.spills;
}

bool frees_space_nobody_waits_for(const std::string& transform, const Roofline& r) {
  return transform == "in_place" && r.space_wait && *r.space_wait < kSpaceBoundShare;
}

bool waits_and_only_order_is_lifted(const std::string& transform, const Roofline& r) {
  static const std::set<std::string> lifts_order_only = {"affine_loop", "middle_end"};
  return lifts_order_only.count(transform) > 0 && r.latency > 0 && r.serialization > 0.15;
}

double roofline_weight(const std::string& transform, const std::map<std::string, std::string>& params,
                       const Roofline& r, const SiteRelief& relief) {
  if (r.latency <= 0 || r.limiter.empty()) return 1;
  bool serial = mostly_waiting(r);
  if (transform == "engine_move" || transform == "engine_assign") {
    // Worth what it moves from a busier family to an idler one.
    auto to = params.find("engine");
    if (to == params.end()) return 1;
    std::string dst = family_of_engine(to->second);
    auto from = params.find("from");
    if (move_within_one_timeline(transform, params, r)) return 0.1;
    double src_busy = from == params.end() ? r.busy.at(r.limiter) : timeline_busy(r, family_of_engine(from->second));
    double gap = (src_busy - timeline_busy(r, dst)) / r.latency;
    return std::clamp(0.3 + 3 * gap, 0.1, 2.5);
  }
  // jam_rows admitted for its rows' engine round trips alone shares nothing: it wins back waiting
  // (a Tensor Engine idle while the Scalar Engine works on the same row), nothing on a busy engine;
  // and where the kernel waits it comes after the moves that remove a known wait or work
  // (pipeline_prep, folds), which it would otherwise crowd out of a round's few plans (the bundled
  // bmm_softmax 2.723x -> 2.495x at weight 2).
  if (loopnest::overlaps_rows_only(transform, params)) return !serial && r.serialization <= 0.15 ? 0.2 : 0.7;
  // The families measured on the form's site win over the table.
  auto relieved = relieved_families(transform, relief);
  if (!relieved) return 1;
  const std::set<std::string>& families = *relieved;
  if (families.count(r.limiter) && !serial) return 2.0;
  if (serial && families.count("serial")) return 2.0;
  // The form says one iteration's tiles do not fit beside the next one's ("sbuf"): the waiting is
  // on space, which the move frees.
  if (families.count("sbuf") && r.serialization > 0.15) return 2.0;
  if (relief.feeds.count(r.limiter) && r.serialization > 0.05) {
    // The limiting family reads what the move makes cheaper, and waits part of the time: the move
    // can win back up to that waiting, or up to the relieved families' busy time if less (swiglu:
    // the Tensor Engine busy 84% of the time, waiting on weight loads re-done per row block).
    double relieved = 0;
    for (const auto& f : families)
      if (auto b = r.busy.find(f); b != r.busy.end()) relieved = std::max(relieved, b->second / r.latency);
    return std::min(2.0, 1.0 + 3 * std::min(r.serialization, relieved));
  }
  // Part of the time no family is busy: a move against waiting is worth the more, the larger that
  // share (0.15 -> 1.0, 0.3 -> 1.45; matmul_add_rmsnorm waits 26% of the time with PE the limiter).
  if (r.serialization > 0.15 && families.count("serial")) return 1.0 + 3 * (r.serialization - 0.15);
  if (transform == "tile_size" && params.count("direction")) {
    // Coarser tiles cut fixed costs on a busy engine; narrower ones overlap a serial chain.
    bool grows = params.at("direction") == "coarsen";
    return serial ? (grows ? 0.8 : 1.6) : (grows ? 1.5 : 0.6);
  }
  return 0.7;
}

uint64_t input_bytes(const std::vector<loopnest::ArgSpec>& args) {
  uint64_t total = 0;
  for (const auto& a : args) {
    if (!a.is_array) continue;
    auto dtype = tensor::parse_dtype(a.dtype);
    uint64_t n = dtype ? static_cast<uint64_t>(tensor::itemsize(*dtype)) : 4;
    for (int64_t d : a.shape) n *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
    total += n;
  }
  return total;
}

double dma_floor_ms(const trn::Profile& p, const trn::ArchConfig& arch) {
  return arch.hbm_traffic_floor_ns(double(p.hbm_read_bytes), double(p.hbm_write_bytes)) * 1e-6;
}

bool at_dma_floor(const trn::Profile& p, const trn::ArchConfig& arch, uint64_t input_bytes, double margin) {
  if (arch.dma_bytes_per_ns() <= 0 || p.latency <= 0 || input_bytes == 0) return false;
  if (p.spill_save_bytes + p.spill_reload_bytes > 0) return false;
  if (static_cast<double>(p.hbm_read_bytes) > 1.02 * static_cast<double>(input_bytes)) return false;
  return p.latency <= (1 + margin) * dma_floor_ms(p, arch);
}

bool rereads_inputs(const trn::Profile& p, uint64_t input_bytes) {
  if (input_bytes == 0 || p.spill_save_bytes + p.spill_reload_bytes > 0) return false;
  return static_cast<double>(p.hbm_read_bytes) > 2.0 * static_cast<double>(input_bytes);
}

std::string dma_floor_detail(const trn::Profile& p, const trn::ArchConfig& arch, double margin) {
  uint64_t bytes = p.hbm_read_bytes + p.hbm_write_bytes;
  return fmt::format("{:.4f} ms is within {:.0f}% of its HBM traffic ({:.1f} MB, inputs read once, no spill) at the "
                     "DMA engines' {:.0f} B/ns{} ({:.4f} ms)",
                     p.latency, 100 * margin, static_cast<double>(bytes) / 1e6, arch.dma_bytes_per_ns(),
                     arch.dma_directions ? fmt::format(" per direction, {:.0f} B/ns of HBM", arch.hbm_bytes_per_ns) : "",
                     dma_floor_ms(p, arch));
}

std::string near_peak_detail(double latency_ms, double peak_ms, double margin) {
  return fmt::format("{:.4f} ms is within {:.0f}% of the task's firm peak ({:.4f} ms: its matmul FLOPs and "
                     "compulsory bytes, {:.1f}% of it)",
                     latency_ms, 100 * margin, peak_ms, 100 * peak_ms / latency_ms);
}

bool near_peak(double latency_ms, double peak_ms, double margin) {
  return peak_ms > 0 && latency_ms > 0 && latency_ms <= (1 + margin) * peak_ms;
}

}  // namespace agents::builtin
