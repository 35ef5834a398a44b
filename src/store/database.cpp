#include "store/database.h"

#include <fmt/core.h>
#include <sqlite3.h>

#include "store/run_store.h"

namespace store {

Database::Database(const std::string& path) : path_(path) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(fmt::format("{}: cannot open the run store: {}", path, message));
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() { sqlite3_close(db_); }

void Database::exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return;
  std::string message = error ? error : sqlite3_errmsg(db_);
  sqlite3_free(error);
  throw StoreError(fmt::format("{}: {}", path_, message));
}

int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

void Database::fail(const std::string& what) const {
  throw StoreError(fmt::format("{}: {}: {}", path_, what, sqlite3_errmsg(db_)));
}

Statement::Statement(Database& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
    db.fail("cannot prepare a statement");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.fail("bind");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_.fail("bind");
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_.fail("bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<double>& value) {
  if (value) return bind(index, *value);
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_.fail("bind");
  return *this;
}

Statement& Statement::bind_id(int index, int64_t id) {
  if (id != 0) return bind(index, id);
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_.fail("bind");
  return *this;
}

bool Statement::step() {
  int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  db_.fail("query failed");
}

void Statement::run() { step(); }

int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::text(int column) const {
  const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return data ? std::string(data, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}

std::optional<double> Statement::optional_real(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return real(column);
}

Transaction::Transaction(Database& db) : db_(db), depth_(db.transaction_depth()) {
  db_.exec(depth_ == 0 ? std::string("BEGIN IMMEDIATE") : fmt::format("SAVEPOINT nested_{}", depth_));
  ++db_.transaction_depth();
}

Transaction::~Transaction() {
  if (done_) return;
  --db_.transaction_depth();
  try {
    if (depth_ == 0)
      db_.exec("ROLLBACK");
    else
      db_.exec(fmt::format("ROLLBACK TO nested_{0}; RELEASE nested_{0}", depth_));
  } catch (const StoreError&) {
    // Nothing more to do: SQLite already rolled back, or the connection is gone.
  }
}

void Transaction::commit() {
  db_.exec(depth_ == 0 ? std::string("COMMIT") : fmt::format("RELEASE nested_{}", depth_));
  done_ = true;
  --db_.transaction_depth();
}

}  // namespace store
