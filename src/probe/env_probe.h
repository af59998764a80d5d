// `commdx env` live: the environment a distributed job on this node would see. Read-only, no
// root. Everything is read under a root folder so tests can use fake trees; libraries are only
// loaded (to ask NCCL its version) when the root is "/" and `load_libraries` is set.
#pragma once

#include <string>
#include <vector>

#include "model/environment.h"
#include "probe/sysfs.h"

namespace commdx::probe {

struct EnvProbeOptions {
  std::string root = "/";
  std::vector<std::string> environ;  // "NAME=value" entries (the CLI passes its own environ)
  std::string nccl_lib;              // --nccl-lib: searched first
  bool load_libraries = true;        // dlopen NCCL candidates to ask their version
};

EnvSnapshot ProbeEnvironment(const EnvProbeOptions& options);

// Whether an environment variable is kept in the snapshot (NCCL_*, TORCH_NCCL_*, CUDA_*, OMP_*,
// rank and launcher variables, loader paths). Others (secrets, PATH, ...) are never stored.
bool KeepVariable(std::string_view name);

// "Max locked memory  65536  65536  bytes" in /proc/self/limits -> soft, hard (kUnlimited).
void ParseMemlock(std::string_view limits, EnvSnapshot& env);
// "/dev/shm tmpfs rw,...,size=65536k" in /proc/mounts -> bytes.
std::optional<uint64_t> ShmSizeFromMounts(std::string_view mounts);

// Python site-packages folders a job might import torch from (VIRTUAL_ENV, CONDA_PREFIX, the
// python3 on PATH, ~/.local, /usr/local, /usr, /opt/conda, /usr/lib/python3/dist-packages), under
// the root.
std::vector<std::string> SitePackagesDirs(const SysRoot& root, const std::vector<EnvVar>& vars,
                                          const std::vector<std::string>& environ);

// The NCCL a pip-installed PyTorch loads from one site-packages folder: nvidia/nccl/lib (the
// nvidia-nccl wheels) and nvidia/cu*/lib (CUDA 13 wheels), in that order; empty when none.
std::vector<std::string> BundledNcclIn(const SysRoot& root, const std::string& site_packages);
// Every PyTorch-bundled libnccl.so.2 on the machine, SitePackagesDirs order: the one search used
// by the environment probe and by `commdx bench` (docs/bench-method.md, "Library").
std::vector<std::string> PytorchNcclCandidates(const SysRoot& root,
                                               const std::vector<std::string>& environ);

// Fills torch_version, cuda_runtime_version/_source from torch/version.py or CUDA's
// version.json (the PyTorch-bundled NCCL is NcclSearchOrder's to find).
void ProbePython(const SysRoot& root, const std::vector<std::string>& environ, EnvSnapshot& env);

// The libnccl.so.2 candidates in docs/bench-method.md's search order (NcclSearchOrder) with
// their versions.
void ProbeNcclLibraries(const EnvProbeOptions& options, EnvSnapshot& env);

}  // namespace commdx::probe
