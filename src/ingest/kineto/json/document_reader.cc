#include "ingest/kineto/json/document_reader.h"

#include <algorithm>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/str_format.h"
#include "ingest/kineto/json/progress.h"

namespace commdx::ingest::kineto {

namespace {

constexpr size_t kPadding = 64;            // readable past a part or value (json_scan.h, simdjson)
constexpr size_t kReadBlock = 4u << 20;    // bytes asked of the source at a time
constexpr size_t kLongBlanks = 64u << 10;  // a run of blanks after "}," cut at once (BlankTailCut)

bool IsWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

class Reader {
 public:
  Reader(ByteSource& src, const std::string& name, DocumentSink& sink, const ReaderOptions& o)
      : src_(src), name_(name), sink_(sink), opt_(o) {
    progress_total_ = src_.was_gzip() ? src_.compressed_bytes() : src_.size_hint();
    ReadProgress::Begin(progress_total_);
  }
  ~Reader() { ReadProgress::Advance(progress_total_ - progress_done_); }  // done, or failed

  Result<ReaderStats> Run() {
    Status st = Body();
    if (!st && !stats_.cut) {
      // The input ends after traceEvents was read whole (in a top-level value after it): every
      // event is in; the document is cut short all the same.
      if (!truncated_ || !events_done_) return std::move(st).error();
      stats_.cut = true;
      stats_.cut_offset = stats_.bytes;
    }
    if (src_.cut_short()) {  // also where only the gzip trailer is missing
      stats_.gzip_cut = true;
      if (!stats_.cut) stats_.cut_offset = stats_.bytes;
      stats_.cut = true;
    }
    return stats_;
  }

 private:
  Status Body() {
    if (char* mapped = src_.mapped()) {  // parse the mapped file in place, no copies
      buf_ = mapped;
      end_ = cap_ = static_cast<size_t>(src_.size_hint());
      eof_ = true;
      stats_.bytes = end_;
    }
    COMMDX_TRY(SkipWs());
    // A UTF-8 byte-order mark (Windows editors write one): not JSON, but not a reason to skip
    // the trace. Offsets stay those of the file.
    if (pos_ == 0 && end_ >= 3 && std::string_view(buf_, 3) == "\xEF\xBB\xBF") {
      pos_ = 3;
      COMMDX_TRY(SkipWs());
    }
    if (AtEof()) return Fail("empty input: expected a Kineto trace (a JSON object)");
    if (buf_[pos_] != '{')
      return Fail("not JSON (or not a Kineto trace): expected '{' at the start, found " +
                  Shown(buf_[pos_]));
    ++pos_;
    COMMDX_TRY(SkipWs());
    if (!AtEof() && buf_[pos_] == '}') {
      ++pos_;
      return Finish();
    }
    // ReadKey and ReadTopValue note an input that ends inside them (Truncated).
    while (true) {
      COMMDX_ASSIGN_OR_RETURN(std::string key, ReadKey());
      COMMDX_TRY(SkipWs());
      if (AtEof()) return Truncated("truncated JSON: input ends after key \"" + key + "\"");
      if (buf_[pos_] != ':') return Fail("expected ':' after key \"" + key + "\"");
      ++pos_;
      COMMDX_TRY(SkipWs());
      if (AtEof())
        return Truncated("truncated JSON: input ends before the value of \"" + key + "\"");
      if (key == "traceEvents" && buf_[pos_] == '[') {
        stats_.saw_trace_events = true;
        ++pos_;
        COMMDX_TRY(ReadEvents());
        if (stats_.cut) return Ok{};  // the input ends inside traceEvents
        events_done_ = true;
      } else {
        COMMDX_TRY(ReadTopValue(key));
      }
      COMMDX_TRY(SkipWs());
      if (AtEof()) return Truncated("truncated JSON: input ends inside the top-level object");
      char c = buf_[pos_++];
      if (c == '}') break;
      if (c != ',')
        return Fail("expected ',' or '}' in the top-level object, found " + Shown(c), -1);
      COMMDX_TRY(SkipWs());
    }
    return Finish();
  }

  Status Finish() {
    COMMDX_TRY(SkipWs());
    if (!AtEof()) return Fail("unexpected content after the end of the JSON document");
    return Ok{};
  }

  // --- the window over the input -------------------------------------------------------------
  bool AtEof() const { return pos_ >= end_ && eof_; }

  // Reads more input, keeping bytes from keep_ on (and one byte before pos_).
  Status More() {
    if (eof_) return Ok{};
    size_t keep = std::min(keep_, pos_ > 0 ? pos_ - 1 : 0);
    if (end_ + kReadBlock + kPadding > cap_ && keep > 0) {
      std::memmove(buf_, buf_ + keep, end_ - keep);
      end_ -= keep;
      pos_ -= keep;
      keep_ -= std::min(keep_, keep);
      base_ += keep;
    }
    if (end_ + kReadBlock + kPadding > cap_) {
      size_t cap = std::max<size_t>(cap_ * 2, end_ + kReadBlock + kPadding);
      std::unique_ptr<char[]> grown(new char[cap]);  // not zeroed: pages are touched as used
      if (end_) std::memcpy(grown.get(), buf_, end_);
      owned_ = std::move(grown);
      buf_ = owned_.get();
      cap_ = cap;
    }
    COMMDX_ASSIGN_OR_RETURN(size_t got, src_.Read(buf_ + end_, cap_ - end_ - kPadding));
    if (got == 0) eof_ = true;
    end_ += got;
    stats_.bytes += got;
    std::memset(buf_ + end_, ' ', kPadding);
    return Ok{};
  }

  Status SkipWs() {
    while (true) {
      while (pos_ < end_ && IsWs(buf_[pos_])) ++pos_;
      if (pos_ < end_ || eof_) return Ok{};
      COMMDX_TRY(More());
    }
  }

  // SkipWs between two parts of traceEvents: the blanks are not kept (a gap of GiBs padded into
  // a file stays out of memory), and a mapped file's pages behind them are given back.
  Status SkipBlanksBetweenParts() {
    while (true) {
      while (pos_ < end_ && IsWs(buf_[pos_])) ++pos_;
      keep_ = pos_ - 1;  // the byte before the part stands for its '['
      if (pos_ < end_ || eof_) break;
      COMMDX_TRY(More());
    }
    src_.Release(base_ + keep_);
    return Ok{};
  }

  // Ensures the window holds `n` bytes from pos_ (fewer only at the end of the input).
  Status Want(size_t n) {
    while (end_ - pos_ < n && !eof_) COMMDX_TRY(More());
    return Ok{};
  }

  // --- byte-level scanning, used for the small top-level values and the last part --------------
  // Keeps buf_ index `i` valid across More() (which may move the window).
  Status MoreKeeping(size_t& i) {
    size_t rel = i - keep_;
    COMMDX_TRY(More());
    i = keep_ + rel;
    return Ok{};
  }

  // Advances `i` past one JSON value starting at buf_[i] (keep_ <= i). A scalar ends before the
  // next ',', '}', ']' or space. Returns false if the input ends first.
  Result<bool> SkipValue(size_t& i) {
    int depth = 0;
    bool in_str = false;
    while (true) {
      if (i >= end_) {
        if (eof_) return false;
        COMMDX_TRY(MoreKeeping(i));
        continue;
      }
      char c = buf_[i];
      if (in_str) {
        ++i;
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          in_str = false;
          if (depth == 0) return true;
        }
        continue;
      }
      if (c == '"') {
        in_str = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return true;  // the end of the enclosing object, not ours
        if (--depth == 0) {
          ++i;
          return true;
        }
      } else if (depth == 0 && (c == ',' || IsWs(c))) {
        return true;
      }
      ++i;
    }
  }

  // From buf_[i] inside an array (depth 1), advances `i` to the array's closing ']'. It reads
  // the last part of traceEvents (up to a MiB, in every file): runs of bytes that cannot change
  // the state — anything but '"' and '\\' inside a string, anything but '"' and brackets
  // outside — are passed 16 at a time, never loading past end_ (a mapped file ends there).
  Result<bool> FindArrayClose(size_t& i) {
    int depth = 1;
    bool in_str = false;
    while (true) {
      if (i >= end_) {
        if (eof_) return false;
        COMMDX_TRY(MoreKeeping(i));
        continue;
      }
      i = NextSpecial(i, in_str);
      if (i >= end_) continue;
      char c = buf_[i];
      if (in_str) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          in_str = false;
      } else if (c == '"') {
        in_str = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return true;
      }
      ++i;
    }
  }

  // The first index from i on (or end_) of a byte that FindArrayClose must look at.
  size_t NextSpecial(size_t i, bool in_str) const {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    // With bit 5 set, '[' and ']' read as '{' and '}'; no other byte does.
    const __m128i bit5 = _mm_set1_epi8(0x20), open_b = _mm_set1_epi8('{');
    const __m128i close_b = _mm_set1_epi8('}');
    for (; i + 16 <= end_; i += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf_ + i));
      __m128i hit = _mm_cmpeq_epi8(v, quote);
      if (in_str) {
        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, bslash));
      } else {
        __m128i folded = _mm_or_si128(v, bit5);
        hit = _mm_or_si128(
            hit, _mm_or_si128(_mm_cmpeq_epi8(folded, open_b), _mm_cmpeq_epi8(folded, close_b)));
      }
      if (unsigned m = static_cast<unsigned>(_mm_movemask_epi8(hit)))
        return i + static_cast<size_t>(__builtin_ctz(m));
    }
#else
    (void)in_str;
#endif
    return i;  // the last few bytes one at a time
  }

  Result<std::string> ReadKey() {
    if (AtEof()) return Truncated("truncated JSON: input ends inside the top-level object");
    if (buf_[pos_] != '"')
      return Fail("expected a key in the top-level object, found " + Shown(buf_[pos_]));
    keep_ = pos_;
    size_t i = pos_;
    COMMDX_ASSIGN_OR_RETURN(bool ok, SkipValue(i));
    if (!ok) return Truncated("truncated JSON: input ends inside a key");
    std::string key(buf_ + keep_ + 1, i - keep_ - 2);
    pos_ = i;
    return key;
  }

  Status ReadTopValue(const std::string& key) {
    keep_ = pos_;
    size_t i = pos_;
    COMMDX_ASSIGN_OR_RETURN(bool ok, SkipValue(i));
    if (!ok) return Truncated("truncated JSON: input ends inside the value of \"" + key + "\"");
    std::string_view value(buf_ + keep_, i - keep_);
    uint64_t offset = base_ + keep_;
    pos_ = i;
    std::string padded;
    padded.reserve(value.size() + kPadding);
    padded.append(value);
    padded.append(kPadding, ' ');
    return sink_.TopLevel(key, std::string_view(padded.data(), value.size()), offset);
  }

  // --- traceEvents -----------------------------------------------------------------------------
  // A cut point: the ',' of "}" ws "," ws "{" at or after `from` (any layout: one line,
  // one event per line, indented, CRLF); npos if none in the window. The pattern may also occur
  // inside a string or a nested list of objects: the part then fails to read and is retried
  // (ReadEvents), so a wrong guess costs time, never correctness. `resume` is where a later
  // search must start once more input is in.
  size_t FindCut(size_t from, size_t& resume) const {
    size_t i = from;
    resume = end_;
    while (i < end_) {
      const void* close = std::memchr(buf_ + i, '}', end_ - i);
      if (!close) return std::string::npos;
      size_t b = static_cast<const char*>(close) - buf_;
      i = b + 1;
      size_t comma = SkipWsAt(b + 1);
      size_t open = comma < end_ && buf_[comma] == ',' ? SkipWsAt(comma + 1) : comma;
      if (open >= end_) {
        resume = b;  // what follows this '}' is not read yet
        return std::string::npos;
      }
      if (buf_[comma] == ',' && buf_[open] == '{') return comma;
    }
    return std::string::npos;
  }
  // The ',' of "}" ws "," when the window ends in more than kLongBlanks blanks after it (a gap
  // padded into the file between two events): cut there at once rather than carry the blanks
  // into the part while waiting for the next '{'. npos otherwise, or when the ',' lies before
  // pos_ + min_rel (a guess that already failed).
  size_t BlankTailCut(size_t min_rel) const {
    size_t t = end_;
    while (t > pos_ && IsWs(buf_[t - 1])) --t;
    if (end_ - t <= kLongBlanks || t <= pos_ || buf_[t - 1] != ',') return std::string::npos;
    size_t comma = t - 1;
    size_t b = comma;
    while (b > pos_ && IsWs(buf_[b - 1])) --b;
    if (b <= pos_ || buf_[b - 1] != '}' || comma - pos_ < min_rel) return std::string::npos;
    return comma;
  }
  size_t SkipWsAt(size_t i) const {
    while (i < end_ && IsWs(buf_[i])) ++i;
    return i;
  }

  Status ReadEvents() {
    size_t target = opt_.part_bytes;
    size_t min_rel = 0;  // after a failed guess, a cut must lie past it
    while (true) {
      COMMDX_TRY(SkipBlanksBetweenParts());
      if (AtEof()) return CutShort();  // after "}," or the '['
      if (buf_[pos_] == ']') {
        ++pos_;
        return Ok{};
      }
      COMMDX_TRY(Want(target + (64u << 10)));
      size_t cut = std::string::npos;
      size_t scan_rel = target;  // search for a cut from pos_ + scan_rel
      while (true) {
        if (end_ - pos_ > scan_rel) {
          size_t resume = 0;
          cut = FindCut(pos_ + scan_rel, resume);
          if (cut != std::string::npos) break;
          scan_rel = resume - pos_;
        }
        cut = BlankTailCut(min_rel);
        if (cut != std::string::npos) break;
        if (eof_) break;
        COMMDX_TRY(More());
      }
      if (cut == std::string::npos) return LastPart();
      if (cut + 2 - pos_ > opt_.max_part_bytes) return TooBig(cut + 2 - pos_);
      sink_.Checkpoint();
      size_t done = 0;
      auto st = ParsePart(cut, done);
      if (st) {
        pos_ = cut + 1;
        target = opt_.part_bytes;
        min_rel = 0;
        src_.Release(base_ + pos_ - 1);
        ReportProgress();
        continue;
      }
      ++stats_.retries;
      if (done > 1) {
        // The events before the one that failed were read whole and stay; the next part starts
        // at that event (a cut inside it, or an error that the next parts will meet again).
        pos_ += done - 1;
        src_.Release(base_ + pos_ - 1);
        target = std::max(opt_.part_bytes, (cut - pos_) * 2 + 1);
        min_rel = 0;
        continue;
      }
      // The first event already failed: the cut was not between two events, or the event is
      // one the scanner cannot read. Take the part back and find where the event ends.
      sink_.Rollback();
      const size_t cut_rel = cut - pos_;
      size_t end = pos_;
      COMMDX_ASSIGN_OR_RETURN(bool whole, SkipValue(end));
      if (!whole) return CutShort();  // the input ends inside it
      if (end - pos_ > cut_rel) {
        // The cut fell inside it: retry with a part that reaches past it.
        target = std::max(opt_.part_bytes, end - pos_);
        min_rel = end - pos_;
        continue;
      }
      COMMDX_TRY(ItemAlone(end));
      target = opt_.part_bytes;
      min_rel = 0;
    }
  }

  // The item at [pos_, end), read whole by bracket depth, which the scanner failed on in a
  // part: alone, then by the strict parser (DocumentSink::StrictItem). Leaves pos_ past the ','
  // after it, at the ']' of traceEvents, or at the end of the input.
  Status ItemAlone(size_t end) {
    if (end + 1 - pos_ > opt_.max_part_bytes) return TooBig(end + 1 - pos_);
    sink_.Checkpoint();
    size_t done = 0;
    if (!ParsePart(end, done)) {
      sink_.Rollback();
      ++stats_.strict_items;
      const size_t copy_end = std::min(end, end_);
      COMMDX_TRY(sink_.StrictItem(buf_ + pos_, copy_end - pos_, base_ + pos_));
    }
    pos_ = end;
    COMMDX_TRY(SkipWs());
    if (AtEof() || buf_[pos_] == ']') return Ok{};
    if (buf_[pos_] == ',') {
      ++pos_;
      return Ok{};
    }
    return Fail("invalid JSON in traceEvents: expected ',' or ']' after an item, found " +
                Shown(buf_[pos_]));
  }

  // The input ends inside traceEvents, at pos_ (the first item not read whole, or the end):
  // the items before it were read.
  Status CutShort() {
    stats_.cut = true;
    stats_.cut_in_events = true;
    stats_.cut_offset = base_ + std::min(pos_, end_);
    return Ok{};
  }

  void ReportProgress() {
    uint64_t at = src_.was_gzip() ? src_.compressed_read() : base_ + pos_;
    at = std::min(at, progress_total_);
    if (at <= progress_done_) return;
    ReadProgress::Advance(at - progress_done_);
    progress_done_ = at;
  }

  // Parses buf_[pos_-1 .. cut] as "[" + events + "]". On failure `done` is the offset in the
  // part of the first item not read whole (0 if none was).
  Status ParsePart(size_t cut, size_t& done) {
    size_t begin = pos_ - 1;
    uint64_t len = cut + 1 - begin;
    if (len > opt_.max_part_bytes) return TooBig(len);
    ++stats_.parts;
    // At the end of a mapped file there is no room for padding, and at the end of the input
    // (cut short) no byte to stand for the ']'.
    if (cut >= end_ || cap_ - begin < len + kPadding) {
      std::string copy(buf_ + begin, std::min<size_t>(len, end_ - begin));
      copy.resize(len, ']');
      copy.front() = '[';
      copy.back() = ']';
      copy.append(kPadding, ' ');
      return sink_.EventPart(copy.data(), len, copy.size(), base_ + pos_, done);
    }
    // buf_[begin] and buf_[cut] (commas, or the array's own brackets) stand for the part's
    // brackets: nothing is written, so a mapped file stays read-only.
    return sink_.EventPart(buf_ + begin, len, cap_ - begin, base_ + pos_, done);
  }

  // No cut left: the rest of traceEvents up to its ']' (or to the end of an input cut short)
  // is one part. From an item that fails, the items before it are kept, that item is read
  // alone (ItemAlone) and the rest is one part again.
  Status LastPart() {
    keep_ = pos_ - 1;
    size_t i = pos_;
    COMMDX_ASSIGN_OR_RETURN(bool closed, FindArrayClose(i));
    const uint64_t stop_at = base_ + (closed ? i : end_);  // the ']', or the end of the input
    if (stop_at - base_ + 2 - pos_ > opt_.max_part_bytes) return TooBig(stop_at - base_ + 2 - pos_);
    while (true) {
      const size_t stop = static_cast<size_t>(stop_at - base_);
      pos_ = SkipWsAt(pos_);
      if (pos_ >= stop) {
        if (!closed) return CutShort();
        pos_ = stop + 1;
        return Ok{};
      }
      sink_.Checkpoint();
      size_t done = 0;
      if (ParsePart(stop, done)) {
        if (!closed) {  // the input ends right after an item
          pos_ = stop;
          return CutShort();
        }
        pos_ = stop + 1;
        return Ok{};
      }
      if (done > 1) {
        pos_ += done - 1;
        continue;
      }
      sink_.Rollback();
      size_t end = pos_;
      COMMDX_ASSIGN_OR_RETURN(bool whole, SkipValue(end));
      if (!whole) return CutShort();  // the input ends inside this item
      COMMDX_TRY(ItemAlone(end));
    }
  }

  // --- errors ----------------------------------------------------------------------------------
  // An input that ends inside the top level: an error before traceEvents was read, a document
  // cut after its events otherwise (Run).
  Error Truncated(std::string message) {
    truncated_ = true;
    return Fail(std::move(message));
  }
  Error Fail(std::string message, int delta = 0) const {
    SourceLoc loc{name_};
    loc.offset = base_ + pos_ + delta;
    loc.has_offset = true;
    return MakeError(ErrorCode::kBadInput, std::move(message), loc);
  }
  Error TooBig(uint64_t len) const {
    return Fail("a single JSON part of " + std::to_string(len) +
                " bytes exceeds the 4 GiB limit for one part: no point between two events of "
                "traceEvents was found in it (one event this large, or events nested in a "
                "single array item)");
  }
  static std::string Shown(char c) {
    if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
    return StrFormat("0x%02x", static_cast<unsigned char>(c));
  }

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

}  // namespace

Result<ReaderStats> ReadDocument(ByteSource& source, const std::string& name, DocumentSink& sink,
                                 const ReaderOptions& options) {
  Reader r(source, name, sink, options);
  return r.Run();
}

}  // namespace commdx::ingest::kineto
