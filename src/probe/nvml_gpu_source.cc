#include "probe/nvml_gpu_source.h"

#include <dlfcn.h>

#include <cstring>

#include "probe/nvml_table.h"

namespace commdx::probe {

namespace {

template <class F>
F Sym(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

template <class F>
F SymAny(void* lib, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (F f = Sym<F>(lib, n)) return f;
  return nullptr;
}

std::string CString(const char* buf, size_t n) { return std::string(buf, strnlen(buf, n)); }

}  // namespace

NvmlGpuSource::NvmlGpuSource() : api_(std::make_unique<Api>()) {}

NvmlGpuSource::~NvmlGpuSource() {
  if (api_ && api_->shutdown) api_->shutdown();
  if (lib_) dlclose(lib_);
}

Result<std::unique_ptr<NvmlGpuSource>> NvmlGpuSource::Open(const std::string& library) {
  std::unique_ptr<NvmlGpuSource> s(new NvmlGpuSource());
  s->library_ = library;
  s->lib_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!s->lib_) {
    const char* why = dlerror();
    return MakeError(ErrorCode::kEnvironment,
                     library +
                         " could not be loaded (no NVIDIA driver on this machine, or not in "
                         "the loader path): " +
                         (why ? why : "unknown reason"));
  }
  Api& a = *s->api_;
  void* l = s->lib_;
  a.init = SymAny<nvml::InitFn>(l, {"nvmlInit_v2", "nvmlInit"});
  a.shutdown = Sym<nvml::ShutdownFn>(l, "nvmlShutdown");
  a.error_string = Sym<nvml::ErrorStringFn>(l, "nvmlErrorString");
  a.count = SymAny<nvml::CountFn>(l, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  a.handle =
      SymAny<nvml::HandleFn>(l, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  if (!a.init || !a.shutdown || !a.count || !a.handle)
    return MakeError(ErrorCode::kEnvironment,
                     library + " lacks nvmlInit/nvmlDeviceGetCount/nvmlDeviceGetHandleByIndex");
  a.driver_version = Sym<nvml::StringFn>(l, "nvmlSystemGetDriverVersion");
  a.nvml_version = Sym<nvml::StringFn>(l, "nvmlSystemGetNVMLVersion");
  a.cuda_driver_version = SymAny<nvml::IntOutFn>(
      l, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  a.name = Sym<nvml::DevStringFn>(l, "nvmlDeviceGetName");
  a.uuid = Sym<nvml::DevStringFn>(l, "nvmlDeviceGetUUID");
  a.pci = SymAny<nvml::DevPciFn>(l, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  a.cur_gen = Sym<nvml::DevUintFn>(l, "nvmlDeviceGetCurrPcieLinkGeneration");
  a.max_gen = Sym<nvml::DevUintFn>(l, "nvmlDeviceGetMaxPcieLinkGeneration");
  a.cur_width = Sym<nvml::DevUintFn>(l, "nvmlDeviceGetCurrPcieLinkWidth");
  a.max_width = Sym<nvml::DevUintFn>(l, "nvmlDeviceGetMaxPcieLinkWidth");
  a.numa = Sym<nvml::DevUintFn>(l, "nvmlDeviceGetNumaNodeId");
  a.mig = Sym<nvml::DevTwoUintFn>(l, "nvmlDeviceGetMigMode");
  a.ecc = Sym<nvml::DevTwoStateFn>(l, "nvmlDeviceGetEccMode");
  a.persistence = Sym<nvml::DevStateFn>(l, "nvmlDeviceGetPersistenceMode");
  a.compute_mode = Sym<nvml::DevIntFn>(l, "nvmlDeviceGetComputeMode");
  a.clock_events = SymAny<nvml::DevU64Fn>(
      l, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  a.link_state = Sym<nvml::LinkStateFn>(l, "nvmlDeviceGetNvLinkState");
  a.link_version = Sym<nvml::LinkUintFn>(l, "nvmlDeviceGetNvLinkVersion");
  a.link_remote_type = Sym<nvml::LinkUintFn>(l, "nvmlDeviceGetNvLinkRemoteDeviceType");
  a.link_remote_pci = SymAny<nvml::LinkPciFn>(
      l, {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"});
  a.link_errors = Sym<nvml::LinkErrorFn>(l, "nvmlDeviceGetNvLinkErrorCounter");
  a.fields = Sym<nvml::FieldsFn>(l, "nvmlDeviceGetFieldValues");
  a.p2p = Sym<nvml::P2PFn>(l, "nvmlDeviceGetP2PStatus");
  a.ancestor = Sym<nvml::AncestorFn>(l, "nvmlDeviceGetTopologyCommonAncestor");
  a.processes = SymAny<nvml::ProcessesFn>(
      l, {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
  if (!a.processes) {
    a.processes = Sym<nvml::ProcessesFn>(l, "nvmlDeviceGetComputeRunningProcesses");
    a.processes_v1 = a.processes != nullptr;
  }
  nvml::Return rc = a.init();
  if (rc != nvml::kSuccess) {
    std::string what = a.error_string ? a.error_string(rc) : std::to_string(rc);
    a.shutdown = nullptr;  // nothing to shut down
    return MakeError(ErrorCode::kEnvironment, "nvmlInit_v2 failed: " + what);
  }
  return s;
}

std::string NvmlGpuSource::Describe() const { return "NVML (" + library_ + ")"; }

Result<RawSystem> NvmlGpuSource::System() {
  RawSystem s;
  char buf[96] = {};
  if (api_->driver_version && api_->driver_version(buf, sizeof buf) == nvml::kSuccess)
    s.driver_version = CString(buf, sizeof buf);
  buf[0] = 0;
  if (api_->nvml_version && api_->nvml_version(buf, sizeof buf) == nvml::kSuccess)
    s.nvml_version = CString(buf, sizeof buf);
  int v = 0;
  if (api_->cuda_driver_version && api_->cuda_driver_version(&v) == nvml::kSuccess)
    s.cuda_driver_version = v;
  return s;
}

Result<int> NvmlGpuSource::DeviceCount() {
  unsigned int n = 0;
  nvml::Return rc = api_->count(&n);
  if (rc != nvml::kSuccess)
    return MakeError(ErrorCode::kEnvironment,
                     std::string("nvmlDeviceGetCount_v2 failed: ") +
                         (api_->error_string ? api_->error_string(rc) : std::to_string(rc)));
  return static_cast<int>(n);
}

}  // namespace commdx::probe
