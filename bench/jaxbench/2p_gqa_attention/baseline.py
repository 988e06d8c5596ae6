"""2p_gqa_attention in PyTorch: op by op as baseline.cpp (KV heads repeated, a materialised tril
mask), and F.scaled_dot_product_attention(is_causal=True, enable_gqa=True)."""
import math

import torch
import torch.nn.functional as F

import kforge_task as task


def baseline(query, key, value):
    group = task.Hq // task.Hkv
    k = torch.repeat_interleave(key.unsqueeze(3), group, 3).reshape(task.B, task.S, task.Hq, task.D).transpose(1, 2)
    v = torch.repeat_interleave(value.unsqueeze(3), group, 3).reshape(task.B, task.S, task.Hq, task.D).transpose(1, 2)
    q = query.transpose(1, 2)
    attn = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(task.D))
    mask = torch.ones(task.S, task.S).tril_()
    attn = torch.where(mask.to(torch.bool), attn, torch.tensor(task.mask_value, dtype=q.dtype))
    return torch.matmul(torch.softmax(attn, -1), v).transpose(1, 2)


def library(query, key, value):
    out = F.scaled_dot_product_attention(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2),
                                         is_causal=True, enable_gqa=True)
    return out.transpose(1, 2)
