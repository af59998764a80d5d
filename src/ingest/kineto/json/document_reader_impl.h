// The reader behind ReadDocument (document_reader.h), shared by its two source files:
// document_reader.cc (the window over the input, the top-level object, byte-level scanning,
// errors) and document_events.cc (traceEvents, cut into parts between events).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "ingest/kineto/json/byte_source.h"
#include "ingest/kineto/json/document_reader.h"
#include "ingest/read_progress.h"

namespace commdx::ingest::kineto::internal {

constexpr size_t kPadding = 64;            // readable past a part or value (json_scan.h, simdjson)
constexpr size_t kReadBlock = 4u << 20;    // bytes asked of the source at a time
constexpr size_t kLongBlanks = 64u << 10;  // a run of blanks after "}," cut at once (BlankTailCut)

inline bool IsWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

class Reader {
 public:
  Reader(ByteSource& src, const std::string& name, DocumentSink& sink, const ReaderOptions& o)
      : src_(src), name_(name), sink_(sink), opt_(o) {
    progress_total_ = src_.was_gzip() ? src_.compressed_bytes() : src_.size_hint();
    ReadProgress::Begin(progress_total_);
  }
  ~Reader() { ReadProgress::Advance(progress_total_ - progress_done_); }  // done, or failed

  Result<ReaderStats> Run();

 private:
  Status Body();

  Status Finish();

  // --- the window over the input -------------------------------------------------------------
  bool AtEof() const { return pos_ >= end_ && eof_; }

  // Reads more input, keeping bytes from keep_ on (and one byte before pos_).
  Status More();

  Status SkipWs() {
    while (true) {
      while (pos_ < end_ && IsWs(buf_[pos_])) ++pos_;
      if (pos_ < end_ || eof_) return Ok{};
      COMMDX_TRY(More());
    }
  }

  // SkipWs between two parts of traceEvents: the blanks are not kept (a gap of GiBs padded into
  // a file stays out of memory), and a mapped file's pages behind them are given back.
  Status SkipBlanksBetweenParts();

  // Ensures the window holds `n` bytes from pos_ (fewer only at the end of the input).
  Status Want(size_t n) {
    while (end_ - pos_ < n && !eof_) COMMDX_TRY(More());
    return Ok{};
  }

  // --- byte-level scanning, used for the small top-level values and the last part --------------
  // Reads more input until buf_[i] is in the window (false: the input ends first), keeping the
  // index valid across More() (which may move the window).
  Result<bool> ReachFor(size_t& i) {
    while (i >= end_) {
      if (eof_) return false;
      const size_t rel = i - keep_;
      COMMDX_TRY(More());
      i = keep_ + rel;
    }
    return true;
  }


  // Advances `i` past one JSON value starting at buf_[i] (keep_ <= i). A scalar ends before the
  // next ',', '}', ']' or space. Returns false if the input ends first.
  Result<bool> SkipValue(size_t& i);

  // From buf_[i] inside an array (depth 1), advances `i` to the array's closing ']'. It reads
  // the last part of traceEvents (up to a MiB, in every file): runs of bytes that cannot change
  // the state — anything but '"' and '\\' inside a string, anything but '"' and brackets
  // outside — are passed 16 at a time, never loading past end_ (a mapped file ends there).
  Result<bool> FindArrayClose(size_t& i);

  // The first index from i on (or end_) of a byte that FindArrayClose must look at.
  size_t NextSpecial(size_t i, bool in_str) const;

  Result<std::string> ReadKey();

  Status ReadTopValue(const std::string& key);

  // --- traceEvents -----------------------------------------------------------------------------
  // A cut point: the ',' of "}" ws "," ws "{" at or after `from` (any layout: one line,
  // one event per line, indented, CRLF); npos if none in the window. The pattern may also occur
  // inside a string or a nested list of objects: the part then fails to read and is retried
  // (ReadEvents), so a wrong guess costs time, never correctness. `resume` is where a later
  // search must start once more input is in.
  size_t FindCut(size_t from, size_t& resume) const;
  // The ',' of "}" ws "," when the window ends in more than kLongBlanks blanks after it (a gap
  // padded into the file between two events): cut there at once rather than carry the blanks
  // into the part while waiting for the next '{'. npos otherwise, or when the ',' lies before
  // pos_ + min_rel (a guess that already failed).
  size_t BlankTailCut(size_t min_rel) const;
  size_t SkipWsAt(size_t i) const {
    while (i < end_ && IsWs(buf_[i])) ++i;
    return i;
  }

  Status ReadEvents();

  // The item at [pos_, end), read whole by bracket depth, which the scanner failed on in a
  // part: alone, then by the strict parser (DocumentSink::StrictItem). Leaves pos_ past the ','
  // after it, at the ']' of traceEvents, or at the end of the input. True when it was a record
  // broken mid-write, skipped up to the next event (SkipBroken).
  Result<bool> ItemAlone(size_t end);

  // A record broken mid-write (a bracket missing, extra or of the wrong kind, a string never
  // closed: bracket depth does not find its end) at pos_, the events after it intact: it is
  // skipped up to the first event boundary ("},{", FindCut) at or after `from` and before
  // `limit`, and counted (DocumentSink::StrictItem); pos_ is left past that ','. False when no
  // boundary follows: the input ends inside it (CutShort).
  Result<bool> SkipBroken(size_t from, size_t limit);
  // Whether [from, to) holds brackets of matching kinds, closed only at its end.
  bool WellNested(size_t from, size_t to) const;
  // A string's bytes (its quotes, an escape and the byte it escapes) met walking a value: true
  // when `c` at i is one, with i past an escaped byte and `in_str` kept.
  static bool StepString(char c, size_t& i, bool& in_str) {
    if (in_str) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_str = false;
      return true;
    }
    if (c == '"') in_str = true;
    return in_str;
  }

  // The input ends inside traceEvents, at pos_ (the first item not read whole, or the end):
  // the items before it were read.
  Status CutShort();

  void ReportProgress();

  // Parses buf_[pos_-1 .. cut] as "[" + events + "]". On failure `done` is the offset in the
  // part of the first item not read whole (0 if none was).
  Status ParsePart(size_t cut, size_t& done);

  // No cut left: the rest of traceEvents up to its ']' (or to the end of an input cut short)
  // is one part. From an item that fails, the items before it are kept, that item is read
  // alone (ItemAlone) and the rest is one part again. True when a broken record was skipped
  // (SkipBroken) and the rest is to be read in parts again (ReadEvents).
  Result<bool> LastPart();

  // --- errors ----------------------------------------------------------------------------------
  // An input that ends inside the top level: an error before traceEvents was read, a document
  // cut after its events otherwise (Run).
  Error Truncated(std::string message);
  Error Fail(std::string message, int delta = 0) const;
  Error TooBig(uint64_t len) const;
  static std::string Shown(char c);

  ByteSource& src_;
  const std::string& name_;
  DocumentSink& sink_;
  ReaderOptions opt_;
  ReaderStats stats_;
  char* buf_ = nullptr;  // owned_, or the mapped file
  std::unique_ptr<char[]> owned_;
  size_t cap_ = 0;
  size_t end_ = 0;
  size_t pos_ = 0;
  size_t keep_ = 0;
  uint64_t base_ = 0;  // file offset of buf_[0]
  bool eof_ = false;
  bool truncated_ = false;    // the input ended inside the top-level object (Truncated)
  bool events_done_ = false;  // traceEvents was read to its ']'
  uint64_t progress_total_ = 0, progress_done_ = 0;  // input bytes, for ReadProgress
};

}  // namespace commdx::ingest::kineto::internal
