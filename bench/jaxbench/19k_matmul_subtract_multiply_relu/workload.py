"""19k_matmul_subtract_multiply_relu in JAX: y = relu((x @ weight + bias - subtract_value) * multiply_value)."""
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias):
    h = jnp.matmul(x, weight) + bias
    return jnp.maximum((h - task.subtract_value) * task.multiply_value, 0.0)
