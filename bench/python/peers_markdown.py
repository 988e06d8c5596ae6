#!/usr/bin/env python3
"""Renders the JSON of `kforge bench --peers --json` as the Markdown of docs/bench-results.md.

  bench/python/peers_markdown.py RESULT.json [--load-before X --load-after Y] > docs/bench-results.md

--heading "## ..." renders a run as a section of a longer page (a later run of some tasks).

Every figure comes from the one run in RESULT.json: the machine, versions and threads it records,
each ratio with its 95% interval, busy cells marked as such and never counted as a result.
"""
import argparse
import json
import sys


def machine_lines(run, load_before, load_after):
    m = run["machine"]
    peaks = m.get("peaks", {})
    coretype = m.get("openblas_coretype_env") or "unset"
    lines = [
        f"- Machine: {m['cpu_model']} ({m.get('microarch', '?')}), {m['usable_cpus']} CPUs usable, "
        f"ISA {', '.join(m['isa'])}.",
        f"- Measured peaks (`kforge hw`): f32 FMA {peaks.get('fma_gflops_1', '?')} GFLOP/s on 1 CPU, "
        f"{peaks.get('fma_gflops_all', '?')} on all; triad {peaks.get('triad_gbps_1', '?')} GB/s on 1, "
        f"{peaks.get('triad_gbps_all', '?')} on all.",
        f"- BLAS: {m.get('openblas_config', '?')}; `OPENBLAS_CORETYPE` {coretype}.",
        "- Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(run["versions"].items())) + ".",
        f"- Threads: {run['threads']} for the expert and for every peer. Size `{run['size']}`.",
        f"- Run time {run['seconds'] / 60:.0f} min.",
    ]
    if load_before is not None:
        lines.append(f"- Load average (1 min) before the run {load_before}, after it {load_after}.")
    return lines


def cell(result):
    if str(result.get("status", "")).startswith("skipped"):
        return "–"
    if result.get("status") != "evaluated" or result.get("verdict") != "correct":
        what = "peer error" if result.get("peer_failed") else result.get("verdict") or result.get("status", "?")
        return what
    lo, hi = result["speedup_ci95"]
    text = f"{result['speedup']:.2f}x ({lo:.2f}–{hi:.2f})"
    return text + " busy" if result.get("busy") else text


def candidate_ms(task, peers):
    for p in peers:
        r = task["peers"].get(p, {})
        if r.get("verdict") == "correct" and not r.get("busy"):
            return f"{r['candidate_ms']:.3g}"
    return "–"


def table_lines(run):
    peers = run["peers"]
    lines = [
        "| task | expert ms | " + " | ".join(peers) + " | fastest peer | vs fastest |",
        "|---|---|" + "---|" * len(peers) + "---|---|",
    ]
    for t in run["tasks"]:
        cells = [cell(t["peers"].get(p, {})) for p in peers]
        over = t.get("speedup_over_fastest")
        lines.append(f"| {t['task']} | {candidate_ms(t, peers)} | " + " | ".join(cells) +
                     f" | {t.get('fastest_peer') or '–'} | {f'{over:.2f}x' if over else '–'} |")
    return lines


def summary_lines(run):
    s = run["summary"]
    pct = lambda x: f"{100 * x:.0f}%"
    return [
        f"- Tasks: {s['tasks']}; with a fastest peer measured: {s['with_fastest_peer']}; "
        f"peer errors: {s['peer_errors']}; busy cells: {s['busy_cells']}.",
        f"- fast_1 against eager libtorch {pct(s['fast_1_vs_eager'])}, against the fastest peer "
        f"{pct(s['fast_1_vs_fastest_peer'])}; fast_1.5 {pct(s['fast_1.5_vs_eager'])} and "
        f"{pct(s['fast_1.5_vs_fastest_peer'])}.",
        f"- Geometric mean of the speedup over the fastest peer: {s['geomean_over_fastest_peer']:.2f}x.",
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("result")
    ap.add_argument("--load-before")
    ap.add_argument("--load-after")
    ap.add_argument("--date", default="")
    ap.add_argument("--heading", default="# The experts against the peers a user would pick instead")
    args = ap.parse_args()
    run = json.load(open(args.result))
    if run.get("schema") != "kforge.bench_peers/1":
        sys.exit(f"{args.result}: not the JSON of `kforge bench --peers --json`")
    out = [
        args.heading,
        "",
        f"Measured {args.date} with `kforge bench --peers --impl {run['impl']} --size {run['size']} "
        + (f"--tasks {','.join(t['task'] for t in run['tasks'])} " if args.heading.startswith("##") else "")
        + "--json`, rendered by `bench/python/peers_markdown.py`. Each cell is the expert's speedup over "
        "that peer (peer time / expert time, median of paired, interleaved runs in one process pair, "
        "with its 95% interval); above 1 the expert is faster.",
        "",
        *machine_lines(run, args.load_before, args.load_after),
        "",
        *table_lines(run),
        "",
        *summary_lines(run),
    ]
    print("\n".join(out))


if __name__ == "__main__":
    main()
