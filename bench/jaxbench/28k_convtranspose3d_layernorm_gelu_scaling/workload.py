"""28k in JAX: conv_transpose3d (stride S, padding P, as PyTorch defines it) + bias, layer norm over
the last axis (W) with ln_weight and ln_bias, gelu (tanh), times scaling_factor.

The transposed convolution is the forward one over the input dilated by S, padded by KS-1-P on
each side, with the kernel flipped in space and its in/out axes swapped."""
import jax
import jax.numpy as jnp

import kforge_task as task


def conv_transpose3d(x, w):
    k = jnp.flip(w, axis=(2, 3, 4)).transpose(1, 0, 2, 3, 4)
    pad = task.KS - 1 - task.P
    return jax.lax.conv_general_dilated(x, k, (1, 1, 1), [(pad, pad)] * 3, lhs_dilation=(task.S,) * 3,
                                        dimension_numbers=("NCDHW", "OIDHW", "NCDHW"))


def workload(x, conv_weight, conv_bias, ln_weight, ln_bias):
    h = conv_transpose3d(x, conv_weight) + conv_bias.reshape(1, task.Cout, 1, 1, 1)
    mean = jnp.mean(h, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(h - mean), axis=-1, keepdims=True)
    h = (h - mean) / jnp.sqrt(var + task.eps) * ln_weight + ln_bias
    return jax.nn.gelu(h, approximate=True) * task.scaling_factor
