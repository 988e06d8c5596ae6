"""48k in JAX: h = x @ weight + linear_bias, batch norm with the given running statistics, plus
bias, divided by divide_value, then swish."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, linear_bias, bn_scale, bn_bias, bn_mean, bn_var, bias):
    h = jnp.matmul(x, weight) + linear_bias
    h = bn_scale * ((h - bn_mean) / jnp.sqrt(bn_var + task.bn_eps)) + bn_bias
    return jax.nn.silu((h + bias) / task.divide_value)
