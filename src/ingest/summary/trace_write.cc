// A RankTrace as the summary holds it (docs/summary-format.md, "traces"): the rank's facts by
// name, its streams, collectives and steps as one array per column (summary_format.h), and its
// digest in place of its events (digest_codec.h). Only the names something still refers to are
// kept, renumbered in their order.
#include <algorithm>
#include <vector>

#include "ingest/summary/digest_codec.h"
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

// The names the rank still refers to once its events are gone: its collectives' and its
// digest's, and "" (index 0); sorted, so renumbering keeps their order.
std::vector<uint32_t> UsedNames(const RankTrace& t, const DigestCodec& codec) {
  std::vector<uint32_t> used{0};
  for (const Collective& c : t.collectives) {
    used.push_back(c.name);
    used.push_back(c.dtype);
  }
  codec.NameRefs(*t.derived, used);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  return used;
}

}  // namespace

Status WriteTrace(const RankTrace& t, JsonWriter& w) {
  const DigestCodec* codec = InstalledDigestCodec();
  if (!codec || !t.derived)
    return MakeError(ErrorCode::kInternal,
                     "a trace rank is summarised from its digest, and this one has none", {t.file});
  const std::vector<uint32_t> used = UsedNames(t, *codec);
  auto name = [&](uint32_t id) {
    return static_cast<uint32_t>(std::lower_bound(used.begin(), used.end(), id) - used.begin());
  };
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
  for (uint32_t id : used) w.String(id < t.names.size() ? t.names[id] : std::string());
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
  Table(w, "collectives", t.collectives, kCollectiveColumns, [&](const Collective& k, int64_t* c) {
    int64_t row[] = {k.start_ns,
                     k.end_ns,
                     k.issue_ns,
                     k.in_nelems,
                     k.out_nelems,
                     static_cast<int64_t>(k.bytes),
                     k.seq,
                     k.gpu_op >= 0,
                     k.pg,
                     k.group_size,
                     k.peer,
                     k.grid_x,
                     name(k.name),
                     name(k.dtype),
                     static_cast<int64_t>(k.type),
                     static_cast<int64_t>(k.family),
                     k.from_args,
                     k.launched};
    std::copy(std::begin(row), std::end(row), c);
  });
  Table(w, "steps", t.steps, kStepColumns, [](const Step& s, int64_t* c) {
    int64_t row[] = {s.number, s.cpu_start_ns, s.cpu_end_ns, s.start_ns, s.end_ns, s.cut};
    std::copy(std::begin(row), std::end(row), c);
  });
  w.Key("digest");
  codec->Write(*t.derived, name, w);
  w.EndObject();
  return Ok{};
}

}  // namespace commdx::ingest::summary
