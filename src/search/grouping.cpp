#include "search/grouping.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace search {

namespace {

using Branch = std::pair<size_t, size_t>;  // (candidate, plan)

// The fastest correct kernel of each branch, in branch order.
std::map<Branch, const KernelResult*> best_per_branch(const std::vector<KernelResult>& results) {
  std::map<Branch, const KernelResult*> best;
  for (const auto& result : results) {
    if (!result.correct || result.latency_ms <= 0) continue;
    auto& slot = best[{result.candidate, result.plan}];
    if (!slot || result.latency_ms < slot->latency_ms) slot = &result;
  }
  return best;
}

agents::Candidate as_candidate(const KernelResult& result) {
  return {result.id, result.code, result.latency_ms, result.profile};
}

}  // namespace

std::vector<agents::RewritePair> find_rewrites(const std::vector<agents::Candidate>& beam,
                                               const std::vector<std::vector<agents::Plan>>& plans,
                                               const std::vector<KernelResult>& results, double t_pos, double t_neg,
                                               const std::string& task, int round) {
  std::vector<agents::RewritePair> pairs;
  for (const auto& [branch, best] : best_per_branch(results)) {
    const auto& candidate = beam.at(branch.first);
    if (candidate.latency_ms <= 0) continue;
    agents::RewritePair pair;
    pair.task = task;
    pair.round = round;
    pair.plan = plans.at(branch.first).at(branch.second);
    if (candidate.latency_ms >= t_pos * best->latency_ms) {
      pair.positive = true;
      pair.slow_code = candidate.kernel_text, pair.slow_latency_ms = candidate.latency_ms;
      pair.fast_code = best->code, pair.fast_latency_ms = best->latency_ms;
    } else if (best->latency_ms >= t_neg * candidate.latency_ms) {
      pair.positive = false;
      pair.slow_code = best->code, pair.slow_latency_ms = best->latency_ms;
      pair.fast_code = candidate.kernel_text, pair.fast_latency_ms = candidate.latency_ms;
    } else {
      continue;  // neither clearly better nor clearly worse: nothing to learn
    }
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

std::vector<agents::RewritePair> top_pairs(std::vector<agents::RewritePair> pairs, size_t topk) {
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.speedup() > b.speedup(); });
  if (pairs.size() > topk) pairs.resize(topk);
  return pairs;
}

bool same_evaluation(const agents::Candidate& a, const agents::Candidate& b) {
  if (!a.profile || !b.profile) return false;
  const trn::Profile &p = *a.profile, &q = *b.profile;
  // Rounding only: the simulator sums the same costs in another order for the copies' names.
  auto close = [](double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y)); };
  if (!close(a.latency_ms, b.latency_ms) || !close(p.latency, q.latency)) return false;
  if (p.instructions != q.instructions || p.hbm_read_bytes != q.hbm_read_bytes ||
      p.hbm_write_bytes != q.hbm_write_bytes || p.sbuf_read_bytes != q.sbuf_read_bytes ||
      p.sbuf_write_bytes != q.sbuf_write_bytes || p.psum_read_bytes != q.psum_read_bytes ||
      p.psum_write_bytes != q.psum_write_bytes || p.spill_save_bytes != q.spill_save_bytes ||
      p.spill_reload_bytes != q.spill_reload_bytes || p.hardware_flops != q.hardware_flops ||
      p.transpose_flops != q.transpose_flops)
    return false;
  if (p.engine_busy_ms.size() != q.engine_busy_ms.size()) return false;
  for (const auto& [engine, ms] : p.engine_busy_ms) {
    auto it = q.engine_busy_ms.find(engine);
    if (it == q.engine_busy_ms.end() || !close(ms, it->second)) return false;
  }
  return true;
}

std::vector<agents::Candidate> select_beam(const std::vector<agents::Candidate>& beam,
                                           const std::vector<KernelResult>& results, size_t beam_size) {
  std::vector<agents::Candidate> pool(beam.begin(), beam.end());
  for (const auto& [branch, best] : best_per_branch(results)) pool.push_back(as_candidate(*best));
  std::stable_sort(pool.begin(), pool.end(), [](const auto& a, const auto& b) { return a.latency_ms < b.latency_ms; });
  std::vector<agents::Candidate> next, twins;
  std::set<std::string> seen;
  for (auto& candidate : pool) {
    if (next.size() >= beam_size) break;
    if (!seen.insert(candidate.kernel_text).second) continue;
    bool twin = std::any_of(next.begin(), next.end(), [&](const auto& kept) { return same_evaluation(kept, candidate); });
    (twin ? twins : next).push_back(std::move(candidate));
  }
  for (auto& twin : twins) {
    if (next.size() >= beam_size) break;
    next.push_back(std::move(twin));
  }
  // Twins appended last: the beam stays fastest first.
  std::stable_sort(next.begin(), next.end(), [](const auto& a, const auto& b) { return a.latency_ms < b.latency_ms; });
  return next;
}

}  // namespace search
