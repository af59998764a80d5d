// comm.net_plugin_mismatch: hosts of one job load different network plugins or pick different
// networks ("Using network IBext" on one node, "Using network IB" on another; an HPC-X plugin
// path on one node, "Could not find: libnccl-net.so" on another). Each side then speaks another
// transport and the job hangs or fails in connection setup. Only facts logged on both sides are
// compared (an excerpt that lacks a line on one host proves nothing).
//
// Plugins are compared by kind, internal or external: one host may announce the same external
// plugin by its name ("Loaded net plugin NCCL RDMA Plugin v8") and another by its path ("Plugin
// Path : /opt/hpcx/...") in an excerpt, and that is not a difference.
#include <map>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

std::string PluginKind(const std::string& plugin) {
  if (plugin.empty()) return "";
  return plugin == "internal" ? "internal" : "external";
}

}  // namespace

std::vector<Finding> FindCommNetPluginMismatch(const Job& job, const Options&) {
  HostValues networks, plugins;
  std::map<std::string, std::string> plugin_text;  // kind -> first plugin as logged
  for (const auto& n : job.nccl.nets) {
    networks.Add(n.host, n.network, n.network_ref);
    plugins.Add(n.host, PluginKind(n.plugin), n.plugin_ref);
    if (!n.plugin.empty()) plugin_text.emplace(PluginKind(n.plugin), n.plugin);
  }
  const HostValues* diff = networks.Differs() ? &networks : plugins.Differs() ? &plugins : nullptr;
  if (!diff) return {};
  Finding f = NewFinding("comm.net_plugin_mismatch");
  f.severity = Severity::kError;
  f.method_step = 9;
  std::string list;
  for (const auto& [value, hosts] : diff->hosts_by_value) {
    std::string what = diff == &networks
                           ? "network '" + value + "'"
                           : "net plugin " + (value == "internal" ? std::string("internal")
                                                                  : "'" + plugin_text[value] + "'");
    list += (list.empty() ? "" : "; ") + what + " on " + HostList(hosts);
    f.refs.push_back(Evidence(*diff->ref_by_value.at(value)));
  }
  f.title = "Hosts use different network stacks: " + list;
  f.detail =
      "Ranks on different stacks cannot connect (or fall back to the slowest common "
      "path): one node lacks the plugin, its dependencies, or the RDMA devices.";
  f.fix =
      "Use the same container image and NCCL_NET_PLUGIN / LD_LIBRARY_PATH on every node; "
      "compare each node's 'Loaded net plugin' / 'Plugin Path' / 'Using network' lines.";
  f.metrics.push_back({"stacks", static_cast<double>(diff->hosts_by_value.size()), Unit::kCount});
  return {f};
}

}  // namespace commdx::analysis
