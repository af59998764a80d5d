"""Pipeline-parallel workload: activations and their gradients move between stages with
point-to-point send/recv (commdx seed step 1: 'send/recv').

    torchrun --nproc_per_node=2 workloads/pipeline.py --cause none --out OUT

Each rank is one stage (rank 0 holds the embedding, the last rank the head); the transformer
blocks are split evenly. GPipe schedule: all micro-batches forward, then all backward. There is no
data parallelism, so there is no gradient all-reduce: the only communication is send/recv.
"""

import torch.nn as nn

import common
from common import Block, lm_loss, torch, dist

MICRO_BATCHES = 4


class Stage(nn.Module):
    def __init__(self, a, first, last, n_blocks):
        super().__init__()
        self.emb = nn.Embedding(a.vocab, a.dim) if first else None
        self.blocks = nn.ModuleList(Block(a.dim, a.heads) for _ in range(n_blocks))
        self.ln_f = nn.LayerNorm(a.dim) if last else None
        self.head = nn.Linear(a.dim, a.vocab) if last else None

    def forward(self, x, layer_hook=None):
        if self.emb is not None:
            x = self.emb(x)
        for i, blk in enumerate(self.blocks):
            x = blk(x)
            if layer_hook is not None:
                layer_hook(i, x)
        if self.head is not None:
            x = self.head(self.ln_f(x))
        return x


def build(run):
    a = run.args
    r, w = run.rank, run.world
    first, last = r == 0, r == w - 1
    per = [a.layers // w + (1 if s < a.layers % w else 0) for s in range(w)]
    run.seed_model()
    torch.manual_seed(100 + r)
    stage = Stage(a, first, last, per[r]).to(run.device)
    run.count_params(stage)
    opt = torch.optim.AdamW(stage.parameters(), lr=1e-4, fused=run.cuda)
    hook = run.layer_hook()
    mb = max(1, a.batch // MICRO_BATCHES)
    n_mb = MICRO_BATCHES
    act_shape = (mb, a.seq, a.dim)
    # the residual stream leaves a stage in fp32 (autocast keeps the adds in fp32)
    act_dtype = torch.float32
    info = {"stages": w, "blocks_per_stage": per, "micro_batches": n_mb, "micro_batch": mb,
            "activation_shape": list(act_shape), "activation_dtype": "float32",
            "schedule": "GPipe (all forward, then all backward)"}

    def step(i):
        kept = []
        for m in range(n_mb):
            # every stage draws the same tokens for this micro-batch (the first needs the input,
            # the last the targets)
            x, y = run.load_batch(mb, a.seq, a.vocab, shared_seed=(i * 1000 + m))
            if first:
                inp = x
            else:
                inp = torch.empty(act_shape, dtype=act_dtype, device=run.device)
                dist.recv(inp, src=r - 1)
                inp.requires_grad_(True)
            with run.autocast():
                out = stage(inp, layer_hook=hook)
            if last:
                loss = lm_loss(out, y) / n_mb
                kept.append((inp, loss))
            else:
                out = out.float().contiguous()
                dist.send(out.detach(), dst=r + 1)
                kept.append((inp, out))
        for m in range(n_mb):
            inp, out = kept[m]
            if last:
                out.backward()
            else:
                g = torch.empty_like(out)
                dist.recv(g, src=r + 1)
                out.backward(g)
            if not first:
                dist.send(inp.grad.contiguous(), dst=r - 1)
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step, info


if __name__ == "__main__":
    common.main(build)
