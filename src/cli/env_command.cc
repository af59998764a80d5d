// `commdx env`: the environment a distributed job on this node sees (NCCL/PyTorch/CUDA
// variables with verdicts, /dev/shm, memlock, container signs, driver vs CUDA runtime, which
// libnccl.so.2 loads, GPUDirect RDMA prerequisites, IOMMU), with the GPU facts it needs.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/live_probe.h"
#include "cli/output.h"
#include "pipeline/pipeline.h"

namespace commdx::cli {

namespace {

struct EnvOptions {
  std::vector<std::string> files;
  std::string save_path;
  std::string nccl_lib;
  std::string root = "/";  // hidden: fake sysfs/proc trees in tests
  OutputOptions output;
};

int RunEnv(const EnvOptions& o) {
  pipeline::Request request;
  request.command = "env";
  request.diagnose = diagnose::DiagnoseOptions::Only({Source::kEnv});
  request.parts = {pipeline::Part::kEnvironment};
  if (o.files.empty()) {
    Job job = ProbeThisNode({o.root, o.nccl_lib});
    request.not_checked = EnvironmentProbeGaps(job.topo);
    request.live = true;
    request.job = std::move(job);
  } else {
    request.paths = o.files;
    request.load.only = {InputKind::kSnapshot};
    request.needs = pipeline::Needs::kEnvironment;
  }
  std::vector<std::string> named = o.files;
  if (!o.nccl_lib.empty()) named.push_back(o.nccl_lib);
  return RunSaveAndEmit(std::move(request), o.save_path, std::move(named), SnapshotEnv::kAlways,
                        o.output);
}

}  // namespace

void AddEnvCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<EnvOptions>();
  auto* cmd = app.add_subcommand(
      "env",
      "Environment lint: NCCL_/TORCH_NCCL_/CUDA_ variables (harmful, risky, neutral), /dev/shm, "
      "memlock, container, driver vs CUDA runtime, which libnccl.so.2 loads, GPUDirect RDMA, "
      "IOMMU");
  cmd->add_option("--from", o->files,
                  "Read a snapshot (commdx env --save) instead of this machine");
  cmd->add_option("--save", o->save_path,
                  "Write topology and environment as a JSON snapshot to FILE");
  cmd->add_option("--nccl-lib", o->nccl_lib, "Also check this libnccl.so.2 (searched first)");
  cmd->add_option("--root", o->root, "Read sysfs/procfs under this folder (testing)")->group("");
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunEnv(*o); }; });
}

}  // namespace commdx::cli
