// Kineto importer: every format variant in tests/data/traces (made by make_traces.py, whose
// comments give the expected numbers) parses into the right model.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "ingest/kineto/json/json_values.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/load_inputs.h"
#include "ingest/registry.h"
#include "ingest/trace_build/interner.h"
#include "ingest/trace_build/names.h"
#include "ingest/trace_build/rank_builder.h"
#include "ingest/trace_build/unescape.h"

namespace commdx {
namespace {

std::string Data(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/" + name;
}

Job Load(const std::vector<std::string>& names, size_t part_bytes = 8u << 20) {
  std::vector<std::string> in;
  for (const auto& n : names) in.push_back(Data(n));
  ingest::LoadOptions o = ingest::ForcedKind(InputKind::kKineto);
  o.stream.part_bytes = part_bytes;
  auto job = ingest::LoadInputs(in, o);
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(*job) : Job{};
}

const Collective* FirstOf(const RankTrace& t, CollectiveType type) {
  for (const auto& c : t.collectives)
    if (c.type == type) return &c;
  return nullptr;
}

TEST(KinetoIngest, NewFormatRelativeMicrosAfterBase) {
  Job job = Load({"kineto_2024_rank0.json"});
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.rank_source, "distributedInfo");
  EXPECT_EQ(t.world_size, 2);
  EXPECT_EQ(t.nccl_version, "2.21.5");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(t.devices[0].sm_count, 132);
  // ts 1100.0 µs after the base -> absolute ns, exact.
  const int64_t base = 1727000000000000000;
  ASSERT_FALSE(t.gpu_ops.empty());
  EXPECT_EQ(t.gpu_ops.front().start_ns, base + 1'100'000);
  EXPECT_EQ(t.gpu_ops.front().end_ns, base + 2'600'000);
  // Steps from ProfilerStep#1,#2 on the main thread; windows tile the GPU timeline.
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.step_source, StepSource::kProfilerStep);
  EXPECT_EQ(t.steps[0].number, 1);
  EXPECT_EQ(t.steps[0].start_ns, base);
  EXPECT_EQ(t.steps[0].end_ns, t.steps[1].start_ns);
  EXPECT_EQ(t.steps[1].start_ns, base + 10'000'000);
  EXPECT_EQ(t.steps[1].end_ns, base + 20'000'000);
  EXPECT_EQ(t.threads[t.main_thread].name, "thread 100 (python3)");
  // Launches linked by correlation, collectives with every arg.
  for (const auto& op : t.gpu_ops) EXPECT_GE(op.launch, 0);
  ASSERT_EQ(t.collectives.size(), 2u);
  const Collective& c = t.collectives[0];
  EXPECT_EQ(c.type, CollectiveType::kAllReduce);
  EXPECT_TRUE(c.from_args);
  EXPECT_EQ(c.in_nelems, 8388608);
  EXPECT_EQ(c.bytes, 8388608u * 4);  // Float
  EXPECT_EQ(c.seq, 0);
  EXPECT_EQ(c.grid_x, 24);
  EXPECT_EQ(c.group_size, 2);
  ASSERT_GE(c.pg, 0);
  EXPECT_EQ(t.process_groups[c.pg].name, "0");
  EXPECT_EQ(t.process_groups[c.pg].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(t.gpu_ops[c.gpu_op].kind, GpuOpKind::kCommKernel);
  // The comm stream is known as such, the compute stream not.
  for (const auto& s : t.streams) EXPECT_EQ(s.is_comm, s.stream == 17) << s.stream;
  EXPECT_EQ(t.gpu_annotations.size(), 1u);
  // One rank of a world of two: the other is named as missing, and nothing else is noted.
  ASSERT_EQ(job.quality.entries().size(), 1u);
  EXPECT_EQ(job.quality.entries()[0].id, "kineto.missing_ranks");
  EXPECT_EQ(job.trace.missing_ranks, std::vector<int>{1});
}

TEST(KinetoIngest, OldFormatEpochMicrosFlowsAndRankFromName) {
  Job job = Load({"kineto_2021_trace_3.json"});
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.rank_source, "file name");
  const Collective* c = FirstOf(t, CollectiveType::kAllReduce);
  ASSERT_NE(c, nullptr);
  // Integer µs since the epoch, exact in ns.
  EXPECT_EQ(c->start_ns, (1630000000000000LL + 200) * 1000);
  // No correlation in the kernel's args: linked through the async_cpu_to_gpu flow.
  EXPECT_GE(t.gpu_ops[c->gpu_op].launch, 0);
  // Args from record_param_comms through the shared External id; Half = 2 bytes.
  EXPECT_TRUE(c->from_args);
  EXPECT_EQ(c->bytes, 2048u);
  EXPECT_EQ(c->group_size, 4);
  EXPECT_EQ(c->grid_x, 8);
  EXPECT_EQ(t.gpu_ops[c->gpu_op].stream, 13);
  // The copy: "Memcpy" category of that era, direction from the name.
  auto copy = std::find_if(t.gpu_ops.begin(), t.gpu_ops.end(),
                           [](const GpuOp& op) { return op.kind == GpuOpKind::kMemcpy; });
  ASSERT_NE(copy, t.gpu_ops.end());
  EXPECT_EQ(copy->copy, CopyKind::kHtoD);
  EXPECT_EQ(copy->bytes, 1048576u);
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.steps[0].number, 7);
}

TEST(KinetoIngest, CpuOnlyTraceSaysThereIsNoGpuWork) {
  // HTA's public CPU-only trace (tests/data/public_traces/README.md): ProfilerActivity.CPU only.
  Job job =
      Load({"../public_traces/cpu_only_rank34/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"});
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  EXPECT_TRUE(job.trace.ranks[0].gpu_ops.empty());
  EXPECT_EQ(job.quality.Count("kineto.no_gpu_activity"), 1u);
  // A trace with GPU work has no such note.
  Job gpu = Load({"display_ns_rank1.json"});
  EXPECT_EQ(gpu.quality.Count("kineto.no_gpu_activity"), 0u);
}

TEST(KinetoIngest, DisplayTimeUnitNsRocmAndUnknownCategory) {
  Job job = Load({"display_ns_rank1.json"});
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.rank, 1);
  // displayTimeUnit only changes how viewers show time: ts stays µs (base given at the end).
  ASSERT_EQ(t.gpu_ops.size(), 1u);
  EXPECT_EQ(t.gpu_ops[0].end_ns - t.gpu_ops[0].start_ns, 500'000);
  EXPECT_EQ(t.gpu_ops[0].start_ns, 1727000000000000000 + 30'000);
  // Generic NCCL kernel without args: communication, collective unknown.
  EXPECT_EQ(t.gpu_ops[0].kind, GpuOpKind::kCommKernel);
  ASSERT_EQ(t.collectives.size(), 1u);
  EXPECT_EQ(t.collectives[0].type, CollectiveType::kUnknown);
  EXPECT_GE(t.gpu_ops[0].launch, 0);  // hipLaunchKernel
  // "mtia_mystery": another device's activity, counted as seen and not analysed.
  EXPECT_EQ(job.quality.Count("kineto.other_device_activity"), 1u);
  EXPECT_EQ(job.quality.Count("kineto.unknown_category"), 0u);
}

TEST(KinetoIngest, CpuOnlyGlooTrace) {
  Job job = Load({"cpu_only_rank0.json"});
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_FALSE(t.has_gpu);
  EXPECT_EQ(t.backend, "gloo");
  ASSERT_EQ(t.collectives.size(), 2u);
  EXPECT_EQ(t.collectives[0].type, CollectiveType::kBroadcast);
  EXPECT_EQ(t.collectives[0].gpu_op, -1);
  EXPECT_EQ(t.collectives[0].bytes, 80u);  // 10 x Long
  EXPECT_EQ(t.steps.size(), 2u);
}

TEST(KinetoIngest, MinifiedAndRetriedPartsGiveTheSameModel) {
  Job pretty = Load({"kineto_2024_rank0.json"});
  Job mini = Load({"minified_rank0.json"});
  // Tiny parts force many cuts; the nested arg lists make some cuts fall inside an event, which
  // must be retried rather than accepted.
  Job nested = Load({"nested_args_rank0.json"}, 600);
  const RankTrace& a = pretty.trace.ranks[0];
  for (const Job* j : {&mini, &nested}) {
    const RankTrace& b = j->trace.ranks[0];
    ASSERT_EQ(b.gpu_ops.size(), a.gpu_ops.size());
    ASSERT_EQ(b.collectives.size(), a.collectives.size());
    for (size_t i = 0; i < a.gpu_ops.size(); ++i) {
      EXPECT_EQ(b.gpu_ops[i].end_ns - b.gpu_ops[i].start_ns,
                a.gpu_ops[i].end_ns - a.gpu_ops[i].start_ns);
      EXPECT_EQ(b.Name(b.gpu_ops[i].name), a.Name(a.gpu_ops[i].name));
    }
    EXPECT_EQ(b.steps.size(), a.steps.size());
    for (const auto& e : j->quality.entries()) EXPECT_EQ(e.id, "kineto.missing_ranks");
  }
}

TEST(KinetoIngest, GzipIsInflatedOnTheFly) {
  // The registry path (whole file in memory) and the streamed one agree.
  auto imp = ingest::FindImporter("kineto");
  ASSERT_NE(imp, nullptr);
  auto text = ReadFile(Data("kineto_2024_rank0.json"));
  ASSERT_TRUE(text);
  EXPECT_TRUE(imp->sniff(text->data.substr(0, 4096)));
  Job job;
  ASSERT_TRUE(imp->parse(*text, job));
  imp->finish(job);
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  EXPECT_EQ(job.trace.ranks[0].gpu_ops.size(),
            Load({"kineto_2024_rank0.json"}).trace.ranks[0].gpu_ops.size());
}

TEST(KinetoNames, NcclKernelsOfEveryEra) {
  using ingest::trace_build::CollectiveFromArgName;
  using ingest::trace_build::CollectiveFromKernelName;
  using ingest::trace_build::IsCommKernelName;
  EXPECT_TRUE(IsCommKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
  EXPECT_TRUE(IsCommKernelName(
      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(IsCommKernelName("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(IsCommKernelName("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_FALSE(IsCommKernelName("void at::native::vectorized_elementwise_kernel<4>(int)"));
  EXPECT_FALSE(IsCommKernelName("ncclGroupEnd"));
  EXPECT_EQ(CollectiveFromKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(x)"),
            CollectiveType::kAllReduce);
  EXPECT_EQ(CollectiveFromKernelName("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(x)"),
            CollectiveType::kReduceScatter);
  EXPECT_EQ(CollectiveFromKernelName("ncclDevKernel_AllGather_RING_LL(x)"),
            CollectiveType::kAllGather);
  EXPECT_EQ(CollectiveFromKernelName("ncclDevKernel_SendRecv(x)"), CollectiveType::kSendRecv);
  EXPECT_EQ(CollectiveFromKernelName("ncclDevKernel_Generic(x)"), CollectiveType::kUnknown);
  EXPECT_EQ(CollectiveFromArgName("_allgather_base"), CollectiveType::kAllGather);
  EXPECT_EQ(CollectiveFromArgName("allgather_into_tensor_coalesced"), CollectiveType::kAllGather);
  EXPECT_EQ(CollectiveFromArgName("_reduce_scatter_base"), CollectiveType::kReduceScatter);
  EXPECT_EQ(CollectiveFromArgName("all_to_allv"), CollectiveType::kAllToAll);
  EXPECT_EQ(CollectiveFromArgName("allreduce_coalesced"), CollectiveType::kAllReduce);
  EXPECT_EQ(CollectiveFromArgName("recv"), CollectiveType::kRecv);
  EXPECT_EQ(CollectiveFromArgName("reduce"), CollectiveType::kReduce);
  EXPECT_EQ(CollectiveFromArgName("wait"), CollectiveType::kUnknown);
}

TEST(KinetoNames, RankFromFileName) {
  using ingest::trace_build::RankFromFileName;
  EXPECT_EQ(RankFromFileName("/x/trace_rank3.json.gz"), 3);
  EXPECT_EQ(RankFromFileName("rank-12.json"), 12);
  EXPECT_EQ(RankFromFileName("Rank_0_step.json"), 0);
  EXPECT_EQ(RankFromFileName("worker_3.json"), 3);
  EXPECT_EQ(RankFromFileName("worker_3.json.gz"), 3);
  // tensorboard_trace_handler names end in the pid, not the rank.
  EXPECT_EQ(RankFromFileName("host1_12345.1700000000000.pt.trace.json"), -1);
  EXPECT_EQ(RankFromFileName("trace.json"), -1);
}

TEST(KinetoTime, MicrosToNanosIsExact) {
  int64_t ns = 0;
  ASSERT_TRUE(ingest::kineto::ParseMicrosToNs("1727000000123456", ns));
  EXPECT_EQ(ns, 1727000000123456000LL);
  ASSERT_TRUE(ingest::kineto::ParseMicrosToNs("5160728065674.523", ns));
  EXPECT_EQ(ns, 5160728065674523LL);
  ASSERT_TRUE(ingest::kineto::ParseMicrosToNs("0.8", ns));
  EXPECT_EQ(ns, 800);
  ASSERT_TRUE(ingest::kineto::ParseMicrosToNs("-4.5", ns));
  EXPECT_EQ(ns, -4500);
  ASSERT_TRUE(ingest::kineto::ParseMicrosToNs("1.2345", ns));  // rounds the 4th decimal
  EXPECT_EQ(ns, 1235);
  ASSERT_TRUE(ingest::kineto::ParseMicrosToNs("1.5e3", ns));
  EXPECT_EQ(ns, 1'500'000);
  EXPECT_FALSE(ingest::kineto::ParseMicrosToNs("NaN", ns));
  EXPECT_FALSE(ingest::kineto::ParseMicrosToNs("null", ns));
  EXPECT_FALSE(ingest::kineto::ParseMicrosToNs("\"soon\"", ns));
  EXPECT_FALSE(ingest::kineto::ParseMicrosToNs("", ns));
}

}  // namespace
}  // namespace commdx

namespace commdx {
namespace {

TEST(KinetoNames, EscapedNamesAreUnescapedOnce) {
  using ingest::trace_build::JsonUnescape;
  EXPECT_EQ(JsonUnescape(R"(plain)"), "plain");
  EXPECT_EQ(JsonUnescape(R"(say \"hi\" \\ \/ \n)"), "say \"hi\" \\ / \n");
  EXPECT_EQ(JsonUnescape(R"(caf\u00e9)"), "caf\xc3\xa9");
  EXPECT_EQ(JsonUnescape(R"(\ud83d\ude00)"), "\xf0\x9f\x98\x80");  // surrogate pair
  EXPECT_EQ(JsonUnescape(R"(bad \u12)"), "bad ?12");  // a broken escape becomes ?, the rest stays
  ingest::trace_build::Interner in;
  uint32_t a = in.InternRaw(R"(fn(\"x\"))");
  uint32_t b = in.Intern("fn(\"x\")");
  EXPECT_EQ(a, b);  // raw and unescaped forms are one name
  EXPECT_EQ(in.InternRaw(R"(fn(\"x\"))"), a);
  EXPECT_EQ(in.Lookup(a), "fn(\"x\")");
}

TEST(KinetoNames, HashDependsOnTheBytesOnly) {
  // Every length around the 4- and 8-byte reads, from views at every offset of a buffer: the
  // hash is the same as that of an exact copy, and one changed byte changes it (past 32 bytes
  // only the first and last 16 are hashed, by design: the table confirms every hit).
  using ingest::trace_build::Interner;
  const std::string text = "aten::_local_scalar_dense_with_a_long_tail";
  for (size_t len = 0; len <= 40; ++len) {
    for (size_t at = 0; at + len <= text.size(); at += 3) {
      std::string_view view(text.data() + at, len);
      std::string copy(view);
      ASSERT_EQ(Interner::Hash(view), Interner::Hash(copy)) << len << " at " << at;
      if (len == 0) continue;
      for (size_t i = 0; i < len; ++i) {
        if (len > 32 && i >= 16 && i < len - 16) continue;
        std::string changed = copy;
        changed[i] ^= 0x01;
        EXPECT_NE(Interner::Hash(changed), Interner::Hash(copy)) << len << " byte " << i;
      }
    }
  }
}

}  // namespace
}  // namespace commdx
