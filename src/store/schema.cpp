#include "store/schema.h"

#include <string>
#include <vector>

#include <fmt/core.h>

#include "store/database.h"
#include "store/run_store.h"

namespace store {
namespace {

// Migration n takes the schema from version n to n + 1. Append, never edit: stores written by
// older builds replay only the steps they lack.
const std::vector<std::string>& migrations() {
  static const std::vector<std::string> steps = {
      R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  config_json TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'running',
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE TABLE rounds(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  round INTEGER NOT NULL,
  status TEXT NOT NULL,
  summary_json TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY(run_id, round));
CREATE TABLE llm_calls(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  agent TEXT NOT NULL,
  model TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  sample INTEGER NOT NULL,
  round INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  latency_s REAL NOT NULL,
  attempts INTEGER NOT NULL,
  response_text TEXT NOT NULL,
  raw_response TEXT NOT NULL,
  error TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE INDEX llm_calls_by_request ON llm_calls(run_id, request_hash, sample);
CREATE TABLE plans(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  round INTEGER NOT NULL,
  task TEXT NOT NULL,
  base_kernel_id INTEGER REFERENCES kernels(id),
  llm_call_id INTEGER REFERENCES llm_calls(id),
  text TEXT NOT NULL);
CREATE INDEX plans_by_round ON plans(run_id, round);
CREATE TABLE kernels(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  task TEXT NOT NULL,
  hash TEXT NOT NULL,
  text TEXT NOT NULL,
  parent_kernel_id INTEGER REFERENCES kernels(id),
  plan_id INTEGER REFERENCES plans(id),
  llm_call_id INTEGER REFERENCES llm_calls(id),
  round INTEGER NOT NULL,
  UNIQUE(run_id, task, hash));
CREATE TABLE evaluations(
  id INTEGER PRIMARY KEY,
  kernel_id INTEGER NOT NULL UNIQUE REFERENCES kernels(id),
  status TEXT NOT NULL,
  diagnostics TEXT NOT NULL,
  profile_json TEXT NOT NULL,
  latency_ms REAL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE TABLE candidates(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  round INTEGER NOT NULL,
  task TEXT NOT NULL,
  rank INTEGER NOT NULL,
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  PRIMARY KEY(run_id, round, task, rank));
CREATE TABLE memory_items(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  round INTEGER NOT NULL,
  item_json TEXT NOT NULL);
)sql",
      // 2: rounds become per task (a run optimizes several tasks, each with rounds 1..T) and the
      // resume checkpoints, which v1 kept as "rounds" numbered across the run, get their own
      // table; evaluations keep the whole Evaluation as JSON beside the profile.
      R"sql(
CREATE TABLE checkpoints(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  state_json TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY(run_id, seq));
INSERT INTO checkpoints(run_id, seq, state_json)
  SELECT run_id, round, summary_json FROM rounds WHERE status = 'completed';
DROP TABLE rounds;
CREATE TABLE rounds(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  task TEXT NOT NULL,
  round INTEGER NOT NULL,
  status TEXT NOT NULL,
  summary_json TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY(run_id, task, round));
ALTER TABLE evaluations ADD COLUMN evaluation_json TEXT NOT NULL DEFAULT '';
CREATE INDEX memory_items_by_run ON memory_items(run_id, round);
)sql",
      // 3: LLM calls say more (additive: older rows read as empty): the call site, the replay key
      // (--replay), cached prompt tokens, the failure's kind and last HTTP status, the finish
      // reason, and whether the answer was replayed from another run.
      R"sql(
ALTER TABLE llm_calls ADD COLUMN tag TEXT NOT NULL DEFAULT '';
ALTER TABLE llm_calls ADD COLUMN replay_key TEXT NOT NULL DEFAULT '';
ALTER TABLE llm_calls ADD COLUMN cached_input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE llm_calls ADD COLUMN error_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE llm_calls ADD COLUMN http_status INTEGER NOT NULL DEFAULT 0;
ALTER TABLE llm_calls ADD COLUMN finish_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE llm_calls ADD COLUMN origin TEXT NOT NULL DEFAULT '';
CREATE INDEX llm_calls_by_replay_key ON llm_calls(run_id, replay_key);
)sql",
      // 4: LLM request hashes cover temperature and max_tokens (agents/llm_session.cpp). A stored
      // answer's key left them out, so nothing says it was given under the settings of the run
      // that resumes: its key is set apart ("v3:"), and a resumed run asks again. The rows stay
      // for the report and the spend; --replay still finds them by replay key.
      R"sql(
UPDATE llm_calls SET request_hash = 'v3:' || request_hash;
)sql",
  };
  return steps;
}

int read_user_version(Database& db) {
  Statement query(db, "PRAGMA user_version");
  query.step();
  return static_cast<int>(query.int64(0));
}

}  // namespace

int current_schema_version() { return static_cast<int>(migrations().size()); }

void prepare_database(Database& db) {
  // busy_timeout: readers such as `accelopt report` may hold the file briefly while a run writes.
  db.exec("PRAGMA busy_timeout = 10000");
  // The first statement that reads the file: a non-database file fails here with a clear message.
  try {
    db.exec("PRAGMA journal_mode = WAL");
  } catch (const StoreError& error) {
    throw StoreError(fmt::format("{}: not a run store ({})", db.path(), error.what()));
  }
  // FULL: each commit fsyncs the WAL, so a committed LLM answer (money spent) or evaluation
  // (minutes spent) survives power loss and OS crashes too, not only a killed process (which
  // NORMAL already covers). Commits happen a few times per LLM call or evaluation, which take
  // seconds, so the fsync cost (about a millisecond; see docs/performance/llm.md) is negligible.
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA foreign_keys = ON");
  Transaction transaction(db);
  int version = read_user_version(db);
  if (version > current_schema_version())
    throw StoreError(fmt::format("{}: the run store has schema version {}, newer than this accelopt's {}",
                                 db.path(), version, current_schema_version()));
  for (int step = version; step < current_schema_version(); ++step) db.exec(migrations()[step]);
  db.exec(fmt::format("PRAGMA user_version = {}", current_schema_version()));
  transaction.commit();
}

}  // namespace store
