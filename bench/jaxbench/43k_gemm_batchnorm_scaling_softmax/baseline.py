"""43k_gemm_batchnorm_scaling_softmax in PyTorch: op by op as baseline.cpp, and F.batch_norm with
the running statistics (inference mode; the library call)."""
import torch
import torch.nn.functional as F

import kforge_task as task


def baseline(x, weight, bias, bn_scale, bn_bias, bn_mean, bn_var, scale):
    h = torch.matmul(x, weight) + bias
    normed = (h - bn_mean) / torch.sqrt(bn_var + task.bn_eps)
    h = bn_scale * normed + bn_bias
    return torch.softmax(scale * h, 1)


def library(x, weight, bias, bn_scale, bn_bias, bn_mean, bn_var, scale):
    h = F.batch_norm(torch.addmm(bias, x, weight), bn_mean, bn_var, bn_scale, bn_bias, training=False, eps=task.bn_eps)
    return torch.softmax(scale * h, 1)
