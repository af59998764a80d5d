// `commdx doctor`: the live check of this node in one command — environment, topology, link
// health and (with two or more GPUs and NCCL) a quick all_reduce sweep — as ranked findings.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "bench/cases.h"
#include "bench/create_backend.h"
#include "bench/watchdog.h"
#include "cli/commands.h"
#include "cli/live_probe.h"
#include "cli/output.h"

namespace commdx::cli {

namespace {

struct DoctorOptions {
  std::string save_path;
  std::string nccl_lib;
  bool no_bench = false;
  double bench_timeout_s = 60;
  std::string root = "/";  // hidden: fake sysfs/proc trees in tests
  OutputOptions output;
};

// The quick benchmark: all_reduce from 8 B to 256 MiB (×8 steps) with a small time budget per
// size — enough for the latency floor and a bandwidth near the plateau in a few seconds.
Status QuickBench(const DoctorOptions& o, Job& job) {
  bench::BackendOptions bo;
  bo.nccl_lib = o.nccl_lib;
  COMMDX_ASSIGN_OR_RETURN(auto backend, bench::CreateBackend(bo));
  const bench::Case* c = bench::FindCase("all_reduce");
  if (!c) return MakeError(ErrorCode::kInternal, "bench case all_reduce missing");
  bench::RunOptions run;
  run.min_bytes = 8;
  run.max_bytes = 256ull << 20;
  run.max_bytes_explicit = true;
  run.factor = 8;
  run.in_place = false;
  run.budget_ms = 20;
  bench::Watchdog wd(o.bench_timeout_s, backend.get());
  backend->SetWatchdog(&wd);
  wd.Arm("NCCL communicator init (ncclCommInitAll)");
  Status connected = backend->Connect();
  wd.Disarm();
  Result<BenchResult> r =
      connected ? c->run(*backend, &wd, run) : Result<BenchResult>(connected.error());
  backend->SetWatchdog(nullptr);
  if (!r) return std::move(r).error();
  job.bench.push_back(std::move(r).value());
  return Ok{};
}

int RunDoctor(const DoctorOptions& o) {
  Job job = ProbeThisNode({o.root, o.nccl_lib});
  std::vector<diagnose::Gap> gaps;
  if (job.topo.gpus.size() >= 2 && !o.no_bench) {
    if (!o.output.quiet)
      std::fprintf(stderr, "commdx: quick all_reduce sweep on %zu GPUs...\n", job.topo.gpus.size());
    if (Status s = QuickBench(o, job); !s)
      gaps.push_back({"interconnect benchmark", "could not run: " + s.error().message});
  } else if (!o.no_bench) {
    gaps.push_back({"interconnect benchmark", job.topo.gpus.empty()
                                                  ? "no GPU visible (" + job.topo.nvml_error + ")"
                                                  : "needs two or more GPUs on this node"});
  }
  if (!o.save_path.empty()) {
    std::vector<std::string> inputs;  // a live check reads no file the user named but this
    if (!o.nccl_lib.empty()) inputs.push_back(o.nccl_lib);
    if (auto st = SaveSnapshot(o.save_path, &job.topo, &job.env, inputs, o.output); !st)
      return ReportError(st.error());
  }
  pipeline::Request request;
  request.command = "doctor";
  request.job = std::move(job);
  request.live = true;
  request.diagnose = diagnose::DiagnoseOptions::Only({Source::kEnv, Source::kTopo, Source::kBench});
  request.diagnose.name_root_cause = true;  // the node's live sources together
  request.not_checked = std::move(gaps);
  request.not_checked.push_back({"what the training job itself does (overlap, syncs, stragglers)",
                                 "commdx diagnose on its profiler traces and NCCL logs"});
  request.parts = {pipeline::Part::kTopology, pipeline::Part::kEnvironment, pipeline::Part::kBench};
  request.charts = true;
  return RunAndEmit(std::move(request), o.output);
}

}  // namespace

void AddDoctorCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<DoctorOptions>();
  auto* cmd = app.add_subcommand(
      "doctor",
      "Live check of this node: environment, topology, link health and a quick NCCL all_reduce "
      "sweep, as ranked findings");
  cmd->add_option("--save", o->save_path, "Also write topology and environment as a JSON snapshot");
  cmd->add_option("--nccl-lib", o->nccl_lib, "libnccl.so.2 to benchmark (default: search order)");
  cmd->add_flag("--no-bench", o->no_bench, "Skip the quick benchmark");
  cmd->add_option("--timeout", o->bench_timeout_s, "Abort a benchmark step stuck this long (s)")
      ->capture_default_str();
  cmd->add_option("--root", o->root, "Read sysfs/procfs under this folder (testing)")->group("");
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunDoctor(*o); }; });
}

}  // namespace commdx::cli
