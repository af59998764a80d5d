// The Database of sqlite_db.h in a build without the SQLite library (COMMDX_WITH_SQLITE=OFF, as
// the portable package is built: Debian's libsqlite3.a needs a newer glibc than the package's
// floor). Opening fails with a message that says so; nothing else can be reached.
#include "ingest/nsys/sqlite_db.h"

namespace commdx::ingest::nsys {

namespace {

constexpr std::string_view kMagic{"SQLite format 3\0", 16};

Error NoSqlite(const std::string& file) {
  return MakeError(ErrorCode::kBadInput,
                   "this commdx was built without SQLite, so it cannot read Nsight Systems "
                   "exports; use a commdx built from source (scripts/quickstart.sh)",
                   {file});
}

}  // namespace

bool LooksSqlite(std::string_view head) { return head.substr(0, kMagic.size()) == kMagic; }

Rows::~Rows() = default;
Result<bool> Rows::Next() { return false; }
bool Rows::Null(int) const { return true; }
int64_t Rows::Int(int) const { return 0; }
double Rows::Real(int) const { return 0; }
std::string_view Rows::Text(int) const { return {}; }
std::string_view Rows::Blob(int) const { return {}; }

Result<Database> Database::OpenFile(const std::string& path, const std::string& name) {
  return NoSqlite(name.empty() ? path : name);
}
Result<Database> Database::OpenBytes(std::string&, const std::string& name) {
  return NoSqlite(name);
}
Database::Database(Database&& o) noexcept : db_(o.db_), file_(std::move(o.file_)) {
  o.db_ = nullptr;
}
Database::~Database() = default;
Error Database::Fail(std::string_view) const { return NoSqlite(file_); }
Result<Rows> Database::Query(std::string_view) const { return Fail(""); }
Result<std::set<std::string, std::less<>>> Database::Tables() const { return Fail(""); }
Result<std::set<std::string, std::less<>>> Database::Columns(std::string_view) const {
  return Fail("");
}

}  // namespace commdx::ingest::nsys
