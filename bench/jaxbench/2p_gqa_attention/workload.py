"""2p_gqa_attention in JAX: causal grouped-query attention, [batch, seq, heads, dim] layout; each
KV head serves Hq/Hkv consecutive query heads; scores scaled by 1/sqrt(D), masked with mask_value."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(query, key, value):
    group = task.Hq // task.Hkv
    k = jnp.repeat(key, group, axis=2)
    v = jnp.repeat(value, group, axis=2)
    scores = jnp.einsum("bqhd,bkhd->bhqk", query, k) / jnp.sqrt(jnp.float32(task.D))
    causal = jnp.tril(jnp.ones((task.S, task.S), dtype=bool))
    scores = jnp.where(causal, scores, task.mask_value)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), v)
