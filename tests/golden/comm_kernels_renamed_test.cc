// A real two-rank capture whose all-reduces are renamed into another family's kernels gives the
// same diagnosis. examples/ddp_straggler (DDP on one H200, rank 1 ~20 ms late before each
// forward: examples/README.md) runs its gradient all-reduce as
// ncclDevKernel_AllReduce_Sum_f32_RING_LL inside record_param_comms. The variants, written to a
// temporary folder, name that kernel as a symmetric-memory, vLLM, SGLang or TensorRT-LLM
// all-reduce and rename record_param_comms to a plain CPU op, as a job using those libraries
// records them: no process group, no Seq, no size. The kernels' times are untouched, so the step
// breakdown, the waiting and the root cause must be the same as NCCL's; a name outside the table
// (the control) is compute, and the straggler goes unseen. examples/alltoall_healthy, its
// all-to-all renamed to DeepEP's dispatch, does the same with two families in one trace.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis_input.h"
#include "analysis/trace_facts.h"
#include "base/file.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNcclKernel =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

struct Seen {
  std::string root_cause;
  std::set<std::string> findings;  // warning and above
  std::set<std::string> any_findings;  // every severity
  std::vector<analysis::StepBreakdown> means;
  size_t comm_kernels = 0;
};

Seen Diagnose(const std::vector<std::string>& files) {
  Seen s;
  auto job = ingest::LoadInputs(files);
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  if (!job) return s;
  analysis::AnalysisInput input(*job);
  auto ask = diagnose::DiagnoseOptions::Only({Source::kTrace});
  ask.name_root_cause = true;
  auto d = diagnose::Diagnose(input, ask);
  if (d.root_cause) s.root_cause = d.root_cause->id;
  for (const auto& f : d.findings)
    if (f.severity >= Severity::kWarning) s.findings.insert(f.id);
  for (const auto& f : d.findings) s.any_findings.insert(f.id);
  s.means = input.trace_facts().rank_means;
  for (const RankTrace& t : job->trace.ranks)
    for (const GpuOp& op : t.gpu_ops) s.comm_kernels += op.kind == GpuOpKind::kCommKernel;
  return s;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

using Renames = std::vector<std::pair<std::string, std::string>>;

// examples/<example>'s two traces, or with `renames` applied, written to a temporary folder.
Seen DiagnoseExample(const std::string& example, const Renames& renames) {
  const std::string dir_in = std::string(COMMDX_SOURCE_DIR) + "/examples/" + example + "/";
  std::vector<std::string> files;
  for (int r = 0; r < 2; ++r)
    files.push_back(dir_in + "trace_rank" + std::to_string(r) + ".json.gz");
  if (renames.empty()) return Diagnose(files);
  static int n = 0;
  fs::path dir = fs::temp_directory_path() /
                 ("commdx_renamed_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  fs::create_directories(dir);
  for (std::string& f : files) {
    auto text = ReadFile(f);
    EXPECT_TRUE(text) << text.error().ToString();
    if (!text) return {};
    std::string s = text->data;
    for (const auto& [from, to] : renames) s = ReplaceAll(s, from, to);
    f = (dir / fs::path(f).stem()).string();  // trace_rankN.json
    std::ofstream(f) << s;
  }
  Seen seen = Diagnose(files);
  fs::remove_all(dir);
  return seen;
}

void ExpectSameDiagnosis(const Seen& v, const Seen& nccl) {
  EXPECT_EQ(v.comm_kernels, nccl.comm_kernels);
  EXPECT_EQ(v.root_cause, nccl.root_cause);
  // Findings that need the message size (bandwidth, bucket size) may go: the size is unknown.
  EXPECT_TRUE(nccl.root_cause.empty() || v.any_findings.count(nccl.root_cause))
      << nccl.root_cause;
  ASSERT_EQ(v.means.size(), nccl.means.size());
  for (size_t i = 0; i < v.means.size(); ++i) {
    EXPECT_EQ(v.means[i].comm_exposed_ns, nccl.means[i].comm_exposed_ns) << "rank " << i;
    EXPECT_EQ(v.means[i].comm_overlapped_ns, nccl.means[i].comm_overlapped_ns) << i;
    EXPECT_EQ(v.means[i].comm_exposed_wait_ns, nccl.means[i].comm_exposed_wait_ns) << i;
    EXPECT_EQ(v.means[i].compute_ns, nccl.means[i].compute_ns) << i;
  }
}

// As a job using these libraries records them: the op around the kernel is no
// record_param_comms, so there is no process group, Seq or size.
constexpr const char* kNoArgs = "\"_C_custom_ar::all_reduce\"";

TEST(RenamedAllReduce, EveryAllReduceFamilyGivesTheSameDiagnosis) {
  const Seen nccl = DiagnoseExample("ddp_straggler", {});
  // examples/ddp_straggler/meta.json: expected_finding trace.arrival_skew, expected_rank 1.
  EXPECT_EQ(nccl.root_cause, "trace.arrival_skew");
  ASSERT_EQ(nccl.means.size(), 2u);
  EXPECT_GT(nccl.means[0].comm_exposed_wait_ns, 20'000'000);  // rank 0 waits ~26 ms a step
  EXPECT_GT(nccl.comm_kernels, 80u);
  for (const std::string kernel : {
           "void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<float, 16, 2>(float**, "
           "unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)",
           "void vllm::cross_device_reduce_2stage<float, 2>(vllm::RankData*, vllm::RankSignals, "
           "vllm::Signal*, float*, int, int)",
           "void sglang::cross_device_reduce_1stage<float, 2>(sglang::RankData*, "
           "sglang::RankSignals, sglang::Signal*, float*, int, int)",
           "void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport<("
           "flashinfer::trtllm_allreduce_fusion::AllReduceFusionPattern)0, float, 2, false, "
           "false>(flashinfer::trtllm_allreduce_fusion::AllReduceFusionParams<float>)",
       }) {
    SCOPED_TRACE(kernel);
    ExpectSameDiagnosis(DiagnoseExample("ddp_straggler", {{kNcclKernel, kernel},
                                                          {"\"record_param_comms\"", kNoArgs}}),
                        nccl);
  }
}

TEST(RenamedAllReduce, ANameOutsideTheTableIsCompute) {
  Seen v = DiagnoseExample("ddp_straggler",
                           {{kNcclKernel, "void vllm::not_a_collective<float, 2>(float*, int)"},
                            {"\"record_param_comms\"", kNoArgs}});
  EXPECT_EQ(v.comm_kernels, 0u);
  ASSERT_EQ(v.means.size(), 2u);
  EXPECT_EQ(v.means[0].comm_exposed_ns, 0);
  EXPECT_NE(v.root_cause, "trace.arrival_skew");
}

// examples/alltoall_healthy (an MoE-style loop: all-to-all as ncclDevKernel_SendRecv beside a
// gradient all-reduce) with its all-to-all kernels renamed to DeepEP's dispatch: two families in
// one trace, NCCL's matched by group and Seq, DeepEP's by order in the step.
TEST(RenamedAllReduce, DeepEpBesideNcclGivesTheSameDiagnosis) {
  const Seen nccl = DiagnoseExample("alltoall_healthy", {});
  ASSERT_EQ(nccl.means.size(), 2u);
  EXPECT_GT(nccl.means[1].comm_exposed_wait_ns, 20'000'000);  // rank 1 waits for rank 0
  ExpectSameDiagnosis(
      DiagnoseExample("alltoall_healthy",
                      {{"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
                        "void deep_ep::intranode::dispatch<2, 768, 8192>(int4*, float*, int*, "
                        "long*, float*, int*, int*, int*, int*, int, int)"},
                       {"\"record_param_comms\"", "\"deep_ep::Buffer::dispatch\""}}),
      nccl);
}

}  // namespace
}  // namespace commdx
