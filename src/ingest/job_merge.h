// Merges Jobs read from one file each (the parts the loader's workers fill) into one Job, in file
// order, each part once: the same Job as reading the files one after another into it, at a cost
// linear in the parts (issue 40). Each kind of fact has its merge: NCCL setups by communicator,
// connection and process (nccl_log/setup_merge.h), job-log facts by process group and rank
// (job_log/job_log_merge.h), the settings a job log printed into the environment (a variable
// already there stays), input quality by id; the rest (traces, Flight Recorder dumps, benchmark
// results, the files a summary's run skipped) is appended. Topology, snapshots and environment dumps are not read into parts
// (registry.h, `in_parts`): they go into the Job itself, in their turn.
#pragma once

#include <memory>

#include "model/job.h"

namespace commdx::ingest {

namespace nccl_log {
class SetupMerge;
}
namespace job_log {
class FactsMerge;
}

class JobMerge {
 public:
  explicit JobMerge(Job& into);
  ~JobMerge();
  JobMerge(const JobMerge&) = delete;
  JobMerge& operator=(const JobMerge&) = delete;

  // One file's part (what importers read from it into an empty Job), files in order; `part` is
  // left empty.
  void Add(Job&& part);
  // The steps done once for all parts (connections put in line order).
  void Finish();

 private:
  Job& into_;
  std::unique_ptr<nccl_log::SetupMerge> nccl_;    // made by the first part with NCCL facts
  std::unique_ptr<job_log::FactsMerge> job_log_;  // made by the first part with job-log facts
};

}  // namespace commdx::ingest
