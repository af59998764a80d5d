#include "ingest/kineto/event_scanner.h"

#include <array>
#include <cstring>
#include <utility>

#include "ingest/kineto/event_cat.h"
#include "ingest/kineto/json/json_values.h"

namespace commdx::ingest::kineto {

using trace_build::CollArgs;
using trace_build::EventCat;
using trace_build::RawEvent;

namespace {

// An event key of up to 7 bytes and its closing quote, compared as one little-endian word
// against the 8 bytes after the opening quote: "ph" matches `ph"`, not `phase"` or `p\"`.
using Field = EventScanner::Field;

struct KeyWord {
  uint64_t word = 0, mask = 0;
  size_t len = 0;
  Field field = Field::kFOther;
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

constexpr KeyWord kPh = Key("ph", Field::kFPh), kPid = Key("pid", Field::kFPid),
                  kTid = Key("tid", Field::kFTid), kTs = Key("ts", Field::kFTs),
                  kDur = Key("dur", Field::kFDur), kCat = Key("cat", Field::kFCat),
                  kName = Key("name", Field::kFName), kArgs = Key("args", Field::kFArgs),
                  kId = Key("id", Field::kFId);
//   "ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 653, "tid": 675,
//   "ts": 5160728064615.551, "dur": 72.853, "args": {...}
constexpr std::array<const KeyWord*, 8> kKinetoOrder = {&kPh,  &kCat, &kName, &kPid,
                                                        &kTid, &kTs,  &kDur,  &kArgs};

// Whether the builder takes nothing more from an event than what is read of it so far (its
// phase, and its name where read): then the rest is skipped by depth, still checked as JSON.
// Flow events are wanted only while some launch lacks its correlation in the args; of
// metadata, only thread names are read (HTA's MTIA trace is 68% metadata events, most of them
// process labels and sort indices). A name not read yet (metadata writes it first, before
// "ph", but need not) keeps the event.
bool RestUnused(const RawEvent& ev, bool want_flows) {
  switch (ev.ph) {
    case 'X':
      return false;
    case 's':
    case 'f':
      return !want_flows;
    case 'M':
      return ev.name.data() != nullptr && ev.name != trace_build::kThreadNameMeta;
    default:
      return trace_build::IsUnusedPhase(ev.ph);
  }
}

}  // namespace

EventScanner::EventScanner() {
  // Kineto's own layout: `{"ph": ` at the start, `, "cat": ` after "ph"'s value, and so on.
  std::string open = "{\"ph\": ";
  KeepJoint(kRowOpen, open.data(), open.data() + open.size(), kFPh);
  for (size_t i = 0; i + 1 < kKinetoOrder.size(); ++i) {
    const KeyWord& next = *kKinetoOrder[i + 1];
    std::string text = std::string(", \"") +
                       std::string(reinterpret_cast<const char*>(&next.word), next.len) + "\": ";
    KeepJoint(kKinetoOrder[i]->field, text.data(), text.data() + text.size(), next.field);
  }
}

// Inlined into Event: it runs once per member.
__attribute__((always_inline)) inline const char* EventScanner::MatchJoint(size_t row,
                                                                           const char* after,
                                                                           const char* end,
                                                                           Field& field) {
  JointRow& r = joints_[row];
  // The value must start before the end and not with whitespace, as AfterColon would have it
  // (the part is padded: Gap::At's 32-byte load is safe).
  auto fits = [&](const Joint& j) {
    return j.gap.At(after) && after + j.gap.len < end && !JsonScan::IsWs(after[j.gap.len]);
  };
  if (fits(r[0])) {
    field = r[0].next;
    return after + r[0].gap.len;
  }
  if (!fits(r[1])) return nullptr;
  std::swap(r[0], r[1]);
  field = r[0].next;
  return after + r[0].gap.len;
}

void EventScanner::KeepJoint(size_t row, const char* from, const char* to, Field next) {
  if (to - from > static_cast<ptrdiff_t>(sizeof(Gap::bytes))) return;  // keeps what it had
  JointRow& r = joints_[row];
  r[1] = r[0];  // the older one gives way
  r[0].gap.Set(from, to);
  r[0].next = next;
}

namespace {

// The `len` (<= 64) bytes at p are `bytes` (64 bytes at p must be readable).
bool BytesAt(const char* p, const char* bytes, size_t len) {
#if defined(__SSE2__)
  for (size_t i = 0; i < len; i += 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i));
    unsigned same = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
    unsigned need = len - i >= 16 ? 0xFFFFu : (1u << (len - i)) - 1;
    if ((same & need) != need) return false;
  }
  return true;
#else
  return std::memcmp(p, bytes, len) == 0;
#endif
}

}  // namespace

__attribute__((always_inline)) inline const EventScanner::ThreadHead* EventScanner::MatchThreadHead(
    const char* p, const char* end) {
  for (size_t k = 0; k < thread_heads_.size(); ++k) {
    size_t i = (last_head_ + k) % thread_heads_.size();
    const ThreadHead& h = thread_heads_[i];
    if (h.len == 0 || !BytesAt(p, h.bytes, h.len)) continue;
    if (p + h.len >= end || JsonScan::IsWs(p[h.len])) return nullptr;
    last_head_ = i;
    return &h;
  }
  return nullptr;
}

// [from, to): from the end of the name to the start of the "ts" value, read as exactly a pid
// and a tid member (the caller checks the member count).
void EventScanner::KeepThreadHead(const char* from, const char* to, const RawEvent& ev) {
  auto inside = [&](std::string_view v) { return v.data() >= from && v.data() + v.size() <= to; };
  const auto n = static_cast<size_t>(to - from);
  if (n > sizeof(ThreadHead::bytes) || !inside(ev.pid) || !inside(ev.tid)) return;
  last_head_ = (last_head_ + 1) % thread_heads_.size();
  ThreadHead& h = thread_heads_[last_head_];
  std::memcpy(h.bytes, from, n);
  h.len = static_cast<uint8_t>(n);
  h.pid_at = static_cast<uint8_t>(ev.pid.data() - from);
  h.pid_len = static_cast<uint8_t>(ev.pid.size());
  h.tid_at = static_cast<uint8_t>(ev.tid.data() - from);
  h.tid_len = static_cast<uint8_t>(ev.tid.size());
}

// Events without a head (metadata, flows) differ from the heads in their first 16 bytes, the
// same for every head of a layout (`{"ph": "X", "cat`): one compare with the last head matched
// turns them away. Heads differ from one another in the category, near their end: the last 16
// bytes are compared next (a head is at least 16 bytes), then any between.
__attribute__((always_inline)) inline const EventScanner::EventHead* EventScanner::MatchEventHead(
    const char* p, const char* end) {
  if (!BytesAt(p, event_heads_[first_event_head_].bytes, 16)) return nullptr;  // none kept: 0s
  for (size_t k = 0; k < event_heads_.size(); ++k) {
    const size_t i = first_event_head_ ^ k;
    const EventHead& h = event_heads_[i];
    if (h.len == 0 || (k != 0 && !BytesAt(p, h.bytes, 16)) ||
        !BytesAt(p + h.len - 16, h.bytes + h.len - 16, 16) ||
        (h.len > 32 && !BytesAt(p + 16, h.bytes + 16, h.len - 32u)))
      continue;
    if (p + h.len >= end || JsonScan::IsWs(p[h.len])) return nullptr;
    first_event_head_ = i;
    return &h;
  }
  return nullptr;
}

// [open, name_value): two members then the key "name" (the caller is at the third member). If
// both "ph" and "cat" were read, those two were "ph" and "cat" and nothing else of `ev` is set.
void EventScanner::KeepEventHead(const char* open, const char* name_value, const RawEvent& ev) {
  const auto n = static_cast<size_t>(name_value - open);
  const char* cat = ev.cat_text.data();
  if (n < 16 || n > sizeof(EventHead::bytes) || ev.ph == 0 || cat == nullptr) return;
  first_event_head_ ^= 1;  // the older one gives way
  EventHead& h = event_heads_[first_event_head_];
  std::memcpy(h.bytes, open, n);
  h.len = static_cast<uint8_t>(n);
  h.cat_at = static_cast<uint8_t>(cat - open);
  h.cat_len = static_cast<uint8_t>(ev.cat_text.size());
  h.ph = ev.ph;
  h.cat = ev.cat;
  const char* key = static_cast<const char*>(std::memchr(open, '"', n));
  h.cat_first = key != nullptr && key < cat && std::memcmp(key, "\"cat\"", 5) == 0;
}

const char* EventScanner::Event(JsonScan& s, const char* p, RawEvent& ev, bool want_flows) {
  const char* open = p;
  size_t member = 0;               // position of the member being read
  const char* joint_from = open;   // the end of the previous member's value (or the '{'),
  size_t joint_row = kRowOpen;     // and its joint row, where no joint matched
  const char* name_end = nullptr;  // past the name's value, read as member 2 (Kineto's place)
  Field field = kFOther;
  const char* v = nullptr;  // the value of the member being read, once known
  bool head_hit = false;
  if (const EventHead* h = MatchEventHead(open, s.end())) {
    // `{"ph": "X", "cat": "cpu_op", "name": ` as an event before began: on to the name.
    // As the slow way: an unused phase ends the event at "ph", with "cat" read only if first.
    ev.ph = h->ph;
    v = open + h->len;
    const bool unused = RestUnused(ev, want_flows);
    if (!unused || h->cat_first) {
      ev.cat_text = std::string_view(open + h->cat_at, h->cat_len);
      ev.cat = h->cat;
    }
    if (unused) return s.SkipRest(v, '{');
    head_hit = true;
    member = kFName;
    field = kFName;
  } else if (!(v = MatchJoint(kRowOpen, open, s.end(), field))) {  // `{"ph": ` as before
    p = s.SkipWs(p + 1);
    if (p < s.end() && *p == '}') return p + 1;
  }
  while (true) {
    if (!v) {  // the next key, read the slow way
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
      v = AfterColon(s, close);
      if (!v) return nullptr;
      field = hit ? hit->field : kFOther;
      KeepJoint(joint_row, joint_from, v, field);  // matched the next time
    }
    while (true) {  // one member's value at `v`; again while the next one follows a joint
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
          if (after && RestUnused(ev, want_flows)) return s.SkipRest(after, '{');
          break;
        }
        case kFCat:
          after = ReadRawStr(s, v, ev.cat_text);
          ev.cat = EventCatOf(ev.cat_text);
          break;
        case kFName:
          if (member == kFName && !head_hit) KeepEventHead(open, v, ev);
          after = ReadRawStr(s, v, ev.name);  // escaped: the interner unescapes
          if (after && ev.ph == 'M' && RestUnused(ev, want_flows)) return s.SkipRest(after, '{');
          break;
        case kFPid:
          after = ReadRawStr(s, v, ev.pid);
          break;
        case kFTid:
          after = ReadRawStr(s, v, ev.tid);
          break;
        case kFTs: {
          // Read as name, pid, tid, ts (two members between name and ts): keep those bytes.
          if (name_end && member == kFTs) KeepThreadHead(name_end, v, ev);
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
      if (field == kFName && member == kFPid) {
        name_end = nullptr;
        if (const ThreadHead* h = MatchThreadHead(after, s.end())) {
          ev.pid = std::string_view(after + h->pid_at, h->pid_len);
          ev.tid = std::string_view(after + h->tid_at, h->tid_len);
          field = kFTs;
          member = kFTs;
          v = after + h->len;
          continue;
        }
        name_end = after;
      }
      // The next member after bytes kept before: its value starts right after them.
      if ((v = MatchJoint(field, after, s.end(), field))) continue;
      joint_from = after;
      joint_row = field;
      bool closed = false;
      p = NextMember(s, after, '}', closed);
      if (!p || closed) return p;
      break;
    }
    v = nullptr;
  }
}

}  // namespace commdx::ingest::kineto
