#!/usr/bin/env python3
"""What an evaluation costs through Slurm against the same evaluation here, paired.

  SLURM_CONF=... python3 bench/slurm/overhead.py KFORGE TASK KERNEL.cpp [PAIRS] [SIZE] [BUDGET]

Runs `kforge eval` PAIRS times with --executor local and --executor slurm, interleaved and in
alternating order (local first in even pairs, slurm first in odd ones), in the working folder
(whose kforge.toml has the [executor] table), and prints each side's median wall time and the
median and spread of the per-pair differences: the overhead of submission, scheduling, the job's
start and the result's way back. Each slurm run evaluates new work (a comment in the kernel
changes), so no result is reused. The machine's load average is printed with the figures.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(kforge, task, kernel_path, executor, size, budget):
    t = time.monotonic()
    r = subprocess.run([kforge, "eval", task, kernel_path, "--size", size, "--budget", budget,
                        "--executor", executor, "--json"], capture_output=True, text=True)
    wall = time.monotonic() - t
    verdict = json.loads(r.stdout)["verdict"] if r.stdout.strip().startswith("{") else r.stderr
    return wall, verdict


def main():
    kforge, task, kernel = sys.argv[1:4]
    pairs = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    size = sys.argv[5] if len(sys.argv) > 5 else "ci"
    budget = sys.argv[6] if len(sys.argv) > 6 else "0.5"
    source = open(kernel).read()
    local, slurm, diffs = [], [], []
    with tempfile.TemporaryDirectory() as d:
        for i in range(pairs):
            path = os.path.join(d, "kernel.cpp")
            with open(path, "w") as f:
                f.write(f"// overhead run {i} {time.time()}\n" + source)
            order = ["local", "slurm"] if i % 2 == 0 else ["slurm", "local"]
            got = {}
            for ex in order:
                got[ex] = run(kforge, task, path, ex, size, budget)
            if got["local"][1] != got["slurm"][1]:
                print(f"pair {i}: verdicts differ: {got}", file=sys.stderr)
            local.append(got["local"][0])
            slurm.append(got["slurm"][0])
            diffs.append(got["slurm"][0] - got["local"][0])
            print(f"pair {i}: local {got['local'][0]:.2f} s, slurm {got['slurm'][0]:.2f} s "
                  f"({got['local'][1]})", file=sys.stderr)
    q = statistics.quantiles(diffs, n=10) if len(diffs) >= 2 else [diffs[0]] * 9
    print(json.dumps({
        "pairs": pairs, "task": task, "size": size, "budget_s": float(budget),
        "local_median_s": statistics.median(local), "slurm_median_s": statistics.median(slurm),
        "overhead_median_s": statistics.median(diffs), "overhead_p10_s": q[0],
        "overhead_p90_s": q[-1], "loadavg": os.getloadavg()}, indent=2))


if __name__ == "__main__":
    main()
