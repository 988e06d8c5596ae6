"""1p_flash_attention as a Pallas kernel for a GPU (the Triton lowering): causal
softmax(q k^T / sqrt(D)) v, flash-style.

The pallas target runs this file instead of expert_pallas.py (the TPU kernel) when its JAX backend
is a GPU. The TPU kernel cannot lower there: its online-softmax state lives in TPU VMEM scratch
across a sequential key-block grid axis, and the Triton lowering has neither ("scratch memory not
implemented in the Triton backend", as seen on an H200).

Grid (cdiv(S, bq), B, H): one program per query block of one head, every program independent (a
CUDA block each). A program holds its (bq, D) query block in registers and walks the key blocks
inside the kernel with a fori_loop, the online-softmax state (running row maximum m, denominator
l, unnormalized output acc) as loop carries:
    s = q k^T / sqrt(D), masked causally;  m' = max(m, rowmax s);  p = exp(s - m')
    l = l·exp(m - m') + rowsum p;  acc = acc·exp(m - m') + p v;  m = m'
then writes o = acc / l once. The key and value blocks are the head's whole (S, D) panels; the
loop reads bk rows of them per step, and Triton pipelines those reads (num_stages in flight).
Causality: the loop stops at the key block holding the query block's last row, so the blocks
above the diagonal cost nothing; masked scores are replaced by mask_value, as the workload does.
Key 0 is in the first block and visible to every row, so m is finite after it and exp(m - m')
never meets inf - inf.
Written for the Triton lowering:
- every loaded array has power-of-two dimensions: bq = 64, bk = 32 and D = 128 (a head dimension
  that is no power of two would need its own mask; the task keeps D = 128 at every size);
  a sequence they do not divide (the ci size, S = 77) is covered by the next block, its ragged
  rows masked on load (zeros) and on store (rows past S are never written);
- 16 warps, 3 stages: f32 products run on the FMA units (no tensor cores at IEEE precision),
  whose operand layouts are register-hungry. Compiled for sm_90 (Triton 3.9, ptxas 13) this is
  86 registers, no spills and 104 KiB of shared memory; 64 x 64 blocks at 8 warps took all 255
  registers and spilled ~1 KiB per thread, as did every 8-warp tile with bk = 64;
- precision=HIGHEST: the Triton lowering then asks for IEEE f32 products (its default for f32 is
  TF32, a 10-bit mantissa, beyond the task's 1e-4 tolerance);
- pltriton.CompilerParams names the Triton lowering explicitly: a pallas_call without compiler
  parameters may go to Mosaic GPU instead, by JAX's jax_pallas_use_mosaic_gpu flag.
On a CPU backend it runs in interpret mode (the masks are applied there as on the GPU).
"""
import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

import kforge_task as task

BQ, BK = 64, 32
NUM_WARPS, NUM_STAGES = 16, 3
MIN_DOT = 16  # Triton's smallest dot dimension
HIGHEST = jax.lax.Precision.HIGHEST


def _pow2_block(s: int, preferred: int) -> int:
    return max(MIN_DOT, min(preferred, pl.next_power_of_2(s)))


def _flash_kernel(q_ref, k_ref, v_ref, o_ref, *, s_len, bq, bk, inv_sqrt_d):
    i = pl.program_id(0)
    ragged = s_len % bq != 0 or s_len % bk != 0
    q_rows = i * bq + jax.lax.broadcasted_iota(jnp.int32, (bq, 1), 0)
    if ragged:
        q = pltriton.load(q_ref, mask=q_rows < s_len, other=0.0)
    else:
        q = q_ref[...]
    q = q.astype(jnp.float32)

    def step(j, carry):
        acc, m_prev, l_prev = carry
        ks = pl.ds(j * bk, bk)
        k_rows = j * bk + jax.lax.broadcasted_iota(jnp.int32, (bk, 1), 0)
        if ragged:
            k = pltriton.load(k_ref.at[ks, :], mask=k_rows < s_len, other=0.0)
            v = pltriton.load(v_ref.at[ks, :], mask=k_rows < s_len, other=0.0)
        else:
            k, v = k_ref[ks, :], v_ref[ks, :]
        s = jax.lax.dot_general(q, k.astype(jnp.float32), (((1,), (1,)), ((), ())),
                                preferred_element_type=jnp.float32, precision=HIGHEST)
        s = s * inv_sqrt_d
        cols = j * bk + jax.lax.broadcasted_iota(jnp.int32, (1, bk), 1)
        # Replaced, not added, as the workload does. Keys past S are past every real query row.
        s = jnp.where(cols <= q_rows, s, task.mask_value)
        m_new = jnp.maximum(m_prev, jnp.max(s, axis=1, keepdims=True))
        alpha = jnp.exp(m_prev - m_new)
        p = jnp.exp(s - m_new)
        l_new = alpha * l_prev + jnp.sum(p, axis=1, keepdims=True)
        acc = alpha * acc + jnp.dot(p, v.astype(jnp.float32), preferred_element_type=jnp.float32,
                                    precision=HIGHEST)
        return acc, m_new, l_new

    # The key blocks up to the one holding this query block's last (real) row.
    last_row = jnp.minimum(i * bq + bq, s_len) - 1
    n_blocks = jax.lax.div(last_row, bk) + 1
    d = q_ref.shape[-1]
    init = (jnp.zeros((bq, d), jnp.float32), jnp.full((bq, 1), -jnp.inf, jnp.float32),
            jnp.zeros((bq, 1), jnp.float32))
    acc, _, l = jax.lax.fori_loop(0, n_blocks, step, init)
    out = (acc / l).astype(o_ref.dtype)
    if ragged:
        pltriton.store(o_ref, out, mask=q_rows < s_len)
    else:
        o_ref[...] = out


def kernel(q, k, v):
    b, h, s, d = q.shape
    bq, bk = _pow2_block(s, BQ), _pow2_block(s, BK)
    s_pad = pl.cdiv(s, bk) * bk  # the key panels: a whole number of key blocks
    body = functools.partial(_flash_kernel, s_len=s, bq=bq, bk=bk, inv_sqrt_d=1.0 / math.sqrt(d))
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid=(pl.cdiv(s, bq), b, h),
        in_specs=[pl.BlockSpec((None, None, bq, d), lambda i, bi, hi: (bi, hi, i, 0)),
                  pl.BlockSpec((None, None, s_pad, d), lambda i, bi, hi: (bi, hi, 0, 0)),
                  pl.BlockSpec((None, None, s_pad, d), lambda i, bi, hi: (bi, hi, 0, 0))],
        out_specs=pl.BlockSpec((None, None, bq, d), lambda i, bi, hi: (bi, hi, i, 0)),
        compiler_params=pltriton.CompilerParams(num_warps=NUM_WARPS, num_stages=NUM_STAGES),
        interpret=jax.default_backend() == "cpu",
    )(q, k, v)
