// `commdx env`: the environment a distributed job on this node sees (NCCL/PyTorch/CUDA
// variables with verdicts, /dev/shm, memlock, container signs, driver vs CUDA runtime, which
// libnccl.so.2 loads, GPUDirect RDMA prerequisites, IOMMU), with the GPU facts it needs.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/live_probe.h"
#include "cli/output.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"
#include "ingest/snapshot/snapshot.h"
#include "report/topo_tables.h"

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
  Job job;
  if (o.files.empty()) {
    job = ProbeThisNode({o.root, o.nccl_lib});
  } else {
    ingest::LoadOptions load;
    load.only = {InputKind::kSnapshot};
    auto loaded = ingest::LoadInputs(o.files, load);
    if (!loaded) return ReportError(loaded.error());
    job = std::move(*loaded);
    if (!job.env.captured)
      return ReportError(
          MakeError(ErrorCode::kBadInput,
                    "no environment section found (expected a snapshot from `commdx env --save`)",
                    {o.files.size() == 1 ? o.files[0] : std::string()}));
  }
  if (!o.save_path.empty()) {
    auto inputs = ProtectedInputs(job.inputs, job.skipped);
    inputs.insert(inputs.end(), o.files.begin(), o.files.end());
    if (!o.nccl_lib.empty()) inputs.push_back(o.nccl_lib);
    if (auto st = SaveSnapshot(o.save_path, &job.topo, &job.env, inputs, o.output); !st)
      return ReportError(st.error());
  }
  analysis::AnalysisInput input(job);
  auto diag = diagnose::Diagnose(input, diagnose::DiagnoseOptions::Only({Source::kEnv}));
  if (o.files.empty() && job.topo.gpu_source != "nvml")
    diag.not_checked.push_back(
        {"GPU-dependent checks (MIG, CUDA_VISIBLE_DEVICES against GPUs, driver's CUDA version)",
         "NVML: " + job.topo.nvml_error});
  auto rep = report::MakeReport("env", job, std::move(diag));
  report::AddEnvironmentTables(job, rep);
  return EmitReport(rep, o.output);
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
