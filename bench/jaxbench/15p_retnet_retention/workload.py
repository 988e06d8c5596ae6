"""15p_retnet_retention in JAX: retention with per-head decay γ_h = 1 - 2^(-5-h): scores q k^T times
γ_h^(i-j) for j <= i (0 above the diagonal), each row divided by max(sum |scores|, 1), times v."""
import jax.numpy as jnp

import kforge_task as task


def workload(query, key, value):
    gammas = 1.0 - jnp.exp2(-5.0 - jnp.arange(task.H, dtype=jnp.float32))
    pos = jnp.arange(task.S, dtype=jnp.float32)
    distance = pos[:, None] - pos[None, :]
    decay = jnp.exp(jnp.log(gammas)[:, None, None] * jnp.maximum(distance, 0.0)[None])
    decay = decay * (distance >= 0).astype(jnp.float32)[None]
    qk = jnp.einsum("bhqd,bhkd->bhqk", query, key) * decay[None]
    qk = qk / jnp.maximum(jnp.sum(jnp.abs(qk), axis=-1, keepdims=True), 1.0)
    return jnp.einsum("bhqk,bhkd->bhqd", qk, value)
