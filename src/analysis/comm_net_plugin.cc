// comm.net_plugin_mismatch: hosts of one job load different network plugins or pick different
// networks ("Using network IB" on one node, "Using network Socket" on another). Each side then
// speaks another transport and the job hangs or fails in connection setup. Only facts logged on
// both sides are compared (an excerpt that lacks a line on one host proves nothing).
#include <map>
#include <set>

#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

struct Seen {
  std::map<std::string, std::set<std::string>> hosts_by_value;
  std::map<std::string, const NcclLineRef*> ref_by_value;
  void Add(const std::string& host, const std::string& value, const NcclLineRef& ref) {
    if (value.empty()) return;
    hosts_by_value[value].insert(host);
    ref_by_value.emplace(value, &ref);
  }
  // Two values, each on a host the other does not have.
  bool Differs() const {
    if (hosts_by_value.size() < 2) return false;
    std::set<std::string> all;
    for (const auto& [v, hosts] : hosts_by_value) all.insert(hosts.begin(), hosts.end());
    return all.size() >= 2;
  }
};

}  // namespace

std::vector<Finding> FindCommNetPluginMismatch(const Job& job, const Options&) {
  Seen networks, plugins;
  for (const auto& n : job.nccl.nets) {
    networks.Add(n.host, n.network, n.network_ref);
    plugins.Add(n.host, n.plugin, n.plugin_ref);
  }
  const Seen* diff = networks.Differs() ? &networks : plugins.Differs() ? &plugins : nullptr;
  if (!diff) return {};
  Finding f;
  f.id = "comm.net_plugin_mismatch";
  f.severity = Severity::kError;
  f.method_step = 9;
  std::string what = diff == &networks ? "network" : "net plugin";
  std::string list;
  for (const auto& [value, hosts] : diff->hosts_by_value) {
    list += (list.empty() ? "" : "; ") + what + " '" + value + "' on " +
            (hosts.begin()->empty() ? std::string("?") : *hosts.begin()) +
            (hosts.size() > 1 ? " and " + std::to_string(hosts.size() - 1) + " more" : "");
    f.refs.push_back(Evidence(*diff->ref_by_value.at(value)));
  }
  f.title = "Hosts use different network stacks";
  f.detail = "NCCL chose " + list + ". Ranks on different stacks cannot connect (or fall back "
             "to the slowest common path): one node lacks the plugin, its dependencies, or the "
             "RDMA devices.";
  f.fix = "Use the same container image and NCCL_NET_PLUGIN / LD_LIBRARY_PATH on every node; "
          "compare each node's 'Loaded net plugin' / 'Using network' lines.";
  return {f};
}

}  // namespace commdx::analysis
