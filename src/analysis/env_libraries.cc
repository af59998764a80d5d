// env.nccl_lib (which libnccl.so.2 a job would load, and its version) and env.cuda_driver_old
// (the CUDA runtime a job uses is newer than what the driver supports).
//
// A CUDA runtime of a newer major version than the driver fails (cudaErrorInsufficientDriver);
// a newer minor version of the same major runs under minor-version compatibility, but kernels
// that need PTX JIT of the newer version fail.
#include "analysis/catalogue.h"
#include "analysis/env_analyzers.h"
#include "analysis/topo_common.h"
#include "base/text.h"
#include "model/cuda_version.h"

namespace commdx::analysis {

namespace {

struct MajorMinor {
  int major = 0;
  int minor = 0;
};

MajorMinor ParseVersion(std::string_view v) {
  auto parts = Split(v, '.');
  MajorMinor m;
  if (parts.size() >= 1) m.major = static_cast<int>(ParseInt(parts[0]).value_or(0));
  if (parts.size() >= 2) m.minor = static_cast<int>(ParseInt(parts[1]).value_or(0));
  return m;
}

Finding NcclLib(const EnvSnapshot& e) {
  Finding f = NewFinding("env.nccl_lib");
  f.severity = Severity::kInfo;
  const NcclLibrary* chosen = nullptr;
  const NcclLibrary* torch = nullptr;
  std::vector<NcclPluginLib> plugins = e.nccl_plugins;
  for (const auto& l : e.nccl_libs) {
    // A snapshot written before plugins were told apart may list one as a library.
    if (auto kind = NcclPluginKindOf(l.path)) {
      plugins.push_back({l.path, *kind});
      continue;
    }
    if (l.chosen) chosen = &l;
    if (l.origin == NcclOrigin::kPytorch) torch = &l;
    std::string text =
        std::string(NcclOriginName(l.origin)) + ": " + (l.path.empty() ? "(not found)" : l.path);
    if (!l.version.empty()) text += " (NCCL " + l.version + ")";
    if (!l.error.empty() && l.version.empty()) text += ": " + l.error;
    if (l.chosen) text += "  <- dlopen(\"libnccl.so.2\") gets this";
    f.refs.push_back(Ref({}, text));
  }
  for (const auto& p : plugins)
    f.refs.push_back(Ref({}, std::string(NcclPluginKindName(p.kind)) +
                                 " plugin (loaded by NCCL, not NCCL): " + p.path));
  if (!chosen && !torch) {
    f.title = "No libnccl.so.2 found (loader path or PyTorch)";
    f.detail =
        "Neither the loader path nor an installed PyTorch provides NCCL; `commdx bench` "
        "needs one (--nccl-lib PATH or COMMDX_NCCL_LIB).";
    return f;
  }
  f.title = "NCCL " + (chosen && !chosen->version.empty() ? chosen->version : std::string("?")) +
            " from " + (chosen ? chosen->path : std::string("nowhere on the loader path"));
  if (torch) {
    f.title +=
        "; PyTorch bundles NCCL " + (torch->version.empty() ? std::string("?") : torch->version);
    f.detail =
        "A PyTorch job loads the NCCL of its wheel (nvidia/nccl/lib, found through its "
        "RPATH), not the one on the loader path, unless LD_PRELOAD points elsewhere. "
        "Programs like nccl-tests get the loader's.";
    if (chosen && !chosen->version.empty() && !torch->version.empty() &&
        chosen->version != torch->version)
      f.detail += " The two differ: benchmark with the one the job uses (commdx bench --nccl-lib " +
                  torch->path + ").";
  }
  return f;
}

}  // namespace

std::vector<Finding> FindEnvLibraries(const Job& job, const Options&) {
  const EnvSnapshot& e = job.env;
  if (!e.captured) return {};
  std::vector<Finding> out;
  // An input that does not list libraries (a process's env dump without nccl_lib_loaded)
  // says nothing about which NCCL loads: not checked, not "none found".
  if (e.nccl_libs_checked) out.push_back(NcclLib(e));
  int driver = e.cuda_driver_version ? e.cuda_driver_version : job.topo.cuda_driver_version;
  if (driver > 0 && !e.cuda_runtime_version.empty()) {
    MajorMinor rt = ParseVersion(e.cuda_runtime_version);
    const CudaVersion code = CudaVersionFromCode(driver);
    MajorMinor drv{code.major, code.minor};
    bool major_newer = rt.major > drv.major;
    bool minor_newer = rt.major == drv.major && rt.minor > drv.minor;
    if (rt.major > 0 && (major_newer || minor_newer)) {
      Finding f = NewFinding("env.cuda_driver_old");
      f.severity = major_newer ? Severity::kError : Severity::kWarning;
      std::string drv_text = CudaVersionString(driver);
      f.title =
          "CUDA runtime " + e.cuda_runtime_version + " is newer than the driver's CUDA " + drv_text;
      f.detail = major_newer ? "A newer major CUDA version than the driver supports does not run "
                               "(cudaErrorInsufficientDriver)."
                             : "It runs under minor-version compatibility, but kernels that need "
                               "PTX JIT compilation for the newer version fail.";
      f.refs.push_back(Ref({}, "runtime: " + e.cuda_runtime_source));
      f.refs.push_back(Ref(
          {}, "driver " + (e.driver_version.empty() ? job.topo.driver_version : e.driver_version) +
                  " supports CUDA " + drv_text));
      f.fix =
          "Upgrade the driver, or install a PyTorch/CUDA build for CUDA " + drv_text + " or older.";
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace commdx::analysis
