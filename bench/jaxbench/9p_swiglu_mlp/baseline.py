"""9p_swiglu_mlp in PyTorch: op by op as baseline.cpp."""
import torch
import torch.nn.functional as F

import kforge_task as task  # noqa: F401


def baseline(x, gate_kernel, up_kernel, down_kernel):
    gate = F.silu(torch.matmul(x, gate_kernel))
    up = torch.matmul(x, up_kernel)
    return torch.matmul(gate * up, down_kernel)
