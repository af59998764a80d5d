#include "ingest/kineto/kineto_importer.h"

#include <algorithm>
#include <optional>

#include "base/text.h"
#include "ingest/kineto/event_parser.h"
#include "ingest/kineto/json/byte_source.h"
#include "ingest/kineto/json/document_reader.h"
#include "ingest/trace_build/rank_builder.h"

namespace commdx::ingest {

namespace {

using kineto::ByteSource;

struct FileResult {
  std::optional<RankTrace> trace;
  Diagnostics quality;
  std::optional<Error> error;
  bool not_a_trace = false;
  std::string skip_reason = "JSON without \"traceEvents\": not a Kineto trace";
  uint64_t bytes = 0;
};

// Turns the byte offset of an error into line:col by reading the input again.
template <class Reopen>
Error WithLineCol(Error e, Reopen reopen) {
  if (!e.where.has_offset || e.where.line) return e;
  if (auto src = reopen()) {
    auto lc = kineto::LocateByRereading(**src, e.where.offset);
    e.where.line = lc.line;
    e.where.col = lc.col;
  }
  return e;
}

template <class Reopen>
FileResult ParseOne(const std::string& path, ByteSource& src, Reopen reopen,
                    const kineto::ReaderOptions& ropt) {
  FileResult out;
  trace_build::RankBuilder builder(path);
  builder.Reserve(src.expected_bytes());
  kineto::EventParser parser(path, builder);
  auto stats = kineto::ReadDocument(src, path, parser, ropt);
  if (!stats) {
    out.error = WithLineCol(std::move(stats).error(), reopen);
    return out;
  }
  out.bytes = stats->bytes;
  if (!stats->saw_trace_events) {
    out.not_a_trace = true;
    return out;
  }
  if (stats->cut) {
    builder.SetCutShort(
        {true, stats->cut_in_events, stats->gzip_cut, stats->cut_offset, stats->bytes});
  }
  RankTrace t = builder.Finish(trace_build::RankFromFileName(path));
  if (stats->cut && t.events == 0) {  // nothing before the cut: no trace to read
    SourceLoc loc{path};
    loc.offset = stats->cut_offset;
    loc.has_offset = true;
    out.error = WithLineCol(
        MakeError(ErrorCode::kBadInput,
                  "truncated JSON: the input ends inside traceEvents before its first event" +
                      std::string(stats->gzip_cut ? " (truncated gzip stream)" : ""),
                  loc),
        reopen);
    return out;
  }
  t.json_bytes = stats->bytes;
  out.quality = builder.quality();
  out.trace = std::move(t);
  return out;
}

}  // namespace

bool SniffKineto(std::string_view head) {
  std::string_view s = TrimLeft(head);
  if (s.empty() || s.front() != '{') return false;
  return Contains(head, "\"traceEvents\"") || Contains(head, "\"deviceProperties\"") ||
         (Contains(head, "\"schemaVersion\"") && Contains(head, "\"distributedInfo\""));
}

Status ParseKineto(const FileText& file, Job& job) {
  auto src = kineto::MemorySource(file.data, file.path);
  auto reopen = [&file]() -> std::optional<std::unique_ptr<ByteSource>> {
    return kineto::MemorySource(file.data, file.path);
  };
  FileResult r = ParseOne(file.path, *src, reopen, {});
  if (r.error) return *r.error;
  if (r.not_a_trace) return MakeError(ErrorCode::kBadInput, r.skip_reason, {file.path});
  job.quality.Merge(r.quality);
  job.trace.ranks.push_back(std::move(*r.trace));
  return Ok{};
}

Result<Streamed> StreamKineto(const std::string& path, const StreamOptions& options, Job& part) {
  kineto::ReaderOptions ropt;
  ropt.part_bytes = options.part_bytes;
  auto reopen = [&path]() -> std::optional<std::unique_ptr<ByteSource>> {
    auto s = kineto::OpenFileSource(path);
    if (!s) return std::nullopt;
    return std::move(*s);
  };
  auto src = kineto::OpenFileSource(path, /*map=*/true);
  if (!src) return src.error();
  FileResult r = ParseOne(path, **src, reopen, ropt);
  if (r.error) return *r.error;
  Streamed out;
  out.bytes = r.bytes;
  if (r.not_a_trace) {
    out.not_ours = r.skip_reason;
    return out;
  }
  part.quality.Merge(r.quality);
  part.trace.ranks.push_back(std::move(*r.trace));
  return out;
}

}  // namespace commdx::ingest
