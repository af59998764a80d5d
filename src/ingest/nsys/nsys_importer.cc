#include "ingest/nsys/nsys_importer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/text.h"
#include "ingest/nsys/export_reader.h"
#include "ingest/nsys/nsys_rep.h"
#include "ingest/nsys/sqlite_db.h"

namespace commdx::ingest {

using nsys::Database;

bool SniffNsys(std::string_view head) {
  return nsys::LooksSqlite(head) &&
         (Contains(head, "StringIds") || Contains(head, "TARGET_INFO_") ||
          Contains(head, "CUPTI_ACTIVITY_KIND_") || Contains(head, "NVTX_EVENTS"));
}

namespace {

// The first bytes of the file as stored (ReadHead would inflate a gzipped one).
std::string RawHead(const std::string& path) {
  std::string head(16, '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return head;
}

Result<Streamed> ReadDatabase(const Database& db, uint64_t bytes, Job& part) {
  const size_t before = part.trace.ranks.size();
  COMMDX_ASSIGN_OR_RETURN(nsys::ExportRead read, nsys::ReadExport(db, part));
  // The size shown beside each trace is the database's (the column says "MB" read).
  for (size_t i = before; i < part.trace.ranks.size(); ++i) part.trace.ranks[i].json_bytes = bytes;
  Streamed out;
  out.bytes = bytes;
  if (!read.is_nsys) out.not_ours = read.why_not;
  return out;
}

}  // namespace

Result<Streamed> StreamNsys(const std::string& path, const StreamOptions&, Job& part) {
  if (nsys::LooksSqlite(RawHead(path))) {
    // A plain database is read in place: SQLite pages in only what the queries touch.
    COMMDX_ASSIGN_OR_RETURN(Database db, Database::OpenFile(path));
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    return ReadDatabase(db, ec ? 0 : size, part);
  }
  if (!LooksGzip(RawHead(path)) && nsys::IsReportName(path)) {
    COMMDX_ASSIGN_OR_RETURN(nsys::ConvertedReport rep, nsys::ConvertReport(path));
    COMMDX_ASSIGN_OR_RETURN(Database db, Database::OpenFile(rep.sqlite_path(), path));
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    return ReadDatabase(db, ec ? 0 : size, part);
  }
  // Gzipped (the head is inflated): SQLite reads the inflated image from memory
  // (sqlite3_deserialize), so no temporary file has to be written and cleaned up.
  COMMDX_ASSIGN_OR_RETURN(FileText text, ReadFile(path));
  COMMDX_ASSIGN_OR_RETURN(Database db, Database::OpenBytes(text.data, path));
  return ReadDatabase(db, text.data.size(), part);
}

Status ParseNsys(const FileText& file, Job& job) {
  std::string image = file.data;  // SQLite wants a writable pointer, even to read
  COMMDX_ASSIGN_OR_RETURN(Database db, Database::OpenBytes(image, file.path));
  Job part;
  COMMDX_ASSIGN_OR_RETURN(Streamed s, ReadDatabase(db, image.size(), part));
  if (!s.not_ours.empty()) return MakeError(ErrorCode::kBadInput, s.not_ours, {file.path});
  job.quality.Merge(part.quality);
  for (auto& r : part.trace.ranks) job.trace.ranks.push_back(std::move(r));
  return Ok{};
}

}  // namespace commdx::ingest
