#include "probe/sysfs_system.h"

#include <algorithm>

#include "base/text.h"
#include "probe/sysfs_pci.h"

namespace commdx::probe {

std::vector<NumaNode> ReadNumaNodes(const SysRoot& root) {
  std::vector<NumaNode> out;
  for (const auto& name : root.List("sys/devices/system/node")) {
    if (!StartsWith(name, "node")) continue;
    auto id = ParseInt(std::string_view(name).substr(4));
    if (!id) continue;
    NumaNode n;
    n.id = static_cast<int>(*id);
    std::string dir = "sys/devices/system/node/" + name;
    n.cpulist = root.Read(dir + "/cpulist").value_or("");
    // "Node 0 MemTotal:       263782260 kB"
    if (auto mem = root.Read(dir + "/meminfo")) {
      size_t at = mem->find("MemTotal:");
      if (at != std::string::npos) {
        auto words = SplitWhitespace(std::string_view(*mem).substr(at + 9, 64));
        if (!words.empty())
          if (auto kb = ParseInt(words[0])) n.mem_total_bytes = static_cast<uint64_t>(*kb) * 1024;
      }
    }
    out.push_back(std::move(n));
  }
  std::sort(out.begin(), out.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  return out;
}

int ReadOnlineCpus(const SysRoot& root) {
  auto s = root.Read("sys/devices/system/cpu/online");
  if (!s) return 0;
  auto cpus = ParseCpuList(*s);
  return cpus ? static_cast<int>(cpus->size()) : 0;
}

void ReadCpuInfo(const SysRoot& root, std::string& vendor, std::string& model) {
  auto text = root.Read("proc/cpuinfo");
  if (!text) return;
  // "vendor_id\t: GenuineIntel" / "model name\t: Intel(R) Xeon(R) Platinum 8480+"
  for (std::string_view line : Split(*text, '\n')) {
    size_t colon = line.find(':');
    if (colon == line.npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    std::string_view value = Trim(line.substr(colon + 1));
    if (key == "vendor_id" && vendor.empty()) vendor = std::string(value);
    if (key == "model name" && model.empty()) model = std::string(value);
    if (!vendor.empty() && !model.empty()) return;
  }
}

double ParseIbRateGbit(std::string_view rate) {
  auto words = SplitWhitespace(rate);
  if (words.empty()) return 0;
  return ParseDouble(words[0]).value_or(0);
}

namespace {

Nic ReadRdmaDevice(const SysRoot& root, const std::string& name) {
  Nic nic;
  nic.name = name;
  std::string dir = "sys/class/infiniband/" + name;
  nic.bus_id = PciAddressOfDeviceLink(root, dir + "/device");
  nic.kind = NicKind::kInfiniband;
  // The best port decides: an active one, else the first.
  for (const auto& port : root.List(dir + "/ports")) {
    std::string p = dir + "/ports/" + port;
    std::string state = root.Read(p + "/state").value_or("");       // "4: ACTIVE"
    std::string layer = root.Read(p + "/link_layer").value_or("");  // "InfiniBand" | "Ethernet"
    double rate = ParseIbRateGbit(root.Read(p + "/rate").value_or(""));
    size_t colon = state.find(':');
    std::string word(Trim(colon == std::string::npos ? state : state.substr(colon + 1)));
    bool active = word == "ACTIVE";
    if (nic.state.empty() || (active && nic.state != "ACTIVE")) {
      nic.state = word;
      nic.rate_gbit = rate;
      nic.kind = layer == "Ethernet" ? NicKind::kRoce : NicKind::kInfiniband;
    }
  }
  for (const auto& nd : root.List(dir + "/device/net")) nic.netdevs.push_back(nd);
  return nic;
}

}  // namespace

std::vector<Nic> ReadNics(const SysRoot& root) {
  std::vector<Nic> out;
  for (const auto& name : root.List("sys/class/infiniband"))
    out.push_back(ReadRdmaDevice(root, name));
  for (const auto& name : root.List("sys/class/net")) {
    std::string dir = "sys/class/net/" + name;
    if (!root.Exists(dir + "/device")) continue;  // virtual
    std::string bus = PciAddressOfDeviceLink(root, dir + "/device");
    bool owned = false;
    for (auto& n : out) {
      bool listed = std::find(n.netdevs.begin(), n.netdevs.end(), name) != n.netdevs.end();
      if (listed || (!bus.empty() && n.bus_id == bus)) {
        if (!listed) n.netdevs.push_back(name);
        owned = true;
      }
    }
    if (owned) continue;
    Nic nic;
    nic.name = name;
    nic.bus_id = bus;
    nic.kind =
        root.ReadInt(dir + "/type").value_or(1) == 32 ? NicKind::kInfiniband : NicKind::kEthernet;
    nic.state = root.Read(dir + "/operstate").value_or("");
    // "speed" is Mb/s; reading it fails (EINVAL) or gives -1 when the link is down or unknown.
    if (auto mbit = root.ReadInt(dir + "/speed"); mbit && *mbit > 0) nic.rate_gbit = *mbit / 1000.0;
    out.push_back(std::move(nic));
  }
  for (auto& nic : out) {
    if (nic.bus_id.empty()) continue;
    auto f = ReadPciFunction(root, nic.bus_id);
    if (f) nic.numa_node = f->numa_node;
  }
  return out;
}

}  // namespace commdx::probe
