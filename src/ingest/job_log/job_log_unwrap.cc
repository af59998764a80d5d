#include "ingest/job_log/job_log_unwrap.h"

#include <algorithm>

#include "base/text.h"
#include "ingest/job_log/job_log_text.h"

namespace commdx::ingest::job_log {

namespace {

constexpr size_t kMinWrappedLine = 40;  // shorter lines end where the writer ended them
constexpr uint32_t kMaxLines = 16;
constexpr size_t kMaxTagAt = 120;  // a collector's prefix before the record is shorter

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view TrimCr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

// [start, end) of the physical line holding data[at].
void LineBounds(std::string_view data, size_t at, size_t& start, size_t& end) {
  size_t nl = at == 0 ? std::string_view::npos : data.rfind('\n', at - 1);
  start = nl == std::string_view::npos ? 0 : nl + 1;
  end = data.find('\n', at);
  if (end == std::string_view::npos) end = data.size();
}

size_t Digits(std::string_view s, size_t i) {
  size_t n = 0;
  while (i + n < s.size() && IsDigit(s[i + n])) ++n;
  return n;
}

bool StartsWithAny(std::string_view s, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys)
    if (s.substr(0, k.size()) == k) return true;
  return false;
}

}  // namespace

std::string Squeeze(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (!IsSpace(c)) out += c;
  return out;
}

// Record starts seen in job logs:
//   [rank3]:[E1229 ...]    [E ProcessGroupNCCL.cpp:458]    [80746] [rank0]:    3: [rank3]:
//   W0216 13:04:08.104644 139999514572608 torch/distributed/elastic/...
//   18:11:06.680 [rank4]:...    node1:2045:2101 [0] NCCL INFO ...
//   2025-02-18 12:54 [rank13]:...    node-a.log [stderr] [rank3]:...    host-1 [rank3]:...
//   Traceback (most recent call last):   File "x.py", line 3   frame #0:   what():
bool StartsRecord(std::string_view line) {
  line = TrimCr(line);
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  std::string_view s = line.substr(i);
  if (s.empty() || s[0] == '[') return true;
  // A collector's own tag before the record: "node-a.log [stderr] [rank3]:[E909 ...]",
  // "job.out [stdout] Traceback ...": what follows the tag is read as a line of its own.
  for (std::string_view tag : {"[stderr] ", "[stdout] "})
    if (size_t at = s.find(tag); at != std::string_view::npos && at < kMaxTagAt)
      return StartsRecord(s.substr(at + tag.size())) || s.size() == at + tag.size();
  // "... [rank3]:" after any prefix: the launcher's rank tag opens a record.
  for (size_t at = s.find(" [rank"); at != std::string_view::npos && at < kMaxTagAt;
       at = s.find(" [rank", at + 1)) {
    size_t d = Digits(s, at + 6);
    if (d > 0 && s.substr(at + 6 + d, 2) == "]:") return true;
  }
  if (StartsWithAny(s, {"Traceback", "File \"", "frame #", "Exception raised from", "what():",
                        "terminate called", "Fatal Python", "Thread 0x", "Current thread"}))
    return true;
  // glog: a severity letter and MMDD.
  if ((s[0] == 'I' || s[0] == 'W' || s[0] == 'E' || s[0] == 'F') && Digits(s, 1) >= 3 &&
      Digits(s, 1) <= 4 && s.size() > 1 + Digits(s, 1) && s[1 + Digits(s, 1)] == ' ')
    return true;
  size_t d = Digits(s, 0);
  // A date stamp a collector put before the record: "2025-02-18 12:54 [rank13]:...",
  // "2025/02/18 ...".
  if (d == 4 && s.size() >= 10 && (s[4] == '-' || s[4] == '/') && Digits(s, 5) == 2 &&
      s[7] == s[4] && Digits(s, 8) == 2)
    return true;
  if (d > 0 && d < s.size()) {
    if (s[d] == ':' && d + 1 < s.size() && s[d + 1] == ' ') return true;  // "3: "
    if (s[d] == ':' && Digits(s, d + 1) == 2 && s.size() > d + 3 && s[d + 3] == ':')
      return true;  // "18:11:06"
  }
  // NCCL's "host:pid:tid [dev]".
  size_t c1 = s.find(':');
  if (c1 != std::string_view::npos && c1 > 0 &&
      s.substr(0, c1).find(' ') == std::string_view::npos) {
    size_t p = Digits(s, c1 + 1);
    if (p > 0 && c1 + 1 + p < s.size() && s[c1 + 1 + p] == ':') {
      size_t t = Digits(s, c1 + 2 + p);
      size_t after = c1 + 2 + p + t;
      if (t > 0 && s.substr(after, 2) == " [") return true;
    }
  }
  return false;
}

LogicalLine LogicalLineAt(std::string_view data, size_t at, bool (*done)(std::string_view)) {
  size_t start = 0, end = 0;
  LineBounds(data, at, start, end);
  LogicalLine out;
  uint32_t n = 1;
  // Up: while this line continues a long one above it.
  while (n < kMaxLines && start > 0 && !StartsRecord(data.substr(start, end - start))) {
    size_t ps = 0, pe = 0;
    LineBounds(data, start - 1, ps, pe);
    if (TrimCr(data.substr(ps, pe - ps)).size() < kMinWrappedLine) break;
    start = ps;
    ++n;
  }
  // Down: while the record is incomplete and the next line continues this long one.
  size_t last = end;  // end of the last joined line
  size_t last_start = start;
  {
    size_t s = start;
    while (s < end) {  // find the start of the last line joined so far
      size_t nl = data.find('\n', s);
      if (nl == std::string_view::npos || nl >= end) break;
      s = nl + 1;
    }
    last_start = s;
  }
  std::string sq = Squeeze(data.substr(start, last - start));
  while (n < kMaxLines && last < data.size()) {
    if (done && done(sq)) break;
    if (TrimCr(data.substr(last_start, last - last_start)).size() < kMinWrappedLine) break;
    size_t ns = last + 1, ne = data.find('\n', ns);
    if (ne == std::string_view::npos) ne = data.size();
    if (ns >= data.size() || StartsRecord(data.substr(ns, ne - ns))) break;
    last_start = ns;
    last = ne;
    sq += Squeeze(data.substr(ns, ne - ns));
    ++n;
  }
  out.start = start;
  out.end = last;
  out.lines = n;
  std::string_view all = data.substr(start, last - start);
  // For people: a line that filled the terminal ran on mid-word; one that was wrapped at a space
  // lost that space. Only the display depends on the guess.
  size_t pos = 0;
  size_t width = 0;
  while (pos <= all.size()) {
    size_t nl = all.find('\n', pos);
    std::string_view l = TrimCr(all.substr(pos, nl == std::string_view::npos ? nl : nl - pos));
    const size_t full = l.size();
    if (!out.text.empty()) {
      const bool indented = !l.empty() && (l[0] == ' ' || l[0] == '\t');
      while (!l.empty() && (l[0] == ' ' || l[0] == '\t')) l.remove_prefix(1);
      bool glue =
          out.text.back() == ' ' || (IsDigit(out.text.back()) && !l.empty() && IsDigit(l[0]));
      if (!glue && !indented && width >= 100) glue = true;  // a terminal's width, not an editor's
      if (!glue) out.text += ' ';
    }
    width = full;
    std::string_view body = l;
    while (!body.empty() && body.back() == ' ') body.remove_suffix(1);
    out.text += std::string(body);
    if (body.size() < l.size() && nl != std::string_view::npos) out.text += ' ';
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  out.squeezed = std::move(sq);
  return out;
}

std::vector<LogicalLine> RecordsWith(std::string_view data,
                                     std::initializer_list<std::string_view> probes,
                                     bool (*done)(std::string_view)) {
  std::vector<size_t> hits;
  for (std::string_view p : probes)
    for (size_t at = FindFrom(data, p, 0); at != std::string_view::npos;
         at = FindFrom(data, p, at + p.size()))
      hits.push_back(at);
  std::sort(hits.begin(), hits.end());
  std::vector<LogicalLine> out;
  for (size_t at : hits) {
    if (!out.empty() && at < out.back().end) continue;  // inside the record just read
    LogicalLine l = LogicalLineAt(data, at, done);
    if (!out.empty() && l.start < out.back().end) continue;
    out.push_back(std::move(l));
  }
  return out;
}

size_t OpenTailStart(std::string_view data, size_t max_bytes) {
  if (data.empty() || data.back() != '\n') return data.size();
  size_t start = 0, end = 0;
  LineBounds(data, data.size() - 1, start, end);
  if (TrimCr(data.substr(start, end - start)).size() < kMinWrappedLine) return data.size();
  // Up, as LogicalLineAt walks: the lines this last one continues are part of its record.
  for (uint32_t n = 1; n < kMaxLines && start > 0 && !StartsRecord(data.substr(start, end - start));
       ++n) {
    size_t ps = 0, pe = 0;
    LineBounds(data, start - 1, ps, pe);
    if (TrimCr(data.substr(ps, pe - ps)).size() < kMinWrappedLine) break;
    start = ps;
    end = pe;
  }
  return data.size() - start > max_bytes ? data.size() : start;
}

namespace {

int SmallRank(int64_t r) { return r >= 0 && r < (1 << 24) ? static_cast<int>(r) : -1; }

int LauncherRank(std::string_view s) { return SmallRank(NumberAfter(s, "[rank")); }

// PyTorch's "[Rank 3]" or the end of its "[PG ID 0 PG GUID 0(default_pg) Rank 3]" prefix.
int TorchRank(std::string_view s) {
  for (size_t at = s.find("Rank"); at != std::string_view::npos; at = s.find("Rank", at + 4)) {
    if (at + 4 < s.size() && IsDigit(s[at + 4]))
      return SmallRank(NumberAfter(s.substr(at), "Rank"));
  }
  return -1;
}

}  // namespace

int SqRankOf(std::string_view s, bool launcher_first) {
  // In the default group PyTorch's rank is the global rank, while "[rank0]:" may be a
  // launcher's local rank (torchrun --role rank --tee 3 on the second node: "[rank0]: ...
  // [PG ID 0 PG GUID 0(default_pg) Rank 4]").
  if (launcher_first) {
    std::string pg, desc;
    SqPgOf(s, pg, desc);
    if (pg == "0" || desc == "default_pg")
      if (int r = TorchRank(s); r >= 0) return r;
  }
  int r = launcher_first ? LauncherRank(s) : TorchRank(s);
  if (r < 0) r = launcher_first ? TorchRank(s) : LauncherRank(s);
  return r;
}

void SqPgOf(std::string_view s, std::string& pg, std::string& desc) {
  int64_t id = NumberAfter(s, "[PGID");
  if (id < 0) id = NumberAfter(s, "[PG");
  if (id >= 0) pg = std::to_string(id);
  if (size_t p = s.find("GUID"); p != std::string_view::npos) {
    std::string_view g = s.substr(p);
    size_t open = g.find('('), close = g.find(')');
    if (open < close && close < g.find(']'))
      desc = std::string(g.substr(open + 1, close - open - 1));
  }
}

std::string SqPgGuidOf(std::string_view s) {
  size_t at = s.find("PGGUID");
  if (at == std::string_view::npos) return {};
  std::string_view g = s.substr(at + 6);
  g = g.substr(0, std::min(g.find('('), g.find(']')));
  // Squeezed, "PG GUID 9 Rank 4]" reads "9Rank4": the rank is not part of the name.
  if (size_t r = g.rfind("Rank"); r != std::string_view::npos && r > 0) g = g.substr(0, r);
  return std::string(g.substr(0, 64));
}

}  // namespace commdx::ingest::job_log
