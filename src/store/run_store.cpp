#include "store/run_store.h"

#include <set>

#include <sqlite3.h>

#include "base/content_hash.h"
#include "store/database.h"
#include "store/schema.h"

namespace store {
namespace {

using Lock = std::lock_guard<std::recursive_mutex>;

constexpr const char* kRunColumns = "id, name, config_json, status, created_at";
constexpr const char* kKernelColumns =
    "id, run_id, task, hash, text, parent_kernel_id, plan_id, llm_call_id, round";


RunRecord read_run(const Statement& row) {
  return {row.int64(0), row.text(1), row.text(2), row.text(3), row.text(4)};
}

KernelRecord read_kernel(const Statement& row) {
  KernelRecord kernel;
  kernel.id = row.int64(0);
  kernel.run_id = row.int64(1);
  kernel.task = row.text(2);
  kernel.hash = row.text(3);
  kernel.text = row.text(4);
  kernel.parent_kernel_id = row.int64(5);
  kernel.plan_id = row.int64(6);
  kernel.llm_call_id = row.int64(7);
  kernel.round = static_cast<int>(row.int64(8));
  return kernel;
}


std::string select_from(const char* columns, const char* table, const std::string& where) {
  return std::string("SELECT ") + columns + " FROM " + table + " " + where;
}

}  // namespace

RunStore::RunStore(const std::string& path) : path_(path), db_(std::make_unique<Database>(path)) {
  prepare_database(*db_);
}

RunStore::~RunStore() = default;

int RunStore::schema_version() { return current_schema_version(); }

// --- runs -------------------------------------------------------------------------------------

int64_t RunStore::create_run(const std::string& name, const std::string& config_json) {
  Lock lock(mutex_);
  Statement(*db_, "INSERT INTO runs(name, config_json) VALUES(?, ?)").bind(1, name).bind(2, config_json).run();
  return db_->last_insert_id();
}

std::optional<RunRecord> RunStore::find_run(int64_t run_id) {
  Lock lock(mutex_);
  Statement query(*db_, select_from(kRunColumns, "runs", "WHERE id = ?"));
  query.bind(1, run_id);
  if (!query.step()) return std::nullopt;
  return read_run(query);
}

std::optional<RunRecord> RunStore::latest_run() {
  Lock lock(mutex_);
  Statement query(*db_, select_from(kRunColumns, "runs", "ORDER BY id DESC LIMIT 1"));
  if (!query.step()) return std::nullopt;
  return read_run(query);
}

void RunStore::set_run_status(int64_t run_id, const std::string& status) {
  Lock lock(mutex_);
  Statement(*db_, "UPDATE runs SET status = ? WHERE id = ?").bind(1, status).bind(2, run_id).run();
}

// --- transactions -----------------------------------------------------------------------------

void RunStore::transaction(const std::function<void()>& body) {
  Lock lock(mutex_);
  Transaction transaction(*db_);
  body();
  transaction.commit();
}

// --- rounds -----------------------------------------------------------------------------------

void RunStore::begin_round(int64_t run_id, const std::string& task, int round) {
  Lock lock(mutex_);
  Statement(*db_, "INSERT OR IGNORE INTO rounds(run_id, task, round, status) VALUES(?, ?, ?, 'started')")
      .bind(1, run_id)
      .bind(2, task)
      .bind(3, round)
      .run();
}

void RunStore::complete_round(int64_t run_id, const std::string& task, int round, const std::string& summary_json) {
  Lock lock(mutex_);
  Statement(*db_,
            "INSERT INTO rounds(run_id, task, round, status, summary_json) VALUES(?, ?, ?, 'completed', ?) "
            "ON CONFLICT(run_id, task, round) DO UPDATE SET status = 'completed', summary_json = excluded.summary_json")
      .bind(1, run_id)
      .bind(2, task)
      .bind(3, round)
      .bind(4, summary_json)
      .run();
}

std::optional<int> RunStore::last_completed_round(int64_t run_id, const std::string& task) {
  Lock lock(mutex_);
  Statement query(*db_,
                  "SELECT round FROM rounds WHERE run_id = ? AND task = ? AND status = 'completed' "
                  "ORDER BY round DESC LIMIT 1");
  query.bind(1, run_id).bind(2, task);
  if (!query.step()) return std::nullopt;
  return static_cast<int>(query.int64(0));
}

std::vector<RoundRecord> RunStore::rounds(int64_t run_id) {
  Lock lock(mutex_);
  Statement query(*db_,
                  "SELECT run_id, task, round, status, summary_json FROM rounds WHERE run_id = ? ORDER BY task, round");
  query.bind(1, run_id);
  std::vector<RoundRecord> out;
  while (query.step())
    out.push_back({query.int64(0), query.text(1), static_cast<int>(query.int64(2)), query.text(3), query.text(4)});
  return out;
}

// --- checkpoints ------------------------------------------------------------------------------

int RunStore::add_checkpoint(int64_t run_id, const std::string& state_json) {
  Lock lock(mutex_);
  Transaction transaction(*db_);
  Statement next(*db_, "SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoints WHERE run_id = ?");
  next.bind(1, run_id);
  next.step();
  int seq = static_cast<int>(next.int64(0));
  Statement(*db_, "INSERT INTO checkpoints(run_id, seq, state_json) VALUES(?, ?, ?)")
      .bind(1, run_id).bind(2, seq).bind(3, state_json).run();
  transaction.commit();
  return seq;
}

std::optional<CheckpointRecord> RunStore::last_checkpoint(int64_t run_id) {
  Lock lock(mutex_);
  Statement query(*db_, "SELECT run_id, seq, state_json FROM checkpoints WHERE run_id = ? ORDER BY seq DESC LIMIT 1");
  query.bind(1, run_id);
  if (!query.step()) return std::nullopt;
  return CheckpointRecord{query.int64(0), static_cast<int>(query.int64(1)), query.text(2)};
}

double RunStore::seconds_active_after_last_checkpoint(int64_t run_id) {
  Lock lock(mutex_);
  // The latest model call or evaluation of the run, against the latest checkpoint's time.
  Statement query(*db_,
                  "SELECT (julianday(MAX(t)) - julianday((SELECT created_at FROM checkpoints WHERE run_id = ?1 "
                  "ORDER BY seq DESC LIMIT 1))) * 86400 FROM ("
                  "SELECT created_at AS t FROM llm_calls WHERE run_id = ?1 UNION ALL "
                  "SELECT e.created_at FROM evaluations e JOIN kernels k ON k.id = e.kernel_id WHERE k.run_id = ?1)");
  query.bind(1, run_id);
  if (!query.step()) return 0;
  auto seconds = query.optional_real(0);
  return seconds && *seconds > 0 ? *seconds : 0;
}

// --- beam -------------------------------------------------------------------------------------

void RunStore::set_beam(int64_t run_id, int round, const std::vector<CandidateRecord>& members) {
  Lock lock(mutex_);
  Transaction transaction(*db_);
  std::set<std::string> tasks;
  for (const auto& member : members) tasks.insert(member.task);
  // Replacing a task's whole beam keeps set_beam idempotent when a resumed round rewrites it.
  for (const auto& task : tasks) {
    Statement(*db_, "DELETE FROM candidates WHERE run_id = ? AND round = ? AND task = ?")
        .bind(1, run_id).bind(2, round).bind(3, task).run();
  }
  for (const auto& member : members) {
    Statement(*db_, "INSERT INTO candidates(run_id, round, task, rank, kernel_id) VALUES(?, ?, ?, ?, ?)")
        .bind(1, run_id).bind(2, round).bind(3, member.task).bind(4, member.rank).bind(5, member.kernel_id).run();
  }
  transaction.commit();
}

std::vector<CandidateRecord> RunStore::beam(int64_t run_id, int round) {
  Lock lock(mutex_);
  Statement query(*db_,
                  "SELECT run_id, round, task, rank, kernel_id FROM candidates WHERE run_id = ? AND round = ? "
                  "ORDER BY task, rank");
  query.bind(1, run_id).bind(2, round);
  std::vector<CandidateRecord> out;
  while (query.step())
    out.push_back({query.int64(0), static_cast<int>(query.int64(1)), query.text(2),
                   static_cast<int>(query.int64(3)), query.int64(4)});
  return out;
}

// --- plans ------------------------------------------------------------------------------------

int64_t RunStore::add_plan(const PlanRecord& plan) {
  Lock lock(mutex_);
  Statement(*db_, "INSERT INTO plans(run_id, round, task, base_kernel_id, llm_call_id, text) VALUES(?, ?, ?, ?, ?, ?)")
      .bind(1, plan.run_id).bind(2, plan.round).bind(3, plan.task).bind_id(4, plan.base_kernel_id)
      .bind_id(5, plan.llm_call_id).bind(6, plan.text).run();
  return db_->last_insert_id();
}

std::vector<PlanRecord> RunStore::plans(int64_t run_id, int round) {
  Lock lock(mutex_);
  Statement query(*db_,
                  "SELECT id, run_id, round, task, base_kernel_id, llm_call_id, text FROM plans "
                  "WHERE run_id = ? AND round = ? ORDER BY id");
  query.bind(1, run_id).bind(2, round);
  std::vector<PlanRecord> out;
  while (query.step())
    out.push_back({query.int64(0), query.int64(1), static_cast<int>(query.int64(2)), query.text(3), query.int64(4),
                   query.int64(5), query.text(6)});
  return out;
}

// --- kernels ----------------------------------------------------------------------------------

int64_t RunStore::add_kernel(const KernelRecord& kernel) {
  Lock lock(mutex_);
  const std::string hash = kernel.hash.empty() ? base::content_hash(kernel.text) : kernel.hash;
  Statement(*db_,
            "INSERT INTO kernels(run_id, task, hash, text, parent_kernel_id, plan_id, llm_call_id, round) "
            "VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, task, hash) DO NOTHING")
      .bind(1, kernel.run_id).bind(2, kernel.task).bind(3, hash).bind(4, kernel.text)
      .bind_id(5, kernel.parent_kernel_id).bind_id(6, kernel.plan_id).bind_id(7, kernel.llm_call_id)
      .bind(8, kernel.round).run();
  Statement query(*db_, "SELECT id FROM kernels WHERE run_id = ? AND task = ? AND hash = ?");
  query.bind(1, kernel.run_id).bind(2, kernel.task).bind(3, hash);
  if (!query.step()) db_->fail("kernel vanished after insert");
  return query.int64(0);
}

std::optional<KernelRecord> RunStore::find_kernel(int64_t kernel_id) {
  Lock lock(mutex_);
  Statement query(*db_, select_from(kKernelColumns, "kernels", "WHERE id = ?"));
  query.bind(1, kernel_id);
  if (!query.step()) return std::nullopt;
  return read_kernel(query);
}

std::optional<KernelRecord> RunStore::find_kernel_by_hash(int64_t run_id, const std::string& task,
                                                          const std::string& hash) {
  Lock lock(mutex_);
  Statement query(*db_, select_from(kKernelColumns, "kernels", "WHERE run_id = ? AND task = ? AND hash = ?"));
  query.bind(1, run_id).bind(2, task).bind(3, hash);
  if (!query.step()) return std::nullopt;
  return read_kernel(query);
}

bool RunStore::set_kernel_origin(int64_t kernel_id, int64_t parent_kernel_id, int64_t plan_id, int64_t llm_call_id,
                                 int round) {
  Lock lock(mutex_);
  Statement(*db_,
            "UPDATE kernels SET parent_kernel_id = ?, plan_id = ?, llm_call_id = COALESCE(?, llm_call_id), round = ? "
            "WHERE id = ? AND plan_id IS NULL")
      .bind_id(1, parent_kernel_id).bind_id(2, plan_id).bind_id(3, llm_call_id).bind(4, round).bind(5, kernel_id).run();
  return sqlite3_changes(db_->handle()) > 0;
}

std::vector<KernelRecord> RunStore::kernels(int64_t run_id) {
  Lock lock(mutex_);
  Statement query(*db_, select_from(kKernelColumns, "kernels", "WHERE run_id = ? ORDER BY id"));
  query.bind(1, run_id);
  std::vector<KernelRecord> out;
  while (query.step()) out.push_back(read_kernel(query));
  return out;
}

// --- evaluations ------------------------------------------------------------------------------

int64_t RunStore::add_evaluation(const EvaluationRecord& evaluation) {
  Lock lock(mutex_);
  Statement(*db_,
            "INSERT INTO evaluations(kernel_id, status, diagnostics, profile_json, latency_ms, evaluation_json) "
            "VALUES(?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(kernel_id) DO UPDATE SET status = excluded.status, diagnostics = excluded.diagnostics, "
            "profile_json = excluded.profile_json, latency_ms = excluded.latency_ms, "
            "evaluation_json = excluded.evaluation_json")
      .bind(1, evaluation.kernel_id).bind(2, evaluation.status).bind(3, evaluation.diagnostics)
      .bind(4, evaluation.profile_json).bind(5, evaluation.latency_ms).bind(6, evaluation.evaluation_json).run();
  Statement query(*db_, "SELECT id FROM evaluations WHERE kernel_id = ?");
  query.bind(1, evaluation.kernel_id);
  if (!query.step()) db_->fail("evaluation vanished after insert");
  return query.int64(0);
}

std::optional<EvaluationRecord> RunStore::find_evaluation(int64_t kernel_id) {
  Lock lock(mutex_);
  Statement query(*db_,
                  "SELECT id, kernel_id, status, diagnostics, profile_json, latency_ms, evaluation_json "
                  "FROM evaluations WHERE kernel_id = ?");
  query.bind(1, kernel_id);
  if (!query.step()) return std::nullopt;
  return EvaluationRecord{query.int64(0), query.int64(1), query.text(2), query.text(3), query.text(4),
                          query.optional_real(5), query.text(6)};
}

// --- memory -----------------------------------------------------------------------------------

int64_t RunStore::add_memory_item(const MemoryItemRecord& item) {
  Lock lock(mutex_);
  Statement(*db_, "INSERT INTO memory_items(run_id, round, item_json) VALUES(?, ?, ?)")
      .bind(1, item.run_id).bind(2, item.round).bind(3, item.item_json).run();
  return db_->last_insert_id();
}

std::vector<MemoryItemRecord> RunStore::memory_items(int64_t run_id) {
  Lock lock(mutex_);
  Statement query(*db_, "SELECT id, run_id, round, item_json FROM memory_items WHERE run_id = ? ORDER BY id");
  query.bind(1, run_id);
  std::vector<MemoryItemRecord> out;
  while (query.step()) out.push_back({query.int64(0), query.int64(1), static_cast<int>(query.int64(2)), query.text(3)});
  return out;
}

}  // namespace store
