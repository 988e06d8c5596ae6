"""40k_gemm_groupnorm_min_biasadd in JAX: h = x @ weight^T + linear_bias, group norm over G groups
(biased variance) with gn_weight and gn_bias, the row minimum, broadcast against bias:
y[0, n, m, 0] = min_j h[m, j] + bias[0, n, 0, 0]."""
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, linear_bias, gn_weight, gn_bias, bias):
    h = jnp.matmul(x, weight.T) + linear_bias
    g = h.reshape(task.M, task.G, task.N // task.G)
    mean = jnp.mean(g, axis=2, keepdims=True)
    var = jnp.var(g, axis=2, keepdims=True)
    h = ((g - mean) / jnp.sqrt(var + task.eps)).reshape(task.M, task.N) * gn_weight + gn_bias
    m = jnp.min(h, axis=1, keepdims=True)
    return m.reshape(1, 1, task.M, 1) + bias
