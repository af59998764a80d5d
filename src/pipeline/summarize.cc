#include "pipeline/summarize.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "analysis/rank_measures.h"
#include "base/input_path.h"
#include "base/write_file.h"
#include "ingest/summary/summary_format.h"
#include "pipeline/summary_digest.h"

namespace commdx::pipeline {

namespace {

std::string DefaultName(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (!ranks.empty() && ranks.front() >= 0) {
    if (ranks.size() == 1) return "rank" + std::to_string(ranks.front());
    return "ranks" + std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0]) return host;
  return "inputs";
}

// An existing file at `out` that is one of the inputs, or lies in a folder given as one: the
// user's file (an input, or an older summary skipped as one). Never written over when named as an
// input; in an input folder only with --force (rewriting last run's summary).
Status NotAnInput(const std::string& out, const std::vector<std::string>& inputs, bool force) {
  namespace fs = std::filesystem;
  const auto out_stamp = StampOf(out);
  if (!out_stamp) return Ok{};  // a new file
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(out, ec);
  for (const auto& in : inputs) {
    const auto in_stamp = StampOf(in);
    const bool same = in_stamp && in_stamp->SameFile(*out_stamp);  // links included
    const fs::path p = fs::weakly_canonical(in, ec);
    const bool inside =
        !ec && fs::is_directory(p, ec) &&
        std::mismatch(p.begin(), p.end(), target.begin(), target.end()).first == p.end();
    if (same || (inside && !force))
      return MakeError(ErrorCode::kUsage,
                       "refusing to write the summary over a file among the inputs (" + in +
                           "), which stays untouched; choose another -o or --name" +
                           (same ? "" : ", or --force to replace it"),
                       {out});
  }
  return Ok{};
}

}  // namespace

Result<SummarizeResult> RunSummarize(const SummarizeRequest& request) {
  if (request.out_dir.empty())
    return MakeError(ErrorCode::kUsage, "summarize needs -o DIR, the folder to write into");
  ingest::summary::SummarizeOptions options;
  options.threads = request.threads;
  options.tool_version = COMMDX_VERSION;
  // A summary holds each trace rank's digest, not its events (docs/summary-format.md).
  options.rank_built = [](RankTrace& t) { analysis::DigestRank(t, true); };
  UseSummaryDigests();
  COMMDX_ASSIGN_OR_RETURN(ingest::summary::Summary summary,
                          ingest::summary::Summarize(request.paths, options));
  std::error_code ec;
  std::filesystem::create_directories(request.out_dir, ec);
  if (ec)
    return MakeError(ErrorCode::kUsage, "cannot make the folder: " + ec.message(),
                     {request.out_dir});
  std::string name = request.name.empty() ? DefaultName(summary.ranks) : request.name;
  if (name.find('/') != std::string::npos)
    return MakeError(ErrorCode::kUsage, "--name is a file name, not a path: " + name);
  SummarizeResult out;
  out.path = (std::filesystem::path(request.out_dir) /
              (name + std::string(ingest::summary::kFileSuffix) + (request.gzip ? ".gz" : "")))
                 .string();
  std::string data = request.gzip ? ingest::summary::Gzip(summary.json) : std::move(summary.json);
  summary.json.clear();
  COMMDX_TRY(NotAnInput(out.path, request.paths, request.force));
  WriteOptions write;
  write.force = request.force;
  COMMDX_TRY(WriteFileAtomically(out.path, data, write));
  out.bytes = data.size();
  out.summary = std::move(summary);
  return out;
}

}  // namespace commdx::pipeline
