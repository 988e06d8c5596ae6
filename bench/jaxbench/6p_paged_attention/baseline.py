"""6p_paged_attention in PyTorch: op by op as baseline.cpp (gather the pages, repeat the KV heads,
length mask, softmax), and F.scaled_dot_product_attention with the length mask and enable_gqa
on the gathered pages (the library call)."""
import torch
import torch.nn.functional as F

import kforge_task as task


def gather(pages, page_indices):
    S = task.PPS * task.PS
    return torch.index_select(pages, 0, page_indices.reshape(-1).long()).view(task.N, S, task.Hkv, task.D)


def baseline(queries, k_pages, v_pages, kv_lens, page_indices):
    S = task.PPS * task.PS
    group = task.Hq // task.Hkv
    k = torch.repeat_interleave(gather(k_pages, page_indices), group, dim=2)
    v = torch.repeat_interleave(gather(v_pages, page_indices), group, dim=2)
    attn = torch.einsum("nhd,nkhd->nhk", queries, k) * task.sm_scale
    mask = torch.arange(S, dtype=torch.int32).unsqueeze(0) < kv_lens.unsqueeze(1)
    attn = torch.where(mask.unsqueeze(1), attn, -1e30)
    return torch.einsum("nhk,nkhd->nhd", torch.softmax(attn, -1), v)


def library(queries, k_pages, v_pages, kv_lens, page_indices):
    S = task.PPS * task.PS
    k = gather(k_pages, page_indices).transpose(1, 2)
    v = gather(v_pages, page_indices).transpose(1, 2)
    mask = (torch.arange(S, dtype=torch.int32).unsqueeze(0) < kv_lens.unsqueeze(1))[:, None, None, :]
    out = F.scaled_dot_product_attention(queries.unsqueeze(2), k, v, attn_mask=mask, scale=task.sm_scale, enable_gqa=True)
    return out.squeeze(2)
