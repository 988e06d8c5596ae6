"""32k_gemm_sigmoid_logsumexp in JAX: y = logsumexp(sigmoid(x @ w1^T + b1) @ w2^T + b2, axis 1)."""
import jax
import jax.numpy as jnp

import kforge_task as task  # noqa: F401


def workload(x, w1, b1, w2, b2):
    h = jax.nn.sigmoid(jnp.matmul(x, w1.T) + b1)
    return jax.nn.logsumexp(jnp.matmul(h, w2.T) + b2, axis=1)
