"""46k in JAX: conv = conv2d(x, conv_weight) + conv_bias (valid, NCHW); t = tanh(group norm of conv
(G groups, biased variance, gn_weight, gn_bias)); y = logsumexp over channels of conv + hardswish(t)."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, conv_weight, conv_bias, gn_weight, gn_bias):
    channel = lambda p: p.reshape(1, task.CO, 1, 1)  # noqa: E731
    conv = jax.lax.conv_general_dilated(x, conv_weight, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
    conv = conv + channel(conv_bias)
    g = conv.reshape(task.NB, task.G, -1)
    mean = jnp.mean(g, axis=-1, keepdims=True)
    var = jnp.var(g, axis=-1, keepdims=True)
    normed = ((g - mean) / jnp.sqrt(var + task.eps)).reshape(conv.shape) * channel(gn_weight) + channel(gn_bias)
    t = jnp.tanh(normed)
    hard_swish = t * jnp.clip(t + 3.0, 0.0, 6.0) / 6.0
    return jax.nn.logsumexp(conv + hard_swish, axis=1, keepdims=True)
