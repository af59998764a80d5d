// trace.serial_gpus on hand-made one-process traces with two GPUs: layers split across the GPUs
// without pipelining (each GPU idles while the other runs) is found and costed; GPUs that run
// at the same time, or a second GPU with next to no work, are not.
#include <gtest/gtest.h>

#include <string>

#include "analysis/registry.h"
#include "ingest/kineto/kineto_importer.h"

namespace commdx::analysis {
namespace {

constexpr int64_t kMs = 1'000'000;

GpuOp Op(int device, int64_t start_ms10, int64_t end_ms10, CopyKind copy = CopyKind::kNone) {
  GpuOp op;  // times in tenths of a millisecond
  op.start_ns = start_ms10 * kMs / 10;
  op.end_ns = end_ms10 * kMs / 10;
  op.device = static_cast<int16_t>(device);
  op.stream = 7;
  op.name = 1;
  op.copy = copy;
  op.kind = copy == CopyKind::kNone ? GpuOpKind::kKernel : GpuOpKind::kMemcpy;
  return op;
}

// Four 10 ms steps; `place` adds the step's GPU ops at an offset (tenths of a ms).
template <class Place>
Job TwoGpuSteps(Place place) {
  RankTrace t;
  t.file = "hand-made";
  t.rank = 0;
  t.names = {"", "kernel"};
  t.has_gpu = true;
  t.step_source = StepSource::kProfilerStep;
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t base = s * 100;
    t.steps.push_back(Step{s, base * kMs / 10, (base + 100) * kMs / 10, base * kMs / 10,
                           (base + 100) * kMs / 10});
    place(t.gpu_ops, base);
  }
  t.first_ns = 0;
  t.last_ns = 40 * kMs;
  Job job;
  job.trace.ranks.push_back(std::move(t));
  return job;
}

const Finding* SerialGpus(const std::vector<Finding>& fs) {
  for (const auto& f : fs)
    if (f.id == "trace.serial_gpus") return &f;
  return nullptr;
}

double Metric(const Finding& f, const std::string& name) {
  for (const auto& m : f.metrics)
    if (m.name == name) return m.value;
  return -1;
}

TEST(SerialGpus, LayersSplitAcrossTwoGpusTakeTurns) {
  // GPU 0: 4 ms of forward, a 0.2 ms peer copy of the activations, then GPU 1: 4 ms.
  Job job = TwoGpuSteps([](std::vector<GpuOp>& ops, int64_t b) {
    ops.push_back(Op(0, b, b + 40));
    ops.push_back(Op(0, b + 40, b + 42, CopyKind::kPtoP));
    ops.push_back(Op(1, b + 42, b + 82));
  });
  const std::vector<Finding> findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* f = SerialGpus(findings);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 0);
  EXPECT_EQ(Metric(*f, "gpus"), 2);
  EXPECT_NEAR(Metric(*f, "any_gpu_busy_per_step"), 8.2 * kMs, 1);
  EXPECT_NEAR(Metric(*f, "busiest_gpu_per_step"), 4.2 * kMs, 1);
  EXPECT_NEAR(*f->saving_ns_per_step, 4.0 * kMs, 1);  // only the busiest GPU would set the pace
  EXPECT_NE(f->detail.find("1 peer copies per step (0.20 ms)"), std::string::npos) << f->detail;
}

TEST(SerialGpus, GpusRunningTogetherOrOneIdleGpuAreNotReported) {
  Job together = TwoGpuSteps([](std::vector<GpuOp>& ops, int64_t b) {
    ops.push_back(Op(0, b, b + 40));
    ops.push_back(Op(1, b + 2, b + 41));
  });
  EXPECT_EQ(SerialGpus(RunAnalyzers(together, {}, {Source::kTrace})), nullptr);
  // A second GPU with 0.3 ms of work per 10 ms step (under 5%): incidental, not a split model.
  Job incidental = TwoGpuSteps([](std::vector<GpuOp>& ops, int64_t b) {
    ops.push_back(Op(0, b, b + 60));
    ops.push_back(Op(1, b + 60, b + 63));
  });
  EXPECT_EQ(SerialGpus(RunAnalyzers(incidental, {}, {Source::kTrace})), nullptr);
  Job one = TwoGpuSteps([](std::vector<GpuOp>& ops, int64_t b) {
    ops.push_back(Op(0, b, b + 40));
    ops.push_back(Op(0, b + 42, b + 82));
  });
  EXPECT_EQ(SerialGpus(RunAnalyzers(one, {}, {Source::kTrace})), nullptr);
}

// Through ingest: kernels on devices 0 and 1 of one process (Kineto writes the device in the
// args and as the pid), forty 0.1 ms kernels on GPU 0, then forty on GPU 1.
TEST(SerialGpus, ReadFromAKinetoTraceWithANote) {
  std::string text = R"({"schemaVersion": 1, "traceEvents": [)";
  for (int i = 0; i < 80; ++i) {
    const int dev = i < 40 ? 0 : 1;
    text += (i ? ",\n" : "\n") + std::string(R"({"ph": "X", "cat": "kernel", "name": "gemm", )") +
            R"("pid": )" + std::to_string(dev) + R"(, "tid": 7, "ts": )" +
            std::to_string(1000 + 100 * i) + R"(, "dur": 99, "args": {"device": )" +
            std::to_string(dev) + R"(, "stream": 7, "correlation": )" + std::to_string(i + 1) +
            "}}";
  }
  text += "\n]}";
  FileText f{"two_gpus.json", text, false, text.size()};
  Job job;
  ASSERT_TRUE(ingest::ParseKineto(f, job));
  ingest::FinishTraceSet(job);
  EXPECT_EQ(job.quality.Count("kineto.several_gpus"), 1u);
  const std::vector<Finding> findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* x = SerialGpus(findings);
  ASSERT_NE(x, nullptr);
  EXPECT_NEAR(*x->saving_ns_per_step, 4.0 * kMs, 0.1 * kMs);
}

}  // namespace
}  // namespace commdx::analysis
