// The chart builders of the pipeline (step timeline, collective size histogram, bandwidth
// against size) on hand-made facts and on a real 2xH200 capture, and the SVG they turn into.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "analysis/bench_summary.h"
#include "analysis/trace_facts.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/load_inputs.h"
#include "pipeline/bandwidth_chart.h"
#include "pipeline/job_charts.h"
#include "pipeline/size_histogram_chart.h"
#include "pipeline/step_timeline_chart.h"
#include "report/svg.h"

namespace commdx::pipeline {
namespace {

using report::Charts;
using report::Histogram;
using report::Lane;
using report::Segment;
using report::Series;
using report::SvgHistogram;
using report::SvgTimeline;
using report::SvgXY;
using report::Timeline;
using report::XYChart;

using analysis::Intervals;
using analysis::StepBreakdown;

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

int64_t Length(const std::vector<Segment>& v, const std::string& kind) {
  int64_t n = 0;
  for (const auto& s : v)
    if (s.kind == kind) n += s.end_ns - s.start_ns;
  return n;
}

// A job of `ranks` ranks with steps 1..3 whose lengths are 30, 10 and 20 ms (step 3 is the median);
// in every step, rank r computes [0, 4) ms, communicates [3, 6) ms, loads data [7, 8) ms (idle),
// the rest is idle on the host. Rank r's clock is offset by r seconds.
struct Fixture {
  Job job;
  analysis::TraceFacts facts;
};

Fixture MakeSteps(int ranks) {
  Fixture fx;
  const int64_t ms = 1'000'000;
  const int64_t lengths[] = {30 * ms, 10 * ms, 20 * ms};
  for (int r = 0; r < ranks; ++r) {
    RankTrace t;
    t.rank = r;
    t.has_gpu = true;
    t.step_source = StepSource::kProfilerStep;
    fx.job.trace.ranks.push_back(t);
    analysis::RankTimeline tl;
    int64_t start = int64_t{r} * 1'000'000'000;
    for (int i = 0; i < 3; ++i) {
      tl.compute.push_back({start, start + 4 * ms});
      tl.comm.push_back({start + 3 * ms, start + 6 * ms});
      tl.busy.push_back({start, start + 6 * ms});
      tl.idle.data.push_back({start + 7 * ms, start + 8 * ms});
      StepBreakdown s;
      s.trace = r;
      s.rank = r;
      s.step = i + 1;
      s.start_ns = start;
      s.end_ns = start + lengths[i];
      s.comm_exposed_ns = 2 * ms + r;  // rank order of waiting, for PickRanks
      fx.facts.steps.push_back(s);
      start += lengths[i];
    }
    auto digest = std::make_shared<analysis::RankDigest>();
    digest->timeline = analysis::PackedTimeline(tl);
    fx.facts.digests.push_back(std::move(digest));
  }
  return fx;
}

const Lane* FindLane(const Timeline& t, const std::string& name) {
  for (const auto& l : t.lanes)
    if (l.name == name) return &l;
  return nullptr;
}

TEST(StepTimelineChart, MedianStepWithComputeCommAndIdleLanesPerRank) {
  Fixture fx = MakeSteps(2);
  auto tl = StepTimelineChart(fx.job, fx.facts);
  ASSERT_TRUE(tl);
  EXPECT_NE(tl->title.find("step 3 (the median of 3 complete steps)"), std::string::npos)
      << tl->title;
  ASSERT_EQ(tl->lanes.size(), 6u);
  const int64_t ms = 1'000'000;
  for (int r = 0; r < 2; ++r) {
    std::string g = "rank " + std::to_string(r);
    const Lane* compute = FindLane(*tl, g + " compute");
    const Lane* comm = FindLane(*tl, g + " comm");
    const Lane* idle = FindLane(*tl, g + " idle");
    ASSERT_TRUE(compute && comm && idle) << g;
    EXPECT_EQ(compute->group, g);
    EXPECT_EQ(Length(compute->segments, "compute"), 4 * ms);
    EXPECT_EQ(Length(comm->segments, "comm"), 1 * ms);          // [3, 4) under compute
    EXPECT_EQ(Length(comm->segments, "comm_exposed"), 2 * ms);  // [4, 6)
    EXPECT_EQ(Length(idle->segments, "data_wait"), 1 * ms);
    EXPECT_EQ(Length(idle->segments, "host_wait"), 13 * ms);  // 20 - 6 - 1
    // Relative to the rank's own step start, whatever its clock.
    EXPECT_EQ(compute->segments.front().start_ns, 0);
    int64_t end = 0;
    for (const auto& seg : idle->segments) end = std::max(end, seg.end_ns);
    EXPECT_EQ(end, 20 * ms);
  }
}

TEST(StepTimelineChart, SegmentsNameTheirLongestKernelEscapedInTheSvg) {
  Fixture fx = MakeSteps(1);
  RankTrace& t = fx.job.trace.ranks[0];
  t.names = {"", "short_kernel", "evil<script>alert(1)</script>", "ncclDevKernel_AllReduce"};
  const int64_t ms = 1'000'000, base = 40 * ms;  // step 3
  auto op = [](int64_t a, int64_t b, uint32_t name, GpuOpKind kind) {
    GpuOp o;
    o.start_ns = a;
    o.end_ns = b;
    o.name = name;
    o.kind = kind;
    return o;
  };
  t.gpu_ops = {op(base, base + ms, 1, GpuOpKind::kKernel),
               op(base + ms, base + 4 * ms, 2, GpuOpKind::kKernel),
               op(base + 3 * ms, base + 6 * ms, 3, GpuOpKind::kCommKernel)};
  auto tl = StepTimelineChart(fx.job, fx.facts);
  ASSERT_TRUE(tl);
  const Lane* compute = FindLane(*tl, "rank 0 compute");
  const Lane* comm = FindLane(*tl, "rank 0 comm");
  ASSERT_TRUE(compute && comm);
  EXPECT_NE(
      compute->segments.front().label.find("longest: evil<script>alert(1)</script> (3.00 ms)"),
      std::string::npos)
      << compute->segments.front().label;
  for (const auto& seg : comm->segments)
    EXPECT_NE(seg.label.find("longest: ncclDevKernel_AllReduce"), std::string::npos) << seg.label;
  std::string svg = SvgTimeline(*tl);
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("evil&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

TEST(StepTimelineChart, PartialStepsAreNotChosen) {
  Fixture fx = MakeSteps(2);
  for (auto& s : fx.facts.steps)
    if (s.step == 3 && s.rank == 1) s.partial = true;
  auto tl = StepTimelineChart(fx.job, fx.facts);
  ASSERT_TRUE(tl);
  // Complete: steps 1 (30 ms) and 2 (10 ms); the lower median is step 2.
  EXPECT_NE(tl->title.find("step 2 (the median of 2 complete steps)"), std::string::npos)
      << tl->title;
}

TEST(StepTimelineChart, ManyTinyKernelsStayBoundedAndKeepTheirBusyTime) {
  Fixture fx = MakeSteps(1);
  auto digest = std::make_shared<analysis::RankDigest>(*fx.facts.digests[0]);
  analysis::RankTimeline tl = digest->timeline.Unpack();
  // 100,000 kernels of 100 ns every 200 ns in the 20 ms step 3 (it starts at 40 ms).
  tl.compute.clear();
  const int64_t base = 40'000'000;
  for (int i = 0; i < 100'000; ++i) tl.compute.push_back({base + 200 * i, base + 200 * i + 100});
  tl.busy = analysis::UnionOf(tl.compute, tl.comm);
  digest->timeline = analysis::PackedTimeline(tl);
  fx.facts.digests[0] = digest;
  StepTimelineOptions opt;
  opt.resolution = 100;
  auto chart = StepTimelineChart(fx.job, fx.facts, opt);
  ASSERT_TRUE(chart);
  const Lane* compute = FindLane(*chart, "rank 0 compute");
  ASSERT_NE(compute, nullptr);
  EXPECT_LE(compute->segments.size(), 101u);
  EXPECT_NE(compute->segments.front().label.find("100000 intervals"), std::string::npos)
      << compute->segments.front().label;
  EXPECT_NE(compute->segments.front().label.find("compute kernels 10.00 ms"), std::string::npos)
      << compute->segments.front().label;
  EXPECT_NEAR(compute->segments.front().busy_fraction, 0.5, 0.01);  // 100 ns of every 200
  EXPECT_NE(SvgTimeline(*chart).find("fill-opacity=\"0.50\""), std::string::npos);
  for (const Lane& l : chart->lanes) EXPECT_LE(l.segments.size(), 2u * 101u) << l.name;
}

TEST(StepTimelineChart, ManyRanksShowTheMostAndLeastWaiting) {
  Fixture fx = MakeSteps(40);
  StepTimelineOptions opt;
  opt.max_ranks = 4;
  auto tl = StepTimelineChart(fx.job, fx.facts, opt);
  ASSERT_TRUE(tl);
  ASSERT_EQ(tl->lanes.size(), 12u);
  // Waiting grows with the rank: 39 and 38 waited most, 0 and 1 least; drawn in rank order.
  EXPECT_EQ(tl->lanes[0].group, "rank 0");
  EXPECT_EQ(tl->lanes[3].group, "rank 1");
  EXPECT_EQ(tl->lanes[6].group, "rank 38");
  EXPECT_EQ(tl->lanes[9].group, "rank 39");
  EXPECT_NE(tl->note.find("4 of 40 ranks shown"), std::string::npos) << tl->note;
}

TEST(StepTimelineChart, NothingWithoutSteps) {
  Job job;
  analysis::TraceFacts facts;
  EXPECT_FALSE(StepTimelineChart(job, facts));
  Fixture fx = MakeSteps(1);
  for (auto& s : fx.facts.steps) s.end_ns = s.start_ns;  // zero-length windows
  EXPECT_FALSE(StepTimelineChart(fx.job, fx.facts));
  fx = MakeSteps(1);
  fx.facts.digests.clear();  // steps naming a trace that has no timeline
  EXPECT_FALSE(StepTimelineChart(fx.job, fx.facts));
}

Collective Coll(CollectiveType type, uint64_t bytes, int32_t pg = 0) {
  Collective c;
  c.type = type;
  c.bytes = bytes;
  c.pg = pg;
  return c;
}

TEST(CollectiveSizeHistograms, Log2BinsPerGroupAndTypeFromTheBusiestRank) {
  TraceSet set;
  RankTrace quiet, busy;
  quiet.rank = 0;
  quiet.collectives = {Coll(CollectiveType::kAllReduce, 1 << 20)};
  busy.rank = 1;
  busy.process_groups = {{"0", "default_pg<script>", {0, 1}, 2}};
  busy.collectives = {Coll(CollectiveType::kAllReduce, 1000),
                      Coll(CollectiveType::kAllReduce, 4096),
                      Coll(CollectiveType::kAllReduce, 5000), Coll(CollectiveType::kAllReduce, 0),
                      Coll(CollectiveType::kBroadcast, 8)};
  Collective not_launched = Coll(CollectiveType::kAllReduce, 1 << 30);
  not_launched.launched = false;
  busy.collectives.push_back(not_launched);
  set.ranks = {quiet, busy};
  auto hs = CollectiveSizeHistograms(set);
  ASSERT_EQ(hs.size(), 2u);
  const Histogram& h = hs[0];  // all_reduce: the most calls
  EXPECT_NE(h.title.find("all_reduce in group 0 (default_pg<script>)"), std::string::npos)
      << h.title;
  EXPECT_EQ(h.y_label, "calls on rank 1");
  ASSERT_EQ(h.bin_labels, (std::vector<std::string>{"512", "1K", "2K", "4K"}));
  EXPECT_EQ(h.values, (std::vector<double>{1, 0, 0, 2}));
  EXPECT_NE(h.note.find("1 of unknown size"), std::string::npos) << h.note;
  EXPECT_EQ(hs[1].bin_labels, (std::vector<std::string>{"8"}));
  // The SVG has one bar per bin and the group name escaped.
  std::string svg = SvgHistogram(h);
  EXPECT_EQ(Count(svg, "<rect class=\"bar\""), 4u);
  EXPECT_NE(svg.find("data-bin=\"4K\" data-value=\"2\""), std::string::npos);
  EXPECT_EQ(CollectiveSizeHistograms(set, 1).size(), 1u);
  EXPECT_TRUE(CollectiveSizeHistograms(TraceSet{}).empty());
}

analysis::CollectiveBw Bw(uint64_t bytes, double busbw) {
  analysis::CollectiveBw b;
  b.type = CollectiveType::kAllReduce;
  b.bytes = bytes;
  b.nranks = 2;
  b.busbw_gbps = busbw;
  return b;
}

TEST(TraceBandwidthCharts, MedianPerSizeAgainstTheLinkModel) {
  analysis::TraceFacts f;
  f.link.what = "NVLink4 (NVIDIA H200), within one node";
  f.link.peak_busbw_gbps = 350;
  f.link.latency_us = 13;
  f.bandwidth = {Bw(1 << 20, 10),   Bw(1 << 20, 30),   Bw(1 << 20, 20),
                 Bw(64 << 20, 300), Bw(64 << 20, NAN), Bw(0, 5)};
  auto charts = TraceBandwidthCharts(f);
  ASSERT_EQ(charts.size(), 1u);
  const XYChart& c = charts[0];
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[0].x, (std::vector<double>{1 << 20, 64 << 20}));
  EXPECT_EQ(c.series[0].y, (std::vector<double>{20, 300}));
  EXPECT_FALSE(c.series[0].dashed);
  const Series& e = c.series[1];
  EXPECT_TRUE(e.dashed);
  ASSERT_FALSE(e.x.empty());
  EXPECT_LE(e.x.front(), 1 << 20);
  EXPECT_GE(e.x.back(), 64 << 20);
  for (size_t i = 0; i < e.x.size(); ++i)  // all_reduce on 2 ranks: bus bytes = bytes x 1
    EXPECT_DOUBLE_EQ(e.y[i], f.link.ExpectedBusBw(e.x[i]));
  EXPECT_NE(c.note.find("13 us + bus bytes / 350 GB/s"), std::string::npos) << c.note;
  std::string svg = SvgXY(c);
  EXPECT_NE(svg.find("data-series=\"achieved (median per size)\" data-points=\"2\""),
            std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(svg.find(">1M</text>"), std::string::npos);  // a power-of-two tick

  f.link = {};
  f.link.what = "unknown GPU interconnect (Foo)";
  charts = TraceBandwidthCharts(f);
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_EQ(charts[0].series.size(), 1u);
  EXPECT_NE(charts[0].note.find("no expected line: unknown GPU interconnect"), std::string::npos);
}

TEST(TraceBandwidthCharts, ManySizesArePooled) {
  analysis::TraceFacts f;
  for (uint64_t b = 1000; b < 1000 + 5000; ++b) f.bandwidth.push_back(Bw(b * 1000, 1));
  auto charts = TraceBandwidthCharts(f, 4, 200);
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_LE(charts[0].series[0].x.size(), 200u);
  EXPECT_GE(charts[0].series[0].x.size(), 5u);
}

TEST(BenchBandwidthCharts, SweepAgainstTheLineRate) {
  BenchResult r;
  r.case_key = "all_reduce";
  r.source = BenchSource::kNcclTests;
  r.file = "ar.txt";
  r.nranks = 2;
  r.topology.gpu_name = "NVIDIA H200";
  for (uint64_t bytes : {8ull, 1ull << 20, 1ull << 28}) {
    BenchRow row;
    row.bytes = bytes;
    row.out_of_place.valid = true;
    row.out_of_place.busbw_gbps = static_cast<double>(bytes) / (1 << 20);
    row.in_place = row.out_of_place;
    row.out_of_place.time_us = 10;
    row.in_place.time_us = 10;
    r.rows.push_back(row);
  }
  BenchResult p2p;
  p2p.case_key = "p2p";
  auto charts =
      BenchBandwidthCharts({r, p2p}, {analysis::SummarizeBench(r), analysis::SummarizeBench(p2p)});
  ASSERT_EQ(charts.size(), 1u);
  const XYChart& c = charts[0];
  EXPECT_NE(c.title.find("all_reduce (nccl-tests, ar.txt, 2 ranks)"), std::string::npos) << c.title;
  ASSERT_EQ(c.series.size(), 3u);
  EXPECT_EQ(c.series[0].name, "out-of-place");
  EXPECT_EQ(c.series[1].name, "in-place");
  const Series& line = c.series[2];
  EXPECT_TRUE(line.dashed);
  ASSERT_EQ(line.y.size(), 2u);
  EXPECT_GT(line.y[0], 400);  // NVLink4 x18: 478 GB/s per direction
  EXPECT_EQ(line.y[0], line.y[1]);
  EXPECT_EQ(line.x, (std::vector<double>{8, 1 << 28}));
  EXPECT_NE(c.note.find("Line rate:"), std::string::npos) << c.note;
}

TEST(JobCharts, RealCaptureHasATimelineHistogramsAndBandwidth) {
  const std::string dir = std::string(COMMDX_SOURCE_DIR) + "/examples/ddp_healthy/";
  if (!std::filesystem::exists(dir + "trace_rank0.json.gz")) GTEST_SKIP() << "no capture";
  auto loaded = ingest::LoadInputs({dir + "trace_rank0.json.gz", dir + "trace_rank1.json.gz"});
  ASSERT_TRUE(loaded);
  Job job = std::move(*loaded);
  analysis::TraceFacts facts = analysis::ComputeTraceFacts(job);
  Charts c = TraceCharts(job, facts);
  ASSERT_EQ(c.timelines.size(), 1u);
  EXPECT_EQ(c.timelines[0].lanes.size(), 6u);
  // The step shown is the median by its time on the slower rank.
  std::map<int64_t, int64_t> slowest;
  for (const auto& s : facts.steps) slowest[s.step] = std::max(slowest[s.step], s.total_ns());
  ASSERT_EQ(slowest.size(), 3u);
  std::vector<std::pair<int64_t, int64_t>> by_time;
  for (auto [step, ns] : slowest) by_time.push_back({ns, step});
  std::sort(by_time.begin(), by_time.end());
  EXPECT_NE(c.timelines[0].title.find("step " + std::to_string(by_time[1].second) +
                                      " (the median of 3 complete steps)"),
            std::string::npos)
      << c.timelines[0].title;
  ASSERT_FALSE(c.histograms.empty());
  EXPECT_NE(c.histograms[0].title.find("all_reduce"), std::string::npos);
  ASSERT_FALSE(c.xy.empty());
  ASSERT_EQ(c.xy[0].series.size(), 2u);  // achieved and the H200 link model
  std::string svg = SvgTimeline(c.timelines[0]);
  EXPECT_EQ(Count(svg, "<g class=\"lane\""), 6u);
  EXPECT_NE(svg.find("seg-comm_exposed"), std::string::npos);
  EXPECT_LT(svg.size(), 400'000u);
}

}  // namespace
}  // namespace commdx::pipeline
