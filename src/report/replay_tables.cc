#include "report/replay_tables.h"

#include <string>

#include "base/text.h"

namespace commdx::report {

namespace {

Cell UsOrDash(double us, int decimals = 1) { return us > 0 ? Cell::Num(us, decimals) : Cell("-"); }

// busbw of one call of `s` taking `us`, on `nranks` ranks (nccl-tests' factors).
Cell BusBw(const ReplayShape& s, double us, int nranks) {
  double f = BusBwFactor(s.type, nranks);
  if (us <= 0 || f <= 0) return Cell("-");
  return Cell::Num(static_cast<double>(s.bytes) * f / (us * 1e3), 1);
}

void AddShapes(const ReplayResult& r, const ReplayGroupResult& g, const std::string& key,
               Report& rep) {
  Table t;
  t.key = key;
  t.title =
      "Replay of group " + g.name + (g.desc.empty() ? "" : " (" + g.desc + ")") + ": " +
      std::to_string(g.job_ranks) + " ranks in the job, replayed on " +
      std::to_string(g.replay_ranks) +
      (g.side_by_side > 1 ? " (" + std::to_string(g.side_by_side) + " groups side by side)" : "") +
      " (NCCL " + r.nccl_version + ")";
  t.columns = {"collective",     "size",           "dtype",           "redop",
               "calls",          "in job us",      "of it wait us",   "alone us",
               "in sequence us", "job busbw GB/s", "alone busbw GB/s"};
  t.column_keys = {"collective",  "bytes",          "dtype",           "redop",
                   "job_calls",   "job_us",         "job_wait_us",     "alone_us",
                   "sequence_us", "job_busbw_gbps", "alone_busbw_gbps"};
  for (const ReplayShape& s : g.shapes)
    t.AddRow({Cell(std::string(CollectiveTypeName(s.type)) +
                   (s.type == CollectiveType::kSendRecv && s.root > 0
                        ? " to rank+" + std::to_string(s.root)
                        : "")),
              Cell(FormatBytes(static_cast<double>(s.bytes))), Cell(s.dtype), Cell(s.redop),
              Cell::Int(s.job_calls), UsOrDash(s.job_us),
              s.job_wait_us >= 0 ? Cell::Num(s.job_wait_us, 1) : Cell("-"),
              UsOrDash(s.alone.valid ? s.alone.time_us : 0), UsOrDash(s.sequence_us),
              BusBw(s, s.job_us, g.job_ranks), BusBw(s, s.alone.time_us, g.replay_ranks)});
  t.note =
      "in job = median kernel time of the job's calls of that shape (with any wait for the last "
      "rank); alone = the shape back to back as nccl-tests runs it; in sequence = the job's "
      "calls in their order, back to back";
  rep.tables.push_back(std::move(t));
}

}  // namespace

void AddReplayTables(const std::vector<ReplayResult>& results,
                     const std::vector<analysis::ReplayVerdict>& verdicts, Report& rep) {
  Table v;
  v.key = "replay_verdicts";
  v.title = "The job's communication in the job and replayed alone";
  v.columns = {"group",       "calls",      "in job ms",        "of it wait ms",
               "replayed ms", "job/replay", "alone busbw GB/s", "of link %",
               "verdict"};
  v.column_keys = {"group",     "sequence_calls",  "job_ms",           "job_wait_ms",
                   "replay_ms", "job_over_replay", "alone_busbw_gbps", "alone_link_percent",
                   "verdict"};
  std::string left_out, notes;
  for (size_t i = 0; i < results.size(); ++i) {
    const ReplayResult& r = results[i];
    for (size_t k = 0; k < r.groups.size(); ++k) {
      std::string key = "replay_group_" + r.groups[k].name;
      if (results.size() > 1) key += "_" + std::to_string(i);
      AddShapes(r, r.groups[k], key, rep);
    }
    for (const auto& line : r.left_out) left_out += (left_out.empty() ? "" : "; ") + line;
    for (const auto& line : r.notes) notes += (notes.empty() ? "" : "; ") + line;
  }
  for (const analysis::ReplayVerdict& x : verdicts) {
    const ReplayGroupResult& g = results[x.result].groups[x.group];
    v.AddRow(
        {Cell(g.name + (g.desc.empty() ? "" : " (" + g.desc + ")")), Cell::Int(g.sequence_calls),
         g.job_sequence_us > 0 ? Cell::Num(g.job_sequence_us / 1e3, 3) : Cell("-"),
         g.job_wait_sequence_us >= 0 ? Cell::Num(g.job_wait_sequence_us / 1e3, 3) : Cell("-"),
         Cell::Num(g.replay_sequence_us / 1e3, 3), x.ratio > 0 ? Cell::Num(x.ratio, 2) : Cell("-"),
         x.alone_busbw_gbps > 0 ? Cell::Num(x.alone_busbw_gbps, 1) : Cell("-"),
         x.alone_efficiency > 0 ? Cell::Num(100 * x.alone_efficiency, 0) : Cell("-"),
         Cell(x.verdict)});
  }
  if (!left_out.empty()) v.note = "left out: " + left_out;
  if (!notes.empty()) v.note += (v.note.empty() ? "notes: " : ". Notes: ") + notes;
  rep.tables.push_back(std::move(v));
}

}  // namespace commdx::report
