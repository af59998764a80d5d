// The hand-written event scanner (src/ingest/kineto/event_scanner.cc, json_scan.h): fields read
// in any order and of any type, unknown values skipped by depth, and broken input reported at
// its place — never read past the end of the part, even where the bytes after it would go on.
#include <gtest/gtest.h>

#include <string>

#include "ingest/kineto/json/json_values.h"
#include "unit/scan_one_event.h"

namespace commdx {
namespace {

using ingest::kineto::ScanError;
using ingest::trace_build::EventCat;
using ingest::trace_build::RawEvent;

TEST(KinetoScanner, KernelWithCollectiveArgsInKinetoLayout) {
  Scanned r;
  ScanInto(r, R"j({
    "ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 7,
    "ts": 5160728065674.523, "dur": 190.112,
    "args": {
      "External id": 1290,
      "device": 0, "stream": 7, "correlation": 22417,
      "registers per thread": 96,
      "grid": [24, 1, 1], "block": [640, 1, 1],
      "Collective name": "allreduce", "In msg nelems": 8400896, "Out msg nelems": 8400896,
      "Group size": 2, "dtype": "Float", "In split size": "[]", "Out split size": "[]",
      "Process Group Name": "0", "Process Group Description": "default_pg",
      "Process Group Ranks": "[0, 1]", "Seq": 12
    }
  })j");
  ASSERT_TRUE(r.ok()) << ScanErrorText(r.error);
  const RawEvent& e = r.ev;
  EXPECT_EQ(e.ph, 'X');
  EXPECT_EQ(e.cat, EventCat::kKernel);
  EXPECT_EQ(e.name.substr(0, 20), "ncclDevKernel_AllRed");
  EXPECT_EQ(e.pid, "0");
  EXPECT_EQ(e.tid, "7");
  EXPECT_EQ(e.ts_ns, 5160728065674523);
  EXPECT_EQ(e.dur_ns, 190112);
  EXPECT_FALSE(e.bad_ts || e.bad_dur);
  EXPECT_EQ(e.external_id, 1290);
  EXPECT_EQ(e.device, 0);
  EXPECT_EQ(e.stream, 7);
  EXPECT_EQ(e.correlation, 22417);
  EXPECT_EQ(e.grid_x, 24);
  ASSERT_NE(e.coll, nullptr);
  EXPECT_TRUE(e.coll->present);
  EXPECT_EQ(e.coll->coll_name, "allreduce");
  EXPECT_EQ(e.coll->in_nelems, 8400896);
  EXPECT_EQ(e.coll->group_size, 2);
  EXPECT_EQ(e.coll->dtype, "Float");
  EXPECT_EQ(e.coll->pg_desc, "default_pg");
  EXPECT_EQ(e.coll->pg_ranks, "[0, 1]");
  EXPECT_EQ(e.coll->seq, 12);
}

TEST(KinetoScanner, AnyKeyOrderAnyTypeUnknownValuesSkipped) {
  Scanned r;
  // args before name (so all args are read), tid as a string, ts as a string, an unknown key
  // whose value holds brackets and escaped quotes inside strings, lists as JSON arrays.
  ScanInto(r, R"j({"args": {"x": {"a": ["]", "}\"{", [[]], {}]}, "Process Group Ranks": [0, 1],)j"
              R"j( "Collective name": "all\"reduce", "dtype": "Fl\u006fat", "Src Rank": -3},)j"
              R"j( "weird": [{"ph": "s"}], "tid": "thread 9", "ts": "12.5", "dur": 1.5e3,)j"
              R"j( "name": "op \"q\"", "cat": "cpu_op", "ph": "X", "pid": "host"})j");
  ASSERT_TRUE(r.ok()) << ScanErrorText(r.error) << " at " << r.error_at;
  const RawEvent& e = r.ev;
  EXPECT_EQ(e.ph, 'X');
  EXPECT_EQ(e.cat, EventCat::kCpuOp);
  EXPECT_EQ(e.tid, "thread 9");
  EXPECT_EQ(e.pid, "host");
  EXPECT_EQ(e.name, R"j(op \"q\")j");  // raw: the interner unescapes
  EXPECT_EQ(e.ts_ns, 12500);
  EXPECT_EQ(e.dur_ns, 1'500'000);
  ASSERT_NE(e.coll, nullptr);
  EXPECT_EQ(e.coll->pg_ranks, "0,1");
  EXPECT_EQ(e.coll->coll_name, "all\"reduce");  // unescaped
  EXPECT_EQ(e.coll->dtype, "Float");
  EXPECT_EQ(e.coll->src_rank, -3);
}

TEST(KinetoScanner, BadNumbersAreBadRecordsNotErrors) {
  Scanned nan, big, text, null, obj;
  ScanInto(nan, R"j({"ph": "X", "ts": NaN, "dur": 1})j");
  ScanInto(big, R"j({"ph": "X", "ts": 123456789012345678901234, "dur": 1e400,)j"
                R"j( "id": 99999999999999999999999})j");
  ScanInto(text, R"j({"ph": "X", "ts": "soon", "dur": -2.5})j");
  ScanInto(null, R"j({"ph": "X", "ts": null, "dur": true})j");
  ScanInto(obj, R"j({"ph": "X", "ts": {"a": 1}, "dur": [1], "args": 5})j");
  for (Scanned* r : {&nan, &big, &text, &null, &obj}) {
    ASSERT_TRUE(r->ok()) << r->buf;
    EXPECT_TRUE(r->ev.has_ts);
    EXPECT_TRUE(r->ev.bad_ts) << r->buf;
  }
  EXPECT_FALSE(nan.ev.bad_dur);
  EXPECT_TRUE(big.ev.bad_dur);
  EXPECT_EQ(big.ev.flow_id, -1);  // past int64 as an integer and as a double
  EXPECT_FALSE(text.ev.bad_dur);
  EXPECT_EQ(text.ev.dur_ns, -2500);
  EXPECT_TRUE(null.ev.bad_dur);
  EXPECT_TRUE(obj.ev.bad_dur);
}

TEST(KinetoScanner, ArgsReadOnlyAsFarAsTheEventNeeds) {
  Scanned cpu;
  // A CPU op needs only External id: what follows it in args is skipped unread.
  ScanInto(cpu, R"j({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "args": {"External id": 5,)j"
                R"j( "device": 3, "Collective name": "allreduce"}, "dur": 2})j");
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu.ev.external_id, 5);
  EXPECT_EQ(cpu.ev.device, -1);
  EXPECT_EQ(cpu.ev.coll, nullptr);
  EXPECT_EQ(cpu.ev.dur_ns, 2000);  // the event goes on after the skipped args
  // A flow event is skipped right after "ph" unless flows are wanted.
  Scanned flow, wanted;
  const std::string f = R"j({"ph": "f", "id": 7, "ts": 3, "cat": "ac2g", "name": "x"})j";
  ScanInto(flow, f, false);
  ScanInto(wanted, f, true);
  ASSERT_TRUE(flow.ok() && wanted.ok());
  EXPECT_EQ(flow.ev.flow_id, -1);
  EXPECT_EQ(wanted.ev.flow_id, 7);
  EXPECT_EQ(wanted.ev.cat, EventCat::kFlow);
  EXPECT_EQ(flow.consumed, wanted.consumed);
}

// The builder takes nothing from instants, counters and metadata other than thread names but
// their count: the rest of such an event is skipped as soon as its phase (and, for metadata, its
// name, in either order) is read — and still checked as JSON.
TEST(KinetoScanner, UnusedEventsAreSkippedOnceKnownUnused) {
  Scanned instant, label, label_ph_first, thread, broken;
  ScanInto(instant, R"j({"ph": "i", "s": "t", "name": "Iteration Start", "pid": 9, "ts": 30})j");
  ScanInto(label, R"j({"name": "process_labels", "ph": "M", "ts": 1, "pid": 9, "tid": 0,)j"
                  R"j( "args": {"labels": "GPU 0"}})j");
  ScanInto(label_ph_first, R"j({"ph": "M", "name": "process_name", "pid": 9, "tid": 0})j");
  ScanInto(thread, R"j({"name": "thread_name", "ph": "M", "ts": 1, "pid": 9, "tid": 4,)j"
                   R"j( "args": {"name": "stream 4"}})j");
  ScanInto(broken, R"j({"name": "process_name", "ph": "M", "ts": 1, "args": {"name": "x"})j");
  for (Scanned* r : {&instant, &label, &label_ph_first, &thread}) ASSERT_TRUE(r->ok()) << r->buf;
  EXPECT_EQ(instant.ev.ph, 'i');
  EXPECT_TRUE(instant.ev.name.empty());  // after "ph": not read
  EXPECT_FALSE(instant.ev.has_ts);
  EXPECT_EQ(label.ev.ph, 'M');
  EXPECT_EQ(label.ev.name, "process_labels");
  EXPECT_FALSE(label.ev.has_ts);
  EXPECT_TRUE(label.ev.pid.empty());
  EXPECT_EQ(label_ph_first.ev.name, "process_name");
  EXPECT_TRUE(label_ph_first.ev.pid.empty());
  EXPECT_EQ(label.consumed, static_cast<long>(label.buf.size()) - 64);  // past its '}'
  EXPECT_EQ(thread.ev.tid, "4");
  EXPECT_EQ(thread.ev.meta_name, "stream 4");
  EXPECT_FALSE(broken.ok());  // the skipped rest lacks the event's '}'
  EXPECT_EQ(broken.error, ScanError::kEnd);
}

TEST(KinetoScanner, BrokenInputIsReportedWhereItIs) {
  struct Case {
    std::string json;
    ScanError error;
    long at;  // -1: not checked
  };
  const Case cases[] = {
      {R"j({"ph": "X", "name": "abc)j", ScanError::kUnterminated, 20},
      {R"j({"ph": "X", "args": {"a": [1, {"b": 2})j", ScanError::kEnd, -1},
      {R"j({"ph": "X", "args": {"a": [1}})j", ScanError::kBracketMismatch, 28},
      {R"j({"ph": "X" "ts": 1})j", ScanError::kExpectedComma, 11},
      {R"j({"ph" "X"})j", ScanError::kExpectedColon, 6},
      {R"j({"ph": "X", 5: 1})j", ScanError::kExpectedKey, 12},
      {R"j({"ph": })j", ScanError::kExpectedValue, 7},
      {"{\"ph\": \"X\", \"name\": \"a\nb\"}", ScanError::kControlChar, 22},
      {"{\"ph\": \"X\", \"name\": \"ok \xc3\xa9 then \xff\"}", ScanError::kBadUtf8, 32},
      {"{\"ph\": \"\xe9\"}", ScanError::kBadUtf8, 8},
      {"{\"x\": " + std::string(1100, '[') + std::string(1100, ']') + "}", ScanError::kTooDeep, -1},
      {R"j({"ph": "X", "ts": 1)j", ScanError::kEnd, -1},
  };
  for (const Case& c : cases) {
    Scanned r;
    ScanInto(r, c.json);
    EXPECT_FALSE(r.ok()) << c.json;
    EXPECT_EQ(r.error, c.error) << c.json << ": " << ScanErrorText(r.error);
    if (c.at >= 0) {
      EXPECT_EQ(r.error_at, c.at) << c.json;
    }
    EXPECT_LE(r.error_at, static_cast<long>(c.json.size())) << c.json;
  }
}

TEST(KinetoScanner, SkippedValuesAreCheckedAtEveryBlockOffset) {
  // Skipped values go 64 bytes at a time: vary where strings, escapes and bad bytes fall.
  for (size_t pad = 0; pad < 140; ++pad) {
    std::string fill(pad, 'x');
    std::string head = R"j({"ph": "X", "skip": {"a": ")j" + fill;
    std::string good = head + R"j(]}\"{[", "b": [1, {"c": "}"}], "d": {}}, "ts": 5})j";
    Scanned r;
    ScanInto(r, good);
    ASSERT_TRUE(r.ok()) << pad << ": " << ScanErrorText(r.error);
    EXPECT_EQ(r.ev.ts_ns, 5000) << pad;
    EXPECT_EQ(r.consumed, static_cast<long>(good.size())) << pad;

    Scanned utf8, ctl, cut, mismatch;
    ScanInto(utf8, head + "\xc3\xa9 \xc3(\"}, \"ts\": 5}");
    EXPECT_EQ(utf8.error, ScanError::kBadUtf8) << pad;
    EXPECT_EQ(utf8.error_at, static_cast<long>(head.size() + 3)) << pad;
    ScanInto(ctl, head + "\t\"}, \"ts\": 5}");
    EXPECT_EQ(ctl.error, ScanError::kControlChar) << pad;
    EXPECT_EQ(ctl.error_at, static_cast<long>(head.size())) << pad;
    ScanInto(cut, head + R"j(", "b": [1, {)j");
    EXPECT_EQ(cut.error, ScanError::kEnd) << pad;
    ScanInto(mismatch, head + R"j(", "b": [1, 2}}, "ts": 5})j");
    EXPECT_EQ(mismatch.error, ScanError::kBracketMismatch) << pad;
    EXPECT_EQ(mismatch.error_at, static_cast<long>(head.size() + 13)) << pad;
  }
}

TEST(KinetoScanner, NeverReadsOnPastTheEndOfThePart) {
  // The bytes after the part complete each of these events; the scanner must fail instead.
  const std::pair<std::string, std::string> cases[] = {
      {R"j({"ph": "X", "name": "ab)j", R"j(c"})j"},
      {R"j({"ph": "X", "ts": 12)j", R"j(34})j"},
      {R"j({"ph": "X", "args": {"a": "x)j", R"j("}})j"},
      {R"j({"ph": "X", "args": {"External id": 5, "a": [)j", R"j(]}})j"},
      {R"j({"ph": "X")j", R"j(})j"},
      {R"j({"ph": "X", )j", R"j("tid": 1})j"},
      {R"j({"ph": ")j", R"j(X"})j"},
      {R"j({"p)j", R"j(h": "X"})j"},
  };
  for (const auto& [json, after] : cases) {
    Scanned r;
    ScanInto(r, json, true, after + std::string(64, ' '));
    EXPECT_FALSE(r.ok()) << json << "|" << after;
    EXPECT_NE(r.error, ScanError::kNone) << json;
    EXPECT_EQ(r.ev.name, "") << json;
  }
}

TEST(KinetoScanner, ExactMicrosFastPathAgreesWithTheTokenParser) {
  const char* tokens[] = {"0", "7", "1727000000123456", "5160728065674.523", "0.8", "-4.5",
                          "1.2345", "1.2344", "12.", "99999999999999999", "9199999999999999.9999",
                          "-0.0005", "1.5e3", "12345678901234567890", "1.2.3", "-",
                          // 8-byte steps: runs of exactly 8 and 16 digits, 4-8 decimals
                          "12345678", "1234567812345678", "-12345678901234567", "1.2345678",
                          "1.23456789", "123456789012345.6785", "00000000000000001.5", "9.9995"};
  for (const char* t : tokens) {
    std::string json = std::string(R"j({"ts": )j") + t + "}";
    Scanned r;
    ScanInto(r, json);
    int64_t want = 0;
    bool want_ok = ingest::kineto::ParseMicrosToNs(t, want);
    ASSERT_TRUE(r.ok()) << t;
    EXPECT_EQ(!r.ev.bad_ts, want_ok) << t;
    if (want_ok) {
      EXPECT_EQ(r.ev.ts_ns, want) << t;
    }
  }
}

}  // namespace
}  // namespace commdx
