// env.shm_small and env.memlock: limits containers set low by default.
//
// NCCL's SHM transport and its proxy keep buffers in /dev/shm; Docker's default is 64 MiB, and
// NCCL then fails with "unable to allocate shared memory" or "Bus error" as channels grow.
// RDMA (InfiniBand/RoCE) registers memory, which the locked-memory limit caps.
#include "analysis/catalogue.h"
#include "analysis/env_analyzers.h"
#include "analysis/topo_common.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kShmMinBytes = 1024 * kMiB;     // below this, NCCL runs out with 8 GPUs
constexpr uint64_t kShmFreeMinBytes = 256 * kMiB;  // nearly full: leftovers of crashed jobs?
constexpr uint64_t kMemlockMinBytes = 64 * 1024 * kMiB;

std::string Size(uint64_t b) {
  return b == kUnlimited ? "unlimited" : FormatBytes(static_cast<double>(b));
}

}  // namespace

std::vector<Finding> FindEnvLimits(const Job& job, const Options&) {
  const EnvSnapshot& e = job.env;
  if (!e.captured) return {};
  std::vector<Finding> out;
  if (e.shm_total_bytes && (*e.shm_total_bytes < kShmMinBytes ||
                            (e.shm_free_bytes && *e.shm_free_bytes < kShmFreeMinBytes))) {
    bool small = *e.shm_total_bytes < kShmMinBytes;
    Finding f = NewFinding("env.shm_small");
    f.severity = small ? Severity::kError : Severity::kWarning;
    f.title = small ? "/dev/shm is only " + Size(*e.shm_total_bytes) +
                          ": NCCL's shared-memory buffers will not fit"
                    : "/dev/shm has only " + Size(*e.shm_free_bytes) + " free of " +
                          Size(*e.shm_total_bytes);
    f.detail =
        "NCCL keeps SHM-transport and proxy buffers in /dev/shm (tens to hundreds of MiB per "
        "process with 8 GPUs). Too little fails with 'unable to allocate shared memory' or a "
        "Bus error. Docker's default is 64 MiB." +
        std::string(e.in_container ? " This process runs in a container." : "");
    f.metrics.push_back({"shm_size", static_cast<double>(*e.shm_total_bytes), Unit::kBytes});
    if (e.shm_free_bytes)
      f.metrics.push_back({"shm_free", static_cast<double>(*e.shm_free_bytes), Unit::kBytes});
    f.refs.push_back(Ref({}, e.shm_source + ": /dev/shm " + Size(*e.shm_total_bytes)));
    f.fix = small ? "Run the container with --ipc=host or --shm-size=16g (Kubernetes: an emptyDir "
                    "with medium: Memory mounted at /dev/shm)."
                  : "Remove leftover files in /dev/shm (nccl-*, torch_*) from crashed jobs.";
    out.push_back(std::move(f));
  }
  bool rdma = e.ib_present;
  if (rdma && e.memlock_soft_bytes && *e.memlock_soft_bytes != kUnlimited &&
      *e.memlock_soft_bytes < kMemlockMinBytes) {
    Finding f = NewFinding("env.memlock");
    f.severity = Severity::kWarning;
    f.title = "Locked-memory limit is " + Size(*e.memlock_soft_bytes) + " with InfiniBand present";
    f.detail =
        "RDMA registers (pins) communication buffers; a low RLIMIT_MEMLOCK makes NCCL's IB "
        "transport fail ('ibv_reg_mr failed') or fall back to sockets.";
    f.metrics.push_back({"memlock_soft", static_cast<double>(*e.memlock_soft_bytes), Unit::kBytes});
    f.refs.push_back(Ref({}, "/proc/self/limits: Max locked memory " + Size(*e.memlock_soft_bytes) +
                                 " (hard " + Size(e.memlock_hard_bytes.value_or(0)) + ")"));
    f.fix =
        "Set `ulimit -l unlimited` (limits.conf memlock, docker --ulimit memlock=-1:-1, Slurm "
        "PropagateResourceLimits).";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
