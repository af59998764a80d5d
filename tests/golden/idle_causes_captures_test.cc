// GPU idle charged to allocator calls and host gaps on the real captures (examples/, one injected
// cause each, meta.json says which): no healthy run raises trace.allocator_churn or
// trace.host_gap at any severity; the run with 40 ms of Python between iterations gets
// trace.host_gap named by the ops around it, and trace.launch_bound no longer counts that idle.
// Metamorphic: wrapping the same host work in an annotation (what record_function() would leave)
// turns the host gap into launch idle inside that op, with the idle itself unchanged; allocator
// calls laid over a healthy run's launch idle turn exactly that idle into allocator churn.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "analysis/analysis_input.h"
#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;

const std::string kExamples = std::string(COMMDX_SOURCE_DIR) + "/examples/";

Job LoadJob(const std::string& scenario) {
  std::vector<std::string> in;
  for (int r = 0; fs::exists(kExamples + scenario + "/trace_rank" + std::to_string(r) + ".json.gz");
       ++r)
    in.push_back(kExamples + scenario + "/trace_rank" + std::to_string(r) + ".json.gz");
  auto job = ingest::LoadInputs(in, ingest::ForcedKind(InputKind::kKineto));
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(*job) : Job{};
}

const Finding* Find(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

// Healthy runs: meta.json's expected_finding is null.
std::vector<std::string> HealthyKinetoScenarios() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kExamples)) {
    const fs::path meta = e.path() / "meta.json";
    if (!fs::exists(meta) || !fs::exists(e.path() / "trace_rank0.json.gz")) continue;
    std::ifstream in(meta);
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find("\"expected_finding\": null") != std::string::npos)
      out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(IdleCausesCaptures, HealthyRunsRaiseNeitherFinding) {
  const auto healthy = HealthyKinetoScenarios();
  ASSERT_GE(healthy.size(), 8u);  // ddp_healthy, fsdp_healthy, styles_healthy_*, ...
  for (const auto& s : healthy) {
    Job job = LoadJob(s);
    auto findings = analysis::RunAnalyzers(job, {}, {Source::kTrace});
    EXPECT_EQ(Find(findings, "trace.allocator_churn"), nullptr) << s;
    EXPECT_EQ(Find(findings, "trace.host_gap"), nullptr) << s;
  }
}

TEST(IdleCausesCaptures, HostWorkBetweenIterationsIsAHostGap) {
  Job job = LoadJob("heldout_conv_host_gap");
  analysis::AnalysisInput input(job);
  auto findings = analysis::RunAnalyzers(input, {}, {Source::kTrace});
  const Finding* gap = Find(findings, "trace.host_gap");
  ASSERT_NE(gap, nullptr);
  // ~40 ms of Python per iteration (meta.json); 10 ProfilerSteps of ~61.6 ms.
  EXPECT_GT(gap->saving_ns_per_step.value_or(0), 35e6);
  EXPECT_LT(gap->saving_ns_per_step.value_or(0), 45e6);
  EXPECT_NE(gap->title.find("between 'Optimizer.zero_grad#SGD.zero_grad' and 'aten::rand'"),
            std::string::npos)
      << gap->title;
  // 53.8 ms of launch idle before host gaps were split; what is left, less the profiler's own
  // cost, no longer makes the rank launch-bound.
  const Finding* lb = Find(findings, "trace.launch_bound");
  const double lb_ns = lb ? lb->saving_ns_per_step.value_or(0) : 0;
  EXPECT_LT(lb_ns, 20e6);
  EXPECT_LE(gap->saving_ns_per_step.value_or(0) + lb_ns, gap->step_ns.value_or(0));
  const analysis::StepBreakdown& m = input.trace_facts().rank_means[0];
  EXPECT_EQ(m.idle_sync_ns + m.idle_queued_ns + m.idle_alloc_ns + m.idle_capture_ns +
                m.idle_host_gap_ns + m.idle_launch_ns(),
            m.idle_host_ns);
}

TEST(IdleCausesCaptures, NamingTheHostWorkMakesItLaunchIdleInThatOp) {
  Job job = LoadJob("heldout_conv_host_gap");
  const auto before = analysis::ComputeTraceFacts(job);
  const analysis::RankTimeline before_tl = before.timeline(0);
  ASSERT_FALSE(before_tl.idle.host_gaps.empty());
  RankTrace& t = job.trace.ranks[0];
  // The user wraps the work in record_function("log_metrics"): an annotation over each stretch.
  const uint32_t name = static_cast<uint32_t>(t.names.size());
  t.names.push_back("log_metrics");
  std::vector<HostOp> ops = t.HostOps();
  for (const auto& g : before_tl.idle.host_gaps)
    ops.push_back(HostOp{g.start_ns, g.end_ns, name, static_cast<uint32_t>(t.main_thread),
                         HostOpKind::kUserAnnotation, kHostFlagNone});
  std::stable_sort(ops.begin(), ops.end(),
                   [](const HostOp& a, const HostOp& b) { return a.start_ns < b.start_ns; });
  t.packed_host_ops = PackedHostOps(ops);
  const auto after = analysis::ComputeTraceFacts(job);
  const auto& b = before.rank_means[0];
  const auto& a = after.rank_means[0];
  EXPECT_EQ(a.idle_host_gap_ns, 0);
  EXPECT_EQ(a.idle_host_ns, b.idle_host_ns);  // the idle is the same, only its cause moved
  // (means are per-part integer divisions: a few ns of rounding)
  EXPECT_NEAR(a.idle_launch_ns(), b.idle_launch_ns() + b.idle_host_gap_ns, 10);
  int64_t in_op = 0;
  const analysis::RankTimeline after_tl = after.timeline(0);
  for (const auto& [n, ns] : after_tl.idle.launch_ops)
    if (n == name) in_op = ns;
  EXPECT_GT(in_op, 8 * b.idle_host_gap_ns);  // all 10 steps' worth, over the trace
  auto findings = analysis::RunAnalyzers(job, {}, {Source::kTrace});
  EXPECT_EQ(Find(findings, "trace.host_gap"), nullptr);
  const Finding* lb = Find(findings, "trace.launch_bound");
  ASSERT_NE(lb, nullptr);
  EXPECT_NE(lb->detail.find("'log_metrics'"), std::string::npos) << lb->detail;
}

// Metamorphic on a real healthy run: an allocator call (cudaFree, on every host thread) laid
// over each stretch of launch idle of >= 100 µs moves exactly that idle from launch to alloc,
// raises trace.allocator_churn with it as saving, and shrinks launch_bound's by as much.
TEST(IdleCausesCaptures, AllocatorCallsOverLaunchIdleBecomeChurn) {
  Job job = LoadJob("heldout_conv_healthy_print");
  const auto before = analysis::ComputeTraceFacts(job);
  const auto& b = before.rank_means[0];
  RankTrace& t = job.trace.ranks[0];
  const uint32_t name = static_cast<uint32_t>(t.names.size());
  t.names.push_back("cudaFree");
  std::vector<std::pair<RuntimeCall, int32_t>> calls;  // with the old index (-1: added)
  for (size_t i = 0; i < t.runtime.size(); ++i)
    calls.emplace_back(t.runtime[i], static_cast<int32_t>(i));
  size_t stretches = 0;
  const analysis::RankTimeline before_tl = before.timeline(0);
  for (const auto& x : before_tl.idle.launch) {
    if (x.end - x.start < 100'000) continue;
    ++stretches;
    for (uint32_t th = 0; th < t.threads.size(); ++th)
      calls.push_back({RuntimeCall{x.start, x.end, name, th, -1, kHostFlagAlloc}, -1});
  }
  ASSERT_GT(stretches, 0u);
  std::stable_sort(calls.begin(), calls.end(), [](const auto& x, const auto& y) {
    return x.first.start_ns < y.first.start_ns;
  });
  std::vector<int32_t> moved(t.runtime.size(), -1);
  t.runtime.clear();
  for (const auto& [rc, old] : calls) {
    if (old >= 0) moved[static_cast<size_t>(old)] = static_cast<int32_t>(t.runtime.size());
    t.runtime.push_back(rc);
  }
  for (GpuOp& op : t.gpu_ops)
    if (op.launch >= 0) op.launch = moved[static_cast<size_t>(op.launch)];
  const auto after = analysis::ComputeTraceFacts(job);
  const auto& a = after.rank_means[0];
  EXPECT_EQ(a.idle_host_ns, b.idle_host_ns);
  EXPECT_GT(a.idle_alloc_ns, 0);
  EXPECT_NEAR(a.idle_launch_ns(), b.idle_launch_ns() - a.idle_alloc_ns, 10);
  EXPECT_EQ(after.timeline(0).idle.alloc.size(), stretches);  // each one, whole
  auto findings = analysis::RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* churn = Find(findings, "trace.allocator_churn");
  ASSERT_NE(churn, nullptr);
  EXPECT_NEAR(churn->saving_ns_per_step.value_or(0), static_cast<double>(a.idle_alloc_ns), 1);
  EXPECT_LE(churn->saving_ns_per_step.value_or(0), churn->step_ns.value_or(0));
  if (const Finding* lb = Find(findings, "trace.launch_bound")) {
    EXPECT_NEAR(lb->saving_ns_per_step.value_or(0), static_cast<double>(a.idle_launch_ns()), 1);
  }
}

// Nsight Systems exports give the allocator the same flag as Kineto traces: the runtime API's
// cudaMalloc_v3020 as cudaMalloc, and the driver calls NCCL makes for its cuMem buffers, which
// the importer keeps now that they are flagged (it leaves out driver calls that neither launch,
// wait nor allocate). Counts from `sqlite3 report.sqlite "select ..."` on the export: 87
// cudaMalloc, 10 cudaFree, 28 cudaHostAlloc, 16 cudaFreeHost, and 34 cuMemRelease, 18
// cuMemCreate, 16 cuMemAddressFree, 16 cuMemMap, 16 cuMemUnmap from the driver.
TEST(IdleCausesCaptures, NsightSystemsAllocatorCallsAreFlagged) {
  auto job = ingest::LoadInputs({kExamples + "nsys_nodes2_straggler_job/report.sqlite.gz"});
  ASSERT_TRUE(job) << job.error().ToString();
  std::map<std::string, size_t> calls;
  for (const RankTrace& t : job->trace.ranks)
    for (const RuntimeCall& rc : t.runtime)
      if (rc.flags & kHostFlagAlloc) ++calls[t.names[rc.name]];
  EXPECT_EQ(calls["cudaMalloc"], 87u);
  EXPECT_EQ(calls["cudaFree"], 10u);
  EXPECT_EQ(calls["cudaHostAlloc"], 28u);
  EXPECT_EQ(calls["cudaFreeHost"], 16u);
  EXPECT_EQ(calls["cuMemCreate"], 18u);
  EXPECT_EQ(calls["cuMemRelease"], 34u);
  EXPECT_EQ(calls["cuMemMap"], 16u);
}

}  // namespace
}  // namespace commdx
