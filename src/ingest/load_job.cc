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

// Console output often holds several text formats at once: nccl-tests run with NCCL_DEBUG=INFO
// prints its table between NCCL lines, and people paste nvidia-smi output into the same log. Each
// of these importers reads only its own lines, so all that recognise such a file read it.
bool SharesFile(std::string_view name) {
  return name == "nccl_tests" || name == "nccl_log" || name == "smi_topo" || name == "smi_p2p" ||
         name == "smi_nvlink";
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
    std::string kind = imp->name;
    if (SharesFile(imp->name)) {
      for (const auto& other : Importers()) {
        if (&other == imp || !SharesFile(other.name) || !Allowed(options, other.name) ||
            !other.sniff(head))
          continue;
        // The file is already read as its first format; a part that does not parse as a second
        // format is noted, not fatal.
        if (Status st = other.parse(text, job); !st) {
          job.quality.Add(std::string("load.partial_") + other.name, DiagSeverity::kNote,
                          "part of the file looked like " + std::string(other.name) +
                              " but did not parse: " + st.error().message,
                          st.error().where);
          continue;
        }
        kind += std::string("+") + other.name;
      }
    }
    job.inputs.push_back({path, kind, text.data.size()});
  }
  return job;
}

}  // namespace commdx::ingest
