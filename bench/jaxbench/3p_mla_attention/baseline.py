"""3p_mla_attention in PyTorch: op by op as baseline.cpp, and the attention itself through
F.scaled_dot_product_attention(is_causal=True) (the library call)."""
import math

import torch
import torch.nn.functional as F

import kforge_task as task


def rope(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)


def projections(x, q_down, q_up, kv_down, k_up, v_up):
    """q, k, v as [B, H, S, dim], RoPE applied."""
    B, S, H, NOPE, ROPE, VD = task.B, task.S, task.H, task.NOPE, task.ROPE, task.VD
    q = torch.matmul(torch.matmul(x, q_down), q_up).reshape(B, S, H, NOPE + ROPE)
    kv = torch.matmul(x, kv_down)
    k_latent, k_rope = kv[..., :task.KVL], kv[..., task.KVL:]
    k_nope = torch.matmul(k_latent, k_up).reshape(B, S, H, NOPE)
    freqs = 1.0 / torch.pow(float(task.rope_theta), torch.arange(0, ROPE, 2, dtype=torch.float32) / ROPE)
    angles = torch.outer(torch.arange(S, dtype=torch.float32), freqs)
    cos, sin = angles.cos(), angles.sin()
    q = torch.cat([q[..., :NOPE], rope(q[..., NOPE:], cos, sin)], -1).transpose(1, 2)
    k_rope = rope(k_rope.unsqueeze(2).expand(B, S, H, ROPE), cos, sin)
    k = torch.cat([k_nope, k_rope], -1).transpose(1, 2)
    v = torch.matmul(k_latent, v_up).reshape(B, S, H, VD).transpose(1, 2)
    return q, k, v


def output(o, o_proj):
    return torch.matmul(o.transpose(1, 2).reshape(task.B, task.S, task.H * task.VD), o_proj)


def baseline(x, q_down, q_up, kv_down, k_up, v_up, o_proj):
    q, k, v = projections(x, q_down, q_up, kv_down, k_up, v_up)
    attn = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(task.NOPE + task.ROPE))
    mask = torch.ones(task.S, task.S).tril_()
    attn = torch.where(mask.to(torch.bool), attn, torch.tensor(task.mask_value, dtype=x.dtype))
    return output(torch.matmul(torch.softmax(attn, -1), v), o_proj)


def library(x, q_down, q_up, kv_down, k_up, v_up, o_proj):
    q, k, v = projections(x, q_down, q_up, kv_down, k_up, v_up)
    return output(F.scaled_dot_product_attention(q, k, v, is_causal=True), o_proj)
