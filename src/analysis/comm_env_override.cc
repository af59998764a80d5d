// comm.env_override: NCCL_* variables that change NCCL's choices, from "X set by environment to
// Y" lines (also /etc/nccl.conf) or NCCL_X=Y in a pasted command. Known-harmful ones (transports
// disabled, algorithm/protocol forced, channels capped, P2P/GDR levels) are warnings; network
// selection knobs are info; the rest only appear in the overrides table.
#include <cstdlib>
#include <map>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

struct Knob {
  const char* name;
  bool harmful;
  const char* effect;
};

constexpr Knob kKnobs[] = {
    {"NCCL_P2P_DISABLE", true, "disables NVLink/PCIe peer-to-peer between GPUs of a node"},
    {"NCCL_SHM_DISABLE", true, "disables the shared-memory transport inside a node"},
    {"NCCL_IB_DISABLE", true, "disables InfiniBand/RoCE: inter-node traffic falls back to sockets"},
    {"NCCL_P2P_LEVEL", true, "restricts P2P to short paths; longer ones fall back to SHM"},
    {"NCCL_NET_GDR_LEVEL", true, "restricts GPUDirect RDMA to short GPU-NIC paths"},
    {"NCCL_NET_GDR_READ", true, "changes GPUDirect RDMA reads on the send side"},
    {"NCCL_ALGO", true, "forces the collective algorithm instead of NCCL's per-size tuning"},
    {"NCCL_PROTO", true, "forces the protocol (LL/LL128/Simple) instead of NCCL's tuning"},
    {"NCCL_MAX_NCHANNELS", true, "caps the number of channels (bandwidth)"},
    {"NCCL_MAX_NRINGS", true, "caps the number of rings/channels (bandwidth)"},
    {"NCCL_MAX_CTAS", true, "caps the number of thread blocks (channels)"},
    {"NCCL_NTHREADS", true, "changes the threads per block"},
    {"NCCL_BUFFSIZE", false, "changes the per-channel buffer size"},
    {"NCCL_MIN_NCHANNELS", false, "raises the minimum channel count"},
    {"NCCL_NVLS_ENABLE", false, "turns NVLink SHARP on or off"},
    {"NCCL_COLLNET_ENABLE", false, "turns CollNet/SHARP on or off"},
    {"NCCL_SOCKET_IFNAME", false, "selects the network interfaces NCCL uses"},
    {"NCCL_IB_HCA", false, "selects the InfiniBand/RoCE devices"},
    {"NCCL_IB_GID_INDEX", false, "selects the RoCE GID"},
    {"NCCL_NET", false, "selects the network transport"},
    {"NCCL_CROSS_NIC", false, "lets rings use different NICs on each end"},
    {"NCCL_TOPO_FILE", false, "replaces the detected topology with a file"},
    {"NCCL_CUMEM_ENABLE", false, "selects the cuMem (VMM) allocator for buffers"},
    {"NCCL_LAUNCH_MODE", false, "changes how kernels are launched"},
};

const Knob* FindKnob(const std::string& name) {
  for (const auto& k : kKnobs)
    if (name == k.name) return &k;
  return nullptr;
}

// "_DISABLE=0" and "ENABLE=1" restate defaults: no change.
bool IsNoChange(const std::string& name, const std::string& value) {
  bool disable = name.size() > 8 && name.compare(name.size() - 8, 8, "_DISABLE") == 0;
  return disable && (value == "0" || value.empty());
}

}  // namespace

std::vector<Finding> FindCommEnvOverrides(const Job& job, const Options&) {
  std::map<std::string, std::vector<const NcclEnvOverride*>> by_setting;
  for (const auto& o : job.nccl.overrides) by_setting[o.name + "=" + o.value].push_back(&o);
  std::vector<Finding> out;
  for (const auto& [setting, list] : by_setting) {
    const NcclEnvOverride& o = *list.front();
    const Knob* k = FindKnob(o.name);
    if (!k || IsNoChange(o.name, o.value)) continue;
    bool harmful = k->harmful;
    if (o.name == "NCCL_NET_GDR_READ" && o.value != "0") harmful = false;
    // Network knobs on a job whose every communicator is joined within one node change nothing.
    const bool network_knob = o.name == "NCCL_IB_DISABLE" || o.name == "NCCL_NET_GDR_LEVEL" ||
                              o.name == "NCCL_NET_GDR_READ";
    const bool unused = network_knob && NoNetworkTraffic(job.nccl);
    if (unused) harmful = false;
    Finding f = NewFinding("comm.env_override");
    f.severity = harmful ? Severity::kWarning : Severity::kInfo;
    f.method_step = 9;
    f.title = setting + ": " + k->effect;
    f.detail = std::string(o.from_command_line ? "Set on the command line shown in the log"
                                               : "NCCL reports it as set by the environment") +
               " (" + std::to_string(list.size()) + " process" + (list.size() == 1 ? "" : "es") +
               ").";
    if (unused)
      f.detail +=
          " Every communicator in the log is joined within one node by P2P or shared "
          "memory, so the network carries none of its traffic: this setting changes "
          "nothing here (it matters once the job spans nodes).";
    if (o.name == "NCCL_ALGO" && o.value.find(",,") != std::string::npos)
      f.detail += " The list has an empty element (',,'): check the value is what was meant.";
    if (o.name == "NCCL_SOCKET_IFNAME" && (o.value == "lo" || o.value.rfind("lo,", 0) == 0))
      f.detail += " Loopback only works when every rank is on this one node.";
    f.fix = harmful ? "Unset " + o.name +
                          " unless it works around a specific, understood problem; NCCL's own "
                          "choice is usually faster."
                    : "Informational: make sure the value matches every node.";
    std::vector<const NcclLineRef*> refs;
    for (const auto* x : list) refs.push_back(&x->ref);
    AddEvidence(f, refs, 3);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
