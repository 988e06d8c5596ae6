"""34k_conv2d_activation_batchnorm in JAX: conv2d (valid, NCHW) + bias, mish, batch norm over
(N, H, W) with batch statistics (biased variance), bn_weight and bn_bias."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, conv_weight, conv_bias, bn_weight, bn_bias):
    conv = jax.lax.conv_general_dilated(x, conv_weight, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
    conv = conv + conv_bias.reshape(1, task.CO, 1, 1)
    act = jnp.tanh(jax.nn.softplus(conv)) * conv
    mean = jnp.mean(act, axis=(0, 2, 3), keepdims=True)
    var = jnp.mean(jnp.square(act - mean), axis=(0, 2, 3), keepdims=True)
    normed = (act - mean) / jnp.sqrt(var + task.eps)
    return normed * bn_weight.reshape(1, task.CO, 1, 1) + bn_bias.reshape(1, task.CO, 1, 1)
