// The run store: schema versioning, each table's round trip, the lookups resume relies on,
// thread safety and bad files.
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "base/content_hash.h"
#include "store/run_store.h"

namespace {

namespace fs = std::filesystem;

class RunStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("accelopt_store_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "run.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string path_;
};

store::KernelRecord kernel(int64_t run_id, const std::string& text, int64_t parent = 0) {
  store::KernelRecord record;
  record.run_id = run_id;
  record.task = "matmul";
  record.text = text;
  record.parent_kernel_id = parent;
  record.round = parent ? 0 : -1;
  return record;
}

store::LlmCallRecord call(int64_t run_id, const std::string& hash, int sample, int64_t in, int64_t out,
                          const std::string& error = "") {
  store::LlmCallRecord record;
  record.run_id = run_id;
  record.agent = "planner";
  record.model = "m";
  record.request_hash = hash;
  record.sample = sample;
  record.input_tokens = in;
  record.output_tokens = out;
  record.cost_usd = (in + out) * 1e-6;
  record.response_text = error.empty() ? "answer " + hash : "";
  record.error = error;
  return record;
}

TEST_F(RunStoreTest, DataSurvivesReopeningAndTheSchemaVersionIsRecorded) {
  int64_t run_id = 0;
  {
    store::RunStore store(path_);
    run_id = store.create_run("run-a", R"({"beam": 4})");
    store.set_run_status(run_id, "finished");
  }
  store::RunStore store(path_);
  auto run = store.find_run(run_id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->name, "run-a");
  EXPECT_EQ(run->config_json, R"({"beam": 4})");
  EXPECT_EQ(run->status, "finished");
  EXPECT_FALSE(run->created_at.empty());
  EXPECT_EQ(store.latest_run()->id, run_id);
  EXPECT_FALSE(store.find_run(run_id + 1));

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), store::RunStore::schema_version());
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(RunStoreTest, RejectsAFileThatIsNotAStore) {
  std::ofstream(path_) << "this is a kernel, not a database\n";
  try {
    store::RunStore store(path_);
    FAIL() << "expected StoreError";
  } catch (const store::StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("not a run store"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(path_), std::string::npos);
  }
}

TEST_F(RunStoreTest, RejectsAStoreWithANewerSchema) {
  { store::RunStore store(path_); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version = 999", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_THROW(store::RunStore store(path_), store::StoreError);
}

TEST_F(RunStoreTest, RejectsAnUnwritableDirectory) {
  EXPECT_THROW(store::RunStore store((dir_ / "missing" / "run.sqlite").string()), store::StoreError);
}

TEST_F(RunStoreTest, LastCompletedRoundIgnoresStartedRoundsAndIsPerTask) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  EXPECT_FALSE(store.last_completed_round(run_id, "silu"));
  store.begin_round(run_id, "silu", 1);
  EXPECT_FALSE(store.last_completed_round(run_id, "silu"));
  store.complete_round(run_id, "silu", 1, R"({"best_ms": 1.5})");
  store.begin_round(run_id, "silu", 2);
  store.begin_round(run_id, "silu", 2);  // a resumed round is begun again
  EXPECT_EQ(store.last_completed_round(run_id, "silu"), 1);
  store.complete_round(run_id, "silu", 2, "{}");
  EXPECT_EQ(store.last_completed_round(run_id, "silu"), 2);
  // Another task's round 1 is a separate row.
  store.complete_round(run_id, "adamw", 1, "{}");
  EXPECT_EQ(store.last_completed_round(run_id, "adamw"), 1);
  auto rounds = store.rounds(run_id);
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds[0].task, "adamw");
  EXPECT_EQ(rounds[1].summary_json, R"({"best_ms": 1.5})");
  EXPECT_EQ(rounds[2].status, "completed");
}

TEST_F(RunStoreTest, CheckpointsAreNumberedInRunOrder) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  EXPECT_FALSE(store.last_checkpoint(run_id));
  EXPECT_EQ(store.add_checkpoint(run_id, "one"), 1);
  EXPECT_EQ(store.add_checkpoint(run_id, "two"), 2);
  auto last = store.last_checkpoint(run_id);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->seq, 2);
  EXPECT_EQ(last->state_json, "two");
}

TEST_F(RunStoreTest, ATransactionCommitsItsCallsTogetherOrNotAtAll) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  store.transaction([&] {
    store.add_kernel(kernel(run_id, "a"));
    store.set_beam(run_id, 1, {{run_id, 1, "matmul", 0, store.add_kernel(kernel(run_id, "b"))}});  // nested
  });
  EXPECT_EQ(store.kernels(run_id).size(), 2u);
  EXPECT_EQ(store.beam(run_id, 1).size(), 1u);
  EXPECT_THROW(store.transaction([&] {
    store.add_kernel(kernel(run_id, "c"));
    store.add_kernel(kernel(run_id, "d", /*parent=*/999));  // dangling parent: the batch fails
  }),
               store::StoreError);
  EXPECT_EQ(store.kernels(run_id).size(), 2u);  // "c" was rolled back with it
  store.add_kernel(kernel(run_id, "e"));        // and the store still works
  EXPECT_EQ(store.kernels(run_id).size(), 3u);
}

TEST_F(RunStoreTest, AKernelKeepsItsFirstOrigin) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  int64_t base = store.add_kernel(kernel(run_id, "base"));
  int64_t plan = store.add_plan({0, run_id, 1, "matmul", base, 0, "tile"});
  int64_t other_plan = store.add_plan({0, run_id, 2, "matmul", base, 0, "fuse"});
  int64_t rewrite = store.add_kernel(kernel(run_id, "rewrite"));
  EXPECT_TRUE(store.set_kernel_origin(rewrite, base, plan, 0, 1));
  EXPECT_FALSE(store.set_kernel_origin(rewrite, base, other_plan, 0, 2));
  auto found = store.find_kernel(rewrite);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->parent_kernel_id, base);
  EXPECT_EQ(found->plan_id, plan);
  EXPECT_EQ(found->round, 1);
}

TEST_F(RunStoreTest, AVersionOneStoreIsMigrated) {
  {  // The v1 schema kept checkpoints as run-wide "rounds" (see schema.cpp, migration 2).
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    const char* v1 =
        "CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, config_json TEXT NOT NULL, "
        "status TEXT NOT NULL DEFAULT 'running', created_at TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE rounds(run_id INTEGER NOT NULL, round INTEGER NOT NULL, status TEXT NOT NULL, "
        "summary_json TEXT NOT NULL DEFAULT '{}', PRIMARY KEY(run_id, round));"
        "CREATE TABLE evaluations(id INTEGER PRIMARY KEY, kernel_id INTEGER NOT NULL UNIQUE, status TEXT NOT NULL, "
        "diagnostics TEXT NOT NULL, profile_json TEXT NOT NULL, latency_ms REAL, created_at TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE memory_items(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, round INTEGER NOT NULL, "
        "item_json TEXT NOT NULL);"
        "CREATE TABLE llm_calls(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, agent TEXT NOT NULL, model TEXT NOT NULL, "
        "request_hash TEXT NOT NULL, sample INTEGER NOT NULL, round INTEGER NOT NULL, input_tokens INTEGER NOT NULL, "
        "output_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, latency_s REAL NOT NULL, attempts INTEGER NOT NULL, "
        "response_text TEXT NOT NULL, raw_response TEXT NOT NULL, error TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT '');"
        "INSERT INTO llm_calls(run_id, agent, model, request_hash, sample, round, input_tokens, output_tokens, cost_usd, "
        "latency_s, attempts, response_text, raw_response, error) "
        "VALUES(1, 'planner', 'm', 'h', 0, 1, 10, 2, 0.5, 1.5, 1, 'plans', '{}', '');"
        "INSERT INTO runs(name, config_json) VALUES('old', '{}');"
        "INSERT INTO rounds VALUES(1, 1, 'completed', 'state one'), (1, 2, 'completed', 'state two');"
        "PRAGMA user_version = 1;";
    ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  store::RunStore store(path_);
  auto last = store.last_checkpoint(1);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->state_json, "state two");
  EXPECT_TRUE(store.rounds(1).empty());
  store.complete_round(1, "silu", 1, "{}");
  EXPECT_EQ(store.last_completed_round(1, "silu"), 1);
  // LLM calls gained columns (schema 3); an old row reads with them empty. Its request hash left
  // out temperature and max_tokens (schema 4), so a resume no longer takes it as the answer.
  EXPECT_FALSE(store.find_llm_call(1, "h", 0));
  auto old_call = store.find_llm_call(1, "v3:h", 0);
  ASSERT_TRUE(old_call);
  EXPECT_EQ(old_call->response_text, "plans");
  EXPECT_EQ(old_call->tag, "");
  EXPECT_EQ(old_call->error_kind, "");
  EXPECT_EQ(store.llm_totals(1).calls, 1);  // still counted in the run's spend
}

TEST_F(RunStoreTest, RecordedCallsAreFoundByRequestThenByReplayKeyAnsweredFirst) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  auto failed = call(run_id, "h1", 0, 0, 0, "HTTP 503 after 3 attempts");
  failed.replay_key = "key1";
  failed.error_kind = "unavailable";
  failed.http_status = 503;
  failed.attempts = 3;
  int64_t failed_id = store.add_llm_call(failed);
  auto answered = call(run_id, "h1", 0, 100, 20);
  answered.replay_key = "key1";
  answered.tag = "silu/r1/c0";
  int64_t answered_id = store.add_llm_call(answered);
  auto refused = call(run_id, "h2", 0, 0, 0, "not sent");
  refused.replay_key = "key2";
  refused.error_kind = "budget";
  store.add_llm_call(refused);
  // By request hash: the answer wins over the failure before it.
  EXPECT_EQ(store.find_recorded_call(run_id, "h1", "", 0)->id, answered_id);
  // By replay key when the request differs (another arch's prompt quotes other figures).
  auto by_key = store.find_recorded_call(run_id, "other-hash", "key1", 0);
  ASSERT_TRUE(by_key);
  EXPECT_EQ(by_key->id, answered_id);
  EXPECT_EQ(by_key->tag, "silu/r1/c0");
  EXPECT_EQ(store.find_recorded_call(run_id, "other-hash", "key2", 0)->error_kind, "budget");
  EXPECT_FALSE(store.find_recorded_call(run_id, "other-hash", "", 0));
  EXPECT_FALSE(store.find_recorded_call(run_id, "other-hash", "key3", 0));
  // Failed rows keep what happened; refused rows are not calls.
  auto calls = store.llm_calls(run_id);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].id, failed_id);
  EXPECT_EQ(calls[0].attempts, 3);
  EXPECT_EQ(calls[0].http_status, 503);
  EXPECT_EQ(store.llm_totals(run_id).calls, 2);
  EXPECT_EQ(store.llm_totals(run_id).failed_calls, 1);
}

TEST_F(RunStoreTest, KernelsAreUniquePerTaskAndHashAndLinkToParentsAndPlans) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  int64_t base = store.add_kernel(kernel(run_id, "def kernel(): pass\n"));
  EXPECT_EQ(store.add_kernel(kernel(run_id, "def kernel(): pass\n")), base);
  store::PlanRecord plan{0, run_id, 0, "matmul", base, 0, "tile the K loop"};
  int64_t plan_id = store.add_plan(plan);
  auto child_record = kernel(run_id, "def kernel(): return 1\n", base);
  child_record.plan_id = plan_id;
  int64_t child = store.add_kernel(child_record);
  EXPECT_NE(child, base);

  auto found = store.find_kernel_by_hash(run_id, "matmul", base::content_hash("def kernel(): return 1\n"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, child);
  EXPECT_EQ(found->parent_kernel_id, base);
  EXPECT_EQ(found->plan_id, plan_id);
  EXPECT_EQ(found->llm_call_id, 0);
  EXPECT_FALSE(store.find_kernel_by_hash(run_id, "softmax", found->hash));
  EXPECT_EQ(store.kernels(run_id).size(), 2u);
  ASSERT_EQ(store.plans(run_id, 0).size(), 1u);
  EXPECT_EQ(store.plans(run_id, 0)[0].text, "tile the K loop");
}

TEST_F(RunStoreTest, DanglingReferencesAreRejected) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  EXPECT_THROW(store.add_kernel(kernel(run_id, "x", /*parent=*/4242)), store::StoreError);
  EXPECT_THROW(store.add_evaluation({0, 4242, "ok", "", "{}", 1.0}), store::StoreError);
}

TEST_F(RunStoreTest, EvaluationsRoundTripAndAReCheckReplacesThem) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  int64_t kernel_id = store.add_kernel(kernel(run_id, "k"));
  EXPECT_FALSE(store.find_evaluation(kernel_id));
  store.add_evaluation({0, kernel_id, "wrong", "output mismatch", "{}", std::nullopt});
  auto first = store.find_evaluation(kernel_id);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, "wrong");
  EXPECT_FALSE(first->latency_ms);
  store.add_evaluation({0, kernel_id, "ok", "", R"({"latency": 0.25})", 0.25});
  auto second = store.find_evaluation(kernel_id);
  EXPECT_EQ(second->status, "ok");
  EXPECT_EQ(second->profile_json, R"({"latency": 0.25})");
  EXPECT_DOUBLE_EQ(*second->latency_ms, 0.25);
}

TEST_F(RunStoreTest, FindLlmCallMatchesHashAndSampleAndSkipsFailedCalls) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  store.add_llm_call(call(run_id, "h1", 0, 0, 0, "timeout after 2 attempts"));
  EXPECT_FALSE(store.find_llm_call(run_id, "h1", 0));
  int64_t answered = store.add_llm_call(call(run_id, "h1", 0, 100, 20));
  store.add_llm_call(call(run_id, "h1", 1, 110, 30));
  auto found = store.find_llm_call(run_id, "h1", 0);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, answered);
  EXPECT_EQ(found->response_text, "answer h1");
  EXPECT_EQ(store.find_llm_call(run_id, "h1", 1)->input_tokens, 110);
  EXPECT_FALSE(store.find_llm_call(run_id, "h1", 2));
  EXPECT_FALSE(store.find_llm_call(run_id, "h2", 0));

  auto totals = store.llm_totals(run_id);
  EXPECT_EQ(totals.calls, 3);
  EXPECT_EQ(totals.failed_calls, 1);
  EXPECT_EQ(totals.input_tokens, 210);
  EXPECT_EQ(totals.output_tokens, 50);
  EXPECT_NEAR(totals.cost_usd, 260e-6, 1e-12);
}

TEST_F(RunStoreTest, SetBeamReplacesATasksMembers) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  int64_t k1 = store.add_kernel(kernel(run_id, "k1"));
  int64_t k2 = store.add_kernel(kernel(run_id, "k2"));
  store.set_beam(run_id, 0, {{run_id, 0, "matmul", 0, k1}, {run_id, 0, "matmul", 1, k2}});
  store.set_beam(run_id, 0, {{run_id, 0, "matmul", 0, k2}});
  auto beam = store.beam(run_id, 0);
  ASSERT_EQ(beam.size(), 1u);
  EXPECT_EQ(beam[0].kernel_id, k2);
  EXPECT_TRUE(store.beam(run_id, 1).empty());
}

TEST_F(RunStoreTest, MemoryItemsKeepTheirOrder) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  store.add_memory_item({0, run_id, 0, R"({"lesson": "a"})"});
  store.add_memory_item({0, run_id, 1, R"({"lesson": "b"})"});
  auto items = store.memory_items(run_id);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].item_json, R"({"lesson": "a"})");
  EXPECT_EQ(items[1].round, 1);
}

TEST_F(RunStoreTest, ConcurrentWritersLoseNothing) {
  store::RunStore store(path_);
  int64_t run_id = store.create_run("r", "{}");
  std::vector<std::thread> threads;
  for (int thread_idx = 0; thread_idx < 4; ++thread_idx) {
    threads.emplace_back([&store, run_id, thread_idx] {
      for (int call_idx = 0; call_idx < 25; ++call_idx)
        store.add_llm_call(call(run_id, "t" + std::to_string(thread_idx), call_idx, 1, 1));
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(store.llm_totals(run_id).calls, 100);
  EXPECT_TRUE(store.find_llm_call(run_id, "t3", 24));
}

}  // namespace
