#include "search/recheck.h"

#include <algorithm>
#include <set>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "eval/interrupt.h"

namespace search {

TaskSpec recheck_spec(const TaskSpec& task) {
  TaskSpec spec = task;
  spec.seeds = task.recheck_seeds;
  spec.key_tag = "recheck";
  spec.ref_cache = false;  // nothing from earlier checks: the reference is computed again too
  return spec;
}

RecheckOutcome recheck_best(KernelEvaluator& evaluator, const TaskSpec& task, std::vector<agents::Candidate> candidates) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.latency_ms < b.latency_ms; });
  TaskSpec spec = recheck_spec(task);
  RecheckOutcome out;
  std::set<std::string> seen;
  for (const auto& candidate : candidates) {
    if (!seen.insert(candidate.kernel_text).second) continue;
    if (eval::interrupt_requested()) {
      out.status = "cancelled";
      return out;
    }
    eval::Evaluation e = evaluator.evaluate(spec, {candidate.kernel_text}).at(0);
    // A cancelled executor leaves a placeholder (internal_error, no profile): that decides nothing.
    if (eval::interrupt_requested()) {
      out.status = "cancelled";
      return out;
    }
    out.evaluations++;
    if (e.correct && e.status == eval::Status::Ok && e.latency_ms() > 0) {
      out.status = seen.size() == 1 ? "passed" : "fallback";
      out.reported = candidate;
      // The re-check's profile when the candidate kept none (history entries): its error band.
      if (!out.reported->profile) out.reported->profile = e.profile;
      return out;
    }
    std::string why = e.diagnostics.empty() ? "" : ": " + e.diagnostics.front().substr(0, e.diagnostics.front().find('\n'));
    out.note += fmt::format("{}{} ({:.4f} ms) failed the re-check with seeds {} ({}){}", out.note.empty() ? "" : "\n",
                            candidate.id, candidate.latency_ms, fmt::join(spec.seeds, ","), eval::to_string(e.status),
                            why);
  }
  out.status = "failed";
  return out;
}

}  // namespace search
