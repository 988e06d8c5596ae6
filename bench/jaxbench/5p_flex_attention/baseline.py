"""5p_flex_attention in PyTorch: op by op as baseline.cpp, and F.scaled_dot_product_attention with
the bias and the causal mask as one additive mask (the library call)."""
import math

import torch
import torch.nn.functional as F

import kforge_task as task


def baseline(q, k, v, rel_pos_bias):
    attn = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(task.D))
    attn = attn + rel_pos_bias.unsqueeze(0)
    causal = torch.ones(task.S, task.S, dtype=torch.bool).tril_()
    attn = torch.where(causal, attn, torch.tensor(task.mask_value, dtype=q.dtype))
    return torch.matmul(torch.softmax(attn, -1), v)


def library(q, k, v, rel_pos_bias):
    causal = torch.ones(task.S, task.S, dtype=torch.bool).tril_()
    mask = torch.where(causal, rel_pos_bias, torch.tensor(task.mask_value, dtype=q.dtype)).unsqueeze(0)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
