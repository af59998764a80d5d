// Each trace's rank digested where it is read and its events freed (pipeline::Load with the
// loader's rank_built hook): the report is the one the events would have given, and only a
// request for charts keeps them.
#include <gtest/gtest.h>

#include <mutex>
#include <string>

#include "analysis/rank_measures.h"
#include "ingest/load_inputs.h"
#include "pipeline/pipeline.h"

namespace commdx::pipeline {
namespace {

const std::string kExamples = std::string(COMMDX_SOURCE_DIR) + "/examples/";

Request DiagnoseRequest(const std::string& dir, bool charts) {
  Request r;
  r.command = "diagnose";
  r.paths = {kExamples + dir};
  r.parts = EveryPart();
  r.charts = charts;
  return r;
}

// The traces of two real captures (a data stall on one rank; a straggler), digested where they
// are read with the events freed, as every run does, and with them kept: the diagnosis, every
// table and the charts are the same (the step timeline names its blocks' longest kernels from
// the drawn ranks' traces read again).
TEST(RankDigest, FreedEventsGiveTheSameReport) {
  for (const char* dir : {"ddp_data_stall", "ddp_straggler"}) {
    auto freed = pipeline::Run(DiagnoseRequest(dir, true));
    Request keep = DiagnoseRequest(dir, true);
    keep.load.rank_built = [](RankTrace& t) { analysis::DigestRank(t, false); };
    auto kept = pipeline::Run(std::move(keep));
    ASSERT_TRUE(freed && kept) << dir;
    ASSERT_FALSE(freed->job.trace.ranks.empty()) << dir;
    for (const RankTrace& t : freed->job.trace.ranks) {
      EXPECT_TRUE(t.events_freed) << dir;
      EXPECT_TRUE(t.gpu_ops.empty() && t.runtime.empty() && t.HostOpCount() == 0) << dir;
      EXPECT_NE(t.derived, nullptr) << dir;
      EXPECT_FALSE(t.collectives.empty()) << dir;  // the cross-rank match still has them
    }
    for (const RankTrace& t : kept->job.trace.ranks) {
      EXPECT_FALSE(t.events_freed) << dir;
      EXPECT_FALSE(t.gpu_ops.empty()) << dir;
    }
    const auto& a = freed->report.diagnosis.findings;
    const auto& b = kept->report.diagnosis.findings;
    ASSERT_EQ(a.size(), b.size()) << dir;
    ASSERT_FALSE(a.empty()) << dir;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].id, b[i].id) << dir;
      EXPECT_EQ(a[i].title, b[i].title) << dir;
      EXPECT_EQ(a[i].detail, b[i].detail) << dir;
      EXPECT_EQ(a[i].saving_ns_per_step, b[i].saving_ns_per_step) << dir;
    }
    ASSERT_EQ(freed->report.tables.size(), kept->report.tables.size()) << dir;
    for (size_t i = 0; i < freed->report.tables.size(); ++i) {
      const auto& x = freed->report.tables[i];
      const auto& y = kept->report.tables[i];
      EXPECT_EQ(x.key, y.key) << dir;
      ASSERT_EQ(x.rows.size(), y.rows.size()) << dir << " " << x.key;
      for (size_t r = 0; r < x.rows.size(); ++r)
        for (size_t c = 0; c < x.rows[r].size() && c < y.rows[r].size(); ++c)
          EXPECT_EQ(x.rows[r][c].text, y.rows[r][c].text) << dir << " " << x.key << " " << r;
    }
    const auto& x = freed->report.charts.timelines;
    const auto& y = kept->report.charts.timelines;
    ASSERT_EQ(x.size(), y.size()) << dir;
    ASSERT_FALSE(x.empty()) << dir;
    size_t named = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(x[i].lanes.size(), y[i].lanes.size()) << dir;
      for (size_t l = 0; l < x[i].lanes.size(); ++l) {
        ASSERT_EQ(x[i].lanes[l].segments.size(), y[i].lanes[l].segments.size()) << dir;
        for (size_t g = 0; g < x[i].lanes[l].segments.size(); ++g) {
          const std::string& label = x[i].lanes[l].segments[g].label;
          EXPECT_EQ(label, y[i].lanes[l].segments[g].label) << dir;
          named += label.find("; longest: ") != std::string::npos;
        }
      }
    }
    EXPECT_GT(named, 0u) << dir;
  }
}

// The loader calls the hook once per trace read, on the rank as built (events still there).
TEST(RankDigest, LoaderCallsTheHookOncePerRankWithItsEvents) {
  ingest::LoadOptions options;
  int calls = 0;
  size_t gpu_ops = 0;
  std::mutex m;
  options.rank_built = [&](RankTrace& t) {
    std::lock_guard<std::mutex> lock(m);
    ++calls;
    gpu_ops += t.gpu_ops.size();
  };
  auto job = ingest::LoadInputs({kExamples + "ddp_straggler"}, options);
  ASSERT_TRUE(job);
  EXPECT_EQ(calls, static_cast<int>(job->trace.ranks.size()));
  EXPECT_GT(gpu_ops, 0u);
  for (const RankTrace& t : job->trace.ranks) EXPECT_FALSE(t.events_freed);
}

// A digest made before the facts is the one the facts use (not made again).
TEST(RankDigest, FactsTakeTheDigestTheRankCarries) {
  auto job = ingest::LoadInputs({kExamples + "ddp_straggler"});
  ASSERT_TRUE(job);
  ASSERT_FALSE(job->trace.ranks.empty());
  RankTrace& t = job->trace.ranks[0];
  analysis::DigestRank(t, false);
  const RankDerived* before = t.derived.get();
  EXPECT_EQ(analysis::DigestOf(t).get(), before);
  analysis::DigestRank(t, true);
  EXPECT_EQ(t.derived.get(), before);
  EXPECT_TRUE(t.events_freed);
}

}  // namespace
}  // namespace commdx::pipeline
