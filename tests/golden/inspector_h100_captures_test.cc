// Real output of NCCL's Inspector plugin as production writes it (issue 42), each case folder read
// whole as a user would pass it: the Prometheus files of NCCL 2.29 (one record per communicator
// and dump pass) and 2.30 (`version="v5.1"` buckets), healthy and with a 50 ms straggler, beside
// the job's NCCL logs (tests/data/inspector_prom/h100_2ranks/, README there), and 2.30's JSONL
// (tests/data/inspector/ddp_230_healthy/, README there). One H100, DDP over two ranks, plugins
// built from NVIDIA/nccl v2.29.3-1 and v2.30.7-1 loaded by NCCL 2.28.9; how.txt in each folder.
// Every expected number below was read from the capture's own lines (or computed from them, the
// arithmetic beside it), not from commdx's output. The straggler case checks what commdx must not
// do: name one late GPU from buckets whose waiting GPU changes from one bucket to the next.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "analysis/registry.h"
#include "ingest/load_inputs.h"
#include "unit/run_commdx.h"

namespace commdx {
namespace {

const std::string kProm =
    std::string(COMMDX_SOURCE_DIR) + "/tests/data/inspector_prom/h100_2ranks/";
const std::string kJsonl = std::string(COMMDX_SOURCE_DIR) + "/tests/data/inspector/ddp_230_healthy";

struct Loaded {
  Job job;
  std::vector<Finding> findings;
  std::vector<const Finding*> With(const std::string& id) const {
    std::vector<const Finding*> out;
    for (const Finding& f : findings)
      if (f.id == id) out.push_back(&f);
    return out;
  }
  std::set<std::string> Ids() const {
    std::set<std::string> ids;
    for (const Finding& f : findings) ids.insert(f.id);
    return ids;
  }
};

Loaded LoadFolder(const std::string& dir) {
  Loaded l;
  auto job = ingest::LoadInputs({dir});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  if (job) l.job = std::move(*job);
  l.findings = analysis::RunAnalyzers(l.job, {}, {Source::kLogs});
  return l;
}

// Every input-quality entry is a note: nothing was skipped as a bad line or an incomplete sample.
void ExpectOnlyNotes(const Job& job) {
  for (const DiagEntry& d : job.quality.entries())
    EXPECT_EQ(d.severity, DiagSeverity::kNote) << d.id << ": " << d.message;
}

// The inputs of a case folder: two NCCL logs and one .prom per rank (how.txt is skipped).
void ExpectPromFolderInputs(const Job& job) {
  ASSERT_EQ(job.inputs.size(), 4u);
  int logs = 0, prom = 0;
  for (const auto& in : job.inputs) {
    const std::string kind = InputKindsName(in.kinds);
    if (kind == "nccl_log") ++logs;
    if (kind == "inspector_prom") ++prom;
  }
  EXPECT_EQ(logs, 2);
  EXPECT_EQ(prom, 2);
}

bool FromRank(const SourceLoc& where, int rank) {
  return where.file.find("/rank" + std::to_string(rank) + "/") != std::string::npos;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// NCCL 2.29: per communicator the last collective of the dump pass, three samples with one label
// set; each rank's file holds one (3 lines, rank 0 coll_sn 899, rank 1 coll_sn 900).
TEST(InspectorH100Captures, Nccl229RecordPerRankReadFromItsLines) {
  Loaded l = LoadFolder(kProm + "p229_healthy");
  ExpectPromFolderInputs(l.job);
  ExpectOnlyNotes(l.job);
  EXPECT_TRUE(l.job.inspector_buckets.empty());  // the per-collective form, not buckets
  ASSERT_EQ(l.job.inspector.size(), 2u);
  const InspectorRecord* r0 = nullptr;
  const InspectorRecord* r1 = nullptr;
  for (const InspectorRecord& r : l.job.inspector) (r.rank == 0 ? r0 : r1) = &r;
  ASSERT_TRUE(r0 && r1);
  EXPECT_TRUE(FromRank(r0->where, 0)) << r0->where.file;
  EXPECT_TRUE(FromRank(r1->where, 1)) << r1->where.file;
  EXPECT_EQ(r0->where.line, 1u);  // the label set's first sample, nccl_algorithm_bandwidth_gbs
  for (const InspectorRecord* r : {r0, r1}) {
    EXPECT_EQ(r->comm_id, "0xb8c121ca01ec16");  // the plugin's "0x%lx" of commHash, cut to 16
    EXPECT_EQ(r->comm_name, "");                // 2.29 writes no name
    EXPECT_EQ(r->n_ranks, 2);
    EXPECT_EQ(r->nnodes, 2);  // NCCL_HOSTID per rank: two "nodes" on the one GPU machine
    EXPECT_EQ(r->hostname, "vm");
    EXPECT_EQ(r->coll, "AllReduce");
    EXPECT_EQ(r->exec_ns, 22541000);  // nccl_collective_exec_time_microseconds 22541 on both
    // timestamp="2026-12-06T06:02:21Z": 1796536941 s since the epoch.
    EXPECT_EQ(r->dump_ns, 1796536941LL * 1000000000);
  }
  EXPECT_EQ(r0->coll_sn, 899u);
  EXPECT_EQ(r1->coll_sn, 900u);
  // message_size="32.05MB" is MiB to two decimals: 32.05 x 1048576 = 33606860.8 -> 33606861 B.
  // Against the line's own numbers: algbw 1.49078 GB/s x 22541 us = 33,603,672 B = 32.047 MiB,
  // printed 32.05; and busbw = algbw x 2(n-1)/n = algbw for n = 2 (both samples 1.49078).
  EXPECT_EQ(r0->msg_bytes, 33606861u);
  EXPECT_DOUBLE_EQ(r0->algbw_gbps, 1.49078);
  EXPECT_DOUBLE_EQ(r0->busbw_gbps, 1.49078);
  // Rank 1: "32.03MB" = 32.03 x 1048576 = 33585889.3 -> 33585889 B; 1.49005 x 22541 us =
  // 33,587,217 B = 32.031 MiB.
  EXPECT_EQ(r1->msg_bytes, 33585889u);
  EXPECT_DOUBLE_EQ(r1->busbw_gbps, 1.49005);

  // The ranks last ran different all-reduces (899 and 900) when the pass came: nothing matches
  // across ranks, so nobody is named late and no transfer-only busbw is given.
  EXPECT_TRUE(l.With("inspector.late_rank").empty());
  auto sums = l.With("inspector.comm_summary");
  ASSERT_EQ(sums.size(), 1u);
  EXPECT_EQ(sums[0]->title,
            "Communicator 0xb8c121ca01ec16: 2 ranks on 2 node(s), network; 2 AllReduce recorded");
  EXPECT_FALSE(Has(sums[0]->detail, "(transfer")) << sums[0]->detail;
}

// One 2.30 bucket as its two samples print it.
struct Want {
  const char* op;
  uint64_t lo_mib;
  double busbw_gbps;
  double exec_us;
  uint32_t line;
};

// Each rank's file: three label sets in the order written, bus bandwidth then mean time.
void ExpectBuckets(const Job& job, int rank, const std::vector<Want>& want) {
  SCOPED_TRACE("rank " + std::to_string(rank));
  std::vector<const InspectorBucket*> got;
  for (const InspectorBucket& b : job.inspector_buckets)
    if (FromRank(b.where, rank)) got.push_back(&b);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const InspectorBucket& b = *got[i];
    EXPECT_EQ(b.op, want[i].op);
    EXPECT_FALSE(b.p2p);
    EXPECT_EQ(b.size_lo, want[i].lo_mib << 20);
    EXPECT_EQ(b.size_hi, (want[i].lo_mib + 1) << 20);  // "160-161MB": [160 MiB, 161 MiB)
    EXPECT_DOUBLE_EQ(b.busbw_gbps, want[i].busbw_gbps);
    EXPECT_DOUBLE_EQ(b.exec_us, want[i].exec_us);
    EXPECT_EQ(b.where.line, want[i].line);
    EXPECT_EQ(b.version, "v5.1");
    EXPECT_EQ(b.node, "vm");
    EXPECT_EQ(b.gpu, "GPU0");  // both ranks share the one GPU: same labels in both files
    EXPECT_EQ(b.comm, "unknown");
    EXPECT_EQ(b.rank, -1);  // no rank label in this form
    EXPECT_EQ(b.n_ranks, 2);
    EXPECT_EQ(b.nnodes, 2);
    EXPECT_EQ(b.algo_proto, "RING_SIMPLE");
    EXPECT_EQ(b.count, 0);  // this build writes no count samples
  }
}

// A 2.30 case folder: its inputs read without a warning, as buckets only, three per rank.
Loaded LoadBucketCase(const std::string& name, const std::vector<Want>& rank0,
                      const std::vector<Want>& rank1) {
  Loaded l = LoadFolder(kProm + name);
  ExpectPromFolderInputs(l.job);
  ExpectOnlyNotes(l.job);
  EXPECT_TRUE(l.job.inspector.empty());  // buckets only: no per-collective record
  EXPECT_EQ(l.job.inspector_buckets.size(), rank0.size() + rank1.size());
  ExpectBuckets(l.job, 0, rank0);
  ExpectBuckets(l.job, 1, rank1);
  return l;
}

// The bucket summary of a 2.30 case: one communicator, three keys from two files.
const Finding* BucketSummary(const Loaded& l) {
  auto sums = l.With("inspector.comm_summary");
  EXPECT_EQ(sums.size(), 1u);
  if (sums.size() != 1) return nullptr;
  // Both files say node="vm", gpu="GPU0": one GPU, two buckets per key.
  EXPECT_EQ(sums[0]->title,
            "Communicator (no name): 2 ranks on 2 node(s), 3 size buckets from 1 GPU(s)");
  EXPECT_TRUE(Has(sums[0]->detail, "format v5.1")) << sums[0]->detail;
  return sums[0];
}

TEST(InspectorH100Captures, Nccl230HealthyBucketsPerRank) {
  // The Broadcast bucket holds DDP's one parameter broadcast of 167919616 B (160.14 MiB, the
  // size the JSONL capture of the same job records): 167919616 B / 43080 us = 3.89786 GB/s, the
  // printed busbw exactly (Broadcast: busbw = algbw); rank 1: / 39175 us = 4.28640 GB/s.
  Loaded l = LoadBucketCase("p230_healthy",
                            {{"Broadcast", 160, 3.89786, 43080, 1},
                             {"AllReduce", 32, 1.57243, 21455, 3},
                             {"AllReduce", 160, 1.31654, 127546, 5}},
                            {{"Broadcast", 160, 4.2864, 39175, 1},
                             {"AllReduce", 32, 1.57399, 21434.3, 3},
                             {"AllReduce", 160, 1.80471, 93045, 5}});
  const Finding* sum = BucketSummary(l);
  ASSERT_NE(sum, nullptr);
  // 32-33MB: busbw 1.57243 and 1.57399 both print 1.57; mean (21455 + 21434.3) / 2 = 21444.65.
  EXPECT_TRUE(Has(sum->detail, "AllReduce 32-33MB RING_SIMPLE x2: 1.57 GB/s, 21445 us"))
      << sum->detail;
  EXPECT_TRUE(Has(sum->detail, "AllReduce 160-161MB RING_SIMPLE x2: 1.32-1.80 GB/s"))
      << sum->detail;
  EXPECT_TRUE(l.With("inspector.late_rank").empty());
  // No topology among the inputs: no expectation to hold the buckets to.
  EXPECT_TRUE(l.With("inspector.slow_collective_bw").empty());
}

// Rank 1 runs an extra 50 ms before each forward. Against healthy (21.5 / 21.4 ms and 127.5 /
// 93.0 ms) the 32-33MB bucket grows on rank 0 (44.8 ms: rank 0 waits there) and the 160-161MB one
// on rank 1 (189.2 ms: rank 1 waits there): which GPU waits depends on the bucket, so no late GPU
// can be named from one pass of buckets, and commdx names none (docs/findings/inspector.md).
TEST(InspectorH100Captures, Nccl230StragglerBucketsNameNoLateGpu) {
  // Broadcast: 167919616 B / 48017 us = 3.49709 GB/s, as printed.
  Loaded l = LoadBucketCase("p230_straggler",
                            {{"Broadcast", 160, 3.49709, 48017, 1},
                             {"AllReduce", 32, 1.04519, 44827.6, 3},
                             {"AllReduce", 160, 1.80417, 93073, 5}},
                            {{"Broadcast", 160, 3.5444, 47376, 1},
                             {"AllReduce", 32, 1.5873, 21257.1, 3},
                             {"AllReduce", 160, 0.887567, 189191, 5}});

  EXPECT_TRUE(l.With("inspector.late_rank").empty());
  for (const Finding& f : l.findings)
    EXPECT_FALSE(f.rank.has_value()) << f.id << " names rank " << *f.rank << ": " << f.title;
  // Nothing beyond what the healthy run of the same setup gets (the logs' findings and the
  // bucket summary): the straggler is not turned into a finding from the buckets.
  EXPECT_EQ(l.Ids(), LoadFolder(kProm + "p230_healthy").Ids());
  const Finding* sum = BucketSummary(l);
  ASSERT_NE(sum, nullptr);
  // The spread shows in the summary: 160-161MB 0.887567-1.80417 GB/s, mean (93073 + 189191) / 2
  // = 141132 us; 32-33MB 1.04519-1.5873 GB/s, (44827.6 + 21257.1) / 2 = 33042.35 us.
  EXPECT_TRUE(Has(sum->detail, "AllReduce 160-161MB RING_SIMPLE x2: 0.89-1.80 GB/s, 141132 us"))
      << sum->detail;
  EXPECT_TRUE(Has(sum->detail, "AllReduce 32-33MB RING_SIMPLE x2: 1.05-1.59 GB/s, 33042 us"))
      << sum->detail;
  EXPECT_TRUE(Has(sum->detail, "late ranks are not told apart")) << sum->detail;
}

// NCCL 2.30's JSONL: still format v4.0, the header now with "comm_name":"unknown". 398 lines per
// rank, every one a collective (397 AllReduce with coll_sn 0-397 but 6, 1 Broadcast #1), the same
// (collective, coll_sn) set on both ranks: counted with a script over the two files.
TEST(InspectorH100Captures, Nccl230JsonlCarriesTheCommunicatorName) {
  Loaded l = LoadFolder(kJsonl);
  ASSERT_EQ(l.job.inputs.size(), 2u);
  for (const auto& in : l.job.inputs) EXPECT_EQ(InputKindsName(in.kinds), "inspector");
  ASSERT_EQ(l.job.inspector.size(), 796u);
  EXPECT_TRUE(l.job.inspector_buckets.empty());
  int per_rank[2] = {0, 0}, broadcasts = 0;
  uint64_t ar_lo = UINT64_MAX, ar_hi = 0;
  for (const InspectorRecord& r : l.job.inspector) {
    ASSERT_TRUE(r.rank == 0 || r.rank == 1);
    ++per_rank[r.rank];
    EXPECT_EQ(r.comm_id, "0xc716b10523e2c8");
    EXPECT_EQ(r.comm_name, "unknown");
    EXPECT_EQ(r.n_ranks, 2);
    EXPECT_EQ(r.nnodes, 2);
    EXPECT_EQ(r.pid, r.rank == 0 ? 1531 : 1532);
    EXPECT_EQ(r.timing_source, "kernel_gpu");
    if (r.coll == "Broadcast") {
      ++broadcasts;
      EXPECT_EQ(r.msg_bytes, 167919616u);
    } else {
      EXPECT_EQ(r.coll, "AllReduce");
      ar_lo = std::min(ar_lo, r.msg_bytes);
      ar_hi = std::max(ar_hi, r.msg_bytes);
    }
  }
  EXPECT_EQ(per_rank[0], 398);
  EXPECT_EQ(per_rank[1], 398);
  EXPECT_EQ(broadcasts, 2);
  EXPECT_EQ(ar_lo, 32u << 20);   // DDP's 32 MiB gradient buckets (up to 33603584 B)
  EXPECT_EQ(ar_hi, 167919616u);  // and one all-reduce of 160.14 MiB
  // Line 1 of rank 0: Broadcast #1, 167919616 B in 54161 us: 167919616 / 54161 us = 3.10038
  // GB/s, the line's coll_algobw_gbs 3.100379.
  const InspectorRecord& first = l.job.inspector.front();
  ASSERT_EQ(first.where.line, 1u);
  EXPECT_EQ(first.rank, 0);
  EXPECT_EQ(first.coll, "Broadcast");
  EXPECT_EQ(first.coll_sn, 1u);
  EXPECT_EQ(first.exec_ns, 54161000);
  EXPECT_DOUBLE_EQ(first.algbw_gbps, 3.100379);

  // Only notes: AllReduce #6 is missing on each rank (2.30's plugin skips those under 8 KiB or
  // without kernel times), one gap of the 398 numbers 0-397 per rank.
  ExpectOnlyNotes(l.job);
  ASSERT_EQ(l.job.quality.entries().size(), 1u);
  const DiagEntry& gap = l.job.quality.entries()[0];
  EXPECT_EQ(gap.id, "inspector.sn_gaps");
  EXPECT_EQ(gap.count, 2u);
  EXPECT_TRUE(Has(gap.message, "1 of 398 AllReduce not recorded (NCCL 2.30's plugin"))
      << gap.message;

  EXPECT_TRUE(l.With("inspector.late_rank").empty());
  auto sums = l.With("inspector.comm_summary");
  ASSERT_EQ(sums.size(), 1u);
  // "unknown" is no name: the communicator is shown by its id alone.
  EXPECT_EQ(sums[0]->title,
            "Communicator 0xc716b10523e2c8: 2 ranks on 2 node(s), network; 397 AllReduce, "
            "1 Broadcast recorded");
  double collectives = -1;
  for (const auto& m : sums[0]->metrics)
    if (m.name == "collectives") collectives = m.value;
  EXPECT_EQ(collectives, 398);  // every (collective, coll_sn) on both ranks: all matched
}

// The report a user gets for each folder: read (exit 0, or 1 for error-level findings; not a
// refusal), the Inspector input recognised, its summary shown, nothing named late, and no
// placeholder number (-1, nan, inf) in the text.
TEST(InspectorH100Captures, DiagnoseReportsEachFolder) {
  for (const std::string& dir :
       {kProm + "p229_healthy", kProm + "p230_healthy", kProm + "p230_straggler", kJsonl}) {
    SCOPED_TRACE(dir);
    test_util::RunResult r = test_util::RunCommdx("diagnose '" + dir + "'");
    EXPECT_TRUE(r.code == 0 || r.code == 1) << r.code << "\n" << r.out;
    EXPECT_TRUE(Has(r.out, "inspector.comm_summary")) << r.out;
    EXPECT_FALSE(Has(r.out, "inspector.late_rank")) << r.out;
    EXPECT_FALSE(Has(r.out, "inspector_prom.")) << r.out;  // no bad line or incomplete sample
    for (const char* bad :
         {" -1 ", "-1 us", "-1 GB/s", " nan ", " inf ", "nan GB/s", "inf GB/s", "(size unknown)"})
      EXPECT_FALSE(Has(r.out, bad)) << bad << " in:\n" << r.out;
    EXPECT_TRUE(Has(r.out, "how.txt: not a format commdx reads")) << r.out;
  }
}

// The Prometheus captures ran two ranks on one machine ("vm") as two NCCL nodes (NCCL_HOSTID per
// rank) over loopback (NCCL_SOCKET_IFNAME=lo), and the job ran: loopback is a note there, not the
// error that fails a multi-host job.
TEST(InspectorH100Captures, LoopbackOnOneMachineCountedAsTwoNodesIsANote) {
  for (const std::string& dir : {kProm + "p229_healthy", kProm + "p230_straggler"}) {
    SCOPED_TRACE(dir);
    const Loaded l = LoadFolder(dir);
    auto lo = l.With("comm.wrong_interface");
    ASSERT_EQ(lo.size(), 1u);
    EXPECT_EQ(lo[0]->severity, Severity::kInfo);
    EXPECT_TRUE(Has(lo[0]->detail, "Every rank runs on host vm")) << lo[0]->detail;
  }
}

}  // namespace
}  // namespace commdx
