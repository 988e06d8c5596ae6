"""16p_mamba2_ssd in JAX: Mamba-2's state-space duality, quadratic form. Decay a = sigmoid(A_log)
(as JAXBench's code, not exp), L[i, j] = exp(cumsum(log(a + 1e-8))_i - cumsum_j) for j <= i;
scores (q k^T)·L, each row divided by max(|row sum|, 1) (a row sum under 1e-6 in magnitude counts
as 1), times v."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(query, key, value, A_log):
    log_a_cumsum = jnp.cumsum(jnp.log(jax.nn.sigmoid(A_log) + 1e-8), axis=-1)
    diff = log_a_cumsum[..., :, None] - log_a_cumsum[..., None, :]
    causal = jnp.tril(jnp.ones((task.S, task.S), dtype=bool))
    L = jnp.exp(jnp.where(causal, diff, -1e30))
    scores = jnp.einsum("bhqd,bhkd->bhqk", query, key) * L
    total = jnp.sum(scores, axis=-1, keepdims=True)
    total = jnp.where(jnp.abs(total) < 1e-6, 1.0, total)
    return jnp.einsum("bhqk,bhkd->bhqd", scores / jnp.maximum(jnp.abs(total), 1.0), value)
