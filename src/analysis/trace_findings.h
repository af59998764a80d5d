// The trace analyzers that read only the shared facts, one per file:
//   trace_exposed_comm.cc      trace.exposed_comm      communication nothing hides
//   trace_small_collectives.cc trace.small_collectives many small gradient collectives
//   trace_launch_bound.cc      trace.launch_bound      GPU idle while the CPU issues work
//   trace_data_stall.cc        trace.data_stall        GPU idle while the CPU loads data
//   trace_slow_bw.cc           trace.slow_collective_bw transfer slower than the link allows
//   trace_comm_serialized.cc   trace.comm_serialized   NCCL kernels keep ready compute waiting
//   trace_serial_gpus.cc       trace.serial_gpus       one process's GPUs run one at a time
//   trace_shared_gpu.cc        trace.shared_gpu        kernels held up by another process
// (trace.pattern, trace.arrival_skew and trace.host_sync have their own headers.)
// Thresholds are in each file and in docs/findings/trace.md.
#pragma once

#include <vector>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"

namespace commdx::analysis {

std::vector<Finding> FindExposedComm(const TraceSet& set, const TraceFacts& f, const Options& o);
std::vector<Finding> FindSmallCollectives(const TraceSet& set, const TraceFacts& f,
                                          const Options& o);
std::vector<Finding> FindLaunchBound(const TraceSet& set, const TraceFacts& f, const Options& o);
std::vector<Finding> FindDataStall(const TraceSet& set, const TraceFacts& f, const Options& o);
std::vector<Finding> FindSlowCollectiveBw(const TraceSet& set, const TraceFacts& f,
                                          const Options& o);
std::vector<Finding> FindCommSerialized(const TraceSet& set, const TraceFacts& f, const Options& o);
std::vector<Finding> FindSerialGpus(const TraceSet& set, const TraceFacts& f, const Options& o);
std::vector<Finding> FindSharedGpu(const TraceSet& set, const TraceFacts& f, const Options& o);

// Share of gradient-collective bytes (all_reduce, reduce_scatter) issued after the step's last
// backward op ("autograd::engine::evaluate_function: ..."); -1 when the trace shows no backward.
double GradientCommAfterBackward(const RankTrace& t);

}  // namespace commdx::analysis
