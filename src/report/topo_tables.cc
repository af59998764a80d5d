#include "report/topo_tables.h"

#include <algorithm>

#include "base/text.h"
#include "model/cuda_version.h"

namespace commdx::report {

namespace {

std::string OptText(const std::optional<bool>& v, const char* yes = "on", const char* no = "off") {
  return v ? (*v ? yes : no) : "-";
}

std::string Pcie(int gen, int width) {
  if (!gen && !width) return "-";
  return "Gen" + (gen ? std::to_string(gen) : std::string("?")) + " x" +
         (width ? std::to_string(width) : std::string("?"));
}

std::string PathCell(PathType p) { return p == PathType::kUnknown ? "-" : PathTypeName(p); }

void AddMachine(const Topology& t, const analysis::TopologyTableData& d, Report& r) {
  Table tab;
  tab.key = "machine";
  tab.title = "Machine";
  tab.columns = {"fact", "value"};
  tab.column_keys = {"fact", "value"};
  auto row = [&](const char* k, const std::string& v) {
    if (!v.empty()) tab.AddRow({k, v});
  };
  row("host", t.host);
  row("facts from",
      t.source == TopoSource::kLive
          ? (t.gpu_source == "nvml" ? std::string("this machine (NVML, sysfs, /proc)")
                                    : std::string("this machine (sysfs, /proc; no NVML)"))
          : TopoSourceName(t.source) +
                (t.files.empty() ? "" : ": " + std::to_string(t.files.size()) + " file(s)"));
  row("GPUs", std::to_string(t.gpus.size()) +
                  (t.gpus.empty() || t.gpus[0].name.empty() ? "" : " x " + t.gpus[0].name));
  if (!t.nvml_error.empty()) row("NVML", "not available: " + t.nvml_error);
  row("driver", t.driver_version);
  if (t.cuda_driver_version)
    row("CUDA (driver supports)", CudaVersionString(t.cuda_driver_version));
  row("CPU", t.cpu_model.empty() ? t.cpu_vendor : t.cpu_model);
  if (t.online_cpus) row("online CPUs", std::to_string(t.online_cpus));
  if (!t.numa.empty()) row("NUMA nodes", std::to_string(t.numa.size()));
  if (d.machine && d.machine->known) {
    const analysis::ExpectedBandwidth& e = *d.machine;
    row("expected all_reduce busbw", std::to_string(static_cast<int>(e.busbw_low_gbps)) + "-" +
                                         std::to_string(static_cast<int>(e.busbw_high_gbps)) +
                                         " GB/s (" + e.basis + ")");
  }
  r.tables.push_back(std::move(tab));
}

void AddGpus(const Topology& t, Report& r) {
  if (t.gpus.empty()) return;
  Table tab;
  tab.key = "gpus";
  tab.title = "GPUs";
  tab.columns = {"GPU",      "name",       "bus id", "NUMA", "CPU affinity", "PCIe now",
                 "PCIe max", "NVLinks up", "MIG",    "ECC",  "persist",      "clock events"};
  tab.column_keys = {"gpu",          "name",         "bus_id",      "numa_node",
                     "cpu_affinity", "pcie_current", "pcie_max",    "nvlinks_active",
                     "mig",          "ecc",          "persistence", "clock_events"};
  for (const auto& g : t.gpus) {
    std::string links = g.nvlinks.empty() ? "-"
                                          : std::to_string(g.ActiveNvLinks()) + "/" +
                                                std::to_string(g.nvlinks.size());
    tab.AddRow({Cell::Int(g.index), g.name.empty() ? "-" : g.name,
                g.bus_id.empty() ? "-" : g.bus_id,
                g.numa_node ? Cell::Int(*g.numa_node) : Cell("-"),
                g.cpu_affinity.empty() ? "-" : g.cpu_affinity,
                Pcie(g.pcie.cur_gen, g.pcie.cur_width), Pcie(g.pcie.max_gen, g.pcie.max_width),
                links, OptText(g.mig_enabled), OptText(g.ecc_enabled), OptText(g.persistence_mode),
                g.clock_event_reasons
                    ? (*g.clock_event_reasons ? ClockEventNames(*g.clock_event_reasons) : "none")
                    : "-"});
  }
  tab.note = "PCIe 'now' drops while a GPU idles (power saving); compare under load.";
  r.tables.push_back(std::move(tab));
}

void AddMatrix(const Topology& t, Report& r) {
  if (t.gpus.empty() || (t.gpus.size() < 2 && t.nics.empty())) return;
  Table tab;
  tab.key = "matrix";
  tab.title = "Connection matrix (as nvidia-smi topo -m)";
  tab.columns = {""};
  tab.column_keys = {"device"};
  std::vector<std::string> labels;
  for (const auto& g : t.gpus) labels.push_back("GPU" + std::to_string(g.index));
  for (size_t i = 0; i < t.nics.size(); ++i)
    labels.push_back(t.nics[i].legend.empty() ? "NIC" + std::to_string(i) : t.nics[i].legend);
  for (const auto& l : labels) {
    tab.columns.push_back(l);
    tab.column_keys.push_back(ToLower(l));
  }
  tab.columns.insert(tab.columns.end(), {"CPU affinity", "NUMA"});
  tab.column_keys.insert(tab.column_keys.end(), {"cpu_affinity", "numa_node"});
  size_t ng = t.gpus.size();
  for (size_t i = 0; i < labels.size(); ++i) {
    std::vector<Cell> row = {labels[i]};
    for (size_t j = 0; j < labels.size(); ++j) {
      if (i == j)
        row.push_back("X");
      else if (i < ng && j < ng)
        row.push_back(MatrixCell(t, t.gpus[i].index, t.gpus[j].index));
      else {
        const Nic& n = t.nics[(i < ng ? j : i) - ng];
        size_t g = i < ng ? i : j;
        bool gpu_nic = g < ng;
        int gi = gpu_nic ? t.gpus[g].index : -1;
        row.push_back(gpu_nic && gi >= 0 && static_cast<size_t>(gi) < n.gpu_paths.size()
                          ? PathCell(n.gpu_paths[gi])
                          : "-");
      }
    }
    if (i < ng) {
      row.push_back(t.gpus[i].cpu_affinity.empty() ? "-" : t.gpus[i].cpu_affinity);
      row.push_back(t.gpus[i].numa_node ? std::to_string(*t.gpus[i].numa_node) : "-");
    } else {
      const Nic& n = t.nics[i - ng];
      row.push_back("-");
      row.push_back(n.numa_node ? std::to_string(*n.numa_node) : "-");
    }
    tab.AddRow(std::move(row));
  }
  std::string legend;
  for (size_t i = 0; i < t.nics.size(); ++i)
    if (!t.nics[i].name.empty() && t.nics[i].name != labels[ng + i])
      legend += (legend.empty() ? "" : ", ") + labels[ng + i] + ": " + t.nics[i].name;
  tab.note =
      "X self, NV# bonded NVLinks, PIX one PCIe switch, PXB several, PHB host bridge, NODE across "
      "host bridges, SYS across sockets" +
      (legend.empty() ? std::string() : ". " + legend);
  r.tables.push_back(std::move(tab));
}

std::string Gbps(double v) { return v > 0 ? std::to_string(static_cast<int>(v + 0.5)) : "-"; }

void AddPairs(const Topology& t, const analysis::TopologyTableData& d, Report& r) {
  if (t.pairs.empty()) return;
  Table tab;
  tab.key = "pairs";
  tab.title = "GPU pairs: the path NCCL would take and what to expect";
  tab.columns = {"pair",      "link",           "P2P r/w/nvl/atom",
                 "NCCL path", "line rate GB/s", "NCCL model GB/s",
                 "busbw GB/s"};
  tab.column_keys = {"pair",      "link", "p2p", "nccl_path", "line_rate_gbps", "nccl_model_gbps",
                     "busbw_gbps"};
  for (size_t i = 0; i < t.pairs.size() && i < d.pairs.size(); ++i) {
    const GpuPair& p = t.pairs[i];
    const analysis::ExpectedBandwidth& e = d.pairs[i].expected;
    std::string p2p = std::string(P2PStatusCode(p.p2p_read)) + "/" + P2PStatusCode(p.p2p_write) +
                      "/" + P2PStatusCode(p.p2p_nvlink) + "/" + P2PStatusCode(p.p2p_atomics);
    std::string link = e.link.empty() ? MatrixCell(t, p.a, p.b) : e.link;
    if (p.nvlinks == 0 && p.path != PathType::kUnknown) link += " (" + PathCell(p.path) + ")";
    std::string busbw = e.known ? Gbps(e.busbw_low_gbps) + "-" + Gbps(e.busbw_high_gbps) : "-";
    tab.AddRow({"GPU" + std::to_string(p.a) + "-GPU" + std::to_string(p.b), link, p2p,
                d.pairs[i].nccl_path.empty() ? "-" : d.pairs[i].nccl_path,
                e.known ? Cell::Num(e.line_rate_gbps, 1) : Cell("-"),
                e.nccl_model_gbps > 0 ? Cell::Num(e.nccl_model_gbps, 1) : Cell("-"), busbw});
  }
  std::string undecided;
  for (size_t i = 0; i < t.pairs.size() && i < d.pairs.size() && undecided.empty(); ++i)
    if (d.pairs[i].expected.nccl_path == analysis::NcclPath::kP2POrShm)
      undecided = d.pairs[i].expected.nccl_path_why;
  tab.note =
      "Per direction. busbw: typical NCCL all_reduce bus bandwidth at large messages "
      "(docs/bench-method.md "
      "section 6); "
      "P2P: OK, CNS chipset / GNS GPU / TNS topology / NS not supported, DR disabled by regkey, U "
      "unknown." +
      (undecided.empty() ? std::string()
                         : " P2P or SHM: " + undecided + " (docs/findings/live.md).");
  r.tables.push_back(std::move(tab));
}

void AddNics(const Topology& t, Report& r) {
  if (t.nics.empty()) return;
  Table tab;
  tab.key = "nics";
  tab.title = "NICs";
  tab.columns = {"NIC", "kind", "bus id", "NUMA", "rate Gb/s", "state", "netdevs", "nearest GPUs"};
  tab.column_keys = {"nic",       "kind",  "bus_id",  "numa_node",
                     "rate_gbit", "state", "netdevs", "nearest_gpus"};
  for (const auto& n : t.nics) {
    PathType best = PathType::kUnknown;
    for (PathType p : n.gpu_paths)
      if (p != PathType::kUnknown && (best == PathType::kUnknown || p < best)) best = p;
    std::string near;
    for (size_t g = 0; g < n.gpu_paths.size(); ++g)
      if (best != PathType::kUnknown && n.gpu_paths[g] == best)
        near += (near.empty() ? "" : ",") + std::string("GPU") + std::to_string(g);
    if (!near.empty()) near += " (" + PathCell(best) + ")";
    std::string netdevs;
    for (const auto& d : n.netdevs) netdevs += (netdevs.empty() ? "" : ",") + d;
    tab.AddRow(
        {n.name.empty() ? n.legend : n.name, NicKindName(n.kind), n.bus_id.empty() ? "-" : n.bus_id,
         n.numa_node ? Cell::Int(*n.numa_node) : Cell("-"),
         n.rate_gbit > 0 ? Cell::Num(n.rate_gbit, 0) : Cell("-"), n.state.empty() ? "-" : n.state,
         netdevs.empty() ? "-" : netdevs, near.empty() ? "-" : near});
  }
  r.tables.push_back(std::move(tab));
}

void AddNuma(const Topology& t, Report& r) {
  if (t.numa.empty()) return;
  Table tab;
  tab.key = "numa";
  tab.title = "NUMA nodes";
  tab.columns = {"node", "CPUs", "memory", "GPUs"};
  tab.column_keys = {"node", "cpus", "mem_total_bytes", "gpus"};
  for (const auto& n : t.numa) {
    std::string gpus;
    for (const auto& g : t.gpus)
      if (g.numa_node == n.id) gpus += (gpus.empty() ? "" : ",") + std::to_string(g.index);
    Cell mem = Cell::Num(static_cast<double>(n.mem_total_bytes), 0);
    mem.text = FormatBytes(static_cast<double>(n.mem_total_bytes));
    tab.AddRow({Cell::Int(n.id), n.cpulist, mem, gpus.empty() ? "-" : gpus});
  }
  r.tables.push_back(std::move(tab));
}

void AddProcesses(const Topology& t, Report& r) {
  if (!t.processes_read) return;
  Table tab;
  tab.key = "gpu_processes";
  tab.title = "Processes on the GPUs (placement)";
  tab.columns = {"pid",      "name",         "rank",         "GPU",
                 "GPU NUMA", "CPUs allowed", "memory nodes", "GPU memory MiB"};
  tab.column_keys = {"pid",           "name",         "rank",         "gpu",
                     "gpu_numa_node", "cpus_allowed", "mems_allowed", "gpu_memory_mib"};
  for (const auto& p : t.processes) {
    const Gpu* g = t.FindGpu(p.gpu_index);
    tab.AddRow({Cell::Int(p.pid), p.name.empty() ? "-" : p.name,
                p.rank ? Cell::Int(*p.rank) : Cell("-"), Cell::Int(p.gpu_index),
                g && g->numa_node ? Cell::Int(*g->numa_node) : Cell("-"),
                p.proc_visible ? p.cpus_allowed : "(not visible here)",
                p.mems_allowed.empty() ? "-" : p.mems_allowed,
                Cell::Num(static_cast<double>(p.used_memory_bytes) / (1 << 20), 0)});
  }
  if (t.processes.empty())
    tab.note =
        "No process holds a GPU right now; run `commdx topo` while the job runs to audit "
        "placement.";
  r.tables.push_back(std::move(tab));
}

void AddBridges(const Topology& t, Report& r) {
  if (t.bridges.empty()) return;
  Table tab;
  tab.key = "pci_bridges";
  tab.title = "PCI bridges between GPUs and NICs (ACS)";
  tab.columns = {"bridge", "ACS control"};
  tab.column_keys = {"bus_id", "acs"};
  bool any_readable = false;
  for (const auto& b : t.bridges) {
    any_readable |= b.config_readable;
    tab.AddRow({b.bus_id, b.AcsText()});
  }
  if (!any_readable)
    tab.note = "Extended config space is readable only as root: ACS was not checked.";
  r.tables.push_back(std::move(tab));
}

}  // namespace

std::string MatrixCell(const Topology& topo, int a, int b) {
  if (a == b) return "X";
  const GpuPair* p = topo.FindPair(a, b);
  if (!p) return "-";
  if (p->nvlinks > 0) return "NV" + std::to_string(p->nvlinks);
  return PathCell(p->path);
}

void AddTopologyTables(const Job& job, const analysis::TopologyTableData& data, Report& report) {
  const Topology& t = job.topo;
  AddMachine(t, data, report);
  AddGpus(t, report);
  AddMatrix(t, report);
  AddPairs(t, data, report);
  AddNics(t, report);
  AddNuma(t, report);
  AddProcesses(t, report);
  AddBridges(t, report);
}

}  // namespace commdx::report

namespace commdx::report {

namespace {

std::string Bytes(const std::optional<uint64_t>& b) {
  if (!b) return "-";
  if (*b == kUnlimited) return "unlimited";
  return FormatBytes(static_cast<double>(*b));
}

}  // namespace

void AddEnvironmentTables(const Job& job, const std::vector<analysis::VariableRow>& variables,
                          Report& report) {
  const EnvSnapshot& e = job.env;
  Table facts;
  facts.key = "environment";
  facts.title = "Environment";
  facts.columns = {"fact", "value"};
  facts.column_keys = {"fact", "value"};
  auto row = [&](const char* k, const std::string& v) { facts.AddRow({k, v.empty() ? "-" : v}); };
  // A process's environment dump carries its variables, not the platform: say so rather than
  // print "no signs" or "none" for what was never looked at.
  const std::string kNotInInput = "not in this input (not checked)";
  auto platform = [&](const std::string& v) { return e.platform_checked ? v : kNotInInput; };
  row("host", e.host);
  std::string container = e.in_container ? "yes:" : "no signs";
  for (const auto& s : e.container_signs) container += " " + s.what + " (" + s.evidence + ");";
  row("container", platform(container));
  row("/dev/shm", platform(Bytes(e.shm_total_bytes) +
                           (e.shm_free_bytes ? ", " + Bytes(e.shm_free_bytes) + " free" : "") +
                           (e.shm_source.empty() ? "" : " [" + e.shm_source + "]")));
  row("locked memory (ulimit -l)",
      platform(Bytes(e.memlock_soft_bytes) + " (hard " + Bytes(e.memlock_hard_bytes) + ")"));
  std::string cpus = e.online_cpus > 0 ? std::to_string(e.online_cpus) + " online" : "";
  if (!e.cpus_allowed.empty())
    cpus += (cpus.empty() ? "" : ", ") + std::string("this process may use ") + e.cpus_allowed;
  row("CPUs", cpus.empty() ? kNotInInput : cpus);
  // NVML's answer when there is one (the /proc text differs between driver flavours).
  row("NVIDIA driver",
      job.topo.driver_version.empty() ? e.driver_version : job.topo.driver_version);
  int drv = e.cuda_driver_version ? e.cuda_driver_version : job.topo.cuda_driver_version;
  row("CUDA (driver supports)", CudaVersionString(drv));
  row("CUDA runtime", e.cuda_runtime_version.empty()
                          ? ""
                          : e.cuda_runtime_version + " (" + e.cuda_runtime_source + ")");
  row("PyTorch", e.torch_version.empty() ? "" : e.torch_version + " (" + e.torch_path + ")");
  std::string ib;
  for (const auto& d : e.ib_devices) ib += (ib.empty() ? "" : ", ") + d;
  row("RDMA devices", platform(ib.empty() ? "none" : ib));
  row("nvidia_peermem",
      e.peermem_loaded ? (*e.peermem_loaded ? "loaded (" + e.peermem_module + ")" : "not loaded")
                       : "");
  row("IOMMU", e.iommu_enabled
                   ? (*e.iommu_enabled
                          ? "on" + (e.iommu_mode.empty() ? "" : ", GPU group type " + e.iommu_mode)
                          : std::string("off")) +
                         (e.kernel_iommu_args.empty() ? "" : " [" + e.kernel_iommu_args + "]")
                   : "");
  report.tables.push_back(std::move(facts));

  Table libs;
  libs.key = "nccl_libraries";
  libs.title = "NCCL libraries (search order)";
  libs.columns = {"origin", "path", "version", "note"};
  libs.column_keys = {"origin", "path", "version", "note"};
  for (const auto& l : e.nccl_libs)
    libs.AddRow({NcclOriginName(l.origin), l.path.empty() ? "-" : l.path,
                 l.version.empty() ? "-" : l.version,
                 l.chosen
                     ? "dlopen(\"libnccl.so.2\") loads this"
                     : (l.origin == NcclOrigin::kPytorch ? "PyTorch jobs load this" : l.error)});
  for (const auto& p : e.nccl_plugins)
    libs.AddRow({NcclOriginName(NcclOrigin::kProcess), p.path, "-",
                 std::string(NcclPluginKindName(p.kind)) + " plugin, not NCCL"});
  if (e.nccl_libs.empty())
    libs.note = e.nccl_libs_checked ? "No NCCL found on the loader path or in an installed PyTorch."
                                    : "This input does not list NCCL libraries: not checked.";
  report.tables.push_back(std::move(libs));

  Table vars;
  vars.key = "variables";
  vars.title = "Variables that steer communication";
  vars.columns = {"variable", "value", "verdict", "what it does"};
  vars.column_keys = {"name", "value", "verdict", "what"};
  for (const auto& v : variables) vars.AddRow({v.name, v.value, v.verdict, v.what});
  if (vars.rows.empty())
    vars.note = "No NCCL_*, TORCH_NCCL_* or communication-relevant CUDA_* variable is set.";
  report.tables.push_back(std::move(vars));
}

}  // namespace commdx::report
