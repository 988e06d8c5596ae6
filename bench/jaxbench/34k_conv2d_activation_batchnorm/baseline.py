"""34k_conv2d_activation_batchnorm in PyTorch: op by op as baseline.cpp, and F.mish with
F.batch_norm in training mode (the library calls)."""
import torch
import torch.nn.functional as F

import kforge_task as task


def baseline(x, conv_weight, conv_bias, bn_weight, bn_bias):
    channel = lambda p: p.view(1, task.CO, 1, 1)  # noqa: E731
    conv = F.conv2d(x, conv_weight) + channel(conv_bias)
    act = torch.tanh(F.softplus(conv)) * conv
    mean = act.mean((0, 2, 3), keepdim=True)
    var = (act - mean).square().mean((0, 2, 3), keepdim=True)
    normed = (act - mean) / torch.sqrt(var + task.eps)
    return normed * channel(bn_weight) + channel(bn_bias)


def library(x, conv_weight, conv_bias, bn_weight, bn_bias):
    act = F.mish(F.conv2d(x, conv_weight, conv_bias))
    return F.batch_norm(act, None, None, bn_weight, bn_bias, training=True, eps=task.eps)
