// Where a process looks for libnccl.so.2, in order (docs/bench-method.md, "Library"): the one
// search `commdx bench` loads from and `commdx env` reports, so the two never disagree.
#pragma once

#include <string>
#include <vector>

#include "model/environment.h"
#include "probe/sysfs.h"

namespace commdx::probe {

struct NcclCandidate {
  std::string path;  // a file, or "libnccl.so.2" for the loader
  NcclOrigin origin;
};

// --nccl-lib (`explicit_path`, a file or a folder holding libnccl.so.2), $COMMDX_NCCL_LIB from
// `environ` (likewise), the loader, then every PyTorch-bundled NCCL (PytorchNcclCandidates).
// `commdx bench` with --nccl-lib tries only the first; `commdx env` lists them all.
std::vector<NcclCandidate> NcclSearchOrder(const SysRoot& root, const std::string& explicit_path,
                                           const std::vector<std::string>& environ);

}  // namespace commdx::probe
