#include "search/confirm.h"

#include <fmt/core.h>

#include "eval/interrupt.h"

namespace search {
namespace {

// The profiler's latency of one kernel, or 0 with a note saying why there is none.
double measured(const eval::Evaluation& e, const char* which, std::string& note) {
  if (e.correct && e.latency_ms() > 0) return e.latency_ms();
  std::string why = e.diagnostics.empty() ? "" : ": " + e.diagnostics.front().substr(0, e.diagnostics.front().find('\n'));
  note += fmt::format("{}{} not measured ({}){}", note.empty() ? "" : "; ", which, eval::to_string(e.status), why);
  return 0;
}

}  // namespace

void confirm_with_profiler(KernelEvaluator& evaluator, const std::vector<TaskSpec>& tasks, RunState& state) {
  for (auto& result : state.finished) {
    if (!result.error.empty() || result.best_code.empty()) continue;
    const TaskSpec* spec = nullptr;
    for (const auto& t : tasks)
      if (t.info.name == result.task) spec = &t;
    if (!spec || eval::interrupt_requested()) continue;
    TaskSpec confirm = *spec;
    confirm.key_tag = "profiler";  // never a search-time (simulated) result
    confirm.ref_cache = false;
    auto evaluations = evaluator.evaluate(confirm, {spec->info.baseline_text, result.best_code});
    result.profiler_note.clear();
    result.profiler_baseline_latency_ms = measured(evaluations.at(0), "baseline", result.profiler_note);
    result.profiler_best_latency_ms = measured(evaluations.at(1), "best", result.profiler_note);
  }
}

}  // namespace search
