// A RankTrace as the summary holds it (docs/summary-format.md, "traces"): the rank's facts by
// name, and each event table as rows of integers in a fixed column order, times of sorted tables
// as the distance from the previous row's start (small numbers compress well).
#include "ingest/summary/summary_format.h"

namespace commdx::ingest::summary {

namespace {

void Row(JsonWriter& w, std::initializer_list<int64_t> cells) {
  w.BeginArray();
  for (int64_t c : cells) w.Int(c);
  w.EndArray();
}

// host_ops and gpu_annotations: [start - previous start, end - start, external_id, name, thread,
// kind, flags].
void HostOps(const std::vector<HostOp>& ops, JsonWriter& w) {
  w.BeginArray();
  int64_t prev = 0;
  for (const auto& o : ops) {
    Row(w, {o.start_ns - prev, o.end_ns - o.start_ns, o.external_id, o.name, o.thread,
            static_cast<int64_t>(o.kind), o.flags});
    prev = o.start_ns;
  }
  w.EndArray();
}

void GpuOps(const std::vector<GpuOp>& ops, JsonWriter& w) {
  w.BeginArray();
  int64_t prev = 0;
  for (const auto& o : ops) {
    Row(w, {o.start_ns - prev, o.end_ns - o.start_ns, o.correlation, o.external_id,
            static_cast<int64_t>(o.bytes), o.name, o.stream, o.collective, o.launch, o.grid_x,
            o.device, static_cast<int64_t>(o.kind), static_cast<int64_t>(o.copy)});
    prev = o.start_ns;
  }
  w.EndArray();
}

void Runtime(const std::vector<RuntimeCall>& calls, JsonWriter& w) {
  w.BeginArray();
  int64_t prev = 0;
  for (const auto& c : calls) {
    Row(w, {c.start_ns - prev, c.end_ns - c.start_ns, c.correlation, c.external_id, c.name,
            c.thread, c.gpu_op, c.flags});
    prev = c.start_ns;
  }
  w.EndArray();
}

void Collectives(const std::vector<Collective>& cs, JsonWriter& w) {
  w.BeginArray();
  for (const auto& c : cs)
    Row(w, {c.start_ns, c.end_ns, c.issue_ns, c.in_nelems, c.out_nelems,
            static_cast<int64_t>(c.bytes), c.seq, c.gpu_op, c.pg, c.group_size, c.peer, c.grid_x,
            c.name, c.dtype, static_cast<int64_t>(c.type), c.from_args, c.launched});
  w.EndArray();
}

void Groups(const std::vector<ProcessGroupInfo>& groups, JsonWriter& w) {
  w.BeginArray();
  for (const auto& g : groups) {
    w.BeginObject();
    w.Key("name").String(g.name);
    w.Key("desc").String(g.desc);
    w.Key("ranks").BeginArray();
    for (int r : g.ranks) w.Int(r);
    w.EndArray();
    w.Key("size").Int(g.size);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteTrace(const RankTrace& t, JsonWriter& w) {
  w.BeginObject();
  w.Key("file").String(t.file);
  w.Key("rank").Int(t.rank);
  w.Key("rank_source").String(t.rank_source);
  w.Key("world_size").Int(t.world_size);
  w.Key("backend").String(t.backend);
  w.Key("nccl_version").String(t.nccl_version);
  w.Key("schema_version").String(t.schema_version);
  w.Key("step_source").Int(static_cast<int64_t>(t.step_source));
  w.Key("step_name").String(t.step_name);
  w.Key("main_thread").Int(t.main_thread);
  w.Key("base_time_ns").Int(t.base_time_ns);
  w.Key("first_ns").Int(t.first_ns);
  w.Key("last_ns").Int(t.last_ns);
  w.Key("json_bytes").Uint(t.json_bytes);
  w.Key("events").Uint(t.events);
  w.Key("has_gpu").Bool(t.has_gpu);
  w.Key("devices").BeginArray();
  for (const auto& d : t.devices) {
    w.BeginObject();
    w.Key("id").Int(d.id);
    w.Key("name").String(d.name);
    w.Key("total_memory_bytes").Int(d.total_memory_bytes);
    w.Key("sm_count").Int(d.sm_count);
    w.Key("compute_major").Int(d.compute_major);
    w.Key("compute_minor").Int(d.compute_minor);
    w.EndObject();
  }
  w.EndArray();
  w.Key("names").BeginArray();
  for (const auto& n : t.names) w.String(n);
  w.EndArray();
  w.Key("threads").BeginArray();
  for (const auto& th : t.threads) {
    w.BeginObject();
    w.Key("id").String(th.id);
    w.Key("name").String(th.name);
    w.Key("ops").Uint(th.ops);
    w.Key("pid_is_tid").Bool(th.pid_is_tid);
    w.EndObject();
  }
  w.EndArray();
  w.Key("streams").BeginArray();
  for (const auto& s : t.streams)
    Row(w, {s.device, s.stream, s.ops, s.busy_ns, s.comm_ns, s.is_comm});
  w.EndArray();
  w.Key("gpu_ops");
  GpuOps(t.gpu_ops, w);
  w.Key("host_ops");
  HostOps(t.host_ops, w);
  w.Key("gpu_annotations");
  HostOps(t.gpu_annotations, w);
  w.Key("runtime");
  Runtime(t.runtime, w);
  w.Key("collectives");
  Collectives(t.collectives, w);
  w.Key("process_groups");
  Groups(t.process_groups, w);
  w.Key("steps").BeginArray();
  for (const auto& s : t.steps)
    Row(w, {s.number, s.cpu_start_ns, s.cpu_end_ns, s.start_ns, s.end_ns, s.cut});
  w.EndArray();
  w.EndObject();
}

}  // namespace commdx::ingest::summary
