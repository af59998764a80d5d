#include "analysis/inspector_log_join.h"

#include <algorithm>
#include <map>

#include "analysis/comm_common.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

// "0x" and 14 hex digits: what the plugin's 17-byte buffer holds of a longer hash.
constexpr size_t kCutIdChars = 16;
constexpr size_t kMaxRanksListed = 4;

bool IsHexId(std::string_view id) {
  if (id.size() < 3 || !StartsWith(id, "0x")) return false;
  for (char c : id.substr(2))
    if (!IsDigit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F')) return false;
  return true;
}

std::string RankPlace(const NcclRankInfo& r) {
  std::string s = StrFormat("rank %d", r.rank);
  if (r.pid > 0 || !r.host.empty())
    s += StrFormat(" at pid %lld on %s", static_cast<long long>(r.pid),
                   r.host.empty() ? "?" : r.host.c_str());
  if (!r.host_id.empty()) s += " (NCCL_HOSTID " + r.host_id + ")";
  if (r.cuda_dev >= 0) s += StrFormat(", GPU %d", r.cuda_dev);
  if (!r.bus_id.empty()) s += ", bus " + r.bus_id;
  return s;
}

// "NET/Socket x4, P2P/CUMEM x2": the connections' transports, most used first.
std::string Transports(const NcclCommunicator& c) {
  std::map<std::string, uint32_t> count;
  for (const NcclConnection& x : c.connections) count[TransportShortName(x.transport)] += x.count;
  std::vector<std::pair<uint32_t, std::string>> order;
  for (const auto& [name, n] : count) order.push_back({n, name});
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [n, name] : order)
    out += (out.empty() ? "" : ", ") + name + StrFormat(" x%u", n);
  return out;
}

}  // namespace

bool InspectorIdNames(std::string_view inspector_id, std::string_view log_comm_id) {
  if (!IsHexId(inspector_id) || !IsHexId(log_comm_id)) return false;
  const std::string a = ToLower(inspector_id), b = ToLower(log_comm_id);
  if (a.size() < kCutIdChars) return a == b;  // the whole hash: nothing was cut
  return StartsWith(b, a);
}

InspectorLogJoin JoinInspectorComm(const NcclSetup& nccl, std::string_view inspector_id) {
  InspectorLogJoin j;
  if (!IsHexId(inspector_id)) return j;  // a name (NCCL 2.30's buckets): nothing to join on
  for (const NcclCommunicator& c : nccl.communicators) {
    if (!c.identified || !IsHexId(c.comm_id)) continue;
    j.log_has_ids = true;
    if (InspectorIdNames(inspector_id, c.comm_id)) j.several.push_back(&c);
  }
  if (j.several.size() == 1) {
    j.comm = j.several.front();
    j.several.clear();
  }
  return j;
}

std::string DescribeJoin(const InspectorLogJoin& join, std::string_view inspector_id,
                         std::vector<EvidenceRef>& refs) {
  const std::string id(inspector_id);
  if (!join.several.empty()) {
    std::string ids;
    for (const NcclCommunicator* c : join.several) {
      ids += (ids.empty() ? "" : ", ") + c->comm_id;
      if (!c->init_refs.empty()) refs.push_back(Evidence(c->init_refs.front()));
    }
    return StrFormat(
        " Its id %s is the start of %zu commIds in NCCL's log (%s): which one it is cannot be "
        "told, so it is joined with none.",
        id.c_str(), join.several.size(), ids.c_str());
  }
  if (!join.comm) {
    if (!join.log_has_ids) return "";
    return " NCCL's log of the job has no communicator whose commId starts with " + id +
           " (the init lines of ncclCommSplit and ncclCommShrink print none; or that process's "
           "log is not among the inputs).";
  }
  const NcclCommunicator& c = *join.comm;
  std::string s = " NCCL's log of the same job names it commId " + c.comm_id;
  s +=
      ToLower(c.comm_id) == ToLower(id) ? "" : " (the plugin keeps the hash's first 14 hex digits)";
  s += StrFormat(": %d ranks", c.nranks);
  if (c.nnodes > 0) s += StrFormat(" on %d node(s)", c.nnodes);
  if (!c.ranks.empty()) {
    s += " (";
    size_t listed = 0;
    for (const auto& [rank, r] : c.ranks) {
      if (listed++ == kMaxRanksListed) {
        s += StrFormat("; %zu more", c.ranks.size() - kMaxRanksListed);
        break;
      }
      s += (listed > 1 ? "; " : "") + RankPlace(r);
    }
    s += ")";
  }
  const int channels = c.coll_channels > 0 ? c.coll_channels : c.ring_channels;
  if (channels > 0) s += StrFormat(", %d channel%s", channels, channels == 1 ? "" : "s");
  if (std::string t = Transports(c); !t.empty()) s += ", connections " + t;
  s += ".";
  if (!c.init_refs.empty()) refs.push_back(Evidence(c.init_refs.front()));
  if (!c.channels_ref.line.empty()) refs.push_back(Evidence(c.channels_ref));
  if (!c.connections.empty()) refs.push_back(Evidence(c.connections.front().ref));
  return s;
}

std::string DescribeJoinedRank(const InspectorLogJoin& join, std::string_view inspector_id,
                               int rank, std::vector<EvidenceRef>& refs) {
  if (!join.comm) return DescribeJoin(join, inspector_id, refs);
  auto it = join.comm->ranks.find(rank);
  if (it == join.comm->ranks.end()) return "";
  if (!it->second.ref.line.empty()) refs.push_back(Evidence(it->second.ref));
  return " NCCL's log of the same job (commId " + join.comm->comm_id + ") puts " +
         RankPlace(it->second) + ".";
}

}  // namespace commdx::analysis
