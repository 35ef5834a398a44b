// The built-in planner (see builtin_agents.h). Exposed for tests and the ablation benchmark.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "agents/agent.h"
#include "agents/builtin/failure_log.h"
#include "agents/builtin/symptoms.h"
#include "agents/builtin/transform.h"

namespace agents::builtin {

// The prior weight of a site given the kernel's symptoms (before memory).
double prior_weight(const Site& site, const Symptoms& symptoms, const trn::Profile* profile);

class BuiltinPlanner : public Planner {
 public:
  // `failures` (shared with the built-in fixer) down-weights rewrites the harness rejected; null = none.
  BuiltinPlanner(uint64_t seed, bool use_memory, std::shared_ptr<FailureLog> failures = nullptr)
      : seed_(seed), use_memory_(use_memory), failures_(std::move(failures)) {}
  std::vector<Plan> propose(const AgentContext& ctx, const Candidate& candidate, const Memory& memory,
                            int n) override;
  // Within 3% of the task's firm peak (near_peak), or at its memory floor (at_dma_floor): propose()
  // returns nothing for such a candidate.
  std::optional<BoundStop> at_bound(const AgentContext& ctx, const Candidate& candidate) const override;
  // What emptied the draw: no site, none fitting the task, or every site planned before, known
  // from memory to gain nothing, or leading to a kernel already seen (the counts of each).
  std::string why_no_plan(const Candidate& candidate) const override;
  // tried_, known_kernels_ and the failure log (shared with the built-in fixer).
  nlohmann::json saved_state() const override;
  void restore_state(const nlohmann::json& state) override;
  // known_kernels_ is shared across the beam's candidates: which candidate claims a rewrite that
  // two of them lead to depends on the order of the calls.
  bool proposes_in_order() const override { return true; }

 private:
  // The rewrite's result, recorded as known; nullopt when it is a kernel already known (or does not apply).
  std::optional<std::string> new_kernel_of(const std::string& kernel_text, const Site& site,
                                           const std::vector<loopnest::ArgSpec>& args, int nc_version);

  uint64_t seed_;
  bool use_memory_;
  std::shared_ptr<FailureLog> failures_;
  mutable std::mutex mutex_;
  std::map<uint64_t, std::set<std::string>> tried_;  // kernel text hash -> site keys planned
  // Hashes of every candidate seen and every rewrite planned: a plan that leads back to one of
  // them (an engine moved back, a size halved after doubling) would re-evaluate known ground.
  std::set<uint64_t> known_kernels_;
  std::map<uint64_t, std::string> no_plan_;  // kernel text hash -> why its last draw was empty
};

}  // namespace agents::builtin
