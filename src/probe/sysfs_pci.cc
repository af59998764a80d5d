#include "probe/sysfs_pci.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"

namespace commdx::probe {

namespace {

bool IsHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
}

bool IsHostBridge(std::string_view s) {  // "pci0000:16"
  if (!StartsWith(s, "pci")) return false;
  auto parts = Split(s.substr(3), ':');
  return parts.size() == 2 && IsHex(parts[0]) && IsHex(parts[1]);
}

uint32_t LittleEndian(std::string_view bytes, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

}  // namespace

bool IsPciAddress(std::string_view s) {
  // dddd:bb:dd.f
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  return IsHex(s.substr(0, 4)) && IsHex(s.substr(5, 2)) && IsHex(s.substr(8, 2)) &&
         IsHex(s.substr(11, 1));
}

int PcieGenFromSpeed(std::string_view speed) {
  auto parts = SplitWhitespace(speed);
  if (parts.empty()) return 0;
  auto gts = ParseDouble(parts[0]);
  if (!gts) return 0;
  static constexpr struct {
    double gts;
    int gen;
  } kGens[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}, {128, 7}};
  for (const auto& g : kGens)
    if (*gts > g.gts - 0.1 && *gts < g.gts + 0.1) return g.gen;
  return 0;
}

std::vector<std::string> ListPciFunctions(const SysRoot& root) {
  std::vector<std::string> out;
  for (auto& name : root.List("sys/bus/pci/devices"))
    if (IsPciAddress(name)) out.push_back(name);
  return out;
}

std::optional<PciFunction> ReadPciFunction(const SysRoot& root, std::string_view bus_id) {
  std::string dir = "sys/bus/pci/devices/" + NormalizeBusId(bus_id);
  auto resolved = root.Resolve(dir);
  if (!resolved) return std::nullopt;
  PciFunction f;
  f.bus_id = NormalizeBusId(bus_id);
  // Keep the tail from the last host bridge: VMs may put bus-specific folders above it.
  auto parts = Split(*resolved, '/');
  size_t host = parts.size();
  for (size_t i = 0; i < parts.size(); ++i)
    if (IsHostBridge(parts[i])) host = i;
  if (host < parts.size()) {
    for (size_t i = host; i < parts.size(); ++i)
      if (i == host || IsPciAddress(parts[i])) f.chain.emplace_back(parts[i]);
  }
  if (f.chain.empty() || f.chain.back() != f.bus_id) f.chain.push_back(f.bus_id);
  f.vendor = static_cast<uint32_t>(root.ReadHex(dir + "/vendor").value_or(0));
  f.device = static_cast<uint32_t>(root.ReadHex(dir + "/device").value_or(0));
  f.class_code = static_cast<uint32_t>(root.ReadHex(dir + "/class").value_or(0));
  if (auto n = root.ReadInt(dir + "/numa_node"); n && *n >= 0) f.numa_node = static_cast<int>(*n);
  f.local_cpulist = root.Read(dir + "/local_cpulist").value_or("");
  f.link.cur_gen = PcieGenFromSpeed(root.Read(dir + "/current_link_speed").value_or(""));
  f.link.max_gen = PcieGenFromSpeed(root.Read(dir + "/max_link_speed").value_or(""));
  f.link.cur_width = static_cast<int>(root.ReadInt(dir + "/current_link_width").value_or(0));
  f.link.max_width = static_cast<int>(root.ReadInt(dir + "/max_link_width").value_or(0));
  f.iommu_group_type = root.Read(dir + "/iommu_group/type").value_or("");
  return f;
}

namespace {

size_t CommonPrefix(const PciFunction& a, const PciFunction& b) {
  size_t k = 0;
  while (k < a.chain.size() && k < b.chain.size() && a.chain[k] == b.chain[k]) ++k;
  return k;
}

}  // namespace

PathType ClassifyPciPath(const PciFunction& a, const PciFunction& b) {
  if (a.bus_id == b.bus_id) return PathType::kSelf;
  if (a.chain.size() < 2 || b.chain.size() < 2) return PathType::kUnknown;
  size_t k = CommonPrefix(a, b);
  if (k == 0) {  // different host bridges
    if (a.numa_node && b.numa_node && *a.numa_node != *b.numa_node) return PathType::kSys;
    return PathType::kNode;
  }
  if (k == 1) return PathType::kPhb;
  // Below a common bridge: a PCIe switch (upstream port + its downstream ports) counts as one.
  size_t below_a = a.chain.size() - 1 - k;  // bridges strictly between the common one and a
  size_t below_b = b.chain.size() - 1 - k;
  return (below_a <= 1 && below_b <= 1) ? PathType::kPix : PathType::kPxb;
}

std::vector<std::string> BridgesBetween(const PciFunction& a, const PciFunction& b) {
  std::vector<std::string> out;
  size_t k = CommonPrefix(a, b);
  auto add = [&](const std::string& s) {
    if (IsPciAddress(s) && s != a.bus_id && s != b.bus_id &&
        std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(s);
  };
  for (size_t i = a.chain.size(); i-- > (k == 0 ? 0 : k - 1);) add(a.chain[i]);
  for (size_t i = (k == 0 ? 0 : k); i < b.chain.size(); ++i) add(b.chain[i]);
  return out;
}

void ParseAcsFromConfig(std::string_view config, PciBridge& out) {
  constexpr size_t kExtStart = 0x100;
  out.config_readable = config.size() >= kExtStart + 8;
  out.has_acs = false;
  if (!out.config_readable) return;
  size_t at = kExtStart;
  for (int guard = 0; guard < 96 && at >= kExtStart && at + 8 <= config.size(); ++guard) {
    uint32_t header = LittleEndian(config, at, 4);
    if (header == 0 || header == 0xffffffff) return;
    if ((header & 0xffff) == 0x000d) {  // Access Control Services
      out.has_acs = true;
      out.acs_ctrl = static_cast<uint16_t>(LittleEndian(config, at + 6, 2));
      return;
    }
    size_t next = (header >> 20) & 0xffc;
    if (next == 0 || next == at) return;
    at = next;
  }
}

PciBridge ReadBridge(const SysRoot& root, std::string_view bus_id) {
  PciBridge b;
  b.bus_id = NormalizeBusId(bus_id);
  auto config = root.ReadBinary("sys/bus/pci/devices/" + b.bus_id + "/config", 4096);
  if (config) ParseAcsFromConfig(*config, b);
  return b;
}

std::string PciAddressOfDeviceLink(const SysRoot& root, std::string_view device_link_rel) {
  auto resolved = root.Resolve(device_link_rel);
  if (!resolved) return "";
  auto parts = Split(*resolved, '/');
  for (size_t i = parts.size(); i-- > 0;)
    if (IsPciAddress(parts[i])) return std::string(parts[i]);
  return "";
}

}  // namespace commdx::probe
