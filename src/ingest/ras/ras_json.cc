// The JSON form of the RAS report (`ncclras -f json`, NCCL 2.28.7+), shape as 2.28.9 writes it:
// {"nccl_version": "2.28.9", "cuda_runtime_version": 13000, "timestamp": "2026-12-05 04:04:39",
//  "communicators_count": 2, "communicators": [{"hash": "0x445d6303d77898d4", "size": 2,
//    "ranks_count": 1, "missing_ranks_count": 1,
//    "ranks": [{"rank": 0, "host": "127.0.0.1", "pid": 1314, "cuda_dev": 0, "nvml_dev": 0,
//               "status": {"init_state": 0, "async_error": 0, "finalize_called": false,
//                          "destroy_flag": false, "abort_flag": false},
//               "collective_counts": {"Broadcast": 0, ..., "AllReduce": 267}}],
//    "missing_ranks": [{"rank": 1, "host": "127.0.0.1", "pid": 1315, "cuda_dev": 0,
//                       "nvml_dev": 0          <- no comma in 2.28.9
//                       "status": {"unresponsive": true, "considered_dead": true}}]}],
//  "ras": {"collection_time_sec": 0.000, "timeouts_count": 0}}
#include <simdjson.h>

#include <cctype>
#include <string>

#include "base/text.h"
#include "ingest/ras/ras_importer.h"

namespace commdx::ingest::ras {

namespace {

using simdjson::dom::element;

// NCCL 2.28.9's jsonWriteMissingRank writes `"nvml_dev": N` and a newline without the comma
// before "status". Inserts it wherever a value after "nvml_dev" runs into the next key; returns
// how many were inserted.
size_t RepairMissingCommas(std::string& text) {
  const std::string key = "\"nvml_dev\"";
  auto space = [&](size_t i) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    return i;
  };
  std::string out;
  size_t fixed = 0, copied = 0;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    size_t i = space(at + key.size());
    if (i >= text.size() || text[i] != ':') continue;
    i = space(i + 1);
    while (i < text.size() && (text[i] == '-' || std::isdigit(static_cast<unsigned char>(text[i]))))
      ++i;
    size_t value_end = i;
    i = space(i);
    if (i >= text.size() || text[i] != '"') continue;
    out.append(text, copied, value_end - copied);
    out.push_back(',');
    copied = value_end;
    ++fixed;
  }
  if (fixed == 0) return 0;
  out.append(text, copied, std::string::npos);
  text = std::move(out);
  return fixed;
}

int64_t Int(element obj, const char* key, int64_t fallback) {
  int64_t v = 0;
  return obj[key].get(v) == simdjson::SUCCESS ? v : fallback;
}

bool Bool(element obj, const char* key) {
  bool v = false;
  return obj[key].get(v) == simdjson::SUCCESS && v;
}

std::string Str(element obj, const char* key) {
  std::string_view s;
  return obj[key].get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

RasRank ReadRank(element r) {
  RasRank out;
  out.rank = static_cast<int>(Int(r, "rank", -1));
  out.host = Str(r, "host");
  out.pid = Int(r, "pid", 0);
  out.gpu = static_cast<int>(Int(r, "cuda_dev", -1));
  element status;
  if (r["status"].get(status) == simdjson::SUCCESS) {
    out.unresponsive = Bool(status, "unresponsive");
    out.dead = Bool(status, "considered_dead");
    out.error = Int(status, "init_state", 0) != 0 || Int(status, "async_error", 0) != 0 ||
                Bool(status, "abort_flag");
  }
  simdjson::dom::object counts;
  if (r["collective_counts"].get(counts) == simdjson::SUCCESS) {
    out.collectives = 0;
    for (auto field : counts) {
      int64_t n = 0;
      if (field.value.get(n) == simdjson::SUCCESS && n > 0) out.collectives += n;
    }
  }
  return out;
}

// "0x445d6303d77898d4" -> "445d6303d77898d4": the text report's spelling, zero-padded to 16.
std::string HashText(std::string h) {
  if (StartsWith(h, "0x") || StartsWith(h, "0X")) h = h.substr(2);
  for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (h.size() < 16) h = std::string(16 - h.size(), '0') + h;
  return h;
}

}  // namespace

Status ParseRasJson(const FileText& file, Job& job) {
  simdjson::dom::parser parser;
  element doc;
  std::string text = file.data;
  RasReport rep;
  rep.path = file.path;
  rep.json = true;
  if (auto err = parser.parse(text).get(doc); err != simdjson::SUCCESS) {
    size_t fixed = RepairMissingCommas(text);
    if (fixed == 0 || parser.parse(text).get(doc) != simdjson::SUCCESS)
      return MakeError(ErrorCode::kBadInput,
                       std::string("RAS JSON report is not valid JSON (") +
                           simdjson::error_message(err) +
                           "), and not the known NCCL 2.28.9 form "
                           "(a comma missing after \"nvml_dev\")",
                       {file.path});
    rep.repaired = true;
    job.quality.Add("ras.repaired_json", DiagSeverity::kNote,
                    std::to_string(fixed) +
                        " missing rank(s) written without the comma after \"nvml_dev\" (NCCL "
                        "2.28.9's RAS client): the commas inserted and the report read",
                    {file.path});
  }
  rep.nccl_version = Str(doc, "nccl_version");
  rep.timestamp = Str(doc, "timestamp");
  element ras_meta;
  if (doc["ras"].get(ras_meta) == simdjson::SUCCESS)
    rep.timeouts = static_cast<int>(Int(ras_meta, "timeouts_count", 0));
  simdjson::dom::array comms;
  if (doc["communicators"].get(comms) != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput, "RAS JSON report without a \"communicators\" array",
                     {file.path});
  for (element c : comms) {
    RasComm comm;
    comm.hash = HashText(Str(c, "hash"));
    comm.size = static_cast<int>(Int(c, "size", 0));
    comm.where = {file.path};
    simdjson::dom::array list;
    if (c["ranks"].get(list) == simdjson::SUCCESS)
      for (element r : list) comm.ranks.push_back(ReadRank(r));
    if (c["missing_ranks"].get(list) == simdjson::SUCCESS)
      for (element r : list) comm.missing.push_back(ReadRank(r));
    rep.comms.push_back(std::move(comm));
  }
  job.ras.push_back(std::move(rep));
  return Ok{};
}

}  // namespace commdx::ingest::ras
