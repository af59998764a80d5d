// A read-only SQLite database, opened from a file or from bytes in memory, with the few calls the
// Nsight Systems importer needs. Every SQLite failure (not a database, corrupt pages, a missing
// column) becomes an Error of kind kBadInput naming the file: bad input is exit 3, never a crash.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "base/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace commdx::ingest::nsys {

// One prepared statement, stepped row by row.
class Rows {
 public:
  Rows(sqlite3_stmt* stmt, const std::string* file) : stmt_(stmt), file_(file) {}
  Rows(Rows&& o) noexcept : stmt_(o.stmt_), file_(o.file_) { o.stmt_ = nullptr; }
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;
  Rows& operator=(Rows&&) = delete;
  ~Rows();

  // True with a row, false at the end; an Error for a corrupt page.
  Result<bool> Next();
  bool Null(int col) const;
  int64_t Int(int col) const;  // NULL reads as 0
  double Real(int col) const;
  std::string_view Text(int col) const;  // NULL reads as ""
  std::string_view Blob(int col) const;  // NULL reads as ""

 private:
  sqlite3_stmt* stmt_;
  const std::string* file_;
};

class Database {
 public:
  // Opens `path` read-only; the file is never written or locked for writing.
  // `name` is the file named in messages and in the traces (default: `path`).
  static Result<Database> OpenFile(const std::string& path, const std::string& name = "");
  // Reads a database image held in memory (a decompressed .sqlite.gz, a fuzzer's input) without
  // copying it; `bytes` must outlive the Database.
  static Result<Database> OpenBytes(std::string& bytes, const std::string& name);

  Database(Database&& o) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  Database& operator=(Database&&) = delete;
  ~Database();

  // The tables that exist (sqlite_master): nsys writes a table only when it has data.
  Result<std::set<std::string, std::less<>>> Tables() const;
  // The columns of `table` (PRAGMA table_info); empty if the table does not exist.
  Result<std::set<std::string, std::less<>>> Columns(std::string_view table) const;
  Result<Rows> Query(std::string_view sql) const;
  // Calls `row(rows)` for every row of `sql`.
  template <class F>
  Status EachRow(std::string_view sql, F row) const {
    COMMDX_ASSIGN_OR_RETURN(Rows rows, Query(sql));
    while (true) {
      COMMDX_ASSIGN_OR_RETURN(bool more, rows.Next());
      if (!more) return Ok{};
      row(rows);
    }
  }
  const std::string& file() const { return file_; }

 private:
  Database(sqlite3* db, std::string file) : db_(db), file_(std::move(file)) {}
  Error Fail(std::string_view what) const;
  sqlite3* db_;
  std::string file_;
};

// "SQLite format 3\0" at the start of a file.
bool LooksSqlite(std::string_view head);

}  // namespace commdx::ingest::nsys
