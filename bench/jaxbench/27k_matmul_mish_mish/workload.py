"""27k_matmul_mish_mish in JAX: y = mish(mish(x @ weight + bias)), mish(v) = v tanh(softplus(v))."""
import jax
import jax.numpy as jnp

import kforge_task as task  # noqa: F401


def mish(v):
    return v * jnp.tanh(jax.nn.softplus(v))


def workload(x, weight, bias):
    return mish(mish(jnp.matmul(x, weight) + bias))
