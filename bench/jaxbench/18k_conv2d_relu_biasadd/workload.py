"""18k_conv2d_relu_biasadd in JAX: y = relu(conv2d(x, weight) + conv_bias) + bias (valid, NCHW)."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, conv_bias, bias):
    h = jax.lax.conv_general_dilated(x, weight, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
    h = h + conv_bias.reshape(1, task.Cout, 1, 1)
    return jnp.maximum(h, 0.0) + bias
