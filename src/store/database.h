// A thin RAII layer over the SQLite C API for the run store: a connection, prepared statements
// with typed binds and reads, and transactions. Every failure is a StoreError naming the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace store {

class Database;

class Statement {
 public:
  Statement(Database& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds are 1-based, in the order of the '?' in the SQL; returns *this for chaining.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, const std::optional<double>& value);
  Statement& bind_id(int index, int64_t id);  // 0 binds NULL: "no such row"

  bool step();  // true while a row is available
  void run();   // steps once, for statements without results

  int64_t int64(int column) const;  // NULL reads as 0
  double real(int column) const;
  std::string text(int column) const;
  std::optional<double> optional_real(int column) const;

 private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  explicit Database(const std::string& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);
  int64_t last_insert_id() const;
  [[noreturn]] void fail(const std::string& what) const;  // throws StoreError with SQLite's message
  sqlite3* handle() const { return db_; }
  int& transaction_depth() { return transaction_depth_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
  int transaction_depth_ = 0;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back if destroyed before commit() (an exception). Inside
// another Transaction on the same Database it is a SAVEPOINT, released or rolled back alone.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  int depth_ = 0;  // 0 = outermost
  bool done_ = false;
};

}  // namespace store
