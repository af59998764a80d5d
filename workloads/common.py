"""Shared harness for the commdx workloads (ddp.py, fsdp.py, pipeline.py, alltoall.py).

Each workload is a small training loop run under `torchrun --nproc_per_node=N`. This module owns
what they have in common:

* the mandatory environment (NVLink multicast off) and the NCCL debug log settings, applied before
  torch is imported so that every process and every NCCL communicator sees them;
* the catalogue of injectable causes (`CAUSES`, in causes.py): one cause per run, each with the
  commdx finding it should produce;
* the model (model.py: a small decoder-only transformer, ~92M parameters at the default size);
* the run loop: warm-up steps, timed steps (CUDA-synchronised at every step boundary, not
  profiled), then profiled steps (no extra synchronisation) exported as one Kineto trace per rank;
* the output files, per run folder: trace_rank{r}.json.gz, nccl.<host>.<pid>.log (written by NCCL),
  env_rank{r}.json, steps_rank{r}.json, meta.json.
"""

import argparse
import gzip
import json
import math
import os
import shutil
import socket
import statistics
import sys
import time

from causes import CAUSES  # torch-free: read before torch is imported

# --- environment that must be in place before torch (and so NCCL / CUDA) is loaded -------------

# NVLink multicast must stay off on the shared device machines: a program that uses it can take
# the host's GPUs out of service. These are forced, whatever the caller set.
MANDATORY_ENV = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}

NCCL_DEBUG_DEFAULTS = {
    "NCCL_DEBUG": "INFO",
    "NCCL_DEBUG_SUBSYS": "INIT,GRAPH,ENV,NET,TUNING",
}

def build_parser(workload):
    p = argparse.ArgumentParser(description=f"commdx workload: {workload}")
    p.add_argument("--cause", default="none", choices=sorted(CAUSES),
                   help="the one cause to inject (default: none = healthy)")
    p.add_argument("--scenario", default=None, help="scenario name (default WORKLOAD_CAUSE)")
    p.add_argument("--out", default=None, help="output folder (default runs/SCENARIO)")
    p.add_argument("--warmup-steps", type=int, default=3)
    p.add_argument("--timed-steps", type=int, default=20)
    p.add_argument("--prof-wait", type=int, default=1)
    p.add_argument("--prof-warmup", type=int, default=2)
    p.add_argument("--prof-active", type=int, default=3)
    p.add_argument("--accum", type=int, default=1, help="gradient-accumulation micro-batches")
    p.add_argument("--batch", type=int, default=8, help="sequences per rank per step")
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--dim", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--vocab", type=int, default=8192)
    p.add_argument("--bucket-mb", type=float, default=None,
                   help="DDP bucket_cap_mb (default 25, or 0.5 with --cause small_buckets)")
    p.add_argument("--straggler-ms", type=float, default=20.0)
    p.add_argument("--stall-ms", type=float, default=60.0)
    p.add_argument("--nsys", action="store_true",
                   help="record the profiled steps for Nsight Systems instead of the PyTorch "
                        "profiler: cudaProfilerStart/Stop around them (for `nsys profile "
                        "--capture-range=cudaProfilerApi`), emit_nvtx, and each step in a plain "
                        "NVTX range 'train_step'")
    p.add_argument("--profile-style", choices=("sched", "plain"), default="sched",
                   help="sched: a profiler schedule and prof.step() (ProfilerStep#N marks); "
                        "plain: `with profile():` around prof-warmup + prof-active steps, each "
                        "in the user's own record_function('iteration_N')")
    p.add_argument("--tiny", action="store_true",
                   help="tiny model for a CPU/gloo smoke test")
    return p


def _pre_torch_setup():
    """Parse the command line and fix the environment before torch is imported."""
    workload = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    args = build_parser(workload).parse_args()
    args.workload = workload
    if args.scenario is None:
        args.scenario = f"{workload}_{args.cause}" if args.cause != "none" else f"{workload}_healthy"
    if args.out is None:
        args.out = os.path.join("runs", args.scenario)
    if args.tiny:
        args.batch, args.seq, args.dim, args.heads, args.layers, args.vocab = 4, 32, 64, 4, 2, 256
    os.makedirs(args.out, exist_ok=True)

    for k, v in MANDATORY_ENV.items():
        os.environ[k] = v
    for k, v in NCCL_DEBUG_DEFAULTS.items():
        os.environ.setdefault(k, v)
    os.environ.setdefault("NCCL_DEBUG_FILE", os.path.join(args.out, "nccl.%h.%p.log"))

    args.env_set_by = {}
    for k, v in CAUSES[args.cause]["env"].items():
        if os.environ.get(k) == v:
            args.env_set_by[k] = "caller"
        else:
            args.env_set_by[k] = "workload (was %r)" % os.environ.get(k)
            os.environ[k] = v
    return args


ARGS = _pre_torch_setup()

import torch  # noqa: E402  (must come after the environment above)
import torch.distributed as dist  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402


from model import Block, TinyLM, lm_loss  # noqa: E402,F401  (the workloads import them from here)


# --- the harness ---------------------------------------------------------------------------------

class Run:
    """One rank's side of a workload run: process group, device, causes, outputs."""

    def __init__(self, args):
        self.args = args
        self.cause = args.cause
        self.spec = CAUSES[args.cause]
        self.t_start = time.time()
        self.cuda = torch.cuda.is_available()
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        if self.cuda:
            torch.cuda.set_device(self.local_rank)
            self.device = torch.device("cuda", self.local_rank)
            dist.init_process_group("nccl", device_id=self.device)
        else:
            self.device = torch.device("cpu")
            dist.init_process_group("gloo")
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()
        self.out = args.out
        self.culprit = self.spec["rank"] if self.spec["rank"] is not None else None
        if self.culprit is not None and self.culprit >= self.world:
            self.culprit = self.world - 1
        self.is_culprit = self.rank == self.culprit
        self.autocast_dtype = torch.bfloat16
        # CPU-side "preprocessing" weight (makes OMP_NUM_THREADS matter, like a real loader does)
        g = torch.Generator().manual_seed(1234)
        self._cpu_w = torch.randn(256, 256, generator=g)
        self._data_gen = torch.Generator().manual_seed(1000 + self.rank)
        self._extra_a = None
        self._extra_iters = 0
        self.steps_info = {}
        self.model_info = {}
        self.write_env()
        if self.cause == "straggler" and self.is_culprit:
            self._calibrate_extra_compute(args.straggler_ms)

    # ---- helpers
    def log(self, msg):
        print(f"[{self.args.scenario} rank{self.rank}] {msg}", flush=True)

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def autocast(self):
        return torch.autocast(device_type=self.device.type, dtype=self.autocast_dtype)

    def seed_model(self):
        torch.manual_seed(0)

    def count_params(self, model):
        n = sum(p.numel() for p in model.parameters())
        self.model_info["params_local"] = n
        return n

    # ---- injected causes that live in the step
    def load_batch(self, batch, seq, vocab, shared_seed=None):
        """Make one batch of token ids the way a loader would: on the CPU, a little CPU
        preprocessing, then an async copy into the GPU. Annotated as 'dataloader'."""
        with record_function("dataloader"):
            if self.cause == "data_stall" and self.is_culprit:
                time.sleep(self.args.stall_ms / 1000.0)
            gen = self._data_gen
            if shared_seed is not None:
                gen = torch.Generator().manual_seed(shared_seed)
            tokens = torch.randint(0, vocab, (batch, seq + 1), generator=gen)
            # CPU-side feature step (intra-op parallel: OMP_NUM_THREADS applies)
            feats = torch.randn(512, 256, generator=gen) @ self._cpu_w
            shift = (feats[0, 0].abs() * 7).long()  # stays a CPU tensor: no .item()
            tokens = (tokens + shift) % vocab
            if self.cuda:
                # what DataLoader(pin_memory=True) + .to(non_blocking=True) does
                tokens = tokens.pin_memory().to(self.device, non_blocking=True)
        x, y = tokens[:, :-1], tokens[:, 1:]
        if self.cause == "straggler" and self.is_culprit:
            self._extra_compute()
        return x, y

    def layer_hook(self):
        """Per-block hook for the accidental-synchronisation causes, else None."""
        if self.cause == "item_sync":
            def hook(i, x):
                # e.g. logging an activation statistic
                self._last_stat = x.detach().float().abs().mean().item()
            return hook
        if self.cause == "cuda_sync":
            def hook(i, x):
                self.sync()
            return hook
        return None

    def _calibrate_extra_compute(self, target_ms):
        n = 8192 if self.cuda else 128
        dt = torch.bfloat16 if self.cuda else torch.float32
        self._extra_a = torch.randn(n, n, device=self.device, dtype=dt)
        for _ in range(3):
            self._extra_a @ self._extra_a
        self.sync()
        reps = 20
        t0 = time.perf_counter()
        for _ in range(reps):
            self._extra_a @ self._extra_a
        self.sync()
        per = (time.perf_counter() - t0) / reps * 1000.0
        self._extra_iters = max(1, int(math.ceil(target_ms / max(per, 1e-3))))
        self.model_info["straggler_matmul_ms_each"] = per
        self.model_info["straggler_matmul_iters"] = self._extra_iters
        self.log(f"straggler: {self._extra_iters} x {n}x{n} matmul, {per:.3f} ms each")

    def _extra_compute(self):
        a = self._extra_a
        for _ in range(self._extra_iters):
            a = torch.mm(a, self._extra_a)
            a = a * 0.01
        return a

    # ---- outputs
    def _nccl_lib_loaded(self):
        try:
            with open("/proc/self/maps") as f:
                libs = sorted({ln.split()[-1] for ln in f if "libnccl" in ln and "/" in ln})
            return libs
        except OSError:
            return []

    def write_env(self):
        prefixes = ("NCCL_", "TORCH_", "CUDA_", "OMP_", "NVSHMEM_", "PYTORCH_", "MKL_")
        names = ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                 "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK", "TORCHELASTIC_RUN_ID",
                 "LD_LIBRARY_PATH")
        env = {k: v for k, v in sorted(os.environ.items())
               if k.startswith(prefixes) or k in names}
        snap = {
            "hostname": socket.gethostname(),
            "pid": os.getpid(),
            "rank": self.rank,
            "local_rank": self.local_rank,
            "world_size": self.world,
            "backend": dist.get_backend(),
            "python": sys.version.split()[0],
            "torch_version": torch.__version__,
            "torch_cuda_version": torch.version.cuda,
            "nccl_version": None,
            "nccl_lib_loaded": None,
            "cpu_count": os.cpu_count(),
            "cpu_affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
            "torch_num_threads": torch.get_num_threads(),
            "environ": env,
            "env_set_by": self.args.env_set_by,
        }
        if self.cuda:
            try:
                snap["nccl_version"] = ".".join(str(v) for v in torch.cuda.nccl.version())
            except Exception as e:  # noqa: BLE001
                snap["nccl_version"] = f"error: {e}"
            p = torch.cuda.get_device_properties(self.device)
            snap["device"] = {
                "index": self.local_rank,
                "name": p.name,
                "total_memory": p.total_memory,
                "multi_processor_count": p.multi_processor_count,
                "capability": f"{p.major}.{p.minor}",
                "uuid": str(getattr(p, "uuid", "")),
                "pci_bus_id": "%04x:%02x:%02x.0" % (getattr(p, "pci_domain_id", 0),
                                                    getattr(p, "pci_bus_id", 0),
                                                    getattr(p, "pci_device_id", 0)),
            }
        self._env_snapshot = snap
        self._dump(f"env_rank{self.rank}.json", snap)

    def _dump(self, name, obj):
        with open(os.path.join(self.out, name), "w") as f:
            json.dump(obj, f, indent=1, sort_keys=False)
            f.write("\n")

    # ---- the loop
    def train(self, step_fn, workload_info=None):
        """warm-up steps, timed steps (synchronised per step), then profiled steps."""
        a = self.args
        info = {"warmup_ms": [], "timed_ms": [], "profiled_total_ms": None}

        for i in range(a.warmup_steps):
            self.sync()
            t0 = time.perf_counter()
            step_fn(i)
            self.sync()
            info["warmup_ms"].append((time.perf_counter() - t0) * 1000.0)
        # the NCCL log gets the env/tuning lines of the lazily created send/recv comms by now
        if self.cuda and self._env_snapshot.get("nccl_lib_loaded") is None:
            self._env_snapshot["nccl_lib_loaded"] = self._nccl_lib_loaded()
            self._dump(f"env_rank{self.rank}.json", self._env_snapshot)

        dist.barrier()
        for i in range(a.timed_steps):
            self.sync()
            t0 = time.perf_counter()
            step_fn(a.warmup_steps + i)
            self.sync()
            info["timed_ms"].append((time.perf_counter() - t0) * 1000.0)
        dist.barrier()
        self.sync()

        trace_json = os.path.join(self.out, f"trace_rank{self.rank}.json")
        activities = [ProfilerActivity.CPU]
        if self.cuda:
            activities.append(ProfilerActivity.CUDA)
        n_prof = a.prof_wait + a.prof_warmup + a.prof_active
        exported = []

        def on_ready(prof):
            prof.export_chrome_trace(trace_json)
            exported.append(trace_json)

        base = a.warmup_steps + a.timed_steps
        t0 = time.perf_counter()
        if a.nsys:
            self._record_for_nsys(step_fn, base, a.prof_active)
        elif a.profile_style == "plain":
            self._record_plain(step_fn, base, a.prof_warmup + a.prof_active, activities,
                               on_ready)
        else:
            self._record_with_profiler(step_fn, base, n_prof, activities, on_ready)
        self.sync()
        info["profiled_total_ms"] = (time.perf_counter() - t0) * 1000.0  # includes export
        if exported:
            with open(trace_json, "rb") as src, gzip.open(trace_json + ".gz", "wb", 6) as dst:
                shutil.copyfileobj(src, dst)
            os.remove(trace_json)

        t = info["timed_ms"]
        steps = {
            "rank": self.rank,
            "unit": "ms",
            "method": "wall time per training step; torch.cuda.synchronize() before and after "
                      "each step; these steps were NOT profiled",
            "step_ms": t,
            "median_ms": statistics.median(t) if t else None,
            "min_ms": min(t) if t else None,
            "max_ms": max(t) if t else None,
            "warmup_step_ms": info["warmup_ms"],
            "profiled_phase": {
                "steps": (a.prof_warmup + a.prof_active if a.profile_style == "plain"
                          and not a.nsys else n_prof),
                "schedule": {"wait": a.prof_wait, "warmup": a.prof_warmup,
                             "active": a.prof_active},
                "total_ms_including_export": info["profiled_total_ms"],
                "style": "nsys" if a.nsys else a.profile_style,
                "note": "no synchronisation at step boundaries while profiling",
            },
        }
        self._dump(f"steps_rank{self.rank}.json", steps)

        medians = [None] * self.world
        dist.all_gather_object(medians, steps["median_ms"])
        if self.rank == 0:
            self.write_meta(medians, workload_info or {}, bool(exported))
            self.log("median step ms per rank: " + ", ".join(
                f"r{r}={m:.2f}" for r, m in enumerate(medians) if m is not None))
        dist.barrier()

    def _record_with_profiler(self, step_fn, base, n_prof, activities, on_ready):
        a = self.args
        with profile(activities=activities,
                     schedule=schedule(wait=a.prof_wait, warmup=a.prof_warmup,
                                       active=a.prof_active, repeat=1),
                     on_trace_ready=on_ready, record_shapes=False, with_stack=False,
                     profile_memory=False) as prof:
            for i in range(n_prof):
                step_fn(base + i)
                prof.step()

    def _record_plain(self, step_fn, base, n_steps, activities, on_ready):
        """A plain `with profile():` around the loop, marked the way users mark theirs."""
        with profile(activities=activities, record_shapes=False, with_stack=False,
                     profile_memory=False) as prof:
            for i in range(n_steps):
                with record_function(f"iteration_{i}"):
                    step_fn(base + i)
        on_ready(prof)

    def _record_for_nsys(self, step_fn, base, n_steps):
        """The steps an Nsight Systems capture range holds, marked as NVIDIA's guides do."""
        torch.cuda.profiler.start()
        with torch.autograd.profiler.emit_nvtx():
            for i in range(n_steps):
                torch.cuda.nvtx.range_push("train_step")
                step_fn(base + i)
                torch.cuda.nvtx.range_pop()
        self.sync()
        torch.cuda.profiler.stop()

    def write_meta(self, medians, workload_info, traced):
        a = self.args
        meta = {
            "scenario": a.scenario,
            "workload": a.workload,
            "cause": a.cause,
            "cause_kind": self.spec["kind"],
            "injected": self.spec["note"],
            "injected_env": self.spec["env"],
            "env_set_by": a.env_set_by,
            "expected_finding": self.spec["finding"],
            "expected_rank": self.culprit,
            "world_size": self.world,
            "backend": dist.get_backend(),
            "device": self.device.type,
            "torch_version": torch.__version__,
            "nccl_version": self._env_snapshot.get("nccl_version"),
            "median_step_ms_per_rank": medians,
            "trace_exported": traced,
            "workload_info": workload_info,
            "model_info": self.model_info,
            "args": {k: v for k, v in vars(a).items() if k not in ("env_set_by",)},
            "mandatory_env": MANDATORY_ENV,
            "wall_s": time.time() - self.t_start,
            "status": "ok",
            "recorded_with": {"profiler": "nsys" if a.nsys else "kineto",
                              "marks": "train_step" if a.nsys else (
                                  "iter" if a.profile_style == "plain" else "sched")},
        }
        if os.environ.get("NCCL_HOSTID", "").startswith("commdx-node"):
            meta["two_ranks_one_gpu"] = ("workloads/as_node.sh: each rank on GPU 0 with its own "
                                         "NCCL_HOSTID, joined by NCCL sockets")
        self._dump("meta.json", meta)

    def close(self):
        dist.destroy_process_group()


def main(build_and_step):
    """Entry point used by each workload: build_and_step(run) -> (step_fn, info)."""
    run = Run(ARGS)
    try:
        step_fn, info = build_and_step(run)
        run.train(step_fn, info)
    finally:
        run.close()
