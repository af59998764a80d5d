// What the report's tables show that analysis computes, built once per run from the
// AnalysisInput (whose kept pattern, late steps and bench summaries the analyzers read too) and
// handed to the report, which formats it and calls no analysis function (src/CMakeLists.txt
// checks the report's library for calls into analysis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_input.h"
#include "analysis/bench_summary.h"
#include "analysis/expected_bandwidth.h"
#include "analysis/hta_compat.h"
#include "analysis/trace_arrival_skew.h"
#include "analysis/trace_pattern.h"
#include "model/collective.h"

namespace commdx::analysis {

// Achieved bus bandwidth of one collective type at one size, over its instances.
struct TraceBandwidthRow {
  CollectiveType type = CollectiveType::kUnknown;
  uint64_t bytes = 0;
  size_t count = 0;
  int64_t median_time_ns = 0;
  double median_busbw_gbps = 0;
  double expected_busbw_gbps = 0;  // of the first instance (the link model at this size)
  bool transfer_only = false;      // of the first instance
};

struct TraceTableData {
  std::vector<PatternRow> pattern;           // AnalysisInput::comm_pattern
  std::vector<std::string> pattern_labels;   // CollectiveLabel of each pattern row
  std::string pattern_name;                  // PatternName; "" without rows
  std::vector<TraceBandwidthRow> bandwidth;  // by collective, then size (sizes known only)
  std::string link;                          // what the expected bandwidth assumes; "" unknown
  std::vector<LateStep> late;                // AnalysisInput::late_ranks
  std::vector<HtaCompat> hta;                // ranks with GPU work, in trace order
};

struct GpuPairExpectation {
  ExpectedBandwidth expected;
  std::string nccl_path;  // NcclPathName; "" when unknown
};

struct TopologyTableData {
  // ExpectedForJob on the topology alone; none without GPUs.
  std::optional<ExpectedBandwidth> machine;
  std::vector<GpuPairExpectation> pairs;  // one per Topology::pairs entry, in its order
};

// A variable that steers communication, with its verdict ("harmful", "risky", "neutral",
// "unknown"; "see findings" for the thread and rank counts the findings judge).
struct VariableRow {
  std::string name;
  std::string value;
  std::string verdict;
  std::string what;
};

struct TableData {
  TraceTableData trace;
  std::vector<BenchSummary> bench;  // one per job.bench entry
  TopologyTableData topology;
  std::vector<VariableRow> variables;  // of job.env.vars, in its order
};

// Which parts to fill (the tables a command shows); the rest stays empty.
struct TableDataRequest {
  bool trace = false;
  bool bench = false;
  bool topology = false;
  bool environment = false;
};

TableData TableDataOf(const AnalysisInput& input, const TableDataRequest& which);

}  // namespace commdx::analysis
