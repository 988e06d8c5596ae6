"""31k_gemm_batchnorm_gelu_relu in JAX: h = x @ gemm_weight^T + gemm_bias, batch norm over the rows
(batch statistics, biased variance) with bn_weight and bn_bias, gelu (tanh), relu."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, gemm_weight, gemm_bias, bn_weight, bn_bias):
    h = jnp.matmul(x, gemm_weight.T) + gemm_bias
    mean = jnp.mean(h, axis=0, keepdims=True)
    var = jnp.mean(jnp.square(h - mean), axis=0, keepdims=True)
    h = (h - mean) / jnp.sqrt(var + task.eps) * bn_weight + bn_bias
    return jnp.maximum(jax.nn.gelu(h, approximate=True), 0.0)
