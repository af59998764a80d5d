// NCCL's NVTX payloads in real Nsight Systems exports (tests/data/nsys/README.md): the JSON and
// the binary form decode to the same values, collectives get NCCL's message sizes and the rank
// comes from ncclCommInitRank; a DDP export's sizes equal those of the Kineto trace of the same
// script; malformed payloads are refused, never half read.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/file.h"
#include "ingest/load_inputs.h"
#include "ingest/nsys/nccl_nvtx.h"
#include "ingest/nsys/sqlite_db.h"

namespace commdx {
namespace {

using ingest::nsys::NcclPayload;

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/nsys/";
const std::string kProbe = kData + "nccl_probe_payloads.sqlite.gz";
const std::string kDdp = kData + "ddp_sync_end_payloads.sqlite.gz";

Job Load(const std::string& path) {
  auto job = ingest::LoadInputs({path});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(*job) : Job{};
}

TEST(NsysNccl, JsonAndBlobPayloadsAgree) {
  auto text = ReadFile(kProbe);
  ASSERT_TRUE(text);
  auto db = ingest::nsys::Database::OpenBytes(text->data, "probe");
  ASSERT_TRUE(db) << db.error().ToString();
  auto tables = db->Tables();
  ASSERT_TRUE(tables);
  ingest::nsys::PayloadSchemas schemas;
  ASSERT_TRUE(schemas.Load(*db, *tables));
  int rows = 0, collectives = 0;
  auto st = db->EachRow(
      "SELECT s.value, e.jsonText, e.binaryData FROM NVTX_EVENTS e JOIN StringIds s "
      "ON s.id = e.textId WHERE e.domainId = 1 AND e.jsonText IS NOT NULL",
      [&](const ingest::nsys::Rows& r) {
        ++rows;
        NcclPayload j, b;
        ASSERT_TRUE(ingest::nsys::ParseNcclPayloadJson(r.Text(1), j)) << r.Text(1);
        ASSERT_TRUE(schemas.Decode(r.Blob(2), b)) << r.Text(0);
        EXPECT_TRUE(j.any && j.has_comm);
        EXPECT_EQ(j.comm, b.comm) << r.Text(0);
        EXPECT_EQ(j.bytes, b.bytes) << r.Text(0);
        EXPECT_EQ(j.nranks, b.nranks) << r.Text(0);
        EXPECT_EQ(j.rank, b.rank) << r.Text(0);
        EXPECT_EQ(j.root, b.root) << r.Text(0);
        EXPECT_EQ(j.device, b.device) << r.Text(0);
        auto kind = ingest::nsys::ClassifyNcclCall(r.Text(0));
        if (kind.kind == ingest::nsys::NcclCallKind::kCollective) {
          ++collectives;
          EXPECT_EQ(j.bytes, 4194304) << r.Text(0);
        }
        if (r.Text(0) == "ncclCommInitRankConfig") {
          EXPECT_EQ(j.nranks, 1);
          EXPECT_EQ(j.rank, 0);
          EXPECT_EQ(j.device, 0);
        }
        if (r.Text(0) == "ncclBroadcast") {
          EXPECT_EQ(j.root, 0);
        }
      });
  ASSERT_TRUE(st) << st.error().ToString();
  // 15 collectives, ncclCommInitRankConfig, ncclCommFinalize, ncclCommDestroy.
  EXPECT_EQ(rows, 18);
  EXPECT_EQ(collectives, 15);
}

TEST(NsysNccl, ProbeCollectivesAreSizedAndRanked) {
  Job job = Load(kProbe);
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.rank, 0);
  EXPECT_NE(t.rank_source.find("NCCL"), std::string::npos) << t.rank_source;
  EXPECT_EQ(job.quality.Count("kineto.rank_unknown"), 0u);
  EXPECT_EQ(job.quality.Count("nsys.nccl_payloads_missing"), 0u);
  ASSERT_EQ(t.collectives.size(), 15u);
  int per_type[3] = {0, 0, 0};
  for (const Collective& c : t.collectives) {
    EXPECT_EQ(c.bytes, 4194304u) << CollectiveTypeName(c.type);
    EXPECT_EQ(c.group_size, 1);
    per_type[0] += c.type == CollectiveType::kAllReduce;
    per_type[1] += c.type == CollectiveType::kAllGather;
    per_type[2] += c.type == CollectiveType::kBroadcast;
  }
  EXPECT_EQ(per_type[0], 5);
  EXPECT_EQ(per_type[1], 5);
  EXPECT_EQ(per_type[2], 5);
}

std::vector<uint64_t> SortedBytes(const Job& job) {
  std::vector<uint64_t> out;
  for (const auto& r : job.trace.ranks)
    for (const Collective& c : r.collectives) out.push_back(c.bytes);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(NsysNccl, DdpSizesEqualTheKinetoTwins) {
  // Two runs of the same script: nsys with NCCL's payloads, the PyTorch profiler with
  // record_param_comms. DDP's buckets are the same, so every all-reduce size is.
  Job nsys = Load(kDdp);
  Job kineto = Load(std::string(COMMDX_SOURCE_DIR) +
                    "/examples/styles_healthy_sync_end/trace_rank0.json.gz");
  std::vector<uint64_t> a = SortedBytes(nsys), b = SortedBytes(kineto);
  ASSERT_EQ(a.size(), 88u);
  EXPECT_EQ(a, b);
  for (const Collective& c : nsys.trace.ranks[0].collectives)
    EXPECT_EQ(c.type, CollectiveType::kAllReduce);
}

TEST(NsysNccl, ExportWithoutPayloadsSaysHowToGetThem) {
  Job job = Load(std::string(COMMDX_SOURCE_DIR) + "/examples/nsys_healthy_sync_end");
  EXPECT_EQ(job.quality.Count("nsys.nccl_payloads_missing"), 1u);
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  EXPECT_EQ(job.trace.ranks[0].collectives.size(), 88u);
}

TEST(NsysNccl, RankFromTheEnvironmentNsysWasLaunchedIn) {
  // `torchrun --no-python nsys profile ... python3 ...`: one report per rank, and the launcher's
  // RANK / WORLD_SIZE in TARGET_INFO_SYSTEM_ENV's DeviceEnvironment (no NCCL in this script).
  Job job = Load(kData + "torchrun_rank_env.sqlite.gz");
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  const RankTrace& t = job.trace.ranks[0];
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.world_size, 1);
  EXPECT_EQ(t.rank_source, "nsys launch environment (RANK)");
  EXPECT_EQ(job.quality.Count("kineto.rank_unknown"), 0u);
  // The NCCL payload outranks the environment; exports without either still say so.
  EXPECT_NE(Load(kProbe).trace.ranks[0].rank_source.find("NCCL"), std::string::npos);
  EXPECT_EQ(Load(kDdp).quality.Count("kineto.rank_unknown"), 1u);
}

TEST(NsysNccl, UnreadablePayloadIsNotedNotGuessed) {
  // The probe export with one ncclAllReduce's JSON payload cut and its blob removed.
  auto text = ReadFile(kProbe);
  ASSERT_TRUE(text);
  const std::string path = ::testing::TempDir() + "/commdx_cut_payload.sqlite";
  { std::ofstream(path, std::ios::binary) << text->data; }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE NVTX_EVENTS SET jsonText = substr(jsonText, 1, 20), "
                         "binaryData = NULL WHERE rowid = (SELECT min(e.rowid) FROM NVTX_EVENTS e "
                         "JOIN StringIds s ON s.id = e.textId WHERE s.value = 'ncclAllReduce')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);
  Job job = Load(path);
  EXPECT_EQ(job.quality.Count("nsys.nccl_payload_unreadable"), 1u);
  EXPECT_EQ(job.quality.Count("nsys.nccl_payloads_missing"), 0u);
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  int unsized = 0;
  for (const Collective& c : job.trace.ranks[0].collectives) unsized += c.bytes == 0;
  EXPECT_EQ(unsized, 1);
  std::remove(path.c_str());
}

TEST(NsysNccl, MalformedPayloadsAreRefused) {
  NcclPayload p;
  EXPECT_TRUE(ingest::nsys::ParseNcclPayloadJson(
      R"({"NCCL communicator ID":14771878028823756698,"Message size [bytes]":4194304,)"
      R"("Reduction operation":"Sum"})",
      p));
  EXPECT_EQ(p.comm, 14771878028823756698ull);
  EXPECT_EQ(p.bytes, 4194304);
  for (std::string_view bad :
       {"", "{", "[]", R"({"Rank":})", R"({"Rank":1,})", R"({"Rank":{"x":1}})", R"({"Rank" 1})",
        R"({"NCCL communicator ID":99999999999999999999999})", R"({"Rank":"unterminated})"}) {
    NcclPayload q;
    EXPECT_FALSE(ingest::nsys::ParseNcclPayloadJson(bad, q)) << bad;
  }
  ingest::nsys::PayloadSchemas none;
  std::string blob(8, '\0');
  blob[0] = 1;  // one payload, but its header is missing
  EXPECT_FALSE(none.Decode(blob, p));
  EXPECT_FALSE(none.Decode("", p));
  std::string huge(32, '\0');
  huge[0] = 1;
  huge[16] = static_cast<char>(0xff);  // a size past the end of the blob
  EXPECT_FALSE(none.Decode(huge, p));
}

}  // namespace
}  // namespace commdx
