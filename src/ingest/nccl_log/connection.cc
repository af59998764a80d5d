// Per-peer connection lines: the transport of each (src, dst) pair and channel (grammar §2.6).
//
//   vm:656:675 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read     (2.18+: nvmlDev)
//            ^chan/conn ^rank[id] -> rank[id]  ^transport
//   swat1-04:2017630:2017699 [5] NCCL INFO Channel 03/0 : 5[5] -> 12[4] [send] via NET/IB/3
//   x:1:2 [0] NCCL INFO Channel 00/0 : 2[2] -> 10[2] [send] via NET/IB/0(1)/GDRDMA   (PXN proxy 1)
//   nccl-tests:225:240 [1] NCCL INFO Channel 00 : 1[c2000] -> 0[c1000] via P2P/direct pointer
//   gpu2-ru7:2144:2556 [2] NCCL INFO Ring 00 : 2[3d000] -> 3[3e000] via direct shared memory
//   sh-01:98911:98923 [3] NCCL INFO Ring 00 : 3[b01000] -> 4[201000] [send] via NET/Socket/0
//   host:1:2 [0] NCCL INFO Ring 00 : 1 -> 0 [receive] via NET/Socket/0          (<= 2.4, no id)
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

// "12[4]" or "12": rank and the bracketed id.
bool ReadPeer(std::string_view& s, int& rank, std::string& id) {
  auto r = ConsumeInt(s);
  if (!r || *r < 0 || *r > (1 << 24)) return false;
  rank = static_cast<int>(*r);
  if (!s.empty() && s[0] == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos) return false;
    id = ToLower(s.substr(1, close - 1));
    s.remove_prefix(close + 1);
  }
  return true;
}

// "NET/IB/0(1)/GDRDMA": NIC index 0, PXN proxy rank 1.
void ReadNetDev(std::string_view via, NcclConnection& c) {
  size_t second = via.find('/', 4);
  if (second == std::string_view::npos) return;
  std::string_view rest = via.substr(second + 1);
  auto dev = ConsumeInt(rest);
  if (!dev) return;
  c.net_dev = static_cast<int>(*dev);
  if (!rest.empty() && rest[0] == '(') {
    rest.remove_prefix(1);
    if (auto p = ConsumeInt(rest)) c.proxy_rank = static_cast<int>(*p);
  }
}

}  // namespace

Parsed ParseConnection(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (!ConsumePrefix(s, "Channel ") && !ConsumePrefix(s, "Ring ")) return Parsed::kNo;
  // " via " located from its rare 'v' (one memchr; string_view::find stops at every space).
  size_t via = std::string_view::npos;
  for (size_t at = s.find('v'); at != std::string_view::npos; at = s.find('v', at + 1)) {
    if (at > 0 && s.substr(at - 1, 5) == " via ") {
      via = at - 1;
      break;
    }
  }
  if (via == std::string_view::npos) return Parsed::kNo;    // a ring order line, not a connection
  if (b.CountDuplicateConnection(li)) return Parsed::kYes;  // long logs repeat these lines
  NcclConnection c;
  auto chan = ConsumeInt(s);
  if (!chan) return Parsed::kMalformed;
  c.channel = static_cast<int>(*chan);
  if (!s.empty() && s[0] == '/') {  // connection index
    s.remove_prefix(1);
    if (!ConsumeInt(s)) return Parsed::kMalformed;
  }
  if (!ConsumePrefix(s, " : ")) return Parsed::kMalformed;
  if (!ReadPeer(s, c.from_rank, c.from_id)) return Parsed::kMalformed;
  if (!ConsumePrefix(s, " -> ")) return Parsed::kMalformed;
  if (!ReadPeer(s, c.to_rank, c.to_id)) return Parsed::kMalformed;
  if (ConsumePrefix(s, " [send]"))
    c.direction = 1;
  else if (ConsumePrefix(s, " [receive]"))
    c.direction = 2;
  if (!ConsumePrefix(s, " via ")) return Parsed::kMalformed;
  std::string_view transport = Trim(s);
  if (transport.empty()) return Parsed::kMalformed;
  c.transport = std::string(transport);
  c.kind = ClassifyTransport(transport);
  c.gdr = Contains(transport, "GDRDMA");
  if (StartsWith(transport, "NET/")) ReadNetDev(transport, c);
  b.AddConnection(li, std::move(c));
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
