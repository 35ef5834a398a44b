#include "search/run_journal.h"

namespace search {

std::optional<agents::CallRecord> MemoryJournal::find_call(const std::string& request_hash, int sample) {
  std::lock_guard lock(mutex_);
  for (const auto& call : calls_)
    if (call.ok && call.request_hash == request_hash && call.sample == sample) return call;
  return std::nullopt;
}

void MemoryJournal::record_call(const agents::CallRecord& record) {
  std::lock_guard lock(mutex_);
  calls_.push_back(record);
}

std::optional<eval::Evaluation> MemoryJournal::find_evaluation(const std::string& task, const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = evaluations_.find(task + "/" + key);
  if (it == evaluations_.end()) return std::nullopt;
  return it->second;
}

void MemoryJournal::record_evaluation(const std::string& key, const std::string& task, const std::string&,
                                      const eval::Evaluation& evaluation) {
  std::lock_guard lock(mutex_);
  evaluations_[task + "/" + key] = evaluation;
}

void MemoryJournal::record_checkpoint(const std::string& state_json) {
  std::lock_guard lock(mutex_);
  checkpoint_ = state_json;
}

std::string MemoryJournal::last_checkpoint() {
  std::lock_guard lock(mutex_);
  return checkpoint_;
}

std::vector<agents::CallRecord> MemoryJournal::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

}  // namespace search
