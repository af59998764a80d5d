#include "ingest/kineto/event_parser.h"

#include <simdjson.h>

#include <string>

#include "ingest/kineto/event_scanner.h"
#include "ingest/kineto/header.h"
#include "ingest/kineto/json/json_scan.h"

namespace commdx::ingest::kineto {

struct EventParser::Impl {
  std::string file;
  simdjson::ondemand::parser parser;  // for the top-level values only
  simdjson::dom::parser strict;       // for the items the scanner cannot read (StrictItem)
  std::string minified;
  EventScanner scanner;
  Gap item_gap;  // between an event's '}' and the next one's '{': `,\n` as Kineto writes them
};

EventParser::EventParser(std::string file, trace_build::RankBuilder& builder)
    : impl_(std::make_unique<Impl>()), builder_(builder) {
  impl_->file = std::move(file);
}

EventParser::~EventParser() = default;

//   [{"ph": "X", "cat": "cpu_op", ...}, {"ph": "f", "id": 1, ...}, ...]
// The first and last bytes are taken as the brackets whatever they hold (in a mapped file they
// are the commas around the part: the file is never written). An item that is not an object is
// counted and skipped; broken structure fails the part (the reader then retries from the item
// that failed, since a cut may have fallen inside an event).
Status EventParser::EventPart(const char* json, size_t len, size_t capacity, uint64_t offset,
                              size_t& done) {
  constexpr size_t kScanPadding = 64;  // JsonScan reads up to 64 bytes from a position
  done = 0;
  if (capacity < len + kScanPadding) {
    std::string padded(json, len);
    padded.append(kScanPadding, ' ');
    return EventPart(padded.data(), len, padded.size(), offset, done);
  }
  Impl& m = *impl_;
  const char* origin = json + 1;  // file offset `offset`
  auto at = [&](const char* p) { return offset + static_cast<uint64_t>(p - origin); };
  JsonScan s(json + len - 1);  // the closing bracket is not read: the end of the scan stands for it
  auto fail = [&]() {
    SourceLoc loc{m.file};
    loc.offset = s.error_at() ? at(s.error_at()) : offset;
    loc.has_offset = true;
    return MakeError(ErrorCode::kBadInput,
                     std::string("invalid JSON in traceEvents: ") + ScanErrorText(s.error()), loc);
  };
  const char* p = s.SkipWs(json + 1);
  if (p < s.end()) {
    bool wants_flows = builder_.wants_flows();
    bool closed = false;
    while (!closed) {
      if (p >= s.end()) {
        s.Fail(ScanError::kEnd, p);
        return fail();
      }
      trace_build::RawEvent ev;
      ev.offset = at(p);
      const char* after = nullptr;
      if (*p == '{') {
        after = m.scanner.Event(s, p, ev, wants_flows);
        if (!after) return fail();
        builder_.Add(ev);
        wants_flows = builder_.wants_flows();
      } else {
        after = s.SkipValue(p);
        if (!after) return fail();
        builder_.quality().Add("kineto.not_an_event", DiagSeverity::kWarning,
                               "traceEvents items that are not JSON objects were skipped",
                               SourceLoc{m.file, 0, 0, ev.offset, true});
      }
      // Between items a comma; after the last one, the end of the part.
      const Gap& gap = m.item_gap;
      if (gap.At(after) && after + gap.len < s.end() && after[gap.len] == '{') {
        p = after + gap.len;
        done = static_cast<size_t>(p - json);  // the next item starts here
        continue;
      }
      p = s.SkipWs(after);
      if (p >= s.end()) {
        closed = true;
      } else if (*p == ',') {
        p = s.SkipWs(p + 1);
        done = static_cast<size_t>(p - json);  // the next item starts here
        if (p < s.end() && *p == '{') m.item_gap.Set(after, p);
      } else {
        s.Fail(ScanError::kExpectedComma, p);
        return fail();
      }
    }
  }
  return Ok{};
}

// The scanner is not the last word on what is valid JSON: simdjson, a complete and
// standard-conforming parser, reads the item. Valid, it is minified (tokens as written, only the
// blanks between them gone) and scanned again; what simdjson refuses is one bad record.
Status EventParser::StrictItem(const char* json, size_t len, uint64_t offset) {
  Impl& m = *impl_;
  SourceLoc loc{m.file};
  loc.offset = offset;
  loc.has_offset = true;
  simdjson::padded_string item(json, len);
  simdjson::dom::element doc;
  if (auto err = m.strict.parse(item).get(doc)) {
    builder_.quality().Add("kineto.bad_event", DiagSeverity::kWarning,
                           std::string("traceEvents items that are not valid JSON were skipped (") +
                               simdjson::error_message(err) + ")",
                           loc);
    return Ok{};
  }
  constexpr size_t kScanPadding = 64;
  m.minified.assign(len + 2 + kScanPadding, ' ');
  m.minified[0] = '[';
  size_t n = 0;
  if (simdjson::minify(json, len, m.minified.data() + 1, n) != simdjson::SUCCESS) n = 0;
  m.minified[n + 1] = ']';
  size_t done = 0;
  builder_.Checkpoint();
  auto st = EventPart(m.minified.data(), n + 2, m.minified.size(), offset, done);
  if (!st) {
    builder_.Rollback();
    builder_.quality().Add("kineto.unread_event", DiagSeverity::kWarning,
                           "traceEvents items that are valid JSON but that the event reader could "
                           "not read were skipped (" +
                               st.error().message + ")",
                           loc);
  }
  return Ok{};
}

Status EventParser::TopLevel(std::string_view key, std::string_view value_json, uint64_t offset) {
  return ParseHeaderValue(impl_->parser, key, value_json, offset, impl_->file, builder_);
}

}  // namespace commdx::ingest::kineto
