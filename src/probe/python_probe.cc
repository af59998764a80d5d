// Where PyTorch is installed and what it was built with, without running Python:
//
//   <site-packages>/torch/version.py         "__version__ = '2.11.0+cu130'"  "cuda: Optional[str] =
//   '13.0'" <site-packages>/nvidia/nccl/lib/libnccl.so.2      the NCCL PyTorch loads (pip wheels)
//   /usr/local/cuda/version.json             "cuda" : { "name" : "CUDA SDK", "version" : "13.0.2" }
#include <algorithm>

#include "base/text.h"
#include "probe/env_probe.h"

namespace commdx::probe {

namespace {

std::string EnvValue(const std::vector<std::string>& environ, std::string_view name) {
  for (const auto& kv : environ)
    if (kv.size() > name.size() && StartsWith(kv, name) && kv[name.size()] == '=')
      return kv.substr(name.size() + 1);
  return "";
}

// site-packages / dist-packages folders under `prefix/lib/python3*/` (and `prefix/lib/python3/`).
void AddPythonLibDirs(const SysRoot& root, const std::string& prefix,
                      std::vector<std::string>& out) {
  if (prefix.empty()) return;
  std::string lib = prefix + "/lib";
  for (const auto& py : root.List(lib)) {
    if (!StartsWith(py, "python3")) continue;
    for (const char* kind : {"site-packages", "dist-packages"}) {
      std::string dir = lib + "/" + py + "/" + kind;
      if (root.Exists(dir) && std::find(out.begin(), out.end(), dir) == out.end())
        out.push_back(dir);
    }
  }
}

// "__version__ = '2.11.0+cu130'" -> 2.11.0+cu130 ; "cuda: Optional[str] = '13.0'" -> 13.0
std::string QuotedValue(std::string_view text, std::string_view key) {
  for (std::string_view line : Split(text, '\n')) {
    std::string_view l = Trim(line);
    if (!StartsWith(l, key)) continue;
    std::string_view rest = l.substr(key.size());
    if (rest.empty() || (rest[0] != ' ' && rest[0] != ':' && rest[0] != '=')) continue;
    size_t q = rest.find_first_of("'\"");
    if (q == rest.npos) continue;
    size_t e = rest.find(rest[q], q + 1);
    if (e == rest.npos) continue;
    return std::string(rest.substr(q + 1, e - q - 1));
  }
  return "";
}

// "version" of the "cuda" object in CUDA's version.json, without a JSON parser (a few lines).
std::string CudaToolkitVersion(const std::string& json) {
  size_t at = json.find("\"cuda\"");
  if (at == std::string::npos) return "";
  size_t v = json.find("\"version\"", at);
  if (v == std::string::npos) return "";
  size_t q1 = json.find('"', json.find(':', v) + 1);
  size_t q2 = q1 == std::string::npos ? q1 : json.find('"', q1 + 1);
  if (q2 == std::string::npos) return "";
  return json.substr(q1 + 1, q2 - q1 - 1);
}

}  // namespace

std::vector<std::string> SitePackagesDirs(const SysRoot& root, const std::vector<EnvVar>& vars,
                                          const std::vector<std::string>& environ) {
  (void)vars;
  std::vector<std::string> out;
  AddPythonLibDirs(root, EnvValue(environ, "VIRTUAL_ENV"), out);
  AddPythonLibDirs(root, EnvValue(environ, "CONDA_PREFIX"), out);
  // The environment this binary was installed into (pip puts it in <venv>/bin/commdx): its
  // PyTorch and NCCL are found when the venv is not activated, as `<venv>/bin/commdx` is run.
  if (auto exe = root.ReadLink("proc/self/exe")) {
    std::string_view e = *exe;
    size_t slash = e.rfind('/');
    if (slash != std::string_view::npos && EndsWith(e.substr(0, slash), "/bin"))
      AddPythonLibDirs(root, std::string(e.substr(0, slash - 4)), out);
  }
  std::string path = EnvValue(environ, "PATH");  // Split's views point into it
  for (std::string_view dir : Split(path, ':')) {
    if (dir.empty() || !root.Exists(std::string(dir) + "/python3")) continue;
    std::string d(dir);
    size_t slash = d.rfind('/');
    if (slash != std::string::npos && slash > 0) AddPythonLibDirs(root, d.substr(0, slash), out);
  }
  std::string home = EnvValue(environ, "HOME");
  if (!home.empty()) AddPythonLibDirs(root, home + "/.local", out);
  AddPythonLibDirs(root, "/usr/local", out);
  AddPythonLibDirs(root, "/usr", out);
  AddPythonLibDirs(root, "/opt/conda", out);
  if (root.Exists("usr/lib/python3/dist-packages") &&
      std::find(out.begin(), out.end(), "/usr/lib/python3/dist-packages") == out.end())
    out.push_back("/usr/lib/python3/dist-packages");
  return out;
}

std::vector<std::string> BundledNcclIn(const SysRoot& root, const std::string& site_packages) {
  std::vector<std::string> out;
  const std::string nvidia = site_packages + "/nvidia/";
  if (root.Exists(nvidia + "nccl/lib/libnccl.so.2"))
    out.push_back(nvidia + "nccl/lib/libnccl.so.2");
  for (const auto& sub : root.List(nvidia)) {
    std::string lib = nvidia + sub + "/lib/libnccl.so.2";
    if (StartsWith(sub, "cu") && root.Exists(lib)) out.push_back(lib);
  }
  return out;
}

std::vector<std::string> PytorchNcclCandidates(const SysRoot& root,
                                               const std::vector<std::string>& environ) {
  std::vector<std::string> out;
  for (const auto& dir : SitePackagesDirs(root, {}, environ))
    for (auto& lib : BundledNcclIn(root, dir)) out.push_back(std::move(lib));
  return out;
}

void ProbePython(const SysRoot& root, const std::vector<std::string>& environ, EnvSnapshot& env) {
  for (const auto& dir : SitePackagesDirs(root, env.vars, environ)) {
    auto version = root.Read(dir + "/torch/version.py");
    if (!version) continue;
    env.torch_path = dir + "/torch";
    env.torch_version = QuotedValue(*version, "__version__");
    std::string cuda = QuotedValue(*version, "cuda");
    if (!cuda.empty()) {
      env.cuda_runtime_version = cuda;
      env.cuda_runtime_source = "PyTorch " + env.torch_version + " (" + dir + "/torch/version.py)";
    }
    break;
  }
  if (env.cuda_runtime_version.empty()) {
    std::string home = EnvValue(environ, "CUDA_HOME");
    for (const std::string& base : {home, std::string("/usr/local/cuda")}) {
      if (base.empty()) continue;
      auto json = root.Read(base + "/version.json");
      if (!json) continue;
      std::string v = CudaToolkitVersion(*json);
      if (v.empty()) continue;
      env.cuda_runtime_version = v;
      env.cuda_runtime_source = "CUDA toolkit " + base + "/version.json";
      break;
    }
  }
}

}  // namespace commdx::probe
