"""47k in JAX: y = clip(gelu_tanh(tanh(swish(x @ weight + bias + add_value))), -1, 1)."""
import jax
import jax.numpy as jnp

import kforge_task as task  # noqa: F401


def workload(x, weight, bias, add_value):
    h = jax.nn.silu(jnp.matmul(x, weight) + bias + add_value)
    return jnp.clip(jax.nn.gelu(jnp.tanh(h), approximate=True), -1.0, 1.0)
