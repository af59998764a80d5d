#include "bench/cuda/nccl_lib.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <memory>

#include "base/text.h"
#include "model/nccl_version.h"
#include "probe/nccl_search.h"

extern char** environ;  // the process environment: COMMDX_NCCL_LIB, the PyTorch-NCCL search

namespace commdx::bench {

namespace {

std::string LoadedPath(void* handle, const std::string& fallback) {
  struct link_map* lm = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name) {
    char* real = realpath(lm->l_name, nullptr);
    std::string s = real ? real : lm->l_name;
    std::free(real);
    return s;
  }
  return fallback;
}

// How the report says a library was found.
std::string HowFound(NcclOrigin o) {
  switch (o) {
    case NcclOrigin::kLoader:
      return "loader path";
    case NcclOrigin::kPytorch:
      return "PyTorch-bundled NCCL";
    default:
      return NcclOriginName(o);
  }
}

template <class F>
bool Sym(void* h, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(h, name));
  return fn != nullptr;
}

}  // namespace

NcclLib::~NcclLib() {
  // NCCL keeps threads and atexit handlers; unloading it while they exist crashes, so the
  // handle is deliberately kept until the process ends.
}

std::string NcclLib::version() const { return NcclVersionFromCode(version_code_); }

Result<std::unique_ptr<NcclLib>> NcclLib::Load(const std::string& explicit_path) {
  std::vector<std::string> vars;
  for (char** e = environ; e && *e; ++e) vars.emplace_back(*e);
  std::vector<probe::NcclCandidate> tries =
      probe::NcclSearchOrder(probe::SysRoot("/"), explicit_path, vars);
  if (!explicit_path.empty()) tries.resize(1);  // the library asked for, or an error
  std::string tried;
  for (const probe::NcclCandidate& c : tries) {
    const std::string how = HowFound(c.origin);
    void* h = dlopen(c.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      tried += "\n  " + how + ": " + c.path + " (" + (e ? e : "not found") + ")";
      continue;
    }
    auto lib = std::make_unique<NcclLib>();
    lib->handle_ = h;
    lib->path_ = LoadedPath(h, c.path);
    lib->found_by_ = how;
    NcclApi& a = lib->api_;
    bool ok =
        Sym(h, "ncclGetVersion", a.GetVersion) && Sym(h, "ncclGetUniqueId", a.GetUniqueId) &&
        Sym(h, "ncclCommInitRank", a.CommInitRank) && Sym(h, "ncclCommInitAll", a.CommInitAll) &&
        Sym(h, "ncclCommDestroy", a.CommDestroy) && Sym(h, "ncclCommAbort", a.CommAbort) &&
        Sym(h, "ncclCommGetAsyncError", a.CommGetAsyncError) &&
        Sym(h, "ncclGetErrorString", a.GetErrorString) && Sym(h, "ncclAllReduce", a.AllReduce) &&
        Sym(h, "ncclAllGather", a.AllGather) && Sym(h, "ncclReduceScatter", a.ReduceScatter) &&
        Sym(h, "ncclBroadcast", a.Broadcast) && Sym(h, "ncclReduce", a.Reduce) &&
        Sym(h, "ncclSend", a.Send) && Sym(h, "ncclRecv", a.Recv) &&
        Sym(h, "ncclGroupStart", a.GroupStart) && Sym(h, "ncclGroupEnd", a.GroupEnd);
    Sym(h, "ncclGetLastError", a.GetLastError);
    Sym(h, "ncclCommSplit", a.CommSplit);
    if (!ok) {
      tried += "\n  " + how + ": " + lib->path_ +
               " (loaded, but it lacks symbols commdx needs: NCCL older than 2.7?)";
      continue;
    }
    if (a.GetVersion(&lib->version_code_) != ncclSuccess) lib->version_code_ = 0;
    return lib;
  }
  return MakeError(ErrorCode::kEnvironment,
                   "cannot load NCCL (libnccl.so.2); tried, in order:" + tried +
                       "\n  fix: pass --nccl-lib PATH or set COMMDX_NCCL_LIB, or install NCCL "
                       "(e.g. the libnccl2 package or PyTorch's nvidia-nccl wheel)");
}

std::string NcclLib::Describe(const char* call, ncclResult_t r, ncclComm_t comm) const {
  std::string s = std::string(call) + " failed: ";
  s += api_.GetErrorString ? api_.GetErrorString(r) : ("error " + std::to_string(r));
  if (api_.GetLastError) {
    const char* last = api_.GetLastError(comm);
    if (last && *last) s += std::string(" (") + last + ")";
  }
  switch (r) {
    case ncclSystemError:
      s += "; a system call or socket failed (in containers often /dev/shm too small: "
           "docker --shm-size=1g or --ipc=host)";
      break;
    case ncclRemoteError:
      s += "; a peer process failed or exited";
      break;
    case ncclUnhandledCudaError:
      s += "; a CUDA call inside NCCL failed (out of memory, or a GPU fault)";
      break;
    default:
      break;
  }
  return s + "; rerun with NCCL_DEBUG=WARN for NCCL's own message";
}

}  // namespace commdx::bench
