"""22k_conv2d_instancenorm_divide in JAX: conv2d (valid, NCHW) + bias, instance norm over H and W
(biased variance) with an affine weight and bias, divided by divide_by."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, conv_bias, in_weight, in_bias):
    h = jax.lax.conv_general_dilated(x, weight, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
    h = h + conv_bias.reshape(1, task.Cout, 1, 1)
    mean = jnp.mean(h, axis=(2, 3), keepdims=True)
    var = jnp.var(h, axis=(2, 3), keepdims=True)
    h = (h - mean) / jnp.sqrt(var + task.eps)
    h = h * in_weight.reshape(1, task.Cout, 1, 1) + in_bias.reshape(1, task.Cout, 1, 1)
    return h / task.divide_by
