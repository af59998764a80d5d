// Ring orders and trees (grammar §2.7):
//
//   vm:656:667 [0] NCCL INFO Channel 00/24 : 0 1          ring of channel 00 of 24 (2.5+)
//   nccl-tests:225:239 [0] NCCL INFO Channel 00/02 :    0   1
//   host:1:1 [0] NCCL INFO Channel 00 :    0   1          (<= 2.4: no channel count)
//   vm:656:667 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1
//   vm:656:668 [1] NCCL INFO Ring 00 : 0 -> 1 -> 0        (GRAPH: prev -> me -> next; not kept)
//   vm:656:668 [1] NCCL INFO Tree 0 : -1 -> 0 -> 1/-1/-1  (GRAPH; not kept)
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

// "   0   1  2" -> "0 1 2"; false if anything but integers is there.
bool NormaliseOrder(std::string_view s, std::string& out) {
  out.clear();
  for (auto tok : SplitWhitespace(s)) {
    if (!ParseInt(tok)) return false;
    if (!out.empty()) out += ' ';
    out.append(tok);
  }
  return !out.empty();
}

}  // namespace

Parsed ParseRingsTrees(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (ConsumePrefix(s, "Trees ")) {
    if (s.empty() || s[0] != '[') return Parsed::kMalformed;
    b.AddTrees(li, Trim(s));
    return Parsed::kYes;
  }
  if (StartsWith(s, "Tree ") || StartsWith(s, "Ring ")) {
    // GRAPH-subsystem per-channel neighbours; the connection lines carry the same facts.
    return Parsed::kYes;
  }
  if (!ConsumePrefix(s, "Channel ")) return Parsed::kNo;
  auto chan = ConsumeInt(s);
  if (!chan) return Parsed::kMalformed;
  int nchannels = -1;
  if (!s.empty() && s[0] == '/') {
    s.remove_prefix(1);
    auto n = ConsumeInt(s);
    if (!n) return Parsed::kMalformed;
    nchannels = static_cast<int>(*n);
  }
  if (!ConsumePrefix(s, " :")) return Parsed::kMalformed;
  std::string order;
  if (!NormaliseOrder(s, order)) return Parsed::kMalformed;
  b.AddRingOrder(li, static_cast<int>(*chan), nchannels, order);
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
