"""11p_megablox_gmm in JAX: the grouped matmul the task defines (rows of lhs in consecutive groups
of group_sizes[g], each times expert g's matrix), as megablox computes it: lhs in tiles of TM
rows, one work item per (tile, group) pair that share a row, each a TM x K by K x N matmul whose
rows outside the group are masked off. At most M/TM + G - 1 items, so about (M + G·TM)·K·N
multiply-adds and no intermediate larger than a tile. JAXBench's own code slices fixed windows
of M/G rows, right only for uniform sizes; jax.lax.ragged_dot takes the ragged sizes but lowers
on the CPU to a dense M x G x K intermediate (8.6 GB at the cpu size)."""
import jax
import jax.numpy as jnp

import kforge_task as task

TM = min(128, task.M)  # rows per tile: a tile's matmul is big enough for XLA's GEMM
TILES = -(-task.M // TM)
ITEMS = TILES + task.G - 1  # each group adds at most one tile it shares with the group before


def work_items(group_sizes):
    """(group, tile, valid) per item, groups in order, each over the tiles its rows touch."""
    sizes = group_sizes.astype(jnp.int32)
    ends = jnp.cumsum(sizes)
    starts = ends - sizes
    first = starts // TM
    last = jnp.maximum(ends - 1, 0) // TM
    count = jnp.where(sizes > 0, last - first + 1, 0)
    upto = jnp.cumsum(count)
    w = jnp.arange(ITEMS, dtype=jnp.int32)
    group = jnp.minimum(jnp.searchsorted(upto, w, side="right"), task.G - 1).astype(jnp.int32)
    tile = first[group] + w - (upto[group] - count[group])
    return group, jnp.clip(tile, 0, TILES - 1), w < upto[-1], starts, ends


def workload(lhs, rhs, group_sizes):
    group, tile, valid, starts, ends = work_items(group_sizes)
    padded = jnp.zeros((TILES * TM, task.K), lhs.dtype).at[:task.M].set(lhs)
    rows_in_tile = jnp.arange(TM, dtype=jnp.int32)

    def item(out, w):
        g, t, ok = w
        row0 = t * TM
        x = jax.lax.dynamic_slice(padded, (row0, 0), (TM, task.K))
        y = x @ jax.lax.dynamic_index_in_dim(rhs, g, keepdims=False)
        rows = row0 + rows_in_tile
        mine = ok & (rows >= starts[g]) & (rows < ends[g])
        here = jax.lax.dynamic_slice(out, (row0, 0), (TM, task.N))
        here = here + jnp.where(mine[:, None], y, jnp.zeros_like(y))
        return jax.lax.dynamic_update_slice(out, here, (row0, 0)), None

    out = jnp.zeros((TILES * TM, task.N), lhs.dtype)
    out, _ = jax.lax.scan(item, out, (group, tile, valid))
    return out[:task.M]
