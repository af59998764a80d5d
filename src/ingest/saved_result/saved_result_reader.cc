#include "ingest/saved_result/saved_result_reader.h"

#include <simdjson.h>

#include <array>
#include <cmath>
#include <new>
#include <optional>

namespace commdx::ingest {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Array elements are named by an identifying field when they have one, so that two results whose
// arrays differ in order or length still line up ("busbw[size_bytes=1048576]", not "busbw[7]").
constexpr std::array<const char*, 12> kIdentityKeys = {
    "id",   "key", "name",    "rank", "size_bytes", "bytes",
    "pair", "gpu", "comm_id", "path", "collective", "index"};

std::string ElementName(element e, size_t index) {
  if (e.type() == element_type::OBJECT) {
    for (const char* k : kIdentityKeys) {
      element v;
      if (e[k].get(v) != simdjson::SUCCESS) continue;
      if (v.type() == element_type::STRING)
        return std::string(k) + "=" + std::string(std::string_view(v));
      if (v.type() == element_type::INT64) return std::string(k) + "=" + std::to_string(int64_t(v));
      if (v.type() == element_type::UINT64)
        return std::string(k) + "=" + std::to_string(uint64_t(v));
    }
  }
  return std::to_string(index);
}

void Flatten(element e, const std::string& path, SavedResult& out) {
  switch (e.type()) {
    case element_type::OBJECT: {
      simdjson::dom::object obj;
      if (e.get(obj) != simdjson::SUCCESS) break;
      for (auto field : obj)
        Flatten(field.value,
                path.empty() ? std::string(field.key) : path + "." + std::string(field.key), out);
      break;
    }
    case element_type::ARRAY: {
      simdjson::dom::array arr;
      if (e.get(arr) != simdjson::SUCCESS) break;
      size_t i = 0;
      for (element v : arr) Flatten(v, path + "[" + ElementName(v, i++) + "]", out);
      break;
    }
    case element_type::INT64:
      out.numbers.emplace_back(path, static_cast<double>(int64_t(e)));
      break;
    case element_type::UINT64:
      out.numbers.emplace_back(path, static_cast<double>(uint64_t(e)));
      break;
    case element_type::DOUBLE:
      out.numbers.emplace_back(path, double(e));
      break;
    case element_type::STRING:
      out.strings.emplace_back(path, std::string(std::string_view(e)));
      break;
    case element_type::BOOL:
      out.strings.emplace_back(path, bool(e) ? "true" : "false");
      break;
    case element_type::NULL_VALUE:
      break;
  }
}

std::optional<Severity> SeverityFrom(std::string_view s) {
  if (s == "error") return Severity::kError;
  if (s == "warning") return Severity::kWarning;
  if (s == "info") return Severity::kInfo;
  return std::nullopt;
}

// A report's "findings": an array of objects, each with a string "id". Anything else is an error:
// read leniently, a damaged B would show every finding of A as gone.
//   "findings": [{"id": "nccl.proto_simple_forced", "severity": "warning", "rank": 1, ...}]
Status ReadFindings(element doc, const std::string& path, SavedResult& r) {
  element value;
  if (doc["findings"].get(value) != simdjson::SUCCESS) {
    if (r.command.empty()) return Ok{};  // a snapshot: no findings
    return MakeError(ErrorCode::kBadInput,
                     "a `" + r.command + "` result without \"findings\": damaged or cut", {path});
  }
  simdjson::dom::array findings;
  if (value.get(findings) != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput, "\"findings\" is not an array", {path});
  size_t i = 0;
  for (element f : findings) {
    SavedFinding sf;
    std::string_view s;
    if (f.type() != element_type::OBJECT || f["id"].get(s) != simdjson::SUCCESS || s.empty())
      return MakeError(ErrorCode::kBadInput,
                       "findings[" + std::to_string(i) +
                           "] is not a finding (an object with a string \"id\")",
                       {path});
    sf.id = std::string(s);
    const std::string at = "findings[" + std::to_string(i) + "] (" + sf.id + ")";
    // Each field as commdx writes it, or absent (null); a value of another kind is damage that
    // would otherwise read as a change or as nothing.
    element v;
    if (f["severity"].get(v) == simdjson::SUCCESS && !v.is_null()) {
      std::optional<Severity> sev;
      if (v.get(s) == simdjson::SUCCESS) sev = SeverityFrom(s);
      if (!sev)
        return MakeError(ErrorCode::kBadInput,
                         at + ".severity: expected \"error\", \"warning\" or \"info\"", {path});
      sf.severity = *sev;
    }
    if (f["title"].get(v) == simdjson::SUCCESS && !v.is_null()) {
      if (v.get(s) != simdjson::SUCCESS)
        return MakeError(ErrorCode::kBadInput, at + ".title: expected a string", {path});
      sf.title = std::string(s);
    }
    if (f["rank"].get(v) == simdjson::SUCCESS && !v.is_null()) {
      int64_t rank = 0;
      if (v.get(rank) != simdjson::SUCCESS || rank < 0 || rank > (int64_t{1} << 30))
        return MakeError(ErrorCode::kBadInput, at + ".rank: expected a rank number or null",
                         {path});
      sf.rank = static_cast<int>(rank);
    }
    for (auto [key, into] : {std::pair<const char*, double*>{"saving_per_step_ns",
                                                             &sf.saving_ns_per_step},
                             {"confidence", &sf.confidence}}) {
      if (f[key].get(v) != simdjson::SUCCESS || v.is_null()) continue;
      double x = 0;
      if (v.get(x) != simdjson::SUCCESS || !std::isfinite(x) || x < 0)
        return MakeError(ErrorCode::kBadInput,
                         at + "." + key + ": expected a number of 0 or more, or null", {path});
      *into = x;
    }
    r.findings.push_back(std::move(sf));
    ++i;
  }
  return Ok{};
}

}  // namespace

Status CheckSavedResultHead(std::string_view head, const std::string& path) {
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '{')
    return MakeError(ErrorCode::kBadInput,
                     "not a commdx JSON result: it does not start with a JSON object (expected "
                     "a result written by commdx --format json)",
                     {path});
  if (head.find("\"schema_version\"") != std::string_view::npos) return Ok{};
  if (head.find("\"commdx_snapshot\"") != std::string_view::npos)
    return MakeError(ErrorCode::kBadInput,
                     "a --save snapshot on a pipe: compare diagnoses a snapshot given as a "
                     "file; give its path, or a result written with --format json",
                     {path});
  return MakeError(ErrorCode::kBadInput,
                   "not a commdx JSON result: no \"schema_version\" at its start (expected a "
                   "result written by commdx --format json)",
                   {path});
}

Result<SavedResult> ReadSavedResult(const FileText& file) {
  simdjson::dom::parser parser;
  element doc;
  if (auto err = parser.parse(file.data).get(doc); err != simdjson::SUCCESS) {
    if (err == simdjson::MEMALLOC)  // the parser's index of the whole text did not fit
      throw std::bad_alloc();     // said of this file by the caller, as any out-of-memory
    return MakeError(ErrorCode::kBadInput,
                     std::string("not a commdx JSON result: ") + simdjson::error_message(err),
                     {file.path});
  }
  SavedResult r;
  r.path = file.path;
  int64_t version = 0;
  if (doc["schema_version"].get(version) != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput,
                     "JSON without \"schema_version\": expected a result written by commdx "
                     "(--format json or --save)",
                     {file.path});
  r.schema_version = static_cast<int>(version);
  std::string_view command;
  if (doc["command"].get(command) == simdjson::SUCCESS) r.command = std::string(command);
  COMMDX_TRY(ReadFindings(doc, file.path, r));
  simdjson::dom::object top;
  if (doc.get(top) != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput, "expected a JSON object at the top level", {file.path});
  for (auto field : top) {
    std::string_view key = field.key;
    if (key == "findings" || key == "inputs" || key == "skipped" || key == "tool_version") continue;
    Flatten(field.value, std::string(key), r);
  }
  return r;
}

}  // namespace commdx::ingest
