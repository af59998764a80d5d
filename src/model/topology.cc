#include "model/topology.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "base/text.h"

namespace commdx {

const char* PathTypeName(PathType p) {
  switch (p) {
    case PathType::kSelf:
      return "X";
    case PathType::kNvLink:
      return "NV";
    case PathType::kPix:
      return "PIX";
    case PathType::kPxb:
      return "PXB";
    case PathType::kPhb:
      return "PHB";
    case PathType::kNode:
      return "NODE";
    case PathType::kSys:
      return "SYS";
    case PathType::kUnknown:
      break;
  }
  return "?";
}

std::optional<PathType> ParsePathType(std::string_view s) {
  if (s == "X") return PathType::kSelf;
  if (s == "PIX") return PathType::kPix;
  if (s == "PXB") return PathType::kPxb;
  if (s == "PHB") return PathType::kPhb;
  if (s == "NODE") return PathType::kNode;
  if (s == "SYS" || s == "SOC") return PathType::kSys;
  return std::nullopt;
}

bool PathCrossesCpu(PathType p) {
  return p == PathType::kPhb || p == PathType::kNode || p == PathType::kSys;
}

const char* P2PStatusCode(P2PStatus s) {
  switch (s) {
    case P2PStatus::kOk:
      return "OK";
    case P2PStatus::kChipsetNotSupported:
      return "CNS";
    case P2PStatus::kGpuNotSupported:
      return "GNS";
    case P2PStatus::kTopologyNotSupported:
      return "TNS";
    case P2PStatus::kDisabledByRegKey:
      return "DR";
    case P2PStatus::kNotSupported:
      return "NS";
    case P2PStatus::kUnknown:
      break;
  }
  return "U";
}

std::optional<P2PStatus> ParseP2PStatusCode(std::string_view s) {
  if (s == "OK") return P2PStatus::kOk;
  if (s == "CNS") return P2PStatus::kChipsetNotSupported;
  if (s == "GNS") return P2PStatus::kGpuNotSupported;
  if (s == "TNS") return P2PStatus::kTopologyNotSupported;
  if (s == "DR" || s == "DBR") return P2PStatus::kDisabledByRegKey;
  if (s == "NS") return P2PStatus::kNotSupported;
  if (s == "U") return P2PStatus::kUnknown;
  return std::nullopt;
}

std::string ClockEventNames(uint64_t bits) {
  static constexpr struct {
    uint64_t bit;
    const char* name;
  } kNames[] = {
      {clock_event::kGpuIdle, "gpu_idle"},
      {clock_event::kApplicationsClocks, "applications_clocks"},
      {clock_event::kSwPowerCap, "sw_power_cap"},
      {clock_event::kHwSlowdown, "hw_slowdown"},
      {clock_event::kSyncBoost, "sync_boost"},
      {clock_event::kSwThermal, "sw_thermal_slowdown"},
      {clock_event::kHwThermal, "hw_thermal_slowdown"},
      {clock_event::kHwPowerBrake, "hw_power_brake_slowdown"},
      {clock_event::kDisplayClocks, "display_clocks"},
  };
  std::string out;
  uint64_t known = 0;
  for (const auto& n : kNames) {
    known |= n.bit;
    if (bits & n.bit) out += std::string(out.empty() ? "" : ",") + n.name;
  }
  if (bits & ~known) out += std::string(out.empty() ? "" : ",") + "other";
  return out;
}

const char* NicKindName(NicKind k) {
  switch (k) {
    case NicKind::kInfiniband:
      return "InfiniBand";
    case NicKind::kRoce:
      return "RoCE";
    case NicKind::kEthernet:
      return "Ethernet";
    case NicKind::kUnknown:
      break;
  }
  return "unknown";
}

int Gpu::ActiveNvLinks() const {
  int n = 0;
  for (const auto& l : nvlinks)
    if (l.active.value_or(false)) ++n;
  return n;
}

bool PciBridge::P2PRedirected() const {
  return has_acs && (acs_ctrl & (acs::kRequestRedirect | acs::kCompletionRedirect)) != 0;
}

std::string PciBridge::AcsText() const {
  if (!config_readable) return "unreadable";
  if (!has_acs) return "no ACS";
  static constexpr struct {
    uint16_t bit;
    const char* name;
  } kBits[] = {{acs::kSourceValidation, "SrcValid"},      {acs::kTranslationBlocking, "TransBlk"},
               {acs::kRequestRedirect, "ReqRedir"},       {acs::kCompletionRedirect, "CmpltRedir"},
               {acs::kUpstreamForwarding, "UpstreamFwd"}, {acs::kEgressControl, "EgressCtrl"},
               {acs::kDirectTranslated, "DirectTrans"}};
  std::string out;
  for (const auto& b : kBits)
    out += std::string(out.empty() ? "" : " ") + b.name + ((acs_ctrl & b.bit) ? "+" : "-");
  return out;
}

const Gpu* Topology::FindGpu(int index) const {
  for (const auto& g : gpus)
    if (g.index == index) return &g;
  return nullptr;
}

Gpu& Topology::GpuAt(int index) {
  for (auto& g : gpus)
    if (g.index == index) return g;
  for (int i = 0; i <= index; ++i) {
    if (FindGpu(i)) continue;
    Gpu g;
    g.index = i;
    gpus.push_back(std::move(g));
  }
  std::sort(gpus.begin(), gpus.end(), [](const Gpu& x, const Gpu& y) { return x.index < y.index; });
  for (auto& g : gpus)
    if (g.index == index) return g;
  return gpus.back();  // unreachable
}

namespace {
// `pairs` is kept sorted by (a, b): lookups are binary searches (a linear scan per lookup made
// the pair loops quadratic in the pair count: 5.6 s on a fuzzed 254-GPU matrix).
bool PairBefore(const GpuPair& x, int a, int b) { return x.a != a ? x.a < a : x.b < b; }
}  // namespace

const GpuPair* Topology::FindPair(int a, int b) const {
  if (a > b) std::swap(a, b);
  auto it = std::lower_bound(
      pairs.begin(), pairs.end(), std::pair{a, b},
      [](const GpuPair& x, std::pair<int, int> k) { return PairBefore(x, k.first, k.second); });
  return it != pairs.end() && it->a == a && it->b == b ? &*it : nullptr;
}

GpuPair& Topology::PairAt(int a, int b) {
  if (a > b) std::swap(a, b);
  auto it = std::lower_bound(
      pairs.begin(), pairs.end(), std::pair{a, b},
      [](const GpuPair& x, std::pair<int, int> k) { return PairBefore(x, k.first, k.second); });
  if (it != pairs.end() && it->a == a && it->b == b) return *it;
  GpuPair p;
  p.a = a;
  p.b = b;
  return *pairs.insert(it, std::move(p));
}

const PciBridge* Topology::FindBridge(std::string_view bus_id) const {
  for (const auto& b : bridges)
    if (b.bus_id == bus_id) return &b;
  return nullptr;
}

const NumaNode* Topology::FindNuma(int id) const {
  for (const auto& n : numa)
    if (n.id == id) return &n;
  return nullptr;
}

std::string NormalizeBusId(std::string_view bus_id) {
  std::string s = ToLower(Trim(bus_id));
  // domain:bus:dev.fn with a domain of 4 or 8 hex digits, or bus:dev.fn alone.
  auto parts = Split(s, ':');
  auto hex = [](std::string_view x) {
    return !x.empty() && std::all_of(x.begin(), x.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c));
    });
  };
  if (parts.size() == 2 && hex(parts[0]) && parts[0].size() == 2) return "0000:" + s;
  if (parts.size() != 3 || !hex(parts[0]) || !hex(parts[1])) return s;
  std::string_view domain = parts[0];
  while (domain.size() > 4 && domain.front() == '0') domain.remove_prefix(1);
  if (domain.size() < 4)
    return std::string(4 - domain.size(), '0') + std::string(domain) + ":" + std::string(parts[1]) +
           ":" + std::string(parts[2]);
  return std::string(domain) + ":" + std::string(parts[1]) + ":" + std::string(parts[2]);
}

int NvLinkGenerationForGpuName(std::string_view name) {
  std::string n = ToLower(name);
  static constexpr struct {
    const char* token;
    int gen;
  } kModels[] = {{"gb200", 5}, {"gb300", 5}, {"b200", 5}, {"b300", 5}, {"b100", 5},
                 {"gh200", 4}, {"h200", 4},  {"h100", 4}, {"h800", 4}, {"h20", 4},
                 {"a100", 3},  {"a800", 3},  {"v100", 2}, {"p100", 1}};
  for (const auto& m : kModels)
    if (Contains(n, m.token)) return m.gen;
  return 0;
}

Result<std::vector<int>> ParseCpuList(std::string_view list) {
  std::vector<int> out;
  list = Trim(list);
  if (list.empty()) return out;
  for (std::string_view item : Split(list, ',')) {
    item = Trim(item);
    size_t dash = item.find('-');
    auto lo = ParseInt(item.substr(0, dash));
    auto hi = dash == item.npos ? lo : ParseInt(item.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi > 1 << 20)
      return MakeError(ErrorCode::kBadInput,
                       "bad CPU list '" + std::string(list) + "' (expected e.g. 0-3,8)");
    for (int64_t c = *lo; c <= *hi; ++c) out.push_back(static_cast<int>(c));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

const char* TopoSourceName(TopoSource s) {
  switch (s) {
    case TopoSource::kNone:
      return "";
    case TopoSource::kLive:
      return "live";
    case TopoSource::kNvidiaSmi:
      return "nvidia-smi";
    case TopoSource::kSnapshot:
      return "snapshot";
  }
  return "";
}

std::optional<TopoSource> ParseTopoSource(std::string_view s) {
  for (TopoSource t : {TopoSource::kNone, TopoSource::kLive, TopoSource::kNvidiaSmi,
                       TopoSource::kSnapshot})
    if (s == TopoSourceName(t)) return t;
  return std::nullopt;
}

}  // namespace commdx
