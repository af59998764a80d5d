// Issue 38 item 5 on real text (tests/data/hang/README.md says where each file came from): the
// heartbeat monitor's and teardown wording of every PyTorch era, watchdog lines wrapped by a
// terminal or an editor, the Flight Recorder analyzer's output, and no -1 in any report.
#include <gtest/gtest.h>

#include <optional>
#include <regex>

#include "analysis/analysis_input.h"
#include "analysis/hang_analyzers.h"
#include "base/file.h"
#include "diagnose/diagnosis.h"
#include "ingest/flight_recorder/analyzer_text.h"
#include "ingest/job_log/job_log_importer.h"
#include "ingest/load_inputs.h"
#include "report/render.h"
#include "report/report.h"

namespace commdx::analysis {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/";

FileText Data(const std::string& rel) {
  auto f = ReadFile(kData + rel);
  EXPECT_TRUE(f.has_value()) << rel;
  return f.has_value() ? f.value() : FileText{};
}

Job JobLog(const std::string& rel) {
  FileText f = Data(rel);
  EXPECT_TRUE(ingest::SniffJobLog(std::string_view(f.data).substr(0, 65536))) << rel;
  Job job;
  EXPECT_TRUE(ingest::ParseJobLog(f, job).has_value()) << rel;
  return job;
}

Job FrText(const std::string& rel) {
  FileText f = Data(rel);
  EXPECT_TRUE(ingest::SniffFrAnalysis(std::string_view(f.data).substr(0, 65536))) << rel;
  Job job;
  auto st = ingest::ParseFrAnalysis(f, job);
  EXPECT_TRUE(st.has_value()) << rel << ": " << (st ? "" : st.error().ToString());
  return job;
}

// A copy: callers pass the analyzers' returned vectors, which are gone after the call.
std::optional<Finding> Find(const std::vector<Finding>& fs, std::string_view id) {
  for (const auto& f : fs)
    if (f.id == id) return f;
  return std::nullopt;
}

size_t Count(const std::vector<Finding>& fs, std::string_view id) {
  size_t n = 0;
  for (const auto& f : fs) n += f.id == id;
  return n;
}

bool Has(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

TEST(HangWording, HeartbeatMonitorIsAHangNotHealthy) {
  // PyTorch 2.4+ wording, two ranks of a process group with a description behind a timestamp.
  Job sw = JobLog("public/heartbeat_msswift7992_pg_desc.log");
  ASSERT_EQ(sw.job_log.watchdog_events.size(), 2u);
  const WatchdogEvent& e = sw.job_log.watchdog_events[0];
  EXPECT_EQ(e.kind, WatchdogEventKind::kStuck);
  EXPECT_EQ(e.rank, 4);
  EXPECT_EQ(e.pg, "12");
  EXPECT_EQ(e.pg_desc, "EXPERT_MODEL_PARALLEL_GROUP");
  EXPECT_EQ(e.stuck_s, 480);
  auto fs = FindWatchdogStall(sw, {});
  const std::optional<Finding> s = Find(fs, "hang.watchdog_stuck");
  ASSERT_TRUE(s);
  EXPECT_TRUE(Has(s->title, "ranks 0,4")) << s->title;
  EXPECT_TRUE(Has(s->title, "480 s")) << s->title;
  EXPECT_TRUE(Has(s->detail, "No collective timeout is in the log")) << s->detail;

  // PyTorch 2.3: "Heartbeat monitor timed out!" then a fatal "got stuck for 600 seconds".
  Job lf = JobLog("public/heartbeat_llamafactory6953_pt23.log");
  ASSERT_EQ(lf.job_log.watchdog_events.size(), 2u);
  EXPECT_EQ(lf.job_log.watchdog_events[0].kind, WatchdogEventKind::kHeartbeatTimeout);
  EXPECT_EQ(lf.job_log.watchdog_events[0].pending_works, 1);
  EXPECT_EQ(lf.job_log.watchdog_events[1].stuck_s, 600);
  const std::optional<Finding> s23 = Find(FindWatchdogStall(lf, {}), "hang.watchdog_stuck");
  ASSERT_TRUE(s23);
  EXPECT_EQ(s23->rank, 144);

  // "[rank4]:... [PG 5 Rank 0]": the launcher's global rank, not the rank in group 5.
  Job xd = JobLog("public/heartbeat_xdit147_pg5.log");
  const std::optional<Finding> sx = Find(FindWatchdogStall(xd, {}), "hang.watchdog_stuck");
  ASSERT_TRUE(sx);
  EXPECT_TRUE(Has(sx->title, "ranks 0,4")) << sx->title;

  Job dm = JobLog("public/heartbeat_deim105_pt23.log");
  const std::optional<Finding> sd = Find(FindWatchdogStall(dm, {}), "hang.watchdog_stuck");
  ASSERT_TRUE(sd);
  EXPECT_TRUE(Has(sd->title, "ranks 0,1,2")) << sd->title;
}

TEST(HangWording, StuckAfterATimeoutSaysTheTimeoutCameFirst) {
  Job job = JobLog("public/heartbeat_arctictraining219.log");
  ASSERT_EQ(job.job_log.timeouts.size(), 1u);
  EXPECT_EQ(job.job_log.timeouts[0].seq, 120049);
  auto fs = FindWatchdogStall(job, {});
  const std::optional<Finding> s = Find(fs, "hang.watchdog_stuck");
  ASSERT_TRUE(s);
  EXPECT_TRUE(Has(s->title, "ranks 5,7")) << s->title;
  EXPECT_TRUE(Has(s->detail, "The log also shows a collective timeout")) << s->detail;
  // The timeout is FindWatchdogHang's; the stall analyzer does not repeat it.
  EXPECT_FALSE(Find(fs, "hang.watchdog_timeout"));
}

TEST(HangWording, TerminalWrappedHeartbeatAndCutTeardown) {
  // Wrapped at 116 columns mid-word ("ProcessGroupNCCL'" / "s watchdog"); the last line is cut
  // inside its reason ("due to ProcessGroupNCCL").
  Job job = JobLog("public/heartbeat_vlmr1_257_wrapped.log");
  ASSERT_EQ(job.job_log.watchdog_events.size(), 2u);
  EXPECT_EQ(job.job_log.watchdog_events[0].kind, WatchdogEventKind::kStuck);
  EXPECT_EQ(job.job_log.watchdog_events[0].stuck_s, 480);
  EXPECT_EQ(job.job_log.watchdog_events[0].rank, 6);
  EXPECT_EQ(job.job_log.watchdog_events[0].loc.line, 1u);
  EXPECT_EQ(job.job_log.watchdog_events[1].kind, WatchdogEventKind::kTerminating);
  EXPECT_EQ(job.job_log.watchdog_events[1].reason, "ProcessGroupNCCL watchdog hang");
  EXPECT_EQ(job.job_log.watchdog_events[1].loc.line, 11u);
  EXPECT_EQ(job.quality.Count("job_log.cut_watchdog_line"), 1u);
  auto fs = FindWatchdogStall(job, {});
  ASSERT_EQ(fs.size(), 1u);  // the cut reason is the watchdog hang, not a collective timeout
  EXPECT_EQ(fs[0].id, "hang.watchdog_stuck");
  EXPECT_TRUE(Has(fs[0].title, "terminated the process")) << fs[0].title;
}

TEST(HangWording, WrappedWatchdogTimeoutReadsWhole) {
  // A terminal split "collective opera" / "tion timeout" and "before ti" / "ming out".
  Job r1 = JobLog("public/wrapped_openr1_620.log");
  ASSERT_EQ(r1.job_log.timeouts.size(), 1u);
  const WatchdogTimeout& t = r1.job_log.timeouts[0];
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.seq, 4);
  EXPECT_EQ(t.op, "BROADCAST");
  EXPECT_EQ(t.numel_in, 112);
  EXPECT_EQ(t.timeout_ms, 1800000);
  EXPECT_EQ(t.ran_ms, 1800010);
  EXPECT_EQ(t.loc.line, 10u);  // the record starts on the line the wrap split

  // An editor wrapped at spaces and dropped them ("ran for" / "1099 milliseconds").
  Job pr = JobLog("public/wrapped_pytorch_pr122850.log");
  ASSERT_EQ(pr.job_log.timeouts.size(), 1u);
  EXPECT_EQ(pr.job_log.timeouts[0].rank, 0);
  EXPECT_EQ(pr.job_log.timeouts[0].seq, 2);
  EXPECT_EQ(pr.job_log.timeouts[0].timeout_ms, 1000);
  EXPECT_EQ(pr.job_log.timeouts[0].ran_ms, 1099);
  ASSERT_EQ(pr.job_log.statuses.size(), 1u);
  EXPECT_EQ(pr.job_log.statuses[0].failed_seq, 2);
  EXPECT_EQ(pr.job_log.statuses[0].last_enqueued, 2);
  EXPECT_EQ(pr.job_log.statuses[0].last_completed, 1);
  EXPECT_EQ(pr.job_log.statuses[0].pg, "0");
  const std::optional<Finding> w = Find(FindWatchdogHang(pr, {}), "hang.watchdog_timeout");
  ASSERT_TRUE(w);
  EXPECT_TRUE(Has(w->title, "within 1000 ms")) << w->title;
  EXPECT_TRUE(Has(w->detail, "after 1099 ms")) << w->detail;
}

TEST(HangWording, TeardownWithoutTheTimeoutLineStillAHang) {
  Job g = JobLog("public/dump_signal_simplegrpo46.log");
  ASSERT_EQ(g.job_log.watchdog_events.size(), 1u);  // the line is posted twice
  EXPECT_EQ(g.job_log.watchdog_events[0].from_rank, 2);
  EXPECT_EQ(g.job_log.watchdog_events[0].last_enqueued, 136);
  const std::optional<Finding> w = Find(FindWatchdogStall(g, {}), "hang.watchdog_timeout");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->rank, 2);
  EXPECT_TRUE(Has(w->title, "first seen on rank 2")) << w->title;
  EXPECT_TRUE(Has(w->title, "which collective: unknown")) << w->title;

  // "from this local" / "rank" wrapped at 166 columns.
  Job tt = JobLog("public/dump_signal_torchtune2651_wrapped.log");
  ASSERT_EQ(tt.job_log.watchdog_events.size(), 2u);
  EXPECT_TRUE(tt.job_log.watchdog_events[0].from_self);
  EXPECT_EQ(tt.job_log.watchdog_events[0].rank, 7);
  EXPECT_EQ(tt.job_log.watchdog_events[0].last_enqueued, 9387);
  EXPECT_EQ(tt.job_log.watchdog_events[0].last_completed, 9386);
  const std::optional<Finding> w2 = Find(FindWatchdogStall(tt, {}), "hang.watchdog_timeout");
  ASSERT_TRUE(w2);
  EXPECT_TRUE(Has(w2->title, "ranks 6,7")) << w2->title;
}

TEST(HangWording, CutWatchdogLineIsCountedNotMisread) {
  FileText f{"cut.log",
             "[rank0]:[E1 ProcessGroupNCCL.cpp:1] [Rank 0] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=8, Op\n"};
  Job job;
  ASSERT_TRUE(ingest::ParseJobLog(f, job).has_value());
  EXPECT_TRUE(job.job_log.timeouts.empty());
  EXPECT_EQ(job.quality.Count("job_log.cut_watchdog_line"), 1u);
}

TEST(HangWording, FlightRecorderAnalyzerEveryWording) {
  // PyTorch 2.11's analyzer on the real 2-rank skip dumps.
  Job a = FrText("fr_analysis/nodes2_skip.txt");
  ASSERT_EQ(a.job_log.fr_analysis.size(), 1u);
  const FrAnalyzerEntry& e = a.job_log.fr_analysis[0];
  EXPECT_EQ(e.verdict, FrVerdict::kNotJoined);
  EXPECT_EQ(e.seq, 8);
  EXPECT_EQ(e.record_id, 7);
  EXPECT_EQ(e.group, "0:default_pg");
  EXPECT_EQ(e.collective, "nccl:all_reduce");
  EXPECT_EQ(e.missing_ranks, std::vector<int>({1}));
  EXPECT_EQ(e.expected_ranks, std::vector<int>({0, 1}));
  EXPECT_EQ(e.world_size, 2);
  EXPECT_EQ(e.state, "scheduled");
  EXPECT_EQ(e.input_sizes, "[[1048576]]");
  ASSERT_EQ(e.frames.size(), 4u);
  EXPECT_TRUE(Has(e.frames[2], "hang.py:109"));
  EXPECT_EQ(e.loc.line, 2u);
  auto fs = FindFrAnalysisHang(a, {});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "hang.rank_behind");
  EXPECT_EQ(fs[0].severity, Severity::kError);
  EXPECT_EQ(fs[0].rank, 1);
  EXPECT_TRUE(Has(fs[0].title, "#8")) << fs[0].title;

  // 2.5: "Not all ranks joining collective 5 at entry 4", "expected ranks: 2", indented.
  Job t = FrText("fr_analysis/tutorial_pt25.txt");
  ASSERT_EQ(t.job_log.fr_analysis.size(), 1u);
  EXPECT_EQ(t.job_log.fr_analysis[0].seq, 5);
  EXPECT_EQ(t.job_log.fr_analysis[0].record_id, 4);
  EXPECT_EQ(t.job_log.fr_analysis[0].world_size, 2);
  EXPECT_EQ(t.job_log.fr_analysis[0].frames.size(), 3u);

  // 2.6: "Not all ranks joining collective: sequence number: 31117", five ranks missing.
  Job p = FrText("fr_analysis/pr140969_pt26.txt");
  ASSERT_EQ(p.job_log.fr_analysis.size(), 1u);
  EXPECT_EQ(p.job_log.fr_analysis[0].seq, 31117);
  EXPECT_EQ(p.job_log.fr_analysis[0].missing_ranks, std::vector<int>({3, 4, 5, 6, 7}));
  auto pf = FindFrAnalysisHang(p, {});
  ASSERT_EQ(pf.size(), 1u);
  EXPECT_FALSE(pf[0].rank.has_value());  // five ranks: no single one
  EXPECT_TRUE(Has(pf[0].title, "ranks 3,4,5,6,7")) << pf[0].title;
}

TEST(HangWording, FlightRecorderAnalyzerWithoutEveryDump) {
  // Only rank 0 dumped: the analyzer's traceback ends in the assertion (its source line, echoed
  // above it, is not read as a second verdict).
  Job m = FrText("fr_analysis/nodes2_mismatch_missing_dumps.txt");
  ASSERT_EQ(m.job_log.fr_analysis.size(), 1u);
  EXPECT_EQ(m.job_log.fr_analysis[0].verdict, FrVerdict::kMissingDumps);
  EXPECT_EQ(m.job_log.fr_analysis[0].missing_ranks, std::vector<int>({1}));
  EXPECT_TRUE(m.quality.empty());
  auto mf = FindFrAnalysisHang(m, {});
  ASSERT_EQ(mf.size(), 1u);
  EXPECT_EQ(mf[0].rank, 1);

  // --allow-incomplete-ranks: "We cannot decide ..." once per entry, one finding.
  Job u = FrText("fr_analysis/nodes4_mismatch_incomplete.txt");
  EXPECT_EQ(u.job_log.fr_analysis.size(), 8u);
  auto uf = FindFrAnalysisHang(u, {});
  ASSERT_EQ(Count(uf, "hang.stuck_collective"), 1u);
  EXPECT_EQ(uf[0].rank, 3);
}

TEST(HangWording, FlightRecorderAnalyzerBadInput) {
  // A headline whose number was cut: a clear error with the place, nothing invented.
  FileText cut{"fr.txt",
               "tabulate is not installed.\nNot all ranks joining collective, sequence "
               "number: \nmissing ranks: {1}\n"};
  Job job;
  auto st = ingest::ParseFrAnalysis(cut, job);
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().where.line, 2u);
  EXPECT_TRUE(Has(st.error().ToString(), "fr.txt:2")) << st.error().ToString();
  EXPECT_TRUE(job.job_log.fr_analysis.empty());

  // A good entry beside garbage fields: kept, the garbage counted.
  FileText mixed = Data("fr_analysis/nodes2_skip.txt");
  mixed.data +=
      "Collective sequence number: 9 has errors\nerror msg: Culprit rank x; oops\n"
      "expected ranks: {0, one}\n";
  Job job2;
  ASSERT_TRUE(ingest::ParseFrAnalysis(mixed, job2).has_value());
  ASSERT_EQ(job2.job_log.fr_analysis.size(), 2u);
  EXPECT_EQ(job2.quality.Count("fr_analysis.bad_error_msg"), 1u);
  EXPECT_EQ(job2.quality.Count("fr_analysis.bad_rank_set"), 1u);
  auto fs = FindFrAnalysisHang(job2, {});
  const std::optional<Finding> d = Find(fs, "hang.desync");
  ASSERT_TRUE(d);
  EXPECT_TRUE(Has(d->title, "culprit: unknown")) << d->title;

  EXPECT_FALSE(ingest::SniffFrAnalysis("Epoch 1: loss 0.3\nNot all ranks were happy\n"));
}

// No public output of the analyzer's "has errors" branch was found and the device machine was
// not lent, so these lines are what PyTorch 2.11's components/types.py prints for one, field by
// field (EntryState.log; MatchInfo.__str__ = "Error type: {state.name}, {culprit}"; the detail
// strings of Op.match), not a capture.
TEST(HangWording, FlightRecorderAnalyzerCulprits) {
  const std::string head =
      "Collective sequence number: 8 has errors\ninternal record id: 7\ngroup info: "
      "0:default_pg\ncollective: nccl:all_reduce\ninput sizes: [[1048576]]\noutput sizes: "
      "[[1048576]]\nworld size: 2\nexpected ranks: {0, 1}\ncollective state: scheduled\n";
  FileText type{"type.txt", head +
                                "error msg: Culprit rank 1; Error type: "
                                "COLLECTIVE_TYPE_MISMATCH, Expected collective type: "
                                "'all_reduce' does not match found collective type: "
                                "'_all_gather_base'\ncollective stack trace: \n"};
  Job t;
  ASSERT_TRUE(ingest::ParseFrAnalysis(type, t).has_value());
  ASSERT_EQ(t.job_log.fr_analysis.size(), 1u);
  ASSERT_EQ(t.job_log.fr_analysis[0].culprits.size(), 1u);
  EXPECT_EQ(t.job_log.fr_analysis[0].culprits[0].rank, 1);
  EXPECT_EQ(t.job_log.fr_analysis[0].culprits[0].error_type, "COLLECTIVE_TYPE_MISMATCH");
  auto tf = FindFrAnalysisHang(t, {});
  ASSERT_EQ(tf.size(), 1u);
  EXPECT_EQ(tf[0].id, "hang.desync");
  EXPECT_EQ(tf[0].rank, 1);
  EXPECT_TRUE(Has(tf[0].title, "culprit rank 1, COLLECTIVE_TYPE_MISMATCH")) << tf[0].title;
  EXPECT_TRUE(Has(tf[0].title, "#8")) << tf[0].title;
  EXPECT_TRUE(Has(tf[0].detail, "'_all_gather_base'")) << tf[0].detail;

  // A state mismatch: the analyzer's culprit is ahead (completed); the rank it started from,
  // still scheduled, is behind. With the culprit behind, the culprit is named.
  FileText ahead{"state.txt", head +
                                  "error msg: Culprit rank 1; Error type: "
                                  "COLLECTIVE_STATE_MISMATCH, Expected state: 'scheduled' "
                                  "does not match found state: 'completed'\n"};
  Job a;
  ASSERT_TRUE(ingest::ParseFrAnalysis(ahead, a).has_value());
  auto af = FindFrAnalysisHang(a, {});
  ASSERT_EQ(af.size(), 1u);
  EXPECT_EQ(af[0].id, "hang.rank_behind");
  EXPECT_FALSE(af[0].rank.has_value());
  EXPECT_TRUE(Has(af[0].detail, "rank 1, is ahead (completed)")) << af[0].detail;
  FileText behind{"state2.txt", head +
                                    "error msg: Culprit rank 1; Error type: "
                                    "COLLECTIVE_STATE_MISMATCH, Expected state: 'started' "
                                    "does not match found state: 'scheduled'\n"};
  Job b;
  ASSERT_TRUE(ingest::ParseFrAnalysis(behind, b).has_value());
  auto bf = FindFrAnalysisHang(b, {});
  ASSERT_EQ(bf.size(), 1u);
  EXPECT_EQ(bf[0].rank, 1);
  EXPECT_TRUE(Has(bf[0].detail, "Rank 1 is behind")) << bf[0].detail;
}

// No -1 (a "not printed" sentinel) in any of the four renderings of any hang input here, and
// every one of them is a hang.
TEST(HangWording, NoSentinelInAnyRendering) {
  const std::regex sentinel("(^|[^0-9A-Za-z_.:])-1([^0-9.]|$)");
  std::vector<std::string> files = {"public/heartbeat_vlmr1_257_wrapped.log",
                                    "public/heartbeat_arctictraining219.log",
                                    "public/heartbeat_xdit147_pg5.log",
                                    "public/wrapped_openr1_620.log",
                                    "public/wrapped_pytorch_pr122850.log",
                                    "public/dump_signal_simplegrpo46.log",
                                    "public/watchdog_pytorch118369_old.log",
                                    "fr_analysis/nodes2_skip.txt",
                                    "fr_analysis/nodes2_mismatch_missing_dumps.txt",
                                    "fr_analysis/nodes4_mismatch_incomplete.txt",
                                    "fr_analysis/tutorial_pt25.txt"};
  for (const auto& rel : files) {
    auto job = ingest::LoadInputs({kData + rel}, {});
    ASSERT_TRUE(job.has_value()) << rel;
    analysis::AnalysisInput input(*job);
    auto diag = diagnose::Diagnose(input, {});
    bool hang = false;
    for (const auto& f : diag.findings) hang |= f.id.rfind("hang.", 0) == 0;
    EXPECT_TRUE(hang) << rel << ": a hang reported healthy";
    auto rep = report::MakeReport("diagnose", *job, std::move(diag));
    for (const std::string& out : {report::RenderText(rep, {}), report::RenderJson(rep),
                                   report::RenderMarkdown(rep), report::RenderHtml(rep)}) {
      std::smatch m;
      std::string body = out.substr(0, out.find("Not checked"));
      EXPECT_FALSE(std::regex_search(body, m, sentinel)) << rel << ": '" << m.str() << "' in\n"
                                                         << body.substr(0, 3000);
    }
  }
}

}  // namespace
}  // namespace commdx::analysis
