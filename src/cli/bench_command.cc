// `commdx bench CASE`: NCCL collective, P2P and repro benchmarks (bench/), judged by the
// bench analyzers and shown with nccl-tests' columns; `commdx bench replay INPUT...`: the job's
// own collectives (analysis/replay_plan.h) replayed (bench/replay_runner.h).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "analysis/replay_plan.h"
#include "analysis/replay_settings.h"
#include "base/text.h"
#include "bench/cases.h"
#include "bench/create_backend.h"
#include "bench/replay_runner.h"
#include "bench/watchdog.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "ingest/snapshot/snapshot.h"
#include "pipeline/pipeline.h"

namespace commdx::cli {

namespace {

struct BenchCliOptions {
  std::string case_key;
  bool list = false;
  std::string min_bytes = "8", max_bytes = "8G", step_bytes;
  double factor = 2;
  std::string dtype = "float", op = "sum", place = "both";
  int check = 1;
  double timeout_s = 60;
  int fault_exit_rank = -1;  // test hook: this rank exits right after init, like a crash
  std::string p2p_size = "256M", grad_size = "256M", buckets = "1M,4M,25M,100M";
  std::vector<std::string> inputs;  // replay: the job's files or folders
  double scale = 1;                 // replay: sizes multiplied by this
  std::string save_path;            // replay: snapshot of the result
  bool no_job_settings = false;     // replay: run with this environment's NCCL settings only
  bench::RunOptions run;
  bench::BackendOptions backend;
  OutputOptions output;
};

Status Resolve(BenchCliOptions& o, CLI::App& cmd) {
  auto& r = o.run;
  COMMDX_ASSIGN_OR_RETURN(r.min_bytes, bench::ParseSize(o.min_bytes));
  COMMDX_ASSIGN_OR_RETURN(r.max_bytes, bench::ParseSize(o.max_bytes));
  r.max_bytes_explicit = cmd.count("--maxbytes") > 0;
  if (!o.step_bytes.empty()) {
    COMMDX_ASSIGN_OR_RETURN(r.step_bytes, bench::ParseSize(o.step_bytes));
    if (cmd.count("--stepfactor") == 0) o.factor = 1;
  }
  r.factor = o.factor;
  auto dt = bench::ParseDataType(o.dtype);
  if (!dt) return MakeError(ErrorCode::kUsage, "unknown data type '" + o.dtype + "'");
  r.dtype = *dt;
  auto op = bench::ParseRedOp(o.op);
  if (!op)
    return MakeError(ErrorCode::kUsage, "unknown reduction '" + o.op + "' (sum prod max min avg)");
  r.op = *op;
  r.out_of_place = o.place != "in-place";
  r.in_place = o.place != "out-of-place";
  r.check = o.check != 0;
  COMMDX_ASSIGN_OR_RETURN(r.p2p_bytes, bench::ParseSize(o.p2p_size));
  COMMDX_ASSIGN_OR_RETURN(r.grad_bytes, bench::ParseSize(o.grad_size));
  r.bucket_bytes.clear();
  for (auto b : Split(o.buckets, ',')) {
    COMMDX_ASSIGN_OR_RETURN(uint64_t v, bench::ParseSize(b));
    r.bucket_bytes.push_back(v);
  }
  COMMDX_ASSIGN_OR_RETURN(o.backend.launch,
                          bench::DetectLaunch([](const char* n) { return std::getenv(n); }));
  o.backend.connect_timeout_s = o.timeout_s > 0 ? o.timeout_s : 600;
  return Ok{};
}

constexpr const char* kReplayDescription =
    "the job's own collectives (from its traces, Flight Recorder dumps, NCCL COLL lines or "
    "Inspector JSONL) replayed alone: is it NCCL or the training loop? (bench replay INPUT...)";

int ListCases() {
  for (const auto& c : bench::Cases()) std::printf("%-15s %s\n", c.key, c.description);
  std::printf("%-15s %s\n", "replay", kReplayDescription);
  return 0;
}

// Creates the backend, connects it under the watchdog when `needs_nccl`, and runs `body` on it.
// `reports` tells whether this process prints the report (rank 0 of a multi-process run).
template <class T, class Body>
Result<T> OnBackend(BenchCliOptions& o, bool needs_nccl, bool& reports, Body body) {
  auto backend = bench::CreateBackend(o.backend);
  if (!backend) return backend.error();
  bench::Backend& b = **backend;
  const bench::BackendInfo& info = b.Info();
  reports = info.reports;
  if (reports && !o.output.quiet)
    std::fprintf(stderr, "commdx: NCCL %s from %s\n", info.nccl_version.c_str(),
                 info.nccl_library.c_str());
  if (reports && isatty(STDERR_FILENO))
    o.run.progress = [](const std::string& line) {
      std::fprintf(stderr, "\r\x1b[2K  %s", line.c_str());
      std::fflush(stderr);
    };
  Result<T> result = MakeError(ErrorCode::kInternal, "not run");
  {
    bench::Watchdog wd(o.timeout_s, &b);
    b.SetWatchdog(&wd);
    Status connected = Ok{};
    if (needs_nccl) {
      // One process per GPU: the backend arms the watchdog itself once the NCCL id exchange is
      // done, so a rank that never starts is named by the exchange's own timeout (seen on the
      // GPU machine: a watchdog armed here fired first and blamed ncclCommInitRank).
      if (info.launch == "single_process") wd.Arm("NCCL communicator init (ncclCommInitAll)");
      connected = b.Connect();
      wd.Disarm();
      if (connected && o.fault_exit_rank >= 0 && info.first_local_rank == o.fault_exit_rank &&
          info.launch != "single_process") {
        std::fprintf(stderr, "commdx: rank %d exits now (--fault-exit-rank)\n", o.fault_exit_rank);
        std::_Exit(0);
      }
    }
    result = connected ? body(b, &wd) : Result<T>(connected.error());
    b.SetWatchdog(nullptr);
  }
  if (o.run.progress) std::fprintf(stderr, "\r\x1b[2K");
  return result;
}

// What the job's NCCL settings became in this replay: notes, and the settings run with and left
// out ("NAME=value").
struct AppliedSettings {
  std::vector<std::string> notes;
  std::vector<std::string> applied;
  std::vector<std::string> left_out;
};

// Puts the job's NCCL settings into this process's environment before NCCL is loaded, unless the
// environment already sets them or `leave_out` (--no-job-settings); one note each.
AppliedSettings ApplyJobSettings(const std::vector<ReplaySetting>& settings, bool leave_out) {
  AppliedSettings out;
  for (const ReplaySetting& s : settings) {
    const std::string kv = s.name + "=" + s.value;
    const std::string job = kv + " (" + s.where + ")";
    const char* here = std::getenv(s.name.c_str());
    if (here && s.value == here) {
      out.notes.push_back("replayed with " + job + ", as the job ran");
      out.applied.push_back(kv);
    } else if (here) {
      out.notes.push_back(s.name + " is " + here + " here; the job ran with " + job +
                          ": the replay keeps this environment's value");
      out.left_out.push_back(kv);
    } else if (leave_out) {
      out.notes.push_back("replayed without the job's " + job + " (--no-job-settings)");
      out.left_out.push_back(kv);
    } else {
      setenv(s.name.c_str(), s.value.c_str(), 1);
      out.notes.push_back("replayed with the job's " + job + " (--no-job-settings leaves it out)");
      out.applied.push_back(kv);
    }
  }
  return out;
}

// `bench replay INPUT...`: reads the job's collectives, replays them, reports (and --save).
int RunReplay(BenchCliOptions& o) {
  if (o.inputs.empty())
    return ReportError(MakeError(ErrorCode::kUsage,
                                 "bench replay needs the job's files: traces, Flight Recorder "
                                 "dumps, NCCL logs with COLL lines or Inspector JSONL"));
  pipeline::Request load;
  load.paths = o.inputs;
  load.needs = pipeline::Needs::kCollectives;
  auto job = pipeline::Load(load);
  if (!job) return ReportError(job.error());
  const std::vector<std::string> inputs = ProtectedInputs(job->inputs, job->skipped);
  if (!o.save_path.empty())
    if (Status s = CheckSaveTarget(o.save_path, inputs, o.output); !s)
      return ReportError(s.error());
  const ReplayPlan plan = analysis::BuildReplayPlan(*job);
  AppliedSettings settings = ApplyJobSettings(analysis::JobNcclSettings(*job), o.no_job_settings);
  bench::ReplayOptions ro;
  ro.scale = o.scale;
  bool reports = true;
  auto result =
      OnBackend<ReplayResult>(o, true, reports, [&](bench::Backend& b, bench::Watchdog* wd) {
        ro.run = o.run;
        return bench::RunReplay(b, wd, plan, ro);
      });
  if (!result) return ReportError(result.error());
  if (!reports) return 0;
  result->notes.insert(result->notes.begin(), settings.notes.begin(), settings.notes.end());
  result->settings_applied = std::move(settings.applied);
  result->settings_left_out = std::move(settings.left_out);
  if (!o.save_path.empty())
    if (Status s = ingest::WriteReplaySnapshotFile(o.save_path, *result, {o.output.force}); !s)
      return ReportError(s.error());
  pipeline::Request request;
  request.command = "bench replay";
  Job& shown = request.job.emplace();
  shown.inputs = std::move(job->inputs);
  shown.skipped = std::move(job->skipped);
  shown.replay.push_back(std::move(result).value());
  request.diagnose = diagnose::DiagnoseOptions::Only({Source::kBench});
  request.parts = {pipeline::Part::kInputs, pipeline::Part::kReplay};
  return RunAndEmit(std::move(request), o.output);
}

int RunBench(CLI::App& cmd, BenchCliOptions& o) {
  if (o.list || o.case_key.empty()) return ListCases();
  if (o.case_key == "replay") {
    if (Status s = Resolve(o, cmd); !s) return ReportError(s.error());
    return RunReplay(o);
  }
  const bench::Case* c = bench::FindCase(o.case_key);
  if (!c) {
    std::cerr << "commdx: error: unknown benchmark '" << o.case_key << "'; known:\n";
    ListCases();
    return 2;
  }
  if (!o.inputs.empty())
    return ReportError(MakeError(ErrorCode::kUsage, "bench " + o.case_key +
                                                        " takes no input files (only bench "
                                                        "replay does): " +
                                                        o.inputs.front()));
  if (Status s = Resolve(o, cmd); !s) return ReportError(s.error());
  bool show = true;
  Result<BenchResult> result = OnBackend<BenchResult>(
      o, c->needs_nccl, show,
      [&](bench::Backend& b, bench::Watchdog* wd) { return c->run(b, wd, o.run); });
  if (!result) return ReportError(result.error());
  if (!show) return 0;  // other ranks of a multi-process run: rank 0 reports
  pipeline::Request request;
  request.command = "bench " + o.case_key;
  request.job.emplace().bench.push_back(std::move(result).value());
  request.diagnose = diagnose::DiagnoseOptions::Only({Source::kBench});
  request.parts = {pipeline::Part::kBench};
  request.charts = true;
  return RunAndEmit(std::move(request), o.output);
}

}  // namespace

void AddBenchCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<BenchCliOptions>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Benchmark the interconnect: NCCL collectives over a size sweep (nccl-tests' columns), "
      "P2P copies per GPU pair, and the bucketed all_reduce repro; judged against the link");
  cmd->add_option("case", o->case_key,
                  "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, "
                  "p2p, repro, replay (--list)");
  cmd->add_option("inputs", o->inputs,
                  "replay: the job's traces, Flight Recorder dumps, NCCL logs or Inspector "
                  "JSONL (files or folders)");
  cmd->add_option("--scale", o->scale,
                  "replay: multiply every call's size by this (0 < F <= 1), e.g. to fit fewer "
                  "or smaller GPUs")
      ->capture_default_str();
  cmd->add_flag("--no-job-settings", o->no_job_settings,
                "replay: do not take the job's NCCL settings (NCCL_ALGO, NCCL_PROTO, channels, "
                "buffers, transports turned off) from its logs and environment dumps");
  cmd->add_option("--save", o->save_path,
                  "replay: write the result as a snapshot `commdx diagnose` reads back");
  cmd->add_flag("--list", o->list, "List the benchmark cases");
  cmd->add_option("-b,--minbytes", o->min_bytes, "Smallest size (8, 64K, 8M, 1G)")
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", o->max_bytes,
                  "Largest size (default capped to 40% of GPU memory)")
      ->capture_default_str();
  cmd->add_option("-f,--stepfactor", o->factor, "Multiply the size by this between points")
      ->capture_default_str();
  cmd->add_option("-i,--stepbytes", o->step_bytes, "Add this many bytes between points instead");
  cmd->add_option("-n,--iters", o->run.iters, "Timed iterations per point (0 = adaptive)")
      ->capture_default_str();
  cmd->add_option("-w,--warmup_iters", o->run.warmup, "Warm-up iterations per point")
      ->capture_default_str();
  cmd->add_option("--budget-ms", o->run.budget_ms, "Adaptive: measured time per point")
      ->capture_default_str();
  cmd->add_option("-d,--datatype", o->dtype,
                  "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2")
      ->capture_default_str();
  cmd->add_option("--op", o->op, "Reduction: sum prod max min avg")->capture_default_str();
  cmd->add_option("-r,--root", o->run.root, "Root rank of broadcast/reduce")->capture_default_str();
  cmd->add_option("--place", o->place, "Buffers: both, out-of-place, in-place")
      ->check(CLI::IsMember({"both", "out-of-place", "in-place"}))
      ->capture_default_str();
  cmd->add_option("-c,--check", o->check, "Check results after timing (1/0)")
      ->capture_default_str();
  cmd->add_option("-G,--cuda-graph", o->run.graph_iters,
                  "Launch N operations per CUDA graph (0 = plain launches)")
      ->capture_default_str();
  cmd->add_option("-g,--ngpus", o->backend.ngpus, "GPUs for one process (0 = all visible)")
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_s,
                  "Abort an operation that makes no progress for this many seconds (0 = never)")
      ->capture_default_str();
  cmd->add_option("--nccl-lib", o->backend.nccl_lib, "libnccl.so.2 to load (file or folder)");
  cmd->add_option("--events-every", o->backend.event_stride,
                  "Plain launches: one timing event per K iterations (each iteration reported as "
                  "its group's mean); fewer events cost less CPU between latency-bound launches")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--gate", o->backend.gate,
                "Experimental: queue each timed batch behind a gate kernel before releasing it, "
                "so times exclude CPU launch gaps");
  cmd->add_option("--p2p-size", o->p2p_size, "p2p: bytes per copy")->capture_default_str();
  cmd->add_option("--grad-size", o->grad_size, "repro: gradient bytes per rank")
      ->capture_default_str();
  cmd->add_option("--compute-ms", o->run.compute_ms, "repro: backward compute per step")
      ->capture_default_str();
  cmd->add_option("--buckets", o->buckets, "repro: bucket sizes to sweep")->capture_default_str();
  // For tests and demos without a GPU (not shown in --help).
  cmd->add_option("--backend", o->backend.kind, "")
      ->group("")
      ->check(CLI::IsMember({"cuda", "fake"}));
  cmd->add_option("--fake-ranks", o->backend.fake.ranks, "")->group("");
  cmd->add_option("--fake-busbw", o->backend.fake.busbw_gbps, "")->group("");
  cmd->add_option("--fake-latency-us", o->backend.fake.latency_us, "")->group("");
  cmd->add_option("--fake-wrong", o->backend.fake.wrong_elements, "")->group("");
  cmd->add_option("--fake-hang-bytes", o->backend.fake.hang_at_bytes, "")->group("");
  cmd->add_option("--fake-asym-factor", o->backend.fake.asym_factor, "")->group("");
  cmd->add_option("--fake-asym-pair", o->backend.fake.asym_src, "")->group("");
  cmd->add_option("--fake-shared-gpu", o->backend.fake.shared_gpu_ranks, "")->group("");
  cmd->add_option("--fault-skip-rank", o->backend.fault_skip_rank, "")->group("");
  cmd->add_option("--fault-exit-rank", o->fault_exit_rank, "")->group("");
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o, cmd] {
    if (o->backend.fake.asym_src >= 0)
      o->backend.fake.asym_dst = (o->backend.fake.asym_src + 1) % 2;
    run = [o, cmd] { return RunBench(*cmd, *o); };
  });
}

}  // namespace commdx::cli
