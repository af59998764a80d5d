// The monitor mode of NCCL's RAS client (`ncclras -m`, NCCL 2.29+): what is recognised, each
// form a peer takes in an event, the JSON stream of objects, and what a lost peer becomes. The
// lines follow the format strings of NCCL's src/ras/client_support.cc (rasClientsNotifyEvent,
// v2.29.7-1) with chosen values; the real capture (tests/data/ras_monitor) is read in
// tests/golden/ras_monitor_captures_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "analysis/registry.h"
#include "ingest/ras/ras_importer.h"
#include "ingest/registry.h"

namespace commdx::ingest {
namespace {

const char* kText =
    "RAS Monitor Mode - watching for peer changes (Ctrl+C to exit)...\n"
    "================================================================\n"
    "[2026-12-06 17:50:01] PEER_UNRESPONSIVE: Process 1315 on node 10.0.0.2 managing GPU 3 "
    "keep-alive timeout\n"
    "[2026-12-06 17:51:01] PEER_DEAD: Process 1315 on node 10.0.0.2 managing GPU 3 \n"
    "[2026-12-06 17:51:02] PEER_RETRY: 10.0.0.2<41245> reconnecting\n"
    "[2026-12-06 17:51:03] PEER_CONNECTING: \n"
    "[2026-12-06 17:52:00] PEER_NEW: Process 77 on node 10.0.0.3 managing GPUs 0,1 (NVML 4,5) \n"
    "Connection closed by the NCCL job.\n";

const char* kJson =
    "{\n  \"timestamp\": \"2026-12-06 17:51:01\",\n  \"group\": \"LIFECYCLE\",\n"
    "  \"event\": \"PEER_DEAD\",\n  \"peer\": {\n    \"host\": \"10.0.0.2\",\n    \"pid\": 1315,\n"
    "    \"cuda_devs\": [3],\n    \"nvml_devs\": [3]\n  },\n  \"details\": \"\"\n}\n"
    "{\n  \"timestamp\": \"2026-12-06 17:51:02\",\n  \"group\": \"TRACE\",\n"
    "  \"event\": \"PEER_RETRY\",\n  \"peer\": {\n    \"addr\": \"10.0.0.2<41245>\"\n  },\n"
    "  \"details\": \"a \\\"quoted\\\" {brace}\"\n}\n"
    "{\n  \"timestamp\": \"2026-12-06 17:51:03\",\n  \"group\": \"TRACE\",\n"
    "  \"event\": \"PEER_CONNECTING\",\n  \"details\": \"\"\n}\n";

Job Parse(const std::string& text) {
  Job job;
  Status s = ParseRas({"ras_monitor.txt", text}, job);
  EXPECT_TRUE(s) << s.error().ToString();
  return job;
}

TEST(RasMonitor, SniffedByItsEventLinesOrObjects) {
  EXPECT_TRUE(SniffRas(kText));
  EXPECT_TRUE(SniffRas(kJson));
  EXPECT_TRUE(SniffRas("[2026-12-06 17:50:01] PEER_NEW: Process 1 on node h managing GPU 0 \n"));
  const Importer* imp = SniffImporter(kText);
  ASSERT_NE(imp, nullptr);
  EXPECT_EQ(imp->kind, InputKind::kRas);
  // Not an event: another program's bracketed time, or a word that is not upper case.
  EXPECT_FALSE(SniffRas("[2026-12-06 17:50:01] INFO: starting\n"));
  EXPECT_FALSE(SniffRas("[2026-12-06 17:50:01] Peer_dead: x\n"));
  EXPECT_FALSE(SniffRas("{\"event\": \"PEER_DEAD\"}\n"));
}

TEST(RasMonitor, TextEventsWithEachFormOfPeer) {
  Job job = Parse(kText);
  ASSERT_EQ(job.ras.size(), 1u);
  const RasReport& r = job.ras[0];
  EXPECT_TRUE(r.monitor);
  EXPECT_FALSE(r.json);
  ASSERT_EQ(r.events.size(), 5u);
  EXPECT_EQ(r.events[0].type, "PEER_UNRESPONSIVE");
  EXPECT_EQ(r.events[0].time, "2026-12-06 17:50:01");
  EXPECT_EQ(r.events[0].peer.pid, 1315);
  EXPECT_EQ(r.events[0].peer.host, "10.0.0.2");
  EXPECT_EQ(r.events[0].peer.gpu, 3);
  EXPECT_EQ(r.events[0].details, "keep-alive timeout");
  EXPECT_EQ(r.events[0].where.line, 3u);
  EXPECT_TRUE(r.events[1].Dead());
  EXPECT_EQ(r.events[1].details, "");
  EXPECT_EQ(r.events[2].peer.host, "10.0.0.2<41245>");
  EXPECT_EQ(r.events[2].peer.pid, 0);
  EXPECT_EQ(r.events[2].details, "reconnecting");
  EXPECT_EQ(r.events[3].peer.host, "");
  EXPECT_EQ(r.events[4].peer.gpu, 0);
  EXPECT_EQ(r.events[4].details, "");
  // The banner and the closing line are the client's, not events, and not complained about.
  EXPECT_EQ(job.quality.Count("ras.bad_event"), 0u);
}

TEST(RasMonitor, JsonStreamOfObjects) {
  Job job = Parse(kJson);
  ASSERT_EQ(job.ras.size(), 1u);
  const RasReport& r = job.ras[0];
  EXPECT_TRUE(r.monitor);
  EXPECT_TRUE(r.json);
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[0].group, "LIFECYCLE");
  EXPECT_EQ(r.events[0].peer.pid, 1315);
  EXPECT_EQ(r.events[0].peer.gpu, 3);
  EXPECT_EQ(r.events[0].where.line, 1u);
  EXPECT_EQ(r.events[1].peer.host, "10.0.0.2<41245>");
  EXPECT_EQ(r.events[1].details, "a \"quoted\" {brace}");
  EXPECT_EQ(r.events[2].peer.host, "");
  EXPECT_EQ(r.events[2].where.line, 22u);
}

TEST(RasMonitor, BrokenEventsAreCountedNotFatal) {
  Job job = Parse(std::string(kText) + "garbage in the middle\n");
  EXPECT_EQ(job.ras[0].events.size(), 5u);
  EXPECT_EQ(job.quality.Count("ras.bad_event"), 1u);
  Job j = Parse(std::string(kJson) + "{\"timestamp\": \"x\", \"group\": \"TRACE\"}\n{ broken\n}\n");
  EXPECT_EQ(j.ras[0].events.size(), 3u);
  EXPECT_EQ(j.quality.Count("ras.bad_event"), 2u);
  // The client stopped mid-object: the events before it read, the cut one counted.
  std::string json = kJson;
  Job cut = Parse(json.substr(0, json.rfind("\"details\"")));
  EXPECT_EQ(cut.ras[0].events.size(), 2u);
  EXPECT_EQ(cut.quality.Count("ras.bad_event"), 1u);
}

TEST(RasMonitor, ALostPeerIsNamedWithItsEvents) {
  Job job = Parse(kText);
  auto found = analysis::RunAnalyzers(job, {}, {Source::kLogs});
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.id, "ras.dead_rank");
  EXPECT_NE(f.title.find("Process 1315 (on 10.0.0.2, GPU 3)"), std::string::npos) << f.title;
  EXPECT_NE(f.detail.find("17:50:01 PEER_UNRESPONSIVE (keep-alive timeout); 17:51:01 PEER_DEAD"),
            std::string::npos)
      << f.detail;
  EXPECT_EQ(f.detail.find("RAS report(s)"), std::string::npos) << f.detail;
  // Only a peer that joined: nothing to say.
  Job healthy =
      Parse("[2026-12-06 17:52:00] PEER_NEW: Process 77 on node 10.0.0.3 managing GPU 0 \n");
  EXPECT_TRUE(analysis::RunAnalyzers(healthy, {}, {Source::kLogs}).empty());
}

}  // namespace
}  // namespace commdx::ingest
