#include "ingest/inspector/inspector_importer.h"

#include <simdjson.h>

#include <string>

#include "base/text.h"

namespace commdx::ingest {

namespace {

// One line of the file (non-verbose; verbose adds event_trace_sn / event_trace_ts to coll_perf):
// {"header":{"id":"0xb0300b53755d79","rank":0,"n_ranks":2,"nnodes":2},"metadata":{
//  "inspector_output_format_version":"v4.0","git_rev":"v2.28.9-1-dbc86fd0","rec_mechanism":
//  "nccl_profiler_interface","dump_timestamp_us":1796443346651189,"hostname":"vm","pid":1138},
//  "coll_perf":{"coll":"AllGather","coll_sn":0,"coll_msg_size_bytes":8,"coll_exec_time_us":2440,
//  "coll_timing_source":"kernel_gpu","coll_algobw_gbs":0.000007,"coll_busbw_gbs":0.000003}}
// NCCL 2.29 writes the same. NCCL 2.30 (plugins/profiler/inspector/inspector_json.cc), still
// "v4.0", adds the communicator's name to the header, {"id":"0x7c1e...","comm_name":"DP Group 0",
// "rank":0,...} ("unknown" when it has none), and writes sends and receives as lines of their own
// whose third object is "p2p_perf" in place of "coll_perf":
//  "p2p_perf":{"p2p":"Send","p2p_sn":3,"p2p_peer":1,"p2p_msg_size_bytes":16777216,...}
// Those are counted and skipped: p2p_sn counts one rank's own sends and receives together, so
// nothing matches them across ranks, and the collective analyses must not see them.
using simdjson::dom::element;

constexpr int64_t kNsPerUs = 1000;

bool GetInt(element obj, const char* key, int64_t& out) {
  element v;
  if (obj[key].get(v) != simdjson::SUCCESS) return false;
  if (v.get(out) == simdjson::SUCCESS) return true;
  uint64_t u = 0;
  if (v.get(u) == simdjson::SUCCESS && u <= static_cast<uint64_t>(INT64_MAX)) {
    out = static_cast<int64_t>(u);
    return true;
  }
  return false;
}

bool GetDouble(element obj, const char* key, double& out) {
  element v;
  if (obj[key].get(v) != simdjson::SUCCESS) return false;
  if (v.get(out) == simdjson::SUCCESS) return true;
  int64_t i = 0;
  if (v.get(i) != simdjson::SUCCESS) return false;
  out = static_cast<double>(i);
  return true;
}

bool GetString(element obj, const char* key, std::string& out) {
  std::string_view s;
  if (obj[key].get(s) != simdjson::SUCCESS) return false;
  out = std::string(s);
  return true;
}

// "event_trace_ts":{"coll_start_ts":1796443368176370,"coll_stop_ts":1796443368176395,
//   "kernel_events":[{"channel_id":0,"kernel_start_ts":1796443368181040,
//   "kernel_stop_ts":1796443368183604,"kernel_record_ts":1796443368183604}]}
void ReadVerbose(element perf, InspectorRecord& r) {
  element ts;
  int64_t start_us = 0;
  if (perf["event_trace_ts"].get(ts) != simdjson::SUCCESS || !GetInt(ts, "coll_start_ts", start_us))
    return;
  r.verbose = true;
  r.coll_start_ns = start_us * kNsPerUs;
  simdjson::dom::array kernels;
  if (ts["kernel_events"].get(kernels) != simdjson::SUCCESS) return;
  for (element k : kernels) {
    int64_t a = 0, b = 0;
    if (!GetInt(k, "kernel_start_ts", a) || !GetInt(k, "kernel_stop_ts", b)) continue;
    if (r.channels == 0 || a * kNsPerUs < r.kernel_start_ns) r.kernel_start_ns = a * kNsPerUs;
    if (r.channels == 0 || b * kNsPerUs > r.kernel_stop_ns) r.kernel_stop_ns = b * kNsPerUs;
    ++r.channels;
  }
}

// What is wrong with the line, or "" when it is a record (read into `r`). `version` is set to the
// format version when there is one, so a record of another version is told apart; `p2p` is set
// to the operation ("Send") of a point-to-point record, which is not read further.
std::string ReadRecord(element doc, InspectorRecord& r, std::string& version, std::string& p2p) {
  element header, meta, perf;
  if (doc["header"].get(header) != simdjson::SUCCESS) return "no \"header\" object";
  if (doc["metadata"].get(meta) != simdjson::SUCCESS) return "no \"metadata\" object";
  if (!GetString(meta, "inspector_output_format_version", version))
    return "no \"inspector_output_format_version\" in \"metadata\"";
  if (!StartsWith(version, "v4.")) return "";  // the caller skips it as another version
  if (doc["coll_perf"].get(perf) != simdjson::SUCCESS) {
    if (doc["p2p_perf"].get(perf) != simdjson::SUCCESS)
      return "no \"coll_perf\" object (nor NCCL 2.30's \"p2p_perf\")";
    if (!GetString(perf, "p2p", p2p) || p2p.empty()) return "\"p2p_perf\" without \"p2p\"";
    return "";
  }
  int64_t rank = -1, n_ranks = 0, nnodes = 0;
  if (!GetString(header, "id", r.comm_id) || !GetInt(header, "rank", rank) ||
      !GetInt(header, "n_ranks", n_ranks))
    return "\"header\" without \"id\", \"rank\" and \"n_ranks\"";
  if (rank < 0 || n_ranks <= 0 || rank >= n_ranks || n_ranks > (1 << 24))
    return "\"header\" rank " + std::to_string(rank) + " outside n_ranks " +
           std::to_string(n_ranks);
  GetInt(header, "nnodes", nnodes);
  GetString(header, "comm_name", r.comm_name);  // NCCL 2.30 on
  r.rank = static_cast<int>(rank);
  r.n_ranks = static_cast<int>(n_ranks);
  r.nnodes = static_cast<int>(nnodes);
  GetString(meta, "hostname", r.hostname);
  GetInt(meta, "pid", r.pid);
  int64_t dump_us = 0;
  if (GetInt(meta, "dump_timestamp_us", dump_us)) r.dump_ns = dump_us * kNsPerUs;
  int64_t sn = -1, bytes = -1, exec_us = -1;
  if (!GetString(perf, "coll", r.coll) || !GetInt(perf, "coll_sn", sn) ||
      !GetInt(perf, "coll_msg_size_bytes", bytes) || !GetInt(perf, "coll_exec_time_us", exec_us))
    return "\"coll_perf\" without \"coll\", \"coll_sn\", \"coll_msg_size_bytes\" and "
           "\"coll_exec_time_us\"";
  if (sn < 0 || bytes < 0 || exec_us < 0 || exec_us > INT64_MAX / kNsPerUs)
    return "negative or too large coll_sn, size or time";
  r.coll_sn = static_cast<uint64_t>(sn);
  r.msg_bytes = static_cast<uint64_t>(bytes);
  r.exec_ns = exec_us * kNsPerUs;
  GetString(perf, "coll_timing_source", r.timing_source);
  GetDouble(perf, "coll_algobw_gbs", r.algbw_gbps);
  GetDouble(perf, "coll_busbw_gbs", r.busbw_gbps);
  ReadVerbose(perf, r);
  return "";
}

}  // namespace

bool SniffInspector(std::string_view head) {
  std::string_view t = TrimLeft(head);
  if (t.empty() || t.front() != '{') return false;
  std::string_view first = t.substr(0, t.find('\n'));
  return Contains(first, "\"header\"") && Contains(first, "\"metadata\"") &&
         Contains(first, "\"inspector_output_format_version\"");
}

Status ParseInspector(const FileText& file, Job& job) {
  simdjson::dom::parser parser;
  std::string_view data = file.data;
  size_t records = 0;
  uint32_t line_no = 0;
  SourceLoc first_bad, first_other;
  std::string first_why, other_version;
  for (size_t at = 0; at < data.size();) {
    size_t end = data.find('\n', at);
    bool last = end == std::string_view::npos;
    std::string_view line = Trim(data.substr(at, last ? std::string_view::npos : end - at));
    ++line_no;
    at = last ? data.size() : end + 1;
    if (line.empty()) continue;
    SourceLoc where{file.path, line_no};
    element doc;
    InspectorRecord r;
    std::string version, p2p, why;
    if (auto err = parser.parse(line.data(), line.size()).get(doc); err != simdjson::SUCCESS) {
      why = std::string("not valid JSON (") + simdjson::error_message(err) + ")";
      if (last) {
        job.quality.Add("inspector.cut_last_line", DiagSeverity::kWarning,
                        "the last line ends mid-record (" + why + "): skipped", where);
        continue;
      }
    } else {
      why = ReadRecord(doc, r, version, p2p);
      if (why.empty() && !p2p.empty()) {
        job.quality.Add("inspector.p2p_skipped", DiagSeverity::kNote,
                        "a " + p2p +
                            " record (p2p_perf, NCCL 2.30's plugin): point-to-point records "
                            "are not matched across ranks; counted, not read",
                        where);
        continue;
      }
      if (why.empty() && !StartsWith(version, "v4.")) {
        job.quality.Add("inspector.other_version", DiagSeverity::kWarning,
                        "inspector_output_format_version \"" + version +
                            "\" (this commdx reads v4.x): line skipped",
                        where);
        if (other_version.empty()) first_other = where, other_version = version;
        continue;
      }
    }
    if (!why.empty()) {
      job.quality.Add("inspector.bad_line", DiagSeverity::kWarning,
                      "expected one Inspector record: " + why + "; skipped", where);
      if (first_why.empty()) first_bad = where, first_why = why;
      continue;
    }
    r.where = where;
    job.inspector.push_back(std::move(r));
    ++records;
  }
  if (records == 0 && !other_version.empty())
    return MakeError(ErrorCode::kBadInput,
                     "inspector_output_format_version \"" + other_version +
                         "\": this commdx reads v4.x (NCCL 2.23 to 2.30)",
                     first_other);
  if (records == 0 && !first_why.empty())
    return MakeError(ErrorCode::kBadInput, "no Inspector record read; expected one: " + first_why,
                     first_bad);
  return Ok{};
}

}  // namespace commdx::ingest
