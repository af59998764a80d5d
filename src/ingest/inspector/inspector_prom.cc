// NCCL Inspector in its Prometheus mode (NCCL_INSPECTOR_PROM_DUMP=1): the text exposition
// format, one file per GPU (nccl_inspector_metrics_<GPU UUID>.prom) rewritten every dump pass, or
// the same lines inside a node exporter's whole /metrics page. Two generations
// (docs/findings/inspector.md, "Prometheus output"):
//
// NCCL 2.29: per communicator, the last collective of the pass, three samples with one label set:
//   nccl_algorithm_bandwidth_gbs{comm_id="0x7a4f0c3e21d95b81",hostname="vm",rank="0",
//     slurm_job="unknown",slurm_job_id="unknown",nranks="2",n_nodes="2",gpu_device_id="GPU0",
//     collective="AllReduce",coll_sn="1187",timestamp="2026-12-06T01:20:31Z",
//     message_size="9.54MB"} 2.71
//   nccl_bus_bandwidth_gbs{...} 2.71
//   nccl_collective_exec_time_microseconds{...} 3690
// Read into InspectorRecord, as a JSONL line would be.
//
// NCCL 2.30: per GPU, every operation of the pass aggregated per (communicator name, collective
// or send/recv, size range, algorithm_protocol): geometric-mean busbw and mean time.
//   nccl_bus_bandwidth_gbs{version="v5.1",slurm_job_id="unknown",node="vm",gpu="GPU0",
//     comm_name="unknown",n_nodes="2",nranks="2",collective="AllReduce",message_size="9-10MB",
//     algo_proto="RING_SIMPLE"} 2.7
//   nccl_collective_exec_time_microseconds{...} 3712.5
//   nccl_p2p_bus_bandwidth_gbs{...,p2p_operation="Send",message_size="1-2MB"} 19.2
// Read into InspectorBucket. Later plugins add count, sum, percentile and max samples of the same
// label set (`percentile_samples` on the count); they are read where present.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/text.h"
#include "ingest/inspector/inspector_importer.h"

namespace commdx::ingest {

namespace {

// What a sample of a known metric fills in its label set's group.
enum class Field { kAlgbw, kBusbw, kExec, kCount, kSum, kP99, kMax, kKnownUnread };

struct Metric {
  std::string_view name;
  Field field;
  bool p2p;
};

constexpr Metric kMetrics[] = {
    {"nccl_algorithm_bandwidth_gbs", Field::kAlgbw, false},
    {"nccl_bus_bandwidth_gbs", Field::kBusbw, false},
    {"nccl_collective_exec_time_microseconds", Field::kExec, false},
    {"nccl_collective_count", Field::kCount, false},
    {"nccl_collective_exec_time_sum_microseconds", Field::kSum, false},
    {"nccl_collective_exec_time_p99_microseconds", Field::kP99, false},
    {"nccl_collective_exec_time_max_microseconds", Field::kMax, false},
    {"nccl_collective_exec_time_min_microseconds", Field::kKnownUnread, false},
    {"nccl_collective_exec_time_p50_microseconds", Field::kKnownUnread, false},
    {"nccl_collective_exec_time_p95_microseconds", Field::kKnownUnread, false},
    {"nccl_p2p_bus_bandwidth_gbs", Field::kBusbw, true},
    {"nccl_p2p_exec_time_microseconds", Field::kExec, true},
    {"nccl_p2p_count", Field::kCount, true},
    {"nccl_p2p_exec_time_sum_microseconds", Field::kSum, true},
    {"nccl_p2p_exec_time_p99_microseconds", Field::kP99, true},
    {"nccl_p2p_exec_time_max_microseconds", Field::kMax, true},
    {"nccl_p2p_exec_time_min_microseconds", Field::kKnownUnread, true},
    {"nccl_p2p_exec_time_p50_microseconds", Field::kKnownUnread, true},
    {"nccl_p2p_exec_time_p95_microseconds", Field::kKnownUnread, true},
};

const Metric* FindMetric(std::string_view name) {
  for (const Metric& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

bool IsNameChar(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
         (!first && IsDigit(c));
}

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  std::string_view name;
  Labels labels;  // sorted by name
  double value = 0;
};

// One sample line: `name{label="value",...} value [timestamp]`. What is wrong with it, or "".
std::string ParseSample(std::string_view line, Sample& s) {
  size_t i = 0;
  while (i < line.size() && IsNameChar(line[i], i == 0)) ++i;
  if (i == 0) return "a metric name";
  s.name = line.substr(0, i);
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (true) {
      while (i < line.size() && line[i] == ' ') ++i;
      if (i < line.size() && line[i] == '}') break;
      size_t k = i;
      while (i < line.size() && IsNameChar(line[i], i == k)) ++i;
      if (i == k) return "a label name or '}'";
      std::string key(line.substr(k, i - k));
      if (i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"')
        return "=\" after label " + key;
      i += 2;
      std::string value;
      for (; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] != '\\') {
          value += line[i];
          continue;
        }
        if (++i == line.size()) break;
        value += line[i] == 'n' ? '\n' : line[i];  // \\ \" \n
      }
      if (i >= line.size()) return "a closing '\"' for label " + key;
      ++i;
      s.labels.emplace_back(std::move(key), std::move(value));
      if (i < line.size() && line[i] == ',') ++i;
    }
    ++i;  // past '}'
  }
  std::vector<std::string_view> rest = SplitWhitespace(line.substr(i));
  if (rest.empty() || rest.size() > 2) return "a value (and at most a timestamp) after the labels";
  std::string_view v = rest[0];
  if (v == "NaN") s.value = std::nan("");
  else if (v == "+Inf" || v == "Inf") s.value = HUGE_VAL;
  else if (v == "-Inf") s.value = -HUGE_VAL;
  else if (auto d = ParseDouble(v)) s.value = *d;
  else return "a number, not '" + std::string(v) + "'";
  std::sort(s.labels.begin(), s.labels.end());
  return "";
}

const std::string* Label(const Labels& labels, std::string_view key) {
  for (const auto& [k, v] : labels)
    if (k == key) return &v;
  return nullptr;
}

// "2026-12-06T01:20:31Z" (the dump pass's UTC time) as ns since the epoch, or 0.
int64_t ParseUtc(const std::string& s) {
  std::tm tm{};
  if (!strptime(s.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return 0;
  const int64_t seconds = timegm(&tm);
  // Nanoseconds fit int64 until 2262: a later (or negative) time is no dump pass's.
  if (seconds <= 0 || seconds > 9000000000) return 0;
  return seconds * 1000000000;
}

struct Group {
  Labels labels;
  SourceLoc where;  // its first sample
  bool p2p = false;
  double algbw = -1, busbw = -1, exec_us = -1, count = -1, sum_us = -1, p99_us = -1, max_us = -1;
};

void Fill(Group& g, const Metric& m, double v) {
  g.p2p = g.p2p || m.p2p;
  switch (m.field) {
    case Field::kAlgbw: g.algbw = v; break;
    case Field::kBusbw: g.busbw = v; break;
    case Field::kExec: g.exec_us = v; break;
    case Field::kCount: g.count = v; break;
    case Field::kSum: g.sum_us = v; break;
    case Field::kP99: g.p99_us = v; break;
    case Field::kMax: g.max_us = v; break;
    case Field::kKnownUnread: break;
  }
}

// The mean time of a group: its own sample, else sum / count.
double MeanUs(const Group& g) {
  if (g.exec_us >= 0) return g.exec_us;
  if (g.sum_us >= 0 && g.count > 0) return g.sum_us / g.count;
  return -1;
}

// The 2.29 form names one collective: a rank and a sequence number.
bool IsOneCollective(const Group& g) {
  return Label(g.labels, "coll_sn") && Label(g.labels, "rank");
}

// The record a label set stands for, or why it cannot be one.
std::string ToRecord(const Group& g, InspectorRecord& r) {
  auto get = [&](std::string_view k) { return Label(g.labels, k); };
  const std::string *comm = get("comm_id"), *rank = get("rank"), *nranks = get("nranks"),
                    *coll = get("collective"), *sn = get("coll_sn"), *size = get("message_size");
  if (!comm || !rank || !nranks || !coll || !sn)
    return "labels without comm_id, rank, nranks, collective and coll_sn";
  const double exec_us = MeanUs(g);
  if (exec_us < 0) return "no nccl_collective_exec_time_microseconds sample";
  auto rk = ParseInt(*rank), nr = ParseInt(*nranks), seq = ParseInt(*sn);
  if (!rk || !nr || !seq || *rk < 0 || *nr <= 0 || *rk >= *nr || *nr > (1 << 24) || *seq < 0)
    return "rank \"" + *rank + "\", nranks \"" + *nranks + "\" or coll_sn \"" + *sn +
           "\" out of range";
  if (!(exec_us <= 9e12)) return "an execution time out of range";
  r.comm_id = *comm;
  r.rank = static_cast<int>(*rk);
  r.n_ranks = static_cast<int>(*nr);
  r.coll = *coll;
  r.coll_sn = static_cast<uint64_t>(*seq);
  r.exec_ns = static_cast<int64_t>(std::llround(exec_us * 1000));
  if (const std::string* n = get("n_nodes"))
    if (auto v = ParseInt(*n); v && *v > 0 && *v <= *nr) r.nnodes = static_cast<int>(*v);
  if (const std::string* h = get("hostname")) r.hostname = *h;
  if (const std::string* t = get("timestamp")) r.dump_ns = ParseUtc(*t);
  // The plugin's message_size: "%zuB" under 1 KB, else "%.2f" and KB, MB, GB or TB (powers of
  // 1024). Three significant digits: the bytes are read back to within 0.5 %.
  if (size)
    if (auto b = ParseByteSize(*size)) r.msg_bytes = *b;
  r.algbw_gbps = std::max(0.0, g.algbw);
  r.busbw_gbps = std::max(0.0, g.busbw);
  r.where = g.where;
  return "";
}

// "4-5MB" (2.30: [4 MiB, 5 MiB)) or an exact size ("9.54MB", "512B").
bool ParseSizeRange(std::string_view s, uint64_t& lo, uint64_t& hi) {
  size_t dash = s.find('-');
  if (dash == std::string_view::npos) {
    auto b = ParseByteSize(s);
    if (!b) return false;
    lo = hi = *b;
    return true;
  }
  size_t unit = s.find_first_not_of("0123456789.", dash + 1);
  if (unit == std::string_view::npos) return false;
  std::string_view suffix = s.substr(unit);
  auto a = ParseByteSize(std::string(s.substr(0, dash)) + std::string(suffix));
  auto b = ParseByteSize(s.substr(dash + 1));
  if (!a || !b || *b < *a) return false;
  lo = *a, hi = *b;
  return true;
}

// The bucket a label set stands for (2.30 on), or why it cannot be one.
std::string ToBucket(const Group& g, InspectorBucket& b) {
  auto get = [&](std::string_view k) { return Label(g.labels, k); };
  const std::string* op = get(g.p2p ? "p2p_operation" : "collective");
  const std::string* nranks = get("nranks");
  if (!op || !nranks)
    return std::string("labels without ") + (g.p2p ? "p2p_operation" : "collective") +
           " and nranks";
  const double exec_us = MeanUs(g);
  if (exec_us < 0) return "no execution time sample (mean, or sum and count)";
  if (!(exec_us <= 9e12)) return "an execution time out of range";
  auto nr = ParseInt(*nranks);
  if (!nr || *nr <= 0 || *nr > (1 << 24)) return "nranks \"" + *nranks + "\" out of range";
  b.op = *op;
  b.p2p = g.p2p;
  b.n_ranks = static_cast<int>(*nr);
  b.exec_us = exec_us;
  b.busbw_gbps = std::max(0.0, g.busbw);
  b.count = g.count > 0 && g.count < 9e18 ? static_cast<int64_t>(g.count) : 0;
  b.p99_us = g.p99_us;
  b.max_us = g.max_us;
  if (const std::string* v = get("version")) b.version = *v;
  if (const std::string* v = get("node")) b.node = *v;
  else if (const std::string* h = get("hostname")) b.node = *h;
  if (const std::string* v = get("gpu")) b.gpu = *v;
  else if (const std::string* d = get("gpu_device_id")) b.gpu = *d;
  const std::string *name = get("comm_name"), *id = get("comm_id");
  b.comm = name && *name != "unknown" ? *name : id ? *id : name ? *name : "unknown";
  if (const std::string* r = get("rank"))
    if (auto v = ParseInt(*r); v && *v >= 0 && *v < *nr) b.rank = static_cast<int>(*v);
  if (const std::string* n = get("n_nodes"))
    if (auto v = ParseInt(*n); v && *v > 0 && *v <= *nr) b.nnodes = static_cast<int>(*v);
  if (const std::string* a = get("algo_proto")) b.algo_proto = *a;
  if (const std::string* s = get("message_size")) {
    b.size_label = *s;
    ParseSizeRange(*s, b.size_lo, b.size_hi);
  }
  b.where = g.where;
  return "";
}

}  // namespace

bool SniffInspectorProm(std::string_view head) {
  // A sample line of one of its metrics: at a line start, followed by '{' or a space.
  for (size_t at = head.find("nccl_"); at != std::string_view::npos;
       at = head.find("nccl_", at + 1)) {
    if (at > 0 && head[at - 1] != '\n') continue;
    size_t end = at;
    while (end < head.size() && IsNameChar(head[end], end == at)) ++end;
    if (end < head.size() && (head[end] == '{' || head[end] == ' ') &&
        FindMetric(head.substr(at, end - at)))
      return true;
  }
  return false;
}

Status ParseInspectorProm(const FileText& file, Job& job) {
  std::map<Labels, Group> groups;
  std::vector<const Group*> order;  // groups in the order of their first sample
  uint32_t line_no = 0;
  size_t other_metrics = 0, bad = 0;
  SourceLoc first_other, first_bad;
  std::string first_why, other_names;
  std::string_view data = file.data;
  for (size_t at = 0; at < data.size();) {
    size_t end = data.find('\n', at);
    std::string_view line =
        Trim(data.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    at = end == std::string_view::npos ? data.size() : end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    SourceLoc where{file.path, line_no};
    Sample s;
    if (std::string why = ParseSample(line, s); !why.empty()) {
      if (bad++ == 0) first_bad = where, first_why = why;
      job.quality.Add("inspector_prom.bad_line", DiagSeverity::kWarning,
                      "expected a Prometheus sample (name{labels} value): expected " + why +
                          "; skipped",
                      where);
      continue;
    }
    const Metric* m = FindMetric(s.name);
    if (!m) {
      if (other_metrics++ == 0) first_other = where;
      if (StartsWith(s.name, "nccl_") && other_names.size() < 200 &&
          other_names.find(std::string(s.name)) == std::string::npos)
        other_names += (other_names.empty() ? "" : ", ") + std::string(s.name);
      continue;
    }
    if (m->field == Field::kKnownUnread) continue;
    // The count sample carries one more label, how many times its percentiles were taken from.
    std::erase_if(s.labels, [](const auto& l) { return l.first == "percentile_samples"; });
    // One label set per collective (2.29: its timestamp label keeps two passes apart) or bucket.
    auto [it, added] = groups.try_emplace(s.labels);
    Group& g = it->second;
    if (added) g.labels = s.labels, g.where = where, order.push_back(&g);
    Fill(g, *m, s.value);
  }
  if (other_metrics > 0)
    job.quality.Add("inspector_prom.other_metrics", DiagSeverity::kNote,
                    std::to_string(other_metrics) + " samples of metrics this commdx does not read" +
                        (other_names.empty() ? std::string(" (a node exporter page)")
                                             : " (" + other_names + ", ...)") +
                        ": counted, not read",
                    first_other);
  size_t read = 0;
  for (const Group* g : order) {
    std::string why;
    if (IsOneCollective(*g)) {
      InspectorRecord r;
      why = ToRecord(*g, r);
      if (why.empty()) {
        if (r.msg_bytes == 0 && Label(g->labels, "message_size"))
          job.quality.Add("inspector_prom.incomplete", DiagSeverity::kNote,
                          "message_size \"" + *Label(g->labels, "message_size") +
                              "\" is not a size: the collective's size is unknown",
                          g->where);
        job.inspector.push_back(std::move(r));
      }
    } else {
      InspectorBucket b;
      why = ToBucket(*g, b);
      if (why.empty()) job.inspector_buckets.push_back(std::move(b));
    }
    if (!why.empty()) {
      job.quality.Add("inspector_prom.incomplete", DiagSeverity::kWarning,
                      "NCCL Inspector samples with " + why + ": skipped", g->where);
      if (first_why.empty()) first_bad = g->where, first_why = why;
      continue;
    }
    ++read;
  }
  if (read == 0)
    return MakeError(ErrorCode::kBadInput,
                     first_why.empty()
                         ? "no NCCL Inspector sample (nccl_bus_bandwidth_gbs, ...) in this file"
                         : "no NCCL Inspector record read; expected " + first_why,
                     first_why.empty() ? SourceLoc{file.path, 0} : first_bad);
  return Ok{};
}

}  // namespace commdx::ingest
