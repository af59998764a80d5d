#include "ingest/nsys/sqlite_db.h"

#include <sqlite3.h>

#include <cstdio>

namespace commdx::ingest::nsys {

namespace {

constexpr std::string_view kMagic("SQLite format 3\0", 16);

Error BadInput(const std::string& file, std::string_view what, std::string_view detail) {
  return MakeError(ErrorCode::kBadInput,
                   std::string(what) + ": " + std::string(detail) +
                       " (not a readable SQLite database; re-export it with "
                       "`nsys export --type sqlite`)",
                   {file});
}

// Keeps a hostile file from making SQLite build huge values or run forever on corrupt pages.
void Harden(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 64 << 20);
}

}  // namespace

bool LooksSqlite(std::string_view head) { return head.substr(0, kMagic.size()) == kMagic; }

Rows::~Rows() { sqlite3_finalize(stmt_); }

Result<bool> Rows::Next() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return BadInput(*file_, "reading a row failed", sqlite3_errmsg(sqlite3_db_handle(stmt_)));
}

bool Rows::Null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Rows::Int(int col) const { return sqlite3_column_int64(stmt_, col); }
double Rows::Real(int col) const { return sqlite3_column_double(stmt_, col); }

std::string_view Rows::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (!p) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

std::string_view Rows::Blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  if (!p) return {};
  return {static_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

// Each Database is used by one thread (files are read in parallel, each with its own): NOMUTEX
// spares a lock around every column read (~12% of ingest time).
Result<Database> Database::OpenFile(const std::string& path, const std::string& name) {
  const std::string& shown = name.empty() ? path : name;
  sqlite3* db = nullptr;
  // immutable=1: the file is not changing under us, so SQLite takes no locks and writes no
  // journal or -shm beside it (a read-only folder works).
  std::string uri = "file:";
  for (char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      uri += buf;
    } else {
      uri += c;
    }
  }
  uri += "?immutable=1";
  int rc = sqlite3_open_v2(uri.c_str(), &db,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return BadInput(shown, "cannot open", msg);
  }
  Harden(db);
  // Pages mapped, not copied by pread (~9% of ingest time on a large export).
  sqlite3_exec(db, "PRAGMA mmap_size = 1099511627776", nullptr, nullptr, nullptr);
  return Database(db, shown);
}

Result<Database> Database::OpenBytes(std::string& bytes, const std::string& name) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    return MakeError(ErrorCode::kInternal, "SQLite cannot open an in-memory database", {name});
  }
  auto* data = reinterpret_cast<unsigned char*>(bytes.data());
  auto size = static_cast<sqlite3_int64>(bytes.size());
  rc = sqlite3_deserialize(db, "main", data, size, size, SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db);
    sqlite3_close(db);
    return BadInput(name, "cannot read", msg);
  }
  Harden(db);
  return Database(db, name);
}

Database::Database(Database&& o) noexcept : db_(o.db_), file_(std::move(o.file_)) {
  o.db_ = nullptr;
}

Database::~Database() { sqlite3_close(db_); }

Error Database::Fail(std::string_view what) const {
  return BadInput(file_, what, sqlite3_errmsg(db_));
}

Result<Rows> Database::Query(std::string_view sql) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Fail("query failed (" + std::string(sql.substr(0, 60)) + ")");
  }
  return Rows(stmt, &file_);
}

Result<std::set<std::string, std::less<>>> Database::Tables() const {
  std::set<std::string, std::less<>> out;
  COMMDX_ASSIGN_OR_RETURN(Rows rows, Query("SELECT name FROM sqlite_master WHERE type='table'"));
  while (true) {
    COMMDX_ASSIGN_OR_RETURN(bool more, rows.Next());
    if (!more) break;
    out.emplace(rows.Text(0));
  }
  return out;
}

Result<std::set<std::string, std::less<>>> Database::Columns(std::string_view table) const {
  std::set<std::string, std::less<>> out;
  std::string sql = "SELECT name FROM pragma_table_info('";
  for (char c : table) sql += c == '\'' ? std::string("''") : std::string(1, c);
  sql += "')";
  COMMDX_ASSIGN_OR_RETURN(Rows rows, Query(sql));
  while (true) {
    COMMDX_ASSIGN_OR_RETURN(bool more, rows.Next());
    if (!more) break;
    out.emplace(rows.Text(0));
  }
  return out;
}

}  // namespace commdx::ingest::nsys
