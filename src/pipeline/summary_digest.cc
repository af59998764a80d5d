// The digest as JSON (docs/summary-format.md, "digest"): the timeline's interval lists as
// differences (gap from the previous interval's end, then the length), the measures by name,
// doubles in their shortest exact form, so that a summary gives the report its inputs give to
// the last digit. Name indexes go through the writer's renumbering and are checked on reading.
#include "pipeline/summary_digest.h"

#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "analysis/rank_measures.h"

namespace commdx::pipeline {

namespace {

using analysis::Interval;
using analysis::Intervals;
using analysis::RankDigest;
using analysis::RankMeasures;
using analysis::RankTimeline;
using ingest::summary::GetArray;
using ingest::summary::GetBool;
using ingest::summary::GetDouble;
using ingest::summary::GetInt;
using ingest::summary::GetInts;
using ingest::summary::GetString;
using ingest::summary::Member;
using ingest::summary::Place;
using ingest::summary::WriteInts;
using simdjson::dom::element;
using simdjson::dom::object;
using NameOf = std::function<uint32_t(uint32_t)>;

// The timeline's interval lists, by key. `busy` is left out: it is the union of compute, comm
// and other (BuildTimeline), made again on reading.
constexpr std::array<const char*, 12> kLists = {
    "compute",      "comm",      "other",      "data_loading", "host_sync",     "idle_queued",
    "idle_capture", "idle_data", "idle_alloc", "idle_sync",    "idle_host_gap", "idle_launch"};

template <class Tl>
auto ListsOf(Tl& tl) {
  return std::array{&tl.compute,    &tl.comm,        &tl.other,         &tl.data_loading,
                    &tl.host_sync,  &tl.idle.queued, &tl.idle.capture,  &tl.idle.data,
                    &tl.idle.alloc, &tl.idle.sync,   &tl.idle.host_gap, &tl.idle.launch};
}

int64_t Diff(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t Add(int64_t a, int64_t d) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(d));
}

// ---- writing ----------------------------------------------------------------------------------

void WriteIntervals(JsonWriter& w, const char* key, const Intervals& x) {
  std::vector<int64_t> cells;
  cells.reserve(2 * x.size());
  int64_t prev = 0;
  for (const Interval& i : x) {
    cells.push_back(Diff(i.start, prev));
    cells.push_back(Diff(i.end, i.start));
    prev = i.end;
  }
  WriteInts(w, key, cells);
}

// A map from name index to an integer, as {"name": [...], "ns": [...]}.
template <class Pairs>
void WriteNameTotals(JsonWriter& w, const char* key, const Pairs& pairs, const NameOf& name) {
  std::vector<int64_t> names, values;
  for (const auto& [id, v] : pairs) {
    names.push_back(name(id));
    values.push_back(v);
  }
  w.Key(key).BeginObject();
  WriteInts(w, "name", names);
  WriteInts(w, "ns", values);
  w.EndObject();
}

void WriteTimeline(JsonWriter& w, const RankTimeline& tl, const NameOf& name) {
  w.Key("timeline").BeginObject();
  const auto lists = ListsOf(tl);
  for (size_t k = 0; k < kLists.size(); ++k) WriteIntervals(w, kLists[k], *lists[k]);
  std::vector<int64_t> calls, charged;
  for (const auto& [call, ns] : tl.idle.sync_charges) {
    calls.push_back(call);
    charged.push_back(ns);
  }
  w.Key("sync_charges").BeginObject();
  WriteInts(w, "call", calls);
  WriteInts(w, "ns", charged);
  w.EndObject();
  WriteNameTotals(w, "launch_ops", tl.idle.launch_ops, name);
  std::vector<int64_t> start, length, before, after, idle;
  for (const auto& g : tl.idle.host_gaps) {
    start.push_back(g.start_ns);
    length.push_back(Diff(g.end_ns, g.start_ns));
    before.push_back(name(g.before));
    after.push_back(name(g.after));
    idle.push_back(g.idle_ns);
  }
  w.Key("host_gaps").BeginObject();
  WriteInts(w, "start_ns", start, true);
  WriteInts(w, "dur_ns", length);
  WriteInts(w, "before", before);
  WriteInts(w, "after", after);
  WriteInts(w, "idle_ns", idle);
  w.EndObject();
  w.EndObject();
}

void WriteMeasures(JsonWriter& w, const RankMeasures& m, const NameOf& name) {
  w.Key("measures").BeginObject();
  w.Key("gpu_ops").Uint(m.gpu_ops);
  w.Key("profiler_cost").BeginObject();
  w.Key("estimated").Bool(m.profiler_cost.estimated);
  w.Key("ops_per_step").Exact(m.profiler_cost.ops_per_step);
  w.Key("calls_per_step").Exact(m.profiler_cost.calls_per_step);
  w.Key("per_step_ns").Int(m.profiler_cost.per_step_ns);
  w.EndObject();
  w.Key("median_kernel_ns").Int(m.median_kernel_ns);
  w.Key("launches").Uint(m.launches);
  w.Key("data_loader_op").String(m.data_loader_op);
  w.Key("median_call_cpu_ns").Int(m.median_call_cpu_ns);
  w.Key("gradient_comm_after_backward").Exact(m.gradient_comm_after_backward);
  WriteInts(w, "orphan_starts", m.orphan_starts, true);

  const analysis::SerialGpus& sg = m.serial_gpus;
  w.Key("serial_gpus").BeginObject();
  w.Key("busy_ns").BeginObject();
  for (const auto& [device, ns] : sg.busy_ns) w.Key(std::to_string(device)).Exact(ns);
  w.EndObject();
  w.Key("step_ns").Exact(sg.step_ns);
  w.Key("union_ns").Exact(sg.union_ns);
  w.Key("busiest_ns").Exact(sg.busiest_ns);
  w.Key("steps").Int(sg.steps);
  w.Key("peer_copies").Int(sg.peer_copies);
  w.Key("peer_copy_ns").Exact(sg.peer_copy_ns);
  w.EndObject();

  w.Key("alloc_calls").BeginObject();
  w.Key("calls").Int(m.alloc_calls.calls);
  w.Key("host_ns").Int(m.alloc_calls.host_ns);
  w.Key("by_name").BeginObject();
  for (const auto& [call, n] : m.alloc_calls.by_name) w.Key(call).Int(n);
  w.EndObject();
  w.EndObject();

  const analysis::Stretched& st = m.stretched;
  w.Key("stretched").BeginObject();
  w.Key("extra_ns").Int(st.extra_ns);
  w.Key("runs").Int(st.runs);
  w.Key("kernels").Int(st.kernels);
  WriteInts(w, "extras", st.extras);
  WriteNameTotals(w, "by_name", st.by_name, name);
  w.EndObject();

  const analysis::CommSerialSigns& cs = m.comm_serial;
  w.Key("comm_serial").BeginObject();
  w.Key("shared_stream").Bool(cs.shared_stream);
  w.Key("stream").Int(cs.stream);
  w.Key("comm").Uint(cs.comm);
  w.Key("blocked").Uint(cs.blocked);
  w.Key("held_ns").Int(cs.held_ns);
  w.EndObject();

  const analysis::QueuedGaps& q = m.queued;
  w.Key("queued").BeginObject();
  w.Key("idle_ns").Int(q.idle_ns);
  w.Key("in_graph_ns").Int(q.in_graph_ns);
  w.Key("gaps").Int(q.gaps);
  w.Key("longest_ns").Int(q.longest_ns);
  WriteNameTotals(w, "by_next", q.by_next, name);
  WriteInts(w, "per_step", q.per_step);
  w.Key("median_lead_ns").Int(q.median_lead_ns);
  w.EndObject();

  const analysis::HtaCompat& h = m.hta;
  w.Key("hta").BeginObject();
  w.Key("rank").Int(h.rank);
  w.Key("idle_pct").Exact(h.idle_pct);
  w.Key("compute_pct").Exact(h.compute_pct);
  w.Key("non_compute_pct").Exact(h.non_compute_pct);
  w.Key("comm_comp_overlap_pct").Exact(h.comm_comp_overlap_pct);
  w.Key("kernel_time_ns").Int(h.kernel_time_ns);
  w.EndObject();

  const analysis::HostSyncCounts& hs = m.host_syncs;
  w.Key("host_syncs").BeginObject();
  w.Key("measured").Bool(hs.measured);
  w.Key("in_steps").Int(hs.in_steps);
  w.Key("in_work").Int(hs.in_work);
  w.Key("blocked_ns").Int(hs.blocked_ns);
  w.Key("steps").Uint(hs.steps);
  w.Key("by_cause").BeginObject();
  for (const auto& [cause, v] : hs.by_cause) {
    w.Key(cause).BeginArray();
    w.Int(v.first).Int(v.second);
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
}

// ---- reading ----------------------------------------------------------------------------------

Result<object> Obj(object o, const char* key, const Place& p) {
  COMMDX_ASSIGN_OR_RETURN(element e, Member(o, key, p));
  return ingest::summary::AsObject(e, p.Field(key));
}

// A time span, for the checks: every time of a digest lies in its trace's [first_ns, last_ns]
// (so no sum of lengths or charges can overflow), every name index below the names.
struct Bounds {
  int64_t lo = 0, hi = 0;
  size_t names = 0;
  int64_t span() const { return hi - lo; }  // checked to fit when the trace was read
  bool Inside(int64_t a, int64_t b) const { return lo <= a && a <= b && b <= hi; }
  bool Name(int64_t id) const { return id >= 0 && static_cast<uint64_t>(id) < names; }
};

Result<Intervals> ReadIntervals(object o, const char* key, const Place& p, const Bounds& in) {
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> cells, GetInts(o, key, p));
  if (cells.size() % 2 != 0) return p.Field(key).Expected("gap and length pairs");
  Intervals x;
  x.reserve(cells.size() / 2);
  int64_t prev = 0;
  for (size_t i = 0; i < cells.size(); i += 2) {
    if ((i > 0 && cells[i] < 0) || cells[i + 1] < 0)
      return p.Field(key).Index(i).Expected("sorted, disjoint intervals (gaps and lengths >= 0)");
    Interval v{Add(prev, cells[i]), 0};
    v.end = Add(v.start, cells[i + 1]);
    if (!in.Inside(v.start, v.end) || (i > 0 && v.start < prev))
      return p.Field(key).Index(i).Expected("intervals inside the trace's first_ns to last_ns");
    x.push_back(v);
    prev = v.end;
  }
  return x;
}

// {"name": [...], "ns": [...]}: name indexes in range, one value each, 0 to `most`.
Result<std::vector<std::pair<uint32_t, int64_t>>> ReadNameTotals(object o, const char* key,
                                                                 const Place& p, const Bounds& in,
                                                                 int64_t most) {
  COMMDX_ASSIGN_OR_RETURN(object t, Obj(o, key, p));
  const Place here = p.Field(key);
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> ids, GetInts(t, "name", here));
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> values, GetInts(t, "ns", here));
  if (values.size() != ids.size()) return here.Field("ns").Expected("one value per name");
  std::vector<std::pair<uint32_t, int64_t>> out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!in.Name(ids[i]))
      return here.Field("name").Index(i).Expected("an index into the trace's names");
    if (values[i] < 0 || values[i] > most)
      return here.Field("ns").Index(i).Expected("a time from 0 to the trace's span");
    out.emplace_back(static_cast<uint32_t>(ids[i]), values[i]);
  }
  return out;
}

Status ReadTimeline(object o, const Place& p, const Bounds& in, RankTimeline& tl) {
  COMMDX_ASSIGN_OR_RETURN(object t, Obj(o, "timeline", p));
  const Place here = p.Field("timeline");
  const auto lists = ListsOf(tl);
  for (size_t k = 0; k < kLists.size(); ++k) {
    COMMDX_ASSIGN_OR_RETURN(*lists[k], ReadIntervals(t, kLists[k], here, in));
  }
  tl.busy = analysis::UnionOf(analysis::UnionOf(tl.compute, tl.comm), tl.other);
  COMMDX_ASSIGN_OR_RETURN(object sc, Obj(t, "sync_charges", here));
  const Place scp = here.Field("sync_charges");
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> calls, GetInts(sc, "call", scp));
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> charged, GetInts(sc, "ns", scp));
  if (charged.size() != calls.size()) return scp.Field("ns").Expected("one value per call");
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i] < 0 || calls[i] > INT32_MAX || (i > 0 && calls[i] <= calls[i - 1]))
      return scp.Field("call").Index(i).Expected("runtime call indexes, increasing");
    if (charged[i] < 0 || charged[i] > in.span())
      return scp.Field("ns").Index(i).Expected("a time from 0 to the trace's span");
    tl.idle.sync_charges.emplace_back(static_cast<int32_t>(calls[i]), charged[i]);
  }
  COMMDX_ASSIGN_OR_RETURN(tl.idle.launch_ops, ReadNameTotals(t, "launch_ops", here, in, in.span()));
  COMMDX_ASSIGN_OR_RETURN(object hg, Obj(t, "host_gaps", here));
  const Place hgp = here.Field("host_gaps");
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> start, GetInts(hg, "start_ns", hgp, true));
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> length, GetInts(hg, "dur_ns", hgp));
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> before, GetInts(hg, "before", hgp));
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> after, GetInts(hg, "after", hgp));
  COMMDX_ASSIGN_OR_RETURN(std::vector<int64_t> idle, GetInts(hg, "idle_ns", hgp));
  for (const auto* column : {&length, &before, &after, &idle})
    if (column->size() != start.size())
      return hgp.Expected("columns start_ns, dur_ns, before, after, idle_ns of one length");
  for (size_t i = 0; i < start.size(); ++i) {
    if (!in.Name(before[i]) || !in.Name(after[i]) || length[i] < 0 ||
        !in.Inside(start[i], Add(start[i], length[i])) || idle[i] < 0 || idle[i] > in.span())
      return hgp.Index(i).Expected(
          "a stretch inside the trace's span, its idle 0 to the span, before and after: "
          "indexes into the trace's names");
    tl.idle.host_gaps.push_back({start[i], Add(start[i], length[i]),
                                 static_cast<uint32_t>(before[i]), static_cast<uint32_t>(after[i]),
                                 idle[i]});
  }
  return Ok{};
}

Status ReadMeasures(object o, const Place& p, const Bounds& in, RankMeasures& m) {
  COMMDX_ASSIGN_OR_RETURN(object x, Obj(o, "measures", p));
  const Place mp = p.Field("measures");
  COMMDX_ASSIGN_OR_RETURN(int64_t gpu_ops, GetInt(x, "gpu_ops", mp));
  m.gpu_ops = static_cast<uint64_t>(gpu_ops);
  {
    COMMDX_ASSIGN_OR_RETURN(object c, Obj(x, "profiler_cost", mp));
    const Place cp = mp.Field("profiler_cost");
    COMMDX_ASSIGN_OR_RETURN(m.profiler_cost.estimated, GetBool(c, "estimated", cp));
    COMMDX_ASSIGN_OR_RETURN(m.profiler_cost.ops_per_step, GetDouble(c, "ops_per_step", cp));
    COMMDX_ASSIGN_OR_RETURN(m.profiler_cost.calls_per_step, GetDouble(c, "calls_per_step", cp));
    COMMDX_ASSIGN_OR_RETURN(m.profiler_cost.per_step_ns, GetInt(c, "per_step_ns", cp));
  }
  COMMDX_ASSIGN_OR_RETURN(m.median_kernel_ns, GetInt(x, "median_kernel_ns", mp));
  COMMDX_ASSIGN_OR_RETURN(int64_t launches, GetInt(x, "launches", mp));
  m.launches = static_cast<uint64_t>(launches);
  COMMDX_ASSIGN_OR_RETURN(m.data_loader_op, GetString(x, "data_loader_op", mp));
  COMMDX_ASSIGN_OR_RETURN(m.median_call_cpu_ns, GetInt(x, "median_call_cpu_ns", mp));
  COMMDX_ASSIGN_OR_RETURN(m.gradient_comm_after_backward,
                          GetDouble(x, "gradient_comm_after_backward", mp));
  COMMDX_ASSIGN_OR_RETURN(m.orphan_starts, GetInts(x, "orphan_starts", mp, true));
  {
    COMMDX_ASSIGN_OR_RETURN(object s, Obj(x, "serial_gpus", mp));
    const Place sp = mp.Field("serial_gpus");
    analysis::SerialGpus& sg = m.serial_gpus;
    COMMDX_ASSIGN_OR_RETURN(object busy, Obj(s, "busy_ns", sp));
    for (auto [device, value] : busy) {
      const std::string key(device);
      double ns = 0;
      size_t used = 0;
      int id = 0;
      try {
        id = std::stoi(key, &used);
      } catch (...) {
        used = 0;
      }
      if (used == 0 || used != key.size() || value.get(ns) != simdjson::SUCCESS)
        return sp.Field("busy_ns").Field(key).Expected("a device id and its busy time");
      sg.busy_ns[id] = ns;
    }
    COMMDX_ASSIGN_OR_RETURN(sg.step_ns, GetDouble(s, "step_ns", sp));
    COMMDX_ASSIGN_OR_RETURN(sg.union_ns, GetDouble(s, "union_ns", sp));
    COMMDX_ASSIGN_OR_RETURN(sg.busiest_ns, GetDouble(s, "busiest_ns", sp));
    COMMDX_ASSIGN_OR_RETURN(int64_t steps, GetInt(s, "steps", sp));
    COMMDX_ASSIGN_OR_RETURN(int64_t copies, GetInt(s, "peer_copies", sp));
    COMMDX_ASSIGN_OR_RETURN(sg.peer_copy_ns, GetDouble(s, "peer_copy_ns", sp));
    sg.steps = static_cast<int>(steps);
    sg.peer_copies = static_cast<int>(copies);
  }
  {
    COMMDX_ASSIGN_OR_RETURN(object a, Obj(x, "alloc_calls", mp));
    const Place ap = mp.Field("alloc_calls");
    COMMDX_ASSIGN_OR_RETURN(m.alloc_calls.calls, GetInt(a, "calls", ap));
    COMMDX_ASSIGN_OR_RETURN(m.alloc_calls.host_ns, GetInt(a, "host_ns", ap));
    COMMDX_ASSIGN_OR_RETURN(object by, Obj(a, "by_name", ap));
    for (auto [call, value] : by) {
      int64_t n = 0;
      if (value.get(n) != simdjson::SUCCESS)
        return ap.Field("by_name").Field(call).Expected("an integer");
      m.alloc_calls.by_name[std::string(call)] = n;
    }
  }
  {
    COMMDX_ASSIGN_OR_RETURN(object s, Obj(x, "stretched", mp));
    const Place sp = mp.Field("stretched");
    analysis::Stretched& st = m.stretched;
    COMMDX_ASSIGN_OR_RETURN(st.extra_ns, GetInt(s, "extra_ns", sp));
    COMMDX_ASSIGN_OR_RETURN(st.runs, GetInt(s, "runs", sp));
    COMMDX_ASSIGN_OR_RETURN(st.kernels, GetInt(s, "kernels", sp));
    COMMDX_ASSIGN_OR_RETURN(st.extras, GetInts(s, "extras", sp));
    // Kernels on several streams overlap: their extra time may pass the span, not 2^53.
    COMMDX_ASSIGN_OR_RETURN(auto by_name, ReadNameTotals(s, "by_name", sp, in, int64_t{1} << 53));
    st.by_name.insert(by_name.begin(), by_name.end());
  }
  {
    COMMDX_ASSIGN_OR_RETURN(object c, Obj(x, "comm_serial", mp));
    const Place cp = mp.Field("comm_serial");
    analysis::CommSerialSigns& cs = m.comm_serial;
    COMMDX_ASSIGN_OR_RETURN(cs.shared_stream, GetBool(c, "shared_stream", cp));
    COMMDX_ASSIGN_OR_RETURN(int64_t stream, GetInt(c, "stream", cp));
    COMMDX_ASSIGN_OR_RETURN(int64_t comm, GetInt(c, "comm", cp));
    COMMDX_ASSIGN_OR_RETURN(int64_t blocked, GetInt(c, "blocked", cp));
    COMMDX_ASSIGN_OR_RETURN(cs.held_ns, GetInt(c, "held_ns", cp));
    cs.stream = static_cast<int32_t>(stream);
    cs.comm = static_cast<size_t>(comm);
    cs.blocked = static_cast<size_t>(blocked);
  }
  {
    COMMDX_ASSIGN_OR_RETURN(object g, Obj(x, "queued", mp));
    const Place gp = mp.Field("queued");
    analysis::QueuedGaps& q = m.queued;
    COMMDX_ASSIGN_OR_RETURN(q.idle_ns, GetInt(g, "idle_ns", gp));
    COMMDX_ASSIGN_OR_RETURN(q.in_graph_ns, GetInt(g, "in_graph_ns", gp));
    COMMDX_ASSIGN_OR_RETURN(q.gaps, GetInt(g, "gaps", gp));
    COMMDX_ASSIGN_OR_RETURN(q.longest_ns, GetInt(g, "longest_ns", gp));
    COMMDX_ASSIGN_OR_RETURN(auto by_next, ReadNameTotals(g, "by_next", gp, in, in.span()));
    q.by_next.insert(by_next.begin(), by_next.end());
    COMMDX_ASSIGN_OR_RETURN(q.per_step, GetInts(g, "per_step", gp));
    COMMDX_ASSIGN_OR_RETURN(q.median_lead_ns, GetInt(g, "median_lead_ns", gp));
  }
  {
    COMMDX_ASSIGN_OR_RETURN(object h, Obj(x, "hta", mp));
    const Place hp = mp.Field("hta");
    COMMDX_ASSIGN_OR_RETURN(int64_t rank, GetInt(h, "rank", hp));
    m.hta.rank = static_cast<int>(rank);
    COMMDX_ASSIGN_OR_RETURN(m.hta.idle_pct, GetDouble(h, "idle_pct", hp));
    COMMDX_ASSIGN_OR_RETURN(m.hta.compute_pct, GetDouble(h, "compute_pct", hp));
    COMMDX_ASSIGN_OR_RETURN(m.hta.non_compute_pct, GetDouble(h, "non_compute_pct", hp));
    COMMDX_ASSIGN_OR_RETURN(m.hta.comm_comp_overlap_pct, GetDouble(h, "comm_comp_overlap_pct", hp));
    COMMDX_ASSIGN_OR_RETURN(m.hta.kernel_time_ns, GetInt(h, "kernel_time_ns", hp));
  }
  {
    COMMDX_ASSIGN_OR_RETURN(object s, Obj(x, "host_syncs", mp));
    const Place sp = mp.Field("host_syncs");
    analysis::HostSyncCounts& hs = m.host_syncs;
    COMMDX_ASSIGN_OR_RETURN(hs.measured, GetBool(s, "measured", sp));
    COMMDX_ASSIGN_OR_RETURN(hs.in_steps, GetInt(s, "in_steps", sp));
    COMMDX_ASSIGN_OR_RETURN(hs.in_work, GetInt(s, "in_work", sp));
    COMMDX_ASSIGN_OR_RETURN(hs.blocked_ns, GetInt(s, "blocked_ns", sp));
    COMMDX_ASSIGN_OR_RETURN(int64_t steps, GetInt(s, "steps", sp));
    hs.steps = static_cast<size_t>(steps);
    COMMDX_ASSIGN_OR_RETURN(object by, Obj(s, "by_cause", sp));
    for (auto [cause, value] : by) {
      simdjson::dom::array pair;
      int64_t calls = 0, ns = 0;
      if (value.get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
          pair.at(0).get(calls) != simdjson::SUCCESS || pair.at(1).get(ns) != simdjson::SUCCESS)
        return sp.Field("by_cause").Field(cause).Expected("[calls, blocked ns]");
      hs.by_cause[std::string(cause)] = {static_cast<int>(calls), ns};
    }
  }
  return Ok{};
}

class Codec final : public ingest::summary::DigestCodec {
 public:
  void NameRefs(const RankDerived& d, std::vector<uint32_t>& out) const override {
    const auto& digest = static_cast<const RankDigest&>(d);
    const RankTimeline tl = digest.timeline.Unpack();
    for (const auto& [id, ns] : tl.idle.launch_ops) out.push_back(id);
    for (const auto& g : tl.idle.host_gaps) {
      out.push_back(g.before);
      out.push_back(g.after);
    }
    for (const auto& [id, ns] : digest.measures.stretched.by_name) out.push_back(id);
    for (const auto& [id, ns] : digest.measures.queued.by_next) out.push_back(id);
  }

  void Write(const RankDerived& d, const NameOf& name, JsonWriter& w) const override {
    const auto& digest = static_cast<const RankDigest&>(d);
    w.BeginObject();
    WriteTimeline(w, digest.timeline.Unpack(), name);
    WriteMeasures(w, digest.measures, name);
    w.EndObject();
  }

  Result<std::shared_ptr<const RankDerived>> Read(element e, const Place& p,
                                                  const RankTrace& t) const override {
    COMMDX_ASSIGN_OR_RETURN(object o, ingest::summary::AsObject(e, p));
    const Bounds in{t.first_ns, t.last_ns, t.names.size()};
    RankTimeline tl;
    COMMDX_TRY(ReadTimeline(o, p, in, tl));
    auto digest = std::make_shared<RankDigest>();
    digest->timeline = analysis::PackedTimeline(tl);
    COMMDX_TRY(ReadMeasures(o, p, in, digest->measures));
    return std::shared_ptr<const RankDerived>(std::move(digest));
  }
};

}  // namespace

const ingest::summary::DigestCodec& SummaryDigestCodec() {
  static const Codec codec;
  return codec;
}

void UseSummaryDigests() { ingest::summary::InstallDigestCodec(&SummaryDigestCodec()); }

}  // namespace commdx::pipeline
