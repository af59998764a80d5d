// The "env" section of a snapshot -> job.env.
#include <simdjson.h>

#include "ingest/snapshot/snapshot.h"
#include "ingest/snapshot/snapshot_fields.h"

namespace commdx::ingest {

using simdjson::dom::element;
using snapshot::Fields;

namespace {

// -1 stands for unlimited.
std::optional<uint64_t> Limit(Fields& f, const char* key) {
  auto v = f.OptInt(key);
  if (!v) return f.OptUint(key);
  if (*v < 0) return kUnlimited;
  return static_cast<uint64_t>(*v);
}

}  // namespace

void ReadSnapshotEnv(element e, const FileText& file, Job& job) {
  Fields f(e, file, job, "env");
  EnvSnapshot& env = job.env;
  env = EnvSnapshot{};
  env.captured = true;
  env.platform_checked = true;
  env.nccl_libs_checked = true;
  env.host = f.Str("host");
  for (element ve : f.Objects("vars")) {
    Fields v(ve, file, job, "env.vars[]");
    std::string name = v.Str("name");
    if (!name.empty()) env.vars.push_back({name, v.Str("value")});
  }
  env.shm_total_bytes = f.OptUint("shm_total_bytes");
  env.shm_free_bytes = f.OptUint("shm_free_bytes");
  env.shm_source = f.Str("shm_source");
  env.memlock_soft_bytes = Limit(f, "memlock_soft_bytes");
  env.memlock_hard_bytes = Limit(f, "memlock_hard_bytes");
  env.online_cpus = static_cast<int>(f.Int("online_cpus"));
  env.cpus_allowed = f.Str("cpus_allowed");
  env.in_container = f.Bool("in_container");
  for (element se : f.Objects("container_signs")) {
    Fields s(se, file, job, "env.container_signs[]");
    env.container_signs.push_back({s.Str("what"), s.Str("evidence")});
  }
  env.driver_version = f.Str("driver_version");
  env.cuda_driver_version = static_cast<int>(f.Int("cuda_driver_version"));
  env.cuda_runtime_version = f.Str("cuda_runtime_version");
  env.cuda_runtime_source = f.Str("cuda_runtime_source");
  env.torch_version = f.Str("torch_version");
  env.torch_path = f.Str("torch_path");
  for (element le : f.Objects("nccl_libs")) {
    Fields l(le, file, job, "env.nccl_libs[]");
    NcclLibrary lib;
    lib.path = l.Str("path");
    lib.origin = l.Str("origin");
    lib.version = l.Str("version");
    lib.error = l.Str("error");
    lib.chosen = l.Bool("chosen");
    env.nccl_libs.push_back(std::move(lib));
  }
  env.ib_present = f.Bool("ib_present");
  env.ib_devices = f.StrList("ib_devices");
  env.peermem_loaded = f.OptBool("peermem_loaded");
  env.peermem_module = f.Str("peermem_module");
  env.iommu_enabled = f.OptBool("iommu_enabled");
  env.iommu_mode = f.Str("iommu_mode");
  env.kernel_iommu_args = f.Str("kernel_iommu_args");
}

}  // namespace commdx::ingest
