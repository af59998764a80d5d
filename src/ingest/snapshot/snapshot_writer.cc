#include <ctime>
#include <fstream>

#include "base/json_writer.h"
#include "ingest/snapshot/snapshot.h"

namespace commdx::ingest {

namespace {

template <class T>
void OptInt(JsonWriter& w, const char* key, const std::optional<T>& v) {
  w.Key(key);
  if (v)
    w.Int(static_cast<int64_t>(*v));
  else
    w.Null();
}

void OptUint(JsonWriter& w, const char* key, const std::optional<uint64_t>& v) {
  w.Key(key);
  if (v)
    w.Uint(*v);
  else
    w.Null();
}

void OptBool(JsonWriter& w, const char* key, const std::optional<bool>& v) {
  w.Key(key);
  if (v)
    w.Bool(*v);
  else
    w.Null();
}

void Str(JsonWriter& w, const char* key, const std::string& v) { w.Key(key).String(v); }

void StrList(JsonWriter& w, const char* key, const std::vector<std::string>& v) {
  w.Key(key).BeginArray();
  for (const auto& s : v) w.String(s);
  w.EndArray();
}

void WriteGpu(JsonWriter& w, const Gpu& g) {
  w.BeginObject();
  w.Key("index").Int(g.index);
  Str(w, "name", g.name);
  Str(w, "uuid", g.uuid);
  Str(w, "bus_id", g.bus_id);
  OptInt(w, "numa_node", g.numa_node);
  Str(w, "cpu_affinity", g.cpu_affinity);
  w.Key("pcie").BeginObject();
  w.Key("cur_gen").Int(g.pcie.cur_gen).Key("max_gen").Int(g.pcie.max_gen);
  w.Key("cur_width").Int(g.pcie.cur_width).Key("max_width").Int(g.pcie.max_width);
  w.EndObject();
  OptBool(w, "mig_enabled", g.mig_enabled);
  OptBool(w, "ecc_enabled", g.ecc_enabled);
  OptBool(w, "persistence_mode", g.persistence_mode);
  Str(w, "compute_mode", g.compute_mode);
  OptUint(w, "clock_event_reasons", g.clock_event_reasons);
  w.Key("nvlinks").BeginArray();
  for (const auto& l : g.nvlinks) {
    w.BeginObject();
    w.Key("link").Int(l.link);
    OptBool(w, "active", l.active);
    w.Key("version").Int(l.version);
    Str(w, "remote_bus_id", l.remote_bus_id);
    w.Key("remote_is_switch").Bool(l.remote_is_switch);
    w.Key("speed_gbps").Double(l.speed_gbps, 3);
    OptUint(w, "replay_errors", l.replay_errors);
    OptUint(w, "recovery_errors", l.recovery_errors);
    OptUint(w, "crc_flit_errors", l.crc_flit_errors);
    OptUint(w, "crc_data_errors", l.crc_data_errors);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WritePair(JsonWriter& w, const GpuPair& p) {
  w.BeginObject();
  w.Key("a").Int(p.a).Key("b").Int(p.b);
  Str(w, "path", PathTypeName(p.path));
  Str(w, "pcie_path", PathTypeName(p.pcie_path));
  w.Key("nvlinks").Int(p.nvlinks);
  Str(w, "p2p_read", P2PStatusCode(p.p2p_read));
  Str(w, "p2p_write", P2PStatusCode(p.p2p_write));
  Str(w, "p2p_nvlink", P2PStatusCode(p.p2p_nvlink));
  Str(w, "p2p_atomics", P2PStatusCode(p.p2p_atomics));
  Str(w, "p2p_pci", P2PStatusCode(p.p2p_pci));
  StrList(w, "bridges", p.bridges);
  w.EndObject();
}

void WriteNic(JsonWriter& w, const Nic& n) {
  w.BeginObject();
  Str(w, "name", n.name);
  Str(w, "legend", n.legend);
  Str(w, "kind", NicKindName(n.kind));
  Str(w, "bus_id", n.bus_id);
  OptInt(w, "numa_node", n.numa_node);
  StrList(w, "netdevs", n.netdevs);
  w.Key("rate_gbit").Double(n.rate_gbit, 1);
  Str(w, "state", n.state);
  w.Key("gpu_paths").BeginArray();
  for (PathType p : n.gpu_paths) w.String(PathTypeName(p));
  w.EndArray();
  w.EndObject();
}

void WriteTopology(JsonWriter& w, const Topology& t) {
  w.BeginObject();
  Str(w, "source", t.source);
  Str(w, "host", t.host);
  Str(w, "gpu_source", t.gpu_source);
  Str(w, "nvml_error", t.nvml_error);
  Str(w, "driver_version", t.driver_version);
  w.Key("cuda_driver_version").Int(t.cuda_driver_version);
  Str(w, "cpu_vendor", t.cpu_vendor);
  Str(w, "cpu_model", t.cpu_model);
  w.Key("online_cpus").Int(t.online_cpus);
  w.Key("gpus").BeginArray();
  for (const auto& g : t.gpus) WriteGpu(w, g);
  w.EndArray();
  w.Key("pairs").BeginArray();
  for (const auto& p : t.pairs) WritePair(w, p);
  w.EndArray();
  w.Key("nics").BeginArray();
  for (const auto& n : t.nics) WriteNic(w, n);
  w.EndArray();
  w.Key("numa").BeginArray();
  for (const auto& n : t.numa)
    w.BeginObject()
        .Key("id")
        .Int(n.id)
        .Key("cpulist")
        .String(n.cpulist)
        .Key("mem_total_bytes")
        .Uint(n.mem_total_bytes)
        .EndObject();
  w.EndArray();
  w.Key("bridges").BeginArray();
  for (const auto& b : t.bridges)
    w.BeginObject()
        .Key("bus_id")
        .String(b.bus_id)
        .Key("config_readable")
        .Bool(b.config_readable)
        .Key("has_acs")
        .Bool(b.has_acs)
        .Key("acs_ctrl")
        .Int(b.acs_ctrl)
        .EndObject();
  w.EndArray();
  w.Key("processes_read").Bool(t.processes_read);
  w.Key("processes").BeginArray();
  for (const auto& p : t.processes) {
    w.BeginObject();
    w.Key("pid").Int(p.pid).Key("gpu_index").Int(p.gpu_index);
    Str(w, "name", p.name);
    w.Key("used_memory_bytes").Uint(p.used_memory_bytes);
    w.Key("proc_visible").Bool(p.proc_visible);
    Str(w, "cpus_allowed", p.cpus_allowed);
    Str(w, "mems_allowed", p.mems_allowed);
    OptInt(w, "rank", p.rank);
    OptInt(w, "local_rank", p.local_rank);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteEnv(JsonWriter& w, const EnvSnapshot& e) {
  w.BeginObject();
  Str(w, "host", e.host);
  w.Key("vars").BeginArray();
  for (const auto& v : e.vars)
    w.BeginObject().Key("name").String(v.name).Key("value").String(v.value).EndObject();
  w.EndArray();
  OptUint(w, "shm_total_bytes", e.shm_total_bytes);
  OptUint(w, "shm_free_bytes", e.shm_free_bytes);
  Str(w, "shm_source", e.shm_source);
  // kUnlimited is written as -1 (JSON readers differ on integers above 2^53).
  auto limit = [&](const char* key, const std::optional<uint64_t>& v) {
    w.Key(key);
    if (!v)
      w.Null();
    else if (*v == kUnlimited)
      w.Int(-1);
    else
      w.Uint(*v);
  };
  limit("memlock_soft_bytes", e.memlock_soft_bytes);
  limit("memlock_hard_bytes", e.memlock_hard_bytes);
  w.Key("online_cpus").Int(e.online_cpus);
  Str(w, "cpus_allowed", e.cpus_allowed);
  w.Key("in_container").Bool(e.in_container);
  w.Key("container_signs").BeginArray();
  for (const auto& s : e.container_signs)
    w.BeginObject().Key("what").String(s.what).Key("evidence").String(s.evidence).EndObject();
  w.EndArray();
  Str(w, "driver_version", e.driver_version);
  w.Key("cuda_driver_version").Int(e.cuda_driver_version);
  Str(w, "cuda_runtime_version", e.cuda_runtime_version);
  Str(w, "cuda_runtime_source", e.cuda_runtime_source);
  Str(w, "torch_version", e.torch_version);
  Str(w, "torch_path", e.torch_path);
  w.Key("nccl_libs").BeginArray();
  for (const auto& l : e.nccl_libs)
    w.BeginObject()
        .Key("path")
        .String(l.path)
        .Key("origin")
        .String(l.origin)
        .Key("version")
        .String(l.version)
        .Key("error")
        .String(l.error)
        .Key("chosen")
        .Bool(l.chosen)
        .EndObject();
  w.EndArray();
  w.Key("ib_present").Bool(e.ib_present);
  StrList(w, "ib_devices", e.ib_devices);
  OptBool(w, "peermem_loaded", e.peermem_loaded);
  Str(w, "peermem_module", e.peermem_module);
  OptBool(w, "iommu_enabled", e.iommu_enabled);
  Str(w, "iommu_mode", e.iommu_mode);
  Str(w, "kernel_iommu_args", e.kernel_iommu_args);
  w.EndObject();
}

}  // namespace

std::string WriteSnapshot(const SnapshotMeta& meta, const Topology* topo, const EnvSnapshot* env) {
  JsonWriter w(1);
  w.BeginObject();
  w.Key("commdx_snapshot").Int(kSnapshotSchema);
  Str(w, "tool_version", meta.tool_version);
  Str(w, "host", meta.host);
  w.Key("created_unix_s").Int(meta.created_unix_s);
  if (topo) {
    w.Key("topology");
    WriteTopology(w, *topo);
  }
  if (env) {
    w.Key("env");
    WriteEnv(w, *env);
  }
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace commdx::ingest

namespace commdx::ingest {

Status WriteSnapshotFile(const std::string& path, const Topology* topo, const EnvSnapshot* env) {
  SnapshotMeta meta;
  meta.tool_version = COMMDX_VERSION;
  meta.host = topo && !topo->host.empty() ? topo->host : (env ? env->host : "");
  meta.created_unix_s = static_cast<int64_t>(std::time(nullptr));
  std::ofstream out(path, std::ios::binary);
  out << WriteSnapshot(meta, topo, env);
  out.close();
  if (!out) return MakeError(ErrorCode::kUsage, "cannot write the snapshot", {path});
  return Ok{};
}

}  // namespace commdx::ingest
