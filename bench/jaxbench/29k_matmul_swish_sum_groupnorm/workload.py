"""29k_matmul_swish_sum_groupnorm in JAX: h = swish(x @ weight) + bias, group norm over G groups of
the N features (biased variance), times gn_weight plus gn_bias."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias, gn_weight, gn_bias):
    h = jax.nn.silu(jnp.matmul(x, weight)) + bias
    g = h.reshape(task.M, task.G, task.N // task.G)
    mean = jnp.mean(g, axis=-1, keepdims=True)
    var = jnp.var(g, axis=-1, keepdims=True)
    h = ((g - mean) / jnp.sqrt(var + task.eps)).reshape(task.M, task.N)
    return h * gn_weight + gn_bias
