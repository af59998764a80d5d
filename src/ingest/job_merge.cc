#include "ingest/job_merge.h"

#include "ingest/job_log/job_log_merge.h"
#include "ingest/move_append.h"
#include "ingest/nccl_log/setup_merge.h"

namespace commdx::ingest {

namespace {

// The settings a job log printed, as the job's environment: the first value of a variable wins,
// as with environment dumps.
void MergeEnv(EnvSnapshot& from, EnvSnapshot& into) {
  for (auto& v : from.vars) {
    if (into.Find(v.name)) continue;
    into.vars.push_back(std::move(v));
    into.captured = true;
  }
}

bool HasJobLogFacts(const JobLogFacts& f) { return !f.empty() || !f.files.empty(); }

}  // namespace

JobMerge::JobMerge(Job& into) : into_(into) {}

JobMerge::~JobMerge() = default;

void JobMerge::Add(Job&& part) {
  into_.quality.Merge(part.quality);
  if (!part.nccl.files.empty()) {
    // A part's setup is already merged (its connections counted and in order), so the first
    // one is taken whole: one big log costs one merge, not two.
    if (!nccl_ && into_.nccl.files.empty() && into_.nccl.communicators.empty() &&
        into_.nccl.processes.empty()) {
      into_.nccl = std::move(part.nccl);
    } else {
      if (!nccl_) nccl_ = std::make_unique<nccl_log::SetupMerge>(into_.nccl);
      nccl_->Add(std::move(part.nccl));
    }
  }
  if (HasJobLogFacts(part.job_log)) {
    if (!job_log_) job_log_ = std::make_unique<job_log::FactsMerge>(into_.job_log);
    job_log_->Add(std::move(part.job_log));
  }
  MergeEnv(part.env, into_.env);
  MoveAppend(part.trace.ranks, into_.trace.ranks);
  MoveAppend(part.flight, into_.flight);
  MoveAppend(part.bench, into_.bench);
  MoveAppend(part.replay, into_.replay);
  MoveAppend(part.skipped, into_.skipped);  // what a summary's run skipped (ingest/summary)
  MoveAppend(part.inspector, into_.inspector);
  MoveAppend(part.inspector_buckets, into_.inspector_buckets);
  MoveAppend(part.ras, into_.ras);
  part = Job{};
}

void JobMerge::Finish() {
  if (nccl_) nccl_->Finish();
}

}  // namespace commdx::ingest
