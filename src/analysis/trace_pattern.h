// The communication pattern per process group (docs/method.md, step 1): which collectives, how many
// per step, how many bytes, the size histogram; and what kind of parallelism that looks like
// (all-reduce heavy: DDP; all-gather + reduce-scatter: FSDP/ZeRO; send/recv: pipeline; all-to-all:
// MoE / expert parallel). Finding trace.pattern (info).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "model/comm_kernels.h"

namespace commdx::analysis {

// Size buckets: < 64 KiB, < 1 MiB, < 16 MiB, < 256 MiB, >= 256 MiB.
inline constexpr std::array<const char*, 5> kSizeBucketNames = {"<64KiB", "64KiB-1MiB", "1-16MiB",
                                                                "16-256MiB", ">=256MiB"};
int SizeBucket(uint64_t bytes);

struct PatternRow {
  std::string pg;  // "" when the trace ties the calls to no process group
  std::string pg_desc;
  std::vector<int> ranks;
  CollectiveType type = CollectiveType::kUnknown;
  // Whose kernels ran it (model/comm_kernels.h); kNccl also for calls seen only in the args.
  CommFamily family = CommFamily::kNccl;
  uint64_t count = 0;  // on the rank with the most (calls are per rank)
  double per_step = 0;
  uint64_t bytes_total = 0;
  uint64_t median_bytes = 0;  // over the calls of known size; 0 if none
  uint64_t unknown_size = 0;  // calls whose size the trace does not give (not in the histogram)
  int64_t time_ns = 0;        // kernel time on that rank
  int median_channels = 0;
  std::array<uint64_t, 5> histogram{};
};

std::vector<PatternRow> CommPattern(const TraceSet& set);

// The family of a collective's kernel; kNccl where it has none (record_param_comms or an nccl:*
// annotation only).
CommFamily FamilyOf(const RankTrace& t, const Collective& c);

// "all_reduce", or "all_reduce [symm_mem]" for a collective that NCCL did not run.
std::string CollectiveLabel(CollectiveType type, CommFamily family);

// "DDP-like (all-reduce)", "FSDP/ZeRO-like (all-gather + reduce-scatter)", ...
std::string PatternName(const std::vector<PatternRow>& rows);

// Reads the pattern the input keeps (AnalysisInput::comm_pattern), which the report shows too.
std::vector<Finding> FindPattern(const AnalysisInput& input, const Options& o);

}  // namespace commdx::analysis
