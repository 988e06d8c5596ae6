"""19k_matmul_subtract_multiply_relu as a Pallas kernel: y = relu((x @ W + b - 2) * 1.5), fused.

The GEMM of 8p_gemm's expert with the epilogue applied in VMEM on the last K step: the f32
accumulator gets the bias row, the subtraction, the scale and the ReLU before the single write of
the output tile, so the (M, N) pre-activation never goes to HBM (XLA's unfused baseline writes and
reads it once per elementwise pass it does not fuse).
Grid (M/bm, N/bn, K/bk) with K last and "arbitrary" (the accumulator carries across it), M and N
"parallel". Tiles are multiples of (8, 128) (256 x 512 output, 512-deep K; K = 8192 at every
size) or the full dimension when none divides it (ci: M = 6, N = 70). The bias is a (1, bn) block
that follows j only, fetched once per output tile. f32 dots use precision=HIGHEST (the MXU's f32
default is one bf16 pass). On a CPU backend it runs in interpret mode. TPU-first: the
accumulator lives in TPU VMEM scratch (pltpu.VMEM), which the GPU's Triton lowering does not have;
on a GPU backend the pallas target runs expert_pallas_gpu.py instead (registers, an in-kernel K
loop).
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import kforge_task as task

BM, BN, BK = 256, 512, 512


def _tile(dim: int, preferred: int, align: int) -> int:
    """The largest multiple of `align` <= preferred that divides `dim`; else the full dimension."""
    t = (min(preferred, dim) // align) * align
    while t >= align:
        if dim % t == 0:
            return t
        t -= align
    return dim


def _fused_kernel(x_ref, w_ref, b_ref, y_ref, acc_ref):
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32,
                            precision=jax.lax.Precision.HIGHEST)

    @pl.when(k == pl.num_programs(2) - 1)
    def _():
        h = acc_ref[...] + b_ref[...].astype(jnp.float32)
        y = jnp.maximum((h - task.subtract_value) * task.multiply_value, 0.0)
        y_ref[...] = y.astype(y_ref.dtype)


def kernel(x, weight, bias):
    backend = jax.default_backend()
    m, kdim = x.shape
    n = weight.shape[1]
    sublanes = 8 * (4 // x.dtype.itemsize)  # rows per (sublane x lane) tile: 8 for f32, 16 for bf16
    bm, bn, bk = _tile(m, BM, sublanes), _tile(n, BN, 128), _tile(kdim, BK, 128)
    return pl.pallas_call(
        _fused_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // bm, n // bn, kdim // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
                  pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),
                  pl.BlockSpec((1, bn), lambda i, j, k: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=(pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")) if backend == "tpu" else None),
        interpret=backend == "cpu",
    )(x, weight, bias.reshape(1, n))
