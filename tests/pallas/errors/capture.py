#!/usr/bin/env python3
"""Makes the error fixtures of pallas_diagnostics_test: broken variants of one small RMSNorm
kernel, run with the project venv's JAX, and what JAX printed.

  build/pyenv/bin/python tests/pallas/errors/capture.py build/bin/kforge

For each case, <case>.py is the kernel and <case>.txt the traceback (traceback.print_exc(), as a
worker prints it). The kernel is loaded as kernel.py from a folder named after the case, and
called with 12p_rmsnorm's ci shapes under jax.jit: on the CPU in interpret mode; the tpu_* cases
(without interpret=True) are lowered for TPU with jax.export(platforms=["tpu"]), which runs the
Mosaic lowering on a machine without a TPU. Run it again after a JAX upgrade and re-read the tests.
"""
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent

BASE = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import kforge_task as task


def _rms(x_ref, scale_ref, y_ref):
    x = x_ref[...]
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    y_ref[...] = x * jax.lax.rsqrt(ms + task.eps) * scale_ref[...]


def kernel(x, scale):
    x2 = x.reshape(-1, task.D)
    rows = x2.shape[0]
    y = pl.pallas_call(
        _rms,
        out_shape=jax.ShapeDtypeStruct(x2.shape, x.dtype),
        grid=(rows // 8,),
        in_specs=[pl.BlockSpec((8, task.D), lambda i: (i, 0)),
                  pl.BlockSpec((1, task.D), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((8, task.D), lambda i: (i, 0)),
        interpret=True,
    )(x2, scale.reshape(1, task.D))
    return y.reshape(x.shape)
'''

CASES = {
    "syntax_error": [("def kernel(x, scale):", "def kernel(x, scale)")],
    "name_error": [("* scale_ref[...]", "* scal_ref[...]")],
    "block_rank": [("pl.BlockSpec((8, task.D), lambda i: (i, 0)),\n", "pl.BlockSpec((8,), lambda i: (i,)),\n")],
    "index_map_arity": [("pl.BlockSpec((1, task.D), lambda i: (0, 0))", "pl.BlockSpec((1, task.D), lambda i, j: (0, 0))")],
    "index_map_rank": [("out_specs=pl.BlockSpec((8, task.D), lambda i: (i, 0))", "out_specs=pl.BlockSpec((8, task.D), lambda i: (i,))")],
    "broadcast": [("pl.BlockSpec((1, task.D), lambda i: (0, 0))", "pl.BlockSpec((1, 128), lambda i: (0, 0))")],
    "out_dtype": [("y_ref[...] = x * jax.lax.rsqrt(ms + task.eps) * scale_ref[...]", "y_ref[...] = (x * jax.lax.rsqrt(ms + task.eps) * scale_ref[...]).astype(jnp.float16)")],
    "tpu_block_alignment": [("pl.BlockSpec((8, task.D), lambda i: (i, 0)),\n", "pl.BlockSpec((4, task.D), lambda i: (i, 0)),\n"), ("grid=(rows // 8,)", "grid=(rows // 4,)"), ("out_specs=pl.BlockSpec((8, task.D)", "out_specs=pl.BlockSpec((4, task.D)")],
    "tpu_unimplemented": [("ms = jnp.mean(x * x, axis=-1, keepdims=True)", "ms = jnp.cumsum(x * x, axis=-1)[:, -1:] / task.D")],
    "out_shape_rank": [("out_shape=jax.ShapeDtypeStruct(x2.shape, x.dtype)", "out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype)")],
    "grid_arity": [("grid=(rows // 8,)", "grid=(rows // 8, 2)")],
}

# No interpret=True: these are lowered for TPU (tpu_interpret_oob runs in the TPU interpret mode).
TPU_LOWERED = {"tpu_block_alignment", "tpu_unimplemented"}
CASES["tpu_interpret_oob"] = [("    x = x_ref[...]\n",
                               "    x = x_ref[pl.ds(4, 8), :]  # reads 4 rows past the block\n"),
                              ("        interpret=True,\n",
                               "        interpret=pltpu.InterpretParams(),\n")]
for name in TPU_LOWERED:
    CASES[name].append(("        interpret=True,\n", ""))

DRIVER = '''import importlib.util, sys, traceback
sys.path.insert(0, sys.argv[2])
import numpy as np
try:
    import jax
    spec = importlib.util.spec_from_file_location("kernel", sys.argv[1] + "/kernel.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, s = np.ones((2, 8, 256), np.float32), np.ones((256,), np.float32)
    if len(sys.argv) > 3:
        jax.export.export(jax.jit(mod.kernel), platforms=["tpu"])(
            jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(s.shape, s.dtype))
    else:
        np.asarray(jax.jit(mod.kernel)(x, s))
    print("no error")
except Exception:
    traceback.print_exc()
    sys.exit(1)
'''


def main():
    kforge = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="pallas-errors-") as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "kforge_task.py").write_text(subprocess.run(
            [kforge, "show", "12p_rmsnorm", "--size", "ci", "--python"], check=True,
            capture_output=True, text=True).stdout)
        (tmp / "driver.py").write_text(DRIVER)
        for name, subs in CASES.items():
            text = BASE
            for old, new in subs:
                assert old in text, (name, old)
                text = text.replace(old, new, 1)
            (tmp / name).mkdir()
            (tmp / name / "kernel.py").write_text(text)
            args = [sys.executable, str(tmp / "driver.py"), str(tmp / name), str(tmp)]
            r = subprocess.run(args + (["tpu"] if name in TPU_LOWERED else []),
                               capture_output=True, text=True)
            (HERE / f"{name}.py").write_text(text)
            (HERE / f"{name}.txt").write_text(r.stdout + r.stderr)
            print(name, (r.stdout + r.stderr).strip().splitlines()[-1][:120])


if __name__ == "__main__":
    main()
