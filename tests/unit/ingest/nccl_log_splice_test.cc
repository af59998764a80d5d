// Lines of two processes spliced on a shared stdout (ingest/nccl_log/splice.cc): the embedded line
// is read as its own line at its own column, the glued host matched to a process already seen,
// the cut-off part noted.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "base/file.h"
#include "ingest/nccl_log/nccl_log_importer.h"
#include "unit/nccl_log_text.h"

namespace commdx {
namespace {

using nccl_log_test::Parse;

const NcclEnvOverride* Override(const Job& j, const std::string& name, int64_t pid) {
  for (const auto& o : j.nccl.overrides)
    if (o.name == name && o.pid == pid) return &o;
  return nullptr;
}

const DiagEntry* Note(const Job& j, const std::string& id) {
  for (const auto& e : j.quality.entries())
    if (e.id == id) return &e;
  return nullptr;
}

std::string Hosts(const Job& j) {
  std::string s;
  for (const auto& p : j.nccl.processes) s += p.host + ":" + std::to_string(p.pid) + " ";
  return s;
}

constexpr const char* kHead =
    "vm:974:974 [0] NCCL INFO cudaDriverVersion 13000\n"
    "vm:975:975 [1] NCCL INFO cudaDriverVersion 13000\n";

TEST(NcclLogSplice, LineWrittenIntoAnotherIsReadAtItsColumn) {
  const std::string cut = "vm:974:974 [0] NCCL INFO Topology detection : could no";
  Job j = Parse(std::string(kHead) + cut +
                "vm:975:975 [1] NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n"
                "t read /sys/devices/pci0000:00/0000:00:06.0/../max_link_speed, ignoring\n");
  const NcclEnvOverride* o = Override(j, "NCCL_P2P_DISABLE", 975);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->host, "vm");
  EXPECT_EQ(o->ref.loc.line, 3u);
  EXPECT_EQ(o->ref.loc.col, cut.size() + 1);
  EXPECT_EQ(o->ref.loc.ToString(), "t.log:3:" + std::to_string(cut.size() + 1));
  EXPECT_EQ(Hosts(j), "vm:974 vm:975 ");
  const DiagEntry* n = Note(j, "nccl_log.spliced_line");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->first.line, 3u);
  EXPECT_EQ(n->count, 1u);
}

TEST(NcclLogSplice, TextGluedBeforeAHostIsNotAProcess) {
  Job j = Parse(std::string(kHead) +
                "step 3 loss 0.53vm:975:975 [1] NCCL INFO NCCL_P2P_DISABLE set by environment to "
                "1\n"
                "garbagevm:974:974 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n");
  EXPECT_EQ(Hosts(j), "vm:974 vm:975 ");
  ASSERT_NE(Override(j, "NCCL_P2P_DISABLE", 975), nullptr);
  ASSERT_NE(Override(j, "NCCL_P2P_DISABLE", 974), nullptr);
  EXPECT_EQ(Override(j, "NCCL_P2P_DISABLE", 974)->ref.loc.col, 8u);
  const DiagEntry* n = Note(j, "nccl_log.glued_text");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->count, 2u);
}

TEST(NcclLogSplice, HostsThatOnlyEndAlikeStayApart) {
  // node1 and xnode1 are two hosts; xnode1's pid differs from every node1 process.
  Job j = Parse(
      "node1:10:10 [0] NCCL INFO cudaDriverVersion 13000\n"
      "xnode1:11:11 [0] NCCL INFO cudaDriverVersion 13000\n"
      "xnode1:11:11 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n");
  EXPECT_EQ(Hosts(j), "node1:10 xnode1:11 ");
  EXPECT_EQ(Note(j, "nccl_log.glued_text"), nullptr);
  EXPECT_EQ(Note(j, "nccl_log.spliced_line"), nullptr);
}

TEST(NcclLogSplice, ProcessNotSeenYetTakesTheHostNameCharacters) {
  Job j = Parse(
      "vm:974:974 [0] NCCL INFO Connected all rings via P2P/CUMEnode2:80:80 [3] NCCL INFO "
      "NCCL_P2P_DISABLE set by environment to 1\n");
  const NcclEnvOverride* o = Override(j, "NCCL_P2P_DISABLE", 80);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->host, "CUMEnode2");  // nothing tells "CUME" from the host name: kept, and noted
  ASSERT_NE(Note(j, "nccl_log.spliced_line"), nullptr);
}

TEST(NcclLogSplice, ManyEmbeddedPrefixesStayBounded) {
  std::string line = "vm:974:974 [0] NCCL INFO x";
  for (int i = 0; i < 5000; ++i) line += "vm:974:974 [0] NCCL INFO x";
  Job j = Parse(std::string(kHead) + line + "\n");
  const DiagEntry* n = Note(j, "nccl_log.spliced_line");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->count, 64u);  // kMaxSplices: the rest of the line is read as one
}

TEST(NcclLogSplice, SplicedRealLogKeepsBothProcessesOverrides) {
  // Made by tests/badinput/make_parse_cases.py from examples/ddp_p2p_disable's two logs.
  std::ifstream in(std::string(COMMDX_SOURCE_DIR) +
                   "/tests/badinput/cases/spliced_p2p_disable.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Job j = Parse(text);
  EXPECT_EQ(Hosts(j), "vm:974 vm:975 ");
  EXPECT_NE(Override(j, "NCCL_P2P_DISABLE", 974), nullptr);
  EXPECT_NE(Override(j, "NCCL_P2P_DISABLE", 975), nullptr);
  EXPECT_NE(Note(j, "nccl_log.spliced_line"), nullptr);
  EXPECT_NE(Note(j, "nccl_log.glued_text"), nullptr);
}

}  // namespace
}  // namespace commdx
