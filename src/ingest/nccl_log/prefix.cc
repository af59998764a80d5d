// The line prefix of NCCL debug output, every era (grammar §1):
//
//   gpu-bql-144-103:18553:18553 [0] INFO NET : Using interface enp3s0:192.168.144.103<0>   (<= 2.2)
//   gpu-bql-144-103:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : ... (<= 2.2)
//   vm:656:667 [0] NCCL INFO Channel 00/24 : 0 1                                            (2.3+)
//   ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory ...
//   host  pid  tid   dev  file:line (WARN only)  level  message
//
// with wrappers around it: "[1,3]<stdout>:host:pid:tid ...", "[trainer3]:host:...", "0: host:..",
// "[2025-07-21 19:05:29] host:...", "451 host:..." (editor line numbers), "> host:..." (markdown),
// and prefixes stripped by the poster: "[3] include/shm.h:28 NCCL WARN ...", "NCCL INFO ...",
// or the bare message "NET/IB : Using [0]ibp0:1/IB ...".
#include <cstring>

#include "base/text.h"
#include "ingest/nccl_log/line.h"

namespace commdx::ingest::nccl_log {

namespace {

// A pid, tid, device or line number: digits only, and few enough for int64_t (a longer run is
// not an NCCL prefix; found by fuzzing, 20 digits overflowed Digits()).
bool AllDigits(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (!IsDigit(c)) return false;
  return true;
}

int64_t Digits(std::string_view s) {
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// "file.cc:123" (exactly one ':' followed by digits, no brackets): the WARN source location.
bool LooksSourceLoc(std::string_view tok) {
  size_t colon = tok.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  if (!AllDigits(tok.substr(colon + 1))) return false;
  std::string_view file = tok.substr(0, colon);
  return file.find(':') == std::string_view::npos && file.find('[') == std::string_view::npos;
}

// Parses what stands left of the level word, right to left: [file:line] [dev] host:pid:tid,
// then any wrapper junk (where a timestamp may hide). Returns false if nothing of an NCCL prefix
// was found (used to reject "INFO" in other programs' output for the pre-2.3 form).
bool ParseLeft(std::string_view left, bool is_warn, LineInfo& out) {
  left = TrimRight(left);
  bool found_any = false;
  size_t sp = left.rfind(' ');
  std::string_view tok = sp == std::string_view::npos ? left : left.substr(sp + 1);
  if (is_warn && LooksSourceLoc(tok)) {
    out.source = tok;
    left = TrimRight(left.substr(0, left.size() - tok.size()));
    found_any = true;
  }
  if (!left.empty() && left.back() == ']') {
    size_t open = left.rfind('[');
    if (open != std::string_view::npos) {
      std::string_view d = left.substr(open + 1, left.size() - open - 2);
      if (AllDigits(d) && d.size() < 6) {
        out.dev = static_cast<int>(Digits(d));
        left = TrimRight(left.substr(0, open));
        found_any = true;
      }
    }
  }
  sp = left.rfind(' ');
  tok = sp == std::string_view::npos ? left : left.substr(sp + 1);
  // host:pid:tid, the host possibly glued to a wrapper ("[1,3]<stdout>:host:pid:tid").
  size_t c2 = tok.rfind(':');
  if (c2 != std::string_view::npos && c2 > 0 && AllDigits(tok.substr(c2 + 1))) {
    size_t c1 = tok.rfind(':', c2 - 1);
    if (c1 != std::string_view::npos && AllDigits(tok.substr(c1 + 1, c2 - c1 - 1))) {
      std::string_view host = tok.substr(0, c1);
      size_t wrap = host.rfind(':');
      if (wrap != std::string_view::npos) host = host.substr(wrap + 1);
      size_t gt = host.rfind('>');  // "[1,0]<stdout>host" without a colon
      if (gt != std::string_view::npos) host = host.substr(gt + 1);
      out.host = host;
      out.pid = Digits(tok.substr(c1 + 1, c2 - c1 - 1));
      out.tid = Digits(tok.substr(c2 + 1));
      left = left.substr(0, left.size() - tok.size());
      found_any = true;
    }
  }
  if (!TrimRight(left).empty()) out.time_ns = FindTimestampNs(left);
  return found_any;
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool Num(std::string_view s, size_t at, size_t n, int64_t& v) {
  if (at + n > s.size()) return false;
  std::string_view d = s.substr(at, n);
  if (!AllDigits(d)) return false;
  v = Digits(d);
  return true;
}

}  // namespace

int64_t FindTimestampNs(std::string_view s) {
  // YYYY-MM-DD[ T]HH:MM:SS(.frac)
  for (size_t i = 0; i + 19 <= s.size(); ++i) {
    if (!IsDigit(s[i]) || s[i + 4] != '-' || s[i + 7] != '-') continue;
    if (s[i + 10] != ' ' && s[i + 10] != 'T') continue;
    if (s[i + 13] != ':' || s[i + 16] != ':') continue;
    int64_t y, mo, d, h, mi, se;
    if (!Num(s, i, 4, y) || !Num(s, i + 5, 2, mo) || !Num(s, i + 8, 2, d) ||
        !Num(s, i + 11, 2, h) || !Num(s, i + 14, 2, mi) || !Num(s, i + 17, 2, se))
      continue;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) continue;
    // Nanoseconds since 1970 fit an int64 from 1678 to 2261: a date past them is no clock's.
    if (y < 1678 || y > 2261) continue;
    int64_t ns = ((DaysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60 + se;
    ns *= 1000000000;
    size_t j = i + 19;
    if (j < s.size() && s[j] == '.') {
      int64_t scale = 100000000;
      for (++j; j < s.size() && IsDigit(s[j]); ++j) {
        ns += (s[j] - '0') * scale;
        scale /= 10;
      }
    }
    return ns;
  }
  return -1;
}

std::string_view StripLauncherPrefix(std::string_view s) {
  for (int guard = 0; guard < 8; ++guard) {
    s = TrimLeft(s);
    if (s.empty()) return s;
    if (s[0] == '>' && (s.size() == 1 || s[1] == ' ')) {
      s.remove_prefix(1);
      continue;
    }
    if (s[0] == '[') {
      size_t close = s.find(']');
      if (close == std::string_view::npos || close > 64) return s;
      std::string_view rest = s.substr(close + 1);
      if (StartsWith(rest, "<stdout>") || StartsWith(rest, "<stderr>")) rest.remove_prefix(8);
      std::string_view inner = s.substr(1, close - 1);
      if (!rest.empty() && rest[0] == ':') {  // [rank3]: / [1,3]<stdout>: / [trainer0|0]:
        s = rest.substr(1);
        continue;
      }
      if (FindTimestampNs(inner) >= 0) {  // [2025-07-21 19:05:29]
        s = rest;
        continue;
      }
      return s;
    }
    size_t i = 0;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i > 0 && i < 8 && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') {  // "0: "
      s.remove_prefix(i + 2);
      continue;
    }
    return s;
  }
  return s;
}

namespace {

// "NCCL " at or after `from`; npos if absent. memchr for 'N' beats memmem on short lines.
size_t FindNcclWord(std::string_view line, size_t from) {
  const char* base = line.data();
  size_t n = line.size();
  while (from + 5 <= n) {
    const void* hit = std::memchr(base + from, 'N', n - from - 4);
    if (!hit) return std::string_view::npos;
    size_t pos = static_cast<size_t>(static_cast<const char*>(hit) - base);
    if (std::memcmp(base + pos, "NCCL ", 5) == 0) return pos;
    from = pos + 1;
  }
  return std::string_view::npos;
}

// The common case in one pass: "host:pid:tid [dev] NCCL INFO msg" with nothing around it.
bool SplitCanonicalInfo(std::string_view line, LineInfo& out) {
  size_t sp = line.find(' ');
  if (sp == std::string_view::npos || sp < 5) return false;
  std::string_view tok = line.substr(0, sp);
  size_t c2 = tok.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0 || c2 + 1 == tok.size()) return false;
  size_t c1 = tok.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0 || c1 + 1 == c2) return false;
  if (tok.find(':') != c1 || tok[0] == '[') return false;  // wrappers take the general path
  std::string_view pid = tok.substr(c1 + 1, c2 - c1 - 1), tid = tok.substr(c2 + 1);
  if (!AllDigits(pid) || !AllDigits(tid)) return false;
  std::string_view rest = line.substr(sp + 1);
  if (rest.size() < 4 || rest[0] != '[') return false;
  size_t close = rest.find(']');
  if (close == std::string_view::npos || close < 2 || close > 6) return false;
  std::string_view dev = rest.substr(1, close - 1);
  if (!AllDigits(dev)) return false;
  rest.remove_prefix(close + 1);
  if (rest.substr(0, 11) != " NCCL INFO ") return false;
  out.host = tok.substr(0, c1);
  out.pid = Digits(pid);
  out.tid = Digits(tid);
  out.dev = static_cast<int>(Digits(dev));
  out.level = Level::kInfo;
  out.msg = rest.substr(11);
  return true;
}

}  // namespace

bool SplitNcclLine(std::string_view line, LineInfo& out) {
  out.raw = line;
  if (SplitCanonicalInfo(line, out)) return true;
  // Otherwise find "NCCL " followed by a level word. Every 2.3+ line has it.
  size_t from = 0;
  while (true) {
    size_t pos = FindNcclWord(line, from);
    if (pos == std::string_view::npos) break;
    std::string_view after = line.substr(pos + 5);
    Level level;
    size_t word = 0;
    if (StartsWith(after, "INFO")) {
      level = Level::kInfo, word = 4;
    } else if (StartsWith(after, "WARN")) {
      level = Level::kWarn, word = 4;
    } else if (StartsWith(after, "TRACE")) {
      level = Level::kTrace, word = 5;
    } else if (StartsWith(after, "CALL")) {
      level = Level::kCall, word = 4;
    } else if (StartsWith(after, "version ") && after.size() > 8 && IsDigit(after[8])) {
      out.level = Level::kBanner;
      out.msg = line.substr(pos);
      ParseLeft(line.substr(0, pos), false, out);
      return true;
    } else {
      from = pos + 5;
      continue;
    }
    if (after.size() > word && after[word] != ' ') {  // "NCCL INFOx": not a level word
      from = pos + 5;
      continue;
    }
    out.level = level;
    out.msg = after.size() > word ? after.substr(word + 1) : std::string_view();
    ParseLeft(line.substr(0, pos), level == Level::kWarn, out);
    return true;
  }
  // Pre-2.3: "host:pid:tid [dev] INFO msg" / "host:pid:tid [dev] file:line WARN msg".
  for (std::string_view word : {std::string_view(" INFO "), std::string_view(" WARN ")}) {
    size_t pos = line.find(word);
    if (pos == std::string_view::npos) continue;
    LineInfo tmp = out;
    bool warn = word[1] == 'W';
    // Every pre-2.3 line has "[dev]"; without it " INFO " is other programs' logging.
    if (ParseLeft(line.substr(0, pos), warn, tmp) && tmp.dev >= 0) {
      out = tmp;
      out.level = warn ? Level::kWarn : Level::kInfo;
      out.msg = line.substr(pos + word.size());
      return true;
    }
  }
  std::string_view s = StripLauncherPrefix(line);
  if (s.empty()) return false;
  // A stripped pre-2.3 / quoted form: "INFO NET/Socket : Using".
  if (StartsWith(s, "INFO ") || StartsWith(s, "WARN ")) {
    out.level = s[0] == 'W' ? Level::kWarn : Level::kInfo;
    out.msg = s.substr(5);
    out.weak = true;
    return true;
  }
  out.level = Level::kBare;
  out.msg = s;
  out.weak = true;
  return true;
}

}  // namespace commdx::ingest::nccl_log
