"""44k_matmul_divide_gelu in JAX: y = gelu_tanh((x @ weight + bias) / divisor)."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias):
    return jax.nn.gelu((jnp.matmul(x, weight) + bias) / task.divisor, approximate=True)
