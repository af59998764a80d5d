// A job log read window by window (JobLogWindows) gives the facts of the same log read whole
// (ParseJobLog), wherever the windows' edges fall: windows of 1 to 13 lines over real consoles,
// so that an edge falls between every two lines, inside a DDP block, between a rank's last
// "Running collective" line and the barrier timeout that names it, and between a fact and its
// repeat in a traceback.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/file.h"
#include "ingest/job_log/job_log_importer.h"

namespace commdx::ingest {
namespace {

const std::string kHang = std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Job Whole(const std::string& path, const std::string& text) {
  FileText f;
  f.path = path;
  f.data = text;
  Job job;
  EXPECT_TRUE(ParseJobLog(f, job).has_value());
  return job;
}

// `text` handed over in windows of `lines` lines each, as ReadWindows hands a file's.
Job InWindows(const std::string& path, const std::string& text, size_t lines) {
  Job job;
  auto reader = JobLogWindows(path, job);
  FileText w;
  w.path = path;
  size_t at = 0;
  uint64_t line = 1;
  while (at < text.size()) {
    size_t end = at;
    for (size_t n = 0; n < lines && end < text.size(); ++n) {
      const size_t nl = text.find('\n', end);
      end = nl == std::string::npos ? text.size() : nl + 1;
    }
    w.data = text.substr(at, end - at);
    w.first_line = line;
    w.first_offset = at;
    reader->Read(w);
    line += lines;
    at = end;
  }
  reader->Finish();
  return job;
}

std::string Fingerprint(const CollectiveFingerprint& c) {
  return std::to_string(c.rank) + "/" + std::to_string(c.seq) + "/" + c.op + "/" + c.shape + "/" +
         c.dtype;
}

// The facts, one a line, with where each was read.
std::string Facts(const Job& job) {
  const JobLogFacts& f = job.job_log;
  std::ostringstream o;
  for (const auto& t : f.timeouts)
    o << "timeout " << t.rank << " " << t.seq << " " << t.op << " " << t.loc.line << "\n";
  for (const auto& s : f.statuses)
    o << "status " << s.rank << " " << s.pg << " " << s.failed_seq << " " << s.loc.line << "\n";
  for (const auto& e : f.watchdog_events)
    o << "event " << static_cast<int>(e.kind) << " " << e.rank << " " << e.loc.line << "\n";
  for (const auto& b : f.barrier_timeouts)
    o << "barrier " << b.rank << " " << b.missing.size() << " " << Fingerprint(b.entering) << " "
      << b.loc.line << "\n";
  for (const auto& m : f.mismatches)
    o << "mismatch " << Fingerprint(m.a) << " " << Fingerprint(m.b) << " " << m.loc.line << "\n";
  for (const auto& g : f.process_groups) {
    o << "group " << g.rank << " " << g.pg << " " << g.pg_desc << " " << g.size << " "
      << g.timeout_ms << " " << g.nccl_version << " " << g.loc.line;
    for (const auto& v : g.settings) o << " " << v.name << "=" << v.value;
    o << "\n";
  }
  for (const auto& d : f.ddp) {
    o << "ddp " << d.rank << " " << d.bucket_cap_bytes << " " << d.find_unused_parameters << " "
      << d.loc.line << " sizes";
    for (int64_t s : d.bucket_sizes) o << " " << s;
    o << " rebuilt";
    for (int64_t s : d.rebuilt_limits) o << " " << s;
    o << "\n";
  }
  for (const auto& v : job.env.vars)
    o << "env " << v.name << "=" << v.value << " " << v.source << "\n";
  o << "files " << f.files.size() << "\n";
  return o.str();
}

TEST(JobLogWindows, EveryEdgeGivesTheFactsReadWhole) {
  for (const char* name :
       {"nodes4_skip_detail/job.log", "nodes2_skip_detail/job.log",
        "nodes4_mismatch_detail/job.log", "h200_healthy/job.log", "nodes2_healthy/job.log",
        "h200_timeout/job.log", "public/dump_signal_torchtune2651_wrapped.log"}) {
    SCOPED_TRACE(name);
    const std::string path = kHang + name;
    const std::string text = Slurp(path);
    ASSERT_FALSE(text.empty());
    const std::string whole = Facts(Whole(path, text));
    for (size_t lines : {1, 2, 3, 5, 8, 13}) {
      SCOPED_TRACE(std::to_string(lines) + " lines a window");
      EXPECT_EQ(Facts(InWindows(path, text, lines)), whole);
    }
  }
}

// The barrier timeout of rank 3 skipping collective #8 names the collective rank 0 entered, its
// "Running collective" line 60 lines before, in a window of its own.
TEST(JobLogWindows, BarrierTimeoutNamesTheCollectiveOfAnEarlierWindow) {
  const std::string path = kHang + "nodes4_skip_detail/job.log";
  const Job job = InWindows(path, Slurp(path), 1);
  ASSERT_EQ(job.job_log.barrier_timeouts.size(), 1u);  // its repeats in the traceback: once
  const BarrierTimeout& b = job.job_log.barrier_timeouts[0];
  EXPECT_EQ(b.rank, 0);
  EXPECT_EQ(b.missing, std::vector<int>{3});
  EXPECT_EQ(b.entering.seq, 7);
  EXPECT_EQ(b.entering.op, "ALLREDUCE");
  EXPECT_EQ(b.entering.shape, "[1048576]");
}

}  // namespace
}  // namespace commdx::ingest
