"""17p_triangle_multiplication in PyTorch: op by op as baseline.cpp, and F.rms_norm for the
centre normalisation (the library call)."""
import torch
import torch.nn.functional as F

import kforge_task as task


def gated_sides(pair_act, mask, left_proj_w, right_proj_w, left_gate_w, right_gate_w):
    act = pair_act * mask
    left = torch.matmul(act, left_proj_w) * torch.sigmoid(torch.matmul(act, left_gate_w))
    right = torch.matmul(act, right_proj_w) * torch.sigmoid(torch.matmul(act, right_gate_w))
    return torch.einsum("ikc,jkc->ijc", left, right)


def baseline(pair_act, mask, left_proj_w, right_proj_w, left_gate_w, right_gate_w, center_scale, out_proj_w, out_gate_w):
    result = gated_sides(pair_act, mask, left_proj_w, right_proj_w, left_gate_w, right_gate_w)
    rms = torch.sqrt((result * result).mean(-1, keepdim=True) + task.eps)
    result = result / rms * center_scale
    return torch.matmul(result, out_proj_w) * torch.sigmoid(torch.matmul(pair_act, out_gate_w))


def library(pair_act, mask, left_proj_w, right_proj_w, left_gate_w, right_gate_w, center_scale, out_proj_w, out_gate_w):
    result = gated_sides(pair_act, mask, left_proj_w, right_proj_w, left_gate_w, right_gate_w)
    result = F.rms_norm(result, (task.C,), weight=center_scale, eps=task.eps)
    return torch.matmul(result, out_proj_w) * torch.sigmoid(torch.matmul(pair_act, out_gate_w))
