// Names as Nsight Systems writes them, turned into the names the PyTorch profiler writes for the
// same thing, so that one set of name rules (ingest/trace_build/names.h) reads both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace commdx::ingest::nsys {

// A runtime or driver call without nsys's API version suffix: "cudaLaunchKernel_v7000" ->
// "cudaLaunchKernel", "cudaMemcpyAsync_v3020" -> "cudaMemcpyAsync"; other names as they are.
std::string_view RuntimeName(std::string_view name);

// An NVTX range name without what torch.autograd.profiler.emit_nvtx appends:
// "aten::slice, seq = 4368, op_id = 5" -> "aten::slice", "iteration_0, op_id = 1" ->
// "iteration_0", "aten::mm, sizes = [[16, 1024], [1024, 1024]]" -> "aten::mm".
std::string_view NvtxName(std::string_view text);

// "Memcpy DtoD (Device -> Device)", from ENUM_CUDA_MEMCPY_OPER and ENUM_CUDA_MEM_KIND values.
std::string MemcpyName(int64_t copy_kind, int64_t src_kind, int64_t dst_kind);

// "Memset (Device)", from ENUM_CUDA_MEM_KIND.
std::string MemsetName(int64_t mem_kind);

// "Context Sync", "Stream Sync", "Event Sync", "Stream Wait Event", from ENUM_CUPTI_SYNC_TYPE.
const char* SyncName(int64_t sync_type);

// A rank in the file name of one report per rank ("rep_3.sqlite", "report.rank3.sqlite.gz",
// "rep_3.nsys-rep" as written by `nsys profile -o rep_%q{RANK}`); -1 if the name does not say.
int RankFromReportName(std::string_view path);

}  // namespace commdx::ingest::nsys
