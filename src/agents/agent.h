// The four agent roles of the AccelOpt loop. The search loop talks only to these interfaces; the
// LLM agents (llm_agents.h) and the built-in rewrite agent (src/agents/builtin/) implement them.
//
// Threading contract: the loop calls one agent object from several threads at once (one call per
// candidate, plan or pair), so implementations must be safe for concurrent calls.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agents/memory.h"
#include "agents/types.h"

namespace agents {

// Where a call comes from. `tag` names the call site uniquely within a run
// ("silu/r3/c1/p4/k0"): LLM agents key their recorded answers by it, so that a resumed run
// replays the same answer instead of calling the model again.
struct AgentContext {
  const TaskInfo& task;
  int round = 0;
  std::string tag;
  // The call site without what the judge decided (the candidate's rank in the beam, the pair's
  // rank): "silu/r3/p4". LLM agents key `--replay` by it and by the texts they were given, so a
  // replay judged by another simulator or arch finds the recorded answers. "" = `tag`.
  std::string site;
};

// Why a kernel failed, as the fixer sees it.
struct Failure {
  std::string status;                    // "compile_error", "incorrect", "no_code", ...
  std::vector<std::string> diagnostics;
};

// Why a planner proposes nothing for a candidate: it is at a bound no rewrite can pass by more
// than a few percent. `detail` gives the figures ("0.9788 ms, within 5% of ...").
struct BoundStop {
  enum class Kind { NearPeak, AtDmaFloor };
  Kind kind = Kind::NearPeak;
  std::string detail;
};
inline const char* to_string(BoundStop::Kind kind) { return kind == BoundStop::Kind::AtDmaFloor ? "at DMA floor" : "near peak"; }

class Planner {
 public:
  virtual ~Planner() = default;
  // Up to `n` plans, each one optimization of `candidate`. Fewer (or none) on a failed sample.
  virtual std::vector<Plan> propose(const AgentContext& ctx, const Candidate& candidate, const Memory& memory,
                                    int n) = 0;
  // The bound `candidate` is at, when the planner will propose nothing for it for that reason
  // (the loop then asks propose() nothing, and ends the task when no candidate of a round has a
  // plan). Planners that never stop on a bound keep this default.
  virtual std::optional<BoundStop> at_bound(const AgentContext& /*ctx*/, const Candidate& /*candidate*/) const {
    return std::nullopt;
  }
  // Why the last propose() for `candidate` returned no plan although it is at no bound ("every
  // one of its 14 sites was planned before"): the round line says it. Empty when the planner
  // cannot tell (the loop then says the planner proposed none).
  virtual std::string why_no_plan(const Candidate& /*candidate*/) const { return {}; }
  // What the planner carries from call to call that shapes later proposals (the built-in one: the
  // sites already planned per kernel, the kernels already known, the rewrites that failed). The
  // loop saves it in every checkpoint and restores it on resume, so a resumed run proposes what
  // the uninterrupted run would have. Planners that carry nothing keep these defaults.
  virtual nlohmann::json saved_state() const { return nullptr; }
  virtual void restore_state(const nlohmann::json& /*state*/) {}
  // True when a proposal depends on the calls made before it (state shared across candidates, as
  // the built-in planner's "already known kernels"): the round then plans the beam's candidates
  // one after another in rank order, so that a run (and a resumed run) proposes the same plans
  // whatever the thread timing.
  virtual bool proposes_in_order() const { return false; }
};

class Executor {
 public:
  virtual ~Executor() = default;
  // `k` kernels that apply `plan` to `candidate`; a failed sample is a draft with ok == false.
  virtual std::vector<KernelDraft> write(const AgentContext& ctx, const Candidate& candidate, const Plan& plan,
                                         const Memory& memory, int k) = 0;
};

class Summarizer {
 public:
  virtual ~Summarizer() = default;
  // The experience item for one rewrite pair; nullopt when the sample failed.
  virtual std::optional<ExperienceItem> summarize(const AgentContext& ctx, const RewritePair& pair) = 0;
};

class Fixer {
 public:
  virtual ~Fixer() = default;
  // A repaired version of `code`, which failed with `failure`; `attempt` counts from 1.
  virtual KernelDraft fix(const AgentContext& ctx, const Plan& plan, const std::string& code, const Failure& failure,
                          int attempt) = 0;
};

// The agents of one run. `fixer` may be null (no repair).
struct AgentSet {
  std::shared_ptr<Planner> planner;
  std::shared_ptr<Executor> executor;
  std::shared_ptr<Summarizer> summarizer;
  std::shared_ptr<Fixer> fixer;
};

}  // namespace agents
