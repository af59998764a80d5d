#include "ingest/env_dump/env_dump_importer.h"

#include <simdjson.h>

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "base/text.h"

namespace commdx::ingest {

namespace {

// {"hostname": "vm", "pid": 2172, "rank": 0, "cpu_count": 32, "cpu_affinity": [0, 1, ...],
//  "torch_version": "2.11.0+cu130", "nccl_version": "2.28.9",
//  "nccl_lib_loaded": [".../nvidia/nccl/lib/libnccl.so.2"],
//  "environ": {"OMP_NUM_THREADS": "256", "LOCAL_WORLD_SIZE": "2", ...}}

std::string CpuListText(const std::vector<int64_t>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string GetString(simdjson::dom::element doc, const char* key) {
  std::string_view s;
  return doc[key].get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

// True if `"key"` appears in `head` followed by a colon and then `open` ('{' or '[').
bool HasKey(std::string_view head, std::string_view key, char open) {
  std::string quoted = "\"" + std::string(key) + "\"";
  for (size_t at = head.find(quoted); at != std::string_view::npos;
       at = head.find(quoted, at + 1)) {
    std::string_view rest = TrimLeft(head.substr(at + quoted.size()));
    if (rest.empty() || rest.front() != ':') continue;
    rest = TrimLeft(rest.substr(1));
    if (open == 0 || (!rest.empty() && rest.front() == open)) return true;
  }
  return false;
}

}  // namespace

// What makes a file an environment dump: an "environ" object (os.environ's name), or an "env"
// object beside a field that says which process it describes. A file that merely has an "env"
// object among other data (a per-rank file of step times with its settings) is not one: taking
// it would make the report list facts the file never carried.
bool SniffEnvDump(std::string_view head) {
  std::string_view t = TrimLeft(head);
  if (t.empty() || t.front() != '{') return false;
  if (Contains(head, "\"traceEvents\"") || Contains(head, "\"schema_version\"")) return false;
  if (HasKey(head, "environ", '{')) return true;
  if (!HasKey(head, "env", '{')) return false;
  for (const char* who : {"hostname", "pid", "cpu_count", "cpu_affinity", "nccl_version",
                          "torch_version", "nccl_lib_loaded"})
    if (HasKey(head, who, 0)) return true;
  return false;
}

Status ParseEnvDump(const FileText& file, Job& job) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.parse(file.data).get(doc); err != simdjson::SUCCESS)
    return MakeError(
        ErrorCode::kBadInput,
        std::string("environment dump is not valid JSON: ") + simdjson::error_message(err),
        {file.path});
  simdjson::dom::object vars;
  if (doc["environ"].get(vars) != simdjson::SUCCESS && doc["env"].get(vars) != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput,
                     "expected an object \"environ\" (or \"env\") of variable -> value",
                     {file.path});
  EnvSnapshot& env = job.env;
  env.captured = true;
  if (env.host.empty()) env.host = GetString(doc, "hostname");
  // Names already known (from earlier dumps or this one), looked up in constant time: a dump of
  // 200,000 variables must not cost a scan of the list per variable. Views into env.vars stay
  // valid because the vector is reserved up front.
  env.vars.reserve(env.vars.size() + vars.size());
  std::unordered_set<std::string_view> seen;
  seen.reserve(env.vars.capacity());
  for (const auto& v : env.vars) seen.insert(v.name);
  for (auto field : vars) {
    std::string_view value;
    if (field.value.get(value) != simdjson::SUCCESS) {
      job.quality.Add("env_dump.non_string_value", DiagSeverity::kNote,
                      "an environment value that is not a string was skipped", {file.path});
      continue;
    }
    // Ranks of one job share their environment except for per-rank variables; the first seen wins.
    if (seen.count(field.key)) continue;
    env.vars.push_back({std::string(field.key), std::string(value)});
    seen.insert(env.vars.back().name);
  }
  int64_t cpus = 0;
  if (doc["cpu_count"].get(cpus) == simdjson::SUCCESS && cpus > 0 && env.online_cpus == 0)
    env.online_cpus = static_cast<int>(cpus);
  simdjson::dom::array affinity;
  if (env.cpus_allowed.empty() && doc["cpu_affinity"].get(affinity) == simdjson::SUCCESS) {
    std::vector<int64_t> list;
    for (auto c : affinity) {
      int64_t v = 0;
      if (c.get(v) == simdjson::SUCCESS) list.push_back(v);
    }
    std::sort(list.begin(), list.end());
    env.cpus_allowed = CpuListText(list);
  }
  if (env.torch_version.empty()) env.torch_version = GetString(doc, "torch_version");
  std::string nccl_version = GetString(doc, "nccl_version");
  simdjson::dom::array libs;
  if (doc["nccl_lib_loaded"].get(libs) == simdjson::SUCCESS) {
    env.nccl_libs_checked = true;  // the libraries the process had loaded
    for (auto l : libs) {
      std::string_view path;
      if (l.get(path) != simdjson::SUCCESS) continue;
      // The list is every mapped file whose name holds "libnccl": NCCL's plugins too
      // (NCCL_PROFILER_PLUGIN=.../libnccl-profiler-inspector.so). They are not NCCL.
      if (auto kind = NcclPluginKindOf(path)) {
        bool known = std::any_of(env.nccl_plugins.begin(), env.nccl_plugins.end(),
                                 [&](const NcclPluginLib& x) { return x.path == path; });
        if (!known) env.nccl_plugins.push_back({std::string(path), *kind});
        continue;
      }
      bool known = std::any_of(env.nccl_libs.begin(), env.nccl_libs.end(),
                               [&](const NcclLibrary& x) { return x.path == path; });
      if (!known)
        env.nccl_libs.push_back({std::string(path), NcclOrigin::kProcess, nccl_version, "", true});
    }
  }
  return Ok{};
}

}  // namespace commdx::ingest
