#include "report/trace_tables.h"

#include "base/text.h"

namespace commdx::report {

namespace {

Cell Ms(int64_t ns) { return Cell::Num(static_cast<double>(ns) / 1e6, 3); }

// The waiting part of exposed communication: "-" where no collective of the window was matched
// with another rank (nothing was measured), ">=" where only some were.
Cell Waiting(const analysis::StepBreakdown& s) {
  if (s.comm_unmeasured_ns <= 0) return Ms(s.comm_exposed_wait_ns);
  if (s.comm_unmeasured_ns >= s.comm_ns() || s.comm_exposed_wait_ns == 0) return Cell("-");
  Cell c = Ms(s.comm_exposed_wait_ns);
  c.text = ">=" + c.text;
  return c;
}

void AddRanks(const TraceSet& set, const analysis::TraceFacts& f, Report& report) {
  Table t{"trace_ranks",
          "Traces",
          {"rank", "file", "rank from", "GPU", "steps", "step source", "events", "GPU ops",
           "collectives", "MB"},
          {"rank", "file", "rank_source", "gpu", "steps", "step_source", "events", "gpu_ops",
           "collectives", "json_mb"},
          {},
          ""};
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const RankTrace& r = set.ranks[i];
    t.AddRow({Cell::Int(r.rank), r.file, r.rank_source,
              r.devices.empty() ? std::string("-") : r.devices.front().name,
              Cell::Int(static_cast<long long>(r.steps.size())),
              std::string(StepSourceName(r.step_source)),
              Cell::Int(static_cast<long long>(r.events)),
              Cell::Int(static_cast<long long>(f.measure(i).gpu_ops)),
              Cell::Int(static_cast<long long>(r.collectives.size())),
              Cell::Num(static_cast<double>(r.json_bytes) / 1e6, 1)});
  }
  report.tables.push_back(std::move(t));
}

void AddBreakdown(const analysis::TraceFacts& f, Report& report) {
  Table t{
      "trace_step_breakdown",
      "Where each step's GPU time goes (ms; parts add up to the step)",
      {"rank", "step", "step ms", "compute", "comm overlapped", "comm exposed", "  of it waiting",
       "other GPU", "idle: host", "  sync", "  alloc", "  host gap", "  capture", "  queued",
       "  launch", "idle: data"},
      {"rank", "step", "step_ms", "compute_ms", "comm_overlapped_ms", "comm_exposed_ms",
       "comm_exposed_wait_ms", "other_gpu_ms", "idle_host_ms", "idle_sync_ms", "idle_alloc_ms",
       "idle_host_gap_ms", "idle_capture_ms", "idle_queued_ms", "idle_launch_ms", "idle_data_ms"},
      {},
      "compute = compute kernels with no communication kernel running; mean = over complete "
      "steps; * = cut by the trace: holds GPU work launched before it began, starts before the "
      "first boundary seen, or its GPU work was lost at the end (left out of the mean); "
      "waiting - = not measured (no other rank's trace holds the collective), >= = measured "
      "for some; idle: host = sync + alloc + host gap + capture + queued + launch; queued = its "
      "next GPU work had already been launched, so the GPU waited for something other than "
      "the CPU (docs/trace-metrics.md, \"GPU idle\")"};
  auto row = [&t](const analysis::StepBreakdown& s, Cell step) {
    t.AddRow({Cell::Int(s.rank), std::move(step), Ms(s.total_ns()), Ms(s.compute_ns),
              Ms(s.comm_overlapped_ns), Ms(s.comm_exposed_ns), Waiting(s), Ms(s.other_gpu_ns),
              Ms(s.idle_host_ns), Ms(s.idle_sync_ns), Ms(s.idle_alloc_ns), Ms(s.idle_host_gap_ns),
              Ms(s.idle_capture_ns), Ms(s.idle_queued_ns), Ms(s.idle_launch_ns()),
              Ms(s.idle_data_ns)});
  };
  for (const auto& m : f.rank_means)
    if (m.step > 0) row(m, Cell("mean"));
  for (const auto& s : f.steps) {
    Cell step = Cell::Int(s.step);
    if (s.partial) step.text += "*";
    row(s, step);
  }
  report.tables.push_back(std::move(t));
}

void AddPattern(const analysis::TraceTableData& d, Report& report) {
  Table t{
      "trace_collectives",
      "Communication pattern per process group",
      {"group", "ranks", "collective", "calls", "per step", "median size", "total", "time ms",
       "channels", "<64K", "64K-1M", "1-16M", "16-256M", ">=256M", "size unknown"},
      {"pg", "ranks", "collective", "calls", "per_step", "median_bytes", "total_bytes", "time_ms",
       "channels", "n_lt_64k", "n_64k_1m", "n_1m_16m", "n_16m_256m", "n_ge_256m", "n_size_unknown"},
      {},
      ""};
  for (size_t i = 0; i < d.pattern.size(); ++i) {
    const analysis::PatternRow& r = d.pattern[i];
    std::string ranks;
    for (int x : r.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(x);
    // "-" where the trace does not say: no process group, or no call of known size (0 B would
    // read as a measured size).
    auto bytes = [known = r.unknown_size < r.count](uint64_t n) {
      if (!known) return Cell("-");
      Cell c = Cell::Int(static_cast<long long>(n));
      c.text = FormatBytes(static_cast<double>(n));
      return c;
    };
    std::string group = r.pg.empty() ? "-" : r.pg;
    if (!r.pg_desc.empty()) group += " (" + r.pg_desc + ")";
    std::vector<Cell> row{group,
                          ranks.empty() ? "-" : ranks,
                          d.pattern_labels[i],
                          Cell::Int(static_cast<long long>(r.count)),
                          Cell::Num(r.per_step, 1),
                          bytes(r.median_bytes),
                          bytes(r.bytes_total),
                          Ms(r.time_ns),
                          Cell::Int(r.median_channels)};
    for (uint64_t n : r.histogram) row.push_back(Cell::Int(static_cast<long long>(n)));
    row.push_back(Cell::Int(static_cast<long long>(r.unknown_size)));
    t.AddRow(std::move(row));
  }
  if (!d.pattern.empty()) t.note = "pattern: " + d.pattern_name;
  report.tables.push_back(std::move(t));
}

void AddBandwidth(const analysis::TraceTableData& d, Report& report) {
  Table t{"trace_bandwidth",
          "Achieved bus bandwidth by collective and size (nccl-tests factors)",
          {"collective", "size", "count", "time µs (median)", "busbw GB/s (median)",
           "expected GB/s", "transfer only"},
          {"collective", "bytes", "count", "time_us", "busbw_gbps", "expected_busbw_gbps",
           "transfer_only"},
          {},
          "expected: " + (d.link.empty() ? std::string("unknown link") : d.link)};
  for (const auto& b : d.bandwidth) {
    Cell size = Cell::Int(static_cast<long long>(b.bytes));
    size.text = FormatBytes(static_cast<double>(b.bytes));
    t.AddRow({std::string(CollectiveTypeName(b.type)), size,
              Cell::Int(static_cast<long long>(b.count)),
              Cell::Num(static_cast<double>(b.median_time_ns) / 1e3, 1),
              Cell::Num(b.median_busbw_gbps, 1), Cell::Num(b.expected_busbw_gbps, 1),
              std::string(b.transfer_only ? "yes" : "no")});
  }
  report.tables.push_back(std::move(t));
}

void AddLate(const std::vector<analysis::LateStep>& late, Report& report) {
  if (late.empty()) return;
  Table t{"trace_late_ranks",
          "Who the others waited for, per step (clocks aligned on collective ends)",
          {"step", "late rank", "others waited ms", "collectives", "it was busy with"},
          {"step", "late_rank", "wait_ms", "collectives", "doing"},
          {},
          ""};
  for (const auto& l : late)
    // Collectives issued outside every step (before the first mark) have no step number.
    t.AddRow({l.step >= 0 ? Cell::Int(l.step) : Cell("outside the steps"), Cell::Int(l.late_rank),
              Ms(l.caused_wait_ns), Cell::Int(l.instances), l.doing});
  report.tables.push_back(std::move(t));
}

void AddHta(const std::vector<analysis::HtaCompat>& hta, Report& report) {
  Table t{"hta_compat",
          "HTA-comparable numbers (computed as HTA 0.5 does; see docs/trace-metrics.md)",
          {"rank", "idle %", "compute %", "non-compute %", "comm/compute overlap %"},
          {"rank", "idle_pct", "compute_pct", "non_compute_pct", "comm_comp_overlap_pct"},
          {},
          ""};
  for (const auto& h : hta) {
    t.AddRow({Cell::Int(h.rank), Cell::Num(h.idle_pct, 2), Cell::Num(h.compute_pct, 2),
              Cell::Num(h.non_compute_pct, 2), Cell::Num(h.comm_comp_overlap_pct, 2)});
  }
  report.tables.push_back(std::move(t));
}

}  // namespace

void AddTraceTables(const TraceSet& set, const analysis::TraceFacts& facts,
                    const analysis::TraceTableData& data, Report& report) {
  AddRanks(set, facts, report);
  AddBreakdown(facts, report);
  AddPattern(data, report);
  AddBandwidth(data, report);
  AddLate(data.late, report);
  AddHta(data.hta, report);
}

}  // namespace commdx::report
