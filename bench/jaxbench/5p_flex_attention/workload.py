"""5p_flex_attention in JAX: causal attention with a per-head relative position bias added to the
scaled scores (1/sqrt(D)); masked scores get mask_value."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(q, k, v, rel_pos_bias):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.float32(task.D)) + rel_pos_bias[None]
    causal = jnp.tril(jnp.ones((task.S, task.S), dtype=bool))
    scores = jnp.where(causal, scores, task.mask_value)
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)
