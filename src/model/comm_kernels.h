// Which GPU kernels are communication, by name: one table for every trace format (PyTorch profiler
// JSON and Nsight Systems exports write the same demangled names). NCCL/RCCL kernels, and the
// collectives that run without NCCL: PyTorch symmetric memory (one-/two-shot and multimem
// all-reduce), inference engines' custom all-reduce (vLLM, SGLang, TensorRT-LLM), NVSHMEM
// all-to-all and DeepEP dispatch/combine. docs/comm-kernels.md lists every entry and its source.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "model/collective.h"

namespace commdx {

enum class CommFamily : uint8_t {
  kNone,             // not a communication kernel
  kNccl,             // NCCL / RCCL
  kSymmMem,          // PyTorch symmetric memory (torch.distributed._symmetric_memory)
  kCustomAllReduce,  // inference engines' own all-reduce over CUDA IPC buffers
  kNvshmem,          // NVSHMEM kernels of PyTorch's nvshmem extension
  kDeepEp,           // DeepEP expert-parallel dispatch / combine (NVLink, RDMA via NVSHMEM)
};

// "nccl", "symm_mem", "custom_allreduce", "nvshmem", "deepep"; "" for kNone.
const char* CommFamilyName(CommFamily f);

// How a table entry matches a kernel name.
enum class CommMatch : uint8_t {
  kNcclPrefix,  // the whole name starts with "nccl" and contains "Kernel", or starts with "rccl"
  kBaseExact,   // the function's own name (namespaces, template and call arguments stripped)
  kBasePrefix,  // the function's own name starts with `base`
};

struct CommKernelPattern {
  CommFamily family = CommFamily::kNone;
  CollectiveType type = CollectiveType::kUnknown;  // for kNcclPrefix: read from the name
  CommMatch match = CommMatch::kBaseExact;
  std::string_view base;          // the function name (or prefix)
  std::string_view in_namespace;  // a namespace the name must sit in ("deep_ep"); "" = any
  // The template argument (from 0) that, written `true`, makes the kernel a reduce-scatter:
  // PyTorch's two_shot_all_reduce_kernel<T, alignment, world_size, reduce_scatter, ...>. -1: none.
  int8_t reduce_scatter_arg = -1;
  std::string_view source;  // project and file the name comes from
};

// The table, in match order (first match wins).
std::span<const CommKernelPattern> CommKernelTable();

struct CommKernel {
  CommFamily family = CommFamily::kNone;
  CollectiveType type = CollectiveType::kUnknown;
};

// What a kernel name, as a profiler writes it, says: family kNone for a compute kernel.
//   "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)" -> nccl, all_reduce
//   "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(...)"
//       -> symm_mem, all_reduce
//   "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData*, ...)"
//       -> custom_allreduce, all_reduce
//   "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, ...)" -> deepep, all_to_all
CommKernel ClassifyCommKernel(std::string_view name);

// The qualified function name of a demangled kernel name: "void ns::f<T, 2>(T*, int)" ->
// "ns::f"; "(anonymous namespace)" and "<unnamed>" are kept as written.
std::string_view KernelQualifiedName(std::string_view name);

}  // namespace commdx
