// How the loop gets kernels checked and profiled. CachedEvaluator sends them to an eval::Executor
// (local workers or Slurm) and caches results by content key in the run journal, so identical
// kernels are evaluated once and a resumed run re-evaluates nothing.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "eval/evaluation.h"
#include "eval/executor.h"
#include "search/run_journal.h"
#include "search/task_spec.h"

namespace search {

class KernelEvaluator {
 public:
  virtual ~KernelEvaluator() = default;
  // One Evaluation per kernel, in order. Never throws for a bad kernel (that is an Evaluation
  // with an error status).
  virtual std::vector<eval::Evaluation> evaluate(const TaskSpec& task, const std::vector<std::string>& kernels) = 0;
  // As evaluate, and calls `on_result` as each evaluation that had to run arrives (possibly from
  // the executor's threads; results found in the cache are not reported). For the progress view.
  using OnResult = std::function<void(const eval::Evaluation&)>;
  virtual std::vector<eval::Evaluation> evaluate(const TaskSpec& task, const std::vector<std::string>& kernels,
                                                 const OnResult& on_result) {
    return evaluate(task, kernels);
  }
  virtual void cancel() {}
};

// The version of the evaluation pipeline (harness + simulator) that cache keys carry, so a new
// simulator never reuses old profiles. Bump it when the simulator's figures change.
extern const char* const kEvaluatorVersion;

// Content key of (kernel, reference, arch, tolerance, seeds, evaluator version).
std::string evaluation_key(const TaskSpec& task, const std::string& kernel_text);

class CachedEvaluator : public KernelEvaluator {
 public:
  // `journal` may be null (no caching across processes; identical kernels still run once).
  CachedEvaluator(eval::Executor& executor, RunJournal* journal, std::string cache_dir = "");
  std::vector<eval::Evaluation> evaluate(const TaskSpec& task, const std::vector<std::string>& kernels) override {
    return evaluate(task, kernels, {});
  }
  std::vector<eval::Evaluation> evaluate(const TaskSpec& task, const std::vector<std::string>& kernels,
                                         const OnResult& on_result) override;
  void cancel() override { executor_.cancel(); }

 private:
  eval::EvalJob make_job(const TaskSpec& task, const std::string& key, const std::string& kernel) const;

  eval::Executor& executor_;
  RunJournal* journal_;
  std::string cache_dir_;
};

}  // namespace search
