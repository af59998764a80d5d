#include "ingest/nsys/export_reader.h"

#include <algorithm>

#include "base/text.h"
#include "ingest/nsys/nsys_names.h"

namespace commdx::ingest::nsys {

namespace {

constexpr uint64_t kTidBits = 24;

}  // namespace

trace_build::RawEvent TimedEvent(const Rows& r, trace_build::EventCat cat) {
  trace_build::RawEvent ev;
  ev.ph = 'X';
  ev.cat = cat;
  ev.ts_ns = r.Int(0);
  // Unsigned: wraps instead of overflowing on hostile values.
  ev.dur_ns =
      static_cast<int64_t>(static_cast<uint64_t>(r.Int(1)) - static_cast<uint64_t>(r.Int(0)));
  ev.has_ts = ev.has_dur = true;  // a NULL end reads as 0: a negative duration, skipped
  return ev;
}

const std::string& Process::Tid(int64_t global_tid) {
  if (global_tid == last_gid && last_tid) return *last_tid;
  auto it = tids.find(global_tid);
  if (it == tids.end()) {
    uint64_t tid = static_cast<uint64_t>(global_tid) & ((1ull << kTidBits) - 1);
    it = tids.emplace(global_tid, std::to_string(tid)).first;
  }
  last_gid = global_tid;
  last_tid = &it->second;
  return it->second;
}

Result<ExportRead> ReadExport(const Database& db, Job& part) {
  return ExportReader(db, part).Read();
}

Result<ExportRead> ExportReader::Read() {
  COMMDX_ASSIGN_OR_RETURN(tables_, db_.Tables());
  ExportRead out;
  if (!Has("StringIds") || !(Has("META_DATA_EXPORT") || Has("TARGET_INFO_SESSION_START_TIME"))) {
    out.why_not =
        "SQLite database without the tables of an nsys export (StringIds, "
        "META_DATA_EXPORT): not an Nsight Systems report";
    return out;
  }
  out.is_nsys = true;
  COMMDX_TRY(ReadMeta());
  COMMDX_TRY(ReadStrings());
  COMMDX_TRY(ReadSessionStart());
  COMMDX_TRY(ReadLaunchEnvironment());
  COMMDX_TRY(ReadGpus());
  COMMDX_TRY(CountRows());
  COMMDX_TRY(ReadKernels());
  COMMDX_TRY(ReadCopies());
  COMMDX_TRY(ReadSets());
  COMMDX_TRY(ReadSyncs());
  COMMDX_TRY(ReadRuntime());
  COMMDX_TRY(ReadNvtx());
  COMMDX_TRY(ReadThreadNames());
  Finish();
  return out;
}

void ExportReader::Note(QualityId id, DiagSeverity sev, std::string message) {
  part_.quality.Add(id, sev, std::move(message), SourceLoc{db_.file()});
}

Status ExportReader::ReadMeta() {
  if (!Has("META_DATA_EXPORT")) {
    Note("nsys.no_schema_version", DiagSeverity::kNote,
         "the export has no META_DATA_EXPORT table: its schema version is unknown");
    return Ok{};
  }
  std::string major;
  COMMDX_TRY(db_.EachRow("SELECT name, value FROM META_DATA_EXPORT", [&](const Rows& r) {
    if (r.Text(0) == "EXPORT_SCHEMA_VERSION") schema_version_ = SanitizeUtf8(r.Text(1));
    if (r.Text(0) == "EXPORT_SCHEMA_VERSION_MAJOR") major = SanitizeUtf8(r.Text(1));
  }));
  // Schema 3.x is what nsys 2023.x-2025.x write (NVIDIA's SQLite Schema Reference); columns are
  // read by name, so a newer major is read too, with a note.
  if (!major.empty() && major != "3")
    Note("nsys.schema_version", DiagSeverity::kNote,
         "nsys export schema " + schema_version_ +
             " is newer than the 3.x commdx was written "
             "for: read by column name; check the numbers against the nsys GUI");
  return Ok{};
}

Status ExportReader::ReadStrings() {
  return db_.EachRow("SELECT id, value FROM StringIds", [&](const Rows& r) {
    int64_t id = r.Int(0);
    // Ids are dense from 0; a hostile file cannot make us allocate more than its rows allow.
    if (id < 0 || id > static_cast<int64_t>(strings_.size()) + (1 << 20)) return;
    if (static_cast<size_t>(id) >= strings_.size()) strings_.resize(id + 1);
    strings_[id] = std::string(r.Text(1));
  });
}

std::string_view ExportReader::String(int64_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= strings_.size()) return {};
  return strings_[id];
}

std::string_view ExportReader::RawName(std::string_view name) {
  if (name.find('\\') == name.npos) return name;
  scratch_.clear();
  for (char c : name) {
    if (c == '\\') scratch_ += '\\';
    scratch_ += c;
  }
  return scratch_;
}

Status ExportReader::ReadLaunchEnvironment() {
  // TARGET_INFO_SYSTEM_ENV's DeviceEnvironment: "NCCL_NVLS_ENABLE=0;IS_SANDBOX=yes;..." — the
  // environment `nsys profile` ran in. Launched once per rank (torchrun --no-python nsys ...,
  // mpirun nsys ...), it holds the launcher's RANK / WORLD_SIZE (Open MPI's OMPI_COMM_WORLD_*).
  if (!Has("TARGET_INFO_SYSTEM_ENV")) return Ok{};
  return db_.EachRow(
      "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'DeviceEnvironment'",
      [&](const Rows& r) {
        for (std::string_view kv : Split(r.Text(0), ';')) {
          size_t eq = kv.find('=');
          if (eq == std::string_view::npos) continue;
          std::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
          auto n = ParseInt(value);
          if (!n || *n < 0 || *n >= (1 << 24)) continue;
          if (key == "RANK" || (key == "OMPI_COMM_WORLD_RANK" && env_rank_ < 0)) env_rank_ = *n;
          if (key == "WORLD_SIZE" || (key == "OMPI_COMM_WORLD_SIZE" && env_world_ < 0))
            env_world_ = *n;
        }
      });
}

Status ExportReader::ReadSessionStart() {
  if (!Has("TARGET_INFO_SESSION_START_TIME")) return Ok{};
  return db_.EachRow("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME",
                     [&](const Rows& r) { epoch_ns_ = std::max<int64_t>(0, r.Int(0)); });
}

Status ExportReader::ReadGpus() {
  if (!Has("TARGET_INFO_GPU")) return Ok{};
  return db_.EachRow(
      "SELECT id, name, totalMemory, smCount, computeMajor, computeMinor "
      "FROM TARGET_INFO_GPU",
      [&](const Rows& r) {
        DeviceInfo d;
        d.id = static_cast<int>(r.Int(0));
        d.name = SanitizeUtf8(r.Text(1));
        d.total_memory_bytes = r.Int(2);
        d.sm_count = static_cast<int>(r.Int(3));
        d.compute_major = static_cast<int>(r.Int(4));
        d.compute_minor = static_cast<int>(r.Int(5));
        gpus_.push_back(std::move(d));
      });
}

Status ExportReader::CountRows() {
  // count(*) of a whole table walks its pages without decoding rows: ~4 ms for 2.65 M NVTX
  // ranges. Every process is given room for all rows (several processes in one report
  // over-reserve address space, not memory); vectors grown by doubling cost page clearing and
  // copies, ~10% of reading a large export.
  auto count = [&](const char* table, uint64_t& into) -> Status {
    if (!Has(table)) return Ok{};
    return db_.EachRow(std::string("SELECT count(*) FROM ") + table, [&](const Rows& r) {
      into += static_cast<uint64_t>(std::max<int64_t>(0, r.Int(0)));
    });
  };
  for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                        "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"})
    COMMDX_TRY(count(t, gpu_rows_));
  COMMDX_TRY(count("NVTX_EVENTS", nvtx_rows_));
  return count("CUPTI_ACTIVITY_KIND_RUNTIME", runtime_rows_);
}

Process& ExportReader::ProcessOf(int64_t global_id) {
  uint64_t key = static_cast<uint64_t>(global_id) >> kTidBits;
  if (key == last_pid_key_) return *last_proc_;
  auto& slot = procs_[key];
  if (!slot) {
    slot = std::make_unique<Process>(db_.file());
    slot->pid = key & ((1ull << kTidBits) - 1);
    slot->pid_text = std::to_string(slot->pid);
    slot->builder.ReserveCounts(gpu_rows_, nvtx_rows_, runtime_rows_);
    order_.push_back(slot.get());
  }
  last_pid_key_ = key;
  last_proc_ = slot.get();
  return *slot;
}

void ExportReader::AddDevice(Process& p, int64_t device) {
  if (std::find(p.devices.begin(), p.devices.end(), device) == p.devices.end())
    p.devices.push_back(device);
}

void ExportReader::Finish() {
  std::vector<Process*> ranks;
  uint64_t host_only = 0;
  for (Process* p : order_) {
    if (p->gpu_rows || p->host_rows)
      ranks.push_back(p);
    else
      ++host_only;
  }
  if (host_only)
    Note("nsys.process_without_cuda", DiagSeverity::kNote,
         std::to_string(host_only) +
             " processes with NVTX ranges but no CUDA activity were not read as ranks");
  if (skipped_driver_)
    Note("nsys.driver_calls", DiagSeverity::kNote,
         std::to_string(skipped_driver_) +
             " CUDA driver calls that neither launch, wait nor allocate (cuKernelGetName, ...) "
             "were left out, as the PyTorch profiler leaves them out");
  if (skipped_nvtx_)
    Note("nsys.library_nvtx", DiagSeverity::kNote,
         std::to_string(skipped_nvtx_) +
             " NVTX ranges of library domains (CCCL, cuDNN, ...) were left out: only the default "
             "domain (PyTorch emit_nvtx, the user's ranges) and NCCL's are read");
  if (nccl_payloads_unreadable_)
    Note("nsys.nccl_payload_unreadable", DiagSeverity::kWarning,
         std::to_string(nccl_payloads_unreadable_) +
             " NCCL calls have a payload that is not the flat JSON object or schema layout nsys "
             "writes: it was not read, and those calls have no message size");
  if (nccl_calls_ > nccl_calls_sized_ + nccl_payloads_unreadable_)
    Note("nsys.nccl_payloads_missing", DiagSeverity::kNote,
         std::to_string(nccl_calls_ - nccl_calls_sized_ - nccl_payloads_unreadable_) + " of " +
             std::to_string(nccl_calls_) +
             " NCCL calls in the export have no payload (message size, communicator): export "
             "with `nsys export --type sqlite --include-json true` to have them");
  int file_rank = ranks.size() == 1 ? RankFromReportName(db_.file()) : -1;
  for (Process* p : ranks) {
    auto& b = p->builder;
    b.SetSchemaVersion("nsys export " + (schema_version_.empty() ? "?" : schema_version_));
    b.SetBaseTimeNs(epoch_ns_);
    for (const DeviceInfo& d : gpus_)
      if (std::find(p->devices.begin(), p->devices.end(), d.id) != p->devices.end()) b.AddDevice(d);
    // The rank: NCCL's own word, else the launcher's RANK when the report holds one process
    // (a report per rank), else the file name.
    const bool from_env = p->nccl_rank < 0 && ranks.size() == 1 && env_rank_ >= 0;
    if (p->nccl_rank >= 0)
      b.SetDistributed(static_cast<int>(p->nccl_rank), static_cast<int>(p->nccl_world), "nccl", "");
    else if (from_env)
      b.SetDistributed(static_cast<int>(env_rank_), static_cast<int>(env_world_), "", "");
    RankTrace t = b.Finish(file_rank);
    if (p->nccl_rank >= 0) t.rank_source = "NCCL NVTX payload (ncclCommInitRank)";
    if (from_env) t.rank_source = "nsys launch environment (RANK)";
    part_.quality.Merge(b.quality());
    part_.trace.ranks.push_back(std::move(t));
  }
}

}  // namespace commdx::ingest::nsys
