// One task's history as the run report reads it from the run store: every kernel with its
// evaluation, the beam after every round, the plans. The functions below derive what the page
// draws from it (docs/report.md): the best-so-far curve, the lineage from the baseline to the
// best kernel, failure counts and the most common diagnostics. Tests: tests/unit/report/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace report {

struct KernelEntry {
  int64_t id = 0;
  int64_t parent = 0;   // 0 = none (the baseline, a re-check, or a kernel of a round still running)
  int64_t plan = 0;     // plan id (0 = none)
  int round = -1;       // round that wrote it (-1 = baseline, re-check, or round still running)
  std::string text;
  bool evaluated = false;
  int64_t eval_order = 0;      // the evaluation's row id: the order in which evaluations were stored
  std::string status;          // "ok", "incorrect", ... ("" = not evaluated)
  std::string diagnostics;
  std::string failure_stage;   // the typed failure's stage ("compare", "run_kernel", ...; "" = none recorded)
  std::optional<double> latency_ms;  // correct kernels only
  std::string profile_json;
};

struct TaskHistory {
  std::string task;
  std::vector<KernelEntry> kernels;            // by id
  std::map<int, std::vector<int64_t>> beams;   // round -> kernel ids by rank (round 0 = baseline)
  std::map<int64_t, std::string> plans;        // plan id -> text

  const KernelEntry* find(int64_t id) const;
};

// The baseline: round 0's beam, else (round 1 not stored yet) the first kernel of the task.
int64_t baseline_id(const TaskHistory& h);

// Kernels evaluated only by the final five-seed re-check: no origin, not the baseline, and the
// same text as another kernel of the task (the re-check evaluates kernels already in a beam
// under its own cache key). They are not part of the search's curve.
std::set<int64_t> recheck_ids(const TaskHistory& h);

// A kernel with a correct evaluation and a latency.
bool is_correct(const KernelEntry& k);

struct CurvePoint {
  int64_t n = 0;             // 1-based evaluation number within the task (baseline = 1)
  int64_t kernel = 0;
  std::string status;
  std::optional<double> latency_ms;
  double best_ms = 0;        // best correct latency so far (0 = none yet)
};
// Every search evaluation of the task in the order it was stored, with the best so far.
std::vector<CurvePoint> best_so_far(const TaskHistory& h);

// Kernel ids from the baseline down to `kernel` (through fixer drafts), baseline first.
std::vector<int64_t> lineage_path(const TaskHistory& h, int64_t kernel);

// The kernel the task reports as best: the one whose text is `best_text` when given (the file in
// best/), else the first member of the last beam.
int64_t best_kernel_id(const TaskHistory& h, const std::string& best_text);

// The first line of a plan text (its title).
std::string plan_title(const std::string& plan_text);

// A diagnostic's first line with numbers replaced by N (not the digits of names such as rel_l2),
// so that the same failure on different shapes or lines counts as one.
std::string diagnostic_kind(const std::string& diagnostics);

// {"rounds": [{"round": r, "counts": {"ok": n, "incorrect": n, ...}}], "top": [{"text", "count", "example"}]}
nlohmann::json failures_json(const TaskHistory& h, size_t top = 8);

// The lineage page data: {"nodes": [...], "best": id, "baseline": id}. Nodes are every kernel that
// was in a beam plus the path to the best; each lists its children (every kernel written from it)
// with status and latency. `with_code`: include kernel texts (else only of the nodes themselves).
nlohmann::json lineage_json(const TaskHistory& h, int64_t best, bool with_code);

}  // namespace report
