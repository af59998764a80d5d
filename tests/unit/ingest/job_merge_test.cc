// Files read into parts of their own and merged once (ingest::JobMerge, as LoadInputs's workers
// do) give the Job that reading them together gives: NCCL communicators, their ranks and counted
// connections, job-log process groups; and the Job does not depend on how many threads read it.
#include "ingest/job_merge.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "base/file.h"
#include "ingest/job_log/job_log_importer.h"
#include "ingest/load_inputs.h"
#include "ingest/nccl_log/nccl_log_importer.h"

namespace commdx::ingest {
namespace {

const std::string kHang = std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/nodes4_skip/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

FileText Text(const std::string& path, std::string data) {
  FileText f;
  f.path = path;
  f.data = std::move(data);
  return f;
}

Job NcclPart(const FileText& f) {
  Job part;
  ParseNcclLogText(f, part);
  return part;
}

// Texts read as a.log and b.log, each into a part of its own, merged.
Job MergeTwo(const std::string& a, const std::string& b) {
  Job merged;
  JobMerge m(merged);
  m.Add(NcclPart(Text("a.log", a)));
  m.Add(NcclPart(Text("b.log", b)));
  m.Finish();
  return merged;
}

// A communicator as text, without the places its facts were read (`with_places` adds them).
std::string Describe(const NcclSetup& s, bool with_places) {
  std::ostringstream o;
  for (const auto& c : s.communicators) {
    o << "comm " << c.comm_id << " nranks " << c.nranks << " nnodes " << c.nnodes << " rings "
      << c.ring_channels << " coll " << c.coll_channels << " init " << c.init_start << "/"
      << c.init_complete << "\n";
    for (const auto& [r, info] : c.ranks)
      o << "  rank " << r << " " << info.host << ":" << info.pid << " bus " << info.bus_id
        << " dev " << info.cuda_dev << " host_id " << info.host_id << "\n";
    for (const auto& x : c.connections) {
      o << "  conn ch" << x.channel << " " << x.from_rank << "->" << x.to_rank << " dir "
        << x.direction << " " << x.transport << " " << x.host << ":" << x.pid << " x" << x.count
        << " | " << x.ref.line;
      if (with_places) o << " @" << x.ref.loc.file << ":" << x.ref.loc.line;
      o << "\n";
    }
  }
  return o.str();
}

TEST(JobMerge, TwoFilesMergedAreTheSetupOfOneFileHoldingBoth) {
  const std::string a = Slurp(kHang + "nccl.vm.466.log");
  const std::string b = Slurp(kHang + "nccl.vm.467.log");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  // One file holding both processes' lines (two processes sharing one stdout), read in one pass.
  Job one = NcclPart(Text("both.log", a + b));
  Job merged = MergeTwo(a, b);
  ASSERT_EQ(merged.nccl.communicators.size(), 1u);
  EXPECT_EQ(merged.nccl.communicators[0].ranks.size(), 2u);
  EXPECT_EQ(Describe(merged.nccl, false), Describe(one.nccl, false));
  EXPECT_EQ(merged.nccl.processes.size(), one.nccl.processes.size());
  EXPECT_EQ(merged.nccl.call_streams.size(), one.nccl.call_streams.size());
  EXPECT_EQ(merged.nccl.nccl_lines, one.nccl.nccl_lines);
  EXPECT_EQ(merged.nccl.files.size(), 2u);
}

TEST(JobMerge, ARepeatedConnectionIsCountedOnceAcrossFiles) {
  // The same process's log met under two names: its connection is one, seen twice.
  const std::string line =
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0xa rank 0 nranks 2 cudaDev 0 busId "
      "60 commId 0x1 - Init START\n"
      "vm:656:676 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
  Job merged = MergeTwo(line, line);
  ASSERT_EQ(merged.nccl.communicators.size(), 1u);
  ASSERT_EQ(merged.nccl.communicators[0].connections.size(), 1u);
  EXPECT_EQ(merged.nccl.communicators[0].connections[0].count, 2u);
  EXPECT_EQ(merged.nccl.communicators[0].connections[0].ref.loc.file, "a.log");
  EXPECT_EQ(merged.nccl.processes.size(), 1u);  // one process, known from the first file
  EXPECT_EQ(merged.nccl.processes[0].file, "a.log");
}

TEST(JobMerge, FileOrderDoesNotChangeTheCommunicators) {
  const char* names[] = {"nccl.vm.466.log", "nccl.vm.467.log", "nccl.vm.468.log",
                         "nccl.vm.469.log"};
  Job forward, backward;
  {
    JobMerge m(forward);
    for (int i = 0; i < 4; ++i) m.Add(NcclPart(Text(names[i], Slurp(kHang + names[i]))));
    m.Finish();
  }
  {
    JobMerge m(backward);
    for (int i = 3; i >= 0; --i) m.Add(NcclPart(Text(names[i], Slurp(kHang + names[i]))));
    m.Finish();
  }
  ASSERT_EQ(forward.nccl.communicators.size(), 1u);
  EXPECT_EQ(forward.nccl.communicators[0].ranks.size(), 4u);
  EXPECT_GT(forward.nccl.communicators[0].connections.size(), 8u);
  // Connections in file and line order, ranks by rank: the same whichever file came first.
  EXPECT_EQ(Describe(forward.nccl, true), Describe(backward.nccl, true));
}

TEST(JobMerge, FilesReadOneAfterAnotherIntoOneJobGiveTheMergedSetup) {
  const char* names[] = {"nccl.vm.466.log", "nccl.vm.467.log", "nccl.vm.468.log"};
  Job direct, merged;
  JobMerge m(merged);
  for (const char* n : names) {
    FileText f = Text(n, Slurp(kHang + n));
    ParseNcclLogText(f, direct);  // the importer's own merge into a Job that already holds some
    m.Add(NcclPart(f));
  }
  m.Finish();
  EXPECT_EQ(Describe(direct.nccl, true), Describe(merged.nccl, true));
  EXPECT_EQ(direct.nccl.processes.size(), merged.nccl.processes.size());
}

TEST(JobMerge, AProcessGroupInTwoFilesIsCompletedAsInOneFile) {
  const std::string options =
      "[I1202 03:11:00.999802260 ProcessGroupNCCL.cpp:988] [PG ID 0 PG GUID 0 Rank 2] "
      "ProcessGroupNCCL initialization options: size: 4, global rank: 2, TIMEOUT(ms): 5000, "
      "USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: -2, PG Name: 0\n";
  const std::string environments =
      "[I1202 03:11:00.999807393 ProcessGroupNCCL.cpp:999] [PG ID 0 PG GUID 0 Rank 2] "
      "ProcessGroupNCCL environments: NCCL version: 2.28.9, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, "
      "TORCH_NCCL_TRACE_BUFFER_SIZE: 2000\n";
  Job one;
  ASSERT_TRUE(ParseJobLog(Text("job.log", options + environments), one).has_value());
  Job two;
  ASSERT_TRUE(ParseJobLog(Text("a.log", options), two).has_value());
  ASSERT_TRUE(ParseJobLog(Text("b.log", environments), two).has_value());
  ASSERT_EQ(two.job_log.process_groups.size(), 1u);
  ASSERT_EQ(one.job_log.process_groups.size(), 1u);
  const ProcessGroupInit& g = two.job_log.process_groups[0];
  const ProcessGroupInit& h = one.job_log.process_groups[0];
  EXPECT_EQ(g.rank, 2);
  EXPECT_EQ(g.size, h.size);
  EXPECT_EQ(g.timeout_ms, h.timeout_ms);
  EXPECT_EQ(g.nccl_version, "2.28.9");
  EXPECT_EQ(g.nccl_version, h.nccl_version);
  ASSERT_EQ(g.settings.size(), h.settings.size());
  for (size_t i = 0; i < g.settings.size(); ++i) EXPECT_EQ(g.settings[i].name, h.settings[i].name);
  EXPECT_EQ(g.loc.file, "a.log");  // where the group was first seen
  EXPECT_EQ(two.env.vars.size(), one.env.vars.size());
  EXPECT_EQ(two.job_log.files.size(), 2u);
}

// What a Job holds, for comparing two loads.
std::string DescribeJob(const Job& job) {
  std::ostringstream o;
  for (const auto& in : job.inputs) o << "input " << in.path << " " << in.bytes << "\n";
  o << Describe(job.nccl, true);
  for (const auto& p : job.nccl.processes) o << "proc " << p.host << ":" << p.pid << "\n";
  for (const auto& s : job.nccl.call_streams)
    o << "calls " << s.comm_id << " rank " << s.rank << " " << s.calls.size() << "\n";
  for (const auto& g : job.job_log.process_groups)
    o << "pg " << g.rank << "/" << g.pg << " size " << g.size << "\n";
  for (const auto& t : job.job_log.timeouts) o << "timeout " << t.rank << " #" << t.seq << "\n";
  for (const auto& d : job.flight) o << "fr " << d.file << " rank " << d.rank << "\n";
  for (const auto& v : job.env.vars) o << "env " << v.name << "=" << v.value << "\n";
  for (const auto& q : job.quality.entries()) o << "quality " << q.id << " x" << q.count << "\n";
  return o.str();
}

TEST(JobMerge, TheJobIsTheSameOnOneThreadAndOnSeveral) {
  LoadOptions serial;
  serial.threads = 1;
  LoadOptions parallel;
  parallel.threads = 3;
  auto a = LoadInputs({kHang}, serial);
  auto b = LoadInputs({kHang}, parallel);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  // NCCL logs, the job log and Flight Recorder dumps were all read.
  EXPECT_EQ(a->nccl.files.size(), 4u);
  EXPECT_FALSE(a->job_log.process_groups.empty());
  EXPECT_EQ(a->flight.size(), 4u);
  EXPECT_EQ(DescribeJob(*a), DescribeJob(*b));
}

}  // namespace
}  // namespace commdx::ingest
