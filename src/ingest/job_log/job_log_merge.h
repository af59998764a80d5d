// Merges the job-log facts of one file after another into a job's, each file once and at a cost
// linear in what is merged (issue 40): a process group or a DDP setup of a rank already known from
// an earlier file takes the values the later file printed, as reading both into one set of facts
// does; everything else is appended in file order.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "model/job_log.h"

namespace commdx::ingest::job_log {

class FactsMerge {
 public:
  explicit FactsMerge(JobLogFacts& into);
  // One file's facts (what the importer read from that file alone), files in order.
  void Add(JobLogFacts&& part);

 private:
  JobLogFacts& into_;
  std::map<std::pair<int, std::string>, size_t> group_by_key_;  // (rank, PG ID)
  std::unordered_map<int, size_t> ddp_by_rank_;
};

}  // namespace commdx::ingest::job_log
