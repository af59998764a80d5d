// Numbers comparable with Holistic Trace Analysis (HTA 0.5, PyPI holistictraceanalysis), computed
// the way HTA computes them, for people who move from HTA (docs/trace-metrics.md says where
// commdx's own step breakdown differs and why):
//   * GPU work = every GPU event with a stream (kernels, copies, sets, stream syncs);
//   * with two or more ProfilerStep names, only work launched (by correlation) from a CPU event
//     that starts before the last ProfilerStep starts (HTA drops the last step);
//   * kernel time = from the first to the last of that work; idle = kernel time - its union;
//   * compute = union of kernels that are neither NCCL (^nccl.*Kernel), memory (^Memcpy, ^Memset,
//     ^dma) nor "other" (names with Memcpy or Sync); non-compute = the rest of the busy time;
//   * comm/compute overlap = |compute ∩ communication| / |communication|.
#pragma once

#include <string_view>
#include <vector>

#include "model/trace.h"

namespace commdx::analysis {

enum class HtaKernelType { kCommunication, kMemory, kComputation, kOther };
HtaKernelType HtaClassify(std::string_view kernel_name);

struct HtaCompat {
  int rank = -1;
  double idle_pct = 0;
  double compute_pct = 0;
  double non_compute_pct = 0;
  double comm_comp_overlap_pct = 0;  // 0 when there is no communication
  int64_t kernel_time_ns = 0;
};

HtaCompat ComputeHtaCompat(const RankTrace& t);

}  // namespace commdx::analysis
