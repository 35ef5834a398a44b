#include "search/grouping.h"

#include <algorithm>
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

std::vector<agents::Candidate> select_beam(const std::vector<agents::Candidate>& beam,
                                           const std::vector<KernelResult>& results, size_t beam_size) {
  std::vector<agents::Candidate> pool(beam.begin(), beam.end());
  for (const auto& [branch, best] : best_per_branch(results)) pool.push_back(as_candidate(*best));
  std::stable_sort(pool.begin(), pool.end(), [](const auto& a, const auto& b) { return a.latency_ms < b.latency_ms; });
  std::vector<agents::Candidate> next;
  std::set<std::string> seen;
  for (auto& candidate : pool) {
    if (next.size() >= beam_size) break;
    if (!seen.insert(candidate.kernel_text).second) continue;
    next.push_back(std::move(candidate));
  }
  return next;
}

}  // namespace search
