// The built-in planner (see builtin_agents.h). Exposed for tests and the ablation benchmark.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "agents/agent.h"
#include "agents/builtin/symptoms.h"
#include "agents/builtin/transform.h"

namespace agents::builtin {

// The prior weight of a site given the kernel's symptoms (before memory).
double prior_weight(const Site& site, const Symptoms& symptoms, const trn::Profile* profile);

class BuiltinPlanner : public Planner {
 public:
  BuiltinPlanner(uint64_t seed, bool use_memory) : seed_(seed), use_memory_(use_memory) {}
  std::vector<Plan> propose(const AgentContext& ctx, const Candidate& candidate, const Memory& memory,
                            int n) override;

 private:
  uint64_t seed_;
  bool use_memory_;
  std::mutex mutex_;
  std::map<uint64_t, std::set<std::string>> tried_;  // kernel text hash -> site keys planned
};

}  // namespace agents::builtin
