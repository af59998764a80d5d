// A real two-rank capture whose all-reduces are renamed into another family's kernels gives the
// same diagnosis. examples/ddp_straggler (DDP on one H200, rank 1 ~20 ms late before each
// forward: examples/README.md) runs its gradient all-reduce as
// ncclDevKernel_AllReduce_Sum_f32_RING_LL inside record_param_comms. The variants, written to a
// temporary folder, name that kernel as a symmetric-memory, vLLM, SGLang or TensorRT-LLM
// all-reduce and rename record_param_comms to a plain CPU op, as a job using those libraries
// records them: no process group, no Seq, no size. The kernels' times are untouched, so the step
// breakdown, the waiting and the root cause must be the same as NCCL's; a name outside the table
// (the control) is compute, and the straggler goes unseen.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "analysis/analysis_input.h"
#include "analysis/trace_facts.h"
#include "base/file.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;

const std::string kExample = std::string(COMMDX_SOURCE_DIR) + "/examples/ddp_straggler/";
constexpr const char* kNcclKernel =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

struct Seen {
  std::string root_cause;
  std::set<std::string> findings;  // warning and above
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

class RenamedAllReduce : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (int r = 0; r < 2; ++r) {
      std::string path = kExample + "trace_rank" + std::to_string(r) + ".json.gz";
      auto text = ReadFile(path);
      ASSERT_TRUE(text) << text.error().ToString();
      originals_.push_back(text->data);
      files_.push_back(path);
    }
    nccl_ = new Seen(Diagnose(files_));
  }
  static void TearDownTestSuite() {
    delete nccl_;
    nccl_ = nullptr;
  }

  // The capture with the NCCL kernel named `kernel` and no record_param_comms.
  Seen Variant(const std::string& kernel) {
    fs::path dir = fs::temp_directory_path() /
                   ("commdx_renamed_" + std::to_string(::getpid()) + "_" + std::to_string(n_++));
    fs::create_directories(dir);
    std::vector<std::string> files;
    for (size_t r = 0; r < originals_.size(); ++r) {
      std::string text = ReplaceAll(originals_[r], kNcclKernel, kernel);
      text = ReplaceAll(text, "\"record_param_comms\"", "\"_C_custom_ar::all_reduce\"");
      files.push_back((dir / ("trace_rank" + std::to_string(r) + ".json")).string());
      std::ofstream(files.back()) << text;
    }
    Seen s = Diagnose(files);
    fs::remove_all(dir);
    return s;
  }

  static void ExpectSameDiagnosis(const Seen& v, const std::string& kernel) {
    SCOPED_TRACE(kernel);
    EXPECT_EQ(v.comm_kernels, nccl_->comm_kernels);
    EXPECT_EQ(v.root_cause, nccl_->root_cause);
    // Findings that need the message size (bandwidth, bucket size) may go: the size is unknown.
    EXPECT_TRUE(v.findings.count(nccl_->root_cause)) << nccl_->root_cause;
    ASSERT_EQ(v.means.size(), nccl_->means.size());
    for (size_t i = 0; i < v.means.size(); ++i) {
      EXPECT_EQ(v.means[i].comm_exposed_ns, nccl_->means[i].comm_exposed_ns) << "rank " << i;
      EXPECT_EQ(v.means[i].comm_overlapped_ns, nccl_->means[i].comm_overlapped_ns) << i;
      EXPECT_EQ(v.means[i].comm_exposed_wait_ns, nccl_->means[i].comm_exposed_wait_ns) << i;
      EXPECT_EQ(v.means[i].compute_ns, nccl_->means[i].compute_ns) << i;
    }
  }

  static std::vector<std::string> originals_;
  static std::vector<std::string> files_;
  static Seen* nccl_;
  int n_ = 0;
};

std::vector<std::string> RenamedAllReduce::originals_;
std::vector<std::string> RenamedAllReduce::files_;
Seen* RenamedAllReduce::nccl_ = nullptr;

TEST_F(RenamedAllReduce, TheNcclCaptureShowsTheStraggler) {
  // examples/ddp_straggler/meta.json: expected_finding trace.arrival_skew, expected_rank 1.
  EXPECT_EQ(nccl_->root_cause, "trace.arrival_skew");
  ASSERT_EQ(nccl_->means.size(), 2u);
  EXPECT_GT(nccl_->means[0].comm_exposed_wait_ns, 20'000'000);  // rank 0 waits ~26 ms a step
  EXPECT_GT(nccl_->comm_kernels, 80u);
}

TEST_F(RenamedAllReduce, EveryAllReduceFamilyGivesTheSameDiagnosis) {
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
       })
    ExpectSameDiagnosis(Variant(kernel), kernel);
}

TEST_F(RenamedAllReduce, ANameOutsideTheTableIsCompute) {
  Seen v = Variant("void vllm::not_a_collective<float, 2>(float*, int)");
  EXPECT_EQ(v.comm_kernels, 0u);
  ASSERT_EQ(v.means.size(), 2u);
  EXPECT_EQ(v.means[0].comm_exposed_ns, 0);
  EXPECT_NE(v.root_cause, "trace.arrival_skew");
}

}  // namespace
}  // namespace commdx
