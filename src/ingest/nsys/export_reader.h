// Reads one `nsys export --type sqlite` database into the trace model, one RankTrace per process
// that ran CUDA work, through the same RankBuilder the Kineto importer uses: Nsight Systems rows
// become the events the PyTorch profiler would have written for the same work (kernels, copies,
// sets and syncs on the GPU; runtime calls and NVTX ranges on the host), so linking, collectives,
// streams and steps are worked out by one piece of code for both formats.
//
// Tables read (NVIDIA's SQLite schema; a table exists only when it has rows):
//   META_DATA_EXPORT                 EXPORT_SCHEMA_VERSION "3.20.3"
//   StringIds                        id -> text of every *Id / name column
//   TARGET_INFO_SESSION_START_TIME   utcEpochNs: times become epoch-based ns like Kineto's
//   TARGET_INFO_GPU                  device name, memory, SM count, compute capability
//   CUPTI_ACTIVITY_KIND_KERNEL       start, end, deviceId, streamId, correlationId, globalPid,
//                                    demangledName, gridX
//   CUPTI_ACTIVITY_KIND_MEMCPY/MEMSET/SYNCHRONIZATION   copies, sets, GPU-side syncs
//   CUPTI_ACTIVITY_KIND_RUNTIME      start, end, eventClass, globalTid, correlationId, nameId
//   NVTX_EVENTS                      push/pop and start/end ranges of the default domain; of
//                                    NCCL's domain the API calls with their payloads
//                                    (nccl_nvtx.h: sizes, communicators, the rank)
//   ThreadNames                      thread names
// globalTid/globalPid are serialized GlobalIds: pid in bits 24..47, tid in bits 0..23.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/diagnostics.h"
#include "base/result.h"
#include "ingest/nsys/nccl_nvtx.h"
#include "ingest/nsys/sqlite_db.h"
#include "ingest/trace_build/rank_builder.h"
#include "model/job.h"

namespace commdx::ingest::nsys {

// What reading one export gave.
struct ExportRead {
  bool is_nsys = false;  // false: a SQLite database, but not an nsys export
  std::string why_not;
};

// A complete event from columns 0 and 1 (start, end: integer ns). A hostile end before start or
// far past it is a negative or huge duration the RankBuilder skips with a note.
trace_build::RawEvent TimedEvent(const Rows& r, trace_build::EventCat cat);

// Appends the export's ranks to part.trace and its notes to part.quality.
Result<ExportRead> ReadExport(const Database& db, Job& part);

// One process of the export on its way to a RankTrace.
struct Process {
  explicit Process(const std::string& file) : builder(file) {}
  trace_build::RankBuilder builder;
  uint64_t pid = 0;
  uint64_t gpu_rows = 0;
  uint64_t host_rows = 0;
  std::vector<int64_t> devices;                   // device ids its GPU work ran on
  std::unordered_map<int64_t, std::string> tids;  // globalTid -> tid as text
  int64_t nccl_rank = -1, nccl_world = -1;        // from ncclCommInitRank* payloads (largest comm)
  int64_t last_gid = -1;
  const std::string* last_tid = nullptr;
  std::string pid_text;
  // The tid text of a globalTid (the thread is named in RawEvent::tid).
  const std::string& Tid(int64_t global_tid);
};

// A range of a library's NVTX domain, kept until every domain is named (ReadNvtx).
struct LibraryRange {
  int64_t start = 0, end = 0, global_tid = 0, domain = 0;
  std::string name;
  NcclPayload payload;
  bool payload_unreadable = false;  // a payload column was set but is not what nsys writes
  // Columns as ReadNvtx selects them: 0 start, 1 end, 2 globalTid, 7 jsonText, 8 binaryData.
  static LibraryRange From(const Rows& r, int64_t domain, std::string_view name,
                           const PayloadSchemas& schemas);
};

class ExportReader {
 public:
  ExportReader(const Database& db, Job& part) : db_(db), part_(part) {}
  Result<ExportRead> Read();

 private:
  Status ReadMeta();
  Status ReadStrings();
  Status ReadSessionStart();
  Status ReadLaunchEnvironment();
  Status ReadGpus();
  Status CountRows();
  Status ReadKernels();
  Status ReadCopies();
  Status ReadSets();
  Status ReadSyncs();
  Status ReadRuntime();
  Status ReadNvtx();
  Status ReadThreadNames();
  // NCCL's API ranges as CPU ops with collective arguments (nccl_calls.cc).
  void AddNcclCalls(const std::vector<LibraryRange>& calls);
  void Finish();

  bool Has(const char* table) const { return tables_.count(table) > 0; }
  // The process of a serialized GlobalId (pid bits).
  Process& ProcessOf(int64_t global_id);
  std::string_view String(int64_t id) const;
  // `name` as RawEvent::name wants it (JSON-raw: backslashes doubled).
  std::string_view RawName(std::string_view name);
  void AddDevice(Process& p, int64_t device);
  void Note(QualityId id, DiagSeverity sev, std::string message);

  const Database& db_;
  Job& part_;
  std::set<std::string, std::less<>> tables_;
  std::vector<std::string> strings_;
  std::vector<DeviceInfo> gpus_;
  std::string schema_version_;
  int64_t epoch_ns_ = 0;
  std::unordered_map<uint64_t, std::unique_ptr<Process>> procs_;
  std::vector<Process*> order_;  // in the order first seen
  Process* last_proc_ = nullptr;
  uint64_t last_pid_key_ = ~0ull;
  std::string scratch_;
  uint64_t skipped_driver_ = 0;
  uint64_t skipped_nvtx_ = 0;
  int64_t env_rank_ = -1, env_world_ = -1;          // RANK / WORLD_SIZE nsys was launched with
  uint64_t nccl_calls_ = 0, nccl_calls_sized_ = 0;  // NCCL collective calls, those with a size
  uint64_t nccl_payloads_unreadable_ = 0;
  PayloadSchemas schemas_;
  uint64_t gpu_rows_ = 0, nvtx_rows_ = 0, runtime_rows_ = 0;  // whole tables (CountRows)
};

}  // namespace commdx::ingest::nsys
