#!/usr/bin/env python3
"""Checks every Pallas expert (bench/<suite>/<id>/expert_pallas.py) on the judge's secret inputs.

  check_experts.py --kforge build/bin/kforge [--suite bench/jaxbench] [--size ci] [--tasks a,b]
  check_experts.py --kforge build/bin/kforge --prove-breakage

For each task that has an expert_pallas.py, kforge itself makes what the judge would use: the
generated kforge_task.py (`kforge show ID --python`) and the check sets with their reference
outputs (`kforge eval ID reference.cpp --role reference --no-time --dump DIR`: the same generator,
per-task secret seeds and C++ reference an evaluation uses). Then, in this process, the expert's
`kernel(*inputs)` runs under jax.jit
  - "interpret":      as written (on a CPU backend the experts pass interpret=True), and
  - "tpu-interpret":  under Pallas's TPU interpret mode, which models TPU memory spaces and DMAs,
                      raises on out-of-bounds reads and here also detects data races between two
                      simulated cores (on the first set only: it is ~10x slower),
and each output must agree with the C++ reference within the task's tolerance (the judge's own
check) and with workload.py under jax.jit (XLA) within twice it (both approximate the same
reference). Its traced jaxpr must contain a pallas_call: an "expert" in plain jnp is refused.
  - "tpu-lowering":   jax.export(..., platforms=["tpu"]) runs the Pallas -> Mosaic TPU lowering
                      on this CPU machine, with jax.default_backend() answering "tpu" so the
                      expert takes its TPU path (CompilerParams, dimension semantics): a block
                      shape that breaks the (8, 128) rule or an op Mosaic cannot lower fails here.
                      (The GPU lowerings need a GPU jaxlib, absent here.)
Any problem is one line naming the task, the mode, the set and what is wrong; exit status 1.

--prove-breakage copies two tasks into a scratch suite with broken experts (a numerically wrong
RMSNorm, a GEMM in plain jnp) and exits 0 only if this check reports both: a check that cannot
fail proves nothing.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in bench/

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "python"))
from task_modules import NUMPY_DTYPES, bind_task, load_module  # noqa: E402


def run_kforge(kforge, args, env):
    r = subprocess.run([str(kforge), *args], capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"kforge {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout


def prepare(kforge, task_dir, size, work, env):
    """kforge_task.py and the dumped check sets (inputs and reference outputs) for one task."""
    out = work / task_dir.name
    out.mkdir(parents=True, exist_ok=True)
    (out / "kforge_task.py").write_text(
        run_kforge(kforge, ["show", str(task_dir), "--size", size, "--python"], env))
    verdict = json.loads(run_kforge(kforge, [
        "eval", str(task_dir), str(task_dir / "reference.cpp"), "--role", "reference",
        "--no-time", "--size", size, "--dump", str(out / "dump"), "--json"], env))
    if verdict.get("verdict") != "correct":
        raise RuntimeError(f"{task_dir.name}: the reference's own check failed: {verdict}")
    return out




def as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def outside(got, want, rtol, atol):
    """(count, worst index, got, want) of the elements outside |got - want| <= atol + rtol·|want|."""
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    err = np.abs(got64 - want64)
    bad = ~(err <= atol + rtol * np.abs(want64))  # NaN counts as outside
    if not bad.any():
        return 0, None, 0.0, 0.0
    worst = np.unravel_index(np.argmax(np.where(bad, np.nan_to_num(err, nan=np.inf), -1)), got.shape)
    return int(bad.sum()), worst, float(got64[worst]), float(want64[worst])


class ExpertCheck:
    def __init__(self):
        import jax
        from jax.experimental.pallas import tpu as pltpu
        self.jax, self.pltpu = jax, pltpu
        self.problems, self.rows = [], []

    def modes(self, kernel):
        jax, pltpu = self.jax, self.pltpu

        def tpu_interpret(*args):
            pltpu.reset_tpu_interpret_mode_state()
            params = pltpu.InterpretParams(detect_races=True, num_cores_or_threads=2)
            with pltpu.force_tpu_interpret_mode(params):
                out = jax.jit(lambda *a: kernel(*a))(*args)  # traced under the mode
                out = jax.block_until_ready(out)
            from jax._src.pallas.mosaic.interpret import interpret_pallas_call as ipc
            if ipc.races is not None and ipc.races.races_found:
                raise RuntimeError("TPU interpret mode detected a data race")
            return out

        return {"interpret": jax.jit(kernel), "tpu-interpret": tpu_interpret}

    def check_task(self, suite, work_dir):
        tid = work_dir.name
        task = bind_task(work_dir)
        manifest = json.loads((work_dir / "dump" / "manifest.json").read_text())
        rtol, atol = manifest["rtol"], manifest["atol"]
        expert = load_module(suite / tid / "expert_pallas.py", f"{tid}_expert_pallas")
        workload = self.jax.jit(load_module(suite / tid / "workload.py", f"{tid}_workload").workload)
        sets = sorted((work_dir / "dump").glob("set*"))
        first = [np.load(sets[0] / "inputs" / f"{name}.npy") for name, _, _ in task.INPUTS]
        if "pallas_call" not in str(self.jax.make_jaxpr(expert.kernel)(*first)):
            self.problems.append(f"{tid}: the expert's jaxpr has no pallas_call (plain jnp)")
        self.check_tpu_lowering(tid, expert.kernel, first)
        for mode, run in self.modes(expert.kernel).items():
            started, worst_err = time.monotonic(), 0.0
            # The TPU interpret mode is for memory: races and out-of-bounds accesses (one set shows
            # them; it is ~10x slower). Numbers are checked on every set in plain interpret mode.
            for s in sets if mode == "interpret" else sets[:1]:
                where = f"{tid} {mode}: {s.name}"
                inputs = [np.load(s / "inputs" / f"{name}.npy") for name, _, _ in task.INPUTS]
                try:
                    got = [np.asarray(o) for o in as_list(run(*inputs))]
                except Exception as e:  # the expert's failure is this task's problem, not the end
                    self.problems.append(f"{where}: {type(e).__name__}: {str(e)[:600]}")
                    break
                xla = [np.asarray(o) for o in as_list(workload(*inputs))]
                worst_err = max(worst_err, self.compare(where, task, s, got, xla, rtol, atol))
            self.rows.append((tid, mode, len(sets) if mode == "interpret" else 1, worst_err, time.monotonic() - started))

    def check_tpu_lowering(self, tid, kernel, inputs):
        jax = self.jax
        started, real_backend = time.monotonic(), jax.default_backend
        jax.default_backend = lambda: "tpu"  # the expert's own switch, read at trace time
        try:
            args = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in inputs]
            # A fresh function: jit's trace cache is keyed on the function, and the kernel was
            # already traced for the CPU (interpret=True) by make_jaxpr.
            module = jax.export.export(jax.jit(lambda *a: kernel(*a)),
                                       platforms=["tpu"])(*args).mlir_module()
            if "tpu_custom_call" not in module:
                self.problems.append(f"{tid} tpu-lowering: no Mosaic kernel in the lowered module")
        except Exception as e:
            self.problems.append(f"{tid} tpu-lowering: {type(e).__name__}: {str(e)[:600]}")
        finally:
            jax.default_backend = real_backend
        self.rows.append((tid, "tpu-lowering", 0, float("nan"), time.monotonic() - started))

    def compare(self, where, task, set_dir, got, xla, rtol, atol):
        if len(got) != len(task.OUTPUTS):
            self.problems.append(f"{where}: {len(got)} outputs; the task has {len(task.OUTPUTS)}")
            return float("inf")
        worst_err = 0.0
        for (name, dtype, shape), g, x in zip(task.OUTPUTS, got, xla):
            if tuple(g.shape) != tuple(shape) or g.dtype != NUMPY_DTYPES[dtype]:
                self.problems.append(f"{where} output '{name}': {g.dtype} {tuple(g.shape)}; "
                                     f"the task says {dtype} {tuple(shape)}")
                continue
            ref = np.load(set_dir / "expected" / f"{name}.npy")
            worst_err = max(worst_err, float(np.nanmax(np.abs(g.astype(np.float64) - ref))))
            for against, want, scale in (("the reference", ref, 1), ("workload.py", x, 2)):
                n, at, gv, wv = outside(g, want, scale * rtol, scale * atol)
                if n:
                    self.problems.append(
                        f"{where} output '{name}': {n} of {g.size} elements differ from {against} "
                        f"beyond {scale * atol:g} + {scale * rtol:g}·|want|; worst at "
                        f"{tuple(int(i) for i in at)}: {gv:.7g} vs {wv:.7g}")
        return worst_err


def check_suite(kforge, suite, size, only, env):
    dirs = sorted(p.parent for p in suite.glob("*/expert_pallas.py"))
    if only:
        dirs = [d for d in dirs if d.name in only.split(",")]
    if not dirs:
        return ExpertCheck(), [f"no expert_pallas.py selected under {suite}"]
    check = ExpertCheck()
    with tempfile.TemporaryDirectory(prefix="kforge-pallas-experts-") as tmp:
        env = dict(env, KFORGE_DIR=str(pathlib.Path(tmp) / "state"))
        for d in dirs:
            try:
                work_dir = prepare(kforge, d, size, pathlib.Path(tmp) / "work", env)
                check.check_task(suite, work_dir)
            except Exception as e:
                check.problems.append(f"{d.name}: {type(e).__name__}: {e}")
    return check, check.problems


def print_table(rows):
    print(f"{'task':36} {'mode':14} {'sets':>4} {'max |err|':>10} {'seconds':>8}")
    for tid, mode, n, err, secs in rows:
        print(f"{tid:36} {mode:14} {n or '-':>4} {'-' if err != err else f'{err:.3g}':>10} "
              f"{secs:>8.1f}")


def prove_breakage(kforge, env):
    """A scratch suite with two broken experts; both must be reported."""
    src = ROOT / "bench" / "jaxbench"
    with tempfile.TemporaryDirectory(prefix="kforge-pallas-broken-") as tmp:
        suite = pathlib.Path(tmp)
        for tid in ("12p_rmsnorm", "8p_gemm", "19k_matmul_subtract_multiply_relu"):
            shutil.copytree(src / tid, suite / tid,
                            ignore=shutil.ignore_patterns("*.cu", "expert.cpp", "__pycache__"))
        rms = suite / "12p_rmsnorm" / "expert_pallas.py"
        text = rms.read_text()
        assert "jnp.mean(x * x," in text
        rms.write_text(text.replace("jnp.mean(x * x,", "jnp.mean(x * x * 1.001,"))  # 0.05% off
        (suite / "8p_gemm" / "expert_pallas.py").write_text(
            "import jax.numpy as jnp\n\ndef kernel(a, b):\n    return jnp.matmul(a, b)\n")
        fused = suite / "19k_matmul_subtract_multiply_relu" / "expert_pallas.py"
        text = fused.read_text()
        assert "_tile(n, BN, 128)" in text
        fused.write_text(text.replace("_tile(n, BN, 128)", "_tile(n, 10, 2)"))  # right, not TPU-sized
        check, problems = check_suite(kforge, suite, "ci", "", env)
    print_table(check.rows)
    expected = ["12p_rmsnorm interpret: set1 output 'y'", "12p_rmsnorm tpu-interpret: set1 output 'y'",
                "differ from the reference", "8p_gemm: the expert's jaxpr has no pallas_call",
                "19k_matmul_subtract_multiply_relu tpu-lowering: ValueError: The Pallas TPU lowering "
                "currently requires that the last two dimensions of your block shape are divisible "
                "by 8 and 128"]
    # The 19k copy is numerically right: only its lowering may be reported.
    expected_clean = ["19k_matmul_subtract_multiply_relu interpret"]
    missing = [e for e in expected if not any(e in p for p in problems)]
    for p in problems:
        print("reported:", p)
    for m in missing:
        print("NOT REPORTED:", m)
    wrong = [p for p in problems if any(p.startswith(c) for c in expected_clean)]
    for w in wrong:
        print("WRONGLY REPORTED:", w)
    return 1 if missing or wrong else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kforge", required=True, type=pathlib.Path)
    ap.add_argument("--suite", type=pathlib.Path, default=ROOT / "bench" / "jaxbench")
    ap.add_argument("--size", default="ci")
    ap.add_argument("--tasks", default="", help="a,b: only these tasks")
    ap.add_argument("--prove-breakage", action="store_true")
    a = ap.parse_args()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONDONTWRITEBYTECODE="1")
    if a.prove_breakage:
        return prove_breakage(a.kforge.resolve(), env)
    check, problems = check_suite(a.kforge.resolve(), a.suite.resolve(), a.size, a.tasks, env)
    print_table(check.rows)
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
