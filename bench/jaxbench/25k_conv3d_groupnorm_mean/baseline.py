"""25k_conv3d_groupnorm_mean in PyTorch: op by op as baseline.cpp, and F.group_norm (the library call)."""
import torch
import torch.nn.functional as F

import kforge_task as task


def baseline(x, weight, conv_bias, gamma, beta):
    h = F.conv3d(x, weight, conv_bias)
    g = h.reshape(task.N, task.G, task.Cout // task.G, *h.shape[2:])
    mean = g.mean((2, 3, 4, 5), keepdim=True)
    var = g.var((2, 3, 4, 5), unbiased=False, keepdim=True)
    h = ((g - mean) / torch.sqrt(var + task.eps)).reshape(h.shape)
    h = h * gamma.view(1, task.Cout, 1, 1, 1) + beta.view(1, task.Cout, 1, 1, 1)
    return h.mean((1, 2, 3, 4))


def library(x, weight, conv_bias, gamma, beta):
    h = F.group_norm(F.conv3d(x, weight, conv_bias), task.G, gamma, beta, task.eps)
    return h.mean((1, 2, 3, 4))
