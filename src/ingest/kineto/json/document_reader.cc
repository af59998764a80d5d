#include "ingest/kineto/json/document_reader.h"

#include <algorithm>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/str_format.h"
#include "ingest/kineto/json/document_reader_impl.h"

namespace commdx::ingest::kineto {

namespace internal {

Result<ReaderStats> Reader::Run() {
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

Status Reader::Body() {
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
    if (AtEof()) return Truncated("truncated JSON: input ends before the value of \"" + key + "\"");
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
    if (c != ',') return Fail("expected ',' or '}' in the top-level object, found " + Shown(c), -1);
    COMMDX_TRY(SkipWs());
  }
  return Finish();
}

Status Reader::Finish() {
  COMMDX_TRY(SkipWs());
  if (!AtEof()) return Fail("unexpected content after the end of the JSON document");
  return Ok{};
}

Status Reader::More() {
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

Status Reader::SkipBlanksBetweenParts() {
  while (true) {
    while (pos_ < end_ && IsWs(buf_[pos_])) ++pos_;
    keep_ = pos_ - 1;  // the byte before the part stands for its '['
    if (pos_ < end_ || eof_) break;
    COMMDX_TRY(More());
  }
  src_.Release(base_ + keep_);
  return Ok{};
}

Result<bool> Reader::SkipValue(size_t& i) {
  int depth = 0;
  bool in_str = false;
  while (true) {
    if (i >= end_) {
      COMMDX_ASSIGN_OR_RETURN(bool in, ReachFor(i));
      if (!in) return false;
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

Result<bool> Reader::FindArrayClose(size_t& i) {
  int depth = 1;
  bool in_str = false;
  while (true) {
    if (i >= end_) {
      COMMDX_ASSIGN_OR_RETURN(bool in, ReachFor(i));
      if (!in) return false;
    }
    i = NextSpecial(i, in_str);
    if (i >= end_) continue;
    char c = buf_[i];
    if (StepString(c, i, in_str)) {
      // its bytes are not brackets
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return true;
    }
    ++i;
  }
}

size_t Reader::NextSpecial(size_t i, bool in_str) const {
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

Result<std::string> Reader::ReadKey() {
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

Status Reader::ReadTopValue(const std::string& key) {
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

Error Reader::Truncated(std::string message) {
  truncated_ = true;
  return Fail(std::move(message));
}

Error Reader::Fail(std::string message, int delta) const {
  SourceLoc loc{name_};
  loc.offset = base_ + pos_ + delta;
  loc.has_offset = true;
  return MakeError(ErrorCode::kBadInput, std::move(message), loc);
}

Error Reader::TooBig(uint64_t len) const {
  return Fail("a single JSON part of " + std::to_string(len) +
              " bytes exceeds the 4 GiB limit for one part: no point between two events of "
              "traceEvents was found in it (one event this large, or events nested in a "
              "single array item)");
}

std::string Reader::Shown(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
  return StrFormat("0x%02x", static_cast<unsigned char>(c));
}

}  // namespace internal

Result<ReaderStats> ReadDocument(ByteSource& source, const std::string& name, DocumentSink& sink,
                                 const ReaderOptions& options) {
  internal::Reader r(source, name, sink, options);
  return r.Run();
}

}  // namespace commdx::ingest::kineto
