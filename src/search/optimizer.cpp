#include "search/optimizer.h"

#include <algorithm>

#include <fmt/core.h>

#include "eval/interrupt.h"

namespace search {

namespace {

bool is_finished(const RunState& state, const std::string& task) {
  return std::any_of(state.finished.begin(), state.finished.end(), [&](const auto& r) { return r.task == task; });
}

void note_best(TaskResult& result, const std::vector<agents::Candidate>& beam) {
  if (beam.empty()) return;
  result.best_latency_ms = beam.front().latency_ms;
  result.best_id = beam.front().id;
  result.best_code = beam.front().kernel_text;
}

}  // namespace

RunState Optimizer::run(const std::vector<TaskSpec>& tasks, RunState state) {
  state.stop = StopReason::None;  // a resumed run gets another chance
  state.stop_message.clear();
  if (env_.session) env_.session->add_usage(state.usage);  // spending of earlier processes
  if (state.tasks.empty())
    for (const auto& task : tasks) state.tasks.push_back(task.info.name);
  for (const auto& task : tasks) {
    if (is_finished(state, task.info.name)) continue;
    bool resuming = state.current && state.current->result.task == task.info.name;
    if (!resuming && !start_task(task, state)) continue;
    if (!run_rounds(task, state)) break;
    state.current->result.stop = StopReason::Rounds;
    if (env_.observer) env_.observer->on_task_end(state.current->result);
    state.finished.push_back(std::move(state.current->result));
    state.current.reset();
    checkpoint(state);
  }
  return state;
}

std::optional<agents::Candidate> Optimizer::baseline(const TaskSpec& task, TaskResult& result, RunState& state) {
  auto evaluation = env_.evaluator->evaluate(task, {task.info.baseline_text}).at(0);
  state.evaluations++;
  result.evaluations++;
  if (!evaluation.correct || evaluation.latency_ms() <= 0) {
    std::string why = evaluation.diagnostics.empty() ? "" : ": " + evaluation.diagnostics.front();
    result.error = fmt::format("the baseline kernel is not correct ({}){}", eval::to_string(evaluation.status), why);
    return std::nullopt;
  }
  return agents::Candidate{"baseline", task.info.baseline_text, evaluation.latency_ms(), evaluation.profile};
}

bool Optimizer::start_task(const TaskSpec& task, RunState& state) {
  TaskResult result;
  result.task = task.info.name;
  result.kernel_file_name = task.info.kernel_file_name;
  result.peak_latency_ms = task.info.peak_latency_ms;
  auto base = baseline(task, result, state);
  if (!base) {
    if (env_.observer) env_.observer->on_message(fmt::format("task {}: {}", task.info.name, result.error));
    if (env_.observer) env_.observer->on_task_end(result);
    state.finished.push_back(std::move(result));
    checkpoint(state);
    return false;
  }
  result.baseline_latency_ms = base->latency_ms;
  note_best(result, {*base});
  if (env_.observer) env_.observer->on_task_start(task.info.name, *base, task.info.peak_latency_ms);
  state.current = TaskProgress{std::move(result), {*base}};
  return true;
}

bool Optimizer::run_rounds(const TaskSpec& task, RunState& state) {
  TaskSpec spec = task;
  auto& progress = *state.current;
  spec.info.baseline_latency_ms = progress.result.baseline_latency_ms;
  for (int round = progress.result.rounds_done + 1; round <= env_.params.rounds; ++round) {
    if (auto reason = exhausted(state)) {
      progress.result.stop = state.stop = *reason;
      state.stop_message = fmt::format("{} reached before round {} of {}", to_string(*reason), round, task.info.name);
      checkpoint(state);
      return false;
    }
    agents::Usage before = env_.session ? env_.session->usage() : agents::Usage{};
    int64_t evaluations_before = state.evaluations;
    RoundOutcome outcome = run_round(env_, spec, round, progress.beam, state.memory, state.evaluations);
    if (outcome.stop == StopReason::AllCallsFailed) {
      // The round is not kept: its failed calls are retried when the run is resumed.
      state.stop = outcome.stop;
      state.stop_message = outcome.stop_message;
      return false;
    }
    if (journal_)
      journal_->record_round({&spec, round, progress.beam, outcome.plans, outcome.results, outcome.beam,
                              outcome.new_items, outcome.stats});
    progress.beam = outcome.beam;
    progress.result.rounds_done = round;
    progress.result.rounds.push_back(outcome.stats);
    if (env_.session) progress.result.usage = progress.result.usage + (env_.session->usage() - before);
    progress.result.evaluations += state.evaluations - evaluations_before;
    note_best(progress.result, progress.beam);
    if (env_.observer) env_.observer->on_round_end(outcome.stats);
    if (outcome.stop != StopReason::None) {
      progress.result.stop = outcome.stop;
      state.stop = outcome.stop;
      state.stop_message = outcome.stop_message;
      checkpoint(state);
      return false;
    }
    checkpoint(state);
  }
  return true;
}

std::optional<StopReason> Optimizer::exhausted(const RunState& state) const {
  if (eval::interrupt_requested()) return StopReason::Cancelled;
  if (!env_.budget) return std::nullopt;
  return env_.budget->exhausted(env_.session ? env_.session->usage() : agents::Usage{}, state.evaluations);
}

void Optimizer::checkpoint(RunState& state) {
  if (env_.session) state.usage = env_.session->usage();
  if (env_.budget) state.elapsed_s = env_.budget->elapsed_s();
  if (journal_) journal_->record_checkpoint(serialize(state));
}

}  // namespace search
