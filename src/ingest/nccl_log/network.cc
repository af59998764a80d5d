// Network transport and plugin selection (grammar §2.3, §2.4):
//
//   vm:656:667 [0] NCCL INFO Using network Socket                  (2.6+: the inter-node choice)
//   gpu-bql-144-103:18553:18553 [0] INFO Using internal Network Socket          (<= 2.3)
//   x:1:1 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal
//   implementation vm:656:667 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so NET/Plugin:
//   Loaded net plugin NCCL RDMA Plugin v8 (v8) ip-192-168-16-255:25604:25604 [0] NCCL INFO NET/OFI
//   Selected Provider is tcp;ofi_rxm ds-ml-01-0:17754:17754 [0] NCCL INFO NET/IB : No device found.
//   h:1:2 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so  (2.19+)
//   h:1:2 [0] NCCL INFO P2P plugin IBext                 (the HPC-X/IBext plugin names itself)
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

Parsed ParsePlugin(const LineInfo& li, std::string_view s, Builder& b) {
  // s is the text after "NET/Plugin" with its " : " or ": " separator removed.
  if (StartsWith(s, "Loaded net plugin ")) {
    auto& net = b.Net(li);
    net.plugin = std::string(Trim(s.substr(18)));
    net.plugin_ref = b.Ref(li);
    return Parsed::kYes;
  }
  if (StartsWith(s, "No plugin found") || StartsWith(s, "Could not find") ||
      StartsWith(s, "Using internal")) {
    auto& net = b.Net(li);
    if (net.plugin.empty()) {
      net.plugin = "internal";
      net.plugin_ref = b.Ref(li);
    }
    return Parsed::kYes;
  }
  return Parsed::kYes;  // symbol negotiation, load errors that fall back: informational
}

// An external plugin announced by its path or its own name, not by "Loaded net plugin".
Parsed ParseExternalPlugin(const LineInfo& li, std::string_view s, Builder& b) {
  auto& net = b.Net(li);
  if (ConsumePrefix(s, "Plugin Path : ") || ConsumePrefix(s, "Plugin Path: ")) {
    std::string_view path = Trim(s);
    if (path.empty()) return Parsed::kMalformed;
    if (net.plugin.empty() || net.plugin == "internal") {
      net.plugin = "plugin " + std::string(path);
      net.plugin_ref = b.Ref(li);
    }
    return Parsed::kYes;
  }
  std::string_view name = Trim(s.substr(11));  // after "P2P plugin "
  if (name.empty()) return Parsed::kMalformed;
  if (net.plugin.empty() || net.plugin == "internal") {
    net.plugin = "plugin " + std::string(name);
    net.plugin_ref = b.Ref(li);
  }
  return Parsed::kYes;
}

}  // namespace

Parsed ParseNetwork(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (StartsWith(s, "Plugin Path :") || StartsWith(s, "Plugin Path:") ||
      StartsWith(s, "P2P plugin "))
    return ParseExternalPlugin(li, s, b);
  if (!StartsWith(s, "Using ") && !StartsWith(s, "NET/")) return Parsed::kNo;
  if (ConsumePrefix(s, "Using network ") || ConsumePrefix(s, "Using internal Network ")) {
    std::string_view name = Trim(s);
    if (name.empty()) return Parsed::kMalformed;
    auto& net = b.Net(li);
    net.network = std::string(name);
    net.network_ref = b.Ref(li);
    return Parsed::kYes;
  }
  if (ConsumePrefix(s, "NET/Plugin")) {
    s = TrimLeft(s);
    if (!s.empty() && s[0] == ':') s = TrimLeft(s.substr(1));
    return ParsePlugin(li, s, b);
  }
  if (ConsumePrefix(s, "NET/OFI ")) {
    if (ConsumePrefix(s, "Selected Provider is ")) {
      auto& net = b.Net(li);
      net.ofi_provider = std::string(Trim(s));
      net.ofi_ref = b.Ref(li);
      if (net.plugin.empty()) net.plugin = "aws-ofi-nccl";
    } else if (StartsWith(s, "Could not find any optimal provider")) {
      b.AddNote(li, "ofi_no_provider", s);
    }
    return Parsed::kYes;
  }
  if (StartsWith(s, "NET/IB : No device found") || StartsWith(s, "NET/IB: No device found")) {
    auto& net = b.Net(li);
    net.ib_no_device = true;
    net.ib_no_device_ref = b.Ref(li);
    return Parsed::kYes;
  }
  return Parsed::kNo;
}

}  // namespace commdx::ingest::nccl_log
