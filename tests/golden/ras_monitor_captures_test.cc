// The real capture of NCCL RAS monitor mode (tests/data/ras_monitor/, NCCL 2.29.7, rank 1 of two
// stopped with SIGSTOP for 90 s; README there): each monitor stream is read as RAS events and
// names the process it saw die; the whole folder names rank 1 (pid 694) once, joining rank 0's
// monitors with its one-shot report, and takes the death the resumed rank 1 declared for the
// healthy rank 0 for what it is: a warning beside the first death, not the root cause.
#include <gtest/gtest.h>

#include <string>

#include "analysis/analysis_input.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/ras_monitor/";

struct Diagnosed {
  Job job;
  diagnose::Diagnosis diagnosis;
};

Diagnosed Diagnose(const std::string& path) {
  Diagnosed d;
  auto job = ingest::LoadInputs({path});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  if (job) d.job = std::move(*job);
  analysis::AnalysisInput input(d.job, 1);
  d.diagnosis = diagnose::Diagnose(input);
  return d;
}

std::vector<const Finding*> Dead(const Diagnosed& d) {
  std::vector<const Finding*> out;
  for (const auto& f : d.diagnosis.findings)
    if (f.id == "ras.dead_rank") out.push_back(&f);
  return out;
}

TEST(RasMonitorCapture, EachStreamIsReadAsEventsAndNamesWhatItSawDie) {
  struct Case {
    const char* file;
    const char* pid;
    const char* time;
  };
  for (const Case& c : {Case{"monitor_all_text.txt", "694", "04:28:34"},
                        Case{"monitor_json.txt", "694", "04:28:34"},
                        Case{"monitor_rank1port_text.txt", "693", "04:29:05"}}) {
    Diagnosed d = Diagnose(kData + c.file);
    ASSERT_EQ(d.job.ras.size(), 1u) << c.file;
    const RasReport& r = d.job.ras[0];
    EXPECT_TRUE(r.monitor) << c.file;
    ASSERT_EQ(r.events.size(), 1u) << c.file;
    EXPECT_EQ(r.events[0].type, "PEER_DEAD");
    EXPECT_EQ(std::to_string(r.events[0].peer.pid), c.pid);
    EXPECT_EQ(r.events[0].peer.host, "127.0.0.1");
    EXPECT_EQ(r.events[0].peer.gpu, 0);
    EXPECT_EQ(d.job.quality.Count("ras.bad_event"), 0u) << c.file;
    auto dead = Dead(d);
    ASSERT_EQ(dead.size(), 1u) << c.file;
    EXPECT_EQ(dead[0]->severity, Severity::kError);
    EXPECT_NE(dead[0]->title.find(std::string("Process ") + c.pid), std::string::npos)
        << dead[0]->title;
    EXPECT_NE(dead[0]->detail.find(c.time), std::string::npos) << dead[0]->detail;
  }
  // The client's stderr alone (banner, closing line) holds no event: not a RAS report.
  Diagnosed banner = Diagnose(kData + "monitor_stderr.txt");
  EXPECT_TRUE(banner.job.ras.empty() || banner.job.ras[0].events.empty());
  EXPECT_TRUE(Dead(banner).empty());
}

TEST(RasMonitorCapture, TheFolderNamesTheStoppedRankOnceAndNotTheOneItDeclaredDead) {
  Diagnosed d = Diagnose(kData);
  ASSERT_TRUE(d.diagnosis.root_cause.has_value());
  EXPECT_EQ(d.diagnosis.root_cause->id, "ras.dead_rank");
  EXPECT_NE(d.diagnosis.root_cause->summary.find("pid 694"), std::string::npos)
      << d.diagnosis.root_cause->summary;
  auto dead = Dead(d);
  ASSERT_EQ(dead.size(), 2u);
  const Finding* stopped = nullptr;
  const Finding* view = nullptr;
  for (const Finding* f : dead) (f->title.find("Process 693") == 0 ? view : stopped) = f;
  ASSERT_NE(stopped, nullptr);
  ASSERT_NE(view, nullptr);
  // Rank 0's two monitors and its one-shot report: one finding, with the rank the report names.
  EXPECT_EQ(stopped->severity, Severity::kError);
  EXPECT_EQ(stopped->rank, 1);
  EXPECT_NE(stopped->title.find("042ca2c56e24caa2"), std::string::npos) << stopped->title;
  EXPECT_NE(stopped->detail.find("04:28:34 PEER_DEAD"), std::string::npos) << stopped->detail;
  // Declared dead 31 s later, only by the monitor on the stopped rank's socket.
  EXPECT_EQ(view->severity, Severity::kWarning);
  EXPECT_NE(view->title.find("Process 693"), std::string::npos) << view->title;
  EXPECT_NE(view->title.find("31 s after Rank 1 (pid 694"), std::string::npos) << view->title;
  EXPECT_NE(view->fix.find("pid 694"), std::string::npos) << view->fix;
  EXPECT_LT(view->confidence, stopped->confidence);
}

// Variation: the same deaths seen by one monitor (a stream that saw both) are two failures, and
// both stay errors; only a death that no stream of the first one shows is taken for its view.
TEST(RasMonitorCapture, BothDeathsInOneStreamAreTwoFailures) {
  Job job;
  for (const char* name : {"monitor_all_text.txt", "monitor_rank1port_text.txt"}) {
    auto one = ingest::LoadInputs({kData + name});
    ASSERT_TRUE(one);
    ASSERT_EQ(one->ras.size(), 1u);
    if (job.ras.empty()) {
      job.ras.push_back(one->ras[0]);
    } else {
      for (const RasEvent& e : one->ras[0].events) job.ras[0].events.push_back(e);
    }
  }
  ASSERT_EQ(job.ras[0].events.size(), 2u);
  analysis::AnalysisInput input(job, 1);
  diagnose::Diagnosis d = diagnose::Diagnose(input);
  int errors = 0;
  for (const auto& f : d.findings)
    if (f.id == "ras.dead_rank") errors += f.severity == Severity::kError;
  EXPECT_EQ(errors, 2);
}

}  // namespace
}  // namespace commdx
