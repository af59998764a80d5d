// Builds one rank's RankTrace from raw events: interns names, keeps compact structs, and at the
// end links launches to GPU ops, attaches collective arguments, finds streams, threads and steps.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/diagnostics.h"
#include "ingest/trace_build/cut_short.h"
#include "ingest/trace_build/interner.h"
#include "ingest/trace_build/raw_event.h"
#include "model/trace.h"

namespace commdx::ingest::trace_build {

struct PgConfig {
  std::string name, desc;
  std::vector<int> ranks;
  int size = 0;
};

class RankBuilder {
 public:
  explicit RankBuilder(std::string file);

  // Header facts (top-level keys).
  void SetSchemaVersion(std::string v) { trace_.schema_version = std::move(v); }
  void AddDevice(DeviceInfo d) { trace_.devices.push_back(std::move(d)); }
  void SetDistributed(int rank, int world, std::string backend, std::string nccl_version);
  void AddPgConfig(PgConfig pg) { pg_configs_.push_back(std::move(pg)); }
  void SetBaseTimeNs(int64_t ns) { base_time_ns_ = ns; }
  // The file ends before the trace does: Finish marks the steps the cut took (cut_short.h).
  void SetCutShort(const CutShort& cut) { cut_ = cut; }

  void Add(const RawEvent& ev);
  // Reserves room for the events a trace of `json_bytes` usually holds (no realloc copies).
  void Reserve(uint64_t json_bytes);
  // Reserves room for known counts of GPU ops, host ops and runtime calls (an upper bound is
  // fine: what is never written is never resident).
  void ReserveCounts(uint64_t gpu_ops, uint64_t host_ops, uint64_t runtime);

  // Taking back the events of a part that is retried.
  void Checkpoint();
  void Rollback();

  Diagnostics& quality() { return quality_; }
  // Flow events are needed only while some GPU op or launch lacks its correlation.
  bool wants_flows() const { return want_flows_; }
  // Finishes the model. `rank_from_name` is used when the file has no distributedInfo.
  RankTrace Finish(int rank_from_name);

  // Collective args seen on a kernel or on record_param_comms (public: collectives.cc's helpers
  // read them).
  struct PendingColl {
    int32_t gpu_op = -1;  // -1 for args from a CPU op
    int64_t external_id = -1;
    int64_t start_ns = 0, end_ns = 0;
    uint32_t thread = 0;
    uint32_t coll_name = 0, dtype = 0, pg_name = 0, pg_desc = 0, pg_ranks = 0;
    uint32_t in_split = 0, out_split = 0;
    int64_t in_nelems = -1, out_nelems = -1, group_size = -1, seq = -1, src = -1, dst = -1;
    int64_t rank_bytes = -1;  // CollArgs::rank_bytes
  };

 private:
  struct Sizes {
    size_t gpu, host, runtime, flows, colls, ext_args, gpu_annotations;
    uint64_t events;
  };
  struct Flow {
    int64_t id, ts_ns;
    bool start;
  };

  void AddComplete(const RawEvent& ev);
  void AddGpu(const RawEvent& ev);
  void AddHost(const RawEvent& ev);
  void AddRuntime(const RawEvent& ev);
  void AddMetadata(const RawEvent& ev);
  uint32_t Thread(std::string_view tid);
  uint32_t LookupThread(std::string_view tid);
  // What a name means (flags, comm kernel, copy direction), worked out once per distinct name.
  struct NameInfo {
    bool known = false;
    bool comm = false;
    uint8_t host_flags = 0;
    uint8_t runtime_flags = 0;
    CopyKind copy = CopyKind::kNone;
  };
  // Once per event: known names inline, a new one worked out by LearnInfo.
  const NameInfo& Info(uint32_t id) {
    if (id < name_info_.size() && name_info_[id].known) return name_info_[id];
    return LearnInfo(id);
  }
  const NameInfo& LearnInfo(uint32_t id);
  PendingColl MakePending(const RawEvent& ev);
  void Note(QualityId id, DiagSeverity sev, std::string message, uint64_t offset);

  // Finish steps, each in its own file: link.cc, collectives.cc, steps.cc.
  void ApplyBaseTime();
  void DropFarOut();  // far_out_events.cc
  void SortAndLink();
  void LinkLaunches();
  void BuildCollectives();
  void BuildStreams();
  void BuildProcessGroups();
  void FitEventArrays();  // gives back the room Reserve() left unused

  RankTrace trace_;
  Interner names_;
  std::unordered_map<std::string, uint32_t> threads_;
  std::vector<NameInfo> name_info_;
  int32_t last_thread_ = -1;
  bool want_flows_ = true;
  bool missing_correlation_ = false;
  std::vector<PendingColl> colls_;     // from kernels
  std::vector<PendingColl> ext_args_;  // from record_param_comms
  std::vector<Flow> flows_;
  // The ids that link events, beside trace_.gpu_ops and trace_.runtime (same index, kept in the
  // same order) while the rank is built; the model does not keep them.
  struct GpuIds {
    int64_t correlation = -1;  // the runtime call that launched it
    int64_t external_id = -1;  // the CPU op that issued it (collective args)
  };
  std::vector<GpuIds> gpu_ids_;
  std::vector<int64_t> runtime_correlation_;
  std::vector<PgConfig> pg_configs_;
  Diagnostics quality_;
  Diagnostics quality_checkpoint_;
  Sizes checkpoint_{};
  int64_t base_time_ns_ = -1;
  int dist_rank_ = -1;
  CutShort cut_;
};

// Rank from a file name: "trace_rank3.json.gz", "rank-3.json", "worker_3.pt.trace.json" -> 3;
// -1 if the name does not say.
int RankFromFileName(std::string_view path);

}  // namespace commdx::ingest::trace_build
