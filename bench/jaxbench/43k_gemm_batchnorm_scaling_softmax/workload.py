"""43k_gemm_batchnorm_scaling_softmax in JAX: h = x @ weight + bias, batch norm with the given
running statistics (bn_mean, bn_var, bn_eps), bn_scale and bn_bias, times scale, softmax over rows."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias, bn_scale, bn_bias, bn_mean, bn_var, scale):
    h = jnp.matmul(x, weight) + bias
    h = bn_scale * ((h - bn_mean) / jnp.sqrt(bn_var + task.bn_eps)) + bn_bias
    return jax.nn.softmax(scale * h, axis=1)
