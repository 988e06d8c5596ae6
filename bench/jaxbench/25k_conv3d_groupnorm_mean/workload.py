"""25k_conv3d_groupnorm_mean in JAX: conv3d (valid, NCDHW) + bias, group norm (G groups, biased
variance) with gamma and beta, then the mean over everything but the batch axis."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, weight, conv_bias, gamma, beta):
    h = jax.lax.conv_general_dilated(x, weight, (1, 1, 1), "VALID", dimension_numbers=("NCDHW", "OIDHW", "NCDHW"))
    h = h + conv_bias.reshape(1, task.Cout, 1, 1, 1)
    g = h.reshape(task.N, task.G, -1)
    mean = jnp.mean(g, axis=-1, keepdims=True)
    var = jnp.var(g, axis=-1, keepdims=True)
    h = ((g - mean) / jnp.sqrt(var + task.eps)).reshape(h.shape)
    h = h * gamma.reshape(1, task.Cout, 1, 1, 1) + beta.reshape(1, task.Cout, 1, 1, 1)
    return jnp.mean(h, axis=(1, 2, 3, 4))
