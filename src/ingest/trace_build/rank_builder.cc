#include "ingest/trace_build/rank_builder.h"

#include <algorithm>
#include <cstring>

#include "base/text.h"
#include "ingest/trace_build/names.h"
#include "ingest/trace_build/steps.h"
#include "ingest/trace_build/unescape.h"  // JsonUnescape

namespace commdx::ingest::trace_build {

RankBuilder::RankBuilder(std::string file) { trace_.file = std::move(file); }

void RankBuilder::SetDistributed(int rank, int world, std::string backend,
                                 std::string nccl_version) {
  dist_rank_ = rank;
  trace_.world_size = world;
  trace_.backend = std::move(backend);
  trace_.nccl_version = std::move(nccl_version);
}

void RankBuilder::Note(QualityId id, DiagSeverity sev, std::string message, uint64_t offset) {
  SourceLoc loc{trace_.file};
  loc.offset = offset;
  loc.has_offset = true;
  quality_.Add(id, sev, message, loc);
}

void RankBuilder::Checkpoint() {
  checkpoint_ = {
      trace_.gpu_ops.size(), trace_.host_ops.size(), trace_.runtime.size(),         flows_.size(),
      colls_.size(),         ext_args_.size(),       trace_.gpu_annotations.size(), trace_.events};
  quality_checkpoint_ = quality_;
}

void RankBuilder::Rollback() {
  trace_.gpu_ops.resize(checkpoint_.gpu);
  trace_.host_ops.resize(checkpoint_.host);
  trace_.runtime.resize(checkpoint_.runtime);
  gpu_ids_.resize(checkpoint_.gpu);
  runtime_correlation_.resize(checkpoint_.runtime);
  flows_.resize(checkpoint_.flows);
  colls_.resize(checkpoint_.colls);
  ext_args_.resize(checkpoint_.ext_args);
  trace_.gpu_annotations.resize(checkpoint_.gpu_annotations);
  trace_.events = checkpoint_.events;
  quality_ = quality_checkpoint_;
}

uint32_t RankBuilder::Thread(std::string_view tid) {
  // Consecutive events are mostly on the same thread.
  if (last_thread_ >= 0 && tid == trace_.threads[last_thread_].id) return last_thread_;
  uint32_t id = LookupThread(tid);
  last_thread_ = static_cast<int32_t>(id);
  return id;
}

uint32_t RankBuilder::LookupThread(std::string_view tid) {
  auto it = threads_.find(std::string(tid));
  if (it != threads_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(trace_.threads.size());
  trace_.threads.push_back({std::string(tid), "", 0});
  threads_.emplace(std::string(tid), id);
  return id;
}

const RankBuilder::NameInfo& RankBuilder::LearnInfo(uint32_t id) {
  if (id >= name_info_.size()) name_info_.resize(id + 1);
  NameInfo& n = name_info_[id];
  if (!n.known) {
    std::string_view name = names_.Lookup(id);
    n.known = true;
    n.comm = IsCommKernelName(name);
    n.host_flags = HostFlags(name);
    n.runtime_flags = RuntimeFlags(name);
    n.copy = CopyKindFromName(name);
  }
  return n;
}

void RankBuilder::Reserve(uint64_t json_bytes) {
  // Per byte of a 2xH200 DDP trace: a GPU op per ~2.6 KB, a CPU op per ~530 B, a runtime call
  // per ~1.8 KB; denser traces have up to ~2x that (HTA's V100 torchrec trace: a GPU op per
  // 1.87 KB), and outgrowing the reserve copies the array. Reserved memory that is never
  // written is never resident, so the room is twice that.
  ReserveCounts(json_bytes / 1000, json_bytes / 200, json_bytes / 700);
}

void RankBuilder::ReserveCounts(uint64_t gpu_ops, uint64_t host_ops, uint64_t runtime) {
  trace_.gpu_ops.reserve(gpu_ops);
  gpu_ids_.reserve(gpu_ops);
  trace_.host_ops.reserve(host_ops);
  trace_.runtime.reserve(runtime);
  runtime_correlation_.reserve(runtime);
  // The binary's operator new puts these blocks on huge pages (cli/main_operator_new.cc).
}

namespace {

// Gives back a vector's room past its size when the room is a quarter or more of it: the copy
// costs a pass over the events, the room would stay resident for as long as the rank is kept.
template <typename T>
void Fit(std::vector<T>& v) {
  if (v.capacity() - v.size() >= v.size() / 4 + 1024) v.shrink_to_fit();
}

}  // namespace

void RankBuilder::FitEventArrays() {
  // Reserve() sizes the arrays for the densest traces; most ranks fill a third of that, and a
  // job's ranks are all kept until the cross-rank analyses are done (1,024 ranks of a 5.6 MB
  // DDP trace: 1.2 MB of room per rank against 0.7 MB of events). Host ops are packed instead.
  Fit(trace_.gpu_ops);
  Fit(trace_.runtime);
  Fit(trace_.gpu_annotations);
  Fit(trace_.collectives);
}

void RankBuilder::Add(const RawEvent& ev) {
  ++trace_.events;
  switch (ev.ph) {
    case 'X':
      AddComplete(ev);
      return;
    case 'M':
      AddMetadata(ev);
      return;
    case 's':
    case 'f':
      if (ev.flow_id >= 0 && ev.has_ts && ev.cat == EventCat::kFlow)
        flows_.push_back({ev.flow_id, ev.ts_ns, ev.ph == 's'});
      return;
    default:
      if (IsUnusedPhase(ev.ph)) return;  // instants, counters, async and object events
      Note("kineto.unknown_phase", DiagSeverity::kNote,
           "events with an unknown or missing \"ph\" were skipped", ev.offset);
  }
}

namespace {

// ~3.2 years: no profiled event lasts that long. With the check below, ts + dur fits int64 ns
// for every ts the parser accepts.
constexpr int64_t kMaxDurNs = 100'000'000'000'000'000;

bool EndInRange(const RawEvent& ev) {
  return ev.dur_ns <= kMaxDurNs && ev.ts_ns <= INT64_MAX - kMaxDurNs;
}

}  // namespace

void RankBuilder::AddComplete(const RawEvent& ev) {
  switch (ev.cat) {
    case EventCat::kGpuUserAnnotation:
      if (ev.has_ts && ev.has_dur && !ev.bad_ts && !ev.bad_dur && ev.dur_ns >= 0 &&
          EndInRange(ev)) {
        HostOp a;
        a.start_ns = ev.ts_ns;
        a.end_ns = ev.ts_ns + ev.dur_ns;
        a.name = names_.InternRaw(ev.name);
        a.kind = HostOpKind::kUserAnnotation;
        a.flags = Info(a.name).host_flags;
        trace_.gpu_annotations.push_back(a);
      }
      return;
    case EventCat::kPythonFunction:
    case EventCat::kIgnored:
    case EventCat::kFlow:
      return;
    case EventCat::kUnknown:
      Note("kineto.unknown_category", DiagSeverity::kNote,
           "events of an unknown category (first: \"" + SanitizeUtf8(ev.cat_text) +
               "\") were skipped",
           ev.offset);
      return;
    case EventCat::kOtherDevice:
      Note("kineto.other_device_activity", DiagSeverity::kWarning,
           "activity commdx does not model was seen and not analysed (first category: \"" +
               SanitizeUtf8(ev.cat_text) +
               "\"; MTIA command-processor events, CUPTI profiler ranges, other devices): "
               "findings cover only the CUDA/ROCm GPU work of this trace",
           ev.offset);
      return;
    case EventCat::kNone:
      Note("kineto.no_category", DiagSeverity::kNote,
           "complete events without \"cat\" were skipped", ev.offset);
      return;
    default:
      break;
  }
  if (!ev.has_ts || ev.bad_ts) {
    Note("kineto.missing_ts", DiagSeverity::kWarning,
         ev.bad_ts ? "events whose \"ts\" is not a number were skipped"
                   : "events without \"ts\" were skipped",
         ev.offset);
    return;
  }
  if (!ev.has_dur || ev.bad_dur) {
    Note("kineto.missing_dur", DiagSeverity::kWarning,
         ev.bad_dur ? "complete events whose \"dur\" is not a number (NaN, text) were skipped"
                    : "complete events without \"dur\" were skipped",
         ev.offset);
    return;
  }
  if (ev.dur_ns < 0) {
    Note("kineto.negative_dur", DiagSeverity::kWarning,
         "events with a negative duration were skipped", ev.offset);
    return;
  }
  if (!EndInRange(ev)) {
    Note("kineto.time_out_of_range", DiagSeverity::kWarning,
         "events lasting over 3 years or ending past the year 2262 were skipped", ev.offset);
    return;
  }
  switch (ev.cat) {
    case EventCat::kKernel:
    case EventCat::kMemcpy:
    case EventCat::kMemset:
    case EventCat::kCudaSync:
      AddGpu(ev);
      return;
    case EventCat::kRuntime:
    case EventCat::kDriver:
      AddRuntime(ev);
      return;
    case EventCat::kCpuOp:
    case EventCat::kUserAnnotation:
      AddHost(ev);
      return;
    default:
      return;
  }
}

RankBuilder::PendingColl RankBuilder::MakePending(const RawEvent& ev) {
  PendingColl p;
  p.external_id = ev.external_id;
  p.start_ns = ev.ts_ns;
  p.end_ns = ev.ts_ns + ev.dur_ns;
  if (!ev.coll || !ev.coll->present) return p;
  const CollArgs& a = *ev.coll;
  p.coll_name = names_.Intern(a.coll_name);
  p.dtype = names_.Intern(a.dtype);
  p.pg_name = names_.Intern(a.pg_name);
  p.pg_desc = names_.Intern(a.pg_desc);
  p.pg_ranks = names_.Intern(a.pg_ranks);
  p.in_split = names_.Intern(a.in_split);
  p.out_split = names_.Intern(a.out_split);
  p.in_nelems = a.in_nelems;
  p.out_nelems = a.out_nelems;
  p.group_size = a.group_size;
  p.seq = a.seq;
  p.src = a.src_rank;
  p.dst = a.dst_rank;
  p.rank_bytes = a.rank_bytes;
  return p;
}

void RankBuilder::AddGpu(const RawEvent& ev) {
  if (ev.correlation < 0) missing_correlation_ = true;
  want_flows_ = missing_correlation_;
  GpuOp op;
  op.start_ns = ev.ts_ns;
  op.end_ns = ev.ts_ns + ev.dur_ns;
  op.name = names_.InternRaw(ev.name);
  op.grid_x = static_cast<int32_t>(ev.grid_x);
  int64_t dev = ev.device >= 0 ? ev.device : ParseLooseInt(ev.pid);
  op.device = static_cast<int16_t>(dev >= 0 && dev < 32768 ? dev : -1);
  op.stream = static_cast<int32_t>(ev.stream >= 0 ? ev.stream : ParseLooseInt(ev.tid));
  if (ev.bytes > 0) op.bytes = static_cast<uint64_t>(ev.bytes);
  switch (ev.cat) {
    case EventCat::kMemcpy:
      op.kind = GpuOpKind::kMemcpy;
      op.copy = Info(op.name).copy;
      break;
    case EventCat::kMemset:
      op.kind = GpuOpKind::kMemset;
      break;
    case EventCat::kCudaSync:
      op.kind = GpuOpKind::kSync;
      break;
    default:
      op.kind = ((ev.coll && ev.coll->present) || Info(op.name).comm) ? GpuOpKind::kCommKernel
                                                                      : GpuOpKind::kKernel;
  }
  if (op.kind == GpuOpKind::kCommKernel) {
    PendingColl p = MakePending(ev);
    p.gpu_op = static_cast<int32_t>(trace_.gpu_ops.size());
    op.collective = static_cast<int32_t>(colls_.size());  // until SortAndLink
    colls_.push_back(p);
  }
  trace_.gpu_ops.push_back(op);
  gpu_ids_.push_back({ev.correlation, ev.external_id});
  trace_.has_gpu = true;
}

void RankBuilder::AddRuntime(const RawEvent& ev) {
  if (ev.correlation < 0) missing_correlation_ = want_flows_ = true;
  RuntimeCall rc;
  rc.start_ns = ev.ts_ns;
  rc.end_ns = ev.ts_ns + ev.dur_ns;
  rc.name = names_.InternRaw(ev.name);
  rc.thread = Thread(ev.tid);
  rc.flags = Info(rc.name).runtime_flags;
  ++trace_.threads[rc.thread].ops;
  trace_.runtime.push_back(rc);
  runtime_correlation_.push_back(ev.correlation);
}

void RankBuilder::AddHost(const RawEvent& ev) {
  HostOp op;
  op.start_ns = ev.ts_ns;
  op.end_ns = ev.ts_ns + ev.dur_ns;
  op.name = names_.InternRaw(ev.name);
  op.thread = Thread(ev.tid);
  op.kind = ev.cat == EventCat::kUserAnnotation ? HostOpKind::kUserAnnotation : HostOpKind::kCpuOp;
  op.flags = Info(op.name).host_flags;
  if (ev.coll && ev.coll->present) {
    op.flags |= kHostFlagCollective;
    PendingColl p = MakePending(ev);
    p.thread = op.thread;
    ext_args_.push_back(p);
  }
  ThreadInfo& thread = trace_.threads[op.thread];
  ++thread.ops;
  if (!ev.pid.empty() && ev.pid == ev.tid) thread.pid_is_tid = true;
  trace_.host_ops.push_back(op);
}

void RankBuilder::AddMetadata(const RawEvent& ev) {
  if (ev.name == kThreadNameMeta && !ev.tid.empty() && !ev.meta_name.empty()) {
    // Escapes are rare in thread names: unescaped only where there is one.
    std::string unescaped;
    std::string_view name = ev.meta_name;
    if (name.find('\\') != std::string_view::npos) name = unescaped = JsonUnescape(name);
    trace_.threads[Thread(ev.tid)].name = SanitizeUtf8(name);
  }
}

RankTrace RankBuilder::Finish(int rank_from_name) {
  if (dist_rank_ >= 0) {
    trace_.rank = dist_rank_;
    trace_.rank_source = "distributedInfo";
  } else if (rank_from_name >= 0) {
    trace_.rank = rank_from_name;
    trace_.rank_source = "file name";
  } else {
    trace_.rank_source = "unknown";
  }
  ApplyBaseTime();
  DropFarOut();
  SortAndLink();
  // Other devices' activity (MTIA) has its own note (kineto.other_device_activity).
  if (trace_.gpu_ops.empty() && !trace_.host_ops.empty() &&
      quality_.Count("kineto.other_device_activity") == 0) {
    SourceLoc loc{trace_.file};
    quality_.Add("kineto.no_gpu_activity", DiagSeverity::kWarning,
                 "the trace holds no GPU activity (no kernels, copies or sets; " +
                     std::to_string(trace_.host_ops.size()) +
                     " CPU ops): GPU time, communication and the step breakdown cannot be "
                     "measured. Profile with activities=[ProfilerActivity.CPU, "
                     "ProfilerActivity.CUDA] on the GPU job's processes",
                 loc);
  }
  BuildCollectives();
  BuildStreams();
  BuildProcessGroups();
  trace_.names = names_.Take();
  DetectSteps(trace_, quality_);
  MarkCutShort(trace_, cut_, quality_);
  colls_.clear();
  ext_args_.clear();
  flows_.clear();
  gpu_ids_ = {};
  runtime_correlation_ = {};
  FitEventArrays();
  trace_.PackHostOps();
  return std::move(trace_);
}

int RankFromFileName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string base = ToLower(slash == path.npos ? path : path.substr(slash + 1));
  // "...rank3...", "rank_3", "rank-03": the last "rank" followed by digits.
  int found = -1;
  for (size_t at = base.find("rank"); at != std::string::npos; at = base.find("rank", at + 1)) {
    size_t i = at + 4;
    if (i < base.size() && (base[i] == '_' || base[i] == '-')) ++i;
    std::string_view rest = std::string_view(base).substr(i);
    if (auto v = ConsumeInt(rest); v && *v >= 0 && *v < (1 << 24)) found = static_cast<int>(*v);
  }
  if (found >= 0) return found;
  // "trace_3.json", "trace-3.json.gz" (not "host_12345.1700000000.pt.trace.json": pids).
  std::string_view s = base;
  if (EndsWith(s, ".gz")) s.remove_suffix(3);
  if (!EndsWith(s, ".json") || EndsWith(s, ".pt.trace.json")) return -1;
  s.remove_suffix(5);
  size_t sep = s.find_last_of("_-");
  if (sep == s.npos || sep + 1 >= s.size() || s.size() - sep - 1 > 5) return -1;
  auto v = ParseInt(s.substr(sep + 1));
  return v ? static_cast<int>(*v) : -1;
}

}  // namespace commdx::ingest::trace_build
