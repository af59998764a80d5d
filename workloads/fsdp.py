"""FSDP workload: all-gather of parameters + reduce-scatter of gradients (ZeRO-3 style).

    torchrun --nproc_per_node=2 workloads/fsdp.py --cause none --out OUT

Uses FSDP2 (`torch.distributed.fsdp.fully_shard`), one unit per transformer block plus the root,
bf16 parameters for compute and fp32 gradient reduction. The cause meant for it is
max_connections_1 (CUDA_DEVICE_MAX_CONNECTIONS=1); the per-step causes of common.py work too.
"""

import common
from common import TinyLM, lm_loss, torch


def build(run):
    a = run.args
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    from torch.distributed.device_mesh import init_device_mesh

    run.seed_model()
    model = TinyLM(a.vocab, a.dim, a.heads, a.layers).to(run.device)
    n_params = sum(p.numel() for p in model.parameters())
    mesh = init_device_mesh(run.device.type, (run.world,))
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for blk in model.blocks:
        fully_shard(blk, mesh=mesh, mp_policy=mp)
    fully_shard(model, mesh=mesh, mp_policy=mp)
    run.count_params(model)  # local shard sizes
    # foreach AdamW (the default on CUDA) over the DTensor shards
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    hook = run.layer_hook()
    info = {"params": n_params, "fsdp": "fully_shard (FSDP2), one unit per block + root",
            "param_dtype": "bfloat16", "reduce_dtype": "float32"}

    def step(i):
        x, y = run.load_batch(a.batch, a.seq, a.vocab)
        logits = model(x, layer_hook=hook)
        loss = lm_loss(logits, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step, info


if __name__ == "__main__":
    common.main(build)
