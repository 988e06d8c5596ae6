"""36k_matmul_sigmoid_sum in JAX: y = sum(sigmoid(x @ weight + bias), axis 1, keepdims)."""
import jax
import jax.numpy as jnp

import kforge_task as task  # noqa: F401


def workload(x, weight, bias):
    return jnp.sum(jax.nn.sigmoid(jnp.matmul(x, weight) + bias), axis=1, keepdims=True)
