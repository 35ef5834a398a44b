// The whole run: every task in order, T rounds each (or until a budget runs out), one memory
// carried from task to task, a checkpoint after every round. Given the checkpoint of a killed
// run, it continues where that run stopped; with a journal that replays model answers and
// evaluations, the resumed run repeats no call. Tests: tests/unit/search/optimizer_test.cpp.
#pragma once

#include <vector>

#include "search/round.h"
#include "search/run_journal.h"
#include "search/search_state.h"
#include "search/task_spec.h"

namespace search {

class Optimizer {
 public:
  // `journal` (may be null) receives a checkpoint after every round and at every task's end.
  Optimizer(SearchEnv env, RunJournal* journal) : env_(std::move(env)), journal_(journal) {}

  // Runs `tasks` starting from `state` (a fresh RunState with the initial memory, or the state
  // of a resumed run; its usage is added to the session's totals) and returns the final state. When the run stops early (budget, failing
  // endpoint), state.stop and state.stop_message say why and the stopped task stays `current`.
  RunState run(const std::vector<TaskSpec>& tasks, RunState state);

 private:
  // Evaluates the baseline; nullopt (and result.error set) when it is not a correct kernel.
  std::optional<agents::Candidate> baseline(const TaskSpec& task, TaskResult& result, RunState& state);
  bool start_task(const TaskSpec& task, RunState& state);
  // Runs the remaining rounds of state.current; false when the run must stop.
  bool run_rounds(const TaskSpec& task, RunState& state);
  std::optional<StopReason> exhausted(const RunState& state) const;
  // After Ctrl-C / SIGTERM: stops the run as cancelled with `message` and checkpoints; the work
  // cut short (a baseline, a re-check) is done again on resume. False when no interrupt came.
  bool stop_if_interrupted(RunState& state, const std::string& message);
  // The five-seed re-check of state.current's best (env_.recheck_best); may replace the best.
  void recheck(const TaskSpec& task, RunState& state);
  // Records `state` (its usage: `usage` when given, else the session's so far).
  void checkpoint(RunState& state, const agents::Usage* usage = nullptr);

  SearchEnv env_;
  RunJournal* journal_;
};

}  // namespace search
