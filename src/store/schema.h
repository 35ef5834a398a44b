// The run store's schema and its migrations (PRAGMA user_version is the schema version).
#pragma once

namespace store {

class Database;

// The version this build writes.
int current_schema_version();

// Sets the connection's pragmas, then creates or upgrades the schema in one transaction.
// Throws StoreError if the file is not a SQLite database or has a newer schema.
void prepare_database(Database& db);

}  // namespace store
