"""3p_mla_attention in JAX: multi-head latent attention. Low-rank query (x @ q_down @ q_up) and
key/value (x @ kv_down, then k_up and v_up from the latent) projections; RoPE (halves rotated,
angles pos·rope_theta^(-2i/ROPE)) on the query's last ROPE dims and on a key slice shared by all
heads; causal softmax over scores scaled by 1/sqrt(NOPE+ROPE), masked with mask_value; o_proj."""
import jax
import jax.numpy as jnp

import kforge_task as task


def rope(x, cos, sin):
    x1, x2 = jnp.split(x, 2, axis=-1)
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return jnp.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)


def workload(x, q_down, q_up, kv_down, k_up, v_up, o_proj):
    B, S, H, NOPE, ROPE, VD = task.B, task.S, task.H, task.NOPE, task.ROPE, task.VD
    q = (x @ q_down @ q_up).reshape(B, S, H, NOPE + ROPE)
    kv = x @ kv_down
    k_latent, k_rope = kv[..., :task.KVL], kv[..., task.KVL:]
    k_nope = (k_latent @ k_up).reshape(B, S, H, NOPE)
    v = (k_latent @ v_up).reshape(B, S, H, VD)
    freqs = 1.0 / jnp.power(float(task.rope_theta), jnp.arange(0, ROPE, 2, dtype=jnp.float32) / ROPE)
    angles = jnp.outer(jnp.arange(S, dtype=jnp.float32), freqs)
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    q = jnp.concatenate([q[..., :NOPE], rope(q[..., NOPE:], cos, sin)], axis=-1)
    k_rope = rope(jnp.broadcast_to(k_rope[:, :, None, :], (B, S, H, ROPE)), cos, sin)
    k = jnp.concatenate([k_nope, k_rope], axis=-1)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(jnp.float32(NOPE + ROPE))
    causal = jnp.tril(jnp.ones((S, S), dtype=bool))
    scores = jnp.where(causal, scores, task.mask_value)
    o = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), v).reshape(B, S, H * VD)
    return o @ o_proj
