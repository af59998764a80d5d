#include "pipeline/nothing_read.h"

#include <algorithm>

#include "base/file.h"

namespace commdx::pipeline {

namespace {

constexpr size_t kNamed = 5;  // files named with their reason when several gave nothing

// What the command needed, as "none of the N files given holds ..." ends, and the hint a
// single file's reason is followed by ("" when the reasons already say what to do).
struct Wanted {
  const char* what;
  const char* hint;
  const char* none_in_it;  // the reason for a file that was read but held none of it
};

Wanted WantedFor(Needs needs) {
  switch (needs) {
    case Needs::kAnyInput:
      return {
          "an input commdx reads (profiler traces, NCCL logs, nccl-tests output, nvidia-smi "
          "text, commdx snapshots; `commdx diagnose --list` shows the formats)",
          "expected a profiler trace, NCCL log, nccl-tests output, nvidia-smi text or commdx "
          "snapshot (commdx diagnose --list)",
          "nothing commdx reads in it"};
    case Needs::kNcclLines:
      return {"an NCCL log line", "", ""};
    case Needs::kTrace:
      return {"a PyTorch profiler (Kineto) trace or Nsight Systems report",
              "expected a PyTorch profiler (Kineto) trace or an Nsight Systems report (SQLite "
              "export)",
              "no trace in it"};
    case Needs::kTopology:
      return {
          "a topology (`nvidia-smi topo -m`, `nvidia-smi nvlink -s` or `nvidia-smi topo "
          "-p2p` text, or a commdx snapshot)",
          "expected `nvidia-smi topo -m`, `nvidia-smi nvlink -s`, `nvidia-smi topo -p2p` text "
          "or a commdx snapshot",
          "no topology in it"};
    case Needs::kEnvironment:
      return {"an environment section (a snapshot from `commdx env --save`)",
              "expected a snapshot from `commdx env --save`", "no environment section in it"};
    case Needs::kCollectives:
      return {
          "a record of the job's collectives (a PyTorch profiler trace, an Nsight Systems "
          "report, a Flight Recorder dump, NCCL Inspector JSONL or an NCCL log with COLL "
          "lines)",
          "expected a profiler trace, Nsight Systems report, Flight Recorder dump, NCCL "
          "Inspector JSONL or NCCL log with NCCL_DEBUG_SUBSYS=COLL lines",
          "no collective calls in it"};
  }
  return {"", "", ""};
}

bool Satisfied(Needs needs, const Job& job) {
  switch (needs) {
    case Needs::kAnyInput:
      return !job.inputs.empty();
    case Needs::kNcclLines:
      return job.nccl.nccl_lines > 0;
    case Needs::kTrace:
      return !job.trace.empty();
    case Needs::kTopology:
      return !job.topo.empty();
    case Needs::kEnvironment:
      return job.env.captured;
    case Needs::kCollectives:
      return !job.trace.empty() || !job.flight.empty() || !job.inspector.empty() ||
             !job.nccl.call_streams.empty();
  }
  return true;
}

struct Unread {
  std::string path;
  std::string reason;
};

// Every file given, skipped ones first, each with why it gave nothing. Logs are looked at again
// for a reason a user can act on.
std::vector<Unread> UnreadFiles(Needs needs, const Job& job, const Wanted& wanted) {
  std::vector<Unread> files;
  for (const auto& s : job.skipped) files.push_back({s.path, s.reason});
  for (const auto& in : job.inputs) files.push_back({in.path, wanted.none_in_it});
  if (needs == Needs::kNcclLines)
    for (auto& f : files) f.reason = WhyNotNcclLog(f.path);
  return files;
}

}  // namespace

Status CheckSomethingRead(Needs needs, const std::vector<std::string>& paths, const Job& job) {
  if (Satisfied(needs, job)) return Ok{};
  const Wanted wanted = WantedFor(needs);
  const std::vector<Unread> files = UnreadFiles(needs, job, wanted);
  const std::string hint = *wanted.hint ? std::string("; ") + wanted.hint : std::string();
  if (files.empty())
    return MakeError(ErrorCode::kBadInput,
                     "nothing was read that holds " + std::string(wanted.what),
                     {paths.size() == 1 ? paths[0] : std::string()});
  if (files.size() == 1)
    return MakeError(ErrorCode::kBadInput, files[0].reason + hint, {files[0].path});
  std::string msg = "none of the " + std::to_string(files.size()) + " files given holds " +
                    std::string(wanted.what);
  for (size_t i = 0; i < files.size() && i < kNamed; ++i)
    msg += "\n  " + files[i].path + ": " + files[i].reason;
  if (files.size() > kNamed) msg += "\n  (and " + std::to_string(files.size() - kNamed) + " more)";
  return MakeError(ErrorCode::kBadInput, msg, {paths.size() == 1 ? paths[0] : std::string()});
}

std::string WhyNotNcclLog(const std::string& path) {
  if (IsHandedOverName(path)) return "no NCCL log line in it";  // a pipe is read only once
  auto head = ReadHead(path, 64 * 1024);  // never the whole file: it may be a checkpoint
  if (!head) return head.error().message;
  const std::string& d = *head;
  if (d.empty()) return "empty file";
  size_t probe = std::min<size_t>(d.size(), 4096), controls = 0;
  for (size_t i = 0; i < probe; ++i) {
    unsigned char c = static_cast<unsigned char>(d[i]);
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) ++controls;
  }
  if (controls * 20 > probe) return "binary data, not a text log";
  if (d.find("# Avg bus bandwidth") != std::string::npos || d.find("#  Rank") != std::string::npos)
    return "nccl-tests output without NCCL debug lines (rerun with NCCL_DEBUG=INFO)";
  return "no NCCL log line in it (expected lines like 'host:pid:tid [dev] NCCL INFO ...'; "
         "rerun the job with NCCL_DEBUG=INFO)";
}

}  // namespace commdx::pipeline
