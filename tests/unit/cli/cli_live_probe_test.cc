// The live-probe setup `commdx doctor` and `commdx env` share (cli/live_probe), on the fake
// sysfs/procfs trees of tests/data/sysfs (no NVML is opened for a fake root): the facts it fills
// in, and both commands reporting the node the same way.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "cli/live_probe.h"
#include "unit/run_commdx.h"

namespace commdx::cli {
namespace {

std::string Tree(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/sysfs/" + name;
}

TEST(LiveProbe, FillsTopologyAndEnvironmentOfTheTree) {
  Job job = ProbeThisNode({Tree("pcie4"), ""});
  EXPECT_EQ(job.topo.gpus.size(), 4u);  // make_trees.py: four GPUs from sysfs
  EXPECT_EQ(job.env.host, "fakebox");
  EXPECT_EQ(job.env.driver_version, "550.54.15");
  EXPECT_TRUE(job.env.captured);
  Job none = ProbeThisNode({Tree("nogpu"), ""});
  EXPECT_TRUE(none.topo.gpus.empty());
}

TEST(LiveProbe, NvmlDriverVersionWinsOverTheProcReading) {
  Job job;
  job.env.driver_version = "for";  // /proc of the open kernel module, as once misread
  job.topo.driver_version = "580.159.04";
  job.topo.cuda_driver_version = 13000;
  job.topo.host = "vm";
  FillEnvironmentFromTopology(job);
  EXPECT_EQ(job.env.driver_version, "580.159.04");
  EXPECT_EQ(job.env.cuda_driver_version, 13000);
  EXPECT_EQ(job.env.host, "vm");
  Job no_nvml;
  no_nvml.env.driver_version = "550.54.15";
  no_nvml.env.host = "own";
  no_nvml.env.cuda_driver_version = 12040;
  no_nvml.topo.host = "other";
  no_nvml.topo.cuda_driver_version = 13000;
  FillEnvironmentFromTopology(no_nvml);
  EXPECT_EQ(no_nvml.env.driver_version, "550.54.15");
  EXPECT_EQ(no_nvml.env.host, "own");
  EXPECT_EQ(no_nvml.env.cuda_driver_version, 12040);
}

std::string Json(const std::string& args) {
  return test_util::RunCommdx(args + " --format json").out;
}

// One table of a report, as its JSON text.
std::string TableOf(const std::string& json, const char* key) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS) return "unparsable";
  simdjson::dom::element table;
  if (doc["data"][key].get(table) != simdjson::SUCCESS) return "missing";
  return simdjson::minify(table);
}

TEST(LiveProbe, DoctorEnvAndTopoSeeTheSameNode) {
  for (const char* tree : {"pcie4", "nogpu"}) {
    std::string root = " --root " + Tree(tree);
    std::string doctor = Json("doctor --no-bench" + root);
    std::string env = Json("env" + root);
    std::string topo = Json("topo" + root);
    for (const char* key : {"environment", "nccl_libraries", "variables"}) {
      EXPECT_NE(TableOf(env, key), "missing") << tree << " " << key;
      EXPECT_EQ(TableOf(doctor, key), TableOf(env, key)) << tree << " " << key;
    }
    for (const char* key : {"machine", "gpus"})
      EXPECT_EQ(TableOf(doctor, key), TableOf(topo, key)) << tree << " " << key;
  }
}

}  // namespace
}  // namespace commdx::cli
