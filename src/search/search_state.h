// What a run has done so far: per-round figures, per-task results, and the state needed to
// continue (beam, memory, spending). Saved as JSON after every round (the resume checkpoint) and
// as the run's summary.json at the end.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agents/llm_session.h"
#include "agents/memory.h"
#include "agents/types.h"
#include "search/budget.h"

namespace search {

struct RoundStats {
  std::string task;
  int round = 0;                  // 1-based
  int candidates = 0, plans = 0;
  int kernels_written = 0, kernels_unparsed = 0;  // drafts with code / failed samples
  int evaluated = 0, eval_failed = 0, correct = 0, fixed = 0;
  int positive_pairs = 0, negative_pairs = 0, memory_items = 0;
  double best_latency_ms = 0;     // best in the beam after the round (0 = none yet)
  // The round planned nothing because its candidates are at a bound (near_peak, at_dma_floor):
  // the task ends with it. `stop_message` says which bound, with the figures.
  StopReason stop = StopReason::None;
  std::string stop_message;
  // The round planned nothing and no candidate is at a bound: why, per the planner
  // ("c0: of its 12 sites 9 planned before and 3 leading to a kernel already seen").
  std::string no_plan_reason;
  agents::Usage usage;            // cumulative for the run
  int64_t evaluations = 0;        // cumulative for the run
  // Live figures for the progress view (not saved): evaluations the round expects (its drafts
  // with code, plus each repaired version), evaluations applied so far (a repaired kernel's failed
  // attempt included), kernels out for evaluation now, and the results of the batch already back
  // (and how many failed) before they are applied to the counters above.
  int expected = 0, attempted = 0, running = 0, batch_done = 0, batch_failed = 0;
};

struct TaskResult {
  std::string task, kernel_file_name;
  std::string error;              // non-empty: the task could not run (e.g. baseline failed)
  double baseline_latency_ms = 0, best_latency_ms = 0, peak_latency_ms = 0;
  std::string best_id, best_code;
  std::optional<double> baseline_peak_percent() const;
  std::optional<double> best_peak_percent() const;
  double speedup() const { return best_latency_ms > 0 ? baseline_latency_ms / best_latency_ms : 0; }
  int rounds_done = 0;
  StopReason stop = StopReason::None;
  std::string stop_message;       // why the task ended before its rounds did ("at DMA floor: ...")
  agents::Usage usage;            // spent on this task
  int64_t evaluations = 0;
  std::vector<RoundStats> rounds;
  // The final re-check of the reported best with the task's five seeds in a fresh worker
  // (recheck.h): "" = not run (interrupted first, or the loop was run without it), "passed",
  // "fallback" (the search's best failed it; the best kernel that passes is reported instead),
  // "failed" (no kernel of the task passed it, not even the baseline; nothing is reported).
  std::string recheck;
  std::string recheck_note;           // what failed and what is reported instead
  int64_t recheck_evaluations = 0;    // not part of `evaluations` (the search's budget)
  double searched_best_latency_ms = 0;  // the search's best before the re-check
  int recheck_rounds = -1;            // rounds_done when it ran (a resumed run does not redo it)
  // The simulator's error band (trn/error_band.h) of the baseline and of the best: where the
  // device's latency is expected to fall. 0 = unknown (a real profiler's numbers, or a best the
  // re-check fell back to without a profile).
  double baseline_latency_low = 0, baseline_latency_high = 0;
  double best_latency_low = 0, best_latency_high = 0;
  // The simulator's error on a speedup between versions of one kernel (trn::ErrorBandTable::speedup):
  // the device's speedup is expected within [speedup * low, speedup * high]. 0 = not known (a table
  // without ladder pairs, or a run recorded before it existed).
  double speedup_error_low = 0, speedup_error_high = 0;
  // "" when there is no speedup or the baseline's or best's band is unknown (a real profiler's
  // numbers). Otherwise, with a speedup error: "confirmed" when even speedup * low exceeds 1. Without
  // one: "confirmed" when the best's latency band lies entirely below the baseline's. Else
  // "unconfirmed" (the speedup is within the simulator's error).
  std::string speedup_confidence() const;
  // The real speedup's range by the rule speedup_confidence() applied: {low, high}.
  std::pair<double, double> speedup_range() const;
  // optimize --confirm-with-profiler: the command profiler's latencies of the baseline and the
  // best (0 = not measured) and what went wrong, if anything.
  double profiler_baseline_latency_ms = 0, profiler_best_latency_ms = 0;
  std::string profiler_note;
};

// The task being optimized when the checkpoint was taken.
struct TaskProgress {
  TaskResult result;              // so far
  std::vector<agents::Candidate> beam;
  // Every distinct kernel that has been in the beam (baseline first, no profiles): what the final
  // re-check falls back to, best first, when the search's best fails it.
  std::vector<agents::Candidate> history;
};

struct RunState {
  std::vector<std::string> tasks;         // in run order
  std::vector<TaskResult> finished;       // tasks done, in order
  std::optional<TaskProgress> current;
  agents::Memory memory;
  agents::Usage usage;                    // whole run
  int64_t evaluations = 0;
  double elapsed_s = 0;
  StopReason stop = StopReason::None;     // set when the run ended early
  std::string stop_message;
  nlohmann::json planner_state;           // agents::Planner::saved_state() (null: none)
};

nlohmann::json to_json(const RoundStats& stats);
RoundStats round_stats_from_json(const nlohmann::json& j);
nlohmann::json to_json(const TaskResult& result);
TaskResult task_result_from_json(const nlohmann::json& j);
nlohmann::json to_json(const agents::Usage& usage);
agents::Usage usage_from_json(const nlohmann::json& j);
nlohmann::json to_json(const agents::Candidate& candidate);
agents::Candidate candidate_from_json(const nlohmann::json& j);

std::string serialize(const RunState& state);
// Throws std::runtime_error when the text is not a run state.
RunState deserialize_state(const std::string& text, size_t memory_capacity);

}  // namespace search
