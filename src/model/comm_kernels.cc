#include "model/comm_kernels.h"

#include <array>

#include "base/text.h"

namespace commdx {

namespace {

using enum CommFamily;
using enum CommMatch;
using CT = CollectiveType;

// Every entry names the project and file its kernel is declared in (`__global__`), at the commit
// read. Names as the profilers write them are in docs/comm-kernels.md and the unit tests.
constexpr std::array kTable = {
    // NCCL <= 2.18 "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", >= 2.19
    // "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "ncclDevKernel_SendRecv(...)",
    // "ncclDevKernel_Generic(...)"; RCCL the same names and "rccl..." ones.
    CommKernelPattern{kNccl, CT::kUnknown, kNcclPrefix, "", "", -1,
                      "NVIDIA/nccl src/device/generate.py; ROCm/rccl"},

    // PyTorch symmetric memory, torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu
    // (pytorch/pytorch@03a4032b), all in an anonymous namespace: the kernels behind
    // torch.ops.symm_mem.multimem_all_reduce_, multimem_one_shot_all_reduce,
    // multimem_all_gather_out, one_shot_all_reduce, two_shot_all_reduce_, reduce_scatter_out.
    CommKernelPattern{kSymmMem, CT::kAllReduce, kBaseExact, "multimem_all_reduce_kernel", "", -1,
                      "pytorch/pytorch c10d/symm_mem/CUDASymmetricMemoryOps.cu"},
    CommKernelPattern{kSymmMem, CT::kAllReduce, kBaseExact, "multimem_one_shot_all_reduce_kernel",
                      "", -1, "pytorch/pytorch c10d/symm_mem/CUDASymmetricMemoryOps.cu"},
    CommKernelPattern{kSymmMem, CT::kAllGather, kBaseExact, "multimem_all_gather_kernel", "", -1,
                      "pytorch/pytorch c10d/symm_mem/CUDASymmetricMemoryOps.cu"},
    CommKernelPattern{kSymmMem, CT::kAllReduce, kBaseExact, "one_shot_all_reduce_kernel", "", -1,
                      "pytorch/pytorch c10d/symm_mem/CUDASymmetricMemoryOps.cu"},
    CommKernelPattern{kSymmMem, CT::kAllReduce, kBaseExact, "two_shot_all_reduce_kernel_inplace",
                      "", -1, "pytorch/pytorch c10d/symm_mem/CUDASymmetricMemoryOps.cu"},
    // two_shot_all_reduce_kernel<T, alignment, k_world_size, reduce_scatter, split_last_dim>:
    // reduce_scatter_out launches it with reduce_scatter = true.
    CommKernelPattern{kSymmMem, CT::kAllReduce, kBaseExact, "two_shot_all_reduce_kernel", "", 3,
                      "pytorch/pytorch c10d/symm_mem/CUDASymmetricMemoryOps.cu"},

    // vLLM csrc/custom_all_reduce.cuh (vllm-project/vllm@036bb685), namespace vllm:
    // cross_device_reduce_1stage, cross_device_reduce_2stage, cross_device_reduce_half_butterfly;
    // SGLang's copy, sgl-kernel/csrc/allreduce/custom_all_reduce.cuh, namespace sglang.
    CommKernelPattern{kCustomAllReduce, CT::kAllReduce, kBasePrefix, "cross_device_reduce_", "", -1,
                      "vllm-project/vllm csrc/custom_all_reduce.cuh; sgl-project/sglang "
                      "sgl-kernel/csrc/allreduce/custom_all_reduce.cuh"},
    // TensorRT-LLM cpp/tensorrt_llm/kernels/customAllReduceKernels.cu and SGLang's copy,
    // sgl-kernel/csrc/allreduce/trt_reduce_internal.cu (sgl-project/sglang@2ab5a586), namespace
    // trt_llm: oneShotAllReduceKernel, twoShotAllReduceKernel.
    CommKernelPattern{kCustomAllReduce, CT::kAllReduce, kBaseExact, "oneShotAllReduceKernel", "",
                      -1,
                      "NVIDIA/TensorRT-LLM kernels/customAllReduceKernels.cu; sgl-project/sglang "
                      "sgl-kernel/csrc/allreduce/trt_reduce_internal.cu"},
    CommKernelPattern{kCustomAllReduce, CT::kAllReduce, kBaseExact, "twoShotAllReduceKernel", "",
                      -1,
                      "NVIDIA/TensorRT-LLM kernels/customAllReduceKernels.cu; sgl-project/sglang "
                      "sgl-kernel/csrc/allreduce/trt_reduce_internal.cu"},
    // vLLM csrc/quickreduce/quick_reduce.h (vllm-project/vllm@0300b226, ROCm), namespace
    // quickreduce: allreduce_prototype_twoshot (quantized two-shot all-reduce); SGLang's copy,
    // sgl-kernel/csrc/allreduce/quick_all_reduce.h.
    CommKernelPattern{kCustomAllReduce, CT::kAllReduce, kBasePrefix, "allreduce_prototype",
                      "quickreduce", -1, "vllm-project/vllm csrc/quickreduce/quick_reduce.h"},
    // SGLang sgl-kernel/csrc/allreduce/mscclpp_allreduce.cuh (sgl-project/sglang@013dc74e),
    // namespace sglang, over MSCCL++ channels: allreduce_1shotLL_1node, allreduce_1shotLL_2node.
    CommKernelPattern{kCustomAllReduce, CT::kAllReduce, kBasePrefix, "allreduce_1shot", "sglang",
                      -1, "sgl-project/sglang sgl-kernel/csrc/allreduce/mscclpp_allreduce.cuh"},
    // TensorRT-LLM cpp/tensorrt_llm/kernels/communicationKernels/allReduceFusionKernels.cu,
    // namespace tensorrt_llm::kernels::ar_fusion (FlashInfer's copy keeps the names):
    // allreduce_fusion_kernel_oneshot_lamport, allreduce_fusion_kernel_twoshot_sync — an
    // all-reduce fused with residual add / RMSNorm / quantization.
    CommKernelPattern{kCustomAllReduce, CT::kAllReduce, kBasePrefix, "allreduce_fusion_kernel_", "",
                      -1, "NVIDIA/TensorRT-LLM communicationKernels/allReduceFusionKernels.cu"},

    // PyTorch's NVSHMEM extension, torch/csrc/distributed/c10d/symm_mem/nvshmem_extension.cu
    // (pytorch/pytorch@0047056e), namespace c10d::nvshmem_extension: all_to_all_vdev launches
    // exchangeSplitAndOffset then allToAllV; all_to_all_vdev_2d the _2d pair.
    CommKernelPattern{kNvshmem, CT::kAllToAll, kBasePrefix, "allToAllV", "nvshmem_extension", -1,
                      "pytorch/pytorch c10d/symm_mem/nvshmem_extension.cu"},
    CommKernelPattern{kNvshmem, CT::kAllToAll, kBasePrefix, "exchangeSplitAndOffset",
                      "nvshmem_extension", -1,
                      "pytorch/pytorch c10d/symm_mem/nvshmem_extension.cu"},

    // NVSHMEM's own collectives on a stream (nvshmemx_*_on_stream; PyTorch's nvshmem_all_to_all
    // and nvshmem_broadcast call them), NVIDIA/nvshmem
    // src/include/internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh (@fa00d066), no namespace.
    CommKernelPattern{kNvshmem, CT::kAllToAll, kBaseExact, "alltoall_on_stream_kernel", "", -1,
                      "NVIDIA/nvshmem internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh"},
    CommKernelPattern{kNvshmem, CT::kBroadcast, kBaseExact, "broadcast_on_stream_kernel", "", -1,
                      "NVIDIA/nvshmem internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh"},
    CommKernelPattern{kNvshmem, CT::kAllGather, kBaseExact, "fcollect_on_stream_kernel", "", -1,
                      "NVIDIA/nvshmem internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh"},
    CommKernelPattern{kNvshmem, CT::kAllReduce, kBaseExact, "rdxn_on_stream_kernel", "", -1,
                      "NVIDIA/nvshmem internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh"},
    CommKernelPattern{kNvshmem, CT::kReduceScatter, kBaseExact, "reducescatter_on_stream_kernel",
                      "", -1, "NVIDIA/nvshmem internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh"},
    // barrier_on_stream_kernel, _warp, _block, _threadgroup; sync_on_stream_kernel...;
    // sync_all_on_stream_kernel...
    CommKernelPattern{kNvshmem, CT::kBarrier, kBasePrefix, "barrier_on_stream_kernel", "", -1,
                      "NVIDIA/nvshmem internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh"},
    CommKernelPattern{kNvshmem, CT::kBarrier, kBasePrefix, "sync_on_stream_kernel", "", -1,
                      "NVIDIA/nvshmem internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh"},
    CommKernelPattern{kNvshmem, CT::kBarrier, kBasePrefix, "sync_all_on_stream_kernel", "", -1,
                      "NVIDIA/nvshmem internal/non_abi/nvshmemi_h_to_d_coll_defs.cuh"},

    // DeepEP csrc/kernels/intranode.cu, internode.cu, internode_ll.cu (deepseek-ai/DeepEP@79bbb546,
    // namespaces deep_ep::intranode, deep_ep::internode, deep_ep::internode_ll) and
    // csrc/kernels/legacy/ (@dd758caf, deep_ep::legacy::...): dispatch and combine move tokens
    // to and from the experts' ranks; notify_dispatch, cached_notify_dispatch,
    // cached_notify_combine and cached_notify exchange the per-rank token counts first.
    // Not communication, so not listed: get_dispatch_layout (local counting),
    // clean_low_latency_buffer and the mask-buffer kernels (local writes).
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "dispatch", "deep_ep", -1,
                      "deepseek-ai/DeepEP csrc/kernels/{intranode,internode,internode_ll}.cu"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "combine", "deep_ep", -1,
                      "deepseek-ai/DeepEP csrc/kernels/{intranode,internode,internode_ll}.cu"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "notify_dispatch", "deep_ep", -1,
                      "deepseek-ai/DeepEP csrc/kernels/{intranode,internode}.cu"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBasePrefix, "cached_notify", "deep_ep", -1,
                      "deepseek-ai/DeepEP csrc/kernels/{intranode,internode}.cu"},
    CommKernelPattern{kDeepEp, CT::kBarrier, kBaseExact, "barrier", "deep_ep", -1,
                      "deepseek-ai/DeepEP csrc/kernels/legacy/intranode.cu"},
    // The same kernels under DeepSeek's internal namespace dpsk::ep::{intranode,internode}, as
    // deepseek-ai/profile-data's train.json (rank 0 of an EP64 run) records them:
    // "void dpsk::ep::internode::dispatch<false, 8, true, 8>(...)". get_dispatch_layout (local
    // counting) is in that namespace too and is not communication.
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "dispatch", "ep", -1,
                      "deepseek-ai/profile-data train.json (dpsk::ep::internode)"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "combine", "ep", -1,
                      "deepseek-ai/profile-data train.json (dpsk::ep::internode)"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "notify_dispatch", "ep", -1,
                      "deepseek-ai/profile-data train.json (dpsk::ep::internode)"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBasePrefix, "cached_notify", "ep", -1,
                      "deepseek-ai/profile-data train.json (dpsk::ep::internode)"},
    // DeepEP deep_ep/include/deep_ep/impls/*.cuh (@dd758caf), namespace deep_ep::elastic.
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "dispatch_impl", "deep_ep", -1,
                      "deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/dispatch.cuh"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "combine_impl", "deep_ep", -1,
                      "deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/combine.cuh"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "hybrid_dispatch_impl", "deep_ep", -1,
                      "deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/hybrid_dispatch.cuh"},
    CommKernelPattern{kDeepEp, CT::kAllToAll, kBaseExact, "hybrid_combine_impl", "deep_ep", -1,
                      "deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/hybrid_combine.cuh"},
    CommKernelPattern{kDeepEp, CT::kBarrier, kBaseExact, "barrier_impl", "deep_ep", -1,
                      "deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/barrier.cuh"},
    CommKernelPattern{kDeepEp, CT::kSend, kBaseExact, "pp_send_impl", "deep_ep", -1,
                      "deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/pp_send_recv.cuh"},
    CommKernelPattern{kDeepEp, CT::kRecv, kBaseExact, "pp_recv_impl", "deep_ep", -1,
                      "deepseek-ai/DeepEP deep_ep/include/deep_ep/impls/pp_send_recv.cuh"},
};

// ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)         <= 2.18
// ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)   >= 2.19
// ^prefix       ^collective (up to the next '_' or '(')
CollectiveType NcclKernelCollective(std::string_view name) {
  size_t us = name.find('_');
  if (us == name.npos) return CT::kUnknown;
  std::string_view rest = name.substr(us + 1);
  std::string_view coll = rest.substr(0, rest.find_first_of("_("));
  if (coll == "AllReduce") return CT::kAllReduce;
  if (coll == "AllGather") return CT::kAllGather;
  if (coll == "ReduceScatter") return CT::kReduceScatter;
  if (coll == "Broadcast") return CT::kBroadcast;
  if (coll == "Reduce") return CT::kReduce;
  if (coll == "SendRecv") return CT::kSendRecv;
  if (coll == "Send") return CT::kSend;
  if (coll == "Recv") return CT::kRecv;
  if (coll == "AllToAll" || coll == "AlltoAll") return CT::kAllToAll;
  return CT::kUnknown;  // Generic, AllGatherV, ...
}

bool IsNcclName(std::string_view name) {
  return (StartsWith(name, "nccl") && Contains(name, "Kernel")) || StartsWith(name, "rccl");
}

// Where the qualified name of a demangled kernel name ends: at the first '<' or '(' that is not
// part of an anonymous namespace ("(anonymous namespace)::f" from c++filt and CUPTI,
// "<unnamed>::f" from Nsight Systems).
size_t QualifiedEnd(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '<' && s[i] != '(') continue;
    std::string_view at = s.substr(i);
    if (StartsWith(at, "(anonymous namespace)")) {
      i += std::string_view("(anonymous namespace)").size() - 1;
      continue;
    }
    if (StartsWith(at, "<unnamed>")) {
      i += std::string_view("<unnamed>").size() - 1;
      continue;
    }
    return i;
  }
  return s.size();
}

// The template argument `index` (from 0) of "f<a, b, c>(...)", whose '<' is at `open`; "" if
// there is none.
std::string_view TemplateArg(std::string_view s, size_t open, int index) {
  if (open >= s.size() || s[open] != '<') return {};
  int depth = 0, arg = 0;
  size_t start = open + 1;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    bool ends = (c == ',' && depth == 1) || depth == 0;
    if (!ends) continue;
    if (arg == index) {
      std::string_view a = s.substr(start, i - start);
      while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
      while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
      return a;
    }
    if (depth == 0) break;
    ++arg;
    start = i + 1;
  }
  return {};
}

bool Matches(const CommKernelPattern& p, std::string_view qualified, std::string_view base) {
  if (p.match == kBaseExact && base != p.base) return false;
  if (p.match == kBasePrefix && !StartsWith(base, p.base)) return false;
  if (p.in_namespace.empty()) return true;
  // The namespace is a whole component of the qualifier: "deep_ep::" at its start or after "::".
  std::string_view scope = qualified.substr(0, qualified.size() - base.size());
  for (size_t at = scope.find(p.in_namespace); at != scope.npos;
       at = scope.find(p.in_namespace, at + 1)) {
    bool starts = at == 0 || scope[at - 1] == ':' || scope[at - 1] == ' ';
    bool ends = scope.substr(at + p.in_namespace.size(), 2) == "::";
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

const char* CommFamilyName(CommFamily f) {
  switch (f) {
    case kNone:
      return "";
    case kNccl:
      return "nccl";
    case kSymmMem:
      return "symm_mem";
    case kCustomAllReduce:
      return "custom_allreduce";
    case kNvshmem:
      return "nvshmem";
    case kDeepEp:
      return "deepep";
  }
  return "";
}

std::span<const CommKernelPattern> CommKernelTable() { return kTable; }

std::string_view KernelQualifiedName(std::string_view name) {
  if (StartsWith(name, "void ")) name.remove_prefix(5);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  std::string_view q = name.substr(0, QualifiedEnd(name));
  while (!q.empty() && q.back() == ' ') q.remove_suffix(1);
  return q;
}

CommKernel ClassifyCommKernel(std::string_view name) {
  if (IsNcclName(name)) return {kNccl, NcclKernelCollective(name)};
  std::string_view qualified = KernelQualifiedName(name);
  size_t colons = qualified.rfind("::");
  std::string_view base = colons == qualified.npos ? qualified : qualified.substr(colons + 2);
  if (base.empty()) return {};
  for (const CommKernelPattern& p : kTable) {
    if (p.match == kNcclPrefix || !Matches(p, qualified, base)) continue;
    CommKernel k{p.family, p.type};
    if (p.reduce_scatter_arg >= 0) {
      size_t open = static_cast<size_t>(qualified.data() - name.data()) + qualified.size();
      if (TemplateArg(name, open, p.reduce_scatter_arg) == "true")
        k.type = CollectiveType::kReduceScatter;
    }
    return k;
  }
  return {};
}

}  // namespace commdx
