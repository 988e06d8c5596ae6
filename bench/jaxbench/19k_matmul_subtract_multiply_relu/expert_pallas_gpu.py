"""19k_matmul_subtract_multiply_relu as a Pallas kernel for a GPU (the Triton lowering):
y = relu((x @ W + b - 2) * 1.5), fused.

The pallas target runs this file instead of expert_pallas.py (the TPU kernel) when its JAX backend
is a GPU: the TPU kernel's accumulator lives in TPU VMEM scratch across a sequential K grid axis,
which the Triton lowering does not have ("scratch memory not implemented in the Triton backend").
This is 8p_gemm's GPU kernel (expert_pallas_gpu.py there explains the tiles, the in-kernel K loop,
the masks and the precision) with the epilogue applied to the accumulator in registers before the
single store of the output tile, so the (M, N) pre-activation never goes to HBM. The bias is a
(1, bn) block that follows the output tile's columns.
The tiles are 8p's: 128 x 128 outputs, 32 deep, 8 warps; the ci size (M = 6, N = 70) is covered
by one 16 x 128 tile with its ragged edge masked. K = 8192 at every size.
On a CPU backend it runs in interpret mode (the masks are applied there as on the GPU).
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

import kforge_task as task

BM, BN, BK = 128, 128, 32
NUM_WARPS, NUM_STAGES = 8, 3
MIN_DOT = 16  # Triton's smallest dot dimension


def _pow2_tile(dim: int, preferred: int) -> int:
    """The preferred power-of-two tile, or the smallest power of two >= dim when that is less
    (never below MIN_DOT)."""
    return max(MIN_DOT, min(preferred, pl.next_power_of_2(dim)))


def _fused_kernel(a_ref, b_ref, bias_ref, c_ref, *, m, n, kdim, bm, bn, bk):
    i, j = pl.program_id(0), pl.program_id(1)
    rows = i * bm + jax.lax.broadcasted_iota(jnp.int32, (bm, 1), 0)
    cols = j * bn + jax.lax.broadcasted_iota(jnp.int32, (1, bn), 1)
    ragged_m, ragged_n, ragged_k = m % bm != 0, n % bn != 0, kdim % bk != 0

    def step(k, acc):
        ks = pl.ds(k * bk, bk)
        a_mask = b_mask = None
        if ragged_m or ragged_k:
            a_mask = rows < m
            if ragged_k:
                a_mask = a_mask & (k * bk + jax.lax.broadcasted_iota(jnp.int32, (1, bk), 1) < kdim)
        if ragged_n or ragged_k:
            b_mask = cols < n
            if ragged_k:
                b_mask = b_mask & (k * bk + jax.lax.broadcasted_iota(jnp.int32, (bk, 1), 0) < kdim)
        a = (pltriton.load(a_ref.at[:, ks], mask=a_mask, other=0.0) if a_mask is not None
             else a_ref[:, ks])
        b = (pltriton.load(b_ref.at[ks, :], mask=b_mask, other=0.0) if b_mask is not None
             else b_ref[ks, :])
        return acc + jnp.dot(a, b, preferred_element_type=jnp.float32,
                             precision=jax.lax.Precision.HIGHEST)

    acc = jax.lax.fori_loop(0, pl.cdiv(kdim, bk), step, jnp.zeros((bm, bn), jnp.float32))
    bias = (pltriton.load(bias_ref, mask=cols < n, other=0.0) if ragged_n else bias_ref[...])
    h = acc + bias.astype(jnp.float32)
    out = jnp.maximum((h - task.subtract_value) * task.multiply_value, 0.0).astype(c_ref.dtype)
    if ragged_m or ragged_n:
        pltriton.store(c_ref, out, mask=(rows < m) & (cols < n))
    else:
        c_ref[...] = out


def kernel(x, weight, bias):
    m, kdim = x.shape
    n = weight.shape[1]
    bm, bn, bk = _pow2_tile(m, BM), _pow2_tile(n, BN), _pow2_tile(kdim, BK)
    kpad = pl.cdiv(kdim, bk) * bk
    body = functools.partial(_fused_kernel, m=m, n=n, kdim=kdim, bm=bm, bn=bn, bk=bk)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(pl.cdiv(m, bm), pl.cdiv(n, bn)),
        in_specs=[pl.BlockSpec((bm, kpad), lambda i, j: (i, 0)),
                  pl.BlockSpec((kpad, bn), lambda i, j: (0, j)),
                  pl.BlockSpec((1, bn), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=NUM_WARPS, num_stages=NUM_STAGES),
        interpret=jax.default_backend() == "cpu",
    )(x, weight, bias.reshape(1, n))
