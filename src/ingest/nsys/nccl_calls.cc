// NCCL's NVTX API ranges become what the PyTorch profiler's record_param_comms gives a Kineto
// trace: a CPU op with collective arguments around the launch, so that RankBuilder sizes the
// collective of the NCCL kernel it launches (or, with no kernel, as on one rank, makes the
// collective from the call itself). Communicator sizes and the process's rank come from the
// ncclCommInitRank* calls in the capture.
#include <unordered_map>

#include "base/str_format.h"
#include "base/text.h"
#include "ingest/nsys/export_reader.h"

namespace commdx::ingest::nsys {

LibraryRange LibraryRange::From(const Rows& r, int64_t domain, std::string_view name,
                                const PayloadSchemas& schemas) {
  LibraryRange l;
  l.start = r.Int(0);
  l.end = r.Int(1);
  l.global_tid = r.Int(2);
  l.domain = domain;
  l.name = std::string(name);
  if (!StartsWith(name, "nccl")) return l;
  if (!r.Null(7))
    l.payload_unreadable = !ParseNcclPayloadJson(r.Text(7), l.payload);
  else if (!r.Null(8))
    l.payload_unreadable = !schemas.Decode(r.Blob(8), l.payload);
  return l;
}

void ExportReader::AddNcclCalls(const std::vector<LibraryRange>& calls) {
  std::unordered_map<uint64_t, int64_t> comm_size;
  for (const LibraryRange& c : calls) {
    const NcclPayload& p = c.payload;
    if (ClassifyNcclCall(c.name).kind != NcclCallKind::kCommInit || !p.has_comm || p.nranks <= 0)
      continue;
    comm_size[p.comm] = p.nranks;
    Process& proc = ProcessOf(c.global_tid);
    if (p.rank >= 0 && p.rank < p.nranks && p.nranks > proc.nccl_world) {
      proc.nccl_rank = p.rank;
      proc.nccl_world = p.nranks;
    }
  }
  for (const LibraryRange& c : calls) {
    const NcclCallName kind = ClassifyNcclCall(c.name);
    if (kind.kind != NcclCallKind::kCollective) continue;
    ++nccl_calls_;
    if (c.payload_unreadable) ++nccl_payloads_unreadable_;
    const NcclPayload& p = c.payload;
    trace_build::CollArgs args;
    args.present = true;
    args.coll_name = kind.coll;
    std::string comm;
    if (p.has_comm) {
      comm = StrFormat("0x%016llx", static_cast<unsigned long long>(p.comm));
      args.pg_name = comm;
      args.pg_desc = "NCCL communicator";
      if (auto it = comm_size.find(p.comm); it != comm_size.end()) args.group_size = it->second;
    }
    if (p.bytes >= 0) {
      args.rank_bytes = p.bytes;
      ++nccl_calls_sized_;
    }
    if (kind.coll == "send") args.dst_rank = p.peer;
    if (kind.coll == "recv") args.src_rank = p.peer;
    trace_build::RawEvent ev;
    ev.ph = 'X';
    ev.cat = trace_build::EventCat::kCpuOp;
    ev.ts_ns = c.start;
    ev.dur_ns = static_cast<int64_t>(static_cast<uint64_t>(c.end) - static_cast<uint64_t>(c.start));
    ev.has_ts = ev.has_dur = true;
    Process& proc = ProcessOf(c.global_tid);
    ev.tid = proc.Tid(c.global_tid);
    ev.pid = proc.pid_text;
    ev.name = RawName(c.name);
    ev.coll = &args;
    proc.builder.Add(ev);
  }
}

}  // namespace commdx::ingest::nsys
