// Reads a trace object of a summary back into the RankTrace WriteTrace wrote it from
// (docs/summary-format.md, "traces"): a rank whose events are gone and whose digest stands for
// them, as a rank digested where it was read. Every index one table holds into another is
// checked, and every enum code, so a summary cut or edited by hand is an error, never an index
// out of range in the analyses.
#include <vector>

#include "ingest/summary/digest_codec.h"
#include "ingest/summary/summary_format.h"
#include "ingest/summary/summary_read.h"

namespace commdx::ingest::summary {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Ranks, world sizes and group sizes the trace importers accept (kineto/header.cc): below 2^24.
constexpr int64_t kMaxRanks = int64_t{1} << 24;

// An index into a table of `size` rows, or -1 where `none_ok`.
bool InRange(int64_t v, size_t size, bool none_ok = true) {
  return (none_ok && v == -1) || (v >= 0 && static_cast<uint64_t>(v) < size);
}

// Calls row(cells, place) for each row of the table `key` (summary_format.h, Column): one array
// of integers per column, all of one length; delta columns summed back to values.
template <size_t n, class Fn>
Status Table(object o, const char* key, const Column (&cols)[n], const Place& p, Fn row) {
  COMMDX_ASSIGN_OR_RETURN(element e, Member(o, key, p));
  const Place table = p.Field(key);
  COMMDX_ASSIGN_OR_RETURN(object columns, AsObject(e, table));
  std::vector<std::vector<int64_t>> values(n);
  for (size_t c = 0; c < n; ++c) {
    COMMDX_ASSIGN_OR_RETURN(array a, GetArray(columns, cols[c].name, table));
    const Place here = table.Field(cols[c].name);
    values[c].reserve(a.size());
    uint64_t sum = 0;
    for (element cell : a) {
      int64_t v = 0;
      if (cell.get(v) != simdjson::SUCCESS)
        return here.Index(values[c].size()).Expected("an integer");
      sum = cols[c].delta ? sum + static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      values[c].push_back(static_cast<int64_t>(sum));
    }
    if (values[c].size() != values[0].size())
      return here.Expected("as many cells as " + std::string(cols[0].name) + " (" +
                           std::to_string(values[0].size()) + ")");
  }
  int64_t cells[n];
  for (size_t i = 0; i < values[0].size(); ++i) {
    for (size_t c = 0; c < n; ++c) cells[c] = values[c][i];
    COMMDX_TRY(row(cells, table.Index(i)));
  }
  return Ok{};
}

Status Strings(object o, std::string_view key, const Place& p, std::vector<std::string>& out) {
  COMMDX_ASSIGN_OR_RETURN(array a, GetArray(o, key, p));
  size_t i = 0;
  for (element e : a) {
    std::string_view s;
    if (e.get(s) != simdjson::SUCCESS) return p.Field(key).Index(i).Expected("a string");
    out.emplace_back(s);
    ++i;
  }
  return Ok{};
}

Status Devices(object o, const Place& p, RankTrace& t) {
  return Objects(o, "devices", p, [&](object d, const Place& here) -> Status {
    DeviceInfo dev;
    COMMDX_ASSIGN_OR_RETURN(int64_t id, GetInt(d, "id", here));
    COMMDX_ASSIGN_OR_RETURN(dev.name, GetString(d, "name", here));
    COMMDX_ASSIGN_OR_RETURN(dev.total_memory_bytes, GetInt(d, "total_memory_bytes", here));
    COMMDX_ASSIGN_OR_RETURN(int64_t sms, GetInt(d, "sm_count", here));
    COMMDX_ASSIGN_OR_RETURN(int64_t major, GetInt(d, "compute_major", here));
    COMMDX_ASSIGN_OR_RETURN(int64_t minor, GetInt(d, "compute_minor", here));
    dev.id = static_cast<int>(id);
    dev.sm_count = static_cast<int>(sms);
    dev.compute_major = static_cast<int>(major);
    dev.compute_minor = static_cast<int>(minor);
    t.devices.push_back(std::move(dev));
    return Ok{};
  });
}

Status Threads(object o, const Place& p, RankTrace& t) {
  return Objects(o, "threads", p, [&](object th, const Place& here) -> Status {
    ThreadInfo info;
    COMMDX_ASSIGN_OR_RETURN(info.id, GetString(th, "id", here));
    COMMDX_ASSIGN_OR_RETURN(info.name, GetString(th, "name", here));
    COMMDX_ASSIGN_OR_RETURN(int64_t ops, GetInt(th, "ops", here));
    COMMDX_ASSIGN_OR_RETURN(info.pid_is_tid, GetBool(th, "pid_is_tid", here));
    info.ops = static_cast<uint32_t>(ops);
    t.threads.push_back(std::move(info));
    return Ok{};
  });
}

Status Groups(object o, const Place& p, RankTrace& t) {
  return Objects(o, "process_groups", p, [&](object g, const Place& here) -> Status {
    ProcessGroupInfo pg;
    COMMDX_ASSIGN_OR_RETURN(pg.name, GetString(g, "name", here));
    COMMDX_ASSIGN_OR_RETURN(pg.desc, GetString(g, "desc", here));
    COMMDX_ASSIGN_OR_RETURN(array ranks, GetArray(g, "ranks", here));
    for (element r : ranks) {
      int64_t v = 0;
      if (r.get(v) != simdjson::SUCCESS || v < 0 || v >= kMaxRanks)
        return here.Field("ranks").Expected("ranks (integers 0 to 2^24)");
      pg.ranks.push_back(static_cast<int>(v));
    }
    COMMDX_ASSIGN_OR_RETURN(int64_t size, GetInt(g, "size", here));
    if (size < 0 || size > kMaxRanks) return here.Field("size").Expected("a size 0 to 2^24");
    pg.size = static_cast<int>(size);
    t.process_groups.push_back(std::move(pg));
    return Ok{};
  });
}

}  // namespace

Result<RankTrace> ReadTrace(element e, const Place& p) {
  COMMDX_ASSIGN_OR_RETURN(object o, AsObject(e, p));
  RankTrace t;
  COMMDX_ASSIGN_OR_RETURN(t.file, GetString(o, "file", p));
  COMMDX_ASSIGN_OR_RETURN(int64_t rank, GetInt(o, "rank", p));
  COMMDX_ASSIGN_OR_RETURN(t.rank_source, GetString(o, "rank_source", p));
  COMMDX_ASSIGN_OR_RETURN(int64_t world, GetInt(o, "world_size", p));
  COMMDX_ASSIGN_OR_RETURN(t.backend, GetString(o, "backend", p));
  COMMDX_ASSIGN_OR_RETURN(t.nccl_version, GetString(o, "nccl_version", p));
  COMMDX_ASSIGN_OR_RETURN(t.schema_version, GetString(o, "schema_version", p));
  COMMDX_ASSIGN_OR_RETURN(int64_t source, GetInt(o, "step_source", p));
  if (source < 0 || source > static_cast<int64_t>(StepSource::kWholeTrace))
    return p.Field("step_source").Expected("a step source code 0 to 5");
  COMMDX_ASSIGN_OR_RETURN(t.step_name, GetString(o, "step_name", p));
  COMMDX_ASSIGN_OR_RETURN(int64_t main_thread, GetInt(o, "main_thread", p));
  COMMDX_ASSIGN_OR_RETURN(t.base_time_ns, GetInt(o, "base_time_ns", p));
  COMMDX_ASSIGN_OR_RETURN(t.first_ns, GetInt(o, "first_ns", p));
  COMMDX_ASSIGN_OR_RETURN(t.last_ns, GetInt(o, "last_ns", p));
  COMMDX_ASSIGN_OR_RETURN(int64_t json_bytes, GetInt(o, "json_bytes", p));
  COMMDX_ASSIGN_OR_RETURN(int64_t events, GetInt(o, "events", p));
  COMMDX_ASSIGN_OR_RETURN(t.has_gpu, GetBool(o, "has_gpu", p));
  // The span every time of the digest lies in; its length fits an int64.
  if (t.last_ns < t.first_ns ||
      static_cast<uint64_t>(t.last_ns) - static_cast<uint64_t>(t.first_ns) > INT64_MAX)
    return p.Field("last_ns").Expected("the trace's last time, not before first_ns");
  if (rank < -1 || rank >= kMaxRanks || world < 0 || world > kMaxRanks)
    return p.Field("rank").Expected("a rank (-1 to 2^24) and a world size (0 to 2^24)");
  t.rank = static_cast<int>(rank);
  t.world_size = static_cast<int>(world);
  t.step_source = static_cast<StepSource>(source);
  t.json_bytes = static_cast<uint64_t>(json_bytes);
  t.events = static_cast<uint64_t>(events);
  COMMDX_TRY(Devices(o, p, t));
  COMMDX_TRY(Strings(o, "names", p, t.names));
  if (t.names.empty() || !t.names[0].empty())
    return p.Field("names").Expected("the interned names, the first one \"\"");
  COMMDX_TRY(Threads(o, p, t));
  if (!InRange(main_thread, t.threads.size()))
    return p.Field("main_thread").Expected("-1 or a thread index");
  t.main_thread = static_cast<int32_t>(main_thread);
  COMMDX_TRY(Table(o, "streams", kStreamColumns, p, [&](const int64_t* c, const Place&) -> Status {
    t.streams.push_back({static_cast<int16_t>(c[0]), static_cast<int32_t>(c[1]),
                         static_cast<uint32_t>(c[2]), c[3], c[4], c[5] != 0});
    return Ok{};
  }));
  const size_t names = t.names.size();
  COMMDX_TRY(Groups(o, p, t));
  COMMDX_TRY(Table(
      o, "collectives", kCollectiveColumns, p, [&](const int64_t* c, const Place& here) -> Status {
        if (c[7] < 0 || c[7] > 1 || !InRange(c[8], t.process_groups.size()) || c[9] < 0 ||
            c[9] > kMaxRanks || c[10] < -1 || c[10] >= kMaxRanks || !InRange(c[12], names, false) ||
            !InRange(c[13], names, false) || c[14] < 0 ||
            c[14] > static_cast<int64_t>(CollectiveType::kBarrier) || c[15] < 0 ||
            c[15] > static_cast<int64_t>(CommFamily::kDeepEp))
          return here.Expected(
              "a collective row (kernel 0-1, process group, group size, peer, name, dtype, type "
              "0-12, family 0-5)");
        Collective k;
        k.start_ns = c[0];
        k.end_ns = c[1];
        k.issue_ns = c[2];
        k.in_nelems = c[3];
        k.out_nelems = c[4];
        k.bytes = static_cast<uint64_t>(c[5]);
        k.seq = c[6];
        k.gpu_op = c[7] ? 0 : -1;  // its GPU op is gone with the events: whether it had one
        k.pg = static_cast<int32_t>(c[8]);
        k.group_size = static_cast<int32_t>(c[9]);
        k.peer = static_cast<int32_t>(c[10]);
        k.grid_x = static_cast<int32_t>(c[11]);
        k.name = static_cast<uint32_t>(c[12]);
        k.dtype = static_cast<uint32_t>(c[13]);
        k.type = static_cast<CollectiveType>(c[14]);
        k.family = static_cast<CommFamily>(c[15]);
        k.from_args = c[16] != 0;
        k.launched = c[17] != 0;
        t.collectives.push_back(k);
        return Ok{};
      }));
  COMMDX_TRY(Table(o, "steps", kStepColumns, p, [&](const int64_t* c, const Place&) -> Status {
    t.steps.push_back({c[0], c[1], c[2], c[3], c[4], c[5] != 0});
    return Ok{};
  }));
  const DigestCodec* codec = InstalledDigestCodec();
  if (!codec)
    return MakeError(ErrorCode::kInternal, "no reader of trace digests is installed", {p.file});
  COMMDX_ASSIGN_OR_RETURN(element digest, Member(o, "digest", p));
  COMMDX_ASSIGN_OR_RETURN(t.derived, codec->Read(digest, p.Field("digest"), t));
  t.events_freed = true;
  return t;
}

}  // namespace commdx::ingest::summary
