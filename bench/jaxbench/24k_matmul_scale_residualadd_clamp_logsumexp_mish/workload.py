"""24k in JAX: h = 2·(x @ weight^T + bias)·scale_factor clamped to [clamp_min, clamp_max];
z = logsumexp over the row; y = z · mish(z)."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias):
    h = (jnp.matmul(x, weight.T) + bias) * task.scale_factor
    h = jnp.clip(h + h, task.clamp_min, task.clamp_max)
    z = jax.nn.logsumexp(h, axis=1, keepdims=True)
    return z * (z * jnp.tanh(jax.nn.softplus(z)))
