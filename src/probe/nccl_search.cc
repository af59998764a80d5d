#include "probe/nccl_search.h"

#include <filesystem>
#include <string_view>

#include "probe/env_probe.h"

namespace commdx::probe {

namespace {

// A folder named where a library is expected means the libnccl.so.2 inside it.
std::string LibraryIn(const SysRoot& root, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(root.Path(path), ec)) return path + "/libnccl.so.2";
  return path;
}

std::string EnvValue(const std::vector<std::string>& environ, std::string_view name) {
  for (const std::string& kv : environ)
    if (kv.size() > name.size() && kv.compare(0, name.size(), name) == 0 && kv[name.size()] == '=')
      return kv.substr(name.size() + 1);
  return "";
}

}  // namespace

std::vector<NcclCandidate> NcclSearchOrder(const SysRoot& root, const std::string& explicit_path,
                                           const std::vector<std::string>& environ) {
  std::vector<NcclCandidate> out;
  if (!explicit_path.empty()) out.push_back({LibraryIn(root, explicit_path), NcclOrigin::kFlag});
  if (std::string env = EnvValue(environ, "COMMDX_NCCL_LIB"); !env.empty())
    out.push_back({LibraryIn(root, env), NcclOrigin::kEnvVar});
  out.push_back({"libnccl.so.2", NcclOrigin::kLoader});
  for (std::string& p : PytorchNcclCandidates(root, environ))
    out.push_back({std::move(p), NcclOrigin::kPytorch});
  return out;
}

}  // namespace commdx::probe
