"""37k_matmul_swish_scaling in JAX: y = swish(x @ weight + bias)·scaling_factor."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias):
    return jax.nn.silu(jnp.matmul(x, weight) + bias) * task.scaling_factor
