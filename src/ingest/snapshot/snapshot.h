// The machine snapshot `commdx topo --save FILE` and `commdx env --save FILE` write, and that
// `diagnose`, `compare` and `topo --from` read back. One JSON document:
//
//   {"commdx_snapshot": 1, "tool_version": "0.1.0", "host": "node7", "created_unix_s": 1764480000,
//    "topology": {"source": "live", "gpus": [...], "pairs": [...], "nics": [...], "numa": [...],
//                 "bridges": [...], "processes": [...], ...},
//    "env": {"vars": [{"name": "NCCL_DEBUG", "value": "INFO"}], "shm_total_bytes": ..., ...},
//    "replay": [{"source": "trace", "groups": [...], ...}]}
//
// `commdx bench replay --save FILE` writes the "replay" section (snapshot_replay_schema.h). Any
// section may be absent. Keys are the model's field names, units in the names; unknown
// values are null. docs/findings/live.md describes every key. Readers ignore keys they do not
// know, so later versions may add keys without changing "commdx_snapshot".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "base/write_file.h"
#include "model/environment.h"
#include "model/job.h"
#include "model/topology.h"

namespace commdx::ingest {

inline constexpr int kSnapshotSchema = 1;

struct SnapshotMeta {
  std::string tool_version;
  std::string host;
  int64_t created_unix_s = 0;
};

// Any pointer may be null (that section is left out).
std::string WriteSnapshot(const SnapshotMeta& meta, const Topology* topo, const EnvSnapshot* env,
                          const std::vector<ReplayResult>* replay = nullptr);

// Writes the snapshot to `path` (meta filled from the facts and the clock), as
// WriteFileAtomically does ("-": standard output; a read-only file only with options.force).
Status WriteSnapshotFile(const std::string& path, const Topology* topo, const EnvSnapshot* env,
                         const WriteOptions& options = {});

// A snapshot holding one replay run, as WriteSnapshotFile writes.
Status WriteReplaySnapshotFile(const std::string& path, const ReplayResult& replay,
                               const WriteOptions& options = {});

bool SniffSnapshot(std::string_view head);
Status ParseSnapshot(const FileText& file, Job& job);

}  // namespace commdx::ingest
