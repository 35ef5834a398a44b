// What the loop records as it goes, so that a killed run loses nothing that finished and a
// resumed run repeats no model call and no evaluation. StoreJournal (store_journal.h) keeps it in
// the run's SQLite store; MemoryJournal keeps it in memory (tests, benchmarks).
// Evaluations are keyed by (task, content key).
//
// Threading contract: every method may be called from several threads at once.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agents/llm_session.h"
#include "agents/types.h"
#include "eval/evaluation.h"
#include "search/kernel_result.h"
#include "search/search_state.h"
#include "search/task_spec.h"

namespace search {

// One evaluated kernel of a batch, keyed by content key.
struct EvaluatedKernel {
  std::string key, kernel_text;
  eval::Evaluation evaluation;
};

// What a kept round adds to the run's history: the plans made for each candidate of the beam
// it started from, every kernel written (with its branch and any versions the fixer replaced),
// the new beam, and the memory items distilled.
struct RoundHistory {
  const TaskSpec* task = nullptr;
  int round = 0;
  std::vector<agents::Candidate> beam_in;
  std::vector<std::vector<agents::Plan>> plans;  // [candidate][plan]
  std::vector<KernelResult> results;
  std::vector<agents::Candidate> beam_out;
  std::vector<agents::ExperienceItem> new_items;
  RoundStats stats;
};

class RunJournal : public agents::CallJournal {
 public:
  // Evaluations by content key (kernel_evaluator.h `evaluation_key`).
  virtual std::optional<eval::Evaluation> find_evaluation(const std::string& task, const std::string& key) = 0;
  virtual void record_evaluation(const std::string& key, const std::string& task, const std::string& kernel_text,
                                 const eval::Evaluation& evaluation) = 0;
  // A batch of evaluations, all committed when it returns (one transaction in the store).
  virtual void record_evaluations(const std::string& task, const std::vector<EvaluatedKernel>& batch) {
    for (const auto& kernel : batch) record_evaluation(kernel.key, task, kernel.kernel_text, kernel.evaluation);
  }
  // A round that the loop keeps, recorded before its checkpoint. Journals without a history
  // (MemoryJournal) ignore it.
  virtual void record_round(const RoundHistory&) {}
  // The search state after each completed round (serialized RunState JSON, search_state.h).
  virtual void record_checkpoint(const std::string& state_json) = 0;
  virtual std::string last_checkpoint() = 0;  // "" when there is none
  // Seconds the run was seen working after its last checkpoint (a process killed in between).
  virtual double seconds_after_last_checkpoint() { return 0; }
};

class MemoryJournal : public RunJournal {
 public:
  std::optional<agents::CallRecord> find_call(const std::string& request_hash, int sample = 0) override;
  void record_call(const agents::CallRecord& record) override;
  std::optional<eval::Evaluation> find_evaluation(const std::string& task, const std::string& key) override;
  void record_evaluation(const std::string& key, const std::string& task, const std::string& kernel_text,
                         const eval::Evaluation& evaluation) override;
  void record_checkpoint(const std::string& state_json) override;
  std::string last_checkpoint() override;

  std::vector<agents::CallRecord> calls() const;

 private:
  mutable std::mutex mutex_;
  std::vector<agents::CallRecord> calls_;
  std::map<std::string, eval::Evaluation> evaluations_;
  std::string checkpoint_;
};

}  // namespace search
