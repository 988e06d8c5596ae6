"""9p_swiglu_mlp in JAX: out = (silu(x @ gate_kernel) * (x @ up_kernel)) @ down_kernel."""
import jax
import jax.numpy as jnp

import kforge_task as task  # noqa: F401


def workload(x, gate_kernel, up_kernel, down_kernel):
    return jnp.matmul(jax.nn.silu(jnp.matmul(x, gate_kernel)) * jnp.matmul(x, up_kernel), down_kernel)
