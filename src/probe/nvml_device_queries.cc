// NvmlGpuSource's per-device, per-pair and per-process queries. A fact whose call is missing or
// answers NOT_SUPPORTED stays unknown (nullopt); any other failure is kept as a note.
#include <algorithm>
#include <cstring>
#include <vector>

#include "probe/nvml_gpu_source.h"
#include "probe/nvml_table.h"

namespace commdx::probe {

namespace {

using Api = NvmlGpuSource::Api;

std::string ErrorName(const Api& a, nvml::Return rc) {
  return a.error_string ? a.error_string(rc) : "error " + std::to_string(rc);
}

Result<nvml::Device> Handle(const Api& a, int index) {
  nvml::Device d = nullptr;
  nvml::Return rc = a.handle(static_cast<unsigned>(index), &d);
  if (rc != nvml::kSuccess)
    return MakeError(ErrorCode::kEnvironment, "nvmlDeviceGetHandleByIndex_v2(" +
                                                  std::to_string(index) + "): " + ErrorName(a, rc));
  return d;
}

// Calls `fn` and keeps its value when it succeeds; notes unexpected failures.
template <class T, class Call>
std::optional<T> Ask(const Api& a, const char* what, RawDevice& dev, Call call) {
  T value{};
  nvml::Return rc = call(&value);
  if (rc == nvml::kSuccess) return value;
  if (rc != nvml::kErrorNotSupported)
    dev.notes.push_back(std::string(what) + ": " + ErrorName(a, rc));
  return std::nullopt;
}

std::string CStr(const char* buf, size_t n) { return std::string(buf, strnlen(buf, n)); }

void ReadFields(const Api& a, nvml::Device d, RawDevice& dev) {
  if (!a.fields) return;
  nvml::FieldValue v[2];
  std::memset(v, 0, sizeof v);
  v[0].field_id = nvml::kFieldNvLinkSpeedMbpsCommon;
  v[1].field_id = nvml::kFieldNvLinkLinkCount;
  if (a.fields(d, 2, v) != nvml::kSuccess) return;
  if (v[0].nvml_return == nvml::kSuccess && v[0].value.ui > 0)
    dev.nvlink_speed_mbps = v[0].value.ui;
  if (v[1].nvml_return == nvml::kSuccess) dev.nvlink_count = v[1].value.ui;
}

void ReadNvLinks(const Api& a, nvml::Device d, RawDevice& dev) {
  if (!a.link_state) return;
  unsigned limit =
      dev.nvlink_count ? std::min(*dev.nvlink_count, nvml::kMaxNvLinks) : nvml::kMaxNvLinks;
  for (unsigned l = 0; l < limit; ++l) {
    nvml::EnableState st = 0;
    if (a.link_state(d, l, &st) != nvml::kSuccess) continue;  // no such link
    RawNvLink link;
    link.link = static_cast<int>(l);
    link.active = st == 1;
    unsigned v = 0;
    if (a.link_version && a.link_version(d, l, &v) == nvml::kSuccess) link.version = v;
    nvml::PciInfo pci{};
    if (a.link_remote_pci && a.link_remote_pci(d, l, &pci) == nvml::kSuccess)
      link.remote_bus_id = CStr(pci.bus_id, sizeof pci.bus_id);
    unsigned type = 0;
    if (a.link_remote_type && a.link_remote_type(d, l, &type) == nvml::kSuccess)
      link.remote_type = type;
    if (a.link_errors) {
      auto counter = [&](int which) -> std::optional<uint64_t> {
        unsigned long long n = 0;
        if (a.link_errors(d, l, which, &n) == nvml::kSuccess) return n;
        return std::nullopt;
      };
      link.replay = counter(nvml::kNvLinkReplay);
      link.recovery = counter(nvml::kNvLinkRecovery);
      link.crc_flit = counter(nvml::kNvLinkCrcFlit);
      link.crc_data = counter(nvml::kNvLinkCrcData);
    }
    dev.nvlinks.push_back(std::move(link));
  }
}

}  // namespace

Result<RawDevice> NvmlGpuSource::Device(int index) {
  const Api& a = *api_;
  COMMDX_ASSIGN_OR_RETURN(nvml::Device d, Handle(a, index));
  RawDevice dev;
  char buf[96] = {};
  if (a.name && a.name(d, buf, sizeof buf) == nvml::kSuccess) dev.name = CStr(buf, sizeof buf);
  std::memset(buf, 0, sizeof buf);
  if (a.uuid && a.uuid(d, buf, sizeof buf) == nvml::kSuccess) dev.uuid = CStr(buf, sizeof buf);
  nvml::PciInfo pci{};
  if (a.pci && a.pci(d, &pci) == nvml::kSuccess) dev.bus_id = CStr(pci.bus_id, sizeof pci.bus_id);
  auto uint_of = [&](nvml::DevUintFn fn, const char* what) -> std::optional<unsigned> {
    if (!fn) return std::nullopt;
    return Ask<unsigned>(a, what, dev, [&](unsigned* v) { return fn(d, v); });
  };
  dev.pcie_cur_gen = uint_of(a.cur_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
  dev.pcie_max_gen = uint_of(a.max_gen, "nvmlDeviceGetMaxPcieLinkGeneration");
  dev.pcie_cur_width = uint_of(a.cur_width, "nvmlDeviceGetCurrPcieLinkWidth");
  dev.pcie_max_width = uint_of(a.max_width, "nvmlDeviceGetMaxPcieLinkWidth");
  dev.numa_node = uint_of(a.numa, "nvmlDeviceGetNumaNodeId");
  if (a.mig) {
    unsigned cur = 0, pending = 0;
    if (a.mig(d, &cur, &pending) == nvml::kSuccess) dev.mig_current = cur;
  }
  if (a.ecc) {
    nvml::EnableState cur = 0, pending = 0;
    if (a.ecc(d, &cur, &pending) == nvml::kSuccess) dev.ecc_current = static_cast<unsigned>(cur);
  }
  if (a.persistence) {
    nvml::EnableState st = 0;
    if (a.persistence(d, &st) == nvml::kSuccess) dev.persistence = static_cast<unsigned>(st);
  }
  if (a.compute_mode) {
    int mode = 0;
    if (a.compute_mode(d, &mode) == nvml::kSuccess) dev.compute_mode = static_cast<unsigned>(mode);
  }
  if (a.clock_events) {
    unsigned long long bits = 0;
    if (a.clock_events(d, &bits) == nvml::kSuccess) dev.clock_event_reasons = bits;
  }
  ReadFields(a, d, dev);
  ReadNvLinks(a, d, dev);
  return dev;
}

Result<RawPair> NvmlGpuSource::Pair(int ia, int ib) {
  const Api& a = *api_;
  COMMDX_ASSIGN_OR_RETURN(nvml::Device da, Handle(a, ia));
  COMMDX_ASSIGN_OR_RETURN(nvml::Device db, Handle(a, ib));
  RawPair p;
  auto status = [&](int cap) -> std::optional<unsigned> {
    int st = 0;
    if (a.p2p && a.p2p(da, db, cap, &st) == nvml::kSuccess) return static_cast<unsigned>(st);
    return std::nullopt;
  };
  p.read = status(nvml::kP2PRead);
  p.write = status(nvml::kP2PWrite);
  p.nvlink = status(nvml::kP2PNvLink);
  p.atomics = status(nvml::kP2PAtomics);
  p.pci = status(nvml::kP2PPci);
  int level = 0;
  if (a.ancestor && a.ancestor(da, db, &level) == nvml::kSuccess)
    p.common_ancestor = static_cast<unsigned>(level);
  return p;
}

Result<std::vector<RawProcess>> NvmlGpuSource::Processes(int index) {
  const Api& a = *api_;
  std::vector<RawProcess> out;
  if (!a.processes) return out;
  COMMDX_ASSIGN_OR_RETURN(nvml::Device d, Handle(a, index));
  // Ask with room for 64, grow once if NVML says more are running.
  for (unsigned room : {64u, 1024u}) {
    unsigned n = room;
    std::vector<nvml::ProcessInfo> info(room);
    std::vector<nvml::ProcessInfoV1> info_v1(room);
    void* buf =
        a.processes_v1 ? static_cast<void*>(info_v1.data()) : static_cast<void*>(info.data());
    nvml::Return rc = a.processes(d, &n, buf);
    if (rc == nvml::kErrorInsufficientSize) continue;
    if (rc != nvml::kSuccess)
      return MakeError(ErrorCode::kEnvironment,
                       "nvmlDeviceGetComputeRunningProcesses: " + ErrorName(a, rc));
    for (unsigned i = 0; i < n && i < room; ++i) {
      RawProcess p;
      p.pid = a.processes_v1 ? info_v1[i].pid : info[i].pid;
      p.used_memory_bytes = a.processes_v1 ? info_v1[i].used_gpu_memory : info[i].used_gpu_memory;
      out.push_back(p);
    }
    return out;
  }
  return out;
}

}  // namespace commdx::probe
