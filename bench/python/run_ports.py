#!/usr/bin/env python3
"""Runs the Python ports of tasks (workload.py in JAX, baseline.py in PyTorch) on given inputs.

  run_ports.py --framework jax|torch --suite bench/jaxbench WORK

WORK holds one folder per task, named by its id, as kforge's suite test writes it:
  WORK/<id>/kforge_task.py                 (kforge show ID --size S --python)
  WORK/<id>/set<k>/inputs/<name>.npy       (one folder per input set, inputs in ABI order)
For every task and every entry of the framework, the outputs go to
  WORK/<id>/<entry>/set<k>/<name>.npy
and WORK/<framework>-report.json says, per task and entry, "ok" or the error (a failing task
never stops the others). The comparison with the reference is not done here: kforge does it.

The ABI of both files: the module imports `kforge_task` (the twin of kforge_task.h: shapes and
params as constants) and defines, with the inputs as positional arguments in the task's order
and one output or a tuple of outputs in the task's order:
  workload.py:  workload(*inputs)  JAX; entry "xla" runs it under jax.jit
  baseline.py:  baseline(*inputs)  PyTorch, op by op like baseline.cpp; entry "eager"
                library(*inputs)   optional: the fused library call a user would make; "library"
"""
import argparse
import json
import pathlib
import sys
import traceback

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in bench/
from task_modules import NUMPY_DTYPES, bind_task, load_module

ENTRIES = {"jax": (("workload.py", "workload", "xla"),),
           "torch": (("baseline.py", "baseline", "eager"), ("baseline.py", "library", "library"))}




def make_runner(framework, fn):
    if framework == "jax":
        import jax
        jitted = jax.jit(fn)
        to_in = jax.numpy.asarray
        return lambda arrays: [np.asarray(o) for o in as_tuple(jitted(*[to_in(a) for a in arrays]))]
    import torch

    def run(arrays):
        with torch.no_grad():
            out = fn(*[torch.from_numpy(a) for a in arrays])
        return [o.detach().contiguous().numpy() for o in as_tuple(out)]
    return run


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def check_outputs(task, outs):
    """A wrong count, shape or dtype is the port's error, said here with names."""
    if len(outs) != len(task.OUTPUTS):
        raise ValueError(f"returned {len(outs)} outputs; the task has {len(task.OUTPUTS)}")
    for (name, dtype, shape), o in zip(task.OUTPUTS, outs):
        if tuple(o.shape) != tuple(shape):
            raise ValueError(f"output '{name}' has shape {tuple(o.shape)}; the task says {tuple(shape)}")
        if o.dtype != NUMPY_DTYPES[dtype]:
            raise ValueError(f"output '{name}' is {o.dtype}; the task says {dtype}")


def run_task(framework, suite, task_dir):
    try:
        task = bind_task(task_dir)
    except Exception as e:
        return {entry: f"{task_dir / 'kforge_task.py'}: {type(e).__name__}: {e}" for _, _, entry in ENTRIES[framework]}
    results = {}
    sets = sorted(p for p in task_dir.glob("set*") if p.is_dir())
    for file, fn_name, entry in ENTRIES[framework]:
        path = suite / task_dir.name / file
        try:
            if not path.exists():
                raise FileNotFoundError(f"{path}: no such file")
            mod = load_module(path, f"{task_dir.name}_{file[:-3]}")
            if not hasattr(mod, fn_name):
                if entry == "library":
                    continue  # optional: PyTorch has no library call for every task
                raise AttributeError(f"{path} defines no {fn_name}()")
            run = make_runner(framework, getattr(mod, fn_name))
            for s in sets:
                arrays = [np.load(s / "inputs" / f"{name}.npy") for name, _, _ in task.INPUTS]
                outs = run(arrays)
                check_outputs(task, outs)
                for (name, _, _), o in zip(task.OUTPUTS, outs):
                    dest = task_dir / entry / s.name / f"{name}.npy"
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    np.save(dest, np.ascontiguousarray(o))
            results[entry] = "ok"
        except Exception as e:
            tb = traceback.extract_tb(e.__traceback__)
            where = next((f"{f.filename}:{f.lineno}: " for f in reversed(tb) if f.filename.startswith(str(suite))), "")
            results[entry] = f"{where}{type(e).__name__}: {e}"
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--framework", choices=sorted(ENTRIES), required=True)
    ap.add_argument("--suite", required=True, type=pathlib.Path)
    ap.add_argument("work", type=pathlib.Path)
    a = ap.parse_args()
    suite = a.suite.resolve()
    report = {}
    for task_dir in sorted(p for p in a.work.iterdir() if (p / "kforge_task.py").exists()):
        report[task_dir.name] = run_task(a.framework, suite, task_dir)
    (a.work / f"{a.framework}-report.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
