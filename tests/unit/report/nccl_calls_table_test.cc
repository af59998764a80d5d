// The `calls` table of `commdx logs`: NCCL's COLL lines summed per communicator, opCount in
// hexadecimal as NCCL logs it, on the real excerpt of NVIDIA/nccl#584 (send lines of a
// communicator no init line names) and on a communicator with two ranks logging.
#include <gtest/gtest.h>

#include <string>

#include "ingest/load_inputs.h"
#include "report/nccl_tables.h"

namespace commdx::report {
namespace {

const Table* Calls(const Report& r) {
  for (const auto& t : r.tables)
    if (t.key == "calls") return &t;
  return nullptr;
}

TEST(NcclCallsTable, OneRowPerCommunicatorWithHexOpCounts) {
  auto job = ingest::LoadInputs(
      {std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/public/nccl584_sendrecv_excerpt.log"});
  ASSERT_TRUE(job);
  Report rep;
  AddNcclTables(job->nccl, rep);
  const Table* t = Calls(rep);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 1u);
  const auto& row = t->rows[0];
  EXPECT_EQ(row[0].text, "?0x7f5128002e10");
  EXPECT_EQ(row[3].text, "4");
  EXPECT_EQ(row[4].text, "12 - 18");  // opCount 12, 14, 16, 18 as logged (hex)
  EXPECT_EQ(row[5].text, "send x4");
  EXPECT_NE(t->note.find("no init line"), std::string::npos);

  NcclSetup two;
  for (int rank : {0, 1}) {
    NcclCallStream s;
    s.comm_id = "0xabc";
    s.rank = rank;
    s.nranks = 2;
    s.file = "r" + std::to_string(rank) + ".log";
    NcclCall c;
    c.op_count = 0x1f;
    c.count = 1024;
    c.dtype = 7;  // float32
    c.type = CollectiveType::kAllReduce;
    c.line = 9;
    s.calls = {c, c};
    two.call_streams.push_back(s);
  }
  Report r2;
  AddNcclTables(two, r2);
  const Table* t2 = Calls(r2);
  ASSERT_NE(t2, nullptr);
  ASSERT_EQ(t2->rows.size(), 1u);
  EXPECT_EQ(t2->rows[0][2].text, "2");
  EXPECT_EQ(t2->rows[0][3].text, "4");
  EXPECT_EQ(t2->rows[0][4].text, "1f");
  EXPECT_EQ(t2->rows[0][5].text, "all_reduce x4");
  EXPECT_EQ(t2->rows[0][7].text, "r0.log:9");
  EXPECT_TRUE(t2->note.empty());
  // No COLL lines: no table.
  Report r3;
  AddNcclTables(NcclSetup{}, r3);
  EXPECT_EQ(Calls(r3), nullptr);
}

}  // namespace
}  // namespace commdx::report
