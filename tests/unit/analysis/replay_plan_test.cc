// The replay plan from each input, on real recordings: DDP and FSDP Kineto traces, an Nsight
// Systems export, NCCL Inspector JSONL, Flight Recorder dumps and NCCL COLL lines of one job.
#include "analysis/replay_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ingest/load_inputs.h"

namespace commdx::analysis {
namespace {

const std::string kRoot = COMMDX_SOURCE_DIR "/";

Job Load(const std::vector<std::string>& rel) {
  std::vector<std::string> paths;
  for (const std::string& r : rel) paths.push_back(kRoot + r);
  auto loaded = ingest::LoadInputs(paths);
  EXPECT_TRUE(loaded) << (loaded ? "" : loaded.error().message);
  return loaded ? std::move(*loaded) : Job{};
}

ReplayPlan PlanOf(const std::vector<std::string>& rel) { return BuildReplayPlan(Load(rel)); }

size_t CountOfType(const ReplayGroup& g, CollectiveType type) {
  return std::count_if(g.calls.begin(), g.calls.end(),
                       [type](const ReplayCall& c) { return c.type == type; });
}

bool HasLine(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

// (type, dtype, count) of each call: what two inputs of one job must agree on.
std::vector<std::tuple<CollectiveType, int, uint64_t>> Shapes(const ReplayGroup& g) {
  std::vector<std::tuple<CollectiveType, int, uint64_t>> out;
  for (const ReplayCall& c : g.calls) out.emplace_back(c.type, c.dtype, c.count);
  return out;
}

TEST(BuildReplayPlan, DdpTracesGiveElevenFloatAllReducesPerStep) {
  ReplayPlan plan = PlanOf(
      {"examples/ddp_healthy/trace_rank0.json.gz", "examples/ddp_healthy/trace_rank1.json.gz"});
  EXPECT_EQ(plan.source, "trace");
  EXPECT_EQ(plan.world_size, 2);
  ASSERT_EQ(plan.files.size(), 1u);  // rank 0 speaks for the group
  EXPECT_NE(plan.files[0].find("trace_rank0"), std::string::npos);
  ASSERT_EQ(plan.groups.size(), 1u);
  const ReplayGroup& g = plan.groups[0];
  EXPECT_EQ(g.name, "0");
  EXPECT_EQ(g.desc, "default_pg");
  EXPECT_EQ(g.ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(g.size, 2);
  EXPECT_EQ(g.source_rank, 0);
  EXPECT_EQ(g.steps, 3);
  ASSERT_EQ(g.calls.size(), 33u);
  EXPECT_EQ(CountOfType(g, CollectiveType::kAllReduce), 33u);
  // The first gradient bucket: 8,388,608 float32 = 32 MiB, summed.
  EXPECT_EQ(g.calls[0].count, 8388608u);
  EXPECT_EQ(g.calls[0].bytes, 33554432u);
  for (size_t i = 0; i < g.calls.size(); ++i) {
    const ReplayCall& c = g.calls[i];
    EXPECT_EQ(c.dtype, 7) << i;
    EXPECT_EQ(c.red_op, 0) << i;
    EXPECT_EQ(c.root, -1) << i;
    EXPECT_EQ(c.bytes, c.count * 4) << i;
    EXPECT_EQ(c.step, static_cast<int32_t>(i / 11)) << i;  // 11 buckets a step
    EXPECT_GT(c.in_job_ns, 0) << i;
    EXPECT_GE(c.wait_ns, 0) << i;  // both ranks traced: every call matched
    EXPECT_LE(c.wait_ns, c.in_job_ns) << i;
    if (i >= 11) {
      EXPECT_EQ(c.count, g.calls[i - 11].count) << i;  // the same buckets each step
    }
  }
  EXPECT_TRUE(plan.left_out.empty());
  EXPECT_TRUE(HasLine(plan.assumed, "replayed as sum"));
}

TEST(BuildReplayPlan, StragglerTraceShowsRankZeroWaitingInFirstBucket) {
  // Rank 1 runs ~20 ms of extra work before each forward: rank 0 waits in the first bucket.
  ReplayPlan plan = PlanOf(
      {"examples/ddp_straggler/trace_rank0.json.gz", "examples/ddp_straggler/trace_rank1.json.gz"});
  ASSERT_EQ(plan.groups.size(), 1u);
  const ReplayGroup& g = plan.groups[0];
  ASSERT_EQ(g.calls.size(), 33u);
  for (size_t step = 0; step < 3; ++step) {
    const ReplayCall& first = g.calls[step * 11];
    EXPECT_GT(first.wait_ns, 15'000'000) << step;
    EXPECT_LT(first.in_job_ns - first.wait_ns, 2'000'000) << step;  // the transfer itself
    EXPECT_LT(g.calls[step * 11 + 1].wait_ns, 5'000'000) << step;
  }
  // Kernels of the step before the trace began: no arguments, so no size.
  EXPECT_EQ(plan.left_out,
            (std::vector<std::string>{"group unknown: 10 all_reduce calls left out: launched "
                                      "before the trace began, so its size is not in it"}));
}

TEST(BuildReplayPlan, AlltoallCountsPerPeerAndP2pKeepsThePeer) {
  ReplayPlan a2a = PlanOf({"examples/alltoall_healthy/trace_rank0.json.gz",
                           "examples/alltoall_healthy/trace_rank1.json.gz"});
  ASSERT_EQ(a2a.groups.size(), 1u);
  auto it = std::find_if(a2a.groups[0].calls.begin(), a2a.groups[0].calls.end(),
                         [](const ReplayCall& c) { return c.type == CollectiveType::kAllToAll; });
  ASSERT_NE(it, a2a.groups[0].calls.end());
  // 5,242,880 bfloat16 sent in all, 2,621,440 to each of the 2 ranks; nccl-tests' size is the
  // whole send buffer.
  EXPECT_EQ(it->dtype, 9);
  EXPECT_EQ(it->count, 2621440u);
  EXPECT_EQ(it->bytes, 10485760u);
  EXPECT_EQ(it->red_op, -1);

  ReplayPlan pp = PlanOf({"examples/pipeline_healthy/trace_rank0.json.gz",
                          "examples/pipeline_healthy/trace_rank1.json.gz"});
  ASSERT_EQ(pp.groups.size(), 1u);
  const ReplayGroup& g = pp.groups[0];
  EXPECT_EQ(CountOfType(g, CollectiveType::kSend) + CountOfType(g, CollectiveType::kRecv),
            g.calls.size());
  ASSERT_FALSE(g.calls.empty());
  for (const ReplayCall& c : g.calls) {
    EXPECT_EQ(c.root, 1);  // rank 0's only peer
    EXPECT_EQ(c.count, 1048576u);
    EXPECT_EQ(c.bytes, 4194304u);
  }
}

// A 4-rank capture (tests/data/replay_subgroups): groups of two beside the world group, and a
// batch_isend_irecv of 2 MiB to rank+2 and from rank-2 whose one SendRecv kernel has no
// arguments; its send and receive are the record_param_comms ops before the launch.
TEST(BuildReplayPlan, SmallerGroupsAndACoalescedSendReceiveBatch) {
  const std::string dir = "tests/data/replay_subgroups/";
  Job job = Load({dir + "trace_rank0.json.gz", dir + "trace_rank1.json.gz",
                  dir + "trace_rank2.json.gz", dir + "trace_rank3.json.gz"});
  ASSERT_EQ(job.trace.ranks.size(), 4u);
  const RankTrace& t0 = job.trace.ranks[0];
  size_t batches = 0;
  for (const Collective& c : t0.collectives)
    if (c.type == CollectiveType::kSendRecv) {
      ++batches;
      EXPECT_EQ(c.peer, 2);
      EXPECT_EQ(c.bytes, 2u << 20);
      ASSERT_GE(c.pg, 0);
      EXPECT_EQ(t0.process_groups[c.pg].name, "0");
    }
  EXPECT_EQ(batches, 3u);  // one per profiled step

  ReplayPlan plan = BuildReplayPlan(job);
  EXPECT_EQ(plan.world_size, 4);
  auto group = [&plan](const std::string& name) -> const ReplayGroup* {
    for (const ReplayGroup& g : plan.groups)
      if (g.name == name) return &g;
    return nullptr;
  };
  const ReplayGroup* world = group("0");
  ASSERT_NE(world, nullptr);
  EXPECT_EQ(world->size, 4);
  EXPECT_EQ(CountOfType(*world, CollectiveType::kAllReduce), 3u);
  EXPECT_EQ(CountOfType(*world, CollectiveType::kSend), 3u);  // the batches, as sends to rank+2
  for (const ReplayCall& c : world->calls)
    if (c.type == CollectiveType::kSend) {
      EXPECT_EQ(c.root, 2);
      EXPECT_EQ(c.count, 524288u);
    }
  EXPECT_FALSE(HasLine(plan.left_out, "sendrecv"));
  // Rank 0's pair and its ranks two apart; rank 1's ranks two apart (group 4, ranks 1 and 3).
  const ReplayGroup* pair = group("1");
  const ReplayGroup* apart = group("4");
  ASSERT_NE(pair, nullptr);
  ASSERT_NE(apart, nullptr);
  EXPECT_EQ(pair->ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(apart->ranks, (std::vector<int>{1, 3}));
  EXPECT_EQ(apart->source_rank, 1);
  ASSERT_EQ(apart->calls.size(), 3u);
  EXPECT_EQ(apart->calls[0].count, 4194304u);  // 16 MiB of float
}

TEST(BuildReplayPlan, FsdpAllGatherCountsPerRankReduceScatterPerRankReceived) {
  ReplayPlan plan = PlanOf(
      {"examples/fsdp_healthy/trace_rank0.json.gz", "examples/fsdp_healthy/trace_rank1.json.gz"});
  ASSERT_EQ(plan.groups.size(), 1u);
  const ReplayGroup& g = plan.groups[0];
  EXPECT_EQ(
      CountOfType(g, CollectiveType::kAllGather) + CountOfType(g, CollectiveType::kReduceScatter),
      g.calls.size());
  for (const ReplayCall& c : g.calls) {
    int dtype_bytes = c.dtype == 9 ? 2 : 4;
    EXPECT_EQ(c.bytes, c.count * 2 * dtype_bytes);  // x 2 ranks
  }
  EXPECT_EQ(g.calls[0].type, CollectiveType::kAllGather);
  EXPECT_EQ(g.calls[0].count, 8393728u);
  EXPECT_EQ(g.calls[0].dtype, 9);
}

TEST(BuildReplayPlan, NsysExportAssumesByteExactDatatypesAndMatchesInspector) {
  // Two captures of the same workload (ddp.py --layers 2): Nsight Systems' NCCL payloads and the
  // Inspector plugin both give bytes and no datatype, and must give the same calls.
  ReplayPlan nsys = PlanOf({"examples/nsys_nodes2_straggler_job/report.sqlite.gz"});
  ReplayPlan insp = PlanOf({"tests/data/inspector/ddp_healthy"});
  EXPECT_EQ(nsys.source, "trace");
  EXPECT_EQ(insp.source, "inspector");
  ASSERT_EQ(nsys.groups.size(), 1u);
  ASSERT_EQ(insp.groups.size(), 1u);
  const ReplayGroup& n = nsys.groups[0];
  const ReplayGroup& i = insp.groups[0];
  EXPECT_EQ(n.name, "0x31db190105a04f17");  // NCCL's communicator id
  EXPECT_EQ(i.name, "0x9b08cb12e3d529");
  EXPECT_EQ(i.size, 2);
  EXPECT_EQ(i.source_rank, 0);
  ASSERT_EQ(i.calls.size(), 76u);
  EXPECT_EQ(CountOfType(i, CollectiveType::kAllReduce), 69u);
  EXPECT_EQ(CountOfType(i, CollectiveType::kAllGather), 3u);
  EXPECT_EQ(CountOfType(i, CollectiveType::kBroadcast), 4u);
  // The captures' steps ran in another order around the loss all_reduce of 1 float: the same
  // calls, and the same start (the model's setup, then the first step's buckets).
  auto ns = Shapes(n), is = Shapes(i);
  EXPECT_TRUE(std::equal(ns.begin(), ns.begin() + 11, is.begin()));
  std::sort(ns.begin(), ns.end());
  std::sort(is.begin(), is.end());
  EXPECT_EQ(ns, is);
  // The first call: all_gather of 8 bytes per rank, as uint8; the model's broadcast of
  // 167,919,616 bytes; its first all_reduce as float32.
  EXPECT_EQ(i.calls[0].type, CollectiveType::kAllGather);
  EXPECT_EQ(i.calls[0].dtype, 1);
  EXPECT_EQ(i.calls[0].count, 8u);
  EXPECT_EQ(i.calls[0].bytes, 16u);
  EXPECT_EQ(i.calls[0].in_job_ns, 2525000);
  EXPECT_EQ(i.calls[2].count, 167919616u);
  EXPECT_EQ(i.calls[2].root, 0);
  EXPECT_EQ(i.calls[3].type, CollectiveType::kAllReduce);
  EXPECT_EQ(i.calls[3].dtype, 7);
  EXPECT_EQ(i.calls[3].count, 41979904u);
  for (const ReplayCall& c : i.calls) {
    EXPECT_GT(c.in_job_ns, 0);
    EXPECT_GE(c.wait_ns, 0);  // both ranks' records: every collective complete
  }
  for (const ReplayPlan* p : {&nsys, &insp})
    EXPECT_TRUE(HasLine(p->assumed, "no datatypes")) << p->source;
  EXPECT_TRUE(insp.left_out.empty());
  ASSERT_EQ(insp.files.size(), 1u);
  EXPECT_NE(insp.files[0].find("vm-pid1052.log"), std::string::npos);
  // The trace has steps; Inspector none.
  EXPECT_EQ(n.steps, 3);
  EXPECT_EQ(i.steps, 0);
}

TEST(BuildReplayPlan, FlightRecorderAndCollLinesOfOneJobAgree) {
  const std::string dir = "tests/data/hang/nodes2_healthy/";
  // The pickle and the JSON of each rank: one dump per rank is read for the plan.
  ReplayPlan fr = PlanOf({dir + "fr_manual_rank0.json", dir + "fr_manual_rank1.json",
                          dir + "fr_manual_rank0.pickle", dir + "fr_manual_rank1.pickle"});
  ReplayPlan coll = PlanOf({dir + "nccl.vm.1238.log", dir + "nccl.vm.1239.log"});
  EXPECT_EQ(fr.source, "flight_recorder");
  EXPECT_EQ(coll.source, "nccl_log");
  EXPECT_EQ(fr.world_size, 2);
  EXPECT_EQ(coll.world_size, 2);
  ASSERT_EQ(fr.groups.size(), 1u);
  ASSERT_EQ(coll.groups.size(), 1u);
  const ReplayGroup& f = fr.groups[0];
  const ReplayGroup& c = coll.groups[0];
  EXPECT_EQ(f.name, "0");
  EXPECT_EQ(f.ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(f.source_rank, 0);
  EXPECT_EQ(c.name, "0xd180c16edac5f3ed");
  EXPECT_EQ(c.source_rank, 0);
  ASSERT_EQ(f.calls.size(), 24u);
  EXPECT_EQ(Shapes(f), Shapes(c));
  // _all_gather_base of 1,048,576 bfloat16 in, 2,097,152 out: NCCL's count is what one rank
  // sends; _reduce_scatter_base of 1,048,576 in, 524,288 out: what one rank receives.
  EXPECT_EQ(f.calls[4].type, CollectiveType::kAllGather);
  EXPECT_EQ(f.calls[4].count, 1048576u);
  EXPECT_EQ(f.calls[4].bytes, 4194304u);
  EXPECT_EQ(f.calls[5].type, CollectiveType::kReduceScatter);
  EXPECT_EQ(f.calls[5].count, 524288u);
  EXPECT_EQ(f.calls[5].red_op, 0);
  EXPECT_EQ(f.calls[7].dtype, 4);  // all_gather of one Long
  for (size_t k = 0; k < f.calls.size(); ++k) {
    EXPECT_EQ(f.calls[k].seq, static_cast<int64_t>(k + 1));
    // Timed until the 14th entry, when the dump was taken; COLL lines never are.
    EXPECT_EQ(f.calls[k].in_job_ns > 0, k < 14) << k;
    EXPECT_EQ(c.calls[k].in_job_ns, -1);
    EXPECT_EQ(c.calls[k].seq, static_cast<int64_t>(k));  // opCount
  }
  EXPECT_EQ(f.calls[0].in_job_ns, 63062943);  // duration_ms 63.06294250488281
  ASSERT_EQ(fr.files.size(), 1u);
  EXPECT_NE(fr.files[0].find("fr_manual_rank0.json"), std::string::npos);
  EXPECT_NE(coll.files[0].find("nccl.vm.1238.log"), std::string::npos);
  EXPECT_TRUE(fr.left_out.empty());
  EXPECT_TRUE(coll.left_out.empty());
  EXPECT_TRUE(coll.assumed.empty());  // COLL lines give the operator and the root
}

// Entries NCCL cannot replay, in a real dump: its entries turned into what it has no call for.
TEST(BuildReplayPlan, CallsWithNoNcclCallAreCountedNotDropped) {
  Job job = Load({"tests/data/hang/nodes2_healthy/fr_manual_rank0.json"});
  ASSERT_EQ(job.flight.size(), 1u);
  std::vector<FrEntry>& e = job.flight[0].entries;
  ASSERT_EQ(e.size(), 24u);
  e[2].profiling_name = "nccl:all_reduce_barrier";
  e[3].profiling_name = "nccl:gather";
  e[4].profiling_name = "nccl:coalesced";
  e[5].input_dtypes = {"ComplexFloat"};
  e[8].input_sizes.clear();
  // The ring buffer wrapped: the group's first two calls were dropped.
  e.erase(e.begin(), e.begin() + 2);
  for (FrEntry& x : e) x.record_id += 100;
  ReplayPlan plan = BuildReplayPlan(job);
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].calls.size(), 17u);
  EXPECT_EQ(plan.left_out,
            (std::vector<std::string>{
                "group 0: 1 unknown call left out: 'nccl:coalesced' names no one NCCL call",
                "group 0: 2 unknown calls left out: issued before the dump's oldest entry (the "
                "Flight Recorder's ring buffer had dropped them)",
                "group 0: 1 reduce_scatter call left out: NCCL has no datatype for 'ComplexFloat'",
                "group 0: 1 broadcast call left out: its size is not known or is 0",
                "group 0: 1 gather call left out: NCCL has no gather or scatter call (PyTorch "
                "runs one as sends and receives)",
                "group 0: 1 barrier call left out: NCCL has no barrier call (PyTorch runs one as "
                "a 1-element all_reduce)"}));
}

TEST(BuildReplayPlan, ASourceWithNothingToReplayGivesWayToTheNext) {
  Job job = Load({"tests/data/hang/nodes2_healthy/fr_manual_rank0.json",
                  "tests/data/hang/nodes2_healthy/nccl.vm.1238.log"});
  for (FrEntry& e : job.flight[0].entries) e.profiling_name = "nccl:all_reduce_barrier";
  ReplayPlan plan = BuildReplayPlan(job);
  EXPECT_EQ(plan.source, "nccl_log");
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].calls.size(), 24u);
  ASSERT_GE(plan.left_out.size(), 2u);
  EXPECT_EQ(plan.left_out[0], "The Flight Recorder dumps give no call that can be replayed:");
  EXPECT_EQ(plan.left_out[1],
            "  group 0: 24 barrier calls left out: NCCL has no barrier call (PyTorch runs one as "
            "a 1-element all_reduce)");
}

TEST(BuildReplayPlan, NoInputSaysWhatWouldDo) {
  ReplayPlan plan = BuildReplayPlan(Job{});
  EXPECT_TRUE(plan.source.empty());
  EXPECT_TRUE(plan.groups.empty());
  ASSERT_EQ(plan.left_out.size(), 1u);
  EXPECT_NE(plan.left_out[0].find("No input lists the job's collectives"), std::string::npos);
}

}  // namespace
}  // namespace commdx::analysis
