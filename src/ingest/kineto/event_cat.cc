#include "ingest/kineto/event_cat.h"

#include "base/text.h"

namespace commdx::ingest::kineto {

using trace_build::EventCat;

EventCat EventCatOf(std::string_view c) {
  switch (c.size()) {
    case 6:
      if (c == "kernel" || c == "Kernel") return EventCat::kKernel;
      if (c == "cpu_op") return EventCat::kCpuOp;
      if (c == "Memcpy") return EventCat::kMemcpy;
      if (c == "Memset") return EventCat::kMemset;
      break;
    case 4:
      if (c == "ac2g") return EventCat::kFlow;
      break;
    case 7:
      if (c == "Runtime") return EventCat::kRuntime;
      if (c == "fwdbwd") return EventCat::kFlow;
      break;
    case 8:
      if (c == "Operator") return EventCat::kCpuOp;
      if (c == "overhead") return EventCat::kIgnored;
      break;
    case 9:
      if (c == "cuda_sync") return EventCat::kCudaSync;
      break;
    case 10:
      if (c == "gpu_memcpy") return EventCat::kMemcpy;
      if (c == "gpu_memset") return EventCat::kMemset;
      break;
    case 11:
      if (c == "cuda_driver") return EventCat::kDriver;
      break;
    case 12:
      if (c == "cuda_runtime") return EventCat::kRuntime;
      break;
    case 15:
      if (c == "user_annotation") return EventCat::kUserAnnotation;
      if (c == "python_function") return EventCat::kPythonFunction;
      break;
    case 16:
      if (c == "async_cpu_to_gpu") return EventCat::kFlow;
      break;
    case 19:
      if (c == "gpu_user_annotation") return EventCat::kGpuUserAnnotation;
      break;
    default:
      break;
  }
  if (c.empty()) return EventCat::kNone;
  if (EndsWith(c, "_runtime")) return EventCat::kRuntime;  // hip_, privateuse1_, mtia_, xpu_
  if (EndsWith(c, "_driver")) return EventCat::kDriver;
  if (c == "Trace" || c == "cpu_instant_event" || c == "Python" || c == "gpu_instant_event" ||
      c == "kineto" || c == "memory" || c == "Overhead" || c == "cuda_sync_event" ||
      c == "cpu_instant")
    return EventCat::kIgnored;
  // Not GPU kernels: an MTIA event_wait lasts as long as the wait, and pe_exe events overlap
  // once per processing element, so their spans are not busy time of one device.
  if (c == "cuda_profiler_range" || EndsWith(c, "_ccp_events") || StartsWith(c, "mtia_") ||
      StartsWith(c, "xpu_") || StartsWith(c, "hpu_") || StartsWith(c, "privateuse1_"))
    return EventCat::kOtherDevice;
  return EventCat::kUnknown;
}

}  // namespace commdx::ingest::kineto
