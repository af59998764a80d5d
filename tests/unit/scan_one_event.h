// Test helper: one Kineto trace event read by the event scanner
// (src/ingest/kineto/event_scanner.h) from a padded buffer, with where it ended or failed.
#pragma once

#include <string>

#include "ingest/kineto/event_scanner.h"
#include "ingest/kineto/json/json_scan.h"

namespace commdx {

// One event scanned from `json`; `after` is what the buffer holds past the end of the part
// (a mapped file goes on with the next event, so it must never be taken as input).
struct Scanned {
  std::string buf;
  ingest::kineto::EventScanner scanner;
  ingest::trace_build::RawEvent ev;
  ingest::kineto::ScanError error = ingest::kineto::ScanError::kNone;
  long error_at = -1;  // offset in `json`
  long consumed = -1;  // bytes up to past the event's '}'
  bool ok() const { return consumed >= 0; }
};

inline void ScanInto(Scanned& r, const std::string& json, bool want_flows = true,
                     const std::string& after = std::string(64, ' ')) {
  r.buf = json + after;
  ingest::kineto::JsonScan s(r.buf.data() + json.size());
  const char* p = s.SkipWs(r.buf.data());
  const char* end = r.scanner.Event(s, p, r.ev, want_flows);
  if (end) r.consumed = end - r.buf.data();
  r.error = s.error();
  if (s.error_at()) r.error_at = s.error_at() - r.buf.data();
}

}  // namespace commdx
