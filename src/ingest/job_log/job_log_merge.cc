#include "ingest/job_log/job_log_merge.h"

#include <algorithm>
#include <vector>

#include "ingest/move_append.h"

namespace commdx::ingest::job_log {

namespace {

// A later file's lines of the same group: what it printed replaces what was known (the reader
// overwrites a field whose key it meets), the first place and description stay, settings add up.
void MergeGroup(ProcessGroupInit& from, ProcessGroupInit& into) {
  if (into.pg_desc.empty()) into.pg_desc = std::move(from.pg_desc);
  if (into.loc.file.empty()) into.loc = std::move(from.loc);
  if (!from.pg_name.empty()) into.pg_name = std::move(from.pg_name);
  if (from.size >= 0) into.size = from.size;
  if (from.timeout_ms >= 0) into.timeout_ms = from.timeout_ms;
  if (!from.nccl_version.empty()) into.nccl_version = std::move(from.nccl_version);
  for (auto& v : from.settings) {
    bool known = std::any_of(into.settings.begin(), into.settings.end(),
                             [&](const EnvVar& k) { return k.name == v.name; });
    if (!known) into.settings.push_back(std::move(v));
  }
}

// The same for DDP: a "DDP Initialized with:" block (the only thing that sets `loc`) sets its
// fields; a reducer line only fills a bucket cap still unknown.
void MergeDdp(DdpInit& from, DdpInit& into) {
  const bool block = !from.loc.file.empty();
  if (into.loc.file.empty()) into.loc = from.loc;
  if (block) into.find_unused_parameters = from.find_unused_parameters;
  if (from.bucket_cap_bytes >= 0 && (block || into.bucket_cap_bytes < 0))
    into.bucket_cap_bytes = from.bucket_cap_bytes;
  if (!from.bucket_sizes.empty()) into.bucket_sizes = std::move(from.bucket_sizes);
  if (!from.rebuilt_limits.empty()) into.rebuilt_limits = std::move(from.rebuilt_limits);
}

}  // namespace

FactsMerge::FactsMerge(JobLogFacts& into) : into_(into) {
  for (size_t i = 0; i < into.process_groups.size(); ++i)
    group_by_key_.try_emplace({into.process_groups[i].rank, into.process_groups[i].pg}, i);
  for (size_t i = 0; i < into.ddp.size(); ++i) ddp_by_rank_.try_emplace(into.ddp[i].rank, i);
}

void FactsMerge::Add(JobLogFacts&& part) {
  MoveAppend(part.timeouts, into_.timeouts);
  MoveAppend(part.statuses, into_.statuses);
  for (auto& g : part.process_groups) {
    auto [it, inserted] = group_by_key_.try_emplace({g.rank, g.pg}, into_.process_groups.size());
    if (inserted)
      into_.process_groups.push_back(std::move(g));
    else
      MergeGroup(g, into_.process_groups[it->second]);
  }
  for (auto& d : part.ddp) {
    auto [it, inserted] = ddp_by_rank_.try_emplace(d.rank, into_.ddp.size());
    if (inserted)
      into_.ddp.push_back(std::move(d));
    else
      MergeDdp(d, into_.ddp[it->second]);
  }
  MoveAppend(part.barrier_timeouts, into_.barrier_timeouts);
  MoveAppend(part.mismatches, into_.mismatches);
  MoveAppend(part.watchdog_events, into_.watchdog_events);
  MoveAppend(part.fr_analysis, into_.fr_analysis);
  MoveAppend(part.files, into_.files);
}

}  // namespace commdx::ingest::job_log
