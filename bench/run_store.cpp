// Run store commit cost: how long one durable add_llm_call takes, and what synchronous=FULL
// (our choice, see src/store/schema.cpp) costs against NORMAL on the same table. Prints medians.
//
//   bench_run_store [--calls N]      (default 200; writes into a temporary directory)
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "base/content_hash.h"
#include "store/run_store.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

store::LlmCallRecord sample_call(int64_t run_id, int index) {
  store::LlmCallRecord call;
  call.run_id = run_id;
  call.agent = "executor";
  call.model = "bench-model";
  call.request_hash = base::content_hash(std::to_string(index));
  call.sample = index;
  call.input_tokens = 3000;
  call.output_tokens = 1500;
  call.response_text = std::string(6000, 'k');  // a typical kernel answer
  call.raw_response = std::string(6500, 'r');
  return call;
}

// Milliseconds per RunStore::add_llm_call (one committed transaction each).
std::vector<double> time_run_store(const std::string& path, int calls) {
  store::RunStore store(path);
  int64_t run_id = store.create_run("bench", "{}");
  std::vector<double> ms;
  for (int index = 0; index < calls; ++index) {
    auto start = Clock::now();
    store.add_llm_call(sample_call(run_id, index));
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return ms;
}

// Milliseconds per committed insert of the same size in raw SQLite with the given synchronous mode.
std::vector<double> time_raw_sqlite(const std::string& path, const char* synchronous, int calls) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
  sqlite3_exec(db, fmt::format("PRAGMA synchronous = {}", synchronous).c_str(), nullptr, nullptr, nullptr);
  sqlite3_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, hash TEXT, a TEXT, b TEXT)", nullptr, nullptr, nullptr);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO t(hash, a, b) VALUES(?, ?, ?)", -1, &insert, nullptr);
  std::string text(6000, 'k'), raw(6500, 'r');
  std::vector<double> ms;
  for (int index = 0; index < calls; ++index) {
    auto start = Clock::now();
    std::string hash = base::content_hash(std::to_string(index));
    sqlite3_bind_text(insert, 1, hash.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 2, text.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 3, raw.c_str(), -1, SQLITE_STATIC);
    sqlite3_step(insert);
    sqlite3_reset(insert);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  sqlite3_finalize(insert);
  sqlite3_close(db);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 200;
  if (argc == 3 && std::strcmp(argv[1], "--calls") == 0) calls = std::max(1, std::atoi(argv[2]));
  fs::path dir = fs::temp_directory_path() / ("accelopt_bench_store_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  double store_ms = median(time_run_store((dir / "store.sqlite").string(), calls));
  double full_ms = median(time_raw_sqlite((dir / "full.sqlite").string(), "FULL", calls));
  double normal_ms = median(time_raw_sqlite((dir / "normal.sqlite").string(), "NORMAL", calls));
  fs::remove_all(dir);
  fmt::print("calls per measurement: {}\n", calls);
  fmt::print("RunStore::add_llm_call (WAL, synchronous=FULL): median {:.3f} ms\n", store_ms);
  fmt::print("raw insert, synchronous=FULL:                  median {:.3f} ms\n", full_ms);
  fmt::print("raw insert, synchronous=NORMAL:                median {:.3f} ms\n", normal_ms);
  fmt::print("FULL / NORMAL:                                 {:.1f}x\n", normal_ms > 0 ? full_ms / normal_ms : 0);
  return 0;
}
