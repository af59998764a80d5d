#include "ingest/summary/summary_importer.h"

#include "base/quality_ids.h"
#include "base/text.h"
#include "ingest/job_merge.h"
#include "ingest/registry.h"
#include "ingest/summary/base64.h"
#include "ingest/summary/summary_format.h"
#include "ingest/summary/summary_read.h"

namespace commdx::ingest {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;
using summary::Place;

Result<std::vector<InputKind>> Kinds(object o, const Place& p) {
  COMMDX_ASSIGN_OR_RETURN(array a, summary::GetArray(o, "kinds", p));
  std::vector<InputKind> kinds;
  for (element e : a) {
    std::string_view name;
    const Importer* imp = e.get(name) == simdjson::SUCCESS ? FindImporter(name) : nullptr;
    if (!imp || !imp->in_parts || imp->kind == InputKind::kSummary)
      return p.Field("kinds").Expected(
          "names of formats a summary carries (kineto, nsys, nccl_log, job_log, "
          "flight_recorder, fr_analysis, nccl_tests)");
    kinds.push_back(imp->kind);
  }
  if (kinds.empty()) return p.Field("kinds").Expected("at least one format");
  return kinds;
}

// The files it was made from, as the summarising run listed them.
Status Inputs(object top, const Place& p, Job& part) {
  COMMDX_TRY(summary::Objects(top, "inputs", p, [&](object in, const Place& here) -> Status {
    InputFile f;
    COMMDX_ASSIGN_OR_RETURN(f.path, summary::GetString(in, "path", here));
    COMMDX_ASSIGN_OR_RETURN(f.kinds, Kinds(in, here));
    COMMDX_ASSIGN_OR_RETURN(int64_t bytes, summary::GetInt(in, "bytes", here));
    f.bytes = static_cast<uint64_t>(bytes);
    part.inputs.push_back(std::move(f));
    return Ok{};
  }));
  return summary::Objects(top, "skipped", p, [&](object s, const Place& here) -> Status {
    SkippedInput sk;
    COMMDX_ASSIGN_OR_RETURN(sk.path, summary::GetString(s, "path", here));
    COMMDX_ASSIGN_OR_RETURN(sk.reason, summary::GetString(s, "reason", here));
    part.skipped.push_back(std::move(sk));
    return Ok{};
  });
}

// Each text input read again by the importers it was read by, each file a part of its own merged
// in order, as the loader does.
Status Texts(object top, const Place& p, const std::string& file, Job& part) {
  JobMerge merge(part);
  COMMDX_TRY(summary::Objects(top, "texts", p, [&](object t, const Place& here) -> Status {
    FileText text;
    COMMDX_ASSIGN_OR_RETURN(text.path, summary::GetString(t, "path", here));
    simdjson::dom::element bytes;
    if (t.at_key("base64").get(bytes) == simdjson::SUCCESS) {
      std::string_view b64;
      std::optional<std::string> data;
      if (bytes.get(b64) == simdjson::SUCCESS) data = summary::Base64Decode(b64);
      if (!data) return here.Field("base64").Expected("the file's bytes in base64");
      text.data = std::move(*data);
    } else {
      COMMDX_ASSIGN_OR_RETURN(text.data, summary::GetString(t, "text", here));
    }
    COMMDX_ASSIGN_OR_RETURN(std::vector<InputKind> kinds, Kinds(t, here));
    for (InputKind kind : kinds) {
      if (kind == InputKind::kKineto || kind == InputKind::kNsys)
        return here.Field("kinds").Expected("a text format (traces are under \"traces\")");
      Job one;
      if (Status st = FindImporter(kind)->parse(text, one); !st) {
        Error err = st.error();
        err.message += " (the text of " + text.path + " in summary " + file + ")";
        return err;
      }
      merge.Add(std::move(one));
    }
    return Ok{};
  }));
  merge.Finish();
  return Ok{};
}

Status Traces(object top, const Place& p, Job& part) {
  COMMDX_ASSIGN_OR_RETURN(array a, summary::GetArray(top, "traces", p));
  size_t i = 0;
  for (element e : a) {
    COMMDX_ASSIGN_OR_RETURN(RankTrace t, summary::ReadTrace(e, p.Field("traces").Index(i++)));
    part.trace.ranks.push_back(std::move(t));
  }
  return Ok{};
}

// An id of kQualityIds, or a member of one of its families ("load.partial_nccl_log").
bool KnownQualityId(std::string_view id) {
  for (const auto& e : kQualityIds) {
    if (e.id.back() == '_' ? id.size() > e.id.size() && id.rfind(e.id, 0) == 0 : id == e.id)
      return true;
  }
  return false;
}

Result<DiagSeverity> Severity(std::string_view name, const Place& p) {
  for (DiagSeverity s : {DiagSeverity::kNote, DiagSeverity::kWarning, DiagSeverity::kError})
    if (name == DiagSeverityName(s)) return s;
  return p.Expected("note, warning or error");
}

// The notes of the summarising run, counted as it counted them; what the texts' importers noted
// again while reading them here is dropped (the run's notes hold it once).
Status Quality(object top, const Place& p, Job& part) {
  part.quality = Diagnostics{};
  return summary::Objects(top, "quality", p, [&](object q, const Place& here) -> Status {
    DiagEntry d;
    COMMDX_ASSIGN_OR_RETURN(d.id, summary::GetString(q, "id", here));
    if (!KnownQualityId(d.id))
      return here.Field("id").Expected("an input-quality id of docs/input-quality.md");
    COMMDX_ASSIGN_OR_RETURN(std::string severity, summary::GetString(q, "severity", here));
    COMMDX_ASSIGN_OR_RETURN(d.severity, Severity(severity, here.Field("severity")));
    COMMDX_ASSIGN_OR_RETURN(d.message, summary::GetString(q, "message", here));
    COMMDX_ASSIGN_OR_RETURN(d.first.file, summary::GetString(q, "file", here));
    COMMDX_ASSIGN_OR_RETURN(int64_t line, summary::GetInt(q, "line", here));
    COMMDX_ASSIGN_OR_RETURN(int64_t col, summary::GetInt(q, "col", here));
    COMMDX_ASSIGN_OR_RETURN(int64_t offset, summary::GetInt(q, "offset", here));
    COMMDX_ASSIGN_OR_RETURN(int64_t count, summary::GetInt(q, "count", here));
    if (line < 0 || col < 0 || count < 1 || line > UINT32_MAX || col > UINT32_MAX)
      return here.Expected("line and col 0 or more, count 1 or more");
    d.first.line = static_cast<uint32_t>(line);
    d.first.col = static_cast<uint32_t>(col);
    d.first.has_offset = offset >= 0;
    d.first.offset = offset >= 0 ? static_cast<uint64_t>(offset) : 0;
    d.count = static_cast<uint64_t>(count);
    part.quality.MergeEntry(d);
    return Ok{};
  });
}

}  // namespace

bool SniffSummary(std::string_view head) {
  std::string_view s = TrimLeft(head);
  if (s.empty() || s.front() != '{') return false;
  return TrimLeft(s.substr(1)).rfind("\"commdx_summary\"", 0) == 0;
}

Status ParseSummary(const FileText& file, Job& part) {
  simdjson::dom::parser parser;
  element doc;
  if (auto err = parser.parse(simdjson::padded_string(file.data)).get(doc))
    return MakeError(ErrorCode::kBadInput,
                     std::string("not a complete commdx summary (cut short or not JSON: ") +
                         simdjson::error_message(err) + ")",
                     {file.path});
  Place top{file.path, ""};
  COMMDX_ASSIGN_OR_RETURN(object o, summary::AsObject(doc, top));
  COMMDX_ASSIGN_OR_RETURN(element h, summary::Member(o, "commdx_summary", top));
  Place hp = top.Field("commdx_summary");
  COMMDX_ASSIGN_OR_RETURN(object header, summary::AsObject(h, hp));
  COMMDX_ASSIGN_OR_RETURN(std::string format, summary::GetString(header, "format", hp));
  if (format != summary::kFormat)
    return hp.Field("format").Expected("\"" + std::string(summary::kFormat) + "\", got \"" +
                                       format + "\"");
  COMMDX_ASSIGN_OR_RETURN(int64_t version, summary::GetInt(header, "version", hp));
  if (version != summary::kVersion)
    return MakeError(ErrorCode::kBadInput,
                     "commdx summary version " + std::to_string(version) +
                         ": this commdx reads version " + std::to_string(summary::kVersion) +
                         " (summarise the inputs again with this commdx, or diagnose with the "
                         "commdx that made it)",
                     {file.path});
  COMMDX_TRY(Inputs(o, top, part));
  COMMDX_TRY(Texts(o, top, file.path, part));
  COMMDX_TRY(Traces(o, top, part));
  COMMDX_TRY(Quality(o, top, part));
  return Ok{};
}

}  // namespace commdx::ingest
