#include "ingest/load_job.h"

#include <algorithm>

#include "base/file.h"
#include "ingest/registry.h"

namespace commdx::ingest {

namespace {

constexpr size_t kSniffBytes = 64 * 1024;

bool Allowed(const LoadOptions& options, std::string_view name) {
  if (options.only.empty()) return true;
  return std::find(options.only.begin(), options.only.end(), name) != options.only.end();
}

const Importer* Choose(std::string_view head, const LoadOptions& options) {
  for (const auto& imp : Importers())
    if (Allowed(options, imp.name) && imp.sniff(head)) return &imp;
  return nullptr;
}

}  // namespace

Result<Job> LoadJob(const std::vector<std::string>& paths, const LoadOptions& options) {
  COMMDX_ASSIGN_OR_RETURN(auto files, ExpandInputPaths(paths));
  Job job;
  for (const auto& path : files) {
    COMMDX_ASSIGN_OR_RETURN(FileText text, ReadFile(path));
    std::string_view head(text.data.data(), std::min(text.data.size(), kSniffBytes));
    const Importer* imp = Choose(head, options);
    if (!imp && options.force_single && options.only.size() == 1 && !text.data.empty())
      imp = FindImporter(options.only.front());
    if (!imp) {
      std::string why = text.data.empty() ? "empty file" : "not a format commdx reads";
      if (!options.only.empty() && !text.data.empty()) {
        why = "not recognised as";
        for (size_t i = 0; i < options.only.size(); ++i)
          why += (i ? " or " : " ") + options.only[i];
      }
      job.skipped.push_back({path, why});
      continue;
    }
    COMMDX_TRY(imp->parse(text, job));
    job.inputs.push_back({path, imp->name, text.data.size()});
  }
  return job;
}

}  // namespace commdx::ingest
