#include "pipeline/compare.h"

#include <new>

#include "base/file.h"
#include "base/input_path.h"
#include "ingest/pipe_head.h"
#include "ingest/saved_result/saved_result_reader.h"
#include "ingest/snapshot/snapshot.h"
#include "pipeline/pipeline.h"
#include "report/compare_tables.h"
#include "report/render.h"

namespace commdx::pipeline {

namespace {

// A `topo`/`env --save` snapshot of a node, as the result `commdx diagnose SNAPSHOT --format
// json` would write: the same command on both sides, so two nodes' snapshots (or a snapshot and
// such a result) compare table by table, finding by finding.
Result<FileText> ResultOfSnapshot(const std::string& path) {
  Request r;
  r.command = "diagnose";
  r.paths = {path};
  r.needs = Needs::kAnyInput;
  r.parts = EveryPart();
  COMMDX_ASSIGN_OR_RETURN(Outcome out, Run(std::move(r)));
  FileText text;
  text.path = path;
  text.data = report::RenderJson(out.report);
  return text;
}

// One saved result, refused when another version of commdx wrote it: its paths and meanings
// may differ, so a diff would report renamed fields as changes.
Result<SavedResult> ReadComparable(const std::string& path) {
  // Judged from its first bytes before it is read whole (a pipe's are kept and read once).
  constexpr size_t kHeadBytes = 64 * 1024;
  FileText text;
  if (IsHandedOverName(path)) {
    COMMDX_ASSIGN_OR_RETURN(auto pipe, ingest::PipeInput::Open(path, kHeadBytes));
    COMMDX_TRY(ingest::CheckSavedResultHead(pipe->head(), path));
    COMMDX_ASSIGN_OR_RETURN(text, pipe->ReadRest(DefaultMaxBytes()));
  } else {
    COMMDX_ASSIGN_OR_RETURN(std::string head, ReadHead(path, kHeadBytes));
    if (ingest::SniffSnapshot(head)) {
      COMMDX_ASSIGN_OR_RETURN(text, ResultOfSnapshot(path));
    } else {
      COMMDX_TRY(ingest::CheckSavedResultHead(head, path));
      COMMDX_ASSIGN_OR_RETURN(text, ReadFile(path));
    }
  }
  COMMDX_ASSIGN_OR_RETURN(SavedResult r, ingest::ReadSavedResult(text));
  if (r.schema_version != report::kSchemaVersion)
    return MakeError(ErrorCode::kBadInput,
                     "schema_version " + std::to_string(r.schema_version) + ", but this commdx (" +
                         COMMDX_VERSION + ") reads schema_version " +
                         std::to_string(report::kSchemaVersion) +
                         ": compare results written by the same commdx version",
                     {path});
  return r;
}

// ReadComparable, with running out of memory (a huge or hostile file, `ulimit -v` on a login
// node) said of the file being read, as diagnose says it (exit 4).
Result<SavedResult> ReadComparableNamingMemory(const std::string& path) {
  try {
    return ReadComparable(path);
  } catch (const std::bad_alloc&) {
    return MakeError(ErrorCode::kEnvironment,
                     "out of memory while reading it: free memory or raise the limit (ulimit -v)",
                     {path});
  }
}

// Outputs of different commands share few paths: the diff would be all "only in A/B".
Status SameCommand(const SavedResult& a, const SavedResult& b, const std::string& path_b) {
  if (a.command == b.command) return Ok{};
  auto what = [](const SavedResult& r) {
    return r.command.empty() ? std::string("result without a command")
                             : "`" + r.command + "` result";
  };
  return MakeError(ErrorCode::kBadInput,
                   "A is a " + what(a) + " and B a " + what(b) +
                       ": compare two outputs of the same command (diagnose with diagnose, "
                       "bench with bench, ...)",
                   {path_b});
}

}  // namespace

Result<CompareOutcome> RunCompare(const CompareRequest& request) {
  COMMDX_ASSIGN_OR_RETURN(SavedResult a, ReadComparableNamingMemory(request.a));
  COMMDX_ASSIGN_OR_RETURN(SavedResult b, ReadComparableNamingMemory(request.b));
  COMMDX_TRY(SameCommand(a, b, request.b));
  const diagnose::Comparison c = diagnose::Compare(a, b, request.options);
  CompareOutcome out;
  report::Report& rep = out.report;
  rep.command = "compare";
  rep.tool_version = COMMDX_VERSION;
  rep.inputs = {{request.a, {InputKind::kSavedResult}, 0},
                {request.b, {InputKind::kSavedResult}, 0}};
  rep.include_root_cause = false;
  report::AddCompareTables(c, rep);
  for (const auto& f : c.added) out.regressed |= f.severity == Severity::kError;
  for (const auto& v : c.strings)  // a finding of both that became an error
    out.regressed |= v.path.starts_with("findings[") && v.path.ends_with("].severity") &&
                     v.after == "error";
  return out;
}

}  // namespace commdx::pipeline
