"""The causes a workload run can inject (`--cause`), one per run, each with what commdx should find.

Read by common.py before torch is imported (an `env` cause sets its variables first).
"""

# cause -> what is injected, and what commdx should find. `env` causes are normally set by the
# runner (run_all.sh); when a script is started by hand with such a cause and the variable is
# missing, it is set here before torch is imported and meta.json says so.
CAUSES = {
    "none": dict(
        kind="healthy", env={}, finding=None, rank=None,
        note="healthy baseline"),
    "small_buckets": dict(
        kind="code", env={}, finding="trace.small_collectives", rank=None,
        note="DDP bucket_cap_mb=0.5: about one all-reduce per parameter tensor instead of one "
             "per 25 MB"),
    "item_sync": dict(
        kind="code", env={}, finding="trace.host_sync", rank=None,
        note="`.item()` of an activation statistic after every transformer block in forward "
             "(aten::item -> cudaMemcpyAsync D2H + cudaStreamSynchronize)"),
    "cuda_sync": dict(
        kind="code", env={}, finding="trace.host_sync", rank=None,
        note="torch.cuda.synchronize() after every transformer block in forward "
             "(cudaDeviceSynchronize)"),
    "no_overlap": dict(
        kind="code", env={}, finding="trace.exposed_comm", rank=None,
        note="no DDP: gradients all-reduced by hand after backward() in 25 MB flattened buckets, "
             "so no communication overlaps the backward pass"),
    "straggler": dict(
        kind="code", env={}, finding="trace.arrival_skew", rank=1,
        note="rank 1 runs an extra bf16 matmul loop (~20 ms) before each forward; rank 0 waits "
             "inside the first gradient all-reduce"),
    "data_stall": dict(
        kind="code", env={}, finding="trace.data_stall", rank=1,
        note="rank 1 sleeps 60 ms inside record_function('dataloader') every step; "
             "trace.arrival_skew on rank 1 is expected as well"),
    "find_unused": dict(
        kind="code", env={}, finding=None, rank=None,
        note="DDP find_unused_parameters=True with every parameter used: an autograd-graph "
             "traversal after each forward. No finding id for it yet; the cost is "
             "CPU time per step (expected small)"),
    "accum_no_nosync": dict(
        kind="code", env={}, finding="trace.exposed_comm", rank=None,
        note="gradient accumulation over 4 micro-batches WITHOUT model.no_sync(): gradients are "
             "all-reduced after every micro-batch (4x the all-reduce traffic of ddp_accum_healthy). "
             "No exact finding id for it; exposed or redundant communication expected"),
    "max_connections_1": dict(
        kind="env", env={"CUDA_DEVICE_MAX_CONNECTIONS": "1"}, finding="trace.exposed_comm",
        rank=None,
        note="CUDA_DEVICE_MAX_CONNECTIONS=1 with FSDP: one hardware work queue, so all-gather / "
             "reduce-scatter kernels on their own streams serialise with compute "
             "(trace.comm_serialized may fit better)"),
    "p2p_disable": dict(
        kind="env", env={"NCCL_P2P_DISABLE": "1"}, finding="comm.p2p_disabled", rank=None,
        note="NCCL_P2P_DISABLE=1: NCCL goes through host shared memory (SHM) instead of NVLink "
             "(comm.shm_transport and comm.env_override also apply)"),
    "socket": dict(
        kind="env", env={"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"},
        finding="comm.socket_fallback", rank=None,
        note="NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: NCCL falls back to NET/Socket over eth0"),
    "one_channel": dict(
        kind="env", env={"NCCL_MAX_NCHANNELS": "1"}, finding="comm.few_channels", rank=None,
        note="NCCL_MAX_NCHANNELS=1: every collective on one channel (one SM pair of rings)"),
    "few_channels_buffsize": dict(
        kind="env", env={"NCCL_MAX_NCHANNELS": "1", "NCCL_BUFFSIZE": "65536"},
        finding="comm.few_channels", rank=None,
        note="NCCL_MAX_NCHANNELS=1 NCCL_BUFFSIZE=65536: one channel and 64 KiB buffers (default "
             "4 MiB) for every collective; over the socket transport the gradient all-reduce "
             "crawls"),
    "algo_tree": dict(
        kind="env", env={"NCCL_ALGO": "Tree"}, finding="comm.env_override", rank=None,
        note="NCCL_ALGO=Tree forced for every collective. With NCCL 2.28.9 this run does not "
             "start: DDP's parameter-shape check is an AllGather, which has no Tree algorithm "
             "('NCCL WARN Error : no algorithm/protocol available for function AllGather'); "
             "comm.nccl_warn is what the log can show"),
    "algo_tree_allreduce": dict(
        kind="env", env={"NCCL_ALGO": "allreduce:tree"}, finding="comm.env_override",
        rank=None,
        note="NCCL_ALGO=allreduce:tree (per-collective syntax, NCCL >= 2.24): Tree forced for "
             "all-reduce only"),
    "proto_simple": dict(
        kind="env", env={"NCCL_PROTO": "Simple"}, finding="comm.env_override", rank=None,
        note="NCCL_PROTO=Simple forced (small messages lose the LL protocols)"),
    "omp_256": dict(
        kind="env", env={"OMP_NUM_THREADS": "256"}, finding="env.omp_oversubscribed", rank=None,
        note="OMP_NUM_THREADS=256 in each of the ranks on a 32-core machine; the CPU-side batch "
             "preprocessing is an intra-op parallel matmul"),
}
