// Flight Recorder dumps: the pickle reader and the JSON form on real 1xH200 dumps
// (tests/data/hang), the analyzers on them and on two-rank sets derived from them, and bad
// input (every truncation, hostile opcodes) answered with an error, never a crash.
#include <gtest/gtest.h>

#include "analysis/hang_analyzers.h"
#include "base/file.h"
#include "ingest/flight_recorder/dump_reader.h"
#include "ingest/flight_recorder/pickle.h"

namespace commdx::analysis {
namespace {

std::string Data(const std::string& rel) {
  auto f = ReadFile(std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/" + rel);
  EXPECT_TRUE(f.has_value()) << rel;
  return f.has_value() ? f.value().data : std::string();
}

Result<Job> Load(const std::string& bytes, const std::string& path) {
  FileText f;
  f.path = path;
  f.data = bytes;
  Job job;
  if (!ingest::SniffFlightRecorder(std::string_view(bytes).substr(0, 65536)))
    return MakeError(ErrorCode::kBadInput, "not sniffed", {path});
  COMMDX_TRY(ingest::ParseFlightRecorder(f, job));
  return job;
}

const Finding* Find(const std::vector<Finding>& fs, std::string_view id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(FlightRecorder, RealHealthyPickle) {
  auto job = Load(Data("h200_healthy/fr_manual_rank0.pickle"), "fr_manual_rank0.pickle");
  ASSERT_TRUE(job.has_value()) << job.error().message;
  ASSERT_EQ(job.value().flight.size(), 1u);
  const FrDump& d = job.value().flight[0];
  EXPECT_EQ(d.rank, 0);
  EXPECT_EQ(d.version, "2.10");
  EXPECT_EQ(d.comm_lib_version, "2.28.9");
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].ranks, std::vector<int>{0});
  ASSERT_EQ(d.status.size(), 1u);
  EXPECT_EQ(d.status[0].last_enqueued, 24);
  ASSERT_EQ(d.entries.size(), 24u);
  const FrEntry& e = d.entries[4];
  EXPECT_EQ(e.collective_seq_id, 5);
  EXPECT_EQ(e.profiling_name, "nccl:_all_gather_base");
  EXPECT_EQ(e.pg_name, "0");
  ASSERT_EQ(e.input_sizes.size(), 1u);
  EXPECT_EQ(e.input_sizes[0], std::vector<int64_t>{1048576});
  EXPECT_EQ(e.state, "completed");
  EXPECT_TRUE(e.retired);
  EXPECT_GT(e.duration_ms, 0.0);
  ASSERT_FALSE(e.frames.empty());
  EXPECT_EQ(d.entries[23].duration_ms, -1);              // not retired yet: no duration
  EXPECT_TRUE(FindFlightHang(job.value(), {}).empty());  // everything completed
}

TEST(FlightRecorder, JsonFormReadsTheSame) {
  auto p = Load(Data("h200_healthy/fr_manual_rank0.pickle"), "a_rank0");
  auto j = Load(Data("h200_healthy/fr_rank0_from_pickle.json"), "b_rank0.json");
  ASSERT_TRUE(p.has_value() && j.has_value());
  const FrDump& a = p.value().flight[0];
  const FrDump& b = j.value().flight[0];
  ASSERT_EQ(a.entries.size(), b.entries.size());
  EXPECT_EQ(b.status[0].last_completed, a.status[0].last_completed);  // strings in JSON
  for (size_t i = 0; i < a.entries.size(); ++i) {
    EXPECT_EQ(a.entries[i].collective_seq_id, b.entries[i].collective_seq_id);
    EXPECT_EQ(a.entries[i].profiling_name, b.entries[i].profiling_name);
    EXPECT_EQ(a.entries[i].input_sizes, b.entries[i].input_sizes);
    EXPECT_EQ(a.entries[i].pg_name, b.entries[i].pg_name);
    EXPECT_EQ(a.entries[i].frames.size(), b.entries[i].frames.size());
  }
}

TEST(FlightRecorder, RealTimeoutDumpShowsThePendingCollectiveAndItsFrames) {
  auto job = Load(Data("h200_timeout/fr_dump_rank0"), "fr_dump_rank0");
  ASSERT_TRUE(job.has_value()) << job.error().message;
  auto fs = FindFlightHang(job.value(), {});
  const Finding* s = Find(fs, "hang.stuck_collective");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->rank, 0);
  EXPECT_NE(s->title.find("#8 (nccl:all_reduce [1048576] Float)"), std::string::npos) << s->title;
  bool user_frame = false;
  for (const auto& r : s->refs) user_frame |= r.text.find("hang.py:95") != std::string::npos;
  EXPECT_TRUE(user_frame);
  EXPECT_EQ(s->refs.at(1).text.find("main at"), 4u);  // the program's frame first
}

// Two ranks from the real healthy dump: rank 1 a copy, then changed.
Job TwoRanks(void (*change)(FrDump&)) {
  auto one = Load(Data("h200_healthy/fr_manual_rank0.pickle"), "fr_rank0");
  Job job = one.value();
  FrDump other = job.flight[0];
  other.rank = 1;
  other.file = "fr_rank1";
  for (auto* d : {&job.flight[0], &other}) d->groups[0].ranks = {0, 1};
  change(other);
  job.flight.push_back(std::move(other));
  return job;
}

TEST(FlightRecorder, RankBehindIsTheOneWhoseLastCollectiveIsOlder) {
  Job job = TwoRanks([](FrDump& d) { d.entries.resize(17); });
  auto fs = FindFlightHang(job, {});
  const Finding* b = Find(fs, "hang.rank_behind");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rank, 1);
  EXPECT_NE(b->title.find("#17"), std::string::npos) << b->title;
  EXPECT_NE(b->title.find("#24"), std::string::npos) << b->title;
  EXPECT_EQ(Find(fs, "hang.desync"), nullptr);
}

TEST(FlightRecorder, DesyncAtTheFirstDifferingSequence) {
  Job job = TwoRanks([](FrDump& d) {
    d.entries[2].input_sizes = {{131072}};
    d.entries[6].profiling_name = "nccl:all_reduce";
  });
  auto fs = FindFlightHang(job, {});
  const Finding* d = Find(fs, "hang.desync");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->title.find("#3"), std::string::npos) << d->title;
  EXPECT_NE(d->detail.find("[131072]"), std::string::npos);
}

TEST(FlightRecorder, MissingRankIsNamed) {
  auto one = Load(Data("h200_timeout/fr_dump_rank0"), "fr_dump_rank0");
  Job job = one.value();
  job.flight[0].groups[0].ranks = {0, 1};
  auto fs = FindFlightHang(job, {});
  const Finding* s = Find(fs, "hang.stuck_collective");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::kWarning);
  EXPECT_NE(s->title.find("; rank 1 left no dump"), std::string::npos) << s->title;
}

TEST(FlightRecorderBadInput, EveryTruncationIsAnErrorWithAnOffset) {
  std::string bytes = Data("h200_timeout/fr_dump_rank0");
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto doc = ingest::flight_recorder::ReadPickle(std::string_view(bytes).substr(0, n), "t");
    ASSERT_FALSE(doc.has_value()) << n;
    EXPECT_EQ(doc.error().code, ErrorCode::kBadInput);
  }
  EXPECT_TRUE(ingest::flight_recorder::ReadPickle(bytes, "t").has_value());
}

TEST(FlightRecorderBadInput, CodeIsNeverCalledAndCyclesAreHarmless) {
  using ingest::flight_recorder::ReadPickle;
  // cos\nsystem\n(S'ls'\ntR.  -- protocol 0 GLOBAL + REDUCE
  auto g = ReadPickle(std::string("\x80\x02"
                                  "cos\nsystem\nX\x02\x00\x00\x00ls\x85R.",
                                  24),
                      "t");
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.error().message.find("unsupported global os.system"), std::string::npos);
  // A list that contains itself: ]q\x00h\x00a.
  auto c = ReadPickle(std::string("\x80\x02]q\x00h\x00"
                                  "a.",
                                  9),
                      "t");
  ASSERT_TRUE(c.has_value());
  Job job;
  FileText f{"fr_rank0", std::string("\x80\x02}q\x00X\x07\x00\x00\x00"
                                     "entriesh\x00s.",
                                     20)};
  EXPECT_FALSE(ingest::ParseFlightRecorder(f, job).has_value());  // entries is not a list
  EXPECT_FALSE(ReadPickle("\x80\x02\xff.", "t").has_value());     // unknown opcode
  EXPECT_FALSE(ReadPickle("\x80\x02"
                          "N0.",
                          "t")
                   .has_value());  // empty stack at STOP
  // A MARK whose items a POP already took (found by fuzzing: it crashed the reader).
  auto popped = ReadPickle(std::string("\x80\x02](0l.", 7), "t");
  ASSERT_FALSE(popped.has_value());
  EXPECT_NE(popped.error().ToString().find("without MARK"), std::string::npos);
}

}  // namespace
}  // namespace commdx::analysis
