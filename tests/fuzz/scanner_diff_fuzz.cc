// libFuzzer target for the Kineto event scanner's learned layout (event_scanner.h): the scanner
// keeps the bytes a file writes between members and args once parsed and matches later ones in
// one compare. That must never change what is read. The input is taken as a run of events
// separated by commas and whitespace (in a whole trace, those after "traceEvents": [); each is read by one scanner that has seen all before it
// and by a fresh one, and the two must agree on every field, on where the event ends and on the
// error. Any difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ingest/kineto/event_scanner.h"
#include "ingest/kineto/json/json_scan.h"

namespace {

using commdx::ingest::kineto::EventScanner;
using commdx::ingest::kineto::JsonScan;
using commdx::ingest::trace_build::RawEvent;

struct Read {
  RawEvent ev;
  const char* end = nullptr;
  int error = 0;
  const char* error_at = nullptr;
};

Read ReadOne(EventScanner& scanner, const char* p, const char* end, bool want_flows) {
  Read r;
  JsonScan s(end);
  r.end = scanner.Event(s, p, r.ev, want_flows);
  r.error = static_cast<int>(s.error());
  r.error_at = s.error_at();
  return r;
}

bool SameCollArgs(const RawEvent& a, const RawEvent& b) {
  if ((a.coll == nullptr) != (b.coll == nullptr)) return false;
  if (!a.coll) return true;
  const auto &x = *a.coll, &y = *b.coll;
  return x.coll_name == y.coll_name && x.dtype == y.dtype && x.pg_name == y.pg_name &&
         x.pg_desc == y.pg_desc && x.pg_ranks == y.pg_ranks && x.in_split == y.in_split &&
         x.out_split == y.out_split && x.in_nelems == y.in_nelems &&
         x.out_nelems == y.out_nelems && x.group_size == y.group_size && x.seq == y.seq &&
         x.src_rank == y.src_rank && x.dst_rank == y.dst_rank && x.present == y.present;
}

bool Same(const Read& a, const Read& b) {
  if (a.end != b.end || a.error != b.error || a.error_at != b.error_at) return false;
  // A failed read's fields are never used (the part fails): they may even point into scratch
  // strings a later value of the same event replaced.
  if (!a.end) return true;
  const RawEvent &x = a.ev, &y = b.ev;
  return x.ph == y.ph &&
         x.cat == y.cat && x.cat_text == y.cat_text && x.name == y.name && x.pid == y.pid &&
         x.tid == y.tid && x.ts_ns == y.ts_ns && x.dur_ns == y.dur_ns && x.has_ts == y.has_ts &&
         x.has_dur == y.has_dur && x.bad_ts == y.bad_ts && x.bad_dur == y.bad_dur &&
         x.device == y.device && x.stream == y.stream && x.correlation == y.correlation &&
         x.external_id == y.external_id && x.grid_x == y.grid_x && x.bytes == y.bytes &&
         x.flow_id == y.flow_id && x.meta_name == y.meta_name && SameCollArgs(x, y);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // The first byte picks whether flow events are read; the rest is the events. The scanner
  // reads up to 64 bytes past a position: the buffer is padded, and the end of the scan is
  // the end of the input.
  const bool want_flows = data[0] & 1;
  std::string buf(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t len = buf.size();
  buf.append(64, ' ');
  const char* end = buf.data() + len;
  EventScanner shared;
  const char* p = buf.data();
  // A whole trace (the seeds are): its events start after "traceEvents": [.
  if (const char* key = static_cast<const char*>(memmem(p, len, "\"traceEvents\"", 13))) {
    const char* open = static_cast<const char*>(std::memchr(key, '[', static_cast<size_t>(end - key)));
    if (open) p = open + 1;
  }
  while (true) {
    while (p < end && (*p == ',' || JsonScan::IsWs(*p))) ++p;
    if (p >= end || *p != '{') break;
    EventScanner fresh;
    Read a = ReadOne(shared, p, end, want_flows);
    Read b = ReadOne(fresh, p, end, want_flows);
    if (!Same(a, b)) std::abort();
    if (!a.end) break;
    p = a.end;
  }
  return 0;
}
