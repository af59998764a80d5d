// The real NCCL RAS reports (tests/data/ras/, NCCL 2.28.9, rank 1 of two stopped with SIGSTOP;
// README there): each is read as a RAS report (the text was read as an NCCL log before), the
// JSON with a missing rank repaired, rank 1 named missing at 8 s and dead from 90 s on, nothing
// named while healthy; and a summary of each matches tests/golden/ras/<file>.txt.
// Regenerate after a reviewed change: COMMDX_REGEN_GOLDEN=1 ctest -R RasCaptures
#include <gtest/gtest.h>

#include <string>

#include "analysis/registry.h"
#include "golden/golden_summary.h"
#include "base/str_format.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/ras/";
const std::string kGolden = std::string(COMMDX_SOURCE_DIR) + "/tests/golden/ras/";

const char* kFiles[] = {
    "healthy_text",     "healthy_json",     "stopped_8s_text",  "stopped_8s_json",
    "stopped_25s_text", "stopped_90s_text", "stopped_90s_json", "stopped_90s_verbose_text",
    "resumed_text",     "resumed_json"};

struct Loaded {
  Job job;
  std::vector<Finding> findings;
};

Loaded Load(const std::string& name) {
  Loaded l;
  auto job = ingest::LoadInputs({kData + name + ".txt"});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  if (job) l.job = std::move(*job);
  l.findings = analysis::RunAnalyzers(l.job, {}, {Source::kLogs});
  return l;
}

std::string Summary(const Loaded& l) {
  std::string s;
  for (const auto& in : l.job.inputs) s += "read as " + InputKindsName(in.kinds) + "\n";
  for (const auto& r : l.job.ras)
    for (const auto& c : r.comms)
      s += StrFormat("comm %s size %d status %s errors %s ranks %zu missing %zu\n",
                     c.hash.empty() ? "-" : c.hash.c_str(), c.size, c.status.c_str(),
                     c.errors.c_str(), c.ranks.size(), c.missing.size());
  for (const auto& d : l.job.quality.entries())
    s += StrFormat("quality %s x%llu\n", d.id.c_str(), static_cast<unsigned long long>(d.count));
  for (const auto& f : l.findings)
    s += f.id + (f.rank ? StrFormat(" rank %d", *f.rank) : "") + ": " + f.title + "\n";
  return s;
}

const Finding* Find(const Loaded& l, const std::string& id) {
  for (const auto& f : l.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(RasCaptures, StoppedRankNamedMissingThenDead) {
  for (const char* healthy : {"healthy_text", "healthy_json"}) {
    Loaded h = Load(healthy);
    ASSERT_EQ(h.job.ras.size(), 1u) << healthy;
    EXPECT_TRUE(h.findings.empty()) << Summary(h);
  }
  for (const char* early : {"stopped_8s_text", "stopped_8s_json", "stopped_25s_text"}) {
    Loaded e = Load(early);
    const Finding* f = Find(e, "ras.missing_rank");
    ASSERT_NE(f, nullptr) << early << "\n" << Summary(e);
    EXPECT_EQ(f->rank, 1);
    EXPECT_NE(f->title.find("pid 1315 on 127.0.0.1"), std::string::npos) << f->title;
    EXPECT_EQ(Find(e, "ras.dead_rank"), nullptr) << early;
  }
  for (const char* late : {"stopped_90s_text", "stopped_90s_json", "resumed_text"}) {
    Loaded d = Load(late);
    const Finding* f = Find(d, "ras.dead_rank");
    ASSERT_NE(f, nullptr) << late << "\n" << Summary(d);
    EXPECT_EQ(f->rank, 1);
    EXPECT_NE(f->title.find("445d6303d77898d4"), std::string::npos) << f->title;
  }
  Loaded json = Load("stopped_90s_json");
  EXPECT_EQ(json.job.quality.Count("ras.repaired_json"), 1u);
  // The whole folder: one finding for the process, dead (dead outranks missing).
  auto job = ingest::LoadInputs({kData});
  ASSERT_TRUE(job);
  auto all = analysis::RunAnalyzers(*job, {}, {Source::kLogs});
  int dead = 0, missing = 0;
  for (const auto& f : all) dead += f.id == "ras.dead_rank", missing += f.id == "ras.missing_rank";
  EXPECT_EQ(dead, 1);
  EXPECT_EQ(missing, 0);
}

// A healthy RAS report beside a job log whose watchdog timed out: the two come from different
// real captures of the same machine (tests/data/ras and tests/data/hang/h200_timeout, whose 8th
// all-reduce waits behind a 60 s kernel, which is what a consistent RAS report leaves to look
// at), put together for this check. A report naming a stopped rank says more and replaces it.
TEST(RasCaptures, ConsistentReportBesideATimeoutNarrowsTheHang) {
  const std::string timeout = std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/h200_timeout/job.log";
  for (const char* healthy : {"healthy_text", "healthy_json"}) {
    auto job = ingest::LoadInputs({kData + healthy + ".txt", timeout});
    ASSERT_TRUE(job) << job.error().ToString();
    auto fs = analysis::RunAnalyzers(*job, {}, {Source::kLogs});
    const Finding* c = nullptr;
    for (const auto& f : fs)
      if (f.id == "ras.consistent_hang") c = &f;
    ASSERT_NE(c, nullptr) << healthy;
    EXPECT_NE(c->title.find("every rank launched the collective"), std::string::npos) << c->title;
    ASSERT_EQ(c->refs.size(), 2u);
    EXPECT_EQ(c->refs[0].where.line, 105u);  // the "Watchdog caught" line
  }
  // Healthy alone: nothing (RasCaptures.StoppedRankNamedMissingThenDead); a stopped rank: the
  // missing-rank finding, not this one.
  auto stopped = ingest::LoadInputs({kData + "stopped_8s_text.txt", timeout});
  ASSERT_TRUE(stopped);
  for (const auto& f : analysis::RunAnalyzers(*stopped, {}, {Source::kLogs}))
    EXPECT_NE(f.id, "ras.consistent_hang");
}

// NVIDIA/nccl#1730 (README there): a RAS report and the watchdog lines pasted after it, one file:
// both are read (the text was taken as RAS alone, its timeout dropped), and the NCCL version line
// that ncclras prints does not make it an NCCL log.
TEST(RasCaptures, ReportWithAWatchdogTimeoutInOneFileReadsBoth) {
  Loaded l = Load("public_nccl1730_ok_with_watchdog_text");
  ASSERT_EQ(l.job.inputs.size(), 1u);
  EXPECT_EQ(l.job.inputs[0].kinds, (std::vector<InputKind>{InputKind::kRas, InputKind::kJobLog}));
  const Finding* t = Find(l, "hang.watchdog_timeout");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rank, 118);
  EXPECT_NE(Find(l, "ras.consistent_hang"), nullptr);
}

// Public MISMATCH reports (README there): RAS lists the ranks of the smaller group, ahead or
// behind; the finding says which side is behind.
TEST(RasCaptures, MismatchNamesTheSideBehindWhicheverRasLists) {
  Loaded ahead = Load("public_nccl1911_mismatch_text");
  const Finding* m = Find(ahead, "ras.mismatch");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->title,
            "30 of 32 ranks launched up to operation 640 on communicator fa93daea854b060b, behind "
            "ranks 12, 13 at 641");
  EXPECT_FALSE(m->rank.has_value());
  EXPECT_NE(m->detail.find("The ranks RAS lists (12, 13) are ahead, not behind"), std::string::npos)
      << m->detail;
  ASSERT_FALSE(m->refs.empty());
  EXPECT_EQ(m->refs[0].text, "RAS: communicator fa93daea854b060b MISMATCH");

  Loaded behind = Load("public_nccl_docs_mismatch_text");
  m = Find(behind, "ras.mismatch");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->title,
            "Ranks 0, 2, 3, 4, 5, 7 launched up to operation 6649 on communicator "
            "27a079b828ff1a75, 26 other ranks up to 6650");
  EXPECT_EQ(m->rank, 0);
  EXPECT_EQ(m->detail.find("are ahead"), std::string::npos);
}

TEST(RasCaptures, MatchGoldenSummaries) {
  for (const char* name : kFiles) {
    SCOPED_TRACE(name);
    test_util::ExpectGoldenSummary(kGolden + name + ".txt", Summary(Load(name)));
  }
}

}  // namespace
}  // namespace commdx
