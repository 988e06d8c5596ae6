"""33k_conv3d_mish_tanh in PyTorch: op by op as baseline.cpp (softplus written as log(exp(h) + 1)),
and F.mish (the library call)."""
import torch
import torch.nn.functional as F

import kforge_task as task  # noqa: F401


def baseline(x, weight, bias):
    h = F.conv3d(x, weight, bias)
    h = h * torch.tanh(torch.log(torch.exp(h) + 1))
    return torch.tanh(h)


def library(x, weight, bias):
    return torch.tanh(F.mish(F.conv3d(x, weight, bias)))
