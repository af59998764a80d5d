// The host side of an export: CUDA runtime and driver calls, NVTX ranges and thread names, each
// row one RawEvent of the category the PyTorch profiler gives the same thing.
#include <string>
#include <unordered_map>
#include <vector>

#include "base/text.h"
#include "ingest/nsys/export_reader.h"
#include "ingest/nsys/nsys_names.h"
#include "ingest/trace_build/names.h"

namespace commdx::ingest::nsys {

namespace {

using trace_build::EventCat;
using trace_build::RawEvent;

constexpr int64_t kDriverClass = 1;        // ENUM_NSYS_EVENT_CLASS: TRACE_PROCESS_EVENT_CUDA_DRIVER
constexpr int64_t kNvtxPushPop = 59;       // ENUM_NSYS_EVENT_TYPE: NvtxPushPopRange
constexpr int64_t kNvtxStartEnd = 60;      // NvtxStartEndRange
constexpr int64_t kNvtxDomainCreate = 75;  // NvtxDomainCreate: `text` names domainId

}  // namespace

Status ExportReader::ReadRuntime() {
  if (!Has("CUPTI_ACTIVITY_KIND_RUNTIME")) {
    Note("nsys.no_runtime", DiagSeverity::kWarning,
         "the export has no CUPTI_ACTIVITY_KIND_RUNTIME table: launches and CPU-side syncs are "
         "unknown (profile with `nsys profile -t cuda`)");
    return Ok{};
  }
  std::string sql =
      "SELECT start, end, eventClass, globalTid, coalesce(correlationId, -1), nameId "
      "FROM CUPTI_ACTIVITY_KIND_RUNTIME";
  int64_t last_id = -1;
  std::string_view name;
  uint8_t flags = 0;
  return db_.EachRow(sql, [&](const Rows& r) {
    int64_t id = r.Int(5);
    if (id != last_id) {
      name = RawName(RuntimeName(String(last_id = id)));
      flags = trace_build::RuntimeFlags(name);
    }
    bool driver = r.Int(2) == kDriverClass;
    // The driver calls PyTorch's profiler records are the launches; nsys traces every one. Those
    // that wait or allocate (cuMemAlloc, cuMemCreate...) are kept too: they block the host.
    if (driver && flags == 0) return void(++skipped_driver_);
    RawEvent ev = TimedEvent(r, driver ? EventCat::kDriver : EventCat::kRuntime);
    Process& p = ProcessOf(r.Int(3));
    ev.tid = p.Tid(r.Int(3));
    ev.pid = p.pid_text;
    ev.correlation = r.Int(4);
    ev.name = name;
    ++p.host_rows;
    p.builder.Add(ev);
  });
}

Status ExportReader::ReadNvtx() {
  if (!Has("NVTX_EVENTS")) return Ok{};
  COMMDX_ASSIGN_OR_RETURN(auto cols, db_.Columns("NVTX_EVENTS"));
  COMMDX_TRY(schemas_.Load(db_, tables_));
  // emit_nvtx and the user's ranges live in the default domain (domainId 0 or NULL); libraries
  // create their own (CCCL, cuDNN, NCCL's "NCCL"), each named by its domain-create row. Marks (no
  // duration) are not ranges; a range without an end was still open when the capture stopped.
  // One pass: library ranges are kept aside (few: one per NCCL call) until every domain is
  // named, and counted here rather than by a second scan (a filtered count(*) of 2.65 M ranges
  // cost 0.21 s, 11% of reading the export).
  const std::string json = cols.count("jsonText") ? "jsonText" : "NULL";
  const std::string blob = cols.count("binaryData") ? "binaryData" : "NULL";
  const std::string sql =
      "SELECT start, end, globalTid, text, textId, coalesce(domainId, 0), "
      "eventType, " +
      json + ", " + blob + " FROM NVTX_EVENTS WHERE eventType IN (" + std::to_string(kNvtxPushPop) +
      ", " + std::to_string(kNvtxStartEnd) + ", " + std::to_string(kNvtxDomainCreate) + ")";
  std::unordered_map<int64_t, std::string> domains;
  std::vector<LibraryRange> library;
  COMMDX_TRY(db_.EachRow(sql, [&](const Rows& r) {
    std::string_view text = r.Null(3) ? String(r.Int(4)) : r.Text(3);
    const int64_t domain = r.Int(5);
    if (r.Int(6) == kNvtxDomainCreate) return void(domains[domain] = std::string(text));
    if (r.Null(1)) return;  // still open
    if (domain != 0) return library.push_back(LibraryRange::From(r, domain, text, schemas_));
    std::string_view base = NvtxName(text);
    RawEvent ev =
        TimedEvent(r, Contains(base, "::") ? EventCat::kCpuOp : EventCat::kUserAnnotation);
    Process& p = ProcessOf(r.Int(2));
    ev.tid = p.Tid(r.Int(2));
    ev.pid = p.pid_text;
    ev.name = RawName(base);  // valid until the builder has interned it
    p.builder.Add(ev);
  }));
  std::erase_if(library, [&](const LibraryRange& l) {
    auto it = domains.find(l.domain);
    bool nccl = it != domains.end() && it->second == "NCCL";
    if (!nccl) ++skipped_nvtx_;
    return !nccl;
  });
  AddNcclCalls(library);
  return Ok{};
}

Status ExportReader::ReadThreadNames() {
  if (!Has("ThreadNames")) return Ok{};
  return db_.EachRow("SELECT globalTid, nameId FROM ThreadNames", [&](const Rows& r) {
    uint64_t key = static_cast<uint64_t>(r.Int(0)) >> 24;
    auto it = procs_.find(key);
    if (it == procs_.end()) return;
    Process& p = *it->second;
    if (p.tids.find(r.Int(0)) == p.tids.end()) return;  // a thread with nothing traced
    RawEvent ev;
    ev.ph = 'M';
    ev.name = "thread_name";
    ev.tid = p.Tid(r.Int(0));
    std::string_view n = String(r.Int(1));
    ev.meta_name = RawName(n);
    p.builder.Add(ev);
  });
}

}  // namespace commdx::ingest::nsys
