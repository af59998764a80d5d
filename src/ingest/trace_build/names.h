// What names in a Kineto trace mean: communication kernel names (NCCL/RCCL of every era and the
// others of model/comm_kernels.h), collective names in the args, copy directions, runtime calls
// that block or launch, annotations that mark steps or data loading.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/trace.h"

namespace commdx::ingest::trace_build {

// A communication kernel by its name, by the one table of model/comm_kernels.h: NCCL/RCCL
// ("ncclKernel_AllReduce_RING_LL_Sum_float(...)" <= 2.18,
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)" >= 2.19, "ncclDevKernel_SendRecv(...)",
// "ncclDevKernel_Generic(...)"), PyTorch symmetric memory, custom all-reduce of inference
// engines, NVSHMEM and DeepEP kernels.
bool IsCommKernelName(std::string_view name);

// The collective a kernel name says, kUnknown for NCCL's Generic kernels. The name does not tell
// the algorithm or protocol that ran (NCCL >= 2.19 runs every non-tree algorithm in the RING_LL
// kernel).
CollectiveType CollectiveFromKernelName(std::string_view name);

// The collective of a "Collective name" arg: "allreduce", "_allgather_base",
// "allgather_into_tensor_coalesced", "reduce_scatter_tensor_coalesced", "all_to_all",
// "alltoall_base", "broadcast", "send", "recv", "barrier", "gather", "scatter", "reduce".
CollectiveType CollectiveFromArgName(std::string_view name);

// The collective of the annotation ProcessGroupNCCL records around each call: "nccl:all_to_all",
// "nccl:send", "nccl:all_reduce", "nccl:_allgather_base"; kUnknown for any other name. It names
// a collective whose kernel does not (all-to-all runs as ncclDevKernel_SendRecv).
CollectiveType CollectiveFromAnnotation(std::string_view name);

// "Memcpy DtoH (Device -> Pageable)", "Memcpy HtoD (Pinned -> Device)", "Memcpy PtoP (...)".
CopyKind CopyKindFromName(std::string_view name);

// kHostFlagSync / kHostFlagLaunch / kHostFlagAlloc / kHostFlagCapture for a runtime or driver
// call name ("_v2"-style version suffixes ignored).
uint8_t RuntimeFlags(std::string_view name);

// kHostFlagStep / kHostFlagDataLoader / kHostFlagItem / kHostFlagCollective for a CPU op or
// annotation name.
uint8_t HostFlags(std::string_view name);
bool IsDataLoaderName(std::string_view name);

// An integer from a token written as 7, "7" or "stream 7"; -1 if there is none.
int64_t ParseLooseInt(std::string_view s);

}  // namespace commdx::ingest::trace_build
