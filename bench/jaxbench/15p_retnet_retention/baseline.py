"""15p_retnet_retention in PyTorch: op by op as baseline.cpp."""
import torch

import kforge_task as task


def baseline(query, key, value):
    gammas = 1.0 - torch.exp2(-5.0 - torch.arange(task.H, dtype=torch.float32))
    positions = torch.arange(task.S, dtype=torch.float32)
    distance = positions.unsqueeze(1) - positions.unsqueeze(0)
    causal_mask = distance.ge(0).to(torch.float32)
    decay = torch.exp(torch.log(gammas).view(task.H, 1, 1) * torch.clamp_min(distance, 0.0).unsqueeze(0))
    decay = decay * causal_mask.unsqueeze(0)
    qk = torch.matmul(query, key.transpose(-2, -1)) * decay.unsqueeze(0)
    qk = qk / torch.clamp_min(qk.abs().sum(-1, keepdim=True), 1.0)
    return torch.matmul(qk, value)
