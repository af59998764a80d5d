// A RankTrace as the summary holds it (docs/summary-format.md, "traces"): the rank's facts by
// name, and each event table as one array per column (summary_format.h), sorted times and
// increasing ids as differences from the row before (small, alike numbers compress well).
#include <vector>

#include "ingest/summary/summary_format.h"

namespace commdx::ingest::summary {

namespace {

// Writes `key`: {column: [cells...], ...}; cells(row, out) fills a row's n cells.
template <class T, size_t n, class Cells>
void Table(JsonWriter& w, const char* key, const std::vector<T>& rows, const Column (&cols)[n],
           Cells cells) {
  std::vector<int64_t> all(rows.size() * n);
  for (size_t i = 0; i < rows.size(); ++i) cells(rows[i], &all[i * n]);
  w.Key(key).BeginObject();
  for (size_t c = 0; c < n; ++c) {
    w.Key(cols[c].name).BeginArray();
    uint64_t prev = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto v = static_cast<uint64_t>(all[i * n + c]);
      w.Int(cols[c].delta ? static_cast<int64_t>(v - prev) : static_cast<int64_t>(v));
      prev = v;
    }
    w.EndArray();
  }
  w.EndObject();
}

void HostOps(const char* key, const std::vector<HostOp>& ops, JsonWriter& w) {
  Table(w, key, ops, kHostOpColumns, [](const HostOp& o, int64_t* c) {
    int64_t row[] = {o.start_ns, o.end_ns - o.start_ns,        o.name,
                     o.thread,   static_cast<int64_t>(o.kind), o.flags};
    std::copy(std::begin(row), std::end(row), c);
  });
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
  w.Key("process_groups");
  Groups(t.process_groups, w);
  Table(w, "streams", t.streams, kStreamColumns, [](const StreamInfo& s, int64_t* c) {
    int64_t row[] = {s.device, s.stream, s.ops, s.busy_ns, s.comm_ns, s.is_comm};
    std::copy(std::begin(row), std::end(row), c);
  });
  Table(w, "gpu_ops", t.gpu_ops, kGpuOpColumns, [](const GpuOp& o, int64_t* c) {
    int64_t row[] = {o.start_ns,
                     o.end_ns - o.start_ns,
                     static_cast<int64_t>(o.bytes),
                     o.name,
                     o.stream,
                     o.collective,
                     o.launch,
                     o.grid_x,
                     o.device,
                     static_cast<int64_t>(o.kind),
                     static_cast<int64_t>(o.copy)};
    std::copy(std::begin(row), std::end(row), c);
  });
  HostOps("host_ops", t.HostOps(), w);
  HostOps("gpu_annotations", t.gpu_annotations, w);
  Table(w, "runtime", t.runtime, kRuntimeColumns, [](const RuntimeCall& r, int64_t* c) {
    int64_t row[] = {r.start_ns, r.end_ns - r.start_ns, r.name, r.thread, r.gpu_op, r.flags};
    std::copy(std::begin(row), std::end(row), c);
  });
  Table(w, "collectives", t.collectives, kCollectiveColumns, [](const Collective& k, int64_t* c) {
    int64_t row[] = {k.start_ns,   k.end_ns,     k.issue_ns,
                     k.in_nelems,  k.out_nelems, static_cast<int64_t>(k.bytes),
                     k.seq,        k.gpu_op,     k.pg,
                     k.group_size, k.peer,       k.grid_x,
                     k.name,       k.dtype,      static_cast<int64_t>(k.type),
                     k.from_args,  k.launched};
    std::copy(std::begin(row), std::end(row), c);
  });
  Table(w, "steps", t.steps, kStepColumns, [](const Step& s, int64_t* c) {
    int64_t row[] = {s.number, s.cpu_start_ns, s.cpu_end_ns, s.start_ns, s.end_ns, s.cut};
    std::copy(std::begin(row), std::end(row), c);
  });
  w.EndObject();
}

}  // namespace commdx::ingest::summary
