"""50k_matmul_gelu_softmax in JAX: y = softmax(gelu_tanh(x @ weight + bias), axis 1)."""
import jax
import jax.numpy as jnp

import kforge_task as task  # noqa: F401


def workload(x, weight, bias):
    return jax.nn.softmax(jax.nn.gelu(jnp.matmul(x, weight) + bias, approximate=True), axis=1)
