"""31k_gemm_batchnorm_gelu_relu in PyTorch: op by op as baseline.cpp, and F.batch_norm in
training mode (batch statistics; the library call)."""
import torch
import torch.nn.functional as F

import kforge_task as task


def baseline(x, gemm_weight, gemm_bias, bn_weight, bn_bias):
    h = torch.matmul(x, gemm_weight.t()) + gemm_bias
    mean = h.mean(0, keepdim=True)
    var = (h - mean).pow(2).mean(0, keepdim=True)
    h = (h - mean) / torch.sqrt(var + task.eps) * bn_weight + bn_bias
    return torch.relu(F.gelu(h, approximate="tanh"))


def library(x, gemm_weight, gemm_bias, bn_weight, bn_bias):
    h = F.linear(x, gemm_weight, gemm_bias)
    h = F.batch_norm(h, None, None, bn_weight, bn_bias, training=True, eps=task.eps)
    return torch.relu(F.gelu(h, approximate="tanh"))
