"""kforge_pallas.py: what kforge_worker.py adds for a Pallas kernel (framework "pallas").

A Pallas candidate is untrusted code in the worker's process. Before its module is imported:
  - on a CPU backend every pallas_call is forced into an interpret mode, whatever the kernel
    passes as `interpret=`: JAX reads the global pallas_tpu_interpret_mode_context_manager setting
    before the call's own argument (pallas_call.py: `config...value or interpret`). The TPU
    interpret mode (pltpu.InterpretParams: TPU memory spaces, DMAs and semaphores simulated,
    out-of-bounds reads raise, fresh buffers hold NaN, a happens-before race detector) is used
    where it runs; the plain HLO interpreter (interpret=True) where it does not, and from the
    start for a kernel whose pallas_calls carry a GPU lowering's compiler parameters (Triton's,
    Mosaic GPU's: the task's expert_pallas_gpu.py, a candidate written for a GPU).
  - a first seccomp filter closes processes, exec, sockets and ptrace (see loading_filter()).
After the import and before the first call:
  - the kernel is traced once (jax.make_jaxpr on the first check set's shapes) and refused when
    the traced program holds no pallas_call (the whole computation in plain jnp), does more
    arithmetic outside its pallas_calls than inside them (a token pallas_call beside a jnp.dot:
    operations estimated from the traced shapes, a pallas_call's body once per grid step), or
    calls back to the host (pure_callback, io_callback, jax.debug.callback), at any depth.
Every call: the inputs are cast to the evaluation's dtype (bf16 or f32) for the kernel, the
outputs cast back to f32 for kforge's buffers, and a race the interpreter found fails the call.
Nothing here decides a verdict: the parent compares and times; these checks can only refuse.
"""
import numpy as np

HOST_CALLBACKS = ("pure_callback", "io_callback", "debug_callback", "callback",
                  "host_callback_call", "outside_call", "ffi_call", "custom_call")


class Refused(Exception):
    """The kernel breaks a rule of the pallas target (reported as a refusal, not a crash)."""


def force_interpret_mode(backend):
    """Returns how pallas_call runs here: "tpu-interpret", "interpret" or "compiled (BACKEND)"."""
    if backend != "cpu":
        return f"compiled ({backend})"
    from jax._src import config
    try:
        from jax.experimental.pallas import tpu as pltpu
        pltpu.set_tpu_interpret_mode(pltpu.InterpretParams(
            detect_races=True, out_of_bounds_reads="raise", uninitialized_memory="nan"))
        return "tpu-interpret"
    except (ImportError, AttributeError, TypeError):
        # A release without TPU interpret mode: the HLO interpreter (`interpret=True`).
        config.pallas_tpu_interpret_mode_context_manager.set_global(True)
        return "interpret"


def use_plain_interpreter():
    """Falls back from TPU interpret mode (a kernel written for the GPU's Triton/Mosaic lowering
    uses primitives and compiler parameters the TPU interpreter does not model)."""
    from jax._src import config
    config.pallas_tpu_interpret_mode_context_manager.set_global(True)
    return "interpret"


def races_found():
    try:
        from jax._src.pallas.mosaic.interpret import interpret_pallas_call as ipc
    except ImportError:
        return False
    return bool(getattr(ipc, "races", None) is not None and ipc.races.races_found)


def _sub_jaxprs(value):
    """Jaxprs held in an equation's parameters (jit, cond, scan, custom_jvp, pallas_call...)."""
    from jax.extend import core as jcore
    if isinstance(value, jcore.ClosedJaxpr):
        yield value.jaxpr
    elif isinstance(value, jcore.Jaxpr):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _sub_jaxprs(v)


def primitive_names(jaxpr, seen=None):
    seen = set() if seen is None else seen
    for eqn in jaxpr.eqns:
        seen.add(eqn.primitive.name)
        for v in eqn.params.values():
            for sub in _sub_jaxprs(v):
                primitive_names(sub, seen)
    return seen


# Primitives that move or relabel data and do no arithmetic (the rest count one operation per
# output element, matrix products and convolutions two per multiply-add).
FREE = {"reshape", "broadcast_in_dim", "transpose", "convert_element_type", "slice",
        "dynamic_slice", "dynamic_update_slice", "concatenate", "squeeze", "expand_dims", "copy",
        "copy_p", "iota", "pad", "rev", "gather", "scatter", "select_n", "bitcast_convert_type",
        "get", "swap", "load", "store", "program_id", "num_programs", "multiple_of",
        "device_put", "stop_gradient", "broadcast", "split", "sharding_constraint"}


def _size(aval):
    return int(np.prod(getattr(aval, "shape", ()) or (1,), dtype=np.int64))


def _eqn_ops(eqn):
    """Arithmetic of one equation that holds no sub-program (an estimate, as a cost formula is)."""
    name = eqn.primitive.name
    if name in FREE:
        return 0
    out = sum(_size(v.aval) for v in eqn.outvars)
    if name == "dot_general":
        (lhs_contract, _), _ = eqn.params["dimension_numbers"]
        shape = eqn.invars[0].aval.shape
        return 2 * out * int(np.prod([shape[d] for d in lhs_contract], dtype=np.int64))
    if name == "conv_general_dilated":
        rhs = eqn.invars[1].aval.shape
        out_features = rhs[eqn.params["dimension_numbers"].rhs_spec[0]]
        return 2 * out * _size(eqn.invars[1].aval) // max(out_features, 1)
    if name.startswith("reduce_") or name in ("argmax", "argmin", "cumsum", "cumprod", "cummax"):
        return sum(_size(v.aval) for v in eqn.invars)
    return out


def arithmetic(jaxpr):
    """(operations outside every pallas_call, operations inside them) in a traced program: a
    pallas_call's body counts once per grid step, a scan's once per iteration, a while loop's once
    (its trip count is not known when tracing: the inside is counted low, never high)."""
    outside = inside = 0
    for eqn in jaxpr.eqns:
        subs = [sub for v in eqn.params.values() for sub in _sub_jaxprs(v)]
        if eqn.primitive.name == "pallas_call":
            grid = getattr(eqn.params.get("grid_mapping"), "grid", ()) or ()
            steps = int(np.prod([g if isinstance(g, int) else 1 for g in grid] or [1]))
            for sub in subs:
                o, i = arithmetic(sub)
                inside += steps * (o + i)
            continue
        if not subs:
            outside += _eqn_ops(eqn)
            continue
        repeat = int(eqn.params.get("length", 1)) if eqn.primitive.name == "scan" else 1
        parts = [arithmetic(sub) for sub in subs]
        if eqn.primitive.name == "cond":  # one branch runs: the costliest counts
            parts = [max(parts, key=lambda p: p[0] + p[1])] if parts else []
        outside += repeat * sum(p[0] for p in parts)
        inside += repeat * sum(p[1] for p in parts)
    return outside, inside


def gpu_lowerings(jaxpr, seen=None):
    """The GPU lowerings ("triton", "mosaic_gpu") whose compiler parameters the program's
    pallas_calls carry, at any depth: a kernel written for a GPU. The TPU interpreter runs TPU
    kernels only (it asserts that a call's parameters are Mosaic TPU's)."""
    seen = set() if seen is None else seen
    for eqn in jaxpr.eqns:
        params = eqn.params.get("compiler_params") if eqn.primitive.name == "pallas_call" else None
        module = type(params).__module__ if params is not None else ""
        for lowering in ("triton", "mosaic_gpu"):
            if f".{lowering}." in module:
                seen.add(lowering)
        for v in eqn.params.values():
            for sub in _sub_jaxprs(v):
                gpu_lowerings(sub, seen)
    return sorted(seen)


def check_program(fn, args):
    """Refuses a kernel whose traced program has no pallas_call, does most of its arithmetic
    outside Pallas, or calls back to the host. Returns the program's primitives and the GPU
    lowerings its pallas_calls ask for (gpu_lowerings)."""
    import jax
    closed = jax.make_jaxpr(fn)(*args)
    names = primitive_names(closed.jaxpr)
    callbacks = sorted(n for n in names if n in HOST_CALLBACKS)
    if callbacks:
        raise Refused(f"the kernel calls back to the host ({', '.join(callbacks)}): a Pallas "
                      "kernel computes on the device, nothing may leave the traced program")
    if "pallas_call" not in names:
        raise Refused("the traced kernel has no pallas_call: the whole computation is plain "
                      "jax.numpy/lax (XLA's own kernels), not a Pallas kernel; write it with "
                      "pl.pallas_call")
    outside, inside = arithmetic(closed.jaxpr)
    if outside > inside:
        raise Refused(f"most of the kernel's arithmetic is outside its pallas_call: about "
                      f"{outside:.3g} operations in plain jax.numpy/lax (XLA's own kernels) against "
                      f"{inside:.3g} in Pallas; the task's computation belongs in the Pallas kernel "
                      "(layout changes and small epilogues outside it are fine)")
    return sorted(names), gpu_lowerings(closed.jaxpr)


def cast_inputs(arrays, dtype):
    """The kernel's view of kforge's f32 buffers: bfloat16 when the evaluation asks for it."""
    if dtype != "bf16":
        return arrays
    import jax.numpy as jnp
    return [jnp.asarray(a, dtype=jnp.bfloat16) if a.dtype == np.float32 else a for a in arrays]


def expected_dtype(task_dtype, dtype):
    return "bfloat16" if dtype == "bf16" and task_dtype == "f32" else None
