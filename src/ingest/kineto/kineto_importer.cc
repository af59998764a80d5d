#include "ingest/kineto/kineto_importer.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "base/text.h"
#include "ingest/kineto/event_parser.h"
#include "ingest/kineto/json/byte_source.h"
#include "ingest/kineto/json/document_reader.h"
#include "ingest/kineto/rank_builder.h"

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
  kineto::RankBuilder builder(path);
  builder.Reserve(src.size_hint());
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
  RankTrace t = builder.Finish(kineto::RankFromFileName(path));
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
  if (r.not_a_trace)
    return MakeError(ErrorCode::kBadInput, "JSON without \"traceEvents\": not a Kineto trace",
                     {file.path});
  job.quality.Merge(r.quality);
  job.trace.ranks.push_back(std::move(*r.trace));
  FinishTraceSet(job);
  return Ok{};
}

namespace {

// Why a file found in a folder is not a trace, or "" if it looks like one.
std::string SniffFile(const std::string& path) {
  auto src = kineto::OpenFileSource(path);
  if (!src) return "cannot be read: " + src.error().message;
  std::string head(64 * 1024, '\0');
  size_t have = 0;
  while (have < head.size()) {
    auto got = (*src)->Read(head.data() + have, head.size() - have);
    if (!got) return "cannot be read: " + got.error().message;
    if (*got == 0) break;
    have += *got;
  }
  head.resize(have);
  if (head.empty()) return "empty file";
  return SniffKineto(head) ? "" : "not a Kineto trace";
}

}  // namespace

Status LoadKinetoFiles(const std::vector<KinetoInput>& files, Job& job,
                       const KinetoLoadOptions& options) {
  std::vector<FileResult> results(files.size());
  kineto::ReaderOptions ropt;
  ropt.part_bytes = options.part_bytes;
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    for (size_t i = next++; i < files.size(); i = next++) {
      const std::string& path = files[i].path;
      if (!files[i].explicit_file) {
        std::string why = SniffFile(path);
        if (!why.empty()) {
          results[i].not_a_trace = true;
          results[i].skip_reason = why;
          continue;
        }
      }
      auto reopen = [&path]() -> std::optional<std::unique_ptr<ByteSource>> {
        auto s = kineto::OpenFileSource(path);
        if (!s) return std::nullopt;
        return std::move(*s);
      };
      auto src = kineto::OpenFileSource(path, /*map=*/true);
      if (!src) {
        results[i].error = src.error();
        continue;
      }
      results[i] = ParseOne(path, **src, reopen, ropt);
      if (results[i].trace) {
        results[i].trace->json_bytes = results[i].bytes;
      }
    }
  };
  unsigned n = options.threads > 0 ? static_cast<unsigned>(options.threads)
                                   : std::max(1u, std::thread::hardware_concurrency());
  n = std::min<unsigned>(n, static_cast<unsigned>(files.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();

  for (size_t i = 0; i < files.size(); ++i) {
    FileResult& r = results[i];
    if (r.error) return *r.error;
    if (r.not_a_trace) {
      job.skipped.push_back({files[i].path, r.skip_reason});
      continue;
    }
    job.quality.Merge(r.quality);
    job.inputs.push_back({files[i].path, "kineto", r.bytes});
    job.trace.ranks.push_back(std::move(*r.trace));
  }
  FinishTraceSet(job);
  return Ok{};
}

}  // namespace commdx::ingest
