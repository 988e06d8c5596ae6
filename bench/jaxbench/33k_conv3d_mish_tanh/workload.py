"""33k_conv3d_mish_tanh in JAX: y = tanh(mish(conv3d(x, weight) + bias)) (valid, NCDHW)."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, bias):
    h = jax.lax.conv_general_dilated(x, weight, (1, 1, 1), "VALID", dimension_numbers=("NCDHW", "OIDHW", "NCDHW"))
    h = h + bias.reshape(1, task.Cout, 1, 1, 1)
    return jnp.tanh(h * jnp.tanh(jax.nn.softplus(h)))
