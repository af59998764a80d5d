// The final channel counts of a communicator (grammar §2.7):
//
//   x:1:2 [0] NCCL INFO 2 coll channels, 2 p2p channels, 1 p2p channels per peer      (2.7 - 2.16)
//   036260b61d3a:33347:33366 [6] NCCL INFO 16 coll channels, 0 nvls channels, 16 p2p channels,
//       16 p2p channels per peer                                                     (2.17 - 2.19)
//   vm:656:668 [1] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p
//       channels, 32 p2p channels per peer                                           (2.20+)
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseChannelCounts(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (s.empty() || !IsDigit(s[0]) || !Contains(s, " coll channels")) return Parsed::kNo;
  ChannelCounts c;
  for (std::string_view field : Split(s, ',')) {
    field = Trim(field);
    auto n = ConsumeInt(field);
    if (!n) return Parsed::kMalformed;
    int v = static_cast<int>(*n);
    if (field == " coll channels")
      c.coll = v;
    else if (field == " collnet channels")
      c.collnet = v;
    else if (field == " nvls channels")
      c.nvls = v;
    else if (field == " p2p channels")
      c.p2p = v;
  }
  if (c.coll < 0) return Parsed::kMalformed;
  b.AddChannelCounts(li, c);
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
