// The GPU side of an export: kernels, copies, sets and GPU-side syncs, each row one RawEvent of
// the category the PyTorch profiler gives the same activity.
#include <string>

#include "ingest/nsys/export_reader.h"
#include "ingest/nsys/nsys_names.h"

namespace commdx::ingest::nsys {

namespace {

using trace_build::EventCat;
using trace_build::RawEvent;

// The columns every GPU activity table shares, selected first in this order.
// NULLs are turned into -1 by SQLite (cheaper than asking each column's type here).
constexpr const char* kGpuColumns =
    "start, end, deviceId, streamId, coalesce(correlationId, -1), globalPid";

// Fills the shared columns of a GPU row (ns already: nsys times are integer ns).
RawEvent GpuEvent(const Rows& r, EventCat cat) {
  RawEvent ev = TimedEvent(r, cat);
  ev.device = r.Int(2);
  // Context-wide syncs have streamId 0xFFFFFFFF: no stream.
  ev.stream = r.Int(3) == 0xFFFFFFFFll ? -1 : r.Int(3);
  ev.correlation = r.Int(4);
  return ev;
}

}  // namespace

Status ExportReader::ReadKernels() {
  if (!Has("CUPTI_ACTIVITY_KIND_KERNEL")) {
    Note("nsys.no_kernels", DiagSeverity::kWarning,
         "the export has no CUPTI_ACTIVITY_KIND_KERNEL table: no GPU kernels were captured "
         "(profile with `nsys profile -t cuda`)");
    return Ok{};
  }
  std::string sql = std::string("SELECT ") + kGpuColumns +
                    ", demangledName, gridX FROM CUPTI_ACTIVITY_KIND_KERNEL";
  int64_t last_name = -1;
  std::string_view name;
  return db_.EachRow(sql, [&](const Rows& r) {
    RawEvent ev = GpuEvent(r, EventCat::kKernel);
    Process& p = ProcessOf(r.Int(5));
    int64_t id = r.Int(6);
    if (id != last_name) name = RawName(String(last_name = id));
    ev.name = name;
    ev.grid_x = r.Int(7);
    AddDevice(p, ev.device);
    ++p.gpu_rows;
    p.builder.Add(ev);
  });
}

Status ExportReader::ReadCopies() {
  if (!Has("CUPTI_ACTIVITY_KIND_MEMCPY")) return Ok{};
  std::string sql = std::string("SELECT ") + kGpuColumns +
                    ", bytes, copyKind, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY";
  std::string name;
  return db_.EachRow(sql, [&](const Rows& r) {
    RawEvent ev = GpuEvent(r, EventCat::kMemcpy);
    Process& p = ProcessOf(r.Int(5));
    ev.bytes = r.Int(6);
    name = MemcpyName(r.Int(7), r.Null(8) ? 7 : r.Int(8), r.Null(9) ? 7 : r.Int(9));
    ev.name = name;
    AddDevice(p, ev.device);
    ++p.gpu_rows;
    p.builder.Add(ev);
  });
}

Status ExportReader::ReadSets() {
  if (!Has("CUPTI_ACTIVITY_KIND_MEMSET")) return Ok{};
  std::string sql =
      std::string("SELECT ") + kGpuColumns + ", bytes, memKind FROM CUPTI_ACTIVITY_KIND_MEMSET";
  std::string name;
  return db_.EachRow(sql, [&](const Rows& r) {
    RawEvent ev = GpuEvent(r, EventCat::kMemset);
    Process& p = ProcessOf(r.Int(5));
    ev.bytes = r.Int(6);
    name = MemsetName(r.Null(7) ? 7 : r.Int(7));
    ev.name = name;
    AddDevice(p, ev.device);
    ++p.gpu_rows;
    p.builder.Add(ev);
  });
}

Status ExportReader::ReadSyncs() {
  if (!Has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) return Ok{};
  std::string sql =
      std::string("SELECT ") + kGpuColumns + ", syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  return db_.EachRow(sql, [&](const Rows& r) {
    RawEvent ev = GpuEvent(r, EventCat::kCudaSync);
    Process& p = ProcessOf(r.Int(5));
    ev.name = SyncName(r.Int(6));
    ++p.gpu_rows;
    p.builder.Add(ev);
  });
}

}  // namespace commdx::ingest::nsys
