#include "report/job_charts.h"

#include "report/bandwidth_chart.h"
#include "report/size_histogram_chart.h"
#include "report/step_timeline_chart.h"

namespace commdx::report {

Charts TraceCharts(const Job& job, const analysis::TraceFacts& facts) {
  Charts c;
  if (job.trace.empty()) return c;
  if (auto t = StepTimelineChart(job, facts)) c.timelines.push_back(std::move(*t));
  c.histograms = CollectiveSizeHistograms(job.trace);
  c.xy = TraceBandwidthCharts(facts);
  return c;
}

Charts BenchCharts(const std::vector<BenchResult>& results) {
  Charts c;
  c.xy = BenchBandwidthCharts(results);
  return c;
}

}  // namespace commdx::report
