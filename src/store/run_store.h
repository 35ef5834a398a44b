// The run store: one SQLite file (WAL) that holds a run's whole history — the run and its
// configuration, rounds, beam members, plans, kernels, evaluations, LLM calls and memory items.
//
// Durability contract: every add_*/set_*/complete_* call is its own committed transaction when
// it returns, so a process killed at any moment (kill -9) loses nothing that a call reported as
// stored. Inside `transaction(body)` the calls of `body` commit together when it returns (one
// fsync for a whole batch of evaluations instead of two per evaluation), or not at all if it throws. The search loop stores each LLM answer and evaluation before it uses it; on resume it
// asks find_llm_call / find_evaluation / last_completed_round and skips what is already there.
//
// Threading: a RunStore may be shared by threads; calls are serialised by an internal mutex
// (one connection). Errors: StoreError (I/O, corrupt file, constraint violation, newer schema).
// Tests with examples: tests/unit/store/run_store_test.cpp.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "store/records.h"

namespace store {

struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Database;

class RunStore {
 public:
  // Opens (creating if needed) the store at `path` and brings its schema to the current version.
  // Throws StoreError if the file is not a store or was written by a newer accelopt.
  explicit RunStore(const std::string& path);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  static int schema_version();
  const std::string& path() const { return path_; }

  // Runs.
  int64_t create_run(const std::string& name, const std::string& config_json);
  std::optional<RunRecord> find_run(int64_t run_id);
  std::optional<RunRecord> latest_run();  // highest id, if any
  void set_run_status(int64_t run_id, const std::string& status);

  // Runs `body` as one transaction: the store calls it makes commit together when it returns.
  // Other threads' calls wait meanwhile; nested calls become savepoints.
  void transaction(const std::function<void()>& body);

  // Rounds, per task. begin_round is idempotent (a resumed round is begun again).
  void begin_round(int64_t run_id, const std::string& task, int round);
  void complete_round(int64_t run_id, const std::string& task, int round, const std::string& summary_json);
  std::optional<int> last_completed_round(int64_t run_id, const std::string& task);
  std::vector<RoundRecord> rounds(int64_t run_id);  // by task, then round

  // Resume checkpoints: add_checkpoint returns its sequence number (1, 2, ...).
  int add_checkpoint(int64_t run_id, const std::string& state_json);
  std::optional<CheckpointRecord> last_checkpoint(int64_t run_id);
  // How long after the last checkpoint the run was still seen working (its latest model call or
  // evaluation), in seconds; 0 when nothing came after it. A process killed between checkpoints
  // worked at least this long, and a resumed run counts it in its elapsed time.
  double seconds_active_after_last_checkpoint(int64_t run_id);

  // Beam membership after a round (all of a round's members in one transaction).
  void set_beam(int64_t run_id, int round, const std::vector<CandidateRecord>& members);
  std::vector<CandidateRecord> beam(int64_t run_id, int round);

  // Plans.
  int64_t add_plan(const PlanRecord& plan);
  std::vector<PlanRecord> plans(int64_t run_id, int round);

  // Kernels, unique per (run, task, hash): adding a kernel already present returns its id.
  int64_t add_kernel(const KernelRecord& kernel);
  std::optional<KernelRecord> find_kernel(int64_t kernel_id);
  std::optional<KernelRecord> find_kernel_by_hash(int64_t run_id, const std::string& task,
                                                  const std::string& hash);
  std::vector<KernelRecord> kernels(int64_t run_id);
  // Records where a kernel came from, unless it already has a plan (a kernel written again in a
  // later round keeps its first origin). Returns false when it kept the old one.
  bool set_kernel_origin(int64_t kernel_id, int64_t parent_kernel_id, int64_t plan_id, int64_t llm_call_id, int round);

  // Evaluations, one per kernel (a second add replaces the first, e.g. after a re-check).
  int64_t add_evaluation(const EvaluationRecord& evaluation);
  std::optional<EvaluationRecord> find_evaluation(int64_t kernel_id);

  // LLM calls (llm_calls.cpp). find_llm_call returns the answered call (error == "") for a
  // request, if any. find_recorded_call serves --replay: the call with this request hash and
  // sample, else the one with this replay key (when not empty); an answered call wins over a
  // failed or refused one, then the latest.
  int64_t add_llm_call(const LlmCallRecord& call);
  std::optional<LlmCallRecord> find_llm_call(int64_t run_id, const std::string& request_hash,
                                             int sample);
  std::optional<LlmCallRecord> find_recorded_call(int64_t run_id, const std::string& request_hash,
                                                  const std::string& replay_key, int sample);
  std::vector<LlmCallRecord> llm_calls(int64_t run_id);
  LlmTotals llm_totals(int64_t run_id);

  // Optimization memory.
  int64_t add_memory_item(const MemoryItemRecord& item);
  std::vector<MemoryItemRecord> memory_items(int64_t run_id);

 private:
  std::string path_;
  std::recursive_mutex mutex_;  // recursive: transaction() bodies call the other methods
  std::unique_ptr<Database> db_;
};

}  // namespace store
