"""26k in JAX: h = x @ bmm_weight^T + bmm_bias, instance norm over a 1x1 extent (so h - mean is 0),
affine in_weight and in_bias, then out = (h + y) · y."""
import jax.numpy as jnp

import kforge_task as task


def workload(x, y, bmm_weight, bmm_bias, in_weight, in_bias):
    h = (jnp.matmul(x, bmm_weight.T) + bmm_bias)[:, :, None, None]
    mean = jnp.mean(h, axis=(2, 3), keepdims=True)
    var = jnp.var(h, axis=(2, 3), keepdims=True)
    h = ((h - mean) / jnp.sqrt(var + task.eps))[:, :, 0, 0]
    h = h * in_weight + in_bias
    return (h + y) * y
