"""11p_megablox_gmm in JAX: the grouped matmul the task defines (rows of lhs in consecutive groups
of group_sizes[g], each times expert g's matrix), through jax.lax.ragged_dot. JAXBench's own code
slices fixed windows of M/G rows, which is only right for uniform sizes; ragged_dot takes the
ragged sizes as data at fixed shapes."""
import jax

import kforge_task as task  # noqa: F401


def workload(lhs, rhs, group_sizes):
    return jax.lax.ragged_dot(lhs, rhs, group_sizes)
