// What the event scanner learns from the events before one — the bytes between members, the
// thread and event heads (src/ingest/kineto/event_scanner.h) — never changes how that event is
// read: a shared scanner reads each event as a fresh one does.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ingest/kineto/event_scanner.h"
#include "ingest/kineto/json/json_scan.h"
#include "unit/scan_one_event.h"

namespace commdx {
namespace {

using ingest::kineto::EventScanner;
using ingest::kineto::JsonScan;
using ingest::trace_build::EventCat;
using ingest::trace_build::RawEvent;

// `json` read by `shared`, which has learned the layout of the events before it, reads as it
// does by a fresh scanner, field by field, error by error.
void ExpectReadAsFresh(EventScanner& shared, const std::string& json, bool want_flows = true) {
  Scanned fresh;
  ScanInto(fresh, json, want_flows);
  RawEvent ev;
  std::string buf = json + std::string(64, ' ');
  JsonScan s(buf.data() + json.size());
  const char* end = shared.Event(s, s.SkipWs(buf.data()), ev, want_flows);
  long consumed = end ? end - buf.data() : -1;
  long error_at = s.error_at() ? s.error_at() - buf.data() : -1;
  EXPECT_EQ(consumed, fresh.consumed) << json;
  EXPECT_EQ(s.error(), fresh.error) << json;
  EXPECT_EQ(error_at, fresh.error_at) << json;
  const RawEvent& f = fresh.ev;
  EXPECT_EQ(ev.ph, f.ph) << json;
  EXPECT_EQ(ev.cat, f.cat) << json;
  EXPECT_EQ(ev.cat_text, f.cat_text) << json;
  EXPECT_EQ(ev.name, f.name) << json;
  EXPECT_EQ(ev.pid, f.pid) << json;
  EXPECT_EQ(ev.tid, f.tid) << json;
  EXPECT_EQ(ev.ts_ns, f.ts_ns) << json;
  EXPECT_EQ(ev.dur_ns, f.dur_ns) << json;
  EXPECT_EQ(ev.has_ts, f.has_ts) << json;
  EXPECT_EQ(ev.bad_ts, f.bad_ts) << json;
  EXPECT_EQ(ev.has_dur, f.has_dur) << json;
  EXPECT_EQ(ev.external_id, f.external_id) << json;
  EXPECT_EQ(ev.device, f.device) << json;
  EXPECT_EQ(ev.stream, f.stream) << json;
  EXPECT_EQ(ev.correlation, f.correlation) << json;
  EXPECT_EQ(ev.bytes, f.bytes) << json;
  EXPECT_EQ(ev.grid_x, f.grid_x) << json;
  EXPECT_EQ(ev.meta_name, f.meta_name) << json;
  EXPECT_EQ(ev.flow_id, f.flow_id) << json;
}

// The scanner keeps the bytes a file writes between members (`, "cat": `, `,\n      "cat": `)
// once it has parsed them, and matches later ones in one compare. What it learned from earlier
// events must never change how a later one is read: each event below, read by one scanner in
// turn, gives the same fields, end and error as a fresh scanner reading it alone.
TEST(KinetoScanner, LearnedLayoutNeverChangesWhatIsRead) {
  const std::string kineto =
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 10, "dur": 5, )j"
      R"j("args": {"External id": 3, "device": 0, "stream": 7, "correlation": 9, "grid": [2, 1, 1]}})j";
  const std::string compact =
      R"j({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":11,"dur":4,)j"
      R"j("args":{"External id":4}})j";
  const std::string indented =
      "{\n      \"ph\": \"X\",\n      \"cat\": \"gpu_memcpy\",\n      \"name\": \"Memcpy HtoD\",\n"
      "      \"pid\": 1,\n      \"tid\": 7,\n      \"ts\": 12,\n      \"dur\": 3,\n"
      "      \"args\": {\n        \"External id\": 5,\n        \"device\": 0,\n"
      "        \"stream\": 7,\n        \"correlation\": 10,\n        \"bytes\": 64\n      }\n    }";
  const std::string crlf =
      "{\r\n      \"ph\": \"X\",\r\n      \"cat\": \"cpu_op\",\r\n      \"name\": \"a\",\r\n"
      "      \"pid\": 1,\r\n      \"tid\": 2,\r\n      \"ts\": 13,\r\n      \"dur\": 2,\r\n"
      "      \"args\": {\r\n        \"External id\": 6\r\n      }\r\n    }";
  const std::string cases[] = {
      kineto,
      compact,
      indented,
      crlf,
      kineto,
      indented,
      compact,
      // The joint's bytes, then a value that starts with whitespace or is missing.
      R"j({"ph": "X", "cat":  "kernel", "name": "k", "pid":	1, "tid": 7, "ts": 14, "dur": 5})j",
      R"j({"ph": "X", "cat": "cpu_op", "name": "k", "pid": , "tid": 7})j",
      R"j({"ph": "X", "cat": "cpu_op", "name": "k", "pid": 1, "tid": 7, "ts": 15, "dur": })j",
      // Kineto's keys at other places, a key that only starts like the next one, the same key
      // twice, a member whose gap is longer than 32 bytes.
      R"j({"ph": "X", "name": "n", "cat": "cpu_op", "pid": 1, "tid": 7, "dur": 1, "ts": 16})j",
      R"j({"ph": "X", "cat": "cpu_op", "names": "x", "name": "n", "pid": 1, "tid": 7, "ts": 17})j",
      R"j({"ph": "X", "cat": "cpu_op", "cat": "kernel", "name": "n", "pid": 1, "tid": 7})j",
      "{\"ph\": \"X\",                                        \"cat\": \"cpu_op\", \"name\": "
      "\"m\"}",
      R"j({"ph": "X", "cat": "cpu_op", "name": "k", "pid": 1, "tid": 7, "ts": 18, "dur": 5, )j"
      R"j("args": {"External id": 7,)j"
      "\n           "
      R"j("Input Dims": [[1]]}})j",
      // Args gaps: Kineto's, then ones a learned gap almost matches.
      R"j({"ph": "X", "cat": "kernel", "name": "k", "args": {"device": 0,  "stream": 7, )j"
      R"j("correlation": 1, "External id": 2}})j",
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"args\": {\"device\": 0,\n"
      "        \"stream\": 7,\n         \"correlation\": 1,\n        \"External id\": 2}}",
      kineto,
      crlf,
      compact,
      // Threads kept from name to ts: the same bytes but a longer tid, a string tid, pid and
      // tid the other way round, one of them twice, another member between.
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 77, "ts": 20, "dur": 5})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": "thread 9", "ts": 21})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "tid": 7, "pid": 1, "ts": 22, "dur": 5})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "pid": 7, "ts": 23, "dur": 5})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "cat": "cpu_op", "ts": 24})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 25, "dur": 5})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "tid": 7, "pid": 1, "ts": 26, "dur": 5})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts":  27, "dur": 5})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": "thread 9", "ts": 28})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "cat": "cpu_op", "tid": 7, "ts": 29})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "cat": "cpu_op", "tid": 7, "ts": 29})j",
      // Args kept per category and position: a key too long to keep at a place where another
      // was kept, then that other again.
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {"External id": 1, "cbid": 2, )j"
      R"j("correlation": 3}})j",
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {"External id": 1, "cbid": 2, )j"
      R"j("a key that is longer than the thirty-two bytes kept": 3, "correlation": 4}})j",
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {"External id": 1, "cbid": 2, )j"
      R"j("correlation": 5}})j",
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {"External id": 1, "cbid": 2, )j"
      R"j("correlation":  6}})j",
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {"External id": 1, "cbid": 2, )j"
      R"j("correlation": }})j",
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {"External id": 1, "cbid": 2}})j",
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {}})j",
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {"External id": 1, "cbid": 2, )j"
      R"j("correlation": 7}})j",
      // Keys in other orders, two kept per member: metadata between complete events, a
      // third order (an instant event's, as a complete one: instants are skipped after "ph"),
      // then each again; one that starts like a kept one.
      R"j({"name": "thread_name", "ph": "M", "ts": 0.000, "pid": 9, "tid": 3, )j"
      R"j("args": {"name": "stream 3"}})j",
      kineto,
      R"j({"name": "process_name", "ph": "M", "ts": 0.000, "pid": 9, "tid": 0, )j"
      R"j("args": {"name": "python3"}})j",
      R"j({"ph": "X", "s": "t", "name": "Iteration Start", "pid": 9, "tid": 1, "ts": 30})j",
      R"j({"name": "thread_name", "ph": "M", "ts": 1, "pid": 9, "tid": 4, "args": {"name": "s"}})j",
      R"j({"ph": "X", "s": "t", "name": "Iteration Start", "pid": 9, "tid": 1, "ts": 31})j",
      kineto,
      R"j({"name": "thread_name", "ph": "M", "ts": 1, "pid": 9, "tid": 4, "args": {"name": "s"}})j",
      R"j({"name": "thread_name", "ph": "M", "ts":, "pid": 9, "tid": 4, "args": {"name": "s"}})j",
      R"j({"name": "thread_name", "ph": "M", "tss": 1, "pid": 9, "tid": 4})j",
      R"j({"names": "thread_name", "ph": "M", "ts": 1, "pid": 9, "tid": 4})j",
      R"j({"name": "thread_name", "ph": "M", "ts": 1, "pid": 9, "tid":)j",
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "r", "args": {"External id": 1, "cbid": 2, )j"
      R"j("correlation": 7}})j",
  };
  EventScanner shared;
  for (const std::string& json : cases) ExpectReadAsFresh(shared, json);
  // The layouts were read whole (not a vacuous comparison of two failures), and the last
  // runtime event's correlation after all the others.
  {
    RawEvent ev;
    std::string json = cases[std::size(cases) - 1];
    std::string buf = json + std::string(64, ' ');
    JsonScan s(buf.data() + json.size());
    ASSERT_NE(shared.Event(s, buf.data(), ev, true), nullptr);
    EXPECT_EQ(ev.correlation, 7);
  }
  for (const std::string& json : {kineto, compact, indented, crlf}) {
    Scanned r;
    ScanInto(r, json);
    EXPECT_EQ(r.consumed, static_cast<long>(json.size())) << json;
    EXPECT_GE(r.ev.external_id, 3) << json;
  }
}

// An event's opening bytes up to its name's value, kept as a head once read the slow way, stand
// for "ph" and "cat" only where the bytes are the same and the name's value follows at once.
TEST(KinetoScanner, EventHeadsNeverChangeWhatIsRead) {
  const std::string kernel =
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 10, "dur": 5, )j"
      R"j("args": {"External id": 3, "device": 0, "stream": 7, "correlation": 9}})j";
  const std::string cpu_op =
      R"j({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 11, )j"
      R"j("dur": 4, "args": {"External id": 4}})j";
  const std::string runtime =
      R"j({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, )j"
      R"j("ts": 12, "dur": 1, "args": {"External id": 5, "cbid": 211, "correlation": 9}})j";
  const std::string cases[] = {
      kernel,
      cpu_op,
      kernel,
      cpu_op,
      runtime,
      kernel,
      runtime,
      cpu_op,
      // The last byte of the category differs; the name's value after more blanks, or none;
      // another member where the name was; a phase of one byte more.
      R"j({"ph": "X", "cat": "cpu_oq", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 13})j",
      R"j({"ph": "X", "cat": "cpu_op", "name":  "aten::mm", "pid": 1, "tid": 2, "ts": 14})j",
      R"j({"ph": "X", "cat": "cpu_op", "name": )j",
      R"j({"ph": "X", "cat": "cpu_op", "name": , "pid": 1})j",
      R"j({"ph": "X", "cat": "cpu_op", "names": "aten::mm", "pid": 1, "tid": 2, "ts": 15})j",
      R"j({"ph": "X", "cat": "cpu_op", "pid": 1, "name": "aten::mm", "tid": 2, "ts": 16})j",
      R"j({"ph": "i", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 17})j",
      R"j({"ph": "XX", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 17})j",
      R"j({"ph": "XX", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 18})j",
      cpu_op,
      kernel,
      // "cat" before "ph", twice; a category too long to keep; a phase and a category that
      // are escaped; "ph" or "cat" twice.
      R"j({"cat": "kernel", "ph": "X", "name": "k", "pid": 1, "tid": 7, "ts": 19, "dur": 5})j",
      R"j({"cat": "kernel", "ph": "X", "name": "k", "pid": 1, "tid": 7, "ts": 20, "dur": 5})j",
      R"j({"ph": "X", "cat": "a category of more than the sixty-four bytes kept", "name": "n"})j",
      R"j({"ph": "X", "cat": "a category of more than the sixty-four bytes kept", "name": "m"})j",
      R"j({"ph": "\u0058", "cat": "cpu\u005fop", "name": "n", "ts": 21})j",
      R"j({"ph": "\u0058", "cat": "cpu\u005fop", "name": "n", "ts": 22})j",
      R"j({"ph": "X", "ph": "X", "name": "n", "ts": 23})j",
      R"j({"ph": "X", "ph": "X", "name": "n", "ts": 24})j",
      R"j({"cat": "kernel", "cat": "kernel", "name": "n", "ts": 25})j",
      R"j({"cat": "kernel", "cat": "kernel", "name": "n", "ts": 26})j",
      // Metadata and flows written with "ph" and "cat" first: metadata other than a thread
      // name is skipped once its name is read.
      R"j({"ph": "M", "cat": "__metadata", "name": "process_name", "pid": 1, "tid": 0})j",
      R"j({"ph": "M", "cat": "__metadata", "name": "thread_name", "pid": 1, "tid": 2, )j"
      R"j("args": {"name": "main"}})j",
      R"j({"ph": "M", "cat": "__metadata", "name": "process_name", "pid": 1, "tid": 0})j",
      R"j({"ph": "f", "cat": "ac2g", "name": "launch", "id": 9, "pid": 1, "tid": 7, "ts": 27})j",
      R"j({"ph": "f", "cat": "ac2g", "name": "launch", "id": 10, "pid": 1, "tid": 7, "ts": 28})j",
      kernel,
      runtime,
  };
  EventScanner shared;
  for (const std::string& json : cases) ExpectReadAsFresh(shared, json);
  // Flows no longer wanted are skipped after "ph" (then "cat" is not read) or after "cat"
  // where it came first, whether the head is known or not.
  const std::string flows[] = {
      R"j({"ph": "f", "cat": "ac2g", "name": "launch", "id": 11, "pid": 1, "tid": 7, "ts": 29})j",
      R"j({"cat": "ac2g", "ph": "s", "name": "launch", "id": 12, "pid": 1, "tid": 2, "ts": 30})j",
      R"j({"cat": "ac2g", "ph": "s", "name": "launch", "id": 13, "pid": 1, "tid": 2, "ts": 31})j",
  };
  for (const std::string& json : flows) ExpectReadAsFresh(shared, json, true);
  for (const std::string& json : flows) ExpectReadAsFresh(shared, json, false);
  // The heads were used: a known head reads the event whole, fields and all.
  RawEvent ev;
  std::string buf = runtime + std::string(64, ' ');
  JsonScan s(buf.data() + runtime.size());
  ASSERT_EQ(shared.Event(s, buf.data(), ev, true), buf.data() + runtime.size());
  EXPECT_EQ(ev.cat, EventCat::kRuntime);
  EXPECT_EQ(ev.cat_text, "cuda_runtime");
  EXPECT_EQ(ev.name, "cudaLaunchKernel");
  EXPECT_EQ(ev.correlation, 9);
}

}  // namespace
}  // namespace commdx
