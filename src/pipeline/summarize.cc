#include "pipeline/summarize.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "base/write_file.h"
#include "ingest/summary/summary_format.h"

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

}  // namespace

Result<SummarizeResult> RunSummarize(const SummarizeRequest& request) {
  if (request.out_dir.empty())
    return MakeError(ErrorCode::kUsage, "summarize needs -o DIR, the folder to write into");
  ingest::summary::SummarizeOptions options;
  options.threads = request.threads;
  options.tool_version = COMMDX_VERSION;
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
  WriteOptions write;
  write.force = request.force;
  COMMDX_TRY(WriteFileAtomically(out.path, data, write));
  out.bytes = data.size();
  out.summary = std::move(summary);
  return out;
}

}  // namespace commdx::pipeline
