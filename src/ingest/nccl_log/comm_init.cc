// Communicator init lines (grammar §2.9), every era:
//
//   gpu-bql-144-103:18553:18612 [0] INFO comm 0x7fa42c00a3b0 rank 0 nranks 2            (<= 2.3)
//   x:1:2 [0] NCCL INFO comm 0x.. rank 15 nranks 64 cudaDev 0 nvmlDev 0 - Init COMPLETE  (2.4)
//   x:1:2 [0] NCCL INFO comm 0x8dd01c0 rank 2 nranks 16 cudaDev 2 busId 48000 - Init COMPLETE
//   036260b61d3a:33347:33367 [7] NCCL INFO comm 0x563f5c8e74c0 rank 7 nranks 8 cudaDev 7
//       nvmlDev 7 busId d7000 commId 0x151891d39ece6192 - Init COMPLETE           (2.18 - 2.20)
//   vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0x55fa4b963350 rank 0 nranks 2 cudaDev 0
//       nvmlDev 0 busId 60 commId 0x88a86db28df0013a - Init START                 (2.21+)
//   ubuntu2:321050:321050 [1] NCCL INFO [Rank 1] ncclCommInitRank comm 0x5563e3b79140 rank 1
//       nranks 4 cudaDev 1 nvmlDev 1 busId b1000 commId 0xef3a13f82ff54f6a - Init START
//                                                     (2.29+: the rank first, START only)
//   ncclCommShrink comm 0x.. rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId b1000 parent 0x..
//       childCount 0 color 0 key 3- Init START      (2.29+: childCount for splitCount)
//   ncclCommSplit comm 0x.. rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1a000 commId 0x.. parent
//       0x.. color 0 key 0 - Init COMPLETE
//   vm:656:668 [1] NCCL INFO comm 0x55fa4ba6b9b0 rank 1 nRanks 2 nNodes 1 localRanks 2
//       localRank 1 MNNVL 0                                                       (2.20+)
//   comm 0x.. rank 0 nranks 2 cudaDev 0 busId 60 - Destroy COMPLETE   (kept as nothing)
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

// "ncclCommInitRank comm 0x..", "ncclCommSplit comm 0x..", "comm 0x..": the text from "comm ".
std::string_view CommPart(std::string_view msg) {
  if (StartsWith(msg, "comm 0x")) return msg;
  if (!StartsWith(msg, "nccl") && !StartsWith(msg, "bootstrapSplit")) return {};
  size_t sp = msg.find(' ');
  if (sp == std::string_view::npos || sp > 40) return {};
  std::string_view rest = msg.substr(sp + 1);
  return StartsWith(rest, "comm 0x") ? rest : std::string_view();
}

// "[Rank 1] " before the call name (2.29+): the rank, and the message after it; -1 and the
// message unchanged when there is none.
int RankPrefix(std::string_view& msg) {
  if (!StartsWith(msg, "[Rank ")) return -1;
  size_t close = msg.find(']');
  if (close == std::string_view::npos) return -1;
  auto rank = ParseInt(msg.substr(6, close - 6));
  if (!rank || *rank < 0) return -1;
  msg = TrimLeft(msg.substr(close + 1));
  return static_cast<int>(*rank);
}

}  // namespace

Parsed ParseCommInit(const LineInfo& li, Builder& b) {
  std::string_view msg = li.msg;
  const int prefix_rank = RankPrefix(msg);
  // "comm 0x352ef030 rank 0 nRanks 2 cudaDev 0 busId 60 - Abort START" (NCCL 2.28.9 on a
  // normal destroy_process_group; "Destroy START" likewise).
  std::string_view tail = TrimRight(li.msg);
  if (EndsWith(tail, "Abort START") || EndsWith(tail, "Destroy START")) {
    b.MarkTeardown(li);
    if (StartsWith(li.msg, "comm 0x")) return Parsed::kYes;
  }
  std::string_view part = CommPart(msg);
  if (part.empty()) return Parsed::kNo;
  std::string_view ptr = WordAfter(part, "comm");
  if (EndsWith(part, "Destroy COMPLETE") || EndsWith(part, "Abort COMPLETE") ||
      Contains(part, "- DONE"))
    return Parsed::kYes;
  if (Contains(part, " nNodes ")) {
    CommNodes n;
    n.ptr = ptr;
    n.rank = IntAfter(part, "rank");
    n.nranks = IntAfter(part, "nRanks");
    n.nnodes = IntAfter(part, "nNodes");
    n.local_rank = IntAfter(part, "localRank");
    if (n.rank < 0 || n.nranks <= 0 || n.nnodes <= 0) return Parsed::kMalformed;
    b.AddCommNodes(li, n);
    return Parsed::kYes;
  }
  CommInit c;
  c.ptr = ptr;
  c.rank = IntAfter(part, "rank");
  c.nranks = IntAfter(part, "nranks");
  if (c.nranks < 0) c.nranks = IntAfter(part, "nRanks");
  c.cuda_dev = IntAfter(part, "cudaDev");
  c.nvml_dev = IntAfter(part, "nvmlDev");
  c.bus_id = WordAfter(part, "busId");
  c.comm_id = WordAfter(part, "commId");
  c.parent = WordAfter(part, "parent");
  c.color = WordAfter(part, "color");
  c.start = EndsWith(TrimRight(part), "Init START");
  c.complete = EndsWith(TrimRight(part), "Init COMPLETE");
  if (ptr.empty() || c.rank < 0 || c.nranks <= 0 || c.rank >= c.nranks) return Parsed::kMalformed;
  if (prefix_rank >= 0 && prefix_rank != c.rank) return Parsed::kMalformed;
  b.AddCommInit(li, c);
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
