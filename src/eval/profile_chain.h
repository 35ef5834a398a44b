// The back end of the pipeline: trace -> lower -> simulate. A kernel run writes its instruction
// trace into sink(); the compiler stage (src/lower) lowers it as the Neuron compiler would and
// the NeuronCore simulator times it. A stage that fails must not throw into the kernel run (the interpreter would turn the
// exception into an error of its own): the chain records the typed failure of the stage that
// failed, drops the rest of the trace, and reports it after the run.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "eval/failure.h"
#include "lower/lowering.h"
#include "lower/options.h"
#include "trn/arch_config.h"
#include "trn/profile.h"
#include "trn/simulator.h"
#include "trn/trace.h"

namespace eval {

// How the back end runs a trace.
struct BackEndOptions {
  std::string timeline_path;  // Chrome trace JSON written here when non-empty
  lower::Options lowering;    // the compiler-stage rules (all by default)
  // Also price SBUF space (trn::SimOptions::price_sbuf_space: a second schedule, about twice the
  // simulation time). Only readers of Profile::sbuf_space_wait_ms need it: the agent's symptoms,
  // `accelopt eval` / `profile`; the fidelity suite and benchmarks turn it off.
  bool price_sbuf_space = true;
};

class ProfileChain {
 public:
  // `kernel_path` names the file in diagnostics. Throws std::runtime_error when the timeline file
  // cannot be created.
  ProfileChain(const trn::ArchConfig& arch, const std::string& kernel_path, const BackEndOptions& options = {});
  ~ProfileChain();
  ProfileChain(const ProfileChain&) = delete;
  ProfileChain& operator=(const ProfileChain&) = delete;

  trn::TraceSink& sink();
  // After the run has called sink().finish(): the failure of the stage that failed, if any.
  const std::optional<Failed>& failure() const { return failure_; }
  // The profile; valid when the run finished and failure() is empty.
  trn::Profile profile() const;
  // What each compiler-stage rule did (pipeline order).
  std::vector<std::pair<lower::Rule, lower::RuleStats>> lowering_stats() const { return lowering_->stats(); }

 private:
  class StageGuard;
  std::string arch_, kernel_path_;
  std::optional<Failed> failure_;
  std::unique_ptr<trn::Simulator> simulator_;
  std::unique_ptr<StageGuard> simulate_guard_;
  std::unique_ptr<lower::Lowering> lowering_;
  std::unique_ptr<StageGuard> lower_guard_;
};

}  // namespace eval
