// The snapshot schema, written once: each function lists the keys of one JSON object in the order
// they are written, and is run by the writer (snapshot_writer.cc, `const` model objects) and by the
// reader (snapshot_importer.cc, objects to fill). A visitor `V` provides:
//   v.Field(key, x)                        string, bool, integers, optional<int|uint64|bool>
//   v.Double(key, x, decimals)             a double written with `decimals` places
//   v.Limit(key, x)                        optional<uint64_t>; kUnlimited written as -1
//   v.Enum(key, x, name, parse)            an enum written as name(x), read as parse(string)
//   v.EnumList(key, xs, name, parse)       a vector of such enums
//   v.Object(key, where, x, schema)        a nested object
//   v.Objects(key, where, xs, schema)      an array of objects
// `where` names the object in the reader's input-quality notes ("topology.gpus[]").
#pragma once

#include <optional>
#include <string>

#include "model/environment.h"
#include "model/topology.h"

namespace commdx::ingest::snapshot {

PathType PathFrom(const std::string& s);
P2PStatus P2PFrom(const std::string& s);
NicKind NicKindFrom(const std::string& s);
NcclOrigin NcclOriginFrom(const std::string& s);
NcclPluginKind NcclPluginKindFrom(const std::string& s);
TopoSource TopoSourceFrom(const std::string& s);
inline std::string P2PName(P2PStatus s) { return P2PStatusCode(s); }

template <class V, class T>
void PcieSchema(V& v, T& p) {
  v.Field("cur_gen", p.cur_gen);
  v.Field("max_gen", p.max_gen);
  v.Field("cur_width", p.cur_width);
  v.Field("max_width", p.max_width);
}

template <class V, class T>
void NvLinkSchema(V& v, T& l) {
  v.Field("link", l.link);
  v.Field("active", l.active);
  v.Field("version", l.version);
  v.Field("remote_bus_id", l.remote_bus_id);
  v.Field("remote_is_switch", l.remote_is_switch);
  v.Double("speed_gbps", l.speed_gbps, 3);
  v.Field("replay_errors", l.replay_errors);
  v.Field("recovery_errors", l.recovery_errors);
  v.Field("crc_flit_errors", l.crc_flit_errors);
  v.Field("crc_data_errors", l.crc_data_errors);
}

template <class V, class T>
void GpuSchema(V& v, T& g) {
  v.Field("index", g.index);
  v.Field("name", g.name);
  v.Field("uuid", g.uuid);
  v.Field("bus_id", g.bus_id);
  v.Field("numa_node", g.numa_node);
  v.Field("cpu_affinity", g.cpu_affinity);
  v.Object("pcie", "topology.gpus[].pcie", g.pcie, [](auto& w, auto& x) { PcieSchema(w, x); });
  v.Field("mig_enabled", g.mig_enabled);
  v.Field("ecc_enabled", g.ecc_enabled);
  v.Field("persistence_mode", g.persistence_mode);
  v.Field("compute_mode", g.compute_mode);
  v.Field("clock_event_reasons", g.clock_event_reasons);
  v.Objects("nvlinks", "topology.gpus[].nvlinks[]", g.nvlinks,
            [](auto& w, auto& x) { NvLinkSchema(w, x); });
}

template <class V, class T>
void PairSchema(V& v, T& p) {
  v.Field("a", p.a);
  v.Field("b", p.b);
  v.Enum("path", p.path, PathTypeName, PathFrom);
  v.Enum("pcie_path", p.pcie_path, PathTypeName, PathFrom);
  v.Field("nvlinks", p.nvlinks);
  v.Enum("p2p_read", p.p2p_read, P2PName, P2PFrom);
  v.Enum("p2p_write", p.p2p_write, P2PName, P2PFrom);
  v.Enum("p2p_nvlink", p.p2p_nvlink, P2PName, P2PFrom);
  v.Enum("p2p_atomics", p.p2p_atomics, P2PName, P2PFrom);
  v.Enum("p2p_pci", p.p2p_pci, P2PName, P2PFrom);
  v.Field("bridges", p.bridges);
}

template <class V, class T>
void NicSchema(V& v, T& n) {
  v.Field("name", n.name);
  v.Field("legend", n.legend);
  v.Enum("kind", n.kind, NicKindName, NicKindFrom);
  v.Field("bus_id", n.bus_id);
  v.Field("numa_node", n.numa_node);
  v.Field("netdevs", n.netdevs);
  v.Double("rate_gbit", n.rate_gbit, 1);
  v.Field("state", n.state);
  v.EnumList("gpu_paths", n.gpu_paths, PathTypeName, PathFrom);
}

template <class V, class T>
void NumaSchema(V& v, T& n) {
  v.Field("id", n.id);
  v.Field("cpulist", n.cpulist);
  v.Field("mem_total_bytes", n.mem_total_bytes);
}

template <class V, class T>
void BridgeSchema(V& v, T& b) {
  v.Field("bus_id", b.bus_id);
  v.Field("config_readable", b.config_readable);
  v.Field("has_acs", b.has_acs);
  v.Field("acs_ctrl", b.acs_ctrl);
}

template <class V, class T>
void ProcessSchema(V& v, T& p) {
  v.Field("pid", p.pid);
  v.Field("gpu_index", p.gpu_index);
  v.Field("name", p.name);
  v.Field("used_memory_bytes", p.used_memory_bytes);
  v.Field("proc_visible", p.proc_visible);
  v.Field("cpus_allowed", p.cpus_allowed);
  v.Field("mems_allowed", p.mems_allowed);
  v.Field("rank", p.rank);
  v.Field("local_rank", p.local_rank);
}

// The "topology" section. The reader replaces "source" with "snapshot" and files pairs by PairAt.
template <class V, class T>
void TopologySchema(V& v, T& t) {
  v.Enum("source", t.source, TopoSourceName, TopoSourceFrom);
  v.Field("host", t.host);
  v.Field("gpu_source", t.gpu_source);
  v.Field("nvml_error", t.nvml_error);
  v.Field("driver_version", t.driver_version);
  v.Field("cuda_driver_version", t.cuda_driver_version);
  v.Field("cpu_vendor", t.cpu_vendor);
  v.Field("cpu_model", t.cpu_model);
  v.Field("online_cpus", t.online_cpus);
  v.Objects("gpus", "topology.gpus[]", t.gpus, [](auto& w, auto& x) { GpuSchema(w, x); });
  v.Objects("pairs", "topology.pairs[]", t.pairs, [](auto& w, auto& x) { PairSchema(w, x); });
  v.Objects("nics", "topology.nics[]", t.nics, [](auto& w, auto& x) { NicSchema(w, x); });
  v.Objects("numa", "topology.numa[]", t.numa, [](auto& w, auto& x) { NumaSchema(w, x); });
  v.Objects("bridges", "topology.bridges[]", t.bridges,
            [](auto& w, auto& x) { BridgeSchema(w, x); });
  v.Field("processes_read", t.processes_read);
  v.Objects("processes", "topology.processes[]", t.processes,
            [](auto& w, auto& x) { ProcessSchema(w, x); });
}

template <class V, class T>
void NcclLibSchema(V& v, T& l) {
  v.Field("path", l.path);
  v.Enum("origin", l.origin, NcclOriginName, NcclOriginFrom);
  v.Field("version", l.version);
  v.Field("error", l.error);
  v.Field("chosen", l.chosen);
}

template <class V, class T>
void NcclPluginSchema(V& v, T& p) {
  v.Field("path", p.path);
  v.Enum("kind", p.kind, NcclPluginKindName, NcclPluginKindFrom);
}

// The "env" section. The reader drops variables without a name.
template <class V, class T>
void EnvSchema(V& v, T& e) {
  v.Field("host", e.host);
  v.Objects("vars", "env.vars[]", e.vars, [](auto& w, auto& x) {
    w.Field("name", x.name);
    w.Field("value", x.value);
  });
  v.Field("shm_total_bytes", e.shm_total_bytes);
  v.Field("shm_free_bytes", e.shm_free_bytes);
  v.Field("shm_source", e.shm_source);
  v.Limit("memlock_soft_bytes", e.memlock_soft_bytes);
  v.Limit("memlock_hard_bytes", e.memlock_hard_bytes);
  v.Field("online_cpus", e.online_cpus);
  v.Field("cpus_allowed", e.cpus_allowed);
  v.Field("in_container", e.in_container);
  v.Objects("container_signs", "env.container_signs[]", e.container_signs, [](auto& w, auto& x) {
    w.Field("what", x.what);
    w.Field("evidence", x.evidence);
  });
  v.Field("driver_version", e.driver_version);
  v.Field("cuda_driver_version", e.cuda_driver_version);
  v.Field("cuda_runtime_version", e.cuda_runtime_version);
  v.Field("cuda_runtime_source", e.cuda_runtime_source);
  v.Field("torch_version", e.torch_version);
  v.Field("torch_path", e.torch_path);
  v.Objects("nccl_libs", "env.nccl_libs[]", e.nccl_libs,
            [](auto& w, auto& x) { NcclLibSchema(w, x); });
  v.Objects("nccl_plugins", "env.nccl_plugins[]", e.nccl_plugins,
            [](auto& w, auto& x) { NcclPluginSchema(w, x); });
  v.Field("ib_present", e.ib_present);
  v.Field("ib_devices", e.ib_devices);
  v.Field("peermem_loaded", e.peermem_loaded);
  v.Field("peermem_module", e.peermem_module);
  v.Field("iommu_enabled", e.iommu_enabled);
  v.Field("iommu_mode", e.iommu_mode);
  v.Field("kernel_iommu_args", e.kernel_iommu_args);
}

}  // namespace commdx::ingest::snapshot
