"""45k_gemm_groupnorm_swish_multiply_swish in PyTorch: op by op as baseline.cpp, and F.group_norm
with F.silu (the library calls)."""
import torch
import torch.nn.functional as F

import kforge_task as task


def baseline(x, gemm_weight, gemm_bias, gn_weight, gn_bias, multiply_weight):
    h = torch.matmul(x, gemm_weight.t()) + gemm_bias
    grouped = h.view(task.M, task.G, task.N // task.G)
    mean = grouped.mean(-1, keepdim=True)
    var = grouped.var(-1, unbiased=False, keepdim=True)
    h = ((grouped - mean) / torch.sqrt(var + task.eps)).view(task.M, task.N)
    h = h * gn_weight + gn_bias
    h = h * torch.sigmoid(h)
    h = h * multiply_weight
    return h * torch.sigmoid(h)


def library(x, gemm_weight, gemm_bias, gn_weight, gn_bias, multiply_weight):
    h = F.group_norm(F.linear(x, gemm_weight, gemm_bias), task.G, gn_weight, gn_bias, task.eps)
    return F.silu(F.silu(h) * multiply_weight)
