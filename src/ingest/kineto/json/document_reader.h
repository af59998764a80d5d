// Reads one Kineto JSON document from a ByteSource in bounded memory.
//
// A trace is one JSON object whose `traceEvents` array holds nearly all of its bytes:
//   {"schemaVersion": 1, "deviceProperties": [...], "distributedInfo": {...},
//    "traceEvents": [ {...}, {...}, ... ], "traceName": "...", "baseTimeNanoseconds": 17...}
// The reader walks the top level itself and hands the sink each small top-level value as JSON
// text (the sink parses those with simdjson ondemand, header.cc). It cuts `traceEvents` into parts
// of about a MiB, each handed to the sink as its own array and read there by the project's own
// one-pass scanner (json_scan.h, event_scanner.h). A cut is made at the ',' of `}` ws `,` ws `{`
// — between two events in any layout: one line, one event per line, indented, CRLF. The pattern
// can also lie inside a string or a nested list of objects; the part then does not read as a
// balanced array, the events read whole before the failing one are kept and the rest is retried
// with a cut further on, so a wrong guess costs time, never correctness. An item the scanner
// cannot read even alone (its extent found by bracket depth) goes to DocumentSink::StrictItem:
// the scanner is never the last word on what is valid JSON. No layout makes the
// reader hold the whole file: a mapped file's parsed pages are given back as it goes, and gzip
// is inflated into a window of a few MiB. A single part over 4 GiB (one event that large) is
// refused with a clear error (ReaderOptions::max_part_bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "ingest/kineto/json/byte_source.h"

namespace commdx::ingest::kineto {

// Receives the document piece by piece. Offsets are decompressed byte offsets in the file.
class DocumentSink {
 public:
  virtual ~DocumentSink() = default;
  // A top-level key other than traceEvents, with its value as JSON text, readable 64 bytes
  // past its end (the padding simdjson ondemand needs).
  virtual Status TopLevel(std::string_view key, std::string_view value_json, uint64_t offset) = 0;
  // A part of traceEvents as a JSON array `[ev, ev, ...]` at json[0..len), readable up to
  // json + capacity; json[0] and json[len - 1] stand for the brackets whatever they hold (the
  // commas around the part). `offset` is the file offset of json[1]. On failure `done` is the
  // offset in json of the first item not read whole, 0 if the first one failed: the items before
  // it have been handed on and are not taken back.
  virtual Status EventPart(const char* json, size_t len, size_t capacity, uint64_t offset,
                           size_t& done) = 0;
  // Events of a part whose first item fails are taken back before the part is retried larger.
  virtual void Checkpoint() = 0;
  virtual void Rollback() = 0;
  // One item of traceEvents, json[0..len) (its brackets balance), that the scanner could not
  // read even alone: a complete, standard-conforming parser reads it, or where that refuses it
  // too, it is skipped and counted in the input quality. A failure fails the document.
  virtual Status StrictItem(const char* json, size_t len, uint64_t offset) = 0;
};

struct ReaderOptions {
  // Target size of one traceEvents part. The scanner reads a part once, so the size only sets
  // the per-part costs (finding the cut, releasing the mapped pages, the two bracket bytes) and
  // the resident window: 1 MiB measured 2.7% faster than 256 KiB on the 1 GB trace, 4 MiB no
  // faster than 1 MiB.
  size_t part_bytes = 1u << 20;
  // Largest part accepted (4 GiB less the padding): the limit of simdjson, which read the parts
  // before the scanner did, kept so that the error stays the same. Lower only to test the error.
  uint64_t max_part_bytes = 0xFFFFFFFFull - 64;
};

struct ReaderStats {
  uint64_t bytes = 0;  // decompressed bytes read
  uint64_t parts = 0;
  uint64_t retries = 0;  // parts retried after a cut that was not between events
  bool saw_trace_events = false;
  uint64_t strict_items = 0;  // items the scanner could not read, handed to StrictItem
  // The input ends before the document does (a job killed while the profiler wrote, a gzip
  // stream cut short): everything before the cut was read and handed on. `cut_offset` is where
  // the first item not read whole starts (or the end of the input); `cut_in_events`: inside
  // traceEvents (events were lost), else after it (only top-level values after the events or
  // the gzip trailer); `gzip_cut`: the compressed stream itself ends early.
  bool cut = false;
  bool cut_in_events = false;
  bool gzip_cut = false;
  uint64_t cut_offset = 0;
};

// Reads the whole document into `sink`. Errors carry the file offset where the input went wrong.
// Input that ends inside traceEvents or after it is not an error (ReaderStats::cut); input that
// ends before traceEvents is.
Result<ReaderStats> ReadDocument(ByteSource& source, const std::string& name, DocumentSink& sink,
                                 const ReaderOptions& options = {});

}  // namespace commdx::ingest::kineto
