// The run journal kept in the run's SQLite store (store/run_store.h): model calls in llm_calls,
// evaluations as kernels + evaluations keyed by content key, checkpoints as completed rounds
// (numbered in run order across tasks), memory items as they are added.
#pragma once

#include <atomic>
#include <cstdint>

#include "search/run_journal.h"
#include "store/run_store.h"

namespace search {

class StoreJournal : public RunJournal {
 public:
  StoreJournal(store::RunStore& store, int64_t run_id);

  std::optional<agents::CallRecord> find_call(const std::string& request_hash) override;
  void record_call(const agents::CallRecord& record) override;
  std::optional<eval::Evaluation> find_evaluation(const std::string& task, const std::string& key) override;
  void record_evaluation(const std::string& key, const std::string& task, const std::string& kernel_text,
                         const eval::Evaluation& evaluation) override;
  void record_checkpoint(const std::string& state_json) override;
  std::string last_checkpoint() override;
  void record_memory_item(int round, const std::string& item_json);

 private:
  store::RunStore& store_;
  int64_t run_id_;
  std::atomic<int> sequence_;  // checkpoints taken so far (the store's round number)
};

}  // namespace search
