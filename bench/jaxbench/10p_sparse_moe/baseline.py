"""10p_sparse_moe in PyTorch: op by op as baseline.cpp (every expert dense on every token, mixed
by the one-hot router weights). PyTorch has no fused MoE call on the CPU."""
import torch
import torch.nn.functional as F

import kforge_task as task


def baseline(x, router_weights, expert_gate_kernels, expert_up_kernels, expert_down_kernels):
    logits = torch.matmul(x, router_weights)
    top_logits, top_indices = torch.topk(logits, task.TOPK, dim=-1)
    probs = torch.softmax(top_logits, -1)
    gate = F.silu(torch.einsum("bse,nem->bsnm", x, expert_gate_kernels))
    up = torch.einsum("bse,nem->bsnm", x, expert_up_kernels)
    expert_out = torch.einsum("bsnm,nme->bsne", gate * up, expert_down_kernels)
    one_hot = F.one_hot(top_indices, task.NE).to(torch.float32)
    weights = (one_hot * probs.unsqueeze(-1)).sum(2)
    return torch.einsum("bsne,bsn->bse", expert_out, weights)
