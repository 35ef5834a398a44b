#include "search/optimizer.h"

#include <algorithm>

#include <fmt/core.h>

#include "eval/interrupt.h"
#include "search/recheck.h"
#include "trn/error_band.h"

namespace search {

namespace {

bool is_finished(const RunState& state, const std::string& task) {
  return std::any_of(state.finished.begin(), state.finished.end(), [&](const auto& r) { return r.task == task; });
}

// The error band of a simulated profile (trn/error_band.h); zeros when there is none.
void note_band(double& low, double& high, const std::optional<trn::Profile>& profile) {
  low = profile ? profile->latency_low : 0;
  high = profile ? profile->latency_high : 0;
}

// The simulator's error on speedups (trn/error_band.h), when the baseline was simulated (it has a
// latency band) and the table has ladder pairs to say it.
void note_speedup_error(TaskResult& result, const std::optional<trn::Profile>& baseline_profile) {
  const trn::ErrorBandTable& table = trn::builtin_error_band_table();
  bool simulated = baseline_profile && baseline_profile->latency_low > 0;
  bool known = table.speedup.samples >= table.min_samples;
  result.speedup_error_low = simulated && known ? table.speedup.low : 0;
  result.speedup_error_high = simulated && known ? table.speedup.high : 0;
}

void note_best(TaskResult& result, const std::vector<agents::Candidate>& beam) {
  if (beam.empty()) return;
  result.best_latency_ms = beam.front().latency_ms;
  result.best_id = beam.front().id;
  result.best_code = beam.front().kernel_text;
  note_band(result.best_latency_low, result.best_latency_high, beam.front().profile);
}

// Adds the beam's kernels that are new to the history (without profiles: only text and latency
// are needed to re-check them, and the history is part of every checkpoint).
void extend_history(std::vector<agents::Candidate>& history, const std::vector<agents::Candidate>& beam) {
  for (const auto& c : beam) {
    bool known = std::any_of(history.begin(), history.end(), [&](const auto& h) { return h.kernel_text == c.kernel_text; });
    if (known) continue;
    history.push_back(c);
    history.back().profile.reset();
  }
}

}  // namespace

RunState Optimizer::run(const std::vector<TaskSpec>& tasks, RunState state) {
  state.stop = StopReason::None;  // a resumed run gets another chance
  state.stop_message.clear();
  if (env_.session) env_.session->add_usage(state.usage);  // spending of earlier processes
  if (env_.session && env_.budget)  // USD and token budgets hold at the gate, call by call
    env_.session->set_spend_limits({env_.budget->budgets().max_usd, env_.budget->budgets().max_tokens});
  // A resumed run's planner continues from what it had planned at the checkpoint (the sites
  // already tried are not drawn again): the resumed run proposes what the uninterrupted one did.
  if (env_.agents.planner && !state.planner_state.is_null()) env_.agents.planner->restore_state(state.planner_state);
  // Every process starts with a checkpoint: the time it started from is on record, so a process
  // killed before its first round ends still has its time counted on resume.
  checkpoint(state);
  if (state.tasks.empty())
    for (const auto& task : tasks) state.tasks.push_back(task.info.name);
  for (const auto& task : tasks) {
    if (is_finished(state, task.info.name)) continue;
    bool resuming = state.current && state.current->result.task == task.info.name;
    if (resuming && env_.observer) env_.observer->on_task_resume(state.current->result);
    if (!resuming && !start_task(task, state)) {
      if (state.stop == StopReason::Cancelled) break;
      continue;
    }
    if (!run_rounds(task, state)) {
      // A budget stop reports this task's best as it stands: re-check it (a resumed run that
      // finds a better kernel re-checks again at the task's end).
      if (is_budget_stop(state.stop)) recheck(task, state);
      break;
    }
    recheck(task, state);
    // A re-check cut short leaves the task open: the resumed run re-checks it (its rounds are done).
    if (stop_if_interrupted(state, fmt::format("interrupted during the re-check of {}", task.info.name))) break;
    if (!is_task_stop(state.current->result.stop)) state.current->result.stop = StopReason::Rounds;
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
  if (!base && eval::interrupt_requested()) {  // cut short, not a failed baseline: evaluated again on resume
    state.evaluations -= result.evaluations;
    stop_if_interrupted(state, fmt::format("interrupted during the baseline of {}", task.info.name));
    return false;
  }
  if (!base) {
    if (env_.observer) env_.observer->on_message(fmt::format("task {}: {}", task.info.name, result.error));
    if (env_.observer) env_.observer->on_task_end(result);
    state.finished.push_back(std::move(result));
    checkpoint(state);
    return false;
  }
  result.baseline_latency_ms = base->latency_ms;
  note_band(result.baseline_latency_low, result.baseline_latency_high, base->profile);
  note_speedup_error(result, base->profile);
  note_best(result, {*base});
  if (env_.observer) env_.observer->on_task_start(task.info.name, *base, task.info.peak_latency_ms);
  state.current = TaskProgress{std::move(result), {*base}, {}};
  extend_history(state.current->history, state.current->beam);
  return true;
}

bool Optimizer::run_rounds(const TaskSpec& task, RunState& state) {
  TaskSpec spec = task;
  auto& progress = *state.current;
  spec.info.baseline_latency_ms = progress.result.baseline_latency_ms;
  if (is_task_stop(progress.result.stop)) return true;  // resumed after its bound stop: only the re-check is left
  for (int round = progress.result.rounds_done + 1; round <= env_.params.rounds; ++round) {
    if (auto reason = exhausted(state)) {
      progress.result.stop = state.stop = *reason;
      state.stop_message = fmt::format("{} reached before round {} of {}", to_string(*reason), round, task.info.name);
      checkpoint(state);
      return false;
    }
    agents::Usage before = env_.session ? env_.session->usage() : agents::Usage{};
    int64_t evaluations_before = state.evaluations;
    agents::Memory memory_before = state.memory;
    // The planner's record of what it planned (and the fixer's failure log) as the round starts:
    // a round that is not kept is planned again on resume from this state, not from a state that
    // already holds its own plans.
    nlohmann::json planner_before = env_.agents.planner ? env_.agents.planner->saved_state() : nlohmann::json();
    RoundOutcome outcome = run_round(env_, spec, round, progress.beam, state.memory, state.evaluations);
    if (!outcome.keep || outcome.stop == StopReason::Cancelled) {
      // The round is not kept: its calls are made (or replayed from the store) again when the
      // run is resumed, and so are the evaluations an interrupt cut short; the state is the one
      // before it, with the time spent.
      state.memory = std::move(memory_before);
      state.evaluations = evaluations_before;
      if (env_.agents.planner && !planner_before.is_null()) env_.agents.planner->restore_state(planner_before);
      state.stop = outcome.stop;
      state.stop_message = outcome.stop_message;
      checkpoint(state, &before);
      return false;
    }
    if (journal_)
      journal_->record_round({&spec, round, progress.beam, outcome.plans, outcome.results, outcome.beam,
                              outcome.new_items, outcome.stats});
    progress.beam = outcome.beam;
    extend_history(progress.history, progress.beam);
    progress.result.rounds_done = round;
    progress.result.rounds.push_back(outcome.stats);
    if (env_.session) progress.result.usage = progress.result.usage + (env_.session->usage() - before);
    progress.result.evaluations += state.evaluations - evaluations_before;
    note_best(progress.result, progress.beam);
    if (env_.observer) env_.observer->on_round_end(outcome.stats);
    if (is_task_stop(outcome.stop)) {
      // The candidates are at a bound (the planner said which): this task is done, the run goes on.
      progress.result.stop = outcome.stop;
      progress.result.stop_message = outcome.stop_message;
      checkpoint(state);
      return true;
    }
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

bool Optimizer::stop_if_interrupted(RunState& state, const std::string& message) {
  if (!eval::interrupt_requested()) return false;
  state.stop = StopReason::Cancelled;
  state.stop_message = message;
  checkpoint(state);
  return true;
}

std::optional<StopReason> Optimizer::exhausted(const RunState& state) const {
  if (eval::interrupt_requested()) return StopReason::Cancelled;
  if (!env_.budget) return std::nullopt;
  return env_.budget->exhausted(env_.session ? env_.session->usage() : agents::Usage{}, state.evaluations);
}

void Optimizer::recheck(const TaskSpec& task, RunState& state) {
  if (!env_.recheck_best || !state.current) return;
  auto& progress = *state.current;
  TaskResult& result = progress.result;
  if (result.best_code.empty()) return;
  // Already decided for these rounds (a run resumed after this point, or stopped again at once).
  if (!result.recheck.empty() && result.recheck_rounds == result.rounds_done) return;
  result.searched_best_latency_ms = result.best_latency_ms;
  // Best first (it wins ties), then the beam and every kernel that was in a beam before.
  std::vector<agents::Candidate> candidates = {{result.best_id, result.best_code, result.best_latency_ms, std::nullopt}};
  extend_history(candidates, progress.beam);
  extend_history(candidates, progress.history);
  RecheckOutcome out = recheck_best(*env_.evaluator, task, candidates);
  result.recheck_evaluations += out.evaluations;
  if (out.status == "cancelled") return;  // undecided: the run says "not re-checked"
  result.recheck = out.status;
  result.recheck_note = out.note;
  result.recheck_rounds = result.rounds_done;
  if (out.reported) {
    // The band stays the searched best's when it is still the one reported.
    if (out.reported->id != result.best_id) note_band(result.best_latency_low, result.best_latency_high, out.reported->profile);
    result.best_latency_ms = out.reported->latency_ms;
    result.best_id = out.reported->id;
    result.best_code = out.reported->kernel_text;
  } else {
    result.best_latency_ms = 0;
    result.best_id.clear();
    result.best_code.clear();
    note_band(result.best_latency_low, result.best_latency_high, std::nullopt);
  }
  if (env_.observer && out.status != "passed") {
    std::string what = out.reported ? fmt::format("reporting {} ({:.4f} ms) instead", out.reported->id, out.reported->latency_ms)
                                     : std::string("no kernel of the task passed it; no best kernel is reported");
    env_.observer->on_message(fmt::format("task {}: the search's best failed the five-seed re-check; {}\n{}",
                                          task.info.name, what, out.note));
  }
  checkpoint(state);
}

void Optimizer::checkpoint(RunState& state, const agents::Usage* usage) {
  if (usage) state.usage = *usage;
  else if (env_.session) state.usage = env_.session->usage();
  if (env_.budget) state.elapsed_s = env_.budget->elapsed_s();
  if (env_.agents.planner) state.planner_state = env_.agents.planner->saved_state();
  if (journal_) journal_->record_checkpoint(serialize(state));
  if (env_.observer) env_.observer->on_checkpoint();
}

}  // namespace search
