"""1p_flash_attention as a Pallas kernel: causal softmax(q k^T / sqrt(D)) v, flash-style.

Grid (B, H, S/bq, S/bk). Each (b, h, i) query block sweeps the key blocks j in order (the last
grid axis, "arbitrary": sequential, carrying state), keeping the online-softmax state in VMEM
scratch: the running row maximum m, the running denominator l and the unnormalized output acc
(bq x D, f32). For each key block:
    s = q k^T / sqrt(D), masked causally;  m' = max(m, rowmax s);  p = exp(s - m')
    l = l·exp(m - m') + rowsum p;  acc = acc·exp(m - m') + p v;  m = m'
and on the last key block o = acc / l. The score matrix never leaves VMEM.

Causality: a key block entirely above the diagonal (its first key after the block's last query)
contributes nothing, so its compute is skipped with pl.when, and its index_map is clamped to the
last useful block, so Pallas sees the same block index again and issues no DMA for it: the
skipped half of the grid costs neither MXU time nor HBM bandwidth. Every query row sees key 0 in
the first block, so m is finite after it and exp(m - m') never meets inf - inf.
Written for TPU first: bq and bk are 128 (multiples of the (8, 128) tile; D = 128 is the lane
axis) or the full sequence when 128 does not divide it (the ci size, S = 77); b, h and i are
"parallel" for megacore. f32 dots use precision=HIGHEST (the MXU's f32 default is one bf16 pass).
On a CPU backend it runs in interpret mode. TPU-first: the online-softmax state lives in TPU VMEM
scratch (pltpu.VMEM), which the GPU's Triton lowering does not have; on a GPU backend the pallas
target runs expert_pallas_gpu.py instead, which carries it in registers through an in-kernel loop
over the key blocks.
"""
import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import kforge_task as task

BQ, BK = 128, 128
HIGHEST = jax.lax.Precision.HIGHEST


def _tile(dim: int, preferred: int, align: int) -> int:
    """The largest multiple of `align` <= preferred that divides `dim`; else the full dimension."""
    t = (min(preferred, dim) // align) * align
    while t >= align:
        if dim % t == 0:
            return t
        t -= align
    return dim


def _flash_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref, *, bq, bk, inv_sqrt_d):
    i, j = pl.program_id(2), pl.program_id(3)

    @pl.when(j == 0)
    def _init():
        m_ref[...] = jnp.full_like(m_ref, -jnp.inf)
        l_ref[...] = jnp.zeros_like(l_ref)
        acc_ref[...] = jnp.zeros_like(acc_ref)

    q_first, k_first = i * bq, j * bk

    @pl.when(k_first <= q_first + bq - 1)  # at least one (query, key) pair with key <= query
    def _step():
        s = jax.lax.dot_general(q_ref[...], k_ref[...], (((1,), (1,)), ((), ())),
                                preferred_element_type=jnp.float32, precision=HIGHEST)
        s = s * inv_sqrt_d
        rows = q_first + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)
        cols = k_first + jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)
        s = jnp.where(cols <= rows, s, task.mask_value)  # replaced, not added, as the workload does
        m_prev = m_ref[...]
        m_new = jnp.maximum(m_prev, jnp.max(s, axis=-1, keepdims=True))
        alpha = jnp.exp(m_prev - m_new)
        p = jnp.exp(s - m_new)
        l_ref[...] = alpha * l_ref[...] + jnp.sum(p, axis=-1, keepdims=True)
        acc_ref[...] = alpha * acc_ref[...] + jnp.dot(
            p, v_ref[...].astype(jnp.float32), preferred_element_type=jnp.float32,
            precision=HIGHEST)
        m_ref[...] = m_new

    @pl.when(j == pl.num_programs(3) - 1)
    def _finish():
        o_ref[...] = (acc_ref[...] / l_ref[...]).astype(o_ref.dtype)


def kernel(q, k, v):
    backend = jax.default_backend()
    b, h, s, d = q.shape
    sublanes = 8 * (4 // q.dtype.itemsize)  # rows per (sublane x lane) tile: 8 for f32, 16 for bf16
    bq, bk = _tile(s, BQ, sublanes), _tile(s, BK, 128)

    def kv_index(bi, hi, i, j):
        # The key block holding this query block's last row. lax.div, not //: the indices are
        # non-negative, and jnp's floor division lowers through sign(), which the Mosaic lowering
        # resolves per chip (it then cannot be lowered without a TPU attached).
        last_useful = jax.lax.div(i * bq + bq - 1, bk)
        return (bi, hi, jnp.minimum(j, last_useful), 0)

    body = functools.partial(_flash_kernel, bq=bq, bk=bk, inv_sqrt_d=1.0 / math.sqrt(d))
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid=(b, h, s // bq, s // bk),
        in_specs=[pl.BlockSpec((None, None, bq, d), lambda bi, hi, i, j: (bi, hi, i, 0)),
                  pl.BlockSpec((None, None, bk, d), kv_index),
                  pl.BlockSpec((None, None, bk, d), kv_index)],
        out_specs=pl.BlockSpec((None, None, bq, d), lambda bi, hi, i, j: (bi, hi, i, 0)),
        scratch_shapes=[pltpu.VMEM((bq, 1), jnp.float32),   # m
                        pltpu.VMEM((bq, 1), jnp.float32),   # l
                        pltpu.VMEM((bq, d), jnp.float32)],  # acc
        compiler_params=(pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "parallel", "arbitrary"))
            if backend == "tpu" else None),
        interpret=backend == "cpu",
    )(q, k, v)
