#include "ingest/nccl_log/nccl_log_importer.h"

#include <cstring>

#include "base/text.h"
#include "ingest/nccl_log/builder.h"
#include "ingest/nccl_log/kinds.h"
#include "ingest/nccl_log/line.h"
#include "ingest/nccl_log/splice.h"

namespace commdx::ingest {

namespace {

using nccl_log::Builder;
using nccl_log::Level;
using nccl_log::LineInfo;
using nccl_log::Parsed;

// NCCL truncates its own lines at 1 KiB; anything this long is something else glued on.
constexpr size_t kLongLineBytes = 64 * 1024;

struct Outcome {
  Parsed parsed = Parsed::kNo;
  const char* kind = "";
};

using Fn = Parsed (*)(const LineInfo&, Builder&);
struct Kind {
  Fn fn;
  const char* name;
  const char* first_chars;  // the message's first character for this kind; "" = any
};

// In order of how often they occur in real logs. Messages are routed by their first character
// so that a line costs a few comparisons, not one per kind (parse speed,
// docs/measurements/nccl-log-parse.md).
constexpr Kind kKinds[] = {
    {nccl_log::ParseColl, "coll", "ABGRS0123456789"},
    {nccl_log::ParseNicContinuation, "nic_list", "["},
    {nccl_log::ParseConnection, "connection", "CR"},
    {nccl_log::ParseRingsTrees, "ring_tree", "CRT"},
    {nccl_log::ParseCommInit, "comm_init", "cnb["},
    {nccl_log::ParseChannelCounts, "channel_counts", "0123456789"},
    {nccl_log::ParseEnv, "env", "N"},
    {nccl_log::ParseNicList, "nic_list", "NB"},
    {nccl_log::ParseNetwork, "network", "NUP"},
    {nccl_log::ParseGdr, "gdr", "NGCD"},
    {nccl_log::ParseVersion, "version", "Nc"},
    {nccl_log::ParseErrorReturn, "error_return", "abcdefghijklmnopqrstuvwxyz"},
    {nccl_log::ParseNvls, "nvls", "NC"},
    {nccl_log::ParseP2p, "p2p", "PCn"},
    {nccl_log::ParseGraph, "graph", "CT"},
    {nccl_log::ParsePlugins, "plugins", "SPTEGR"},
};
constexpr size_t kNumKinds = sizeof(kKinds) / sizeof(kKinds[0]);

// For each first character, the kinds (bit i = kKinds[i]) that may parse it.
struct Routes {
  uint32_t mask[256] = {};
  Routes() {
    for (size_t i = 0; i < kNumKinds; ++i)
      for (const char* c = kKinds[i].first_chars; *c; ++c)
        mask[static_cast<unsigned char>(*c)] |= 1u << i;
  }
};

Outcome Dispatch(const LineInfo& li, Builder& b) {
  static const Routes kRoutes;
  switch (li.level) {
    case Level::kWarn:
      return {nccl_log::ParseWarn(li, b), "warn"};
    case Level::kTrace:
    case Level::kCall:
      return {Parsed::kYes, "trace"};
    case Level::kBanner:
      return {nccl_log::ParseVersion(li, b), "version"};
    case Level::kInfo:
    case Level::kBare:
      break;
  }
  if (li.msg.empty()) return {};
  uint32_t mask = kRoutes.mask[static_cast<unsigned char>(li.msg[0])];
  for (size_t i = 0; mask; ++i, mask >>= 1) {
    if (!(mask & 1)) continue;
    Parsed p = kKinds[i].fn(li, b);
    if (p != Parsed::kNo) return {p, kKinds[i].name};
  }
  if (!li.weak && nccl_log::ParseBenign(li) == Parsed::kYes) return {Parsed::kYes, "benign"};
  return {};
}

// A physical line holds at most this many spliced lines (each is read by a nested call).
constexpr int kMaxSplices = 64;

void HandleLine(std::string_view line, LineInfo& li, Builder& b, nccl_log::ForeignState& foreign,
                int splices = 0);

// Reads the line of another process spliced into `line` at `s.at` as a line of its own (same
// line number, its own column); the part before it is cut off and only noted.
void HandleSplice(std::string_view line, const LineInfo& li, nccl_log::Splice s, Builder& b,
                  nccl_log::ForeignState& foreign, int splices) {
  if (s.mid_line) {
    b.CountNcclLine(li);  // its prefix is whole: the process is real
    b.Quality("nccl_log.spliced_line", DiagSeverity::kWarning,
              "NCCL line cut off by another process's line written into it (two processes "
              "sharing one stdout); the embedded line was read, the cut-off part was not",
              li);
  } else {
    b.Quality("nccl_log.glued_text", DiagSeverity::kNote,
              "other output glued before an NCCL line (two processes sharing one stdout); "
              "the line was read from its host name on",
              li);
  }
  LineInfo embedded;
  embedded.line_no = li.line_no;
  embedded.offset = li.offset + s.at;
  embedded.col = static_cast<uint32_t>(li.col + s.at);
  HandleLine(line.substr(s.at), embedded, b, foreign, splices + 1);
}

void HandleLine(std::string_view line, LineInfo& li, Builder& b, nccl_log::ForeignState& foreign,
                int splices) {
  if (line.size() > kLongLineBytes && li.col == 1)
    b.Quality("nccl_log.long_line", DiagSeverity::kNote,
              "line longer than 64 KiB (NCCL writes at most 1 KiB per line); read as is", li);
  if (!nccl_log::SplitNcclLine(line, li)) {
    nccl_log::ParseForeign(li, b, foreign);
    return;
  }
  if (nccl_log::Splice s = nccl_log::FindSplice(line, li, b);
      s.at != std::string_view::npos && splices < kMaxSplices) {
    HandleSplice(line, li, s, b, foreign, splices);
    return;
  }
  // A banner or a bare message is NCCL output only if a line kind recognises it.
  bool weak = li.weak || li.level == Level::kBanner;
  Outcome o = Dispatch(li, b);
  if (weak) {
    if (o.parsed == Parsed::kYes) b.CountNcclLine(li);
    // A framework's error text carries the version and the error name on one line.
    if (o.parsed != Parsed::kYes || li.level == Level::kBanner)
      nccl_log::ParseForeign(li, b, foreign);
    return;
  }
  b.CountNcclLine(li);
  if (o.parsed == Parsed::kMalformed) {
    b.Quality(QualityFamily("nccl_log.malformed_"), o.kind, DiagSeverity::kWarning,
              std::string("NCCL ") + o.kind +
                  " line whose fields could not be read (truncated or garbled); skipped",
              li);
  } else if (o.parsed == Parsed::kNo) {
    b.Quality("nccl_log.unknown_line", DiagSeverity::kNote,
              "NCCL line of a kind commdx does not know (a newer NCCL?); ignored", li);
  }
}

// Reads the log a window at a time (the whole text is one window): the builder, the state of
// foreign lines and the line numbers carry over from one window to the next.
class LogReader final : public WindowReader {
 public:
  LogReader(const std::string& path, Job& job) : b_(path, job) {}

  void Read(const FileText& window) override {
    std::string_view data = window.data;
    uint64_t line_no = window.first_line - 1;
    size_t pos = 0;
    while (pos < data.size()) {
      const void* nl = std::memchr(data.data() + pos, '\n', data.size() - pos);
      size_t end =
          nl ? static_cast<size_t>(static_cast<const char*>(nl) - data.data()) : data.size();
      std::string_view line = data.substr(pos, end - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      LineInfo li;
      li.line_no = ++line_no;
      li.offset = window.first_offset + pos;
      if (!line.empty()) HandleLine(line, li, b_, foreign_);
      pos = end + 1;
    }
  }

  void Finish() override { b_.Finish(); }

 private:
  Builder b_;
  nccl_log::ForeignState foreign_;
};

}  // namespace

void ParseNcclLogText(const FileText& file, Job& job) {
  LogReader reader(file.path, job);
  reader.Read(file);
  reader.Finish();
}

std::unique_ptr<WindowReader> NcclLogWindows(const std::string& path, Job& job) {
  return std::make_unique<LogReader>(path, job);
}

bool SniffNcclLog(std::string_view head) {
  std::string_view first = TrimLeft(head);
  if (!first.empty() && first[0] == '{') return false;  // JSON (profiler traces)
  // Parse the head for real into a scratch job: the sniffer then accepts exactly what the
  // parser recognises, in every era and wrapper.
  FileText scratch;
  scratch.path = "<sniff>";
  scratch.data = std::string(head);
  Job job;
  ParseNcclLogText(scratch, job);
  return job.nccl.nccl_lines > 0;
}

Status ParseNcclLog(const FileText& file, Job& job) {
  ParseNcclLogText(file, job);
  return Ok{};
}

}  // namespace commdx::ingest
