// Communication kernels other than NCCL's through the whole trace path: two ranks' PyTorch
// profiler traces whose collectives are a vLLM custom all-reduce, DeepEP dispatch/combine and a
// PyTorch symmetric-memory two-shot all-reduce (kernel names as profilers wrote them), with no
// record_param_comms, process group or Seq. They must be comm kernels with collectives, rows of
// the communication pattern, and matched across ranks so that a late rank's wait is measured.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/trace_cross_rank.h"
#include "analysis/trace_pattern.h"
#include "base/str_format.h"
#include "ingest/load_inputs.h"
#include "model/comm_kernels.h"

namespace commdx {
namespace {

constexpr const char* kVllm =
    "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData*, vllm::RankSignals, "
    "vllm::Signal*, __nv_bfloat16*, int, int)";
constexpr const char* kDispatch =
    "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*, "
    "int*, int*, int*, int, int)";
constexpr const char* kCombine =
    "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(...)";
constexpr const char* kTwoShot =
    "void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<c10::BFloat16, 16, 2>("
    "c10::BFloat16**, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)";
// NCCL on a side stream, of no known process group (no record_param_comms in these traces).
constexpr const char* kNccl = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr int64_t kLateUs = 2000;  // rank 1 launches its step-2 collectives this much later

// A launch on the CPU and its kernel, times in microseconds, args in the order Kineto writes them
// (External id first: the reader stops once a compute kernel's link ids are read).
void Launch(std::string& ev, int& corr, const char* name, double cpu_us, double start_us,
            double dur_us, int stream = 7) {
  ++corr;
  ev += StrFormat(
      ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, "
      "\"tid\": 100, \"ts\": %.1f, \"dur\": 5.0, \"args\": {\"External id\": %d, \"correlation\": "
      "%d}}",
      cpu_us, corr, corr);
  ev += StrFormat(
      ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": "
      "%.1f, \"dur\": %.1f, \"args\": {\"External id\": %d, \"device\": 0, \"stream\": %d, "
      "\"correlation\": %d, \"grid\": [24, 1, 1], \"block\": [512, 1, 1]}}",
      name, stream, start_us, dur_us, corr, stream, corr);
}

// Three ProfilerSteps of 10 ms: a 3 ms compute kernel, then the four collectives on the compute
// stream and an NCCL all-gather on stream 20. A collective starts when its rank launches it and
// ends 200 us after the last rank arrived (each kernel waits for its peers first). Rank 1 launches
// the all-gather before the others, rank 0 after: matched by order of issue in one list, the
// two ranks would disagree on every collective of the step.
std::string RankTraceJson(int rank) {
  std::string ev = StrFormat(
      "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, "
      "\"world_size\": 2}, \"baseTimeNanoseconds\": 1727000000000000000, \"traceEvents\": [\n"
      "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 100, \"tid\": 100, \"args\": {\"name\": "
      "\"python\"}}",
      rank);
  int corr = 0;
  for (int s = 1; s <= 3; ++s) {
    const double t0 = (s - 1) * 10000.0;
    ev += StrFormat(
        ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": "
        "100, \"tid\": 100, \"ts\": %.1f, \"dur\": 9900.0, \"args\": {}}",
        s, t0);
    Launch(ev, corr, "void at::native::elementwise_kernel<128, 2>(int)", t0 + 10, t0 + 100, 3000);
    // Rank 0 launches at +3200 us; rank 1 too, except in step 2, kLateUs later. Only the first
    // collective waits; the next ones start together, 10 us after the one before ends.
    const double late = s == 2 ? kLateUs : 0;
    const double cpu = t0 + 3200 + (rank == 1 ? late : 0);
    double start = t0 + 3220 + (rank == 1 ? late : 0);
    double end = t0 + 3220 + late + 200;
    if (rank == 1) Launch(ev, corr, kNccl, cpu - 10, t0 + 6100, 500, 20);
    int k = 0;
    for (const char* name : {kVllm, kDispatch, kCombine, kTwoShot}) {
      Launch(ev, corr, name, cpu + 5 * k++, start, end - start);
      start = end + 10;
      end = start + 200;
    }
    if (rank == 0) Launch(ev, corr, kNccl, cpu + 30, t0 + 6100, 500, 20);
  }
  return ev + "\n]}\n";
}

class CommKernelsTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("commdx_comm_kernels_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::vector<std::string> files;
    for (int r = 0; r < 2; ++r) {
      std::string path = (dir_ / ("rank" + std::to_string(r) + ".json")).string();
      std::ofstream(path) << RankTraceJson(r);
      files.push_back(path);
    }
    auto job = ingest::LoadInputs(files, ingest::ForcedKind(InputKind::kKineto));
    ASSERT_TRUE(job) << job.error().ToString();
    job_ = std::move(*job);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  Job job_;
};

TEST_F(CommKernelsTrace, KernelsAreCollectives) {
  ASSERT_EQ(job_.trace.ranks.size(), 2u);
  for (const RankTrace& t : job_.trace.ranks) {
    int comm = 0;
    for (const GpuOp& op : t.gpu_ops) comm += op.kind == GpuOpKind::kCommKernel;
    EXPECT_EQ(comm, 15) << t.file;
    ASSERT_EQ(t.collectives.size(), 15u) << t.file;
    int all_reduce = 0, all_to_all = 0, all_gather = 0;
    for (const Collective& c : t.collectives) {
      EXPECT_GE(c.gpu_op, 0);
      EXPECT_EQ(c.bytes, 0u);  // no args: the size is unknown, never invented
      EXPECT_EQ(c.pg, -1);
      all_reduce += c.type == CollectiveType::kAllReduce;
      all_to_all += c.type == CollectiveType::kAllToAll;
      all_gather += c.type == CollectiveType::kAllGather;
      // NCCL's grid is its channel count; a custom kernel's blocks are not channels.
      EXPECT_EQ(c.grid_x, c.type == CollectiveType::kAllGather ? 24 : 0);
    }
    EXPECT_EQ(all_reduce, 6);
    EXPECT_EQ(all_to_all, 6);
    EXPECT_EQ(all_gather, 3);
  }
}

TEST_F(CommKernelsTrace, PatternNamesTheFamilies) {
  std::vector<analysis::PatternRow> rows = analysis::CommPattern(job_.trace);
  ASSERT_EQ(rows.size(), 4u);
  std::vector<std::string> labels;
  for (const auto& r : rows) {
    labels.push_back(analysis::CollectiveLabel(r.type, r.family));
    EXPECT_EQ(r.unknown_size, r.count);
  }
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"all_gather", "all_reduce [custom_allreduce]",
                                              "all_reduce [symm_mem]", "alltoall [deepep]"}));
  for (const auto& r : rows) {
    EXPECT_EQ(r.count, r.family == CommFamily::kDeepEp ? 6u : 3u) << r.pg;
    EXPECT_EQ(r.median_channels, r.family == CommFamily::kNccl ? 24 : 0);
  }
}

TEST_F(CommKernelsTrace, LateRankIsMeasured) {
  analysis::CrossRank x = analysis::MatchAcrossRanks(job_.trace);
  EXPECT_EQ(x.mismatched, 0u);
  EXPECT_EQ(x.unmatched, 0u);
  ASSERT_EQ(x.matches.size(), 15u);
  int late_matches = 0;
  for (const analysis::MatchedCollective& m : x.matches) {
    ASSERT_EQ(m.parts.size(), 2u);
    if (m.step != 2) {
      EXPECT_EQ(m.max_wait_ns, 0);
      continue;
    }
    // Step 2: rank 1 (trace index 1) is late; rank 0 waited the 2 ms at the first collective.
    if (m.max_wait_ns == 0) continue;
    ++late_matches;
    EXPECT_EQ(m.late, 1);
    EXPECT_EQ(m.type, CollectiveType::kAllReduce);
    EXPECT_EQ(m.max_wait_ns, kLateUs * 1000);
  }
  EXPECT_EQ(late_matches, 1);
  ASSERT_EQ(x.wait.size(), 2u);
  int64_t waited = 0;
  for (const analysis::Interval& i : x.wait[0]) waited += i.end - i.start;
  EXPECT_EQ(waited, kLateUs * 1000);
}

}  // namespace
}  // namespace commdx
