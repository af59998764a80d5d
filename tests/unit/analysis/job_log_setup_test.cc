// Job logs as an environment source: ProcessGroupNCCL's start-up lines and DDP's bucket lines of
// the real 1xH200 capture (tests/data/hang/h200_healthy), and the pre-2.2 one-line format.
#include <gtest/gtest.h>

#include "analysis/comm_analyzers.h"
#include "analysis/env_analyzers.h"
#include "analysis/env_nccl_vars.h"
#include "analysis/trace_facts.h"
#include "base/file.h"
#include "ingest/job_log/job_log_importer.h"

namespace commdx::analysis {
namespace {

Job ParseText(const std::string& path, std::string text) {
  Job job;
  FileText f{path, std::move(text)};
  EXPECT_TRUE(ingest::SniffJobLog(f.data));
  EXPECT_TRUE(ingest::ParseJobLog(f, job).has_value());
  return job;
}

Job ParseReal(const std::string& rel) {
  auto f = ReadFile(std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/" + rel);
  EXPECT_TRUE(f.has_value()) << rel;
  return ParseText(rel, f.has_value() ? f.value().data : "");
}

const EnvVar* Setting(const ProcessGroupInit& g, std::string_view name) {
  for (const auto& v : g.settings)
    if (v.name == name) return &v;
  return nullptr;
}

TEST(JobLogSetup, RealProcessGroupLines) {
  Job job = ParseReal("h200_healthy/job.log");
  ASSERT_EQ(job.job_log.process_groups.size(), 1u);
  const ProcessGroupInit& g = job.job_log.process_groups[0];
  EXPECT_EQ(g.rank, 0);
  EXPECT_EQ(g.pg, "0");
  EXPECT_EQ(g.pg_name, "0");
  EXPECT_EQ(g.size, 1);
  EXPECT_EQ(g.timeout_ms, 5000);
  EXPECT_EQ(g.nccl_version, "2.28.9");
  EXPECT_EQ(g.loc.line, 52u);  // the options line
  ASSERT_NE(Setting(g, "TORCH_NCCL_TRACE_BUFFER_SIZE"), nullptr);
  EXPECT_EQ(Setting(g, "TORCH_NCCL_TRACE_BUFFER_SIZE")->value, "2000");
  // The HeartbeatMonitor line explains its first variable in parentheses.
  ASSERT_NE(Setting(g, "TORCH_NCCL_ENABLE_MONITORING"), nullptr);
  EXPECT_EQ(Setting(g, "TORCH_NCCL_ENABLE_MONITORING")->value, "1");
  EXPECT_EQ(Setting(g, "TORCH_DISTRIBUTED_DEBUG")->value, "DETAIL");
  EXPECT_EQ(Setting(g, "TORCH_NCCL_DESYNC_DEBUG")->value, "1");
  EXPECT_EQ(Setting(g, "USE_HIGH_PRIORITY_STREAM"), nullptr);  // an option, not a variable
}

// The real rank-0 log, and its two ProcessGroupNCCL lines once more as rank 1 would print them
// with `version` (what a node with another PyTorch wheel writes).
Job TwoRanks(const std::string& version) {
  auto f = ReadFile(std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/h200_healthy/job.log");
  EXPECT_TRUE(f.has_value());
  std::string text = f.has_value() ? f.value().data : "";
  std::string extra;
  for (size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (line.find("ProcessGroupNCCL initialization options") == std::string::npos &&
        line.find("ProcessGroupNCCL environments") == std::string::npos)
      continue;
    for (auto [from, to] : {std::pair<std::string, std::string>{"Rank 0]", "Rank 1]"},
                            {"global rank: 0", "global rank: 1"},
                            {"size: 1,", "size: 2,"},
                            {"NCCL version: 2.28.9", "NCCL version: " + version}})
      if (size_t i = line.find(from); i != std::string::npos) line.replace(i, from.size(), to);
    extra += line + "\n";
  }
  EXPECT_FALSE(extra.empty());
  return ParseText("job.log", text + extra);
}

TEST(JobLogSetup, NcclVersionsOfTheRanksAreCompared) {
  Job mixed = TwoRanks("2.21.5");
  ASSERT_EQ(mixed.job_log.process_groups.size(), 2u);
  auto fs = FindCommVersionMismatch(mixed, Options{});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].title.find("2.21.5 on rank 1, 2.28.9 on rank 0"), std::string::npos)
      << fs[0].title;
  ASSERT_FALSE(fs[0].refs.empty());
  EXPECT_EQ(fs[0].refs[0].where.file, "job.log");
  EXPECT_TRUE(FindCommVersionMismatch(TwoRanks("2.28.9"), Options{}).empty());
}

TEST(JobLogSetup, SettingsReachTheEnvironmentFindings) {
  Job job = ParseReal("h200_healthy/job.log");
  EXPECT_TRUE(job.env.captured);
  EXPECT_FALSE(job.env.platform_checked);
  const EnvVar* v = job.env.Find("TORCH_NCCL_ENABLE_TIMING");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->value, "1");
  EXPECT_NE(v->source.find("h200_healthy/job.log:"), std::string::npos) << v->source;
  // DETAIL turned on timing and desync debugging: both cost time on every collective.
  bool timing = false;
  for (const Finding& f : FindEnvVariables(job, {}))
    if (f.id == "env.nccl_override" && f.title.find("TORCH_NCCL_ENABLE_TIMING=1") == 0) {
      timing = true;
      EXPECT_NE(f.detail.find("printed by ProcessGroupNCCL"), std::string::npos) << f.detail;
    }
  EXPECT_TRUE(timing);
  // A name PyTorch printed is spelt right even where commdx's table lacks it.
  const EnvVar* coord = job.env.Find("TORCH_NCCL_COORD_CHECK_MILSEC");
  ASSERT_NE(coord, nullptr);
  VarVerdict verdict = ClassifyVariable(*coord, job);
  EXPECT_FALSE(verdict.known);
  EXPECT_EQ(verdict.risk, VarRisk::kNeutral);
  EXPECT_EQ(verdict.what.find("check the spelling"), std::string::npos);
}

TEST(JobLogSetup, RealDdpBuckets) {
  Job job = ParseReal("h200_healthy/job.log");
  ASSERT_EQ(job.job_log.ddp.size(), 1u);
  const DdpInit& d = job.job_log.ddp[0];
  EXPECT_EQ(d.rank, 0);
  EXPECT_EQ(d.bucket_cap_bytes, 4194304);
  EXPECT_EQ(d.find_unused_parameters, 0);
  EXPECT_EQ(d.bucket_sizes, std::vector<int64_t>{33574912});
  EXPECT_EQ(d.rebuilt_limits, (std::vector<int64_t>{4194304, 4194304}));
  EXPECT_EQ(d.loc.line, 110u);
  TraceFacts facts = ComputeTraceFacts(job);
  EXPECT_EQ(facts.ddp_bucket_cap_bytes, 4194304);
  EXPECT_EQ(facts.ddp_source, "h200_healthy/job.log:110 (rank 0)");
}

// PyTorch <= 2.1 printed one line, with the old variable names, and no "global rank".
// Written after that release's format string; two ranks under torchrun's prefixes.
TEST(JobLogSetup, OldOneLineFormatPerRank) {
  std::string text;
  for (int r : {0, 1})
    text += "[default" + std::to_string(r) + "]:[I ProcessGroupNCCL.cpp:665] [Rank " +
            std::to_string(r) +
            "] ProcessGroupNCCL initialization options:NCCL_ASYNC_ERROR_HANDLING: 1, "
            "NCCL_DESYNC_DEBUG: 0, NCCL_ENABLE_TIMING: 0, NCCL_BLOCKING_WAIT: " +
            std::to_string(r) +
            ", TIMEOUT(ms): 1800000, USE_HIGH_PRIORITY_STREAM: 0, TORCH_DISTRIBUTED_DEBUG: OFF, "
            "NCCL_DEBUG: INFO, ID=2071232\n";
  Job job = ParseText("out.log", text);
  ASSERT_EQ(job.job_log.process_groups.size(), 2u);
  EXPECT_EQ(job.job_log.process_groups[1].rank, 1);
  EXPECT_EQ(job.job_log.process_groups[1].timeout_ms, 1800000);
  EXPECT_EQ(Setting(job.job_log.process_groups[1], "NCCL_BLOCKING_WAIT")->value, "1");
  // The first rank's value stands for the job, as with environment dumps.
  EXPECT_EQ(job.env.Find("NCCL_BLOCKING_WAIT")->value, "0");
  EXPECT_NE(job.env.Find("NCCL_BLOCKING_WAIT")->source.find("out.log:1 (rank 0)"),
            std::string::npos);
}

TEST(JobLogSetup, CutLinesAndNoiseAreNotSettings) {
  Job job = ParseText("x.log",
                      "[I ProcessGroupNCCL.cpp:1] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL "
                      "environments: NCCL version: , TORCH_NCCL_X:, junk, : 5, TORCH_NCCL_Y: 2");
  ASSERT_EQ(job.job_log.process_groups.size(), 1u);
  const ProcessGroupInit& g = job.job_log.process_groups[0];
  EXPECT_EQ(g.nccl_version, "");
  ASSERT_EQ(g.settings.size(), 1u);
  EXPECT_EQ(g.settings[0].name, "TORCH_NCCL_Y");
  EXPECT_EQ(job.job_log.ddp.size(), 0u);
}

}  // namespace
}  // namespace commdx::analysis
