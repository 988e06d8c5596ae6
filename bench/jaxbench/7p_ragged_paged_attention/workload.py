"""7p_ragged_paged_attention in JAX: one mixed prefill + decode step over paged, interleaved K/V.

Slots have static query capacities (NDEC decode slots of 1, then NPRE prefill slots of CHUNK, the
last holding the rest of the token budget), so XLA sees fixed shapes; everything else is data.
Slot i reads query rows cu_q_lens[i] + r (clamped to T-1) for r < capacity; its keys and values
are its pages (K heads at even, V heads at odd combined indices); row r sees keys
t <= kv_len - q_len + r with t < kv_len; masked scores get mask_value after the sm_scale
scaling. Rows past q_len and slots at or past num_seqs[0] add nothing; rows of no slot stay 0."""
import jax
import jax.numpy as jnp

import kforge_task as task


def capacity(slot):
    if slot < task.NDEC:
        return 1
    if slot < task.NDEC + task.NPRE - 1:
        return task.CHUNK
    return task.T - task.NDEC - (task.NPRE - 1) * task.CHUNK


def workload(queries, kv_pages, kv_lens, page_indices, cu_q_lens, num_seqs):
    S = task.PPS * task.PS
    group = task.Hq // task.Hkv
    out = jnp.zeros((task.T, task.Hq, task.D), jnp.float32)
    keys = jnp.arange(S)[None, None, :]
    for slot in range(task.NDEC + task.NPRE):
        cap = capacity(slot)
        q_start = cu_q_lens[slot]
        q_len = cu_q_lens[slot + 1] - q_start
        kv_len = kv_lens[slot]
        offsets = jnp.arange(cap)
        rows = jnp.minimum(q_start + offsets, task.T - 1)
        pages = kv_pages[page_indices[slot]].reshape(S, 2 * task.Hkv, task.D)
        k = jnp.repeat(pages[:, 0::2], group, axis=1)
        v = jnp.repeat(pages[:, 1::2], group, axis=1)
        scores = jnp.einsum("qhd,khd->hqk", queries[rows], k) * task.sm_scale
        visible = ((kv_len - q_len) + offsets[None, :, None] >= keys) & (keys < kv_len)
        scores = jnp.where(visible, scores, task.mask_value)
        o = jnp.einsum("hqk,khd->qhd", jax.nn.softmax(scores, axis=-1), v)
        valid = (offsets < q_len) & (num_seqs[0] > slot)
        out = out.at[rows].add(jnp.where(valid[:, None, None], o, 0.0))
    return out
