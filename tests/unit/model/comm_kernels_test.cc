// The communication-kernel table (model/comm_kernels.h) on kernel names as profilers wrote them
// in public profiles: PyTorch profiler (Kineto, c++filt-style demangling) and Nsight Systems
// ("<unnamed>", "(int)8" template arguments), one family at a time.
#include "model/comm_kernels.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace commdx {
namespace {

void ExpectComm(std::string_view name, CommFamily family, CollectiveType type) {
  CommKernel k = ClassifyCommKernel(name);
  EXPECT_EQ(k.family, family) << name;
  EXPECT_EQ(k.type, type) << name;
}

void ExpectCompute(std::string_view name) {
  EXPECT_EQ(ClassifyCommKernel(name).family, CommFamily::kNone) << name;
}

TEST(CommKernels, Nccl) {
  ExpectComm("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", CommFamily::kNccl,
             CollectiveType::kAllReduce);
  ExpectComm("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
             CommFamily::kNccl, CollectiveType::kReduceScatter);
  ExpectComm("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
             CommFamily::kNccl, CollectiveType::kAllGather);
  ExpectComm("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", CommFamily::kNccl,
             CollectiveType::kSendRecv);
  ExpectComm("ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", CommFamily::kNccl,
             CollectiveType::kUnknown);
  ExpectCompute("ncclGroupEnd");
}

// torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu.
TEST(CommKernels, SymmetricMemory) {
  // Kineto, from a public vLLM profile summary (B200, TP all-reduce).
  ExpectComm(
      "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, "
      "unsigned long, unsigned int**, unsigned long, unsigned long)",
      CommFamily::kSymmMem, CollectiveType::kAllReduce);
  // Nsight Systems spelling of the same kernel.
  ExpectComm("void <unnamed>::multimem_all_reduce_kernel<c10::BFloat16, (int)16>(...)",
             CommFamily::kSymmMem, CollectiveType::kAllReduce);
  ExpectComm(
      "void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<c10::BFloat16, 16, "
      "2>(c10::BFloat16**, unsigned long, unsigned long, unsigned int**, unsigned long, "
      "unsigned long)",
      CommFamily::kSymmMem, CollectiveType::kAllReduce);
  ExpectComm(
      "void (anonymous namespace)::one_shot_all_reduce_kernel<float, 16, 2>(float**, "
      "float*, float*, unsigned long, unsigned long, unsigned int**, unsigned long, "
      "unsigned long)",
      CommFamily::kSymmMem, CollectiveType::kAllReduce);
  ExpectComm(
      "void (anonymous namespace)::multimem_all_gather_kernel<16>(char*, char*, unsigned "
      "long, unsigned int**, unsigned long, unsigned long)",
      CommFamily::kSymmMem, CollectiveType::kAllGather);
  // reduce_scatter_out: two_shot_all_reduce_kernel<T, alignment, world, reduce_scatter=true, ...>.
  ExpectComm(
      "void (anonymous namespace)::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8, true, "
      "false>(c10::BFloat16**, c10::BFloat16*, unsigned long, unsigned long, unsigned "
      "int**, unsigned long, unsigned long, unsigned long)",
      CommFamily::kSymmMem, CollectiveType::kReduceScatter);
  ExpectComm(
      "void <unnamed>::two_shot_all_reduce_kernel<float, (int)16, (int)4, (bool)0, "
      "(bool)0>(float **, float *, unsigned long, unsigned long, unsigned int **, unsigned "
      "long, unsigned long, unsigned long)",
      CommFamily::kSymmMem, CollectiveType::kAllReduce);
}

TEST(CommKernels, CustomAllReduce) {
  // vLLM csrc/custom_all_reduce.cuh, Kineto and Nsight Systems.
  ExpectComm(
      "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData*, "
      "vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
      CommFamily::kCustomAllReduce, CollectiveType::kAllReduce);
  ExpectComm(
      "void vllm::cross_device_reduce_1stage<__half, (int)2>(vllm::RankData *, "
      "vllm::RankSignals, vllm::Signal *, __half *, int, int)",
      CommFamily::kCustomAllReduce, CollectiveType::kAllReduce);
  ExpectComm(
      "void vllm::cross_device_reduce_2stage<__hip_bfloat16, 8>(vllm::RankData*, "
      "vllm::RankSignals, vllm::Signal*, __hip_bfloat16*, int, int)",
      CommFamily::kCustomAllReduce, CollectiveType::kAllReduce);
  // SGLang sgl-kernel/csrc/allreduce/custom_all_reduce.cuh.
  ExpectComm(
      "void sglang::cross_device_reduce_1stage<__half, 8>(sglang::RankData*, "
      "sglang::RankSignals, sglang::Signal*, __half*, int, int)",
      CommFamily::kCustomAllReduce, CollectiveType::kAllReduce);
  // SGLang trt_reduce_internal.cu (from TensorRT-LLM customAllReduceKernels.cu).
  ExpectComm(
      "void trt_llm::oneShotAllReduceKernel<__nv_bfloat16, 8, true>(trt_llm::AllReduceParams)",
      CommFamily::kCustomAllReduce, CollectiveType::kAllReduce);
  // vLLM's ROCm quick all-reduce (csrc/quickreduce/quick_reduce.h), demangled from its declaration.
  ExpectComm(
      "void quickreduce::allreduce_prototype_twoshot<quickreduce::AllReduceTwoshot<"
      "__hip_bfloat16, quickreduce::CodecFP<__hip_bfloat16, 8> >, __hip_bfloat16>("
      "__hip_bfloat16 const*, __hip_bfloat16*, unsigned int, unsigned int, int, unsigned "
      "char**, unsigned int, unsigned int)",
      CommFamily::kCustomAllReduce, CollectiveType::kAllReduce);
  // SGLang mscclpp_allreduce.cuh: the name as demangled from its declaration.
  ExpectComm(
      "void sglang::allreduce_1shotLL_1node<__nv_bfloat16>(mscclpp::MemoryChannelDeviceHandle*, "
      "__nv_bfloat16*, __nv_bfloat16*, void*, int, int, unsigned long)",
      CommFamily::kCustomAllReduce, CollectiveType::kAllReduce);
  // FlashInfer's copy of TensorRT-LLM's fused all-reduce, from a public SGLang B200 profile.
  ExpectComm(
      "void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport<("
      "flashinfer::trtllm_allreduce_fusion::AllReduceFusionPattern)1, __nv_bfloat16, 8, false, "
      "false>(flashinfer::trtllm_allreduce_fusion::AllReduceFusionParams<__nv_bfloat16>)",
      CommFamily::kCustomAllReduce, CollectiveType::kAllReduce);
}

// torch/csrc/distributed/c10d/symm_mem/nvshmem_extension.cu: not templates, so no "void ".
TEST(CommKernels, Nvshmem) {
  ExpectComm("c10d::nvshmem_extension::allToAllV(void*, void*, long*, unsigned long, int, int)",
             CommFamily::kNvshmem, CollectiveType::kAllToAll);
  ExpectComm("c10d::nvshmem_extension::exchangeSplitAndOffset(long*, int, int)",
             CommFamily::kNvshmem, CollectiveType::kAllToAll);
  ExpectComm(
      "void c10d::nvshmem_extension::exchangeSplitAndOffset_2d<true>(long*, long*, int, "
      "int, int, unsigned long, bool)",
      CommFamily::kNvshmem, CollectiveType::kAllToAll);
  // NVSHMEM's on-stream collectives (nvshmemi_h_to_d_coll_defs.cuh), demangled from their
  // declarations (nvshmem_team_t is an int).
  ExpectComm("void alltoall_on_stream_kernel<float>(int, float*, float const*, unsigned long)",
             CommFamily::kNvshmem, CollectiveType::kAllToAll);
  ExpectComm(
      "void rdxn_on_stream_kernel<float, (rdxn_ops)4>(int, float*, float const*, unsigned "
      "long)",
      CommFamily::kNvshmem, CollectiveType::kAllReduce);
  ExpectComm("sync_all_on_stream_kernel_block()", CommFamily::kNvshmem, CollectiveType::kBarrier);
  ExpectComm("void barrier_on_stream_kernel_threadgroup<(threadgroup_t)2>(int, int)",
             CommFamily::kNvshmem, CollectiveType::kBarrier);
  // The same function name elsewhere is not NVSHMEM's.
  ExpectCompute("comms::pipes::allToAllvKernel(void*, void const*, int)");
}

// DeepEP csrc/kernels/intranode.cu, internode.cu, internode_ll.cu, as public SGLang profiles name
// them (Kineto and Nsight Systems spellings).
TEST(CommKernels, DeepEp) {
  ExpectComm("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*)",
             CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm(
      "void deep_ep::intranode::dispatch<(int)2, (int)768, (int)8192>(int4 *, float *, "
      "float *, int *)",
      CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm("void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(...)",
             CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm(
      "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int const*, int*, int, "
      "int, int, bool const*, int*, int*, int, int, void**, int**, int)",
      CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm(
      "void deep_ep::intranode::cached_notify_combine<8>(void**, int*, int, int, int, "
      "int**, int)",
      CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm("void deep_ep::internode_ll::combine<false, 8, 1024>(void*, void*, int*)",
             CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm("void deep_ep::legacy::intranode::barrier<8>(int**, int)", CommFamily::kDeepEp,
             CollectiveType::kBarrier);
  // Local work of DeepEP is not communication; "dispatch" outside deep_ep is not DeepEP's.
  ExpectCompute("void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*)");
  ExpectCompute("void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int, int*, int)");
  ExpectCompute("void my_moe::dispatch<8>(int*)");
  ExpectCompute("void not_deep_ep::intranode::dispatch<8>(int*)");
  // DeepSeek's own namespace, as deepseek-ai/profile-data's train.json records the kernels.
  ExpectComm("void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*)",
             CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm("void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*)",
             CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm("void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int)",
             CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectComm("void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*)",
             CommFamily::kDeepEp, CollectiveType::kAllToAll);
  ExpectCompute("void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*)");
  ExpectCompute("void dpsk::grouped_gemm::cuda::utils::transpose<512, 128, 4, 4>(char*)");
  ExpectCompute("void sleep::dispatch<8>(int*)");
}

TEST(CommKernels, ComputeKernelsAreNot) {
  ExpectCompute(
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1>)");
  ExpectCompute("nvjet_tst_192x192_64x4_1x2_h_bz_coopB_TNN");
  ExpectCompute(
      "void at::native::<unnamed>::CatArrayBatchedCopy<at::native::<unnamed>::OpaqueType<"
      "(unsigned int)4>, unsigned int, (int)1, (int)128, (int)1>(...)");
  ExpectCompute("");
  ExpectCompute("void ");
  ExpectCompute("(anonymous namespace)::");
}

TEST(CommKernels, QualifiedName) {
  EXPECT_EQ(KernelQualifiedName("void (anonymous namespace)::f<float, 2>(float*)"),
            "(anonymous namespace)::f");
  EXPECT_EQ(KernelQualifiedName("void <unnamed>::f<(int)2>(int *)"), "<unnamed>::f");
  EXPECT_EQ(KernelQualifiedName("c10d::nvshmem_extension::allToAllV(void*)"),
            "c10d::nvshmem_extension::allToAllV");
  EXPECT_EQ(KernelQualifiedName("nvjet_tst_64x8"), "nvjet_tst_64x8");
}

// The table documents itself: every entry names its source, and the docs page lists each name.
TEST(CommKernels, TableIsDocumented) {
  const std::string doc = [] {
    std::string path = std::string(COMMDX_SOURCE_DIR) + "/docs/comm-kernels.md";
    FILE* f = std::fopen(path.c_str(), "rb");
    std::string s;
    if (!f) return s;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
    std::fclose(f);
    return s;
  }();
  ASSERT_FALSE(doc.empty());
  std::set<CommFamily> families;
  for (const CommKernelPattern& p : CommKernelTable()) {
    EXPECT_FALSE(p.source.empty()) << p.base;
    families.insert(p.family);
    if (!p.base.empty()) {
      EXPECT_NE(doc.find("`" + std::string(p.base)), std::string::npos) << p.base;
    }
    EXPECT_NE(doc.find(CommFamilyName(p.family)), std::string::npos) << p.base;
  }
  EXPECT_EQ(families.size(), 5u);  // nccl, symm_mem, custom_allreduce, nvshmem, deepep
}

}  // namespace
}  // namespace commdx
