// The Nsight Systems importer on a real export (tests/data/nsys/README.md): the rows of each
// table become the trace model's events, launches link to their kernels, the emit_nvtx ranges
// give the 8 iterations, and broken databases are errors, never crashes.
#include <gtest/gtest.h>

#include <string>

#include "base/file.h"
#include "ingest/load_inputs.h"
#include "ingest/nsys/nsys_importer.h"
#include "ingest/nsys/nsys_names.h"
#include "ingest/registry.h"

namespace commdx {
namespace {

const std::string kExport =
    std::string(COMMDX_SOURCE_DIR) + "/tests/data/nsys/styles_healthy_iter_marks.sqlite.gz";

// Row counts of the export, from `sqlite3 ... "select count(*) from <table>"`.
constexpr size_t kKernels = 3520, kMemcpys = 144, kMemsets = 528, kSyncs = 1;
// Of the 8484 CUPTI_ACTIVITY_KIND_RUNTIME rows: the 3571 runtime calls (eventClass 0) and the 792
// driver calls that launch (cuLaunchKernelEx); the other 4121 driver calls (cuKernelGetName, ...)
// are not in a Kineto trace either.
constexpr size_t kRuntimeCalls = 3571 + 792;

Job Load() {
  auto job = ingest::LoadInputs({kExport});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(*job) : Job{};
}

size_t Count(const RankTrace& t, GpuOpKind kind) {
  size_t n = 0;
  for (const auto& op : t.gpu_ops) n += op.kind == kind;
  return n;
}

TEST(NsysImport, RecognisedByContent) {
  auto text = ReadFile(kExport);
  ASSERT_TRUE(text);
  std::string_view head = std::string_view(text->data).substr(0, 64 * 1024);
  EXPECT_TRUE(ingest::SniffNsys(head));
  const ingest::Importer* imp = ingest::SniffImporter(head);
  ASSERT_NE(imp, nullptr);
  EXPECT_EQ(imp->kind, InputKind::kNsys);
  EXPECT_FALSE(ingest::SniffNsys("SQLite format 3"));  // no NUL, no nsys tables
  EXPECT_FALSE(ingest::SniffNsys("{\"traceEvents\": []}"));
}

TEST(NsysImport, EveryTableBecomesTheTraceModel) {
  Job job = Load();
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  ASSERT_EQ(job.inputs.size(), 1u);
  EXPECT_EQ(job.inputs[0].kinds, std::vector<InputKind>{InputKind::kNsys});
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(Count(t, GpuOpKind::kKernel) + Count(t, GpuOpKind::kCommKernel), kKernels);
  EXPECT_EQ(Count(t, GpuOpKind::kMemcpy), kMemcpys);
  EXPECT_EQ(Count(t, GpuOpKind::kMemset), kMemsets);
  EXPECT_EQ(Count(t, GpuOpKind::kSync), kSyncs);
  EXPECT_EQ(t.runtime.size(), kRuntimeCalls);
  EXPECT_EQ(t.schema_version, "nsys export 3.20.3");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(t.devices[0].sm_count, 132);
  // Times are epoch ns (session start + relative ns): a 2026 capture.
  EXPECT_GT(t.first_ns, 1'700'000'000'000'000'000);
  // Every kernel, copy and set was launched by a runtime call of the same correlationId.
  size_t linked = 0;
  for (const auto& op : t.gpu_ops) {
    if (op.kind == GpuOpKind::kSync) continue;
    ASSERT_GE(op.launch, 0) << t.Name(op.name);
    EXPECT_LE(t.runtime[op.launch].start_ns, op.start_ns);
    EXPECT_TRUE(t.runtime[op.launch].flags & kHostFlagLaunch) << t.Name(t.runtime[op.launch].name);
    ++linked;
  }
  EXPECT_EQ(linked, kKernels + kMemcpys + kMemsets);
}

TEST(NsysImport, EmitNvtxRangesGiveTheIterationsAndThreads) {
  Job job = Load();
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.step_source, StepSource::kAnnotation);
  EXPECT_EQ(t.step_name, "iteration_N");
  EXPECT_EQ(t.steps.size(), 8u);  // the workload ran 8 iterations under the capture range
  ASSERT_GE(t.main_thread, 0);
  EXPECT_EQ(t.threads[t.main_thread].name, "python3");
  bool saw_mm = false, saw_optimizer = false;
  for (const auto& op : t.HostOps()) {
    const std::string& n = t.Name(op.name);
    EXPECT_EQ(n.find(", op_id = "), std::string::npos) << n;  // emit_nvtx suffixes are cut
    saw_mm |= n == "aten::mm" && op.kind == HostOpKind::kCpuOp;
    saw_optimizer |= n == "Optimizer.step#AdamW.step" && op.kind == HostOpKind::kUserAnnotation;
  }
  EXPECT_TRUE(saw_mm);
  EXPECT_TRUE(saw_optimizer);
  // What was left out is said: the CCCL domain's ranges and the non-launching driver calls.
  std::string notes;
  for (const auto& d : job.quality.entries()) notes += d.id + " ";
  EXPECT_NE(notes.find("nsys.library_nvtx"), std::string::npos) << notes;
  EXPECT_NE(notes.find("nsys.driver_calls"), std::string::npos) << notes;
}

TEST(NsysImport, NamesAsThePyTorchProfilerWritesThem) {
  using namespace ingest::nsys;
  EXPECT_EQ(RuntimeName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(RuntimeName("cuLaunchKernelEx"), "cuLaunchKernelEx");
  EXPECT_EQ(RuntimeName("my_v2x"), "my_v2x");
  EXPECT_EQ(NvtxName("aten::slice, seq = 4368, op_id = 5"), "aten::slice");
  EXPECT_EQ(NvtxName("iteration_0, op_id = 1"), "iteration_0");
  EXPECT_EQ(NvtxName("a, b"), "a, b");
  EXPECT_EQ(MemcpyName(8, 2, 2), "Memcpy DtoD (Device -> Device)");
  EXPECT_EQ(MemcpyName(1, 0, 2), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(MemsetName(2), "Memset (Device)");
  EXPECT_EQ(RankFromReportName("out/rep_3.sqlite"), 3);
  EXPECT_EQ(RankFromReportName("out/report.rank12.sqlite.gz"), 12);
  EXPECT_EQ(RankFromReportName("out/report.sqlite"), -1);
}

TEST(NsysImport, BrokenDatabasesAreErrors) {
  auto text = ReadFile(kExport);
  ASSERT_TRUE(text);
  for (size_t cut : {size_t{16}, size_t{100}, size_t{4096}, size_t{65536}, text->data.size() / 2}) {
    FileText f{"cut.sqlite", text->data.substr(0, cut)};
    Job job;
    auto st = ingest::ParseNsys(f, job);
    EXPECT_FALSE(st) << cut;
    if (!st) {
      EXPECT_EQ(st.error().code, ErrorCode::kBadInput) << cut;
    }
  }
  FileText junk{"junk.sqlite", std::string("SQLite format 3\0", 16) + std::string(5000, 'x')};
  Job job;
  EXPECT_FALSE(ingest::ParseNsys(junk, job));
}

TEST(NsysImport, ReportWithoutNsysSaysTheCommand) {
  std::string rep = ::testing::TempDir() + "/commdx_test.nsys-rep";
  {
    FILE* f = fopen(rep.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    fputs("not really", f);
    fclose(f);
  }
  setenv("NSYS", "/nonexistent/nsys", 1);
  std::string path = getenv("PATH") ? getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);
  auto job = ingest::LoadInputs({rep});
  setenv("PATH", path.c_str(), 1);
  unsetenv("NSYS");
  ASSERT_FALSE(job);
  EXPECT_EQ(job.error().code, ErrorCode::kBadInput);
  EXPECT_NE(job.error().message.find("nsys export --type sqlite --include-json true --output '"), std::string::npos)
      << job.error().message;
  std::remove(rep.c_str());
}

}  // namespace
}  // namespace commdx
