// The "args" of one trace event (see event_scanner.h):
//
//   "args": {
//     "External id": 1290, "device": 0, "stream": 7, "correlation": 22417, ...
//   }
//
// Events of one category carry their args in one order (a kernel's: External id, queued, device,
// context, stream, correlation, ...), so the bytes from one arg's value to the next one's —
// separator, key, colon — repeat. They are kept per category and position once parsed, with
// what the key is, and matched in one compare after that.
#include <cstring>

#include "ingest/kineto/event_scanner.h"
#include "ingest/kineto/json/json_values.h"

namespace commdx::ingest::kineto {

using trace_build::CollArgs;
using trace_build::EventCat;
using trace_build::RawEvent;

namespace {

template <size_t N>
inline bool Is(const char* key, const char (&lit)[N]) {
  return std::memcmp(key, lit, N - 1) == 0;  // the length is already known to be N - 1
}

}  // namespace

CollArgs& EventScanner::Coll(RawEvent& ev) {
  if (!ev.coll) {
    coll_ = CollArgs{};
    ev.coll = &coll_;
  }
  return coll_;
}

EventScanner::Need EventScanner::NeedOf(const RawEvent& ev) {
  if (ev.name.empty()) return Need::kAll;  // name after args: cannot tell
  switch (ev.cat) {
    case EventCat::kCpuOp:
    case EventCat::kUserAnnotation:
      return ev.name == "record_param_comms" ? Need::kAll : Need::kExternalId;
    case EventCat::kKernel:
      return ev.name.substr(0, 4) == "nccl" || ev.name.substr(0, 4) == "rccl" ? Need::kAll
                                                                              : Need::kLaunchIds;
    case EventCat::kMemcpy:
    case EventCat::kMemset:
      return Need::kCopyBytes;
    default:
      return Need::kAll;
  }
}

inline bool EventScanner::Done(const RawEvent& ev, Need need) {
  switch (need) {
    case Need::kAll:
      return false;
    case Need::kExternalId:
      return ev.external_id >= 0;
    case Need::kLaunchIds:
      return ev.external_id >= 0 && ev.device >= 0 && ev.stream >= 0 && ev.correlation >= 0 &&
             ev.grid_x > 0;
    case Need::kCopyBytes:
      return ev.correlation >= 0 && ev.stream >= 0 && ev.bytes >= 0;
  }
  return false;
}

const char* EventScanner::Args(JsonScan& s, const char* p, RawEvent& ev, Need need) {
  ArgJoints& joints = arg_joints_[static_cast<size_t>(ev.cat)];
  const char* prev = p + 1;  // where the bytes before the next key start: past '{' or a value
  size_t at = 0;             // the position of the next arg
  Arg arg = Arg::kSkip;
  const char* v = nullptr;
  auto joint_matches = [&]() {
    if (at >= joints.size() || Done(ev, need)) return false;
    const ArgJoint& j = joints[at];
    if (!j.gap.At(prev) || prev + j.gap.len >= s.end() || JsonScan::IsWs(prev[j.gap.len]))
      return false;
    arg = j.arg;
    v = prev + j.gap.len;
    return true;
  };
  if (!joint_matches()) {
    p = s.SkipWs(p + 1);
    if (p < s.end() && *p == '}') return p + 1;
  }
  while (true) {
    if (!v) {  // `p` at the next key: read it the slow way
      if (p >= s.end()) return s.Fail(ScanError::kEnd, p);
      if (Done(ev, need)) return s.SkipRest(p, '{');
      if (*p != '"') return s.Fail(ScanError::kExpectedKey, p);
      const char* close = s.StringEnd(p + 1);
      if (!close) return nullptr;
      v = AfterColon(s, close);
      if (!v) return nullptr;
      arg = ArgOf(p + 1, static_cast<size_t>(close - p - 1));
      if (at < joints.size()) {
        joints[at].gap.Set(prev, v);
        joints[at].arg = arg;
      }
    }
    const char* after = ReadArg(s, arg, v, ev);
    if (!after) return nullptr;
    ++at;
    prev = after;
    v = nullptr;
    if (joint_matches()) continue;
    uint16_t two;
    std::memcpy(&two, after, 2);  // the part is padded
    if (two == (',' | ' ' << 8) && after + 2 < s.end() && after[2] == '"') {
      p = after + 2;  // `, "next key"`: Kineto's layout
      continue;
    }
    if (arg_gap_.At(after) && after + arg_gap_.len < s.end() && after[arg_gap_.len] == '"') {
      p = after + arg_gap_.len;  // `,\n        "next key"`: indented
      continue;
    }
    bool closed = false;
    p = NextMember(s, after, '}', closed);
    if (!p || closed) return p;
    if (*p == '"') arg_gap_.Set(after, p);
  }
}

// Keys compared raw (an escaped key is not one of these), after a switch on the length.
EventScanner::Arg EventScanner::ArgOf(const char* key, size_t len) {
  switch (len) {
    case 11:
      if (Is(key, "External id")) return Arg::kExternalId;
      if (Is(key, "correlation")) return Arg::kCorrelation;
      break;
    case 6:
      if (Is(key, "device")) return Arg::kDevice;
      if (Is(key, "stream")) return Arg::kStream;
      break;
    case 5:
      if (Is(key, "bytes")) return Arg::kBytes;
      if (Is(key, "dtype")) return Arg::kDtype;
      break;
    case 4:
      if (Is(key, "grid")) return Arg::kGrid;
      if (Is(key, "name")) return Arg::kMetaName;
      break;
    case 15:
      if (Is(key, "Collective name")) return Arg::kCollName;
      break;
    case 13:
      if (Is(key, "In msg nelems")) return Arg::kInNelems;
      if (Is(key, "In split size")) return Arg::kInSplit;
      break;
    case 14:
      if (Is(key, "Out msg nelems")) return Arg::kOutNelems;
      if (Is(key, "Out split size")) return Arg::kOutSplit;
      break;
    case 10:
      if (Is(key, "Group size")) return Arg::kGroupSize;
      break;
    case 18:
      if (Is(key, "Process Group Name")) return Arg::kPgName;
      break;
    case 25:
      if (Is(key, "Process Group Description")) return Arg::kPgDesc;
      break;
    case 19:
      if (Is(key, "Process Group Ranks")) return Arg::kPgRanks;
      break;
    case 3:
      if (Is(key, "Seq")) return Arg::kSeq;
      break;
    case 8:
      if (Is(key, "Src Rank")) return Arg::kSrcRank;
      if (Is(key, "Dst Rank")) return Arg::kDstRank;
      break;
    default:
      break;
  }
  return Arg::kSkip;
}

// Inlined into Args, its one caller (a call per arg cost ~2% of a run).
__attribute__((always_inline)) inline const char* EventScanner::ReadArg(JsonScan& s, Arg arg,
                                                                        const char* v,
                                                                        RawEvent& ev) {
  switch (arg) {
    case Arg::kSkip:
      return s.SkipValue(v);
    case Arg::kExternalId:
      return ReadInt(s, v, ev.external_id);
    case Arg::kCorrelation:
      return ReadInt(s, v, ev.correlation);
    case Arg::kDevice:
      return ReadInt(s, v, ev.device);
    case Arg::kStream:
      return ReadInt(s, v, ev.stream);
    case Arg::kBytes:
      return ReadInt(s, v, ev.bytes);
    case Arg::kDtype:
      return ReadStr(s, v, Coll(ev).dtype, dtype_);
    case Arg::kGrid:
      return ReadFirstInt(s, v, ev.grid_x);
    case Arg::kMetaName:
      return ReadRawStr(s, v, ev.meta_name);
    case Arg::kCollName:
      Coll(ev).present = true;
      return ReadStr(s, v, Coll(ev).coll_name, coll_name_);
    case Arg::kInNelems:
      return ReadInt(s, v, Coll(ev).in_nelems);
    case Arg::kInSplit:
      return ReadList(s, v, Coll(ev).in_split, in_split_);
    case Arg::kOutNelems:
      return ReadInt(s, v, Coll(ev).out_nelems);
    case Arg::kOutSplit:
      return ReadList(s, v, Coll(ev).out_split, out_split_);
    case Arg::kGroupSize:
      return ReadInt(s, v, Coll(ev).group_size);
    case Arg::kPgName:
      return ReadStr(s, v, Coll(ev).pg_name, pg_name_);
    case Arg::kPgDesc:
      return ReadStr(s, v, Coll(ev).pg_desc, pg_desc_);
    case Arg::kPgRanks:
      return ReadList(s, v, Coll(ev).pg_ranks, ranks_);
    case Arg::kSeq:
      return ReadInt(s, v, Coll(ev).seq);
    case Arg::kSrcRank:
      return ReadInt(s, v, Coll(ev).src_rank);
    case Arg::kDstRank:
      return ReadInt(s, v, Coll(ev).dst_rank);
  }
  return s.SkipValue(v);
}

}  // namespace commdx::ingest::kineto
