// `commdx bench` through the real binary with the fake backend: output, JSON, exit codes,
// and the watchdog ending a hung run.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "unit/run_commdx.h"

namespace commdx {
namespace {

using ExecResult = test_util::RunResult;

ExecResult Exec(const std::string& args) {
  return test_util::RunCommdx(args, /*with_stderr=*/true);
}

TEST(BenchCli, PrintsNcclTestsColumnsAndSummary) {
  ExecResult r = Exec("bench all_reduce --backend fake -b 8 -e 64M -f 16");
  EXPECT_EQ(r.code, 0) << r.out;
  // nccl-tests' columns, in nccl-tests' order, on one line
  size_t at = r.out.find("size(B)");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string header = r.out.substr(at, r.out.find('\n', at) - at);
  size_t pos = 0;
  for (const char* col :
       {"size(B)", "count", "type", "redop", "root", "time(us)", "algbw(GB/s)", "busbw(GB/s)",
        "#wrong", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong"}) {
    size_t next = header.find(col, pos);
    ASSERT_NE(next, std::string::npos) << col << " after " << pos << " in " << header;
    pos = next + 1;
  }
  EXPECT_NE(r.out.find("all_reduce summary"), std::string::npos);
  EXPECT_NE(r.out.find("NCCL library"), std::string::npos);
}

TEST(BenchCli, JsonHasStableKeys) {
  ExecResult r = Exec("bench sendrecv --backend fake -b 1K -e 1M -f 32 --format json");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* key : {"\"bench_sendrecv\"", "\"oop_busbw_gbps\"", "\"ip_wrong\"",
                          "\"bench_sendrecv_summary\"", "\"plateau_busbw_gbps\""})
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
}

TEST(BenchCli, LowBandwidthIsAnErrorFindingWithExitCode1) {
  ExecResult r = Exec("bench all_reduce --backend fake -b 1M -e 1G -f 32 --fake-busbw 20");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("bench.low_busbw"), std::string::npos);
}

TEST(BenchCli, RanksOnOneGpuAreTheRootCauseOfTheirSlowNumbers) {
  // Ranks 0 and 1 report one CUDA UUID (as two pods time-slicing one GPU do): the low bandwidth
  // measured is their time slicing, and the report says so first.
  ExecResult r = Exec(
      "bench all_reduce --backend fake --fake-shared-gpu 2 --fake-busbw 20 -b 1M -e 1G -f 32");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("1. [error] bench.shared_gpu"), std::string::npos) << r.out;  // first
  EXPECT_NE(r.out.find("Ranks 0 and 1 run on one GPU (GPU-fa4e0000-0000-0000-0000-000000000000)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(Explained by bench.shared_gpu.)"), std::string::npos) << r.out;

  ExecResult four = Exec(
      "bench all_reduce --backend fake --fake-ranks 4 --fake-shared-gpu 3 -b 1M -e 16M -f 4");
  EXPECT_NE(four.out.find("Ranks 0, 1 and 2 run on one GPU"), std::string::npos) << four.out;
  EXPECT_EQ(four.out.find("Ranks 0, 1, 2 and 3"), std::string::npos) << four.out;

  ExecResult own = Exec("bench all_reduce --backend fake -b 1M -e 16M -f 4");
  EXPECT_EQ(own.code, 0) << own.out;
  EXPECT_EQ(own.out.find("bench.shared_gpu"), std::string::npos) << own.out;
}

TEST(BenchCli, OneRankIsNotJudgedAgainstALink) {
  // One GPU: every busbw is 0 by definition; seen raising bench.low_busbw on a 1-GPU H200.
  ExecResult r = Exec("bench all_reduce --backend fake --fake-ranks 1 -b 1M -e 1G -f 32");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("bench.low_busbw"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("one rank: no data crosses a link"), std::string::npos) << r.out;
}

TEST(BenchCli, WatchdogEndsAHungCollective) {
  ExecResult r =
      Exec("bench all_reduce --backend fake -b 8 -e 1K -f 2 --fake-hang-bytes 64 --timeout 0.3");
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("all_reduce 64 B float sum out-of-place"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("made no progress"), std::string::npos);
}

TEST(BenchCli, UsageErrors) {
  EXPECT_EQ(Exec("bench allreduce --backend fake").code, 2);
  EXPECT_EQ(Exec("bench all_reduce --backend fake -d float128").code, 2);
  EXPECT_EQ(Exec("bench all_reduce --backend fake -e lots").code, 2);
  ExecResult list = Exec("bench --list");
  EXPECT_EQ(list.code, 0);
  EXPECT_NE(list.out.find("repro"), std::string::npos);
  EXPECT_NE(list.out.find("replay"), std::string::npos);
}

TEST(BenchCli, ReplayOfAStragglerRunSavesAVerdictDiagnoseReadsBack) {
  // ddp_straggler (2xH200): rank 1 runs extra matmuls before each forward, so rank 0's
  // all-reduces wait for it; replayed alone on the fake link they take a fraction of that.
  char dir[] = "/tmp/commdx_replay_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string saved = std::string(dir) + "/replay.json";
  ExecResult r = Exec("bench replay " COMMDX_SOURCE_DIR
                      "/examples/ddp_straggler --backend fake -n 10 -c 0 --save " +
                      saved);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("Replay of group 0 (default_pg): 2 ranks in the job, replayed on 2"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("slow_in_job"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("launched before the trace began"), std::string::npos) << r.out;
  ExecResult d = Exec("diagnose " + saved);
  EXPECT_NE(d.out.find("replay.slow_in_job"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("The 11 calls of one step took"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find(saved), std::string::npos) << d.out;  // the evidence names the file
  // --save never replaces an input; a replay without inputs, or with none holding
  // collectives, is refused with what was expected.
  ExecResult over = Exec("bench replay " + saved + " --backend fake --save " + saved);
  EXPECT_EQ(over.code, 3) << over.out;  // a snapshot holds no collective calls
  EXPECT_NE(over.out.find("no collective calls in it"), std::string::npos) << over.out;
  EXPECT_EQ(Exec("bench replay --backend fake").code, 2);
  EXPECT_EQ(Exec("bench all_reduce " + saved + " --backend fake").code, 2);
  std::remove(saved.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace commdx
