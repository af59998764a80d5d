// Reads one trace event object into a RawEvent straight from the bytes of a part, without a
// generic JSON iterator: keys are told apart by a word compare, the fields commdx uses are read
// in place, everything else is skipped by bracket depth (strings respected).
//
//   {
//     "ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)",
//     "pid": 0, "tid": 7, "ts": 5160728065674.523, "dur": 190.112,
//     "args": {
//       "External id": 1290, "device": 0, "stream": 7, "correlation": 22417, ...
//       "Collective name": "allreduce", "In msg nelems": 8400896, ...
//     }
//   }
// Keys may come in any order; a value of an unexpected type is a bad record for the builder, not
// a broken file.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ingest/kineto/json/json_scan.h"
#include "ingest/trace_build/raw_event.h"

namespace commdx::ingest::kineto {

class EventScanner {
 public:
  EventScanner();

  // The members an event is read by (the first eight in the order Kineto writes them);
  // event_scanner.cc names their keys.
  enum Field : uint8_t { kFPh, kFCat, kFName, kFPid, kFTid, kFTs, kFDur, kFArgs, kFId, kFOther };

  // `p` at the event's '{'. Returns past its '}', or nullptr with the error in `s`.
  // `want_flows`: flow events ("s"/"f") are read only while some GPU op or launch lacks its
  // correlation in the args (older traces); otherwise the rest of one is skipped right after
  // "ph", which Kineto writes first. So is the rest of an event of a phase the builder does not
  // use (instants, counters...), and of metadata other than a thread name once both "ph" and
  // "name" are read: `ev` then holds only those.
  const char* Event(JsonScan& s, const char* p, trace_build::RawEvent& ev, bool want_flows);

 private:
  // How much of "args" an event needs; the rest is skipped by depth:
  enum class Need {
    kAll,         // comm kernels, record_param_comms, metadata, anything not recognised
    kExternalId,  // CPU ops and annotations: External id (Kineto writes it first)
    kLaunchIds,   // compute kernels: External id, device, stream, correlation (Kineto: first)
                  // and the grid's x (which kernel runs are alike: trace.shared_gpu)
    kCopyBytes,   // copies and sets: those and "bytes"
  };
  static Need NeedOf(const trace_build::RawEvent& ev);
  static bool Done(const trace_build::RawEvent& ev, Need need);

  // `p` at the '{' of "args" (event_args.cc).
  const char* Args(JsonScan& s, const char* p, trace_build::RawEvent& ev, Need need);
  // The args commdx reads; kSkip for every other key.
  enum class Arg : uint8_t {
    kSkip, kExternalId, kCorrelation, kDevice, kStream, kBytes, kDtype, kGrid, kMetaName,
    kCollName, kInNelems, kInSplit, kOutNelems, kOutSplit, kGroupSize, kPgName, kPgDesc,
    kPgRanks, kSeq, kSrcRank, kDstRank,
  };
  // The arg whose key is [key, key + len), as written (escapes not undone).
  static Arg ArgOf(const char* key, size_t len);
  // Reads the value at `v` into `ev`: past it, or nullptr.
  const char* ReadArg(JsonScan& s, Arg arg, const char* v, trace_build::RawEvent& ev);
  trace_build::CollArgs& Coll(trace_build::RawEvent& ev);

  // The bytes a file writes between two members, from the end of one's value to the start of
  // the next one's — `, "cat": ` after "ph" in Kineto's own layout, `,\n      "cat": ` indented,
  // `,"cat":` compact — and which member that next one is. Matched, they stand for the comma,
  // the key and the colon. Kept per member read (the row), two each: complete events and
  // metadata write their keys in different orders (`{"ph": "X", "cat": ` and `{"name":
  // "thread_name", "ph": "M", "ts": `), and other producers in orders of their own. Row
  // kRowOpen holds the bytes from an event's '{' to its first value (`{"ph": `).
  static constexpr size_t kRowOpen = kFOther + 1;
  struct Joint {
    Gap gap;
    Field next = kFOther;
  };
  // slot[0] is the one matched or kept last, tried first.
  using JointRow = std::array<Joint, 2>;
  std::array<JointRow, kRowOpen + 1> joints_;
  // At `after` (the end of a member's value, or an event's '{'): a joint of `row` whose value
  // follows it; sets `field` and returns that value, or nullptr.
  const char* MatchJoint(size_t row, const char* after, const char* end, Field& field);
  // The slow way read [from, to) as the joint from `row` to a member of kind `next`.
  void KeepJoint(size_t row, const char* from, const char* to, Field next);
  // Per thread, the bytes from the end of an event's name to its "ts" value — `, "pid": 653,
  // "tid": 675, "ts": ` — and where the pid and tid values lie in them, kept where an event
  // read them the slow way as just those two members: a few threads, the one last met first.
  struct ThreadHead {
    char bytes[64] = {};
    uint8_t len = 0, pid_at = 0, pid_len = 0, tid_at = 0, tid_len = 0;
  };
  std::array<ThreadHead, 4> thread_heads_;
  size_t last_head_ = 0;  // the one matched or kept last
  const ThreadHead* MatchThreadHead(const char* p, const char* end);
  void KeepThreadHead(const char* from, const char* to, const trace_build::RawEvent& ev);
  // The bytes from an event's '{' to the value of its third member where the first two were
  // "ph" and "cat" and the third is "name" — `{"ph": "X", "cat": "cpu_op", "name": ` — with
  // what they read as: matched, they stand for both members. Kept where an event read them
  // the slow way; two, the one matched last tried first (Kineto's events alternate between a
  // few categories: CPU ops and runtime calls on a thread, kernels and copies on a stream).
  struct EventHead {
    char bytes[64] = {};
    uint8_t len = 0, cat_at = 0, cat_len = 0;
    char ph = 0;
    bool cat_first = false;  // "cat" before "ph"
    trace_build::EventCat cat = trace_build::EventCat::kNone;
  };
  std::array<EventHead, 2> event_heads_;
  size_t first_event_head_ = 0;  // the one matched or kept last
  const EventHead* MatchEventHead(const char* p, const char* end);
  void KeepEventHead(const char* open, const char* name_value, const trace_build::RawEvent& ev);
  Gap arg_gap_;  // between an args value and the next args key's quote, where not `, `
  // Per event category, for the first args in their order: the bytes from the end of the
  // previous value (or the '{') to the start of this one's, and which arg it is.
  struct ArgJoint {
    Gap gap;
    Arg arg = Arg::kSkip;
  };
  using ArgJoints = std::array<ArgJoint, 8>;
  std::array<ArgJoints, trace_build::kEventCats> arg_joints_;

  trace_build::CollArgs coll_;  // the collective args of the event being read, if it has any
  std::string ranks_, in_split_, out_split_;           // flattened lists
  std::string coll_name_, dtype_, pg_name_, pg_desc_;  // unescaped strings, where they had escapes
};

}  // namespace commdx::ingest::kineto
