// comm.net_plugin_mismatch: hosts of one job load different network plugins or pick different
// networks ("Using network IB" on one node, "Using network Socket" on another). Each side then
// speaks another transport and the job hangs or fails in connection setup.
#include <map>
#include <set>

#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommNetPluginMismatch(const Job& job, const Options&) {
  std::map<std::string, std::vector<const NcclNetInfo*>> by_stack;
  for (const auto& n : job.nccl.nets) {
    if (n.network.empty() && n.plugin.empty()) continue;
    std::string stack = n.network.empty() ? "plugin " + n.plugin
                                          : "network " + n.network +
                                                (n.plugin.empty() ? "" : " (plugin " + n.plugin + ")");
    by_stack[stack].push_back(&n);
  }
  if (by_stack.size() < 2) return {};
  // Only a mismatch across hosts means two stacks must interoperate.
  std::map<std::string, std::string> host_stack;
  bool differ = false;
  for (const auto& [stack, nets] : by_stack)
    for (const auto* n : nets) {
      auto [it, inserted] = host_stack.emplace(n->host, stack);
      if (!inserted && it->second != stack) differ = true;
    }
  std::set<std::string> stacks;
  for (const auto& [h, st] : host_stack) stacks.insert(st);
  if (stacks.size() < 2 && !differ) return {};
  Finding f;
  f.id = "comm.net_plugin_mismatch";
  f.severity = Severity::kError;
  f.method_step = 9;
  f.title = "Processes use different network stacks";
  std::string list;
  for (const auto& [stack, nets] : by_stack) {
    list += (list.empty() ? "" : "; ") + stack + " on " + (nets.front()->host.empty() ? "?" : nets.front()->host);
    const NcclNetInfo& n = *nets.front();
    f.refs.push_back(Evidence(n.network.empty() ? n.plugin_ref : n.network_ref));
  }
  f.detail = "NCCL chose " + list + ". Ranks on different stacks cannot connect (or fall back "
             "to the slowest common path): one node lacks the plugin, its dependencies, or "
             "the RDMA devices.";
  f.fix = "Use the same container image and NCCL_NET_PLUGIN / LD_LIBRARY_PATH on every node; "
          "check each node's log for 'Loaded net plugin' / 'Using network'.";
  return {f};
}

}  // namespace commdx::analysis
