"""The workloads' model: a small decoder-only transformer (~92M parameters at the default size).

Imported through common.py, which fixes the environment before torch (and NCCL) is loaded.
"""

import torch.nn as nn
import torch.nn.functional as F

class Block(nn.Module):
    """Pre-norm transformer block: causal self-attention + GELU MLP."""

    def __init__(self, dim, heads, ffn=None, with_mlp=True):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.with_mlp = with_mlp
        if with_mlp:
            ffn = ffn or 4 * dim
            self.ln2 = nn.LayerNorm(dim)
            self.fc1 = nn.Linear(dim, ffn)
            self.fc2 = nn.Linear(ffn, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(
            2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        if self.with_mlp:
            x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return x


class TinyLM(nn.Module):
    """Decoder-only LM: embedding, `layers` blocks, final norm, untied head."""

    def __init__(self, vocab, dim, heads, layers):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens, layer_hook=None):
        x = self.emb(tokens)
        for i, blk in enumerate(self.blocks):
            x = blk(x)
            if layer_hook is not None:
                layer_hook(i, x)
        return self.head(self.ln_f(x))


def lm_loss(logits, targets):
    return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), targets.reshape(-1))
