// NCCL loaded at run time with dlopen, so commdx measures the library a job would use.
// Search order (docs/bench-method.md): --nccl-lib, $COMMDX_NCCL_LIB, the loader path
// (dlopen("libnccl.so.2")), then the NCCL bundled with an installed PyTorch
// (<prefix>/lib/python3.*/site-packages/nvidia/nccl/lib/libnccl.so.2, prefixes taken from
// python3 on $PATH, $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local and the system dist-packages — found
// by scanning the file system, no Python is run). nccl.h is used for its types only: every
// call goes through the pointers resolved here.
#pragma once

#include <nccl.h>

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace commdx::bench {

struct NcclApi {
  ncclResult_t (*GetVersion)(int*) = nullptr;
  ncclResult_t (*GetUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*CommInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*CommInitAll)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*CommDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*CommAbort)(ncclComm_t) = nullptr;
  ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t*) = nullptr;
  const char* (*GetErrorString)(ncclResult_t) = nullptr;
  const char* (*GetLastError)(ncclComm_t) = nullptr;  // NCCL >= 2.13, may be null
  ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*AllGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*ReduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                cudaStream_t) = nullptr;
  ncclResult_t (*Broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*Reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                         cudaStream_t) = nullptr;
  ncclResult_t (*Send)(const void*, size_t, ncclDataType_t, int, ncclComm_t,
                       cudaStream_t) = nullptr;
  ncclResult_t (*Recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*GroupStart)() = nullptr;
  ncclResult_t (*GroupEnd)() = nullptr;
  // NCCL >= 2.18, may be null (bench replay of a group smaller than the job).
  ncclResult_t (*CommSplit)(ncclComm_t, int, int, ncclComm_t*, ncclConfig_t*) = nullptr;
};

class NcclLib {
 public:
  NcclLib() = default;
  ~NcclLib();
  NcclLib(const NcclLib&) = delete;
  NcclLib& operator=(const NcclLib&) = delete;

  // explicit_path: --nccl-lib (a file or a folder holding libnccl.so.2), may be empty.
  static Result<std::unique_ptr<NcclLib>> Load(const std::string& explicit_path);

  const NcclApi& api() const { return api_; }
  const std::string& path() const { return path_; }          // the file that was loaded
  const std::string& found_by() const { return found_by_; }  // "--nccl-lib", "loader path", ...
  int version_code() const { return version_code_; }         // 22809
  std::string version() const;                               // "2.28.9"

  // "ncclAllReduce: unhandled cuda error (run with NCCL_DEBUG=WARN for details); last error: ..."
  std::string Describe(const char* call, ncclResult_t r, ncclComm_t comm = nullptr) const;

 private:
  void* handle_ = nullptr;
  NcclApi api_;
  std::string path_;
  std::string found_by_;
  int version_code_ = 0;
};

}  // namespace commdx::bench
