// NCCL Inspector communicators joined with NCCL's own log of the same run (issue 42), on the two
// real captures that hold both: tests/data/inspector/ddp_healthy (JSONL, NCCL 2.28.9) with its
// NCCL logs in tests/data/inspector_job/ (same processes 1052 and 1053), and the NCCL 2.29
// Prometheus case tests/data/inspector_prom/h100_2ranks/p229_healthy with its logs. The plugin
// prints the commHash cut to 16 characters; the log prints it whole:
//   {"header":{"id":"0x9b08cb12e3d529",...}}   and   ... commId 0x9b08cb12e3d529b8 - Init START
//   comm_id="0xb8c121ca01ec16"                  and   ... commId 0xb8c121ca01ec16d7 - Init START
#include <gtest/gtest.h>

#include <string>

#include "analysis/registry.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/";

std::vector<Finding> Findings(const std::vector<std::string>& paths, Job* out = nullptr) {
  auto job = ingest::LoadInputs(paths);
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  if (!job) return {};
  std::vector<Finding> f = analysis::RunAnalyzers(*job, {}, {Source::kLogs});
  if (out) *out = std::move(*job);
  return f;
}

const Finding* First(const std::vector<Finding>& f, const std::string& id) {
  for (const Finding& x : f)
    if (x.id == id) return &x;
  return nullptr;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool RefsFile(const Finding& f, const std::string& tail, uint32_t line) {
  for (const EvidenceRef& r : f.refs)
    if (r.where.file.size() >= tail.size() &&
        r.where.file.compare(r.where.file.size() - tail.size(), tail.size(), tail) == 0 &&
        r.where.line == line)
      return true;
  return false;
}

TEST(InspectorLogJoin, JsonlCommunicatorNamedWithWhatTheLogKnows) {
  Job job;
  const std::vector<Finding> f =
      Findings({kData + "inspector/ddp_healthy", kData + "inspector_job/nccl.vm.1052.log",
                kData + "inspector_job/nccl.vm.1053.log"},
               &job);
  ASSERT_EQ(job.nccl.communicators.size(), 1u);
  EXPECT_EQ(job.nccl.communicators[0].comm_id, "0x9b08cb12e3d529b8");
  const Finding* s = First(f, "inspector.comm_summary");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(Has(s->title, "Communicator 0x9b08cb12e3d529:")) << s->title;
  // Each fact below is in the logs' own lines: Init START (rank, pid, cudaDev 0, busId 60),
  // NCCL_HOSTID, "2 coll channels", four "via NET/Socket/0" connection lines per process.
  for (const char* part :
       {"NCCL's log of the same job names it commId 0x9b08cb12e3d529b8 (the plugin keeps the "
        "hash's first 14 hex digits): 2 ranks on 2 node(s)",
        "rank 0 at pid 1052 on vm (NCCL_HOSTID commdx-node0), GPU 0, bus 60",
        "rank 1 at pid 1053 on vm (NCCL_HOSTID commdx-node1), GPU 0, bus 60", "2 channels",
        "connections NET/Socket x"})
    EXPECT_TRUE(Has(s->detail, part)) << part << "\n" << s->detail;
  EXPECT_TRUE(RefsFile(*s, "inspector_job/nccl.vm.1052.log", 20)) << "the Init START line";
}

TEST(InspectorLogJoin, Nccl229PrometheusRecordJoinsItsLog) {
  const std::vector<Finding> f = Findings({kData + "inspector_prom/h100_2ranks/p229_healthy"});
  const Finding* s = First(f, "inspector.comm_summary");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(Has(s->title, "Communicator 0xb8c121ca01ec16:")) << s->title;
  EXPECT_TRUE(Has(s->detail, "names it commId 0xb8c121ca01ec16d7")) << s->detail;
  EXPECT_TRUE(Has(s->detail, "rank 0 at pid 546 on vm")) << s->detail;
  EXPECT_TRUE(Has(s->detail, "rank 1 at pid 547 on vm")) << s->detail;
}

// The logs of another run (commId 0x9b08cb12e3d529b8) beside a straggler capture whose
// communicator is 0xb0300b53755d79: nothing is joined, and the findings say why.
TEST(InspectorLogJoin, LogsOfAnotherRunJoinNothing) {
  const std::vector<Finding> f =
      Findings({kData + "inspector/ddp_straggler", kData + "inspector_job/nccl.vm.1052.log"});
  const Finding* s = First(f, "inspector.comm_summary");
  const Finding* late = First(f, "inspector.late_rank");
  ASSERT_NE(s, nullptr);
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(late->rank, 1);
  for (const Finding* x : {s, late}) {
    EXPECT_TRUE(Has(x->detail,
                    "NCCL's log of the job has no communicator whose commId starts "
                    "with 0xb0300b53755d79"))
        << x->detail;
    EXPECT_FALSE(Has(x->detail, "0x9b08cb12e3d529b8")) << x->detail;
  }
}

// Without a log, nothing is said of one.
TEST(InspectorLogJoin, NoLogNoSentence) {
  const std::vector<Finding> f = Findings({kData + "inspector/ddp_straggler"});
  int inspector = 0;
  for (const Finding& x : f) {
    if (x.id.rfind("inspector.", 0) != 0) continue;
    ++inspector;
    EXPECT_FALSE(Has(x.detail, "NCCL's log")) << x.detail;
  }
  EXPECT_GE(inspector, 2);  // the summary and the late rank
}

}  // namespace
}  // namespace commdx
