// The machine snapshot: what `commdx topo/env --save` writes reads back to the same facts, and
// the commands themselves on fake trees (through the real binary).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "analysis/registry.h"
#include "ingest/load_inputs.h"
#include "ingest/registry.h"
#include "ingest/snapshot/snapshot.h"
#include "probe/env_probe.h"
#include "probe/gpu_source.h"
#include "probe/topology_probe.h"
#include "unit/run_commdx.h"

namespace commdx {
namespace {

std::string Tree(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/sysfs/" + name;
}

Job Probed() {
  probe::FakeGpuSource f;
  for (int i = 0; i < 2; ++i) {
    probe::RawDevice d;
    d.name = "NVIDIA L40S";
    d.bus_id = i ? "0000:04:00.0" : "0000:03:00.0";
    d.mig_current = 0;
    d.clock_event_reasons = 0x1;
    probe::RawNvLink l;
    l.link = 0;
    l.active = i == 0;
    l.replay = 7;
    d.nvlinks.push_back(l);
    f.devices.push_back(d);
  }
  f.processes = {{{1001, 123}}, {}};
  probe::ProbeOptions opt;
  opt.root = Tree("pcie4");
  Job job;
  job.topo = probe::ProbeTopology(opt, &f, "");
  probe::EnvProbeOptions eo;
  eo.root = Tree("nogpu");
  eo.environ = {"NCCL_DEBUG=WARN"};
  job.env = probe::ProbeEnvironment(eo);
  return job;
}

TEST(Snapshot, RoundTripKeepsTheFacts) {
  Job in = Probed();
  std::string text = ingest::WriteSnapshot({"0.1.0", "fakebox", 1764480000}, &in.topo, &in.env);
  ASSERT_TRUE(ingest::SniffSnapshot(text));
  EXPECT_EQ(std::string(ingest::SniffImporter(text)->name()), "snapshot");
  Job out;
  ASSERT_TRUE(ingest::ParseSnapshot({"snap.json", text}, out));
  EXPECT_TRUE(out.quality.empty());
  const Topology& a = in.topo;
  const Topology& b = out.topo;
  EXPECT_EQ(b.source, TopoSource::kSnapshot);
  EXPECT_EQ(b.host, "fakebox");
  ASSERT_EQ(b.gpus.size(), 2u);
  EXPECT_EQ(b.gpus[1].bus_id, a.gpus[1].bus_id);
  EXPECT_EQ(b.gpus[1].numa_node, a.gpus[1].numa_node);
  EXPECT_EQ(b.gpus[1].pcie.cur_width, 8);
  EXPECT_EQ(b.gpus[0].mig_enabled, false);
  EXPECT_EQ(b.gpus[1].nvlinks[0].active, false);
  EXPECT_EQ(b.gpus[0].nvlinks[0].replay_errors, 7u);
  EXPECT_FALSE(b.gpus[0].nvlinks[0].recovery_errors.has_value());
  EXPECT_EQ(b.gpus[0].clock_event_reasons, 1u);
  ASSERT_EQ(b.pairs.size(), 1u);
  EXPECT_EQ(b.pairs[0].path, PathType::kPix);
  EXPECT_EQ(b.pairs[0].bridges, a.pairs[0].bridges);
  ASSERT_EQ(b.nics.size(), a.nics.size());
  EXPECT_EQ(b.nics[0].kind, NicKind::kInfiniband);
  EXPECT_EQ(b.nics[0].gpu_paths, a.nics[0].gpu_paths);
  ASSERT_EQ(b.bridges.size(), a.bridges.size());
  EXPECT_EQ(b.FindBridge("0000:02:00.0")->acs_ctrl, a.FindBridge("0000:02:00.0")->acs_ctrl);
  ASSERT_EQ(b.processes.size(), 1u);
  EXPECT_EQ(b.processes[0].cpus_allowed, "16-31");
  EXPECT_EQ(b.processes[0].rank, 0);
  EXPECT_EQ(b.numa.size(), 2u);
  EXPECT_TRUE(out.env.captured);
  EXPECT_EQ(out.env.memlock_soft_bytes, kUnlimited);
  EXPECT_EQ(out.env.shm_total_bytes, in.env.shm_total_bytes);
  ASSERT_EQ(out.env.vars.size(), 1u);
  EXPECT_EQ(out.env.vars[0].value, "WARN");
  // Writing what was read gives the same text (apart from the source).
  Topology again = b;
  again.source = a.source;
  again.files.clear();
  EXPECT_EQ(ingest::WriteSnapshot({"0.1.0", "fakebox", 1764480000}, &again, &out.env), text);
}

TEST(Snapshot, BadInput) {
  Job job;
  auto st = ingest::ParseSnapshot({"s.json", "{\"commdx_snapshot\": 1, \"topology\": "}, job);
  ASSERT_FALSE(st);
  EXPECT_EQ(ExitCodeFor(st.error().code), 3);
  EXPECT_FALSE(ingest::ParseSnapshot({"s.json", "{\"other\": 1}"}, job));
  Job typed;
  ASSERT_TRUE(ingest::ParseSnapshot(
      {"s.json",
       R"({"commdx_snapshot": 1, "topology": {"online_cpus": "many", "gpus": [{"index": 0, "name": 5}]}})"},
      typed));
  EXPECT_EQ(typed.quality.Count("snapshot.bad_field"), 2u);
  EXPECT_EQ(typed.topo.gpus.size(), 1u);
}

// Saved by `commdx topo --save` / `commdx env --save` on the 2xH200 machine (2026-11-30).
TEST(Snapshot, RealSingleH200Capture) {
  // The 1-GPU machine (2026-12-01): no NVLink up, no pairs, a docker container; nothing found.
  std::string dir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/snapshot/";
  auto job = ingest::LoadInputs({dir + "h200x1-topo.json", dir + "h200x1-env.json"}, {});
  ASSERT_TRUE(job) << job.error().ToString();
  EXPECT_TRUE(job->quality.empty());
  ASSERT_EQ(job->topo.gpus.size(), 1u);
  EXPECT_EQ(job->topo.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(job->topo.gpus[0].ActiveNvLinks(), 0);
  EXPECT_TRUE(job->topo.pairs.empty());
  EXPECT_EQ(job->env.nccl_libs.size(), 2u);
  for (const auto& f : analysis::RunAnalyzers(*job, {}, {Source::kTopo}))
    ADD_FAILURE() << f.id << ": " << f.title;
}

TEST(Snapshot, AnotherMachinesTopologyReplacingTheFirstIsAWarning) {
  std::string dir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/snapshot/";
  auto job = ingest::LoadInputs({dir + "h200x2-topo.json", dir + "h200x1-topo.json"}, {});
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_EQ(job->quality.entries().size(), 1u);
  EXPECT_EQ(job->quality.entries()[0].id, "snapshot.topology_replaced");
  EXPECT_NE(job->quality.entries()[0].message.find("(host 'vm', 1 GPUs) replaces"),
            std::string::npos)
      << job->quality.entries()[0].message;
  EXPECT_EQ(job->topo.gpus.size(), 1u);
  EXPECT_EQ(job->topo.files.size(), 2u);
}

TEST(Snapshot, RealH200Capture) {
  std::string dir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/snapshot/";
  auto job = ingest::LoadInputs({dir + "h200x2-topo.json"}, {});
  ASSERT_TRUE(job) << job.error().ToString();
  EXPECT_EQ(InputKindsName(job->inputs[0].kinds), "snapshot");
  EXPECT_TRUE(job->quality.empty());
  const Topology& t = job->topo;
  EXPECT_EQ(t.gpu_source, "nvml");
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(t.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(t.gpus[1].ActiveNvLinks(), 18);
  EXPECT_TRUE(t.gpus[0].nvlinks[0].remote_is_switch);  // 2 GPUs of an NVSwitch board in a VM
  EXPECT_EQ(t.FindPair(0, 1)->nvlinks, 18);
  EXPECT_EQ(t.FindPair(0, 1)->p2p_read, P2PStatus::kOk);
  EXPECT_EQ(t.FindPair(0, 1)->p2p_pci, P2PStatus::kNotSupported);
  EXPECT_EQ(t.cuda_driver_version, 13000);
  // Data-CRC counters are non-zero there while replay/recovery/flit CRC are 0: no health finding.
  EXPECT_GT(t.gpus[0].nvlinks[2].crc_data_errors.value_or(0), 0u);
  for (const auto& f : analysis::RunAnalyzers(*job, {}, {Source::kTopo}))
    ADD_FAILURE() << f.id << ": " << f.title;
  auto env = ingest::LoadInputs({dir + "h200x2-env.json"}, {});
  ASSERT_TRUE(env);
  EXPECT_TRUE(env->env.captured);
  EXPECT_EQ(env->env.torch_version, "2.11.0+cu130");
  ASSERT_EQ(env->env.nccl_libs.size(), 2u);
  EXPECT_EQ(env->env.nccl_libs[0].version, "2.28.3");
  EXPECT_EQ(env->env.nccl_libs[1].version, "2.28.9");
  EXPECT_EQ(env->env.memlock_soft_bytes, kUnlimited);
}

// The binary on the fake trees: no NVML is opened for a fake root.
using CmdResult = test_util::RunResult;

CmdResult Commdx(const std::string& args) { return test_util::RunCommdx(args); }

TEST(TopoCli, FakeMachineSaveAndReadBack) {
  std::string snap =
      (std::filesystem::temp_directory_path() / "commdx_topo_cli_test.json").string();
  CmdResult live = Commdx("topo --root " + Tree("pcie4") + " --save " + snap);
  EXPECT_EQ(live.code, 0) << live.out;
  EXPECT_NE(live.out.find("GPU0-GPU1"), std::string::npos) << live.out;
  EXPECT_NE(live.out.find("topo.pcie_downtrained"), std::string::npos);
  EXPECT_NE(live.out.find("Not checked"), std::string::npos);  // NVML facts
  CmdResult back = Commdx("topo --format json " + snap);
  EXPECT_EQ(back.code, 0);
  EXPECT_NE(back.out.find("\"pairs\""), std::string::npos);
  std::filesystem::remove(snap);
  CmdResult need = Commdx("topo --require-gpu --root " + Tree("nogpu"));
  EXPECT_EQ(need.code, 4);
}

TEST(TopoCli, OfflineTextAndErrors) {
  std::string smi = std::string(COMMDX_SOURCE_DIR) + "/tests/data/smi/";
  CmdResult degraded =
      Commdx("topo " + smi + "h100x8-nv16-topo-m.txt " + smi + "h100x8-nvlink-s.txt");
  EXPECT_EQ(degraded.code, 1);  // an error-level finding
  EXPECT_NE(degraded.out.find("topo.nvlink_degraded"), std::string::npos);
  EXPECT_NE(degraded.out.find("NV16"), std::string::npos);
  CmdResult bad = Commdx("topo " + smi + "bad-legend-only.txt");
  EXPECT_EQ(bad.code, 3);
  CmdResult env = Commdx("env --root " + Tree("nogpu") + " --format json");
  EXPECT_EQ(env.code, 0);
  EXPECT_NE(env.out.find("\"environment\""), std::string::npos);
}

}  // namespace
}  // namespace commdx

namespace commdx {
namespace {

using test_util::RunCommdx;

// `compare` takes `--save` snapshots as its help says: two nodes' snapshots (the 1xH200 and
// 2xH200 machines') are diagnosed alike and diffed, not refused as "not a result".
TEST(SnapshotCompare, TwoNodesSnapshotsAreDiffed) {
  const std::string dir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/snapshot/";
  auto r = RunCommdx("compare " + dir + "h200x1-topo.json " + dir + "h200x2-topo.json", true);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("not a commdx JSON result"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 x NVIDIA H200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 x NVIDIA H200"), std::string::npos) << r.out;
  // A snapshot against the result `diagnose --format json` writes of the other: one command.
  const std::string saved = ::testing::TempDir() + "/h200x2-topo.result.json";
  auto d = RunCommdx("diagnose " + dir + "h200x2-topo.json --format json -o " + saved);
  ASSERT_EQ(d.code, 0) << d.out;
  auto mixed = RunCommdx("compare " + dir + "h200x1-topo.json " + saved, true);
  EXPECT_EQ(mixed.code, 0) << mixed.out;
  EXPECT_NE(mixed.out.find("2 x NVIDIA H200"), std::string::npos) << mixed.out;
  std::remove(saved.c_str());
}

}  // namespace
}  // namespace commdx
