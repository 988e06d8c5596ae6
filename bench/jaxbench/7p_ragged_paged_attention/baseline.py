"""7p_ragged_paged_attention in PyTorch: op by op as baseline.cpp, slot by slot (gather the
capacity's query rows and the slot's pages, split the interleaved K and V heads, repeat them,
dense scores, mask, softmax, p·v, zero the invalid rows, scatter-add); and the same slots with
F.scaled_dot_product_attention and a boolean mask (the library call)."""
import torch
import torch.nn.functional as F

import kforge_task as task


def capacity(slot):
    if slot < task.NDEC:
        return 1
    if slot < task.NDEC + task.NPRE - 1:
        return task.CHUNK
    return task.T - task.NDEC - (task.NPRE - 1) * task.CHUNK


def slots(queries, kv_pages, kv_lens, page_indices, cu_q_lens, num_seqs):
    """Per slot: query rows, their positions, K and V [S, Hkv, D], the visibility mask [1, cap, S]
    and which rows count."""
    S = task.PPS * task.PS
    kv_span = torch.arange(S, dtype=torch.int32).view(1, 1, S)
    for slot in range(task.NDEC + task.NPRE):
        cap = capacity(slot)
        q_start = cu_q_lens[slot]
        q_len = cu_q_lens[slot + 1] - q_start
        kv_len = kv_lens[slot]
        offsets = torch.arange(cap, dtype=torch.int32)
        positions = torch.clamp_max(q_start + offsets, task.T - 1).long()
        pages = torch.index_select(kv_pages, 0, page_indices[slot].long())
        k = pages[:, :, 0::2].reshape(S, task.Hkv, task.D)
        v = pages[:, :, 1::2].reshape(S, task.Hkv, task.D)
        q_span = (kv_len - q_len) + offsets.view(1, cap, 1)
        masked = (q_span < kv_span) | (kv_span >= kv_len)
        valid = (offsets < q_len) & (num_seqs[0] > slot)
        yield torch.index_select(queries, 0, positions), positions, k, v, masked, valid


def baseline(queries, kv_pages, kv_lens, page_indices, cu_q_lens, num_seqs):
    group = task.Hq // task.Hkv
    out = torch.zeros(task.T, task.Hq, task.D)
    for q, positions, k, v, masked, valid in slots(queries, kv_pages, kv_lens, page_indices, cu_q_lens, num_seqs):
        k = torch.repeat_interleave(k, group, dim=1)
        v = torch.repeat_interleave(v, group, dim=1)
        attn = torch.einsum("qhd,khd->hqk", q, k) * task.sm_scale
        attn = torch.where(masked, task.mask_value, attn)
        o = torch.einsum("hqk,khd->qhd", torch.softmax(attn, -1), v)
        out.index_add_(0, positions, torch.where(valid.view(-1, 1, 1), o, 0.0))
    return out


def library(queries, kv_pages, kv_lens, page_indices, cu_q_lens, num_seqs):
    out = torch.zeros(task.T, task.Hq, task.D)
    for q, positions, k, v, masked, valid in slots(queries, kv_pages, kv_lens, page_indices, cu_q_lens, num_seqs):
        o = F.scaled_dot_product_attention(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), attn_mask=~masked,
                                           scale=task.sm_scale, enable_gqa=True).transpose(0, 1)
        out.index_add_(0, positions, torch.where(valid.view(-1, 1, 1), o, 0.0))
    return out
