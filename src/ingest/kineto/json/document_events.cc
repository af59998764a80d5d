// traceEvents read in parts: each part is cut at a "}," between two events, parsed whole by the
// scanner, and retried smaller (or item by item) where a guess at a cut was wrong.
#include <algorithm>
#include <cstring>
#include <string>

#include "ingest/kineto/json/document_reader_impl.h"

namespace commdx::ingest::kineto::internal {

size_t Reader::FindCut(size_t from, size_t& resume) const {
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

size_t Reader::BlankTailCut(size_t min_rel) const {
  size_t t = end_;
  while (t > pos_ && IsWs(buf_[t - 1])) --t;
  if (end_ - t <= kLongBlanks || t <= pos_ || buf_[t - 1] != ',') return std::string::npos;
  size_t comma = t - 1;
  size_t b = comma;
  while (b > pos_ && IsWs(buf_[b - 1])) --b;
  if (b <= pos_ || buf_[b - 1] != '}' || comma - pos_ < min_rel) return std::string::npos;
  return comma;
}

Status Reader::ReadEvents() {
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
    if (cut == std::string::npos) {
      COMMDX_ASSIGN_OR_RETURN(bool again, LastPart());
      if (!again) return Ok{};
      target = opt_.part_bytes;
      min_rel = 0;
      continue;
    }
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
    if (!whole) {  // the input ends inside it, or it is broken and the events go on after it
      COMMDX_ASSIGN_OR_RETURN(bool skipped, SkipBroken(pos_ + 1, std::string::npos));
      if (!skipped) return CutShort();
      target = opt_.part_bytes;
      min_rel = 0;
      continue;
    }
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

Result<bool> Reader::ItemAlone(size_t end) {
  if (end + 1 - pos_ > opt_.max_part_bytes) return TooBig(end + 1 - pos_);
  sink_.Checkpoint();
  size_t done = 0;
  if (!ParsePart(end, done)) {
    sink_.Rollback();
    // Its brackets do not match: its end by depth lies in the events after it.
    if (!WellNested(pos_, std::min(end, end_))) {
      COMMDX_ASSIGN_OR_RETURN(bool skipped, SkipBroken(pos_ + 1, end));
      if (skipped) return true;
    }
    ++stats_.strict_items;
    const size_t copy_end = std::min(end, end_);
    COMMDX_TRY(sink_.StrictItem(buf_ + pos_, copy_end - pos_, base_ + pos_));
  }
  pos_ = end;
  COMMDX_TRY(SkipWs());
  if (AtEof() || buf_[pos_] == ']') return false;
  if (buf_[pos_] == ',') {
    ++pos_;
    return false;
  }
  // A bracket too many after a whole item: what is left of a broken record.
  COMMDX_ASSIGN_OR_RETURN(bool skipped, SkipBroken(pos_, std::string::npos));
  if (skipped) return true;
  return Fail("invalid JSON in traceEvents: expected ',' or ']' after an item, found " +
              Shown(buf_[pos_]));
}

Result<bool> Reader::SkipBroken(size_t from, size_t limit) {
  size_t rel = from - pos_;
  const size_t limit_rel = limit == std::string::npos ? limit : limit - pos_;
  while (true) {
    size_t resume = 0;
    const size_t cut = FindCut(pos_ + rel, resume);
    if (cut != std::string::npos && cut - pos_ >= limit_rel) return false;
    if (cut != std::string::npos) {
      if (cut - pos_ > opt_.max_part_bytes) return TooBig(cut - pos_);
      ++stats_.strict_items;  // not JSON: counted by the sink as a bad event
      COMMDX_TRY(sink_.StrictItem(buf_ + pos_, cut - pos_, base_ + pos_));
      pos_ = cut + 1;
      return true;
    }
    if (eof_ || resume - pos_ >= limit_rel) return false;
    rel = resume - pos_;
    COMMDX_TRY(More());
  }
}

bool Reader::WellNested(size_t from, size_t to) const {
  std::string open;  // the brackets open, innermost last
  bool in_str = false;
  for (size_t i = from; i < to; ++i) {
    const char c = buf_[i];
    if (StepString(c, i, in_str)) continue;
    if (c == '{' || c == '[') {
      open.push_back(c);
    } else if (c == '}' || c == ']') {
      if (open.empty() || open.back() != (c == '}' ? '{' : '[')) return false;
      open.pop_back();
      if (open.empty() && i + 1 < to) return false;
    }
  }
  return open.empty() && !in_str;
}

Status Reader::CutShort() {
  stats_.cut = true;
  stats_.cut_in_events = true;
  stats_.cut_offset = base_ + std::min(pos_, end_);
  return Ok{};
}

void Reader::ReportProgress() {
  uint64_t at = src_.was_gzip() ? src_.compressed_read() : base_ + pos_;
  at = std::min(at, progress_total_);
  if (at <= progress_done_) return;
  ReadProgress::Advance(at - progress_done_);
  progress_done_ = at;
}

Status Reader::ParsePart(size_t cut, size_t& done) {
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

Result<bool> Reader::LastPart() {
  auto Cut = [this]() -> Result<bool> {
    COMMDX_TRY(CutShort());
    return false;
  };
  keep_ = pos_ - 1;
  size_t i = pos_;
  COMMDX_ASSIGN_OR_RETURN(bool closed, FindArrayClose(i));
  const uint64_t stop_at = base_ + (closed ? i : end_);  // the ']', or the end of the input
  if (stop_at - base_ + 2 - pos_ > opt_.max_part_bytes) return TooBig(stop_at - base_ + 2 - pos_);
  while (true) {
    const size_t stop = static_cast<size_t>(stop_at - base_);
    pos_ = SkipWsAt(pos_);
    // Closed by a '}': a bracket too many in a broken record before it, the events going on
    // after it. What follows is read in parts again (ReadEvents), its end found anew.
    const bool wrong_close = closed && buf_[stop] != ']';
    if (pos_ >= stop) {
      if (!closed) return Cut();
      if (wrong_close) {
        pos_ = stop;
        return SkipBroken(stop, std::string::npos);
      }
      pos_ = stop + 1;
      return false;
    }
    sink_.Checkpoint();
    size_t done = 0;
    if (ParsePart(stop, done)) {
      if (!closed) {  // the input ends right after an item
        pos_ = stop;
        return Cut();
      }
      if (wrong_close) {
        pos_ = stop;
        return SkipBroken(stop, std::string::npos);
      }
      pos_ = stop + 1;
      return false;
    }
    if (done > 1) {
      pos_ += done - 1;
      continue;
    }
    sink_.Rollback();
    size_t end = pos_;
    COMMDX_ASSIGN_OR_RETURN(bool whole, SkipValue(end));
    if (!whole) {  // the input ends inside this item, or it is broken and events follow
      COMMDX_ASSIGN_OR_RETURN(bool skipped,
                              SkipBroken(pos_ + 1, closed ? stop : std::string::npos));
      if (!skipped) return Cut();
      return true;
    }
    // A broken record skipped: the end of traceEvents found above may be past the true one.
    const size_t before = pos_;
    COMMDX_ASSIGN_OR_RETURN(bool skipped, ItemAlone(end));
    if (skipped) return true;
    if (pos_ == before) return Fail("invalid JSON in traceEvents: unexpected " + Shown(buf_[pos_]));
  }
}

}  // namespace commdx::ingest::kineto::internal
