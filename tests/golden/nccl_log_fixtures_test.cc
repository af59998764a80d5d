// Every real log in tests/data/nccl_log_fixtures against the root cause its public thread
// established (labels.json): each root-cause tag must come out as the finding id mapped below,
// and healthy logs must raise nothing at error level.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/registry.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

const std::string kDir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/nccl_log_fixtures";
const std::string kReferenceLog =
    std::string(COMMDX_SOURCE_DIR) + "/tests/data/h200x2_reference/nccl-debug-allreduce-base.log";

// Root-cause tag -> finding ids that report it (any one is enough).
const std::map<std::string, std::set<std::string>>& TagToIds() {
  static const std::map<std::string, std::set<std::string>> m = {
      {"bootstrap_unreachable", {"comm.bootstrap_failure"}},
      {"shm_too_small", {"comm.shm_too_small"}},
      {"container_shm", {"comm.shm_too_small"}},
      {"socket_fallback", {"comm.socket_fallback"}},
      {"ib_not_found", {"comm.socket_fallback", "comm.ib_error"}},
      {"container_rdma_access", {"comm.ib_error"}},
      {"bad_auto_iface", {"comm.wrong_interface"}},
      {"wrong_ifname", {"comm.bootstrap_failure"}},
      {"no_ip_interface", {"comm.bootstrap_failure"}},
      {"container_networking", {"comm.bootstrap_failure"}},
      {"acs_enabled", {"topo.acs_enabled"}},
      {"p2p_hang", {"topo.acs_enabled", "comm.p2p_disabled"}},
      {"p2p_disabled", {"comm.p2p_disabled"}},
      {"gdr_disabled", {"comm.gdr_disabled"}},
      {"gdr_broken", {"comm.ib_error"}},
      {"ib_completion_error", {"comm.ib_error"}},
      {"roce_gid_mismatch", {"comm.ib_error"}},
      {"nic_selection", {"comm.mixed_link_layers", "comm.ib_error"}},
      {"roce_ib_mixed", {"comm.mixed_link_layers", "comm.ib_error"}},
      {"multi_nic_underused", {"comm.multi_nic_underused"}},
      {"version_mismatch", {"comm.version_mismatch"}},
      {"nccl_too_old", {"comm.nccl_too_old"}},
      {"nccl_bug", {"comm.nccl_too_old"}},
      {"unsupported_gpu_arch", {"comm.unsupported_gpu"}},
      {"unsupported_platform", {"comm.topology_error"}},
      {"topology_detection_failure", {"comm.topology_error"}},
      {"suboptimal_rings", {"comm.topology_error", "comm.few_channels"}},
      {"duplicate_gpu", {"comm.duplicate_gpu"}},
      {"cuda_visible_devices", {"comm.duplicate_gpu"}},
      {"nvls_unavailable", {"comm.nvls_unavailable"}},
      {"nvls_failure", {"comm.nvls_failure"}},
      {"net_plugin_mismatch", {"comm.net_plugin_mismatch"}},
      {"efa_provider_wrong", {"comm.efa_not_used"}},
      {"remote_rank_failure", {"comm.remote_exited"}},
      {"network_failure", {"comm.remote_exited", "comm.ib_error"}},
      {"env_override", {"comm.env_override"}},
      {"cuda_failure", {"comm.cuda_error"}},
      {"collective_mismatch", {"hang.desync"}},
      {"transfer_size_mismatch", {"hang.desync"}},
  };
  return m;
}

// Symptoms, not causes: nothing to find for them by themselves.
const std::set<std::string> kSymptoms = {"hang", "low_bandwidth"};

// Files whose causes a log analysis cannot see, and why.
const std::map<std::string, std::string>& Unmappable() {
  static const std::map<std::string, std::string> m = {
      {"case15-nccl2.10-pxb-pix-p2p-hang-vtd-topo.log",
       "holds an `nvidia-smi topo -m` matrix and a typed version line, no NCCL log line: "
       "the topo importer's input, not `commdx logs`'"},
      {"case36-nccl-tests-4x200g-ib-96gbps-target-reached.log",
       "an nccl-tests table only, no NCCL log line"},
  };
  return m;
}

struct Label {
  std::string file;
  std::vector<std::string> tags;
};

std::vector<Label> ReadLabels() {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::vector<Label> out;
  if (auto err = parser.load(kDir + "/labels.json").get(doc)) {
    ADD_FAILURE() << "cannot read " << kDir << "/labels.json: " << simdjson::error_message(err);
    return out;
  }
  for (simdjson::dom::element e : doc.get_array()) {
    Label l;
    l.file = std::string(std::string_view(e["file"].get_string()));
    for (simdjson::dom::element t : e["root_cause_tags"].get_array())
      l.tags.emplace_back(std::string_view(t.get_string()));
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<Finding> Analyse(const std::string& file, uint64_t* lines) {
  ingest::LoadOptions o;
  o.only = {InputKind::kNcclLog};
  auto job = ingest::LoadInputs({kDir + "/" + file}, o);
  EXPECT_TRUE(job.has_value()) << file << ": " << (job ? "" : job.error().ToString());
  if (!job) return {};
  *lines = job->nccl.nccl_lines;
  return analysis::RunAnalyzers(*job, {}, {Source::kLogs});
}

// `diagnose` asks every importer, not only the NCCL log's: a log whose tail is an nccl-tests run's
// summary without its table (case18, nccl#1412) was refused whole ("no nccl-tests result table
// found", exit 3) because the nccl-tests importer, asked first, failed. Every fixture with NCCL
// lines is read as an NCCL log by the loader as `diagnose` runs it.
TEST(NcclLogFixtures, EveryLogIsReadWithEveryImporterAsked) {
  size_t read = 0;
  for (const auto& e : std::filesystem::directory_iterator(kDir)) {
    const std::string file = e.path().filename().string();
    if (e.path().extension() != ".log" || Unmappable().count(file)) continue;
    auto job = ingest::LoadInputs({e.path().string()});
    ASSERT_TRUE(job.has_value()) << file << ": " << job.error().ToString();
    ASSERT_EQ(job->inputs.size(), 1u) << file;
    const auto& kinds = job->inputs[0].kinds;
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), InputKind::kNcclLog), kinds.end()) << file;
    EXPECT_GT(job->nccl.nccl_lines, 0u) << file;
    ++read;
  }
  EXPECT_GE(read, 25u);
}

TEST(NcclLogFixtures, EveryLabelledCauseIsFound) {
  auto labels = ReadLabels();
  ASSERT_GE(labels.size(), 21u);
  int checked = 0;
  for (const auto& l : labels) {
    SCOPED_TRACE(l.file);
    uint64_t lines = 0;
    auto findings = Analyse(l.file, &lines);
    std::set<std::string> ids;
    for (const auto& f : findings) ids.insert(f.id);
    if (Unmappable().count(l.file)) {
      EXPECT_EQ(lines, 0u) << "no NCCL line expected in " << l.file;
      continue;
    }
    EXPECT_GT(lines, 0u) << "the sniffer/parser must recognise " << l.file;
    for (const auto& tag : l.tags) {
      if (tag == "healthy" || kSymptoms.count(tag)) continue;
      auto it = TagToIds().find(tag);
      ASSERT_NE(it, TagToIds().end()) << "tag without a mapping: " << tag;
      bool found = false;
      for (const auto& id : it->second) found = found || ids.count(id);
      std::string got;
      for (const auto& id : ids) got += id + " ";
      EXPECT_TRUE(found) << "tag " << tag << " not reported; findings: " << got;
      ++checked;
    }
  }
  EXPECT_GE(checked, 30);
}

TEST(NcclLogFixtures, HealthyLogsRaiseNothingAtErrorLevel) {
  for (const auto& l : ReadLabels()) {
    bool healthy = std::find(l.tags.begin(), l.tags.end(), "healthy") != l.tags.end();
    if (!healthy) continue;
    uint64_t lines = 0;
    for (const auto& f : Analyse(l.file, &lines))
      EXPECT_NE(f.severity, Severity::kError) << l.file << ": " << f.id << " " << f.title;
  }
  // The 2xH200 reference run (NVLink, NCCL 2.28.9).
  ingest::LoadOptions o;
  o.only = {InputKind::kNcclLog};
  auto job = ingest::LoadInputs({kReferenceLog}, o);
  ASSERT_TRUE(job.has_value()) << job.error().ToString();
  EXPECT_GT(job->nccl.nccl_lines, 1000u);
  EXPECT_TRUE(job->quality.empty()) << job->quality.entries().front().id;
  for (const auto& f : analysis::RunAnalyzers(*job, {}, {Source::kLogs}))
    EXPECT_EQ(f.severity, Severity::kInfo) << f.id << " " << f.title;
}

}  // namespace
}  // namespace commdx
