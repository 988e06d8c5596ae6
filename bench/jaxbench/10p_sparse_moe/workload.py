"""10p_sparse_moe in JAX: a top-TOPK router (softmax over the chosen logits; lax.top_k breaks ties
toward the lower expert), every expert's SwiGLU MLP run densely on every token, and the outputs
mixed with the router weights (zero for experts not chosen)."""
import jax
import jax.numpy as jnp

import kforge_task as task


def workload(x, router_weights, expert_gate_kernels, expert_up_kernels, expert_down_kernels):
    logits = jnp.matmul(x, router_weights)
    top_logits, top_indices = jax.lax.top_k(logits, task.TOPK)
    probs = jax.nn.softmax(top_logits, axis=-1)
    weights = jnp.sum(jax.nn.one_hot(top_indices, task.NE, dtype=x.dtype) * probs[..., None], axis=2)
    gate = jax.nn.silu(jnp.einsum("bse,nem->bsnm", x, expert_gate_kernels))
    up = jnp.einsum("bse,nem->bsnm", x, expert_up_kernels)
    expert_out = jnp.einsum("bsnm,nme->bsne", gate * up, expert_down_kernels)
    return jnp.einsum("bsne,bsn->bse", expert_out, weights)
