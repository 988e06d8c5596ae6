"""35k_gemm_scaling_hardtanh_gelu in JAX: y = gelu_tanh(clip((x @ weight + bias)·scaling_factor,
hardtanh_min, hardtanh_max))."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias):
    h = (jnp.matmul(x, weight) + bias) * task.scaling_factor
    return jax.nn.gelu(jnp.clip(h, task.hardtanh_min, task.hardtanh_max), approximate=True)
