// Reads a snapshot written by snapshot_writer.cc back into job.topo and job.env.
#include <simdjson.h>

#include "base/text.h"
#include "ingest/snapshot/snapshot.h"
#include "ingest/snapshot/snapshot_fields.h"

namespace commdx::ingest {

namespace {

using simdjson::dom::element;
using snapshot::Fields;

PathType PathFrom(const std::string& s) {
  if (s == "NV") return PathType::kNvLink;
  return ParsePathType(s).value_or(PathType::kUnknown);
}

P2PStatus P2PFrom(const std::string& s) {
  return ParseP2PStatusCode(s).value_or(P2PStatus::kUnknown);
}

NicKind NicKindFrom(const std::string& s) {
  for (NicKind k : {NicKind::kInfiniband, NicKind::kRoce, NicKind::kEthernet})
    if (s == NicKindName(k)) return k;
  return NicKind::kUnknown;
}

Gpu ReadGpu(element e, const FileText& file, Job& job) {
  Fields f(e, file, job, "topology.gpus[]");
  Gpu g;
  g.index = static_cast<int>(f.Int("index", -1));
  g.name = f.Str("name");
  g.uuid = f.Str("uuid");
  g.bus_id = f.Str("bus_id");
  if (auto n = f.OptInt("numa_node")) g.numa_node = static_cast<int>(*n);
  g.cpu_affinity = f.Str("cpu_affinity");
  element pcie;
  if (e["pcie"].get(pcie) == simdjson::SUCCESS) {
    Fields p(pcie, file, job, "topology.gpus[].pcie");
    g.pcie.cur_gen = static_cast<int>(p.Int("cur_gen"));
    g.pcie.max_gen = static_cast<int>(p.Int("max_gen"));
    g.pcie.cur_width = static_cast<int>(p.Int("cur_width"));
    g.pcie.max_width = static_cast<int>(p.Int("max_width"));
  }
  g.mig_enabled = f.OptBool("mig_enabled");
  g.ecc_enabled = f.OptBool("ecc_enabled");
  g.persistence_mode = f.OptBool("persistence_mode");
  g.compute_mode = f.Str("compute_mode");
  g.clock_event_reasons = f.OptUint("clock_event_reasons");
  for (element le : f.Objects("nvlinks")) {
    Fields l(le, file, job, "topology.gpus[].nvlinks[]");
    NvLinkState s;
    s.link = static_cast<int>(l.Int("link"));
    s.active = l.OptBool("active");
    s.version = static_cast<int>(l.Int("version"));
    s.remote_bus_id = l.Str("remote_bus_id");
    s.remote_is_switch = l.Bool("remote_is_switch");
    s.speed_gbps = l.Double("speed_gbps");
    s.replay_errors = l.OptUint("replay_errors");
    s.recovery_errors = l.OptUint("recovery_errors");
    s.crc_flit_errors = l.OptUint("crc_flit_errors");
    s.crc_data_errors = l.OptUint("crc_data_errors");
    g.nvlinks.push_back(s);
  }
  g.loc = {file.path};
  return g;
}

void ReadTopology(element t, const FileText& file, Job& job) {
  Fields f(t, file, job, "topology");
  Topology& topo = job.topo;
  topo.source = "snapshot";
  topo.host = f.Str("host");
  topo.gpu_source = f.Str("gpu_source");
  topo.nvml_error = f.Str("nvml_error");
  topo.driver_version = f.Str("driver_version");
  topo.cuda_driver_version = static_cast<int>(f.Int("cuda_driver_version"));
  topo.cpu_vendor = f.Str("cpu_vendor");
  topo.cpu_model = f.Str("cpu_model");
  topo.online_cpus = static_cast<int>(f.Int("online_cpus"));
  for (element g : f.Objects("gpus")) topo.gpus.push_back(ReadGpu(g, file, job));
  for (element pe : f.Objects("pairs")) {
    Fields p(pe, file, job, "topology.pairs[]");
    GpuPair& pair = topo.PairAt(static_cast<int>(p.Int("a")), static_cast<int>(p.Int("b")));
    pair.path = PathFrom(p.Str("path"));
    pair.pcie_path = PathFrom(p.Str("pcie_path"));
    pair.nvlinks = static_cast<int>(p.Int("nvlinks"));
    pair.p2p_read = P2PFrom(p.Str("p2p_read"));
    pair.p2p_write = P2PFrom(p.Str("p2p_write"));
    pair.p2p_nvlink = P2PFrom(p.Str("p2p_nvlink"));
    pair.p2p_atomics = P2PFrom(p.Str("p2p_atomics"));
    pair.p2p_pci = P2PFrom(p.Str("p2p_pci"));
    pair.bridges = p.StrList("bridges");
    pair.loc = {file.path};
  }
  for (element ne : f.Objects("nics")) {
    Fields n(ne, file, job, "topology.nics[]");
    Nic nic;
    nic.name = n.Str("name");
    nic.legend = n.Str("legend");
    nic.kind = NicKindFrom(n.Str("kind"));
    nic.bus_id = n.Str("bus_id");
    if (auto v = n.OptInt("numa_node")) nic.numa_node = static_cast<int>(*v);
    nic.netdevs = n.StrList("netdevs");
    nic.rate_gbit = n.Double("rate_gbit");
    nic.state = n.Str("state");
    for (const auto& p : n.StrList("gpu_paths")) nic.gpu_paths.push_back(PathFrom(p));
    nic.loc = {file.path};
    topo.nics.push_back(std::move(nic));
  }
  for (element ne : f.Objects("numa")) {
    Fields n(ne, file, job, "topology.numa[]");
    topo.numa.push_back({static_cast<int>(n.Int("id")), n.Str("cpulist"),
                         n.OptUint("mem_total_bytes").value_or(0)});
  }
  for (element be : f.Objects("bridges")) {
    Fields b(be, file, job, "topology.bridges[]");
    PciBridge br;
    br.bus_id = b.Str("bus_id");
    br.config_readable = b.Bool("config_readable");
    br.has_acs = b.Bool("has_acs");
    br.acs_ctrl = static_cast<uint16_t>(b.Int("acs_ctrl"));
    topo.bridges.push_back(std::move(br));
  }
  topo.processes_read = f.Bool("processes_read");
  for (element pe : f.Objects("processes")) {
    Fields p(pe, file, job, "topology.processes[]");
    GpuProcess proc;
    proc.pid = p.Int("pid");
    proc.gpu_index = static_cast<int>(p.Int("gpu_index", -1));
    proc.name = p.Str("name");
    proc.used_memory_bytes = p.OptUint("used_memory_bytes").value_or(0);
    proc.proc_visible = p.Bool("proc_visible");
    proc.cpus_allowed = p.Str("cpus_allowed");
    proc.mems_allowed = p.Str("mems_allowed");
    if (auto r = p.OptInt("rank")) proc.rank = static_cast<int>(*r);
    if (auto r = p.OptInt("local_rank")) proc.local_rank = static_cast<int>(*r);
    topo.processes.push_back(std::move(proc));
  }
}

// The same node: same host name and the same GPUs (by UUID where known, else by bus id).
bool SameMachine(const Topology& a, const Topology& b) {
  if (a.host != b.host || a.gpus.size() != b.gpus.size()) return false;
  for (size_t i = 0; i < a.gpus.size(); ++i) {
    const auto &ga = a.gpus[i], &gb = b.gpus[i];
    if (!ga.uuid.empty() && !gb.uuid.empty() ? ga.uuid != gb.uuid : ga.bus_id != gb.bus_id)
      return false;
  }
  return true;
}

}  // namespace

void ReadSnapshotEnv(element e, const FileText& file, Job& job);  // snapshot_env.cc

bool SniffSnapshot(std::string_view head) {
  size_t brace = head.find_first_not_of(" \t\r\n");
  return brace != head.npos && head[brace] == '{' &&
         Contains(head.substr(0, 256), "\"commdx_snapshot\"");
}

Status ParseSnapshot(const FileText& file, Job& job) {
  simdjson::dom::parser parser;
  element doc;
  if (auto err = parser.parse(file.data).get(doc); err != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput,
                     std::string("not a readable commdx snapshot: ") + simdjson::error_message(err),
                     {file.path});
  int64_t schema = 0;
  if (doc["commdx_snapshot"].get(schema) != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput, "missing \"commdx_snapshot\" schema number",
                     {file.path});
  if (schema > kSnapshotSchema)
    job.quality.Add("snapshot.newer_schema", DiagSeverity::kNote,
                    "snapshot schema " + std::to_string(schema) +
                        " is newer than this commdx reads (" + std::to_string(kSnapshotSchema) +
                        "); unknown keys ignored",
                    {file.path});
  element section;
  if (doc["topology"].get(section) == simdjson::SUCCESS &&
      section.type() == simdjson::dom::element_type::OBJECT) {
    Topology before = std::move(job.topo);
    job.topo = Topology{};
    ReadTopology(section, file, job);
    // `topo --save` and `env --save` of one node both carry its topology: only another machine's
    // topology replacing the first is worth a warning.
    if (!before.empty() && !SameMachine(before, job.topo))
      job.quality.Add("snapshot.topology_replaced", DiagSeverity::kWarning,
                      "a second machine's topology (host '" + job.topo.host + "', " +
                          std::to_string(job.topo.gpus.size()) +
                          " GPUs) replaces the one read before (host '" + before.host + "', " +
                          std::to_string(before.gpus.size()) + " GPUs)",
                      {file.path});
    job.topo.files.insert(job.topo.files.begin(), before.files.begin(), before.files.end());
    job.topo.files.push_back(file.path);
  }
  if (doc["env"].get(section) == simdjson::SUCCESS &&
      section.type() == simdjson::dom::element_type::OBJECT)
    ReadSnapshotEnv(section, file, job);
  return Ok{};
}

}  // namespace commdx::ingest
