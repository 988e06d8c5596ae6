#!/usr/bin/env python3
"""Cross-checks a task's C++ reference against JAXBench's own JAX workload.

  kforge eval TASK bench/jaxbench/TASK/reference.cpp --role reference --size ci --no-time --dump /tmp/d
  scripts/jax_crosscheck.py /tmp/d PATH/TO/JAXBench/benchmark/<Name>/baseline.py --config batch=2 seq_len=8 emb_dim=256

The workload module is imported from where it lies (nothing of it is copied); CONFIG entries are
overridden with --config so its shapes match the dump; `--args` reorders or selects dumped inputs
(default: the task's input order); `--static NAME=VALUE` passes extra keyword arguments. Exits 1 if
any output differs from the dumped reference output beyond the task's tolerance.
"""
import argparse
import importlib.util
import json
import pathlib
import sys

import numpy as np


def parse_value(text):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"True": True, "False": False}.get(text, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump")
    ap.add_argument("baseline_py")
    ap.add_argument("--fn", default="workload")
    ap.add_argument("--args", help="comma-separated dumped input names, in the workload's argument order")
    ap.add_argument("--config", nargs="*", default=[], help="CONFIG overrides KEY=VALUE")
    ap.add_argument("--static", nargs="*", default=[], help="keyword arguments KEY=VALUE")
    ap.add_argument("--tol-scale", type=float, default=1.0, help="multiply the task's tolerance (JAX's f32 path is not exact)")
    a = ap.parse_args()

    import jax
    jax.config.update("jax_enable_x64", False)
    import jax.numpy as jnp

    spec = importlib.util.spec_from_file_location("workload_module", a.baseline_py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for kv in a.config:
        k, v = kv.split("=", 1)
        mod.CONFIG[k] = parse_value(v)
    kwargs = {k: parse_value(v) for k, v in (kv.split("=", 1) for kv in a.static)}
    fn = getattr(mod, a.fn)

    dump = pathlib.Path(a.dump)
    manifest = json.loads((dump / "manifest.json").read_text())
    names = a.args.split(",") if a.args else [t["name"] for t in manifest["inputs"]]
    rtol, atol = manifest["rtol"] * a.tol_scale, manifest["atol"] * a.tol_scale
    failed = False
    for k in range(1, manifest["sets"] + 1):
        d = dump / f"set{k}"
        args = [jnp.asarray(np.load(d / "inputs" / f"{n}.npy")) for n in names]
        out = fn(*args, **kwargs)
        outs = out if isinstance(out, (tuple, list)) else [out]
        for t, got in zip(manifest["outputs"], outs):
            ref = np.load(d / "expected" / f"{t['name']}.npy")
            got = np.asarray(got, dtype=ref.dtype).reshape(ref.shape)
            err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
            bad = err > atol + rtol * np.abs(ref)
            print(f"set {k} output {t['name']}: max abs err {err.max():.3g}, bad {int(bad.sum())} of {ref.size}")
            failed |= bool(bad.any())
    print("MISMATCH" if failed else "OK: the C++ reference matches JAXBench's workload")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
