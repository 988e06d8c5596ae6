"""6p_paged_attention in JAX: GQA decode, one query per sequence. Each sequence's keys and values
are gathered from the pages its row of page_indices names; keys at or past kv_lens[n] get the
score -1e30 after the sm_scale scaling; query head h reads kv head h / (Hq/Hkv)."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(queries, k_pages, v_pages, kv_lens, page_indices):
    N, S = task.N, task.PPS * task.PS
    group = task.Hq // task.Hkv
    k = jnp.repeat(k_pages[page_indices.reshape(-1)].reshape(N, S, task.Hkv, task.D), group, axis=2)
    v = jnp.repeat(v_pages[page_indices.reshape(-1)].reshape(N, S, task.Hkv, task.D), group, axis=2)
    scores = jnp.einsum("nhd,nkhd->nhk", queries, k) * task.sm_scale
    valid = jnp.arange(S)[None, :] < kv_lens[:, None]
    scores = jnp.where(valid[:, None, :], scores, -1e30)
    return jnp.einsum("nhk,nkhd->nhd", jax.nn.softmax(scores, axis=-1), v)
