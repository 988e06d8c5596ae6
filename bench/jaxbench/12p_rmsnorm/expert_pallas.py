"""12p_rmsnorm as a Pallas kernel: y = x * rsqrt(mean(x^2, -1) + eps) * scale.

The (B, S, D) input is viewed as rows of D (a free reshape outside the kernel). One grid step
normalizes a block of whole rows: the reduction axis D is the block's lane axis, so each row's
mean is computed in one step and no accumulator has to live across steps. Rows are independent,
so the single grid axis is "parallel" (Mosaic may split it across the two TensorCores of a
megacore chip). Written for TPU first:
- the row block is a multiple of 8 (sublanes) and D a multiple of 128 (lanes), or the full
  dimension, which BlockSpec always accepts;
- one x block is at most ~2 MiB, so x and y double-buffered (4 blocks) stay far inside the
  smallest default scoped VMEM limit (16 MiB);
- the block divides the rows exactly, so no step reads padding (whose contents differ between
  the interpret modes and hardware).
On a CPU backend it runs in interpret mode. No TPU-only feature is used, and the GPU (Triton)
lowering takes it, but its VMEM-sized blocks are slow there (an H200 ran it at 4.4x XLA's time:
64 rows of 8192 per program are 4096 floats per thread in registers); on a GPU backend the
pallas target runs expert_pallas_gpu.py instead, whose blocks are sized for registers.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import kforge_task as task

BLOCK_BYTES = 2 << 20  # one x block


def _row_block(rows: int, d: int, itemsize: int) -> int:
    """The largest power-of-two multiple of the sublane tile (8 rows of f32, 16 of bf16) dividing
    `rows` within the VMEM budget; else all rows."""
    sublanes = 8 * (4 // itemsize)
    cap = max(sublanes, BLOCK_BYTES // (itemsize * d))
    best = 0
    t = sublanes
    while t <= min(rows, cap):
        if rows % t == 0:
            best = t
        t *= 2
    return best or rows


def _rmsnorm_kernel(x_ref, scale_ref, y_ref):
    x = x_ref[...].astype(jnp.float32)
    ms = jnp.mean(x * x, axis=-1, keepdims=True)  # (rows, 1): a lane reduction per row
    y = x * jax.lax.rsqrt(ms + task.eps) * scale_ref[...].astype(jnp.float32)
    y_ref[...] = y.astype(y_ref.dtype)


def kernel(x, scale):
    backend = jax.default_backend()
    d = x.shape[-1]
    x2 = x.reshape(-1, d)
    rows = x2.shape[0]
    br = _row_block(rows, d, x.dtype.itemsize)
    y = pl.pallas_call(
        _rmsnorm_kernel,
        out_shape=jax.ShapeDtypeStruct(x2.shape, x.dtype),
        grid=(rows // br,),
        in_specs=[pl.BlockSpec((br, d), lambda i: (i, 0)),
                  pl.BlockSpec((1, d), lambda i: (0, 0))],  # scale: the same block every step
        out_specs=pl.BlockSpec((br, d), lambda i: (i, 0)),
        # TPU-only parameters: the GPU lowerings refuse a TPU CompilerParams.
        compiler_params=(pltpu.CompilerParams(dimension_semantics=("parallel",))
                         if backend == "tpu" else None),
        interpret=backend == "cpu",
    )(x2, scale.reshape(1, d))
    return y.reshape(x.shape)
