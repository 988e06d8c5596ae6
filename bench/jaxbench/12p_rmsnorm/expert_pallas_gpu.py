"""12p_rmsnorm as a Pallas kernel for a GPU (the Triton lowering):
y = x * rsqrt(mean(x^2, -1) + eps) * scale.

The pallas target runs this file instead of expert_pallas.py (the TPU kernel) when its JAX backend
is a GPU. The TPU kernel lowers there but is slow: on an H200 it took 3.87 ms at the full size
(8 x 4096 rows of 8192), 4.4x XLA. Its blocks are sized for TPU VMEM (up to 2 MiB: 64 rows of
8192 f32), and Triton holds a program's whole block in registers: 524288 floats over the default
4 warps (128 threads) is 4096 per thread, spilled to local memory, read and written again; and
the grid is only 512 programs of 128 threads, about one resident per SM, too few loads in flight
to cover HBM's latency. Compiled for sm_90 (Triton 3.9, ptxas 13) that kernel spills 82880 bytes
per thread; this one uses 79 registers and spills nothing.

Here the block is sized for registers: a program normalizes whole rows, as many as make ~4096
elements (one row of 4096 or 8192 at the cpu and full sizes; 16 rows of 256 at ci), with 8 warps,
so a thread holds 16-32 floats of x. Each row is read from HBM once and kept in registers between
the sum of squares and the scaling, y written once: the 2 x 1 GiB the full size must move, no
more. The full size is 32768 programs of 256 threads, 8 resident per SM: enough in flight to
stream at HBM speed. Rows are independent, so the reduction never crosses programs.
Written for the Triton lowering:
- the block (rows, D) has power-of-two dimensions; a D that is none is read as the next power of
  two with the tail masked (zeros, which add nothing to the sum) and never stored; the rows
  likewise (rows past the array are neither read nor written);
- pltriton.CompilerParams names the Triton lowering explicitly: a pallas_call without compiler
  parameters may go to Mosaic GPU instead, by JAX's jax_pallas_use_mosaic_gpu flag.
On a CPU backend it runs in interpret mode (the masks are applied there as on the GPU).
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

import kforge_task as task

ELEMENTS = 4096  # per program: 16-32 floats of x per thread at 8 warps
NUM_WARPS = 8


def _rmsnorm_kernel(x_ref, scale_ref, y_ref, *, rows, d, br, bd):
    i = pl.program_id(0)
    ragged_rows, ragged_d = rows % br != 0, d != bd
    row_ids = i * br + jax.lax.broadcasted_iota(jnp.int32, (br, 1), 0)
    cols = jax.lax.broadcasted_iota(jnp.int32, (1, bd), 1)
    mask = None
    if ragged_rows:
        mask = row_ids < rows
    if ragged_d:
        mask = cols < d if mask is None else mask & (cols < d)
    if mask is None:
        x, scale = x_ref[...], scale_ref[...]
    else:
        x = pltriton.load(x_ref, mask=mask, other=0.0)
        scale = pltriton.load(scale_ref, mask=cols < d, other=0.0) if ragged_d else scale_ref[...]
    x = x.astype(jnp.float32)
    # The mean over the real D: masked columns are zeros and add nothing to the sum.
    ms = jnp.sum(x * x, axis=1, keepdims=True) * (1.0 / d)
    y = (x * jax.lax.rsqrt(ms + task.eps) * scale.astype(jnp.float32)).astype(y_ref.dtype)
    if mask is None:
        y_ref[...] = y
    else:
        pltriton.store(y_ref, y, mask=mask)


def kernel(x, scale):
    d = x.shape[-1]
    x2 = x.reshape(-1, d)
    rows = x2.shape[0]
    bd = pl.next_power_of_2(d)
    br = max(1, min(ELEMENTS // bd, pl.next_power_of_2(rows)))
    body = functools.partial(_rmsnorm_kernel, rows=rows, d=d, br=br, bd=bd)
    y = pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(x2.shape, x.dtype),
        grid=(pl.cdiv(rows, br),),
        in_specs=[pl.BlockSpec((br, bd), lambda i: (i, 0)),
                  pl.BlockSpec((1, bd), lambda i: (0, 0))],  # scale: the same block every step
        out_specs=pl.BlockSpec((br, bd), lambda i: (i, 0)),
        compiler_params=pltriton.CompilerParams(num_warps=NUM_WARPS, num_stages=1),
        interpret=jax.default_backend() == "cpu",
    )(x2, scale.reshape(1, d))
    return y.reshape(x.shape)
