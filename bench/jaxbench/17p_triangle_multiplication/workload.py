"""17p_triangle_multiplication in JAX: AlphaFold's triangle multiplication (outgoing edges). The
masked pair activations are projected and gated (sigmoid) left and right, contracted over k
(result[i, j] = sum_k left[i, k] * right[j, k]), RMS-normalised over channels with center_scale,
projected out, and gated by sigmoid(pair_act @ out_gate_w) from the unmasked activations."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(pair_act, mask, left_proj_w, right_proj_w, left_gate_w, right_gate_w, center_scale, out_proj_w, out_gate_w):
    act = pair_act * mask
    left = (act @ left_proj_w) * jax.nn.sigmoid(act @ left_gate_w)
    right = (act @ right_proj_w) * jax.nn.sigmoid(act @ right_gate_w)
    result = jnp.einsum("ikc,jkc->ijc", left, right)
    result = result / jnp.sqrt(jnp.mean(result * result, axis=-1, keepdims=True) + task.eps) * center_scale
    return (result @ out_proj_w) * jax.nn.sigmoid(pair_act @ out_gate_w)
