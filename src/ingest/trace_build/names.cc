#include "ingest/trace_build/names.h"

#include "base/text.h"
#include "model/comm_kernels.h"

namespace commdx::ingest::trace_build {

namespace {

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

// Whether s, from `at` on, starts with `lower` (ASCII case ignored).
bool StartsNoCase(std::string_view s, size_t at, std::string_view lower) {
  if (s.size() - at < lower.size()) return false;
  for (size_t k = 0; k < lower.size(); ++k)
    if (LowerAscii(s[at + k]) != lower[k]) return false;
  return true;
}

// "dataloader", "data_load", "data-load" or "data loading" anywhere in s, case ignored: one pass
// over s (kernel names run to kilobytes), trying the rest only after a "data".
bool HasDataLoadWord(std::string_view s) {
  for (size_t i = 0; i + 4 <= s.size(); ++i) {
    if (LowerAscii(s[i]) != 'd' || !StartsNoCase(s, i + 1, "ata")) continue;
    if (StartsNoCase(s, i + 4, "loader") || StartsNoCase(s, i + 4, "_load") ||
        StartsNoCase(s, i + 4, "-load") || StartsNoCase(s, i + 4, " loading"))
      return true;
  }
  return false;
}

}  // namespace

bool IsCommKernelName(std::string_view name) {
  return ClassifyCommKernel(name).family != CommFamily::kNone;
}

CollectiveType CollectiveFromKernelName(std::string_view name) {
  return ClassifyCommKernel(name).type;
}

CollectiveType CollectiveFromArgName(std::string_view raw) {
  std::string n = ToLower(raw);
  std::string_view s = n;
  if (Contains(s, "allreduce") || Contains(s, "all_reduce")) return CollectiveType::kAllReduce;
  if (Contains(s, "allgather") || Contains(s, "all_gather")) return CollectiveType::kAllGather;
  if (Contains(s, "reduce_scatter") || Contains(s, "reducescatter"))
    return CollectiveType::kReduceScatter;
  if (Contains(s, "all_to_all") || Contains(s, "alltoall")) return CollectiveType::kAllToAll;
  if (Contains(s, "broadcast")) return CollectiveType::kBroadcast;
  if (Contains(s, "barrier")) return CollectiveType::kBarrier;
  if (Contains(s, "sendrecv")) return CollectiveType::kSendRecv;
  if (Contains(s, "send")) return CollectiveType::kSend;
  if (Contains(s, "recv")) return CollectiveType::kRecv;
  if (Contains(s, "gather")) return CollectiveType::kGather;
  if (Contains(s, "scatter")) return CollectiveType::kScatter;
  if (Contains(s, "reduce")) return CollectiveType::kReduce;
  return CollectiveType::kUnknown;
}

CollectiveType CollectiveFromAnnotation(std::string_view name) {
  constexpr std::string_view kPrefix = "nccl:";
  if (!StartsWith(name, kPrefix)) return CollectiveType::kUnknown;
  return CollectiveFromArgName(name.substr(kPrefix.size()));
}

// Memcpy DtoH (Device -> Pageable)
//        ^kind; ROCm writes "CopyDeviceToHost", "CopyHostToDevice".
CopyKind CopyKindFromName(std::string_view name) {
  if (Contains(name, "DtoH") || Contains(name, "DeviceToHost")) return CopyKind::kDtoH;
  if (Contains(name, "HtoD") || Contains(name, "HostToDevice")) return CopyKind::kHtoD;
  if (Contains(name, "DtoD") || Contains(name, "DeviceToDevice")) return CopyKind::kDtoD;
  if (Contains(name, "PtoP") || Contains(name, "PeerToPeer")) return CopyKind::kPtoP;
  if (Contains(name, "HtoH") || Contains(name, "HostToHost")) return CopyKind::kHtoH;
  return CopyKind::kOther;
}

namespace {

// The name without a trailing ABI version ("cuMemAlloc_v2" -> "cuMemAlloc").
std::string_view Unversioned(std::string_view n) {
  size_t v = n.rfind("_v");
  if (v == n.npos || v + 2 >= n.size()) return n;
  for (size_t i = v + 2; i < n.size(); ++i)
    if (!IsDigit(n[i])) return n;
  return n.substr(0, v);
}

// Copies that return only when the copy is done (the CUDA runtime API's "API synchronization
// behavior": the non-Async memcpy family), so the host waits for the GPU to reach them.
constexpr std::string_view kSyncCopies[] = {"cudaMemcpy",
                                            "cudaMemcpy2D",
                                            "cudaMemcpy3D",
                                            "cudaMemcpyPeer",
                                            "cudaMemcpyToSymbol",
                                            "cudaMemcpyFromSymbol",
                                            "cudaMemcpyToArray",
                                            "cudaMemcpyFromArray",
                                            "cudaMemcpy2DToArray",
                                            "cudaMemcpy2DFromArray",
                                            "cuMemcpy",
                                            "cuMemcpyHtoD",
                                            "cuMemcpyDtoH",
                                            "cuMemcpyPeer",
                                            "cuMemcpy2D",
                                            "cuMemcpy3D",
                                            "hipMemcpy",
                                            "hipMemcpyHtoD",
                                            "hipMemcpyDtoH",
                                            "hipMemcpyPeer",
                                            "hipMemcpy2D",
                                            "hipMemcpyToSymbol",
                                            "hipMemcpyFromSymbol",
                                            "hipMemcpyWithStream"};

// The allocator's calls, stream-ordered ones (cudaMallocAsync, cudaFreeAsync) aside: they do
// not block. PyTorch's caching allocator calls cudaMalloc on a cache miss, cudaFree from
// empty_cache() or an allocation retry, cuMemCreate/cuMemMap/cuMemUnmap/cuMemRelease with
// expandable segments, cudaHostAlloc/cudaFreeHost for pinned memory; ROCm builds the hip names.
constexpr std::string_view kAllocCalls[] = {"cudaMalloc",          "cudaFree",
                                            "cudaMallocHost",      "cudaFreeHost",
                                            "cudaHostAlloc",       "cudaMallocManaged",
                                            "cudaMallocPitch",     "cudaMalloc3D",
                                            "cudaMallocArray",     "cudaFreeArray",
                                            "cudaHostRegister",    "cudaHostUnregister",
                                            "cuMemAlloc",          "cuMemFree",
                                            "cuMemAllocHost",      "cuMemFreeHost",
                                            "cuMemHostAlloc",      "cuMemAllocManaged",
                                            "cuMemAllocPitch",     "cuMemHostRegister",
                                            "cuMemHostUnregister", "cuMemCreate",
                                            "cuMemRelease",        "cuMemMap",
                                            "cuMemUnmap",          "cuMemSetAccess",
                                            "cuMemAddressReserve", "cuMemAddressFree",
                                            "hipMalloc",           "hipFree",
                                            "hipHostMalloc",       "hipHostFree",
                                            "hipMallocManaged",    "hipExtMallocWithFlags",
                                            "hipMallocPitch",      "hipHostRegister",
                                            "hipHostUnregister",   "hipMemCreate",
                                            "hipMemRelease",       "hipMemMap",
                                            "hipMemUnmap"};

template <size_t N>
bool OneOf(std::string_view n, const std::string_view (&names)[N]) {
  for (std::string_view s : names)
    if (n == s) return true;
  return false;
}

}  // namespace

uint8_t RuntimeFlags(std::string_view name) {
  uint8_t f = kHostFlagNone;
  const std::string_view n = Unversioned(name);
  if (Contains(n, "Synchronize") || OneOf(n, kSyncCopies) || n == "cudaStreamQuery_sync")
    f |= kHostFlagSync;
  if (OneOf(n, kAllocCalls)) f |= kHostFlagAlloc;
  if (Contains(n, "StreamBeginCapture") || Contains(n, "StreamEndCapture")) f |= kHostFlagCapture;
  if (Contains(n, "Launch") || Contains(n, "Memcpy") || Contains(n, "Memset") ||
      Contains(n, "GraphLaunch"))
    f |= kHostFlagLaunch;
  return f;
}

// Data-loading regions, by where each name comes from:
//   PyTorch's DataLoader iterator (torch/utils/data/dataloader.py, record_function around
//   __next__): "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" and
//   "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", which contain "dataloader";
//   TorchRec's TrainPipeline (torchrec/distributed/train_pipeline): "## load_batch ##",
//   "## wait_for_batch ##", "## next_batch ##";
//   users' own record_function / NVTX ranges: "dataloader", "data_loader", "data_loading",
//   "data loading", "data-load..." anywhere in the name, or exactly (case, spaces and '#' aside)
//   "data", "load_data", "load_batch", "get_batch", "next_batch", "fetch_batch",
//   "wait_for_batch" — whole names only, so "aten::data_ptr" or "metadata" are not taken.
bool IsDataLoaderName(std::string_view n) {
  if (HasDataLoadWord(n)) return true;
  std::string_view core = n;
  while (!core.empty() && (core.front() == '#' || core.front() == ' ')) core.remove_prefix(1);
  while (!core.empty() && (core.back() == '#' || core.back() == ' ')) core.remove_suffix(1);
  if (core.size() > 16) return false;
  const std::string lower = ToLower(core);
  for (std::string_view exact : {"data", "load_data", "load_batch", "get_batch", "next_batch",
                                 "fetch_batch", "wait_for_batch"})
    if (lower == exact) return true;
  return false;
}

uint8_t HostFlags(std::string_view n) {
  uint8_t f = kHostFlagNone;
  if (StartsWith(n, "ProfilerStep#")) f |= kHostFlagStep;
  if (n == "aten::item" || n == "aten::_local_scalar_dense") f |= kHostFlagItem;
  if (n == "record_param_comms" || StartsWith(n, "c10d::") || StartsWith(n, "nccl:"))
    f |= kHostFlagCollective;
  if (IsDataLoaderName(n)) f |= kHostFlagDataLoader;
  return f;
}

int64_t ParseLooseInt(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && !IsDigit(s[i])) ++i;
  if (i == s.size()) return -1;
  bool neg = i > 0 && s[i - 1] == '-';
  std::string_view rest = s.substr(i);
  auto v = ConsumeInt(rest);
  if (!v) return -1;
  return neg ? -1 : *v;
}

}  // namespace commdx::ingest::trace_build
