// Topology-search results that matter (grammar §2.8, GRAPH subsystem):
//
//   x:1:1 [0] NCCL INFO Could not find a path for pattern 4, falling back to simple order
//   x:1:1 [0] NCCL INFO Topology detection : could not read /sys/devices/.../max_link_speed,
//   ignoring
// The first means NCCL could not build the rings/trees it searched for; the second is benign in
// VMs but is how the < 2.20 ring-inconsistency bug starts.
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseGraph(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (StartsWith(s, "Could not find a path for pattern")) {
    b.AddNote(li, "graph_fallback", s);
    return Parsed::kYes;
  }
  if (StartsWith(s, "Call to connect returned")) {
    // "Call to connect returned Connection timed out, retrying" (2.4 - 2.23): still retrying.
    b.AddNote(li, "connect_retry", s);
    return Parsed::kYes;
  }
  if (StartsWith(s, "Topology detection : could not read") ||
      StartsWith(s, "Topology detection: could not read")) {
    b.AddNote(li, "topology_unreadable", s.substr(0, s.find(", ignoring")));
    return Parsed::kYes;
  }
  return Parsed::kNo;
}

}  // namespace commdx::ingest::nccl_log
