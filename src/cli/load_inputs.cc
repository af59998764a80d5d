#include "cli/load_inputs.h"

#include <algorithm>
#include <unordered_map>

#include "base/file.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/load_job.h"

namespace commdx::cli {

Result<Job> LoadDiagnoseInputs(const std::vector<std::string>& paths) {
  COMMDX_ASSIGN_OR_RETURN(auto files, ExpandInputPaths(paths));
  // The kineto loader sniffs each file as LoadJob would (the first 64 KiB, decompressed) and
  // lists what is not a trace as skipped: those files are the rest of the job.
  std::vector<ingest::KinetoInput> candidates;
  candidates.reserve(files.size());
  for (const auto& f : files) candidates.push_back({f, /*explicit_file=*/false});
  Job traces;
  COMMDX_TRY(ingest::LoadKinetoFiles(candidates, traces));
  std::vector<std::string> rest;
  for (auto& s : traces.skipped) rest.push_back(std::move(s.path));
  COMMDX_ASSIGN_OR_RETURN(Job job, ingest::LoadJob(rest, {}));

  job.quality.Merge(traces.quality);
  if (job.trace.empty()) {
    job.trace = std::move(traces.trace);
  } else if (!traces.trace.empty()) {  // LoadJob read a trace the streaming reader could not open
    for (auto& r : traces.trace.ranks) job.trace.ranks.push_back(std::move(r));
    ingest::FinishTraceSet(job);
  }
  std::unordered_map<std::string, size_t> order;
  for (size_t i = 0; i < files.size(); ++i) order.emplace(files[i], i);
  for (auto& in : traces.inputs) job.inputs.push_back(std::move(in));
  std::stable_sort(job.inputs.begin(), job.inputs.end(),
                   [&order](const InputFile& a, const InputFile& b) {
                     return order.at(a.path) < order.at(b.path);
                   });
  return job;
}

}  // namespace commdx::cli
