#include "report/bench_tables.h"

#include <algorithm>

#include "base/str_format.h"
#include "base/text.h"

namespace commdx::report {

namespace {

std::string KeyFor(const BenchResult& r, size_t index, size_t total, const char* suffix) {
  std::string k = "bench_" + r.case_key;
  if (total > 1) k += "_" + std::to_string(index + 1);
  return k + suffix;
}

void AddSetup(const BenchResult& r, const std::string& key, Report& rep) {
  Table t;
  t.key = key;
  t.title = "Benchmark setup: " + r.case_key;
  t.columns = {"item", "value"};
  t.column_keys = {"item", "value"};
  auto add = [&](const char* k, const std::string& v) {
    if (!v.empty()) t.AddRow({Cell(k), Cell(v)});
  };
  add("source", r.source == BenchSource::kNcclTests ? "nccl-tests " + r.tool_version + " (" + r.file + ")"
                                         : "commdx bench " + r.tool_version);
  add("NCCL version", r.nccl_version);
  add("NCCL library", r.nccl_library);
  add("launch", r.launch);
  add("ranks", r.nranks ? std::to_string(r.nranks) : "");
  add("GPU", r.topology.gpu_name);
  std::string link = BenchLinkName(r.topology.link);
  if (r.topology.link == BenchLink::kNvLink && r.topology.nvlinks_per_gpu)
    link += " (" + std::to_string(r.topology.nvlinks_per_gpu) + " active links per GPU)";
  if (r.topology.pcie_gen)
    link += (link.empty() ? "" : "; ") + std::string("PCIe Gen") +
            std::to_string(r.topology.pcie_gen) + " x" + std::to_string(r.topology.pcie_width);
  add("link", link);
  add("CUDA graph", r.cuda_graph ? "yes" : "");
  if (r.event_stride > 1)
    add("timing events", "one per " + std::to_string(r.event_stride) +
                             " iterations (each reported as its group's mean)");
  if (r.wall_s > 0) {
    add("wall time", StrFormat("%.2f s", r.wall_s));
  }
  rep.tables.push_back(std::move(t));
}

void AddPoint(const BenchPoint& p, std::vector<Cell>& row) {
  if (!p.valid) {
    for (int i = 0; i < 4; ++i) row.push_back(Cell("-"));
    return;
  }
  row.push_back(Cell::Num(p.time_us, 2));
  row.push_back(Cell::Num(p.algbw_gbps, 2));
  row.push_back(Cell::Num(p.busbw_gbps, 2));
  row.push_back(p.wrong < 0 ? Cell("N/A") : Cell::Int(p.wrong));
}

void AddSweep(const BenchResult& r, const std::string& key, Report& rep) {
  bool live = r.source != BenchSource::kNcclTests;
  Table t;
  t.key = key;
  t.title = r.case_key + " (" +
            (r.nranks > 0 ? std::to_string(r.nranks) + " ranks" : std::string("ranks unknown")) +
            "): out-of-place then in-place, nccl-tests columns" +
            (live ? "; then out-of-place spread" : "");
  t.columns = {"size(B)",     "count",       "type",        "redop",  "root",
               "time(us)",    "algbw(GB/s)", "busbw(GB/s)", "#wrong", "time(us)",
               "algbw(GB/s)", "busbw(GB/s)", "#wrong"};
  t.column_keys = {"size_bytes",    "count",          "type",           "redop",     "root",
                   "oop_time_us",   "oop_algbw_gbps", "oop_busbw_gbps", "oop_wrong", "ip_time_us",
                   "ip_algbw_gbps", "ip_busbw_gbps",  "ip_wrong"};
  if (live) {
    for (const char* c : {"p10(us)", "p90(us)", "iters", "slowest"}) t.columns.push_back(c);
    for (const char* c : {"oop_p10_us", "oop_p90_us", "oop_iters", "oop_slowest_rank"})
      t.column_keys.push_back(c);
  }
  // nccl-tests -I (per-iteration timing): the 99th percentile of each placement.
  bool tail = false;
  for (const auto& row : r.rows)
    tail = tail || row.out_of_place.p99_us > 0 || row.in_place.p99_us > 0;
  if (tail) {
    for (const char* c : {"oop p99(us)", "ip p99(us)"}) t.columns.push_back(c);
    for (const char* c : {"oop_p99_us", "ip_p99_us"}) t.column_keys.push_back(c);
  }
  for (const auto& row : r.rows) {
    std::vector<Cell> cells = {Cell::Int(static_cast<long long>(row.bytes)),
                               Cell::Int(static_cast<long long>(row.count)), Cell(row.dtype),
                               Cell(row.redop.empty() ? "-" : row.redop), Cell::Int(row.root)};
    AddPoint(row.out_of_place, cells);
    AddPoint(row.in_place, cells);
    if (live) {
      const BenchPoint& p = row.out_of_place.valid ? row.out_of_place : row.in_place;
      cells.push_back(Cell::Num(p.p10_us, 2));
      cells.push_back(Cell::Num(p.p90_us, 2));
      cells.push_back(Cell::Int(p.iterations));
      cells.push_back(Cell::Int(p.slowest_rank));
    }
    if (tail) {
      cells.push_back(Cell::Num(row.out_of_place.p99_us, 2));
      cells.push_back(Cell::Num(row.in_place.p99_us, 2));
    }
    t.AddRow(std::move(cells));
  }
  if (r.reported_avg_busbw_gbps) {
    t.note = StrFormat("nccl-tests' Avg bus bandwidth: %.2f GB/s (a mean over all sizes)",
                       *r.reported_avg_busbw_gbps);
  }
  rep.tables.push_back(std::move(t));
}

void AddSummary(const BenchResult& r, const analysis::BenchSummary& s, const std::string& key,
                Report& rep) {
  if (!s.has_data) return;
  Table t;
  t.key = key;
  t.title = r.case_key + " summary";
  t.columns = {"plateau busbw(GB/s)", "plateau from",     "peak busbw(GB/s)", "latency floor(us)",
               "alpha(us)",           "beta busbw(GB/s)", "expected(GB/s)",   "efficiency"};
  t.column_keys = {"plateau_busbw_gbps", "plateau_from_bytes", "peak_busbw_gbps",
                   "latency_floor_us",   "alpha_us",           "beta_busbw_gbps",
                   "expected_gbps",      "efficiency_percent"};
  std::vector<Cell> row = {Cell::Num(s.plateau_busbw_gbps, 1),
                           Cell(FormatBytes(static_cast<double>(s.plateau_from_bytes))),
                           Cell::Num(s.peak_busbw_gbps, 1),
                           s.latency_row ? Cell::Num(s.latency_floor_us, 2) : Cell("-")};
  row.push_back(s.fit_ok && s.latency_row ? Cell::Num(s.alpha_us, 2) : Cell("-"));
  row.push_back(s.fit_ok ? Cell::Num(s.beta_busbw_gbps, 1) : Cell("-"));
  row.push_back(s.expected.known ? Cell::Num(s.expected.line_rate_gbps, 0) : Cell("-"));
  row.push_back(s.expected.known ? Cell::Num(100 * s.efficiency, 0) : Cell("-"));
  if (s.expected.known) row.back().text += "%";
  t.AddRow(std::move(row));
  std::string note =
      s.expected.known
          ? "expected: " + s.expected.basis
          : "expected: unknown (" +
                (s.expected.basis.empty() ? std::string("link not detected") : s.expected.basis) +
                ")";
  if (s.dropped)
    note += "; busbw falls after its peak: " + FormatFixed(s.tail_busbw_gbps, 1) + " GB/s at " +
            FormatBytes(static_cast<double>(s.tail_bytes));
  else if (!s.saturated && r.rows.size() > 1)  // one row is no sweep: nothing to rise
    note += "; busbw still rising at the largest size (use a larger -e)";
  if (!s.latency_row) note += "; latency floor and alpha: no size of 64 KiB or less in the sweep";
  if (!s.fit_rejected.empty()) note += "; alpha-beta fit not shown: " + s.fit_rejected;
  if (s.in_place) note += "; from the in-place column";
  for (const auto& n : r.notes) note += "; " + n;
  t.note = note;
  rep.tables.push_back(std::move(t));
}

void AddP2p(const BenchResult& r, const std::string& key, Report& rep) {
  Table t;
  t.key = key;
  t.title = "P2P copies per GPU pair (" +
            FormatBytes(r.p2p.empty() ? 0.0 : static_cast<double>(r.p2p[0].bytes)) + " per copy)";
  t.columns = {"src",       "dst",       "method",      "direction", "bandwidth(GB/s)",
               "p10(GB/s)", "p90(GB/s)", "latency(us)", "waived"};
  t.column_keys = {"src",      "dst",      "method",     "direction", "bandwidth_gbps",
                   "p10_gbps", "p90_gbps", "latency_us", "waived"};
  for (const auto& p : r.p2p) {
    bool w = !p.waived.empty();
    t.AddRow({Cell::Int(p.src), Cell::Int(p.dst), Cell(p.method),
              Cell(p.bidirectional ? "bi" : "uni"), w ? Cell("-") : Cell::Num(p.bandwidth_gbps, 1),
              w ? Cell("-") : Cell::Num(p.p10_gbps, 1), w ? Cell("-") : Cell::Num(p.p90_gbps, 1),
              w || p.bidirectional ? Cell("-") : Cell::Num(p.latency_us, 2), Cell(p.waived)});
  }
  for (const auto& n : r.notes) t.note += (t.note.empty() ? "" : "; ") + n;
  rep.tables.push_back(std::move(t));
}

void AddRepro(const BenchResult& r, const std::string& key, Report& rep) {
  Table t;
  t.key = key;
  t.title = "Minimal repro: " + FormatBytes(r.repro_grad_bytes) + " of gradients, " +
            FormatDurationNs(r.repro_compute_us * 1e3) + " of backward compute per step";
  t.columns = {"bucket",           "buckets",
               "compute only(ms)", "comm only(ms)",
               "serial step(ms)",  "overlapped step(ms)",
               "exposed comm(ms)", "best"};
  t.column_keys = {"bucket_bytes",    "buckets",
                   "compute_only_ms", "comm_only_ms",
                   "serial_step_ms",  "overlapped_step_ms",
                   "exposed_comm_ms", "best"};
  size_t best = 0;
  for (size_t i = 0; i < r.repro.size(); ++i)
    if (r.repro[i].step_overlap_us < r.repro[best].step_overlap_us) best = i;
  for (size_t i = 0; i < r.repro.size(); ++i) {
    const ReproPoint& p = r.repro[i];
    t.AddRow({Cell(FormatBytes(static_cast<double>(p.bucket_bytes))), Cell::Int(p.buckets),
              Cell::Num(p.compute_only_us / 1e3, 3), Cell::Num(p.comm_only_us / 1e3, 3),
              Cell::Num(p.step_serial_us / 1e3, 3), Cell::Num(p.step_overlap_us / 1e3, 3),
              Cell::Num(std::max(0.0, p.step_overlap_us - p.compute_only_us) / 1e3, 3),
              Cell(i == best ? "*" : "")});
  }
  t.note =
      "overlapped: each bucket is all-reduced on a second stream as soon as its share of "
      "the compute is done; serial: all buckets after the compute. If your training step "
      "is much slower than the best overlapped step here, the training loop is at fault.";
  for (const auto& n : r.notes) t.note += "; " + n;
  rep.tables.push_back(std::move(t));
}

}  // namespace

void AddBenchTables(const std::vector<BenchResult>& results,
                    const std::vector<analysis::BenchSummary>& summaries, Report& rep) {
  for (size_t i = 0; i < results.size(); ++i) {
    const BenchResult& r = results[i];
    size_t n = results.size();
    AddSetup(r, KeyFor(r, i, n, "_setup"), rep);
    if (!r.rows.empty()) {
      AddSweep(r, KeyFor(r, i, n, ""), rep);
      AddSummary(r, summaries[i], KeyFor(r, i, n, "_summary"), rep);
    }
    if (!r.p2p.empty() || r.case_key == "p2p") AddP2p(r, KeyFor(r, i, n, ""), rep);
    if (!r.repro.empty() || r.case_key == "repro") AddRepro(r, KeyFor(r, i, n, ""), rep);
    if (r.rows.empty() && r.p2p.empty() && r.repro.empty() && !r.notes.empty()) {
      Table t;
      t.key = KeyFor(r, i, n, "_notes");
      t.title = r.case_key + " notes";
      t.columns = {"note"};
      t.column_keys = {"note"};
      for (const auto& note : r.notes) t.AddRow({Cell(note)});
      rep.tables.push_back(std::move(t));
    }
  }
}

}  // namespace commdx::report
