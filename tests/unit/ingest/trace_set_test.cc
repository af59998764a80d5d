// The trace set: duplicate ranks counted once, traces that cannot come from one run of one job
// noted (kineto.mixed_jobs), earlier profiling windows set aside — on hand-made rank traces for
// each rule, and never on the real two-rank captures, the straggler among them.
#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/kineto/kineto_importer.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

RankTrace Rank(int rank, int64_t first_ns, int64_t last_ns) {
  RankTrace t;
  t.file = "trace_rank" + std::to_string(rank) + ".json";
  t.rank = rank;
  t.rank_source = "distributedInfo";
  t.world_size = 2;
  t.names = {""};
  t.first_ns = first_ns;
  t.last_ns = last_ns;
  t.process_groups.push_back(ProcessGroupInfo{"0", "default_pg", {0, 1}, 2});
  return t;
}

void AddCollectives(RankTrace& t, CollectiveType type, int n) {
  for (int i = 0; i < n; ++i) {
    Collective c;
    c.type = type;
    c.pg = 0;
    t.collectives.push_back(c);
  }
}

Job SetOf(std::vector<RankTrace> ranks) {
  Job job;
  for (auto& r : ranks) job.trace.ranks.push_back(std::move(r));
  ingest::FinishTraceSet(job);
  return job;
}

std::string MixedNote(const Job& job) {
  for (const auto& e : job.quality.entries())
    if (e.id == "kineto.mixed_jobs") return e.message + " @" + e.first.file;
  return "";
}

constexpr int64_t kSec = 1'000'000'000;

TEST(TraceSet, OneRunOfOneJobIsNotFlagged) {
  RankTrace a = Rank(0, 100 * kSec, 103 * kSec), b = Rank(1, 100 * kSec + 5, 103 * kSec);
  AddCollectives(a, CollectiveType::kAllReduce, 8);
  AddCollectives(b, CollectiveType::kAllReduce, 8);
  Job job = SetOf({a, b});
  EXPECT_EQ(job.quality.Count("kineto.mixed_jobs"), 0u);
}

TEST(TraceSet, DifferentWorldSizes) {
  RankTrace b = Rank(1, 0, kSec);
  b.world_size = 8;
  Job job = SetOf({Rank(0, 0, kSec), b});
  EXPECT_NE(MixedNote(job).find("different world sizes (2 and 8)"), std::string::npos)
      << MixedNote(job);
  EXPECT_NE(MixedNote(job).find("@trace_rank1.json"), std::string::npos);
}

TEST(TraceSet, SameProcessGroupNameDifferentMembers) {
  RankTrace b = Rank(1, 0, kSec);
  b.process_groups[0].ranks = {0, 1, 2, 3};
  Job job = SetOf({Rank(0, 0, kSec), b});
  EXPECT_NE(MixedNote(job).find("'0' different members ([0, 1] and [0, 1, 2, 3])"),
            std::string::npos)
      << MixedNote(job);
}

TEST(TraceSet, NoCollectiveKindInCommonIsAnotherJob) {
  RankTrace a = Rank(0, 0, kSec), b = Rank(1, 0, kSec);
  AddCollectives(a, CollectiveType::kAllReduce, 6);  // DDP
  AddCollectives(b, CollectiveType::kAllGather, 6);  // FSDP
  AddCollectives(b, CollectiveType::kReduceScatter, 6);
  Job job = SetOf({a, b});
  EXPECT_NE(MixedNote(job).find("no collective of the same kind"), std::string::npos)
      << MixedNote(job);
  // Pipeline stages: one only sends, the next only receives — the same job.
  RankTrace s = Rank(0, 0, kSec), r = Rank(1, 0, kSec);
  AddCollectives(s, CollectiveType::kSend, 6);
  AddCollectives(r, CollectiveType::kRecv, 6);
  EXPECT_EQ(SetOf({s, r}).quality.Count("kineto.mixed_jobs"), 0u);
  // A trimmed window with few collectives says nothing.
  RankTrace c = Rank(0, 0, kSec), d = Rank(1, 0, kSec);
  AddCollectives(c, CollectiveType::kAllReduce, 2);
  AddCollectives(d, CollectiveType::kAllGather, 2);
  EXPECT_EQ(SetOf({c, d}).quality.Count("kineto.mixed_jobs"), 0u);
}

TEST(TraceSet, WindowsFarApartAreDifferentRuns) {
  Job job = SetOf({Rank(0, 100 * kSec, 102 * kSec), Rank(1, 130 * kSec, 132 * kSec)});
  EXPECT_NE(MixedNote(job).find("rank 1's trace starts 28.00 s after rank 0's ends"),
            std::string::npos)
      << MixedNote(job);
  // Clocks a fraction of a second apart, or a gap shorter than the traces: the same run.
  EXPECT_EQ(SetOf({Rank(0, 0, 2 * kSec), Rank(1, 2 * kSec + kSec / 2, 5 * kSec)})
                .quality.Count("kineto.mixed_jobs"),
            0u);
  EXPECT_EQ(SetOf({Rank(0, 0, 5 * kSec), Rank(1, 7 * kSec, 12 * kSec)})
                .quality.Count("kineto.mixed_jobs"),
            0u);
}

TEST(TraceSet, EachStrangerAndEachDuplicateCountedOnceWhenFinishedRepeatedly) {
  // The registry entry finishes the set after every file: notes must not pile up.
  Job job;
  RankTrace b = Rank(1, 0, kSec), c = Rank(2, 0, kSec), d = Rank(2, 0, kSec);
  b.world_size = 4;
  c.world_size = 4;
  for (RankTrace* t : {&b, &c, &d}) {
    job.trace.ranks.push_back(*t);
    if (job.trace.ranks.size() == 1) job.trace.ranks.push_back(Rank(0, 0, kSec));
    ingest::FinishTraceSet(job);
  }
  EXPECT_EQ(job.quality.Count("kineto.mixed_jobs"), 2u);  // ranks 1 and 2 (world 4)
  EXPECT_EQ(job.quality.Count("kineto.duplicate_rank"), 1u);
}

// torch.profiler with a repeating schedule: a trace per rank and active window.
TEST(TraceSet, EarlierProfilingWindowsAreSetAside) {
  std::vector<RankTrace> files;
  for (int64_t start : {100 * kSec, 110 * kSec, 120 * kSec})
    for (int rank : {0, 1}) {
      RankTrace t = Rank(rank, start, start + 2 * kSec);
      t.file = "w" + std::to_string(start / kSec) + "_rank" + std::to_string(rank) + ".json";
      files.push_back(t);
    }
  Job job = SetOf(files);
  ASSERT_EQ(job.trace.ranks.size(), 2u);
  EXPECT_EQ(job.trace.ranks[0].file, "w120_rank0.json");
  EXPECT_EQ(job.trace.ranks[1].file, "w120_rank1.json");
  EXPECT_EQ(job.trace.other_windows.size(), 4u);
  EXPECT_EQ(job.quality.Count("kineto.profiling_windows"), 1u);
  EXPECT_EQ(job.quality.Count("kineto.duplicate_rank"), 0u);
  EXPECT_EQ(job.quality.Count("kineto.mixed_jobs"), 0u);
  EXPECT_TRUE(job.trace.missing_ranks.empty());
  // Finished after every file (the registry path): the same choice, one note.
  Job inc;
  for (const RankTrace& t : files) {
    inc.trace.ranks.push_back(t);
    ingest::FinishTraceSet(inc);
  }
  ASSERT_EQ(inc.trace.ranks.size(), 2u);
  EXPECT_EQ(inc.trace.ranks[0].file, "w120_rank0.json");
  EXPECT_EQ(inc.trace.other_windows.size(), 4u);
  EXPECT_EQ(inc.quality.Count("kineto.profiling_windows"), 1u);
}

TEST(TraceSet, SameRankAtTheSameTimeOrOfAnotherJobIsNoWindow) {
  // Overlapping in time: two traces claim one rank (two jobs, or a wrong rank): both kept.
  Job dup = SetOf({Rank(0, 0, 2 * kSec), Rank(0, kSec, 3 * kSec), Rank(1, 0, 2 * kSec)});
  EXPECT_EQ(dup.trace.ranks.size(), 3u);
  EXPECT_TRUE(dup.trace.other_windows.empty());
  EXPECT_EQ(dup.quality.Count("kineto.duplicate_rank"), 1u);
  EXPECT_EQ(dup.quality.Count("kineto.profiling_windows"), 0u);
  // Apart in time but of another job (world size 8): not a window of this one.
  RankTrace other = Rank(0, 50 * kSec, 52 * kSec);
  other.world_size = 8;
  Job mixed = SetOf({Rank(0, 0, 2 * kSec), other, Rank(1, 0, 2 * kSec)});
  EXPECT_EQ(mixed.trace.ranks.size(), 3u);
  EXPECT_EQ(mixed.quality.Count("kineto.profiling_windows"), 0u);
  EXPECT_EQ(mixed.quality.Count("kineto.mixed_jobs"), 1u);
}

// trace.json beside trace.json.gz: one trace, read once; a different trace of the rank at the
// same time stays a duplicate.
TEST(TraceSet, TheSameTraceTwiceIsReadOnce) {
  RankTrace a = Rank(0, 0, 2 * kSec), b = a, c = Rank(1, 0, 2 * kSec);
  a.events = b.events = 20433;
  b.file = "trace_rank0.json.gz";
  Job job = SetOf({a, b, c});
  ASSERT_EQ(job.trace.ranks.size(), 2u);
  EXPECT_EQ(job.trace.ranks[0].file, "trace_rank0.json");
  EXPECT_EQ(job.quality.Count("kineto.same_trace_twice"), 1u);
  EXPECT_EQ(job.quality.Count("kineto.duplicate_rank"), 0u);
  RankTrace other = a;
  other.events = 20000;
  Job dup = SetOf({a, other, c});
  EXPECT_EQ(dup.trace.ranks.size(), 3u);
  EXPECT_EQ(dup.quality.Count("kineto.duplicate_rank"), 1u);
}

// A real repeat=2 schedule with tensorboard_trace_handler on the H200 (not distributed: no
// rank written, the worker "<host>_<pid>" in both file names).
TEST(TraceSet, RealHandlerWindowsOfOneProcess) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(COMMDX_SOURCE_DIR) / "examples" / "styles_slow_loader_windows";
  auto loaded = ingest::LoadInputs({dir.string()}, ingest::ForcedKind(InputKind::kKineto));
  ASSERT_TRUE(loaded);
  const Job& job = *loaded;
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  ASSERT_EQ(job.trace.other_windows.size(), 1u);
  EXPECT_LT(job.trace.other_windows[0].last_ns, job.trace.ranks[0].first_ns);
  EXPECT_EQ(job.trace.ranks[0].steps.front().number, 8);  // the second window's ProfilerSteps
  EXPECT_EQ(job.quality.Count("kineto.profiling_windows"), 1u);
  EXPECT_EQ(job.quality.Count("kineto.mixed_jobs"), 0u);
  EXPECT_EQ(job.quality.Count("kineto.duplicate_rank"), 0u);
}

TEST(TraceSet, RealCapturesOfOneJobAreNotFlagged) {
  namespace fs = std::filesystem;
  for (const char* name : {"ddp_healthy", "ddp_straggler", "fsdp_healthy", "pipeline_healthy"}) {
    fs::path dir = fs::path(COMMDX_SOURCE_DIR) / "examples" / name;
    std::vector<std::string> in;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind("trace_rank", 0) == 0) in.push_back(e.path().string());
    ASSERT_EQ(in.size(), 2u) << name;
    auto loaded = ingest::LoadInputs(in, ingest::ForcedKind(InputKind::kKineto));
    ASSERT_TRUE(loaded) << name;
    Job job = std::move(*loaded);
    EXPECT_EQ(job.quality.Count("kineto.mixed_jobs"), 0u) << name << ": " << MixedNote(job);
  }
}

}  // namespace
}  // namespace commdx
