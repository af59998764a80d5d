#!/usr/bin/env bash
# Runs one torchrun rank as if it were alone on its own node, all ranks on GPU 0 of one host:
#   torchrun --nproc_per_node=2 --no-python workloads/as_node.sh python3 SCRIPT ARGS...
# NCCL_HOSTID gives each rank its own host hash, so NCCL neither refuses two ranks on one GPU
# ("Duplicate GPU detected") nor connects them through P2P or shared memory: they talk through
# its network transport (sockets), as ranks on two nodes without InfiniBand would. LOCAL_RANK=0
# points every rank's script at that one GPU. Two ranks on one GPU take turns on it, so times
# are not those of two GPUs; the files (logs, traces, dumps, reports) are those of a 2-rank job.
export NCCL_HOSTID="commdx-node${RANK:?torchrun sets RANK}"
export LOCAL_RANK=0 CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
exec "$@"
