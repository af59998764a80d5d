#include "pipeline/job_charts.h"

#include "pipeline/bandwidth_chart.h"
#include "pipeline/size_histogram_chart.h"
#include "pipeline/step_timeline_chart.h"

namespace commdx::pipeline {

using report::Charts;

Charts TraceCharts(const Job& job, const analysis::TraceFacts& facts, int threads) {
  Charts c;
  if (job.trace.empty()) return c;
  StepTimelineOptions timeline;
  timeline.threads = threads;
  if (auto t = StepTimelineChart(job, facts, timeline)) c.timelines.push_back(std::move(*t));
  c.histograms = CollectiveSizeHistograms(job.trace);
  c.xy = TraceBandwidthCharts(facts);
  return c;
}

Charts BenchCharts(const std::vector<BenchResult>& results,
                   const std::vector<analysis::BenchSummary>& summaries) {
  Charts c;
  c.xy = BenchBandwidthCharts(results, summaries);
  return c;
}

}  // namespace commdx::pipeline
