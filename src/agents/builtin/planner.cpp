#include "agents/builtin/planner.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/core.h>

#include "agents/builtin/ast_edit.h"
#include "agents/builtin/experience.h"
#include "agents/builtin/legality.h"
#include "agents/builtin/loopnest_catalogue.h"
#include "agents/builtin/plan_text.h"
#include "agents/builtin/roofline.h"
#include "base/content_hash.h"
#include "base/plural.h"
#include "loopnest/transform.h"

namespace agents::builtin {

namespace {

// The first 64 bits of the project's content hash (base/content_hash.h).
uint64_t hash64(std::initializer_list<std::string_view> parts) {
  return std::stoull(base::content_hash(parts).substr(0, 16), nullptr, 16);
}
uint64_t text_hash(const std::string& text) { return hash64({text}); }

// What the draw knows a kernel by: the ops its loop-nest sites anchor on (`32x7x2/act(exp)#0`: the
// op by its place in the nest, the same in every style) when it lifts, else its text. The same nest
// written in another style draws alike, also when one style offers a site more on the same ops.
std::string draw_identity(const std::vector<Site>& sites, const std::string& kernel_text) {
  std::set<std::string> anchors;
  for (const auto& s : sites)
    // jam_rows of the rows' engine round trips (session 18) is offered on loops no other site
    // anchors on: left out, the other sites keep the ranks they had before it existed.
    if (auto a = s.params.find("anchor"); a != s.params.end() && !loopnest::overlaps_rows_only(s.transform, s.params))
      anchors.insert(a->second);
  if (anchors.empty()) return base::content_hash({kernel_text});
  std::string all;
  for (const auto& a : anchors) all += a + "\n";
  return base::content_hash({all});
}

// Weighted sampling without replacement by keys (Efraimidis & Spirakis 2006): each site draws
// u in (0, 1) from its own hash and ranks by log(u) / weight; the first n of that order are a
// draw of n sites with the successive-draw probabilities. A site's u depends on the seed, the call
// site, the kernel's identity and the site's own anchor only, so a site found in every style of a
// nest ranks the same in each, whatever other sites a style adds.
double draw_key(uint64_t seed, const std::string& tag, const std::string& kernel, const Site& site, double weight) {
  uint64_t h = hash64({std::to_string(seed), tag, kernel, site_anchor(site)});
  double u = (static_cast<double>(h >> 11) + 0.5) / 9007199254740992.0;  // 2^53
  return std::log(u) / weight;
}

// How much each symptom makes a transformation worth trying (multipliers on a base weight).
struct Affinity {
  double base;
  std::map<std::string, double> boost;
};

const std::map<std::string, Affinity>& affinities() {
  static const std::map<std::string, Affinity> table = {
      {"fuse_silu", {4.0, {{"act_busy", 2}, {"dve_busy", 2}, {"many_instructions", 1.5}}}},
      {"fold_tensor_scalar", {2.0, {{"dve_busy", 1.5}, {"act_busy", 1.5}, {"many_instructions", 1.5}}}},
      {"fold_into_activation", {2.0, {{"act_busy", 1.5}, {"dve_busy", 1.5}}}},
      {"algebraic_simplify", {2.0, {{"dve_busy", 1.5}}}},
      {"fuse_activation_reduce", {2.0, {{"dve_busy", 2}, {"many_instructions", 1.3}}}},
      {"free_size", {2.0, {{"many_instructions", 2}, {"dma_bound", 1.5}}}},
      {"hoist_invariant", {1.5, {{"dma_bound", 2}, {"pe_idle", 1.3}}}},
      {"sink_recompute", {0.6, {{"spill", 4}}}},
      {"interchange", {0.6, {{"dma_bound", 1.3}, {"spill", 1.3}}}},
      {"fuse_loops", {0.8, {{"spill", 2}, {"dma_bound", 1.3}}}},
      {"split_loop", {0.3, {{"spill", 1.5}}}},
      {"engine_move", {0.8, {{"engine_imbalance", 2.5}, {"dve_busy", 1.3}, {"act_busy", 1.3}}}},
      {"drop_psum_copy", {1.5, {{"dve_busy", 1.5}, {"act_busy", 1.3}}}},
      {"transpose_choice", {0.6, {{"pe_busy", 1.5}, {"dma_bound", 0.7}}}},
      {"forward_scratch", {2.0, {{"spill", 2}, {"dma_bound", 1.5}}}},
      {"hoist_load_loop", {3.0, {{"dma_bound", 2}, {"pe_idle", 1.3}, {"spill", 0.8}}}},
      // Softmax / attention (softmax_transforms.cpp): stage fusion removes the score-row spills;
      // reading PSUM and deferring the normalization take passes off ScalarE/VectorE.
      {"fuse_stages", {2.0, {{"spill", 4}, {"dma_bound", 1.5}}}},
      // read_copy_source's simulated gain partly comes from ScalarE and VectorE reading PSUM at once,
      // which NC-v2 serializes (not modelled): weighted below whole_row_reduce, its exact alternative.
      {"read_copy_source", {1.0, {{"dve_busy", 1.5}, {"act_busy", 1.3}, {"pe_idle", 1.3}}}},
      // Exact algebra that takes the scaling pass off the path between the probabilities and the
      // Tensor Engine (gqa_full's baseline 23.93 -> 19.89 ms in one move, its best 13.62 -> 11.70):
      // drawn like a fold (fuse_silu) rather than like a move that may cost.
      {"defer_normalization", {4.0, {{"dve_busy", 1.5}, {"act_busy", 1.3}, {"pe_idle", 1.3}}}},
      {"whole_row_reduce", {1.5, {{"dve_busy", 1.5}, {"many_instructions", 1.3}}}},
      {"fold_partitions", {0.3, {{"narrow_dma", 20}, {"dma_bound", 1.5}}}},
      {"chunk_free_axis", {0.4, {{"latency_bound", 10}, {"spill", 2}}}},
      // Matmul reuse (matmul_transforms.cpp): a streamed operand re-loaded per row tile shows as
      // DMA time; an operand re-prepared (transposed) per column block as PE time.
      {"unroll_jam", {1.5, {{"dma_bound", 2.5}, {"spill", 0.7}}}},
      {"reorder_reuse", {1.5, {{"pe_busy", 2}, {"dma_bound", 1.3}, {"spill", 0.7}}}},
      // Keeping every row's prepared operand costs SBUF: it gains only where the rows are small
      // (bmm, K = 64) and PE and DMA are both busy; elsewhere it mostly spills.
      {"pipeline_prep", {0.5, {{"pe_busy", 1.5}, {"spill", 0.3}}}},
      // The loop-nest form's transformations (src/loopnest), offered in any style.
      {"fold_silu", {4.0, {{"act_busy", 2}, {"dve_busy", 2}, {"many_instructions", 1.5}}}},
      {"fold_scalar_ops", {2.0, {{"dve_busy", 1.5}, {"act_busy", 1.5}, {"many_instructions", 1.5}}}},
      {"fold_scale", {2.0, {{"act_busy", 1.5}, {"dve_busy", 1.5}}}},
      // One instruction at 2N (N on the bf16 subtract-multiply path) for a tensor_scalar (N) and a
      // tensor_tensor (2N fp32) (trainium-measurements 2.3): a Vector Engine pass saved, like a fold.
      {"fold_scalar_tensor_tensor", {2.0, {{"dve_busy", 1.5}, {"many_instructions", 1.3}}}},
      {"fold_reciprocal", {2.0, {{"dve_busy", 1.5}}}},
      // A Vector Engine pass over the whole tile (x - rowmax) becomes the activation's bias.
      {"fold_bias", {2.0, {{"dve_busy", 2}, {"many_instructions", 1.3}}}},
      // The pass scaling the tile before a row max and an activation rides on the activation.
      {"fold_scale_through_reduce", {2.0, {{"dve_busy", 2}, {"many_instructions", 1.3}}}},
      {"engine_assign", {0.8, {{"engine_imbalance", 2.5}, {"dve_busy", 1.3}, {"act_busy", 1.3}}}},
      {"tile_size", {2.0, {{"many_instructions", 2}, {"dma_bound", 1.5}, {"latency_bound", 1.3}}}},
      {"fuse_nests", {1.0, {{"spill", 4}, {"dma_bound", 1.3}}}},
      {"fold_activation_reduce", {2.0, {{"dve_busy", 2}, {"many_instructions", 1.3}}}},
      {"reduce_row_once", {1.5, {{"dve_busy", 1.5}, {"many_instructions", 1.3}}}},
      // Its inverse: the row's reduction done chunk by chunk while the loop writes the row, so what
      // waits for the reduction (the exponentials, then the Tensor Engine's transposes of them) starts
      // one chunk after the loop instead of one whole-row pass after it (gqa_full by author56:
      // 12.20 -> 10.67 ms as written, 9.55 -> 8.49 ms from its best). A wait removed, no work.
      {"reduce_per_chunk", {2.0, {{"pe_idle", 1.5}, {"latency_bound", 1.5}}}},
      {"hoist", {1.5, {{"dma_bound", 2}, {"pe_idle", 1.3}}}},
      // A load redone per iteration of a loop it does not depend on: inputs read many times over.
      {"hoist_expand", {2.0, {{"rereads_inputs", 4}, {"dma_bound", 2}, {"pe_idle", 1.3}}}},
      // An instruction (and the loads feeding it) redone per iteration of a loop it does not depend
      // on (a scan's d * u per state): inputs re-read and the Vector / Scalar Engine work repeated.
      {"hoist_compute", {2.0, {{"rereads_inputs", 4}, {"dma_bound", 2}, {"dve_busy", 2}, {"act_busy", 1.5}}}},
      // Many small stores (2 KiB per partition: ~0.80 of the DMA's throughput, trainium-measurements'
      // "Throughput vs bytes per partition") become one per loop: DMA time and per-transfer cost.
      {"coalesce_stores", {1.0, {{"dma_bound", 3}, {"many_instructions", 1.3}}}},
      // Half-height tiles (P <= 64) of an elementwise loop re-laid on all 128 partitions: an engine
      // instruction costs the same on 64 partitions as on 128 (trainium-performance.md 1.4), so the
      // busy engine's time halves; the DMAs double in count, so not where they are the bound.
      {"fill_partitions", {2.0, {{"dve_busy", 2}, {"act_busy", 1.5}, {"pool_busy", 1.5}, {"dma_bound", 0.5}}}},
      // Tiles of P < 128 rows of an elementwise nest walked as 128-row tiles of flat views (P need
      // not divide 128, as fill_partitions' does): the busy engine's instructions do 128 / P times
      // the work each, and, unlike fill_partitions' split transfers, the DMAs become fewer and fuller
      // (adamw in 96-row tiles: VectorE-bound 2.22 -> 1.68 ms, at its DMA floor).
      {"retile_flat", {2.0, {{"dve_busy", 2}, {"act_busy", 1.5}, {"pool_busy", 1.5}, {"dma_bound", 1.3}}}},
      // A transpose (and its PSUM copy) redone per column block: Tensor Engine and copy time.
      {"hoist_transpose", {2.0, {{"pe_busy", 2}, {"dve_busy", 1.3}}}},
      {"jam_rows", {1.5, {{"dma_bound", 2.5}, {"spill", 0.7}}}},
      {"interchange_loops", {0.6, {{"dma_bound", 1.3}, {"spill", 1.3}}}},
      // Scalar expansion alone gains nothing (a wider buffer); the interchange it makes legal is drawn
      // like one, and its follow-up (the loads and products the moved loop no longer needs) comes as
      // the two-step plan's second move (hoist_compute, hoist_expand: rereads_inputs).
      {"expand_buffer", {0.3, {{"rereads_inputs", 2}}}},
      {"expand_interchange", {0.6, {{"rereads_inputs", 2}, {"dma_bound", 1.3}}}},
      // A loop run in order whose iterations are independent, written affine_range: the compiler
      // may then overlap them. One header changes and no work is added; where the kernel waits it
      // is drawn before every other site (waits_and_only_order_is_lifted, roofline.h).
      {"affine_loop", {3.0, {{"latency_bound", 2}}}},
      // The same for a kernel compiled without the middle end (program order on every engine).
      {"middle_end", {3.0, {{"latency_bound", 2}}}},
      // A hand-written ring (`buf[i % NBUF]`) declared per iteration: the loop's iterations then
      // commute, so affine_loop (then=affine_range, the same site) and jam_rows apply; alone it
      // changes no schedule and is drawn as the enabler of a two-step plan (gqa by author41: 12.42 ->
      // 9.24 ms with jam_rows by 4 on the privatized query-tile loop, the Tensor Engine idle between tiles).
      {"privatize_buffer", {2.0, {{"latency_bound", 2}, {"pe_idle", 1.5}}}},
      {"chunk_rows", {0.4, {{"latency_bound", 10}, {"spill", 2}}}},
      {"fold_rows", {0.3, {{"narrow_dma", 20}, {"dma_bound", 1.5}}}},
      // Frees a row's dead tiles at once: the next row's loads stop waiting for SBUF space. Where
      // the profile measures no such wait it is drawn last (frees_space_nobody_waits_for).
      {"in_place", {1.5, {{"latency_bound", 1.5}, {"pe_busy", 1.3}, {"spill", 1.5}, {"space_bound", 1.5}}}},
      // The norm-matmul nest (chain.cpp, feed_first.cpp): the Tensor Engine waits for each row's
      // ScalarE/VectorE normalization, or for PSUM copies queued behind independent work.
      {"forward_defer", {3.0, {{"pe_idle", 1.5}, {"spill", 2}, {"dma_bound", 1.3}}}},
      // An operand re-read per iteration of a loop it does not use (and, fed to a matmul
      // untransposed, re-transposed there): hoist_expand's inputs read many times over, and
      // hoist_transpose's Tensor Engine time.
      {"reuse_operand", {2.0, {{"rereads_inputs", 4}, {"dma_bound", 2}, {"pe_busy", 1.5}}}},
      {"feed_pe_first", {2.0, {{"pe_idle", 1.5}, {"pe_busy", 1.3}, {"latency_bound", 1.3}}}},
      // A consumer nest queued behind another row's stage on the engine it shares with its producer
      // (jammed rows' transposes, then their matmuls): no work removed, a wait; drawn like feed_pe_first.
      {"order_stages", {2.0, {{"pe_idle", 1.5}, {"pe_busy", 1.3}, {"latency_bound", 1.3}}}},
      // A composite call (nl.softmax) spelled out: the same instructions, so by itself no gain, but
      // its Vector / Scalar Engine passes become movable (fold_activation_reduce, engine_assign).
      // Worth a draw where those engines are busy or the engines do not overlap.
      {"open_composite", {1.5, {{"dve_busy", 1.5}, {"act_busy", 1.5}, {"latency_bound", 1.5}}}},
      // The same instructions with the accumulator's operand in PSUM (N, not 2N per fp32 add): drawn
      // like a fold where the Vector Engine is busy (mamba after chunk_rows and jam_rows: 96%).
      {"psum_accumulate", {2.0, {{"dve_busy", 2}}}},
      // A loop's tile sum read by one matmul, summed by the matmuls in PSUM instead: the Vector Engine's
      // adds go (usr_ds_sequential_colsum: 4 fp32 adds of [128, 384] at 2N each).
      {"matmul_accumulate", {2.0, {{"dve_busy", 2}, {"latency_bound", 1.5}}}},
      // A transposing DMA (element-wise descriptors) replaced by a PE transpose of a tile loaded
      // anyway: DMA time (usr_load_transpose_matmul: DMA loads 3.53 -> 1.00 us).
      {"transpose_on_pe", {2.0, {{"dma_bound", 2}, {"narrow_dma", 1.5}, {"latency_bound", 1.3}}}},
      // A split-K sum added into HBM by DMA read-modify-write, summed in PSUM instead: the RMW DMAs
      // (each reads the region back) and the per-chunk PSUM copies go (usr_splitk_dma_accumulate:
      // DMA 3.32 us busy, three copies on ACT).
      {"rmw_to_psum", {2.0, {{"dma_bound", 2}, {"act_busy", 1.3}, {"latency_bound", 1.3}}}},
      // A region read from HBM twice in one block (a table duplicated onto both partition halves),
      // copied on chip the second time: DMA bytes for one engine pass (reuse_loaded.cpp).
      {"reuse_loaded", {2.0, {{"dma_bound", 2}, {"rereads_inputs", 2}, {"narrow_dma", 1.5}}}},
      // A Tensor Engine result read by the Tensor Engine from PSUM, copied to SBUF where it is made:
      // the compiler's copy before every reading matmul goes, and PSUM is freed (a list of
      // transposes spilled; jam_rows' PSUM guard): alone often no faster, it opens jam_rows.
      {"evacuate_psum", {1.5, {{"spill", 2}, {"act_busy", 1.5}, {"dve_busy", 1.3}, {"dma_bound", 1.3}}}},
      // A row the DMA copies onto every partition (a zero-stride partition index) loaded once and
      // broadcast on chip: P-fold fewer DMA bytes, and a broadcast that fits a PSUM bank is read there
      // by the Vector Engine at N, not 2N (broadcast_on_chip.cpp; held-out mamba kernels).
      {"broadcast_on_chip", {2.0, {{"dma_bound", 2}, {"dve_busy", 1.5}, {"rereads_inputs", 1.5}}}},
      // A state loop outermost around its chunk loop with a full-row accumulator, made a pipelined
      // scan whose accumulator window sits in PSUM (pipeline_scan.cpp): the same instructions, each
      // accumulation at N instead of 2N on a busy Vector Engine (held-out author56's mamba).
      {"pipeline_scan", {2.0, {{"dve_busy", 2}}}},
  };
  return table;
}

std::string rationale(const Site& site, const Symptoms& symptoms, const trn::Profile* profile) {
  std::string why = site_description(site);
  if (!profile) return why + ".";
  return fmt::format(
      "{}. Profile: latency {:.4f} ms; busy PE {:.0f}%, ACT {:.0f}%, DVE {:.0f}%, POOL {:.0f}%, DMA {:.0f}%; "
      "spill {} B; {} instructions; symptoms {}.",
      why, profile->latency, 100 * busy_fraction(*profile, "pe"), 100 * busy_fraction(*profile, "act"),
      100 * busy_fraction(*profile, "dve"), 100 * busy_fraction(*profile, "pool"), 100 * busy_fraction(*profile, "dma"),
      profile->spill_save_bytes + profile->spill_reload_bytes, profile->instructions, to_string(symptoms));
}

// A site's entry in a kernel's menu, for telling which sites a rewrite's result offers that its
// parent did not: the move kind and, on the loop-nest form, the op it anchors on by kind and
// ordinal (`load#0`), without the loop trips (`16x8x32/`), which a coarsened or interchanged nest
// changes for every op. An AST rewrite (a kernel that does not lift) counts by its move kind.
std::string menu_key(const Site& site) {
  auto a = site.params.find("anchor");
  if (a == site.params.end()) return site.transform;
  auto slash = a->second.find('/');
  return site.transform + " " + (slash == std::string::npos ? a->second : a->second.substr(slash + 1));
}

std::set<std::string> menu_of(const std::vector<Site>& sites) {
  std::set<std::string> menu;
  for (const auto& s : sites) menu.insert(menu_key(s));
  return menu;
}

// Where a site goes in a draw: before every other (a move that only lifts ordering constraints
// where the kernel waits), by its key, or after every other (what cannot shorten the limiter).
enum class DrawPlace : uint8_t { First, ByKey, Last };

// Whether the sites include the one that writes every in-order loop affine (`affine_loop all=N`).
bool every_loop_site(const std::vector<Site>& sites) {
  return std::any_of(sites.begin(), sites.end(),
                     [](const Site& s) { return s.transform == "affine_loop" && s.params.count("all"); });
}

// `every_loop`: the kernel offers the site for all its in-order loops at once; that one goes first
// where the kernel waits, the single loops' sites are drawn by key (several of them would otherwise
// take a whole round's plans, each header alone rarely gaining).
DrawPlace draw_place(const Site& s, const std::optional<Roofline>& bounds, bool every_loop) {
  if (!bounds) return DrawPlace::ByKey;
  if (waits_and_only_order_is_lifted(s.transform, *bounds))
    return every_loop && !s.params.count("all") ? DrawPlace::ByKey : DrawPlace::First;
  if (gains_by_clock_on_one_timeline(s.transform, s.params, *bounds)) return DrawPlace::Last;
  if (shortens_only_unbinding_dma(*bounds, {s.relieves, s.feeds})) return DrawPlace::Last;
  if (overlaps_rows_without_waiting(s.transform, s.params, *bounds)) return DrawPlace::Last;
  if (only_reorders_iterations(s.transform, s.params, {s.relieves, s.feeds})) return DrawPlace::Last;
  if (adds_work_past_latency(s.adds, *bounds)) return DrawPlace::Last;
  if (leaves_a_saturated_limiter(s.transform, *bounds, {s.relieves, s.feeds})) return DrawPlace::Last;
  if (fuses_where_nothing_spills(s.transform, *bounds)) return DrawPlace::Last;
  if (moves_work_off_an_idle_engine(s.transform, s.params, *bounds)) return DrawPlace::Last;
  if (frees_space_nobody_waits_for(s.transform, *bounds)) return DrawPlace::Last;
  return DrawPlace::ByKey;
}

// A move between engines of one timeline onto an engine no faster than the source (GpSimd ->
// VectorE on NC-v2): the work stays on the timeline at the same speed, so it cannot shorten it.
bool stays_on_one_timeline(const Site& s, const std::optional<Roofline>& bounds) {
  return bounds && move_within_one_timeline(s.transform, s.params, *bounds) &&
         !gains_by_clock_on_one_timeline(s.transform, s.params, *bounds);
}

// Orders a draw (random key, index): by place, then by key.
void sort_draw(std::vector<std::pair<double, size_t>>& order, const std::vector<DrawPlace>& place) {
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (place[a.second] != place[b.second]) return place[a.second] < place[b.second];
    return a.first > b.first;
  });
}

// Why a draw came out empty, from what removed the sites found: the round line's "no plan: ...".
struct EmptyDraw {
  size_t found, fitting, planned_before, known_from_memory, known_result, one_timeline = 0;
};

std::string empty_draw_reason(const EmptyDraw& d) {
  if (d.found == 0) return "no transformation finds a site in the kernel";
  if (d.fitting == 0)
    return fmt::format("none of its {} fits the task's dimensions", base::count_of(static_cast<int64_t>(d.found), "site"));
  std::vector<std::string> parts;
  if (d.planned_before + d.known_from_memory + d.known_result + d.one_timeline == 0) return "no plan was asked for";
  if (d.planned_before) parts.push_back(fmt::format("{} planned before", d.planned_before));
  if (d.known_from_memory) parts.push_back(fmt::format("{} known from memory to gain nothing", d.known_from_memory));
  if (d.known_result) parts.push_back(fmt::format("{} leading to a kernel already seen", d.known_result));
  if (d.one_timeline)
    parts.push_back(fmt::format("{} moving work to an engine of the same timeline that is no faster", d.one_timeline));
  std::string why = fmt::format("of its {} ", base::count_of(static_cast<int64_t>(d.fitting), "site"));
  for (size_t i = 0; i < parts.size(); ++i) why += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return why;
}

}  // namespace

double prior_weight(const Site& site, const Symptoms& symptoms, const trn::Profile* profile) {
  // An interchange that leaves loads invariant in the new innermost loop (the form counts the HBM
  // reads it saves) is the hoist it makes possible, so it is drawn like one: the Mamba tutorial's
  // v1 -> v2 (state loop inside the channel loop) is this move alone. Other interchanges only
  // reorder the same work.
  bool saves_reads = site.transform == "interchange_loops" && site.params.count("reads_saved_kib");
  auto it = affinities().find(saves_reads ? "hoist_expand" : site.transform);
  double w = it == affinities().end() ? 0.5 : it->second.base;
  // The form's evidence that the kernel waits on on-chip space (a site freeing SBUF that one
  // iteration's tiles overflow, Site::relieves "sbuf") counts as the latency_bound symptom for it:
  // mamba's whole rows (9 tiles of 28 KiB per partition) with its Vector Engine 76% busy.
  Symptoms own = symptoms;
  if (site.relieves.count("sbuf")) own.insert("latency_bound");
  if (it != affinities().end())
    for (const auto& s : own)
      if (auto b = it->second.boost.find(s); b != it->second.boost.end()) w *= b->second;
  if (site.transform == "free_size" && site.params.count("value") && site.params.count("from")) {
    // Larger tiles cut fixed costs; smaller ones only pay off against spills.
    bool grows = std::stoll(site.params.at("value")) > std::stoll(site.params.at("from"));
    w *= grows ? (symptoms.count("spill") ? 0.7 : 1.5) : (symptoms.count("spill") ? 2.0 : 0.4);
  }
  if (site.transform == "free_size" && (site.params.count("var") || site.params.count("anchor")) &&
      site.params.count("value") && profile &&
      profile->hardware_flops > 0 && profile->mm_arithmetic_intensity < profile->peak_flops_bandwidth_ratio &&
      std::stoll(site.params.at("value")) < std::stoll(site.params.at("from"))) {
    // A matmul kernel below the roofline ridge reads more from HBM than its arithmetic needs: tiles
    // too large to stay resident are evicted and re-read (the simulator rematerializes clean tiles,
    // which is not counted as spill), e.g. matmul's 160 KiB column block. A smaller block (a size
    // variable, or the form's nested column block; not a loop's literal, which would only shorten
    // the matmuls) is then as worth trying as against a spill.
    w *= 5;
  }
  if (site.transform == "pipeline_prep" && site.params.count("source")) {
    // Transposed blocks of a tile already on chip: one small tile per block, not a row per
    // iteration, so no spill to fear; the Tensor Engine stops waiting on each block's copy.
    w = 2.0 * (symptoms.count("latency_bound") ? 1.5 : 1.0);
  }
  if (site.transform == "fuse_stages" && site.params.count("block")) {
    // Per iteration, a tile's consumer waits for its producer and the next producer queues behind
    // it; a block of two gives the engines an independent tile to overlap, four doubles the live
    // buffers again.
    const std::string& block = site.params.at("block");
    w *= block == "2" ? 1.5 : block == "1" ? 0.7 : 1.0;
  }
  if (site.transform == "tile_size" && site.params.count("direction")) {
    // Coarser tiles cut fixed costs; narrower ones pay off against spills and long dependence chains.
    bool grows = site.params.at("direction") == "coarsen";
    w *= grows ? (symptoms.count("spill") ? 0.7 : 1.5) : (symptoms.count("spill") ? 2.0 : 0.4);
  }
  if ((site.transform == "engine_move" || site.transform == "engine_assign") && profile && site.params.count("engine")) {
    std::string e = site.params.at("engine");
    std::string engine = e == "vector" ? "dve" : e == "scalar" ? "act" : "pool";
    w *= 1.2 - busy_fraction(*profile, engine);  // prefer the idlest engine
  }
  return std::max(w, 1e-3);
}

std::optional<std::string> BuiltinPlanner::new_kernel_of(const std::string& kernel_text, const Site& site,
                                                          const std::vector<loopnest::ArgSpec>& args, int nc_version) {
  try {
    std::string result = apply_site(kernel_text, site, args, "", nc_version);
    if (known_kernels_.insert(text_hash(result)).second) return result;
  } catch (const RewriteError&) {
    // the site does not apply after all: the executor would fail too
  }
  return std::nullopt;
}

std::optional<BoundStop> BuiltinPlanner::at_bound(const AgentContext& ctx, const Candidate& candidate) const {
  // Within a few percent of the part of the task's peak no kernel beats (its matmul FLOPs, its
  // compulsory bytes): nothing left to gain. The published peak's vector part is no such bound.
  if (near_peak(candidate.latency_ms, ctx.task.firm_peak_ms))
    return BoundStop{BoundStop::Kind::NearPeak, near_peak_detail(candidate.latency_ms, ctx.task.firm_peak_ms)};
  if (!candidate.profile) return std::nullopt;
  try {
    // At its memory bound (inputs read once, the DMA engines at their aggregate rate).
    const trn::ArchConfig& arch = trn::arch_config(ctx.task.arch);
    if (at_dma_floor(*candidate.profile, arch, input_bytes(ctx.task.kernel_args)))
      return BoundStop{BoundStop::Kind::AtDmaFloor, dma_floor_detail(*candidate.profile, arch)};
  } catch (const std::invalid_argument&) {
    // An unknown architecture: no memory floor.
  }
  return std::nullopt;
}

std::vector<Plan> BuiltinPlanner::propose(const AgentContext& ctx, const Candidate& candidate, const Memory& memory,
                                          int n) {
  if (at_bound(ctx, candidate)) return {};
  const int nc_version = nc_version_of(ctx.task.arch);  // the run's target: its branch of get_nc_version()
  std::vector<Site> sites = find_sites(candidate.kernel_text, ctx.task.kernel_args, "", nc_version);
  size_t found = sites.size();
  std::set<int64_t> dims = task_dimensions(ctx.task);
  std::erase_if(sites, [&](const Site& s) { return !plausible(s, dims, candidate.kernel_text); });
  size_t fitting = sites.size();
  std::set<std::string> menu = menu_of(sites);  // what this kernel offers (the sites move into the draw below)
  const trn::Profile* profile = candidate.profile ? &*candidate.profile : nullptr;
  Symptoms symptoms = profile ? diagnose(*profile) : Symptoms{};
  if (profile && rereads_inputs(*profile, input_bytes(ctx.task.kernel_args))) symptoms.insert("rereads_inputs");
  // The roofline: which family bounds the kernel (or whether it waits on dependences).
  std::optional<Roofline> bounds;
  if (profile) {
    try {
      bounds = roofline(*profile, trn::arch_config(ctx.task.arch));
    } catch (const std::invalid_argument&) {
      // An unknown architecture: the symptoms alone steer the draw.
    }
  }
  // Memory evidence per site: same transformation, similar symptoms, matching parameters; and
  // rewrites whose outcome on a kernel like this one is already known (known_no_gain).
  std::vector<ExperienceView> experience = use_memory_ ? read_memory(memory) : std::vector<ExperienceView>{};
  uint64_t kernel_hash = text_hash(candidate.kernel_text);
  std::string identity = draw_identity(sites, candidate.kernel_text);

  std::lock_guard lock(mutex_);
  known_kernels_.insert(kernel_hash);
  std::set<std::string>& tried = tried_[kernel_hash];
  // A transformation's weight is shared among its sites, so one with many sites (an engine move
  // per instruction) is not drawn more often just for being applicable everywhere.
  // (jam_rows of engine round trips shares among its own kind: how many a style offers leaves the
  // weight of the other jam_rows sites alone.)
  auto family = [](const Site& s) { return loopnest::overlaps_rows_only(s.transform, s.params) ? "jam_rows/overlap" : s.transform; };
  std::map<std::string, int> per_transform;
  for (const auto& s : sites) per_transform[family(s)]++;
  auto weight = [&](const Site& s, int sharing) {
    double w = prior_weight(s, symptoms, profile) / sharing;
    if (bounds) w *= roofline_weight(s.transform, s.params, *bounds, {s.relieves, s.feeds});
    if (!experience.empty()) w *= memory_site_weight(experience, symptoms, s);
    if (failures_) w *= failures_->penalty(ctx.task.name, s);
    return w;
  };
  const bool every_loop = every_loop_site(sites);
  std::vector<Site> open;
  std::vector<double> weights;
  std::vector<DrawPlace> place;  // drawn before / after every other site
  std::vector<Site> earlier;  // planned on this kernel before: enablers whose next follow-up may be due
  size_t planned_before = 0, known_from_memory = 0, known_result = 0, one_timeline = 0;
  for (auto& s : sites) {
    if (tried.count(s.key())) {
      ++planned_before;
      earlier.push_back(s);
      continue;
    }
    // Not drawn: the profile's architecture runs both engines on one timeline (VectorE <-> GpSimd
    // on NC-v2) and the destination's clock is not faster, so the move cannot shorten it. Onto the
    // faster clock it can (a scan's fp32 multiply per state moved to GpSimd on trn1: 1.12 -> 1.4
    // GHz for the same cycles), and it is drawn after every other site (draw_place).
    if (stays_on_one_timeline(s, bounds)) {
      ++one_timeline;
      continue;
    }
    // Not even drawn: memory holds this rewrite's (lack of) effect on a kernel like this one.
    if (!experience.empty() && known_no_gain(experience, s, ctx.task.name, candidate.latency_ms)) {
      ++known_from_memory;
      continue;
    }
    weights.push_back(weight(s, per_transform[family(s)]));
    place.push_back(draw_place(s, bounds, every_loop));
    open.push_back(std::move(s));
  }
  // The draw depends only on the seed, the call site and the kernel's nest: deterministic. Sites
  // that cannot shorten what bounds the kernel come after every other, in their own draw order.
  std::vector<std::pair<double, size_t>> order;
  for (size_t i = 0; i < open.size(); ++i)
    order.push_back({draw_key(seed_, ctx.tag, identity, open[i], weights[i]), i});
  sort_draw(order, place);
  // Lookahead for enabling moves: a move whose result offers sites this kernel does not (a new move
  // kind, or a move on an op that had none) may gain nothing alone and still open the way to one
  // that does; evaluated alone and found neutral, the beam drops it and memory calls it a dead end.
  // So the slots the kernel's own sites leave empty take two-step plans: a drawn move that opens
  // sites, then the first drawn of the sites it opens; also of moves planned on this kernel before
  // (an enabler whose first follow-up gained nothing).
  // Each two-step plan is one kernel, one evaluation: every evaluation stays within --N.
  // An enabler's follow-ups: the sites its result offers that this kernel does not, drawn once as
  // the kernel's own sites are; each call of next_pair takes the next one not planned yet.
  struct FollowUps {
    Site enabler;
    std::string result;
    std::vector<Site> next;
    std::vector<std::pair<double, size_t>> order;
    size_t at = 0;
    bool drawn = false;
  };
  auto draw_follow_ups = [&](FollowUps& f) {
    f.next = find_sites(f.result, ctx.task.kernel_args, "", nc_version);
    std::erase_if(f.next, [&](const Site& s) {
      return menu.count(menu_key(s)) || !plausible(s, dims, f.result) ||
             stays_on_one_timeline(s, bounds) ||
             (!experience.empty() && known_no_gain(experience, s, ctx.task.name, candidate.latency_ms));
    });
    std::map<std::string, int> sharing;
    for (const auto& s : f.next) sharing[s.transform]++;
    std::string next_identity = draw_identity(f.next, f.result);
    std::vector<DrawPlace> next_place;
    const bool next_every_loop = every_loop_site(f.next);
    for (size_t j = 0; j < f.next.size(); ++j) {
      const Site& s = f.next[j];
      f.order.push_back({draw_key(seed_, ctx.tag + "/then", next_identity, s, weight(s, sharing[s.transform])), j});
      next_place.push_back(draw_place(s, bounds, next_every_loop));
    }
    sort_draw(f.order, next_place);
    f.drawn = true;
  };
  auto next_pair = [&](FollowUps& f) -> std::optional<Plan> {
    if (!f.drawn) draw_follow_ups(f);
    std::set<std::string>& tried_next = tried_[text_hash(f.result)];
    while (f.at < f.order.size()) {
      const Site& s = f.next[f.order[f.at++].second];
      if (!tried_next.insert(s.key()).second || !new_kernel_of(f.result, s, ctx.task.kernel_args, nc_version)) continue;
      return make_two_step_plan(f.enabler, s, symptoms, rationale(s, symptoms, profile));
    }
    return std::nullopt;
  };
  std::vector<Plan> plans;
  std::vector<FollowUps> enablers;  // drawn moves and their results, in draw order
  for (const auto& [key, i] : order) {
    if (static_cast<int>(plans.size()) >= n) break;
    tried.insert(open[i].key());
    std::optional<std::string> result = new_kernel_of(candidate.kernel_text, open[i], ctx.task.kernel_args, nc_version);
    if (!result) {
      ++known_result;
      continue;
    }
    plans.push_back(make_plan(open[i], symptoms, rationale(open[i], symptoms, profile)));
    enablers.push_back({open[i], std::move(*result)});
  }
  // Two-step plans take only the slots the draw left (a kernel with few sites, or all planned
  // before): follow-ups of the moves drawn now, then of those planned on this kernel before. A pair
  // planned beside the draw took the slot of a drawn move that gains alone (held-out gqa_full: round
  // 1 fell from 1.638x to 1.136x, bundled bmm_softmax's round 3 from 4.22 to 4.50 ms).
  if (static_cast<int>(plans.size()) < n)
    for (const auto& s : earlier) {
      try {
        enablers.push_back({s, apply_site(candidate.kernel_text, s, ctx.task.kernel_args, "", nc_version)});
      } catch (const RewriteError&) {
        // no longer applies: no follow-ups
      }
    }
  for (bool added = true; added && static_cast<int>(plans.size()) < n;) {
    added = false;
    for (auto& f : enablers) {
      if (static_cast<int>(plans.size()) >= n) break;
      if (std::optional<Plan> pair = next_pair(f)) {
        plans.push_back(std::move(*pair));
        added = true;
      }
    }
  }
  if (plans.empty())
    no_plan_[kernel_hash] = empty_draw_reason({found, fitting, planned_before, known_from_memory, known_result, one_timeline});
  else
    no_plan_.erase(kernel_hash);
  return plans;
}

std::string BuiltinPlanner::why_no_plan(const Candidate& candidate) const {
  std::lock_guard lock(mutex_);
  auto it = no_plan_.find(text_hash(candidate.kernel_text));
  return it == no_plan_.end() ? std::string() : it->second;
}

// Hashes as hex text: JSON readers are not all exact beyond 2^53.
nlohmann::json BuiltinPlanner::saved_state() const {
  std::lock_guard lock(mutex_);
  nlohmann::json tried = nlohmann::json::object(), known = nlohmann::json::array();
  for (const auto& [hash, keys] : tried_) tried[fmt::format("{:016x}", hash)] = keys;
  for (uint64_t hash : known_kernels_) known.push_back(fmt::format("{:016x}", hash));
  nlohmann::json j = {{"format", "builtin-planner/1"}, {"tried", tried}, {"known_kernels", known}};
  if (failures_) j["failures"] = failures_->to_json();
  return j;
}

void BuiltinPlanner::restore_state(const nlohmann::json& state) {
  if (!state.is_object() || state.value("format", "") != "builtin-planner/1")
    throw std::runtime_error("the checkpoint's planner state is not the built-in planner's (another --agent?)");
  std::lock_guard lock(mutex_);
  tried_.clear();
  known_kernels_.clear();
  for (const auto& [hash, keys] : state.at("tried").items())
    tried_[std::stoull(hash, nullptr, 16)] = keys.get<std::set<std::string>>();
  for (const auto& hash : state.at("known_kernels")) known_kernels_.insert(std::stoull(hash.get<std::string>(), nullptr, 16));
  if (failures_ && state.contains("failures")) failures_->restore(state["failures"]);
}

}  // namespace agents::builtin
