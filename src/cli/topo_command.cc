// `commdx topo`: GPU/NIC/CPU topology with link types, the path NCCL would take per GPU pair and
// the bandwidth to expect; live (NVML + sysfs + /proc) or from nvidia-smi text / a snapshot.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/live_probe.h"
#include "cli/output.h"
#include "pipeline/pipeline.h"
#include "probe/topology_probe.h"

namespace commdx::cli {

namespace {

struct TopoOptions {
  std::vector<std::string> files;
  std::string save_path;
  bool require_gpu = false;
  bool no_processes = false;
  std::string root = "/";  // hidden: fake sysfs/proc trees in tests (NVML is then not opened)
  OutputOptions output;
};

// Live topology; says on stderr when NVML is missing (the report says it too).
Topology ProbeLive(const std::string& root, bool processes, bool quiet) {
  probe::ProbeOptions opt;
  opt.root = root;
  opt.processes = processes;
  Topology t = probe::ProbeLiveTopology(opt);
  if (t.gpu_source != "nvml" && !quiet)
    std::cerr << "commdx: no GPU facts from NVML (" << t.nvml_error
              << "); showing CPU, NUMA, PCI and NIC facts only\n";
  return t;
}

int RunTopo(const TopoOptions& o) {
  pipeline::Request request;
  request.command = "topo";
  request.diagnose = diagnose::DiagnoseOptions::Only({Source::kTopo});
  request.parts = {pipeline::Part::kTopology};
  if (o.files.empty()) {
    Topology topo = ProbeLive(o.root, !o.no_processes, o.output.quiet);
    if (o.require_gpu && topo.gpu_source != "nvml")
      return ReportError(MakeError(
          ErrorCode::kEnvironment,
          "GPU facts were required (--require-gpu) but NVML is not available: " + topo.nvml_error));
    request.not_checked = TopologyProbeGaps(topo);
    request.live = true;
    request.job.emplace().topo = std::move(topo);
  } else {
    request.paths = o.files;
    request.load.only = {InputKind::kSnapshot, InputKind::kSmiTopo, InputKind::kSmiP2P,
                         InputKind::kSmiNvlink};
    request.needs = pipeline::Needs::kTopology;
  }
  return RunSaveAndEmit(std::move(request), o.save_path, o.files, SnapshotEnv::kIfCaptured,
                        o.output);
}

}  // namespace

void AddTopoCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<TopoOptions>();
  auto* cmd = app.add_subcommand(
      "topo",
      "GPU/NIC/CPU topology: link types, P2P status, the path NCCL would take per GPU pair and the "
      "bandwidth to expect; live, or from saved nvidia-smi text / a commdx snapshot");
  cmd->add_option(
      "files", o->files,
      "nvidia-smi topo -m / nvlink -s / topo -p2p text files or a snapshot (none: this machine)");
  cmd->add_option("--from", o->files, "Same as the positional files");
  cmd->add_option("--save", o->save_path, "Write the topology as a JSON snapshot to FILE");
  cmd->add_flag("--require-gpu", o->require_gpu,
                "Exit 4 if NVML (the NVIDIA driver) is not available");
  cmd->add_flag("--no-processes", o->no_processes, "Do not list the processes that use the GPUs");
  cmd->add_option("--root", o->root, "Read sysfs/procfs under this folder (testing)")->group("");
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunTopo(*o); }; });
}

}  // namespace commdx::cli
