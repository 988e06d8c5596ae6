#!/usr/bin/env python3
"""How the wall time of a fixed search scales with Slurm nodes: a discrete-event model fed with
figures measured on a real (test) cluster.

  python3 bench/slurm/scaling_model.py --evals-per-expansion 4 --eval-s 6 --overhead-s 1.2 \
      --model-s 20 --model-calls 3 --width 32 --waves 3 --jobs 32 --poll-s 0.5 --nodes 1 2 4 8 16 32

A search is `waves` waves (beam depths, evolve generations) of `width` expansions; a wave ends
when its last expansion does (the algorithms decide between waves). An expansion alternates
`model-calls` model calls (model-s each; they run concurrently across expansions, as HTTP calls
do) with evaluations (evals-per-expansion of them, one at a time per expansion), each a job that
holds one node exclusively for eval-s plus the per-job overhead (submission, scheduling, start,
the result's way back: the paired figure from bench/slurm/overhead.py). At most `jobs`
expansions are in flight (--jobs) and at most that many jobs. The driver's own work per
evaluation (one sbatch, its share of one squeue per poll-s, one store write) is
`driver-s` serial seconds: the bound the driver sets whatever the nodes.
"""
import argparse
import heapq


def steps(a):
    """One expansion: model calls spread between its evaluations (plan and code first)."""
    out, calls = [], a.model_calls
    for i in range(a.evals_per_expansion):
        share = calls // (a.evals_per_expansion - i)
        out += [("model", a.model_s)] * share + [("eval", a.eval_s)]
        calls -= share
    return out + [("model", a.model_s)] * calls


def simulate(a, nodes):
    """Events in time order: an expansion's next step starts when its last one ends; an
    evaluation takes the driver for driver-s (serially), then the earliest free node."""
    t_wave = 0.0
    driver_free = 0.0
    for _ in range(a.waves):
        node_free = [t_wave] * nodes
        heapq.heapify(node_free)
        plan = steps(a)
        events = [(t_wave, i, 0) for i in range(min(a.jobs, a.width))]
        heapq.heapify(events)
        started, last = len(events), t_wave
        while events:
            t, i, k = heapq.heappop(events)
            if k == len(plan):  # expansion done: the next one of the wave takes its place
                last = max(last, t)
                if started < a.width:
                    heapq.heappush(events, (t, started, 0))
                    started += 1
                continue
            kind, seconds = plan[k]
            if kind == "model":
                heapq.heappush(events, (t + seconds, i, k + 1))
                continue
            driver_free = max(driver_free, t) + a.driver_s
            free = heapq.heappop(node_free)
            start = max(free, driver_free + a.overhead_s / 2)
            heapq.heappush(node_free, start + seconds)
            heapq.heappush(events, (start + seconds + a.overhead_s / 2, i, k + 1))
        t_wave = last
    return t_wave


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--evals-per-expansion", type=int, default=4)
    p.add_argument("--eval-s", type=float, default=6.0)
    p.add_argument("--overhead-s", type=float, default=1.2)
    p.add_argument("--model-s", type=float, default=20.0)
    p.add_argument("--model-calls", type=int, default=3)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--waves", type=int, default=3)
    p.add_argument("--jobs", type=int, default=32)
    p.add_argument("--driver-s", type=float, default=0.02)
    p.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    a = p.parse_args()
    base = simulate(a, a.nodes[0])
    print(f"{'nodes':>6} {'wall s':>9} {'speedup':>8}  bound")
    for n in a.nodes:
        w = simulate(a, n)
        node_bound = a.waves * -(-a.width // n) * a.evals_per_expansion * a.eval_s
        path = a.waves * -(-a.width // a.jobs) * (a.model_calls * a.model_s + a.evals_per_expansion * (a.eval_s + a.overhead_s))
        driver = a.waves * a.width * a.evals_per_expansion * a.driver_s
        bound = max((node_bound, "nodes"), (path, "model calls + one expansion's chain"), (driver, "driver"))
        print(f"{n:>6} {w:>9.1f} {base / w:>7.2f}x  {bound[1]}")


if __name__ == "__main__":
    main()
