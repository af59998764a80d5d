#include "ingest/kineto/event_scanner.h"

#include <array>
#include <cstring>

#include "base/text.h"
#include "ingest/kineto/json/json_values.h"

namespace commdx::ingest::kineto {

using trace_build::CollArgs;
using trace_build::EventCat;
using trace_build::RawEvent;

namespace {

EventCat CatOf(std::string_view c) {
  switch (c.size()) {
    case 6:
      if (c == "kernel" || c == "Kernel") return EventCat::kKernel;
      if (c == "cpu_op") return EventCat::kCpuOp;
      if (c == "Memcpy") return EventCat::kMemcpy;
      if (c == "Memset") return EventCat::kMemset;
      break;
    case 4:
      if (c == "ac2g") return EventCat::kFlow;
      break;
    case 7:
      if (c == "Runtime") return EventCat::kRuntime;
      if (c == "fwdbwd") return EventCat::kFlow;
      break;
    case 8:
      if (c == "Operator") return EventCat::kCpuOp;
      if (c == "overhead") return EventCat::kIgnored;
      break;
    case 9:
      if (c == "cuda_sync") return EventCat::kCudaSync;
      break;
    case 10:
      if (c == "gpu_memcpy") return EventCat::kMemcpy;
      if (c == "gpu_memset") return EventCat::kMemset;
      break;
    case 11:
      if (c == "cuda_driver") return EventCat::kDriver;
      break;
    case 12:
      if (c == "cuda_runtime") return EventCat::kRuntime;
      break;
    case 15:
      if (c == "user_annotation") return EventCat::kUserAnnotation;
      if (c == "python_function") return EventCat::kPythonFunction;
      break;
    case 16:
      if (c == "async_cpu_to_gpu") return EventCat::kFlow;
      break;
    case 19:
      if (c == "gpu_user_annotation") return EventCat::kGpuUserAnnotation;
      break;
    default:
      break;
  }
  if (c.empty()) return EventCat::kNone;
  if (EndsWith(c, "_runtime")) return EventCat::kRuntime;  // hip_, privateuse1_, mtia_, xpu_
  if (EndsWith(c, "_driver")) return EventCat::kDriver;
  if (c == "Trace" || c == "cpu_instant_event" || c == "Python" || c == "gpu_instant_event" ||
      c == "kineto" || c == "memory" || c == "Overhead" || c == "cuda_sync_event" ||
      c == "cpu_instant")
    return EventCat::kIgnored;
  // Not GPU kernels: an MTIA event_wait lasts as long as the wait, and pe_exe events overlap
  // once per processing element, so their spans are not busy time of one device.
  if (c == "cuda_profiler_range" || EndsWith(c, "_ccp_events") || StartsWith(c, "mtia_") ||
      StartsWith(c, "xpu_") || StartsWith(c, "hpu_") || StartsWith(c, "privateuse1_"))
    return EventCat::kOtherDevice;
  return EventCat::kUnknown;
}

// An event key of up to 7 bytes and its closing quote, compared as one little-endian word
// against the 8 bytes after the opening quote: "ph" matches `ph"`, not `phase"` or `p\"`.
// The event keys commdx reads; the first eight in the order Kineto writes them.
enum Field : uint8_t { kFPh, kFCat, kFName, kFPid, kFTid, kFTs, kFDur, kFArgs, kFId, kFOther };

struct KeyWord {
  uint64_t word = 0, mask = 0;
  size_t len = 0;
  Field field = kFOther;
};

template <size_t N>
constexpr KeyWord Key(const char (&lit)[N], Field field) {
  static_assert(N <= 8, "key and quote must fit a word");
  KeyWord k;
  for (size_t i = 0; i < N - 1; ++i)
    k.word |= uint64_t{static_cast<unsigned char>(lit[i])} << (8 * i);
  k.word |= uint64_t{'"'} << (8 * (N - 1));
  k.mask = N == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * N)) - 1;
  k.len = N - 1;
  k.field = field;
  return k;
}

inline bool Is(uint64_t w, const KeyWord& k) { return (w & k.mask) == k.word; }

template <size_t N>
inline bool Is(const char* key, const char (&lit)[N]) {
  return std::memcmp(key, lit, N - 1) == 0;  // the length is already known to be N - 1
}

constexpr KeyWord kPh = Key("ph", kFPh), kPid = Key("pid", kFPid), kTid = Key("tid", kFTid),
                  kTs = Key("ts", kFTs), kDur = Key("dur", kFDur), kCat = Key("cat", kFCat),
                  kName = Key("name", kFName), kArgs = Key("args", kFArgs), kId = Key("id", kFId);
//   "ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 653, "tid": 675,
//   "ts": 5160728064615.551, "dur": 72.853, "args": {...}
constexpr std::array<const KeyWord*, 8> kKinetoOrder = {&kPh,  &kCat, &kName, &kPid,
                                                        &kTid, &kTs,  &kDur,  &kArgs};

}  // namespace

EventScanner::EventScanner() {
  // Kineto's own layout: `, "cat": ` after "ph"'s value, and so on.
  for (size_t i = 0; i < joints_.size(); ++i) {
    std::string text = std::string(", \"") +
                       std::string(reinterpret_cast<const char*>(&kKinetoOrder[i + 1]->word),
                                   kKinetoOrder[i + 1]->len) +
                       "\": ";
    joints_[i].Set(text.data(), text.data() + text.size());
  }
}

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
      return ev.external_id >= 0 && ev.device >= 0 && ev.stream >= 0 && ev.correlation >= 0;
    case Need::kCopyBytes:
      return ev.correlation >= 0 && ev.stream >= 0 && ev.bytes >= 0;
  }
  return false;
}

const char* EventScanner::Event(JsonScan& s, const char* p, RawEvent& ev, bool want_flows) {
  p = s.SkipWs(p + 1);
  if (p < s.end() && *p == '}') return p + 1;
  size_t member = 0;                 // position of the member being read
  const char* joint_from = nullptr;  // the end of the previous member's value, where in order
  while (true) {
    if (p >= s.end()) return s.Fail(ScanError::kEnd, p);
    if (*p != '"') return s.Fail(ScanError::kExpectedKey, p);
    const char* k = p + 1;
    uint64_t w;
    std::memcpy(&w, k, 8);  // the part is padded: reading past a short key is safe
    // Kineto writes complete events' keys in one order: trying the key expected at this
    // position first keeps the dispatch predictable; any other order takes the switch.
    const KeyWord* hit = nullptr;
    if (member < kKinetoOrder.size() && Is(w, *kKinetoOrder[member])) {
      hit = kKinetoOrder[member];
    } else {
      switch (k[0]) {
        case 'p':
          hit = Is(w, kPh) ? &kPh : Is(w, kPid) ? &kPid : nullptr;
          break;
        case 't':
          hit = Is(w, kTs) ? &kTs : Is(w, kTid) ? &kTid : nullptr;
          break;
        case 'd':
          hit = Is(w, kDur) ? &kDur : nullptr;
          break;
        case 'c':
          hit = Is(w, kCat) ? &kCat : nullptr;
          break;
        case 'n':
          hit = Is(w, kName) ? &kName : nullptr;
          break;
        case 'a':
          hit = Is(w, kArgs) ? &kArgs : nullptr;
          break;
        case 'i':
          hit = Is(w, kId) ? &kId : nullptr;
          break;
        default:
          break;
      }
    }
    const char* close = hit ? k + hit->len : s.StringEnd(k);
    if (!close) return nullptr;
    if (close >= s.end()) return s.Fail(ScanError::kUnterminated, p);
    const char* v = AfterColon(s, close);
    if (!v) return nullptr;
    Field field = hit ? hit->field : kFOther;
    // Kineto's order, but not the bytes expected between the two members: learn these.
    if (joint_from && size_t{field} == member) joints_[member - 1].Set(joint_from, v);
    while (true) {  // one member's value at `v`; again while the next one is where Kineto puts it
      const char* after = nullptr;
      switch (field) {
        case kFPh: {
          std::string_view ph;
          unsigned char c1 = static_cast<unsigned char>(v[1]);  // readable: the part is padded
          if (v + 2 < s.end() && v[0] == '"' && v[2] == '"' && c1 >= 0x20 && c1 < 0x7f &&
              c1 != '\\' && c1 != '"') {
            ph = std::string_view(v + 1, 1);  // "X": the usual one-letter phase
            after = v + 3;
          } else {
            after = ReadRawStr(s, v, ph);
          }
          ev.ph = ph.size() == 1 ? ph[0] : '?';
          if (after && !want_flows && (ev.ph == 's' || ev.ph == 'f')) return s.SkipRest(after, '{');
          break;
        }
        case kFCat:
          after = ReadRawStr(s, v, ev.cat_text);
          ev.cat = CatOf(ev.cat_text);
          break;
        case kFName:
          after = ReadRawStr(s, v, ev.name);  // escaped: the interner unescapes
          break;
        case kFPid:
          after = ReadRawStr(s, v, ev.pid);
          break;
        case kFTid:
          after = ReadRawStr(s, v, ev.tid);
          break;
        case kFTs: {
          ev.has_ts = true;
          bool ok = false;
          after = ReadMicros(s, v, ev.ts_ns, ok);
          ev.bad_ts = !ok;
          break;
        }
        case kFDur: {
          ev.has_dur = true;
          bool ok = false;
          after = ReadMicros(s, v, ev.dur_ns, ok);
          ev.bad_dur = !ok;
          break;
        }
        case kFArgs:
          // Not an object: not used, skipped with the event.
          after = v < s.end() && *v == '{' ? Args(s, v, ev, NeedOf(ev)) : s.SkipValue(v);
          break;
        case kFId:
          after = ReadInt(s, v, ev.flow_id);
          break;
        case kFOther:
          after = s.SkipValue(v);
          break;
      }
      if (!after) return nullptr;
      ++member;
      // The next member where Kineto puts it: its value starts right after the joint (the
      // part is padded, so the 32-byte load is safe; the value must start before the end and
      // not with whitespace, as AfterColon would have it).
      joint_from = nullptr;
      if (size_t{field} + 1 == member && member < kKinetoOrder.size()) {
        const Gap& j = joints_[member - 1];
        if (j.At(after) && after + j.len < s.end() && !JsonScan::IsWs(after[j.len])) {
          field = static_cast<Field>(member);
          v = after + j.len;
          continue;
        }
        joint_from = after;
      }
      bool closed = false;
      p = NextMember(s, after, '}', closed);
      if (!p || closed) return p;
      break;
    }
  }
}

//   "args": {
//     "External id": 1290, "device": 0, "stream": 7, "correlation": 22417, ...
//   }
const char* EventScanner::Args(JsonScan& s, const char* p, RawEvent& ev, Need need) {
  p = s.SkipWs(p + 1);
  if (p < s.end() && *p == '}') return p + 1;
  while (true) {
    if (p >= s.end()) return s.Fail(ScanError::kEnd, p);
    if (Done(ev, need)) return s.SkipRest(p, '{');
    if (*p != '"') return s.Fail(ScanError::kExpectedKey, p);
    const char* close = s.StringEnd(p + 1);
    if (!close) return nullptr;
    const char* v = AfterColon(s, close);
    if (!v) return nullptr;
    const char* after = ArgField(s, p + 1, static_cast<size_t>(close - p - 1), v, ev);
    if (!after) return nullptr;
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
const char* EventScanner::ArgField(JsonScan& s, const char* key, size_t len, const char* v,
                                   RawEvent& ev) {
  switch (len) {
    case 11:
      if (Is(key, "External id")) return ReadInt(s, v, ev.external_id);
      if (Is(key, "correlation")) return ReadInt(s, v, ev.correlation);
      break;
    case 6:
      if (Is(key, "device")) return ReadInt(s, v, ev.device);
      if (Is(key, "stream")) return ReadInt(s, v, ev.stream);
      break;
    case 5:
      if (Is(key, "bytes")) return ReadInt(s, v, ev.bytes);
      if (Is(key, "dtype")) return ReadStr(s, v, Coll(ev).dtype, dtype_);
      break;
    case 4:
      if (Is(key, "grid")) return ReadFirstInt(s, v, ev.grid_x);
      if (Is(key, "name")) return ReadRawStr(s, v, ev.meta_name);
      break;
    case 15:
      if (Is(key, "Collective name")) {
        Coll(ev).present = true;
        return ReadStr(s, v, Coll(ev).coll_name, coll_name_);
      }
      break;
    case 13:
      if (Is(key, "In msg nelems")) return ReadInt(s, v, Coll(ev).in_nelems);
      if (Is(key, "In split size")) return ReadList(s, v, Coll(ev).in_split, in_split_);
      break;
    case 14:
      if (Is(key, "Out msg nelems")) return ReadInt(s, v, Coll(ev).out_nelems);
      if (Is(key, "Out split size")) return ReadList(s, v, Coll(ev).out_split, out_split_);
      break;
    case 10:
      if (Is(key, "Group size")) return ReadInt(s, v, Coll(ev).group_size);
      break;
    case 18:
      if (Is(key, "Process Group Name")) return ReadStr(s, v, Coll(ev).pg_name, pg_name_);
      break;
    case 25:
      if (Is(key, "Process Group Description")) return ReadStr(s, v, Coll(ev).pg_desc, pg_desc_);
      break;
    case 19:
      if (Is(key, "Process Group Ranks")) return ReadList(s, v, Coll(ev).pg_ranks, ranks_);
      break;
    case 3:
      if (Is(key, "Seq")) return ReadInt(s, v, Coll(ev).seq);
      break;
    case 8:
      if (Is(key, "Src Rank")) return ReadInt(s, v, Coll(ev).src_rank);
      if (Is(key, "Dst Rank")) return ReadInt(s, v, Coll(ev).dst_rank);
      break;
    default:
      break;
  }
  return s.SkipValue(v);
}

}  // namespace commdx::ingest::kineto
