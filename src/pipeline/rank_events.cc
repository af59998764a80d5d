#include "pipeline/rank_events.h"

#include <algorithm>
#include <string>
#include <utility>

#include "ingest/load_inputs.h"

namespace commdx::pipeline {

std::vector<std::optional<RankTrace>> RankEvents(const std::vector<const RankTrace*>& ranks,
                                                 int threads) {
  std::vector<std::optional<RankTrace>> out(ranks.size());
  std::vector<std::string> paths;
  for (const RankTrace* t : ranks)
    if (t && t->events_freed && !t->file.empty()) paths.push_back(t->file);
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  if (paths.empty()) return out;
  ingest::LoadOptions load;
  load.only = {InputKind::kKineto, InputKind::kNsys};  // a file that is no trace is skipped
  load.threads = threads;
  load.finish = false;  // every window of each file as it was built, none set aside
  auto job = ingest::LoadInputs(paths, load);
  if (!job) return out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankTrace* t = ranks[i];
    if (!t || !t->events_freed) continue;
    for (RankTrace& r : job->trace.ranks)
      if (r.file == t->file && r.rank == t->rank && r.first_ns == t->first_ns &&
          r.last_ns == t->last_ns && r.events == t->events && r.json_bytes == t->json_bytes &&
          !r.gpu_ops.empty()) {
        out[i] = std::move(r);
        r.gpu_ops.clear();  // taken (a rank drawn twice is found once)
        break;
      }
  }
  return out;
}

}  // namespace commdx::pipeline
