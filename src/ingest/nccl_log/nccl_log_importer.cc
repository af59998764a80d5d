#include "ingest/nccl_log/nccl_log_importer.h"

#include <cstring>

#include "base/text.h"
#include "ingest/nccl_log/builder.h"
#include "ingest/nccl_log/kinds.h"
#include "ingest/nccl_log/line.h"

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

// Tries the line kinds in order of how often they occur in real logs.
Outcome Dispatch(const LineInfo& li, Builder& b) {
  using Fn = Parsed (*)(const LineInfo&, Builder&);
  struct Kind {
    Fn fn;
    const char* name;
  };
  static constexpr Kind kKinds[] = {
      {nccl_log::ParseNicContinuation, "nic_list"},
      {nccl_log::ParseConnection, "connection"},
      {nccl_log::ParseRingsTrees, "ring_tree"},
      {nccl_log::ParseCommInit, "comm_init"},
      {nccl_log::ParseChannelCounts, "channel_counts"},
      {nccl_log::ParseEnv, "env"},
      {nccl_log::ParseNicList, "nic_list"},
      {nccl_log::ParseNetwork, "network"},
      {nccl_log::ParseGdr, "gdr"},
      {nccl_log::ParseVersion, "version"},
      {nccl_log::ParseErrorReturn, "error_return"},
      {nccl_log::ParseNvls, "nvls"},
      {nccl_log::ParseP2p, "p2p"},
  };
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
  for (const auto& k : kKinds) {
    Parsed p = k.fn(li, b);
    if (p != Parsed::kNo) return {p, k.name};
  }
  if (!li.weak && nccl_log::ParseBenign(li) == Parsed::kYes) return {Parsed::kYes, "benign"};
  return {};
}

void HandleLine(std::string_view line, LineInfo& li, Builder& b,
                nccl_log::ForeignState& foreign) {
  if (line.size() > kLongLineBytes)
    b.Quality("nccl_log.long_line", DiagSeverity::kNote,
              "line longer than 64 KiB (NCCL writes at most 1 KiB per line); read as is", li);
  if (!nccl_log::SplitNcclLine(line, li)) {
    nccl_log::ParseForeign(li, b, foreign);
    return;
  }
  // A banner or a bare message is NCCL output only if a line kind recognises it.
  bool weak = li.weak || li.level == Level::kBanner;
  Outcome o = Dispatch(li, b);
  if (weak) {
    if (o.parsed == Parsed::kYes) b.CountNcclLine(li);
    else nccl_log::ParseForeign(li, b, foreign);
    return;
  }
  b.CountNcclLine(li);
  if (o.parsed == Parsed::kMalformed) {
    b.Quality(std::string("nccl_log.malformed_") + o.kind, DiagSeverity::kWarning,
              std::string("NCCL ") + o.kind +
                  " line whose fields could not be read (truncated or garbled); skipped",
              li);
  } else if (o.parsed == Parsed::kNo) {
    b.Quality("nccl_log.unknown_line", DiagSeverity::kNote,
              "NCCL line of a kind commdx does not know (a newer NCCL?); ignored", li);
  }
}

}  // namespace

void ParseNcclLogText(const FileText& file, Job& job) {
  Builder b(file, job);
  nccl_log::ForeignState foreign;
  std::string_view data = file.data;
  uint64_t line_no = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    const void* nl = std::memchr(data.data() + pos, '\n', data.size() - pos);
    size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - data.data()) : data.size();
    std::string_view line = data.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    LineInfo li;
    li.line_no = ++line_no;
    li.offset = pos;
    if (!line.empty()) HandleLine(line, li, b, foreign);
    pos = end + 1;
  }
  b.Finish();
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
