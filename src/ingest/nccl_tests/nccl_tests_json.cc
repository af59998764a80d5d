// {"version":3,"start_time":"2026-12-05 04:04:55","args":[".../all_reduce_perf","-b","8",...],
//  "env":[...],"nccl_version":22809,"config":{"nthreads":1,"ngpus":1,"minimum_bytes":8,...,
//  "iterations":20,"graph":0,"per_iter_timing":"false","devices":[{"rank":0,"group":0,
//  "pid":1531,"hostname":"vm","device":0,"device_hex":"0000:00:06","device_info":"NVIDIA H200"}]},
//  "results":[{"size":8,"count":2,"type":"float","redop":"sum","root":"    -1",
//    "out_of_place":{"time":7.832150,"alg_bw":0.001021,"bus_bw":0.000000,"nwrong":0.000000},
//    "out_of_place_per_iter":{"skipped_iterations":0,"min_us":5.664,...,"p50_us":6.72,
//                             "p95_us":8.96,"p99_us":12.448,...,"times_us":[...]},   (-I only)
//    "in_place":{...},"in_place_per_iter":{...},"actual_iterations":20,"experiment_name":""}]}
#include "ingest/nccl_tests/nccl_tests_json.h"

#include <simdjson.h>

#include <set>
#include <string>

#include "base/text.h"
#include "model/nccl_version.h"

namespace commdx::ingest {

namespace {

using simdjson::dom::element;

double Num(element obj, const char* key) {
  double d = 0;
  if (obj[key].get(d) == simdjson::SUCCESS) return d;
  int64_t i = 0;
  return obj[key].get(i) == simdjson::SUCCESS ? static_cast<double>(i) : 0;
}

std::string Str(element obj, const char* key) {
  std::string_view s;
  return obj[key].get(s) == simdjson::SUCCESS ? std::string(Trim(s)) : std::string();
}

bool ReadPoint(element row, const char* key, int iterations, BenchPoint& p) {
  element v;
  if (row[key].get(v) != simdjson::SUCCESS) return false;
  double time = 0;
  if (v["time"].get(time) != simdjson::SUCCESS) return false;
  p.time_us = time;
  p.algbw_gbps = Num(v, "alg_bw");
  p.busbw_gbps = Num(v, "bus_bw");
  double wrong = -1;
  if (v["nwrong"].get(wrong) == simdjson::SUCCESS) p.wrong = static_cast<int64_t>(wrong);
  p.iterations = iterations;
  p.valid = true;
  element per_iter;
  if (row[(std::string(key) + "_per_iter").c_str()].get(per_iter) == simdjson::SUCCESS)
    p.p99_us = Num(per_iter, "p99_us");
  return true;
}

// ".../all_reduce_perf" or "all_reduce_perf_mpi" -> "all_reduce"
std::string CaseOf(std::string_view binary) {
  size_t slash = binary.rfind('/');
  if (slash != std::string_view::npos) binary = binary.substr(slash + 1);
  size_t p = binary.find("_perf");
  return std::string(p == std::string_view::npos ? binary : binary.substr(0, p));
}

}  // namespace

bool SniffNcclTestsJson(std::string_view head) {
  std::string_view t = TrimLeft(head);
  if (t.empty() || t.front() != '{') return false;
  if (!Contains(head, "\"results\"") || !Contains(head, "\"config\"")) return false;
  return Contains(head, "_perf\"") || Contains(head, "\"minimum_bytes\"");
}

Status ParseNcclTestsJson(const FileText& file, Job& job) {
  simdjson::dom::parser parser;
  element doc;
  if (auto err = parser.parse(file.data).get(doc); err != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput,
                     std::string("nccl-tests JSON is not valid JSON (") +
                         simdjson::error_message(err) + "; a run cut short?)",
                     {file.path});
  simdjson::dom::array results;
  if (doc["results"].get(results) != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput, "nccl-tests JSON without a \"results\" array",
                     {file.path});
  BenchResult r;
  r.source = BenchSource::kNcclTests;
  r.launch = "nccl-tests";
  r.file = file.path;
  r.case_key = "unknown";
  int64_t version = 0;
  if (doc["version"].get(version) == simdjson::SUCCESS)
    r.tool_version = "json v" + std::to_string(version);
  simdjson::dom::array args;
  if (doc["args"].get(args) == simdjson::SUCCESS && args.size() > 0) {
    std::string_view bin;
    if (args.at(0).get(bin) == simdjson::SUCCESS) r.case_key = CaseOf(bin);
  }
  int64_t code = 0;
  if (doc["nccl_version"].get(code) == simdjson::SUCCESS)
    r.nccl_version = NcclVersionFromCode(code);
  int iterations = 0;
  element config;
  if (doc["config"].get(config) == simdjson::SUCCESS) {
    iterations = static_cast<int>(Num(config, "iterations"));
    r.cuda_graph = Num(config, "graph") > 0;
    simdjson::dom::array devices;
    std::set<std::string> hosts;
    if (config["devices"].get(devices) == simdjson::SUCCESS)
      for (element d : devices) {
        ++r.nranks;
        hosts.insert(Str(d, "hostname"));
        if (r.topology.gpu_name.empty()) r.topology.gpu_name = Str(d, "device_info");
      }
    r.topology.nodes = std::max<int>(1, static_cast<int>(hosts.size()));
  }
  size_t index = 0;
  for (element row : results) {
    ++index;
    BenchRow b;
    b.bytes = static_cast<uint64_t>(Num(row, "size"));
    b.count = static_cast<uint64_t>(Num(row, "count"));
    b.dtype = Str(row, "type");
    b.redop = Str(row, "redop");
    if (auto root = ParseInt(Str(row, "root"))) b.root = static_cast<int>(*root);
    b.loc = {file.path};
    int it = static_cast<int>(Num(row, "actual_iterations"));
    bool out = ReadPoint(row, "out_of_place", it > 0 ? it : iterations, b.out_of_place);
    bool in = ReadPoint(row, "in_place", it > 0 ? it : iterations, b.in_place);
    if ((!out && !in) || b.bytes == 0) {
      job.quality.Add("nccl_tests.bad_json_result", DiagSeverity::kWarning,
                      "result " + std::to_string(index) +
                          " has no \"size\" or no \"out_of_place\"/\"in_place\" time: skipped",
                      {file.path});
      continue;
    }
    r.rows.push_back(std::move(b));
  }
  if (r.rows.empty())
    return MakeError(ErrorCode::kBadInput, "nccl-tests JSON with no usable result", {file.path});
  if (r.nranks == 1)
    r.notes.push_back(
        "one rank: nothing crosses a link, so busbw is 0 (nccl-tests' bus factor "
        "for one rank); times are the GPU's own copy and kernel time");
  job.bench.push_back(std::move(r));
  return Ok{};
}

}  // namespace commdx::ingest
