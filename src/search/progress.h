// What the loop reports while it runs (the CLI draws a live display or prints log lines).
// Calls come from the loop's threads but never concurrently: the loop serialises them.
#pragma once

#include <string>

#include "agents/types.h"
#include "llm/client.h"
#include "search/search_state.h"

namespace search {

class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  virtual void on_task_start(const std::string& task, const agents::Candidate& baseline, double peak_latency_ms) {}
  // A resumed run continues the task of `progress` (its baseline and rounds so far).
  virtual void on_task_resume(const TaskResult& progress) {}
  // Counters of the running round changed (kernels planned, written, evaluated, failed).
  virtual void on_round_update(const RoundStats& live) {}
  virtual void on_round_end(const RoundStats& stats) {}
  virtual void on_task_end(const TaskResult& result) {}
  virtual void on_message(const std::string& text) {}
  // A model call of `agent` waits to be retried. Unlike the others, this comes from the agents'
  // threads, possibly concurrently.
  virtual void on_retry(const std::string& agent, const llm::RetryNotice& notice) {}
  // The search state was saved (after every round and at each task's end): the run store now
  // holds everything a report shows.
  virtual void on_checkpoint() {}
};

}  // namespace search
