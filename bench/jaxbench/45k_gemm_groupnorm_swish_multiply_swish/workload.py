"""45k_gemm_groupnorm_swish_multiply_swish in JAX: h = x @ gemm_weight^T + gemm_bias, group norm
(G groups, biased variance) with gn_weight and gn_bias, swish, times multiply_weight, swish."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, gemm_weight, gemm_bias, gn_weight, gn_bias, multiply_weight):
    h = jnp.matmul(x, gemm_weight.T) + gemm_bias
    g = h.reshape(task.M, task.G, task.N // task.G)
    mean = jnp.mean(g, axis=-1, keepdims=True)
    var = jnp.var(g, axis=-1, keepdims=True)
    h = ((g - mean) / jnp.sqrt(var + task.eps)).reshape(task.M, task.N) * gn_weight + gn_bias
    return jax.nn.silu(jax.nn.silu(h) * multiply_weight)
