// NCCL_DEBUG_SUBSYS=COLL and TUNING lines (grammar: docs/nccl-log-grammar.md, "COLL and TUNING
// lines"). The COLL format is the same in every release from 2.4 to 2.28; opCount is hex:
//
//   vm:656:656 [0] NCCL INFO AllReduce: opCount 1a sendbuff 0x7f2e5c000000 recvbuff
//       0x7f2e5c000000 count 8400896 datatype 7 op 0 root 0 comm 0x55fa4b963350 [nranks=2]
//       stream 0x55fa4b0d1230
//     op name ^       ^hex                         elements ^   ncclDataType_t ^ ^ncclRedOp_t
//
// TUNING lines (rank 0 only) give the algorithm and protocol of each call:
//   vm:656:656 [0] NCCL INFO AllReduce: 33603584 Bytes -> Algo RING proto SIMPLE
//       channel{Lo..Hi}={0..23}                                                   (2.24+)
//   vm:656:656 [0] NCCL INFO AllReduce: 8 Bytes -> Algo 1 proto 0 time 12.345600     (2.23)
//   vm:656:656 [0] NCCL INFO 8 Bytes -> Algo 1 proto 0 time 12.345600            (2.20 - 2.22)
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

// NCCL's opName for each call ("AllReduce", "Send", ...).
CollectiveType OpType(std::string_view name) {
  switch (name.size()) {
    case 4:
      if (name == "Send") return CollectiveType::kSend;
      if (name == "Recv") return CollectiveType::kRecv;
      break;
    case 6:
      if (name == "Reduce") return CollectiveType::kReduce;
      if (name == "Gather") return CollectiveType::kGather;
      break;
    case 7:
      if (name == "Scatter") return CollectiveType::kScatter;
      break;
    case 8:
      if (name == "SendRecv") return CollectiveType::kSendRecv;
      break;
    case 9:
      if (name == "AllReduce") return CollectiveType::kAllReduce;
      if (name == "AllGather") return CollectiveType::kAllGather;
      if (name == "Broadcast") return CollectiveType::kBroadcast;
      if (name == "AlltoAll" || name == "AllToAll") return CollectiveType::kAllToAll;
      break;
    case 13:
      if (name == "ReduceScatter") return CollectiveType::kReduceScatter;
      break;
  }
  return CollectiveType::kUnknown;
}

// Reads "<key> <value>" at the front of `s` and moves past it and one blank.
bool Field(std::string_view& s, std::string_view key, std::string_view& value) {
  if (!ConsumePrefix(s, key) || s.empty() || s[0] != ' ') return false;
  s.remove_prefix(1);
  size_t sp = s.find(' ');
  value = s.substr(0, sp);
  s.remove_prefix(sp == std::string_view::npos ? s.size() : sp + 1);
  return !value.empty();
}

std::optional<int64_t> Int(std::string_view v) { return ParseInt(v); }

Parsed ParseCall(const LineInfo& li, std::string_view name, std::string_view rest, Builder& b) {
  // rest: "opCount 1a sendbuff 0x.. recvbuff 0x.. count N datatype D op O root R comm 0x..
  // [nranks=N] stream 0x.."
  std::string_view op_count, skip, count, dtype, op, root, comm;
  if (!Field(rest, "opCount", op_count) || !Field(rest, "sendbuff", skip) ||
      !Field(rest, "recvbuff", skip) || !Field(rest, "count", count) ||
      !Field(rest, "datatype", dtype) || !Field(rest, "op", op) || !Field(rest, "root", root) ||
      !Field(rest, "comm", comm))
    return Parsed::kMalformed;
  auto oc = ParseHex(op_count);
  auto n = Int(count);
  auto dt = Int(dtype);
  auto ro = Int(op);
  auto rt = Int(root);
  if (!oc || !n || !dt || !ro || !rt || *n < 0 || *dt < 0 || *dt > 127 || *ro < 0 || *ro > 127 ||
      *rt < -1 || *rt > (1 << 30) || !StartsWith(comm, "0x"))
    return Parsed::kMalformed;
  int nranks = -1;
  if (ConsumePrefix(rest, "[nranks=")) {
    size_t close = rest.find(']');
    if (auto v = Int(rest.substr(0, close)); v && *v > 0 && *v <= (1 << 24))
      nranks = static_cast<int>(*v);
  }
  NcclCall call;
  call.op_count = *oc;
  call.count = static_cast<uint64_t>(*n);
  call.type = OpType(name);
  call.dtype = static_cast<int8_t>(*dt);
  call.red_op = static_cast<int8_t>(*ro);
  call.root = static_cast<int32_t>(*rt);
  call.line = static_cast<uint32_t>(li.line_no);
  b.AddCall(li, comm, nranks, call);
  return Parsed::kYes;
}

NcclAlgo AlgoOf(std::string_view s) {
  if (s == "TREE" || s == "0") return NcclAlgo::kTree;
  if (s == "RING" || s == "1") return NcclAlgo::kRing;
  if (s == "COLLNET_DIRECT" || s == "2") return NcclAlgo::kCollNetDirect;
  if (s == "COLLNET_CHAIN" || s == "3") return NcclAlgo::kCollNetChain;
  if (s == "NVLS" || s == "4") return NcclAlgo::kNvls;
  if (s == "NVLS_TREE" || s == "5") return NcclAlgo::kNvlsTree;
  if (s == "PAT" || s == "6") return NcclAlgo::kPat;
  return NcclAlgo::kUnknown;
}

NcclProto ProtoOf(std::string_view s) {
  if (s == "LL" || s == "0") return NcclProto::kLL;
  if (s == "LL128" || s == "1") return NcclProto::kLL128;
  if (s == "SIMPLE" || s == "2") return NcclProto::kSimple;
  return NcclProto::kUnknown;
}

// rest: "33603584 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}".
Parsed ParseTuning(const LineInfo& li, CollectiveType type, std::string_view rest, Builder& b) {
  std::string_view bytes_text = rest.substr(0, rest.find(' '));
  rest.remove_prefix(bytes_text.size());
  if (!ConsumePrefix(rest, " Bytes -> Algo ")) return Parsed::kNo;
  auto bytes = ParseInt(bytes_text);
  std::string_view algo = rest.substr(0, rest.find(' '));
  rest.remove_prefix(algo.size());
  if (!bytes || *bytes < 0 || !ConsumePrefix(rest, " proto ")) return Parsed::kMalformed;
  std::string_view proto = rest.substr(0, rest.find(' '));
  b.AddTuning(li, type, static_cast<uint64_t>(*bytes), AlgoOf(algo), ProtoOf(proto));
  return Parsed::kYes;
}

}  // namespace

Parsed ParseColl(const LineInfo& li, Builder& b) {
  std::string_view msg = li.msg;
  if (!msg.empty() && IsDigit(msg[0])) return ParseTuning(li, CollectiveType::kUnknown, msg, b);
  size_t colon = msg.substr(0, 16).find(':');
  if (colon == std::string_view::npos || colon < 4 || colon > 13 || colon + 2 >= msg.size() ||
      msg[colon + 1] != ' ')
    return Parsed::kNo;
  std::string_view name = msg.substr(0, colon);
  std::string_view rest = msg.substr(colon + 2);
  if (StartsWith(rest, "opCount ")) return ParseCall(li, name, rest, b);
  if (IsDigit(rest[0])) return ParseTuning(li, OpType(name), rest, b);
  return Parsed::kNo;
}

}  // namespace commdx::ingest::nccl_log
