"""11p_megablox_gmm in PyTorch: a torch.mm per non-empty group, as baseline.cpp (PyTorch's grouped
GEMM, torch._grouped_mm, runs on CUDA only)."""
import torch

import kforge_task as task


def baseline(lhs, rhs, group_sizes):
    out = torch.empty(task.M, task.N)
    start = 0
    for g, rows in enumerate(group_sizes.tolist()):
        if rows > 0:
            torch.mm(lhs[start:start + rows], rhs[g], out=out[start:start + rows])
        start += rows
    return out
