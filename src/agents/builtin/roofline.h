// The roofline of a profiled kernel, after AWS's performance-bounds model
// (trainium-measurements.md section 4): per engine family the time it is busy, the ideal time of
// the data movement and of the matmuls at peak, the perfect-pipeline bound (the busiest family)
// and the serialisation gap above it. The planner draws the moves that relieve the family that
// bounds the kernel, and stops a task whose kernel is within a few percent of the task's peak.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "loopnest/arg_spec.h"
#include "trn/arch_config.h"
#include "trn/profile.h"

namespace agents::builtin {

struct Roofline {
  double latency = 0;                 // ms
  std::map<std::string, double> busy;  // ms per family: "dma", "pe", "dve", "act", "pool"
  double dma_ideal = 0;               // HBM bytes at the peak DMA bandwidth, ms (dma_floor_ms)
  double pe_ideal = 0;                // matmul FLOPs at the Tensor Engine's peak, ms
  double bound = 0;                   // perfect pipeline: the busiest family, ms
  std::string limiter;                // that family
  double serialization = 0;           // (latency - bound) / latency: waiting on dependences
  // The Vector Engine and GpSimd run on one timeline (NC-v2 shares their SBUF port: ARCH2,
  // trn::ArchConfig::shared_engine_ports): work moved between them does not overlap, and work moved
  // onto either waits for both. (bound / limiter still take the families one by one.)
  bool dve_pool_shared = false;
  // Clock of the Vector Engine and of GpSimd, GHz: an instruction costs them the same cycles (the
  // ISA's cost table; GpSimd reads 32 bits per partition per cycle, trainium-performance.md 1.4),
  // so on one timeline work moved to the faster clock still shortens it.
  double dve_ghz = 0, pool_ghz = 0;
  // Share of the latency a compute instruction waited on SBUF space (symptoms.h space_wait_share);
  // empty when the profile does not say.
  std::optional<double> space_wait;
  // Bytes spilled to HBM and read back (neuron-profile's spill_save / spill_reload): the kernel's
  // tiles do not all fit on chip at once.
  bool spills = false;
};

Roofline roofline(const trn::Profile& p, const trn::ArchConfig& arch);

// Where a site saves time when its transformation found that on the loop-nest form (the engine
// families of the operations it runs fewer times, and of those that wait on them: Site::relieves /
// feeds). Empty `relieves`: the transformation's own table.
struct SiteRelief {
  std::set<std::string> relieves, feeds;
};

// How much a transformation's site is worth on a kernel with this roofline: > 1 when it relieves
// the family that bounds the kernel (or the serialisation), or work the limiting family waits on
// while the kernel's latency is above its bound; < 1 when it relieves only families nobody waits on.
// An engine move between two engines of one timeline (Vector Engine <-> GpSimd on NC-v2): the work
// stays on the same timeline, so it can gain only by the destination's faster clock.
bool move_within_one_timeline(const std::string& transform, const std::map<std::string, std::string>& params,
                              const Roofline& r);
// Such a move onto the engine with the faster clock (VectorE -> GpSimd on Trn1: 1.12 -> 1.4 GHz):
// the same cycles in less time. The planner draws it after every other site; the reverse move, or
// one between equal clocks, cannot gain and is not drawn.
bool gains_by_clock_on_one_timeline(const std::string& transform, const std::map<std::string, std::string>& params,
                                    const Roofline& r);

// A site that only shortens DMA transfers no engine waits on (the form found it relieves DMA alone
// and feeds no family: a store's transfers, coalesce_stores) while another family bounds the kernel
// and the kernel is not mostly waiting (roofline_weight's `serial`). The perfect-pipeline bound is
// the limiter's busy time and stays where it is, and nothing on the critical path reads what the
// move speeds up: the move cannot gain (rmsnorm_matmul and add_rmsnorm_matmul, PE-bound, lost ~0.3%
// to coalesce_stores). The planner draws such sites after every other.
bool shortens_only_unbinding_dma(const Roofline& r, const SiteRelief& relief);

// jam_rows admitted for its rows' engine round trips alone (param `overlap`) shares nothing: where
// the kernel is not mostly waiting it is drawn after every other site, so it never takes a round's
// plan from a move that removes work or a known wait.
bool overlaps_rows_without_waiting(const std::string& transform, const std::map<std::string, std::string>& params,
                                   const Roofline& r);

// An interchange whose site carries no evidence (no `reads_saved_kib`: on the form no load of the
// inner body becomes invariant in the new innermost loop; no "serial" relief: both loops run their
// iterations alike, neither in order) runs the same instructions on the same bytes, only in another
// program order, which the compiler's scheduler already relaxes (readiness order, first-fit across
// independent iterations). Drawn by key it took plans from moves with a mechanism: over four agent
// runs (held-out author37, author38, author40, the bundled 14; sessions 32-33) 21 such draws changed
// nothing 17 times, lost 3 times (up to 44%) and gained once (0.75%). The planner draws it after
// every other site. (A swap of an affine loop with one run in order, which does change what may
// overlap, gained 1.21x on a fifth held-out set's silu: it is not such a site.)
bool only_reorders_iterations(const std::string& transform, const std::map<std::string, std::string>& params,
                              const SiteRelief& relief);

// A site whose move makes an engine family run more instructions (the form's Site::adds: family ->
// ratio, reorder_reuse) where that family's busy time times the ratio reaches the kernel's
// latency: the family alone would then take as long as the whole kernel does now, so the move
// cannot gain. Over the stored agent runs of sessions 32-33 every reorder_reuse that reordered back
// (the rows' transposes run per column block again: 1.2-1.9x the Tensor Engine's instructions, 94-100%
// busy) lost: 20 draws on the bundled matmul and lora, 0.34-0.94x; validated on two held-out sets
// not used to choose it (author39 6 draws, author37 2, all losses; their gains, 1.751x and 1.150x,
// add no Tensor Engine work). The planner draws such sites after every other.
bool adds_work_past_latency(const std::map<std::string, double>& adds, const Roofline& r);

// A family busy for at least kSaturatedShare (99%) of the latency bounds the kernel by its busy time
// (latency >= busy, the bounds model): a move that takes none of that family's work (its families,
// from the form or the table, leave out the limiter's timeline) can win at most that share. Over
// seven stored agent runs of sessions 33-34 (the bundled 14, held-out author37-42; each draw against
// its parent's profile) no such draw gained on a kernel whose compute family was busy >= 99% of the
// latency: jam_rows sharing loads or overlapping rows 0 of 40 (33 losses, to 0.19x where its
// copies spilled), fuse_nests 0 of 9, hoist_expand 0 of 6, interchange 0 of 5, in_place 0 of 4,
// affine_loop 0 of 4; the gains there cut the limiter's busy time (folds and coarser tiles on a
// saturated Vector Engine). On a saturated DMA the moves that share loads (jam_rows 9 gains to
// 1.376x, hoist_expand 3) relieve it and stay. Engine moves keep their own weighting. The planner
// draws such sites after every other.
constexpr double kSaturatedShare = 0.99;
bool leaves_a_saturated_limiter(const std::string& transform, const Roofline& r, const SiteRelief& relief);

// An engine move whose source family is not the limiter (nor on its timeline) and is busy less
// than kIdleSourceShare of the latency takes work off an engine nothing waits for: the limiter's
// busy time stays, and so does the latency. Over seven stored agent runs of sessions 33-34 such
// draws changed the latency by at most 0.11% (33 draws, 0.9989-1.0005x: VectorE -> ScalarE moves on
// the Tensor-Engine-bound swiglu, rmsnorm_matmul, add_rmsnorm_matmul, gqa_full); the gains came from
// moves off the limiter (VectorE -> GpSimd on a VectorE-bound mamba, to 1.083x) or off an engine busy
// >= 69% of a DMA-bound kernel (adamw 1.110x). The planner draws them after every other site.
constexpr double kIdleSourceShare = 0.5;
bool moves_work_off_an_idle_engine(const std::string& transform, const std::map<std::string, std::string>& params,
                                   const Roofline& r);

// fuse_nests shortens the lives of the buffers between two loops (each one iteration's or one
// block's instead of the whole range's): its gain is the spill it removes. On a kernel that spills
// nothing it fused stages that could overlap as separate loops. Over nine stored agent runs of
// sessions 33-34 (the bundled 14 twice, held-out author37-42) such draws gained 29 of 116 times,
// at most 1.036x, and lost 52 times (to 0.60x: gqa_full's score and softmax stages fused);
// on a spilling parent 14 of 16 gained, to 2.168x (bmm_softmax, 772 MB of spill gone). The planner
// draws it after every other site where the profile shows no spill.
bool fuses_where_nothing_spills(const std::string& transform, const Roofline& r);

// A move that adds no instruction and changes no cost, only lifts ordering constraints of the
// schedule (affine_loop: a loop run in order written affine_range), on a kernel that waits part
// of the time (serialization above 0.15, where roofline_weight starts to favour moves against
// waiting). In a list schedule with fewer constraints nothing starts later but by scheduling
// anomalies, and the waiting is what it can win: the planner draws such sites before every other
// (the legacy rope, its `range` loop run in order: 4.108 -> 2.890 ms on trn1 in one move).
bool waits_and_only_order_is_lifted(const std::string& transform, const Roofline& r);

// in_place's only effect is a smaller footprint: a result written over its dying input frees that
// tile's space sooner. Where the profile measured (almost) no wait on SBUF space (share below
// kSpaceBoundShare) nothing starts earlier for it, and the planner draws it after every other site.
// Over the stored agent runs (sessions 32-33, docs/builtin_agent.md "in_place") such draws gained
// 0 of 16 times on the runs the threshold was chosen on, and 3 of 28 times (<= 0.84%) on three
// others. (chunk_rows also frees space, but gains without any wait: rope 1.13-1.24x. Not such a site.)
bool frees_space_nobody_waits_for(const std::string& transform, const Roofline& r);

double roofline_weight(const std::string& transform, const std::map<std::string, std::string>& params,
                       const Roofline& r, const SiteRelief& relief = {});

// A kernel within `margin` of the task's firm peak (TaskInfo::firm_peak_ms: the matmul and HBM
// parts of the published bound, which no kernel beats) has nothing left a rewrite could gain: the
// planner stops the task.
bool near_peak(double latency_ms, double peak_ms, double margin = 0.03);

// Bytes a kernel must read from HBM: each array argument once.
uint64_t input_bytes(const std::vector<loopnest::ArgSpec>& args);

// The task's peak assumes the published 410 GiB/s; the DMA engines move at most their aggregate
// rate (16 x 17 B/ns on Trn1, trainium-performance.md 1.6; per direction, the sum capped by HBM,
// with ArchConfig::dma_directions): the least time its HBM traffic takes, ms.
double dma_floor_ms(const trn::Profile& p, const trn::ArchConfig& arch);
// A kernel that reads each input once (no
// reloads, no spill: its traffic is what the task needs) and whose latency is within `margin` of
// that traffic at the aggregate rate is at its memory bound: no rewrite can gain more than the
// margin, part of which is the first load and the last store that nothing overlaps (bmm: 1.07 GiB
// of fp32 output, 4.07 ms of DMA; its best kernel takes 4.21 ms, 3.4% above).
bool at_dma_floor(const trn::Profile& p, const trn::ArchConfig& arch, uint64_t input_bytes, double margin = 0.05);
// The kernel reads its inputs from HBM more than twice over (HBM reads > 2x the arguments' bytes,
// no spill): a load redone per iteration of a loop it does not depend on (a weight per row tile).
bool rereads_inputs(const trn::Profile& p, uint64_t input_bytes);

// What the planner says when it stops at one of the two bounds above: the figures, e.g.
// "4.1380 ms is within 5% of its HBM traffic (1.12 GB read once, no spill) at 272 B/ns (4.0710 ms)".
std::string dma_floor_detail(const trn::Profile& p, const trn::ArchConfig& arch, double margin = 0.05);
std::string near_peak_detail(double latency_ms, double peak_ms, double margin = 0.03);

}  // namespace agents::builtin
