"""20k_gemm_multiply_leakyrelu in JAX: y = leaky_relu((x @ weight + bias) * multiplier, negative_slope)."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias):
    h = (jnp.matmul(x, weight) + bias) * task.multiplier
    return jax.nn.leaky_relu(h, negative_slope=task.negative_slope)
