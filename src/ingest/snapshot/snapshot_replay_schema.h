// The snapshot's "replay" section: the `commdx bench replay` runs (model/replay_result.h), one
// object each, in the visitor style of snapshot_schema.h (the writer and the reader share it).
#pragma once

#include <optional>
#include <string>

#include "model/collective.h"
#include "model/replay_result.h"

namespace commdx::ingest::snapshot {

inline CollectiveType CollectiveFrom(const std::string& s) {
  return ParseCollectiveType(s).value_or(CollectiveType::kUnknown);
}
BenchLink BenchLinkFrom(const std::string& s);

template <class V, class T>
void BenchPointSchema(V& v, T& p) {
  v.Field("valid", p.valid);
  v.Double("time_us", p.time_us, 3);
  v.Double("p10_us", p.p10_us, 3);
  v.Double("p90_us", p.p90_us, 3);
  v.Double("algbw_gbps", p.algbw_gbps, 3);
  v.Double("busbw_gbps", p.busbw_gbps, 3);
  v.Field("wrong", p.wrong);
  v.Field("iterations", p.iterations);
  v.Field("slowest_rank", p.slowest_rank);
}

template <class V, class T>
void BenchTopologySchema(V& v, T& t) {
  v.Field("gpu_name", t.gpu_name);
  v.Field("compute_major", t.compute_major);
  v.Field("compute_minor", t.compute_minor);
  v.Enum("link", t.link, BenchLinkName, BenchLinkFrom);
  v.Field("nvlink_version", t.nvlink_version);
  v.Field("nvlinks_per_gpu", t.nvlinks_per_gpu);
  v.Field("pcie_gen", t.pcie_gen);
  v.Field("pcie_width", t.pcie_width);
  v.Field("nodes", t.nodes);
  v.Field("guessed", t.guessed);
}

template <class V, class T>
void BenchRankGpuSchema(V& v, T& g) {
  v.Field("rank", g.rank);
  v.Field("uuid", g.uuid);
  v.Field("bus_id", g.bus_id);
  v.Field("host", g.host);
}

template <class V, class T>
void ReplayShapeSchema(V& v, T& s) {
  v.Enum("type", s.type, CollectiveTypeName, CollectiveFrom);
  v.Field("bytes", s.bytes);
  v.Field("count", s.count);
  v.Field("dtype", s.dtype);
  v.Field("redop", s.redop);
  v.Field("root", s.root);
  v.Field("job_calls", s.job_calls);
  v.Double("job_us", s.job_us, 3);
  v.Double("job_wait_us", s.job_wait_us, 3);
  v.Object("alone", "replay[].groups[].shapes[].alone", s.alone,
           [](auto& w, auto& x) { BenchPointSchema(w, x); });
  v.Double("sequence_us", s.sequence_us, 3);
}

template <class V, class T>
void ReplayGroupSchema(V& v, T& g) {
  v.Field("name", g.name);
  v.Field("desc", g.desc);
  v.Field("job_ranks", g.job_ranks);
  v.Field("replay_ranks", g.replay_ranks);
  v.Field("side_by_side", g.side_by_side);
  v.Field("steps", g.steps);
  v.Field("sequence_calls", g.sequence_calls);
  v.Double("job_sequence_us", g.job_sequence_us, 3);
  v.Double("job_wait_sequence_us", g.job_wait_sequence_us, 3);
  v.Double("replay_sequence_us", g.replay_sequence_us, 3);
  v.Objects("shapes", "replay[].groups[].shapes[]", g.shapes,
            [](auto& w, auto& x) { ReplayShapeSchema(w, x); });
}

template <class V, class T>
void ReplaySchema(V& v, T& r) {
  v.Field("source", r.source);
  v.Field("files", r.files);
  v.Field("nccl_version", r.nccl_version);
  v.Field("nccl_library", r.nccl_library);
  v.Field("launch", r.launch);
  v.Field("job_world_size", r.job_world_size);
  v.Field("nranks", r.nranks);
  v.Object("topology", "replay[].topology", r.topology,
           [](auto& w, auto& x) { BenchTopologySchema(w, x); });
  v.Objects("rank_gpus", "replay[].rank_gpus[]", r.rank_gpus,
            [](auto& w, auto& x) { BenchRankGpuSchema(w, x); });
  v.Objects("groups", "replay[].groups[]", r.groups,
            [](auto& w, auto& x) { ReplayGroupSchema(w, x); });
  v.Field("settings_applied", r.settings_applied);
  v.Field("settings_left_out", r.settings_left_out);
  v.Field("left_out", r.left_out);
  v.Field("notes", r.notes);
  v.Double("wall_s", r.wall_s, 3);
}

}  // namespace commdx::ingest::snapshot
