// Step detection (ingest/trace_build/steps.cc, step_marks.cc, step_collectives.cc) on small
// hand-made traces, one per source: ProfilerStep#N, the user's own marks, Optimizer.step, the
// repeating collectives, none; the main thread; the cut first and last steps.
#include <gtest/gtest.h>

#include <string>

#include "analysis/trace_facts.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/trace_build/step_sources.h"

namespace commdx {
namespace {

constexpr int kMain = 100;      // pid == tid: the process's main thread
constexpr int kAutograd = 101;  // more CPU ops than the main thread

// Events in microseconds on one rank; ts relative to baseTimeNanoseconds = 0.
class TraceText {
 public:
  void Host(const std::string& cat, const std::string& name, int tid, double ts, double dur) {
    Event(cat, name, kMain, tid, ts, dur, "{}");
  }
  // A launch on `tid` at `ts` and, unless `lost`, its kernel on the GPU at `gpu_ts`.
  void Launch(int tid, double ts, double gpu_ts, double gpu_dur, const std::string& kernel = "gemm",
              bool lost = false) {
    const std::string corr = std::to_string(++correlation_);
    Event("cuda_runtime", "cudaLaunchKernel", kMain, tid, ts, 2, "{\"correlation\": " + corr + "}");
    if (!lost)
      Event("kernel", kernel, 0, 7, gpu_ts, gpu_dur,
            "{\"device\": 0, \"stream\": 7, \"correlation\": " + corr + "}");
  }
  void ThreadName(int tid, const std::string& name) {
    Add("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(kMain) +
        ", \"tid\": " + std::to_string(tid) + ", \"args\": {\"name\": \"" + name + "\"}}");
  }
  // The autograd thread: busier in CPU ops than the main thread, never a step holder.
  void BusyAutograd(double from, double to) {
    ThreadName(kAutograd, "pt_autograd_0");
    for (double t = from; t < to; t += 100) Host("cpu_op", "aten::mm", kAutograd, t, 50);
  }
  Job Load() const {
    std::string s = "{\"schemaVersion\": 1, \"traceEvents\": [" + events_ + "]}";
    Job job;
    auto st = ingest::ParseKineto(FileText{"steps_rank0.json", s, false, s.size()}, job);
    EXPECT_TRUE(st) << (st ? "" : st.error().ToString());
    ingest::FinishTraceSet(job);
    return job;
  }

 private:
  void Event(const std::string& cat, const std::string& name, int pid, int tid, double ts,
             double dur, const std::string& args) {
    Add("{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name +
        "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": " +
        std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + ", \"args\": " + args + "}");
  }
  void Add(const std::string& e) { events_ += (events_.empty() ? "" : ",\n") + e; }
  std::string events_;
  int correlation_ = 0;
};

// Four 10 ms iterations starting at 0: a kernel per iteration, optimizer step at its end.
TraceText Loop(const std::string& mark, int iterations = 4) {
  TraceText t;
  for (int i = 0; i < iterations; ++i) {
    const double at = i * 10000.0;
    if (!mark.empty()) {
      std::string name = mark;  // '%' stands for the iteration's number
      if (name.back() == '%') name.back() = static_cast<char>('0' + i);
      t.Host("user_annotation", name, kMain, at, 9900);
    }
    t.Host("cpu_op", "aten::add", kMain, at + 100, 50);
    t.Launch(kMain, at + 200, at + 300, 5000);
    t.Host("user_annotation", "Optimizer.step#SGD.step", kMain, at + 9000, 500);
  }
  t.BusyAutograd(0, iterations * 10000.0);
  return t;
}

int64_t Ms(double ms) { return static_cast<int64_t>(ms * 1e6); }

TEST(KinetoSteps, NamePatternStripsNumbers) {
  EXPECT_EQ(ingest::trace_build::NamePattern("iteration_12"), "iteration_N");
  EXPECT_EQ(ingest::trace_build::NamePattern("## forward ##"), "## forward ##");
  EXPECT_EQ(ingest::trace_build::NamePattern("step3a45"), "stepNaN");
}

TEST(KinetoSteps, ProfilerStepMarksAndTheirThreadIsMain) {
  Job job = Loop("ProfilerStep#%").Load();
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.step_source, StepSource::kProfilerStep);
  ASSERT_EQ(t.steps.size(), 4u);
  EXPECT_EQ(t.steps[2].number, 2);
  EXPECT_EQ(t.threads[t.main_thread].id, std::to_string(kMain));
  for (const auto& s : t.steps) EXPECT_FALSE(s.cut);
  EXPECT_EQ(job.quality.Count("kineto.no_step_boundaries"), 0u);
}

TEST(KinetoSteps, UserMarksWithNumbersInTheName) {
  Job job = Loop("iteration_%").Load();  // iteration_0 .. iteration_3
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.step_source, StepSource::kAnnotation);
  EXPECT_EQ(t.step_name, "iteration_N");
  ASSERT_EQ(t.steps.size(), 4u);
  EXPECT_EQ(t.steps[1].cpu_start_ns - t.steps[0].cpu_start_ns, Ms(10));
  // Not the autograd thread, though it has more CPU ops.
  EXPECT_EQ(t.threads[t.main_thread].id, std::to_string(kMain));
  EXPECT_EQ(job.quality.Count("kineto.steps_from_annotation"), 1u);
}

TEST(KinetoSteps, UserMarksNeedThreeRepeats) {
  Job job = Loop("train_step", 2).Load();
  // Two train_step are too few; the optimizer ends give the steps instead.
  EXPECT_EQ(job.trace.ranks[0].step_source, StepSource::kOptimizer);
}

TEST(KinetoSteps, ARegionCoveringLittleOfTheLoopIsNoStep) {
  TraceText t = Loop("");
  for (int i = 0; i < 4; ++i) t.Host("user_annotation", "## forward ##", kMain, i * 10000.0, 3000);
  Job job = t.Load();
  EXPECT_EQ(job.trace.ranks[0].step_source, StepSource::kOptimizer);
}

TEST(KinetoSteps, OperatorsAreNeverIterationMarks) {
  TraceText t;
  for (int i = 0; i < 4; ++i)
    t.Host("cpu_op", "aten::_local_scalar_dense", kMain, i * 10000.0, 9900);
  Job job = t.Load();
  EXPECT_EQ(job.trace.ranks[0].step_source, StepSource::kWholeTrace);
}

TEST(KinetoSteps, OptimizerEndsBoundStepsAndTheFirstIsCut) {
  Job job = Loop("").Load();
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.step_source, StepSource::kOptimizer);
  EXPECT_EQ(t.step_name, "Optimizer.step#SGD.step");
  ASSERT_EQ(t.steps.size(), 4u);
  EXPECT_TRUE(t.steps[0].cut);
  EXPECT_EQ(t.steps[0].cpu_start_ns, Ms(0.1));  // the main thread's first op
  EXPECT_EQ(t.steps[0].cpu_end_ns, Ms(9.5));
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_FALSE(t.steps[i].cut);
    EXPECT_EQ(t.steps[i].cpu_end_ns - t.steps[i].cpu_start_ns, Ms(10));
  }
  EXPECT_EQ(job.quality.Count("kineto.steps_from_optimizer"), 1u);
  // The cut first step is left out of the mean: three steps of 10 ms.
  auto facts = analysis::ComputeTraceFacts(job);
  ASSERT_EQ(facts.rank_means.size(), 1u);
  EXPECT_EQ(facts.rank_means[0].step, 3);
  EXPECT_EQ(facts.rank_means[0].total_ns(), Ms(10));
}

// Per iteration (10 ms): two all_reduces and an all_gather issued late (backward), nothing else.
TraceText CollectiveLoop(int iterations) {
  TraceText t;
  for (int i = 0; i < iterations; ++i) {
    const double at = i * 10000.0;
    t.Host("cpu_op", "aten::add", kMain, at + 100, 50);
    t.Launch(kMain, at + 200, at + 300, 5000);
    const char* kernels[] = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                             "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                             "ncclDevKernel_AllGather_RING_LL"};
    for (int k = 0; k < 3; ++k)
      t.Launch(kMain, at + 6000 + 1000 * k, at + 6000 + 1000 * k + 10, 500, kernels[k]);
  }
  return t;
}

TEST(KinetoSteps, RepeatingCollectivesWhenNothingMarksIterations) {
  Job job = CollectiveLoop(4).Load();
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.step_source, StepSource::kCollectives);
  ASSERT_EQ(t.steps.size(), 4u);  // the cut lead + 3 between the first all_reduces
  EXPECT_TRUE(t.steps[0].cut);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(t.steps[i].cpu_start_ns, Ms(6 + 10 * (static_cast<double>(i) - 1)));
    EXPECT_EQ(t.steps[i].cpu_end_ns - t.steps[i].cpu_start_ns, Ms(10));
  }
  EXPECT_EQ(job.quality.Count("kineto.steps_from_collectives"), 1u);
}

TEST(KinetoSteps, TwoRepetitionsOfCollectivesAreTooFew) {
  Job job = CollectiveLoop(2).Load();
  EXPECT_EQ(job.trace.ranks[0].step_source, StepSource::kWholeTrace);
}

TEST(KinetoSteps, WholeTraceWithANote) {
  TraceText t;
  t.Host("cpu_op", "aten::add", kMain, 0, 50);
  t.Launch(kMain, 100, 200, 5000);
  Job job = t.Load();
  const RankTrace& r = job.trace.ranks[0];
  EXPECT_EQ(r.step_source, StepSource::kWholeTrace);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].start_ns, r.first_ns);
  EXPECT_EQ(job.quality.Count("kineto.no_step_boundaries"), 1u);
}

TEST(KinetoSteps, MainThreadByNameWhenNoMarks) {
  TraceText t;
  t.ThreadName(7000, "pt_main_thread");
  t.Host("cpu_op", "aten::add", 7000, 0, 50);
  t.BusyAutograd(0, 1000);
  Job job = t.Load();
  const RankTrace& r = job.trace.ranks[0];
  EXPECT_EQ(r.threads[r.main_thread].id, "7000");
}

TEST(KinetoSteps, LastStepWhoseGpuWorkWasLostIsCut) {
  TraceText t = Loop("ProfilerStep#%", 3);
  // The last step launches a kernel the profiler never saw run (the GPU was behind).
  t.Launch(kMain, 29000, 0, 0, "gemm", /*lost=*/true);
  Job job = t.Load();
  const RankTrace& r = job.trace.ranks[0];
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_FALSE(r.steps[1].cut);
  EXPECT_TRUE(r.steps[2].cut);
  EXPECT_EQ(job.quality.Count("kineto.last_step_cut"), 1u);
  auto facts = analysis::ComputeTraceFacts(job);
  ASSERT_EQ(facts.rank_means.size(), 1u);
  EXPECT_EQ(facts.rank_means[0].step, 2);
}

TEST(KinetoSteps, LaunchesRecordedIntoACudaGraphAreNotLost) {
  TraceText t = Loop("ProfilerStep#%", 3);
  // The last step captures a CUDA graph: its launches are recorded, never run.
  t.Host("cuda_runtime", "cudaStreamBeginCapture", kMain, 28900, 5);
  t.Launch(kMain, 29000, 0, 0, "gemm", /*lost=*/true);
  t.Host("cuda_runtime", "cudaStreamEndCapture", kMain, 29100, 5);
  Job job = t.Load();
  EXPECT_FALSE(job.trace.ranks[0].steps.back().cut);
  EXPECT_EQ(job.quality.Count("kineto.last_step_cut"), 0u);
  // The same launch after the capture ended is lost GPU work again.
  t.Launch(kMain, 29200, 0, 0, "gemm", /*lost=*/true);
  EXPECT_TRUE(t.Load().trace.ranks[0].steps.back().cut);
}

TEST(KinetoSteps, CompleteLastStepStaysInTheMean) {
  Job job = Loop("ProfilerStep#%", 3).Load();
  EXPECT_FALSE(job.trace.ranks[0].steps.back().cut);
  EXPECT_EQ(job.quality.Count("kineto.last_step_cut"), 0u);
}

}  // namespace
}  // namespace commdx
