// The NCCL line prefix in every era and wrapper (ingest/nccl_log/prefix.cc). Inputs are real
// lines from tests/data/nccl_log_fixtures and the grammar reference.
#include <gtest/gtest.h>

#include "ingest/nccl_log/line.h"

namespace commdx::ingest::nccl_log {
namespace {

LineInfo Split(std::string_view line) {
  LineInfo li;
  EXPECT_TRUE(SplitNcclLine(line, li)) << line;
  return li;
}

TEST(NcclLogPrefix, ModernInfoLine) {
  auto li = Split("vm:656:667 [0] NCCL INFO Channel 00/24 : 0 1");
  EXPECT_EQ(li.host, "vm");
  EXPECT_EQ(li.pid, 656);
  EXPECT_EQ(li.tid, 667);
  EXPECT_EQ(li.dev, 0);
  EXPECT_EQ(li.level, Level::kInfo);
  EXPECT_EQ(li.msg, "Channel 00/24 : 0 1");
  EXPECT_FALSE(li.weak);
}

TEST(NcclLogPrefix, DigitRunsTooLongForAPidAreNotAPrefix) {
  // Found by fuzzing: 20-digit pid/tid overflowed int64_t (UBSan). 18 digits still parse.
  // Under UBSan (the sanitizer suite) the old code stops here; without it the pid wrapped to
  // 7766279631452241919.
  LineInfo li;
  SplitNcclLine("vm:99999999999999999999:1 [0] NCCL INFO x", li);
  EXPECT_NE(li.pid, 7766279631452241919);
  auto ok = Split("vm:123456789012345678:7 [0] NCCL INFO Channel 00/24 : 0 1");
  EXPECT_EQ(ok.pid, 123456789012345678);
}

TEST(NcclLogPrefix, WarnWithSourceLocation) {
  auto li = Split(
      "ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared "
      "memory segment /dev/shm/nccl-x (size 9637888)");
  EXPECT_EQ(li.level, Level::kWarn);
  EXPECT_EQ(li.source, "misc/shmutils.cc:112");
  EXPECT_EQ(li.dev, 3);
  EXPECT_EQ(li.host, "ubuntu");
  EXPECT_EQ(li.msg.substr(0, 14), "Error while cr");
}

TEST(NcclLogPrefix, PreNccl23FormWithoutTheWordNccl) {
  auto info =
      Split("gpu-bql-144-103:18553:18553 [0] INFO NET : Using interface enp3s0:192.168.144.103<0>");
  EXPECT_EQ(info.level, Level::kInfo);
  EXPECT_EQ(info.host, "gpu-bql-144-103");
  EXPECT_EQ(info.msg, "NET : Using interface enp3s0:192.168.144.103<0>");
  auto warn = Split(
      "gpu-bql-144-103:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : "
      "Connection timed out");
  EXPECT_EQ(warn.level, Level::kWarn);
  EXPECT_EQ(warn.source, "include/socket.h:360");
  EXPECT_EQ(warn.tid, 18611);
}

TEST(NcclLogPrefix, OtherProgramsInfoIsNotNccl) {
  LineInfo li;
  // python logging: no host:pid:tid [dev] before INFO, so only a weak candidate at most.
  ASSERT_TRUE(SplitNcclLine("2024-01-01 12:00:00 INFO root: training started", li));
  EXPECT_TRUE(li.weak);
}

TEST(NcclLogPrefix, LauncherWrappers) {
  auto mpi = Split("[1,3]<stdout>:smc-gpu-03:29881:30401 [0] NCCL INFO init.cc:903 -> 5");
  EXPECT_EQ(mpi.host, "smc-gpu-03");
  EXPECT_EQ(mpi.pid, 29881);
  auto trainer =
      Split("[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set to eth2");
  EXPECT_EQ(trainer.host, "twshared1016");
  EXPECT_EQ(trainer.dev, 3);
  auto slurm = Split("0: node01:106:196 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>");
  EXPECT_EQ(slurm.host, "node01");
  auto editor = Split("451 tj1-asr-train-v100-11:41449:41449 [6] NCCL INFO Using network IB");
  EXPECT_EQ(editor.host, "tj1-asr-train-v100-11");
  EXPECT_EQ(editor.dev, 6);
  auto quote =
      Split("> DESKTOP:36629:36635 [0] graph/xml.cc:332 NCCL WARN Could not find real path");
  EXPECT_EQ(quote.host, "DESKTOP");
  EXPECT_EQ(quote.source, "graph/xml.cc:332");
}

TEST(NcclLogPrefix, TimestampBecomesNanoseconds) {
  auto li = Split(
      "[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda "
      "failure 401 'the operation cannot be performed in the present state'");
  EXPECT_EQ(li.host, "node004");
  EXPECT_EQ(li.source, "transport/nvls.cc:254");
  // 2025-07-21T19:05:29Z
  EXPECT_EQ(li.time_ns, 1753124729LL * 1000000000LL);
  EXPECT_EQ(FindTimestampNs("2024-11-28T07:42:14.532Z | algo-1"), 1732779734532000000LL);
  EXPECT_EQ(FindTimestampNs("no time here"), -1);
  // Dates whose nanoseconds since 1970 do not fit an int64 are no clock's (found by fuzzing a
  // summary's NCCL log text: a year 7011 overflowed).
  EXPECT_EQ(FindTimestampNs("7012-03-01 10:00:00 host:1:1 [0] NCCL INFO x"), -1);
  EXPECT_EQ(FindTimestampNs("1600-01-01 00:00:00"), -1);
  EXPECT_GT(FindTimestampNs("2261-12-31 23:59:59"), 0);
}

TEST(NcclLogPrefix, StrippedPrefixes) {
  auto dev_only = Split(
      "[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device");
  EXPECT_EQ(dev_only.dev, 3);
  EXPECT_TRUE(dev_only.host.empty());
  EXPECT_EQ(dev_only.source, "include/shm.h:28");
  auto level_only = Split("NCCL INFO Using network Socket");
  EXPECT_EQ(level_only.msg, "Using network Socket");
  EXPECT_EQ(level_only.dev, -1);
  auto bare = Split("Bootstrap: Using eth0:10.7.147.73<0>");
  EXPECT_EQ(bare.level, Level::kBare);
  EXPECT_TRUE(bare.weak);
  auto info_first = Split("INFO NET/Socket : Using");
  EXPECT_EQ(info_first.level, Level::kInfo);
  EXPECT_TRUE(info_first.weak);
}

TEST(NcclLogPrefix, BannerWithoutLevel) {
  auto li = Split("NCCL version 2.2.13+cuda9.0");
  EXPECT_EQ(li.level, Level::kBanner);
  EXPECT_EQ(li.msg, "NCCL version 2.2.13+cuda9.0");
}

TEST(NcclLogPrefix, StripLauncherPrefix) {
  EXPECT_EQ(StripLauncherPrefix("[trainer0|0]:Last error:"), "Last error:");
  EXPECT_EQ(StripLauncherPrefix("[rank0]: Error : x"), "Error : x");
  EXPECT_EQ(StripLauncherPrefix("[1,2]<stdout>:"), "");
  EXPECT_EQ(StripLauncherPrefix("[2026-04-28 14:14:48] host:1:2"), "host:1:2");
  EXPECT_EQ(StripLauncherPrefix("> quoted"), "quoted");
  EXPECT_EQ(StripLauncherPrefix("[0] keep"), "[0] keep");  // a [dev], not a wrapper
}

}  // namespace
}  // namespace commdx::ingest::nccl_log
