// Which libnccl.so.2 a process would load, and its version (the search order of docs/bench-method.md, "Library"):
// --nccl-lib, COMMDX_NCCL_LIB, the loader path (a plain dlopen("libnccl.so.2"), as nccl-tests
// and most C++ programs get it), the NCCL bundled with PyTorch (pip's nvidia/nccl/lib, which a
// PyTorch job loads through its own RPATH whatever the loader path says).
//
// Each candidate is opened in its own link-map namespace (dlmopen LM_ID_NEWLM) so two NCCLs can
// be asked side by side, then closed. Opening runs no NCCL code besides ncclGetVersion.
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <filesystem>

#include "base/text.h"
#include "model/nccl_version.h"
#include "probe/env_probe.h"
#include "probe/nccl_search.h"

namespace commdx::probe {

namespace {

// "libnccl.so.2.28.3" -> "2.28.3"; "" when the file name carries no full version.
std::string VersionFromFileName(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  std::string_view v = name;
  if (!ConsumePrefix(v, "libnccl.so.")) return "";
  return Split(v, '.').size() == 3 ? std::string(v) : "";
}

struct Loaded {
  std::string path;
  std::string version;
  std::string error;
};

Loaded Load(const std::string& name) {
  Loaded out;
  void* h = dlmopen(LM_ID_NEWLM, name.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!h) h = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    out.error = e ? e : "cannot be loaded";
    return out;
  }
  struct link_map* map = nullptr;
  if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) out.path = map->l_name;
  using GetVersionFn = int (*)(int*);
  auto fn = reinterpret_cast<GetVersionFn>(dlsym(h, "ncclGetVersion"));
  int code = 0;
  if (fn && fn(&code) == 0)
    out.version = NcclVersionFromCode(code);
  else
    out.error = "no ncclGetVersion in this library";
  dlclose(h);
  return out;
}

std::string Canonical(const std::string& p) {
  std::error_code ec;
  auto c = std::filesystem::canonical(p, ec);
  return ec ? p : c.string();
}

}  // namespace

void ProbeNcclLibraries(const EnvProbeOptions& options, EnvSnapshot& env) {
  bool live = options.root == "/" && options.load_libraries;
  SysRoot root(options.root);
  bool chosen = false;
  for (const NcclCandidate& c : NcclSearchOrder(root, options.nccl_lib, options.environ)) {
    const NcclOrigin origin = c.origin;
    const std::string& name = c.path;
    NcclLibrary lib;
    lib.origin = origin;
    if (live) {
      Loaded l = Load(name);
      lib.path = l.path.empty() ? name : Canonical(l.path);
      lib.version = l.version.empty() ? VersionFromFileName(lib.path) : l.version;
      lib.error = l.error;
      if (origin == NcclOrigin::kLoader && !l.error.empty() && l.path.empty()) lib.path = "";
    } else {
      // Offline trees: only files named by path can be checked; the loader is not asked.
      if (origin == NcclOrigin::kLoader) continue;
      lib.path = name;
      if (!root.Exists(name)) lib.error = "no such file";
      std::error_code ec;
      auto target = std::filesystem::read_symlink(root.Path(name), ec);
      lib.version = VersionFromFileName(ec ? name : target.string());
    }
    bool usable = !lib.path.empty() && (lib.error.empty() || !lib.version.empty());
    if (usable && !chosen && origin != NcclOrigin::kPytorch) lib.chosen = chosen = true;
    bool duplicate =
        std::any_of(env.nccl_libs.begin(), env.nccl_libs.end(), [&](const NcclLibrary& x) {
          return !x.path.empty() && x.path == lib.path && x.origin == lib.origin;
        });
    if (!duplicate) env.nccl_libs.push_back(std::move(lib));
  }
}

}  // namespace commdx::probe
