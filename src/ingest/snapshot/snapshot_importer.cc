// Reads a snapshot back into job.topo and job.env through the schema of snapshot_schema.h.
#include <simdjson.h>

#include "base/text.h"
#include "ingest/snapshot/snapshot.h"
#include "ingest/snapshot/snapshot_fields.h"
#include "ingest/snapshot/snapshot_replay_schema.h"
#include "ingest/snapshot/snapshot_schema.h"

namespace commdx::ingest {

namespace {

using simdjson::dom::element;

void ReadTopology(element t, const FileText& file, Job& job) {
  snapshot::Reader r(t, file, job, "topology");
  Topology& topo = job.topo;
  snapshot::TopologySchema(r, topo);
  topo.source = TopoSource::kSnapshot;
  // Pairs are kept sorted and unique: file them again by their GPU indices.
  std::vector<GpuPair> pairs = std::move(topo.pairs);
  topo.pairs.clear();
  for (GpuPair& p : pairs) {
    GpuPair& slot = topo.PairAt(p.a, p.b);
    p.a = slot.a;
    p.b = slot.b;
    slot = std::move(p);
  }
  for (Gpu& g : topo.gpus) g.loc = {file.path};
  for (GpuPair& p : topo.pairs) p.loc = {file.path};
  for (Nic& n : topo.nics) n.loc = {file.path};
}

void ReadEnv(element e, const FileText& file, Job& job) {
  snapshot::Reader r(e, file, job, "env");
  EnvSnapshot& env = job.env;
  env = EnvSnapshot{};
  snapshot::EnvSchema(r, env);
  env.captured = true;
  env.platform_checked = true;
  env.nccl_libs_checked = true;
  std::erase_if(env.vars, [](const EnvVar& v) { return v.name.empty(); });
}

// The same node: same host name and the same GPUs (by UUID where known, else by bus id).
bool SameMachine(const Topology& a, const Topology& b) {
  if (a.host != b.host || a.gpus.size() != b.gpus.size()) return false;
  for (size_t i = 0; i < a.gpus.size(); ++i) {
    const auto &ga = a.gpus[i], &gb = b.gpus[i];
    if (!ga.uuid.empty() && !gb.uuid.empty() ? ga.uuid != gb.uuid : ga.bus_id != gb.bus_id)
      return false;
  }
  return true;
}

}  // namespace

bool SniffSnapshot(std::string_view head) {
  size_t brace = head.find_first_not_of(" \t\r\n");
  return brace != head.npos && head[brace] == '{' &&
         Contains(head.substr(0, 256), "\"commdx_snapshot\"");
}

Status ParseSnapshot(const FileText& file, Job& job) {
  simdjson::dom::parser parser;
  element doc;
  if (auto err = parser.parse(file.data).get(doc); err != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput,
                     std::string("not a readable commdx snapshot: ") + simdjson::error_message(err),
                     {file.path});
  int64_t schema = 0;
  if (doc["commdx_snapshot"].get(schema) != simdjson::SUCCESS)
    return MakeError(ErrorCode::kBadInput, "missing \"commdx_snapshot\" schema number",
                     {file.path});
  if (schema > kSnapshotSchema)
    job.quality.Add("snapshot.newer_schema", DiagSeverity::kNote,
                    "snapshot schema " + std::to_string(schema) +
                        " is newer than this commdx reads (" + std::to_string(kSnapshotSchema) +
                        "); unknown keys ignored",
                    {file.path});
  element section;
  if (doc["topology"].get(section) == simdjson::SUCCESS &&
      section.type() == simdjson::dom::element_type::OBJECT) {
    Topology before = std::move(job.topo);
    job.topo = Topology{};
    ReadTopology(section, file, job);
    // `topo --save` and `env --save` of one node both carry its topology: only another machine's
    // topology replacing the first is worth a warning.
    if (!before.empty() && !SameMachine(before, job.topo))
      job.quality.Add("snapshot.topology_replaced", DiagSeverity::kWarning,
                      "a second machine's topology (host '" + job.topo.host + "', " +
                          std::to_string(job.topo.gpus.size()) +
                          " GPUs) replaces the one read before (host '" + before.host + "', " +
                          std::to_string(before.gpus.size()) + " GPUs)",
                      {file.path});
    job.topo.files.insert(job.topo.files.begin(), before.files.begin(), before.files.end());
    job.topo.files.push_back(file.path);
  }
  if (doc["env"].get(section) == simdjson::SUCCESS &&
      section.type() == simdjson::dom::element_type::OBJECT)
    ReadEnv(section, file, job);
  snapshot::Reader r(doc, file, job, "snapshot");
  std::vector<ReplayResult> replay;
  r.Objects("replay", "replay[]", replay, [](auto& x, auto& y) { snapshot::ReplaySchema(x, y); });
  for (ReplayResult& one : replay) {
    one.file = file.path;
    job.replay.push_back(std::move(one));
  }
  return Ok{};
}

}  // namespace commdx::ingest
