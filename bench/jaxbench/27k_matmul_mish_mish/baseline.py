"""27k_matmul_mish_mish in PyTorch: op by op as baseline.cpp, and F.mish (the library call)."""
import torch
import torch.nn.functional as F

import kforge_task as task  # noqa: F401


def baseline(x, weight, bias):
    h = torch.matmul(x, weight) + bias
    h = h * torch.tanh(F.softplus(h))
    return h * torch.tanh(F.softplus(h))


def library(x, weight, bias):
    return F.mish(F.mish(torch.addmm(bias, x, weight)))
