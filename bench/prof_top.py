#!/usr/bin/python3
"""Top ops of an openacl profile (OPENACL_PROFILE=<file> Chrome trace), or
of ONNX Runtime's own profile (bench/ortc/ort_bench --profile PREFIX), to
set the two side by side.

  prof_top.py TRACE.json [--top 10] [--by op|node] [--skip-runs N] [--md]

Kernel time per model run, grouped by op type and implementation (or by
node), with its share of the summed kernel time. The first --skip-runs runs
of each model (warm-up, default 1) are left out; a "run" event delimits
runs (ORT: "model_run"). --md prints a Markdown table. ORT names a node by
its fused output; its op type is the first node's (a Conv with its
activation reads "Conv (ort)")."""
import argparse
import collections
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    if isinstance(d, dict):
        return d["traceEvents"]
    # ORT: a list of events; runs are Session "model_run", kernels Node
    # "<name>_kernel_time" (their "fence" and "thread" events are dropped)
    ev = []
    for e in d:
        if e.get("ph") != "X":
            continue
        if e.get("cat") == "Session" and e.get("name") == "model_run":
            ev.append({"ph": "X", "cat": "run", "name": "run", "ts": e["ts"], "dur": e["dur"], "args": {}})
        elif e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time"):
            a = e.get("args", {})
            ev.append({"ph": "X", "cat": a.get("op_name", "?"), "name": e["name"][:-len("_kernel_time")],
                       "ts": e["ts"], "dur": e["dur"], "args": {"op": a.get("op_name", "?"), "impl": "ort"}})
    return ev


def summarise(events, by="op", skip_runs=1):
    """Returns {model: (runs, [(key, ms_per_run, share), ...])}."""
    per_model = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            per_model[e["args"].get("model", 0)].append(e)
    out = {}
    for model, evs in per_model.items():
        evs.sort(key=lambda e: e["ts"])
        runs = [e for e in evs if e["cat"] == "run"]
        # kernel events inside the runs kept (after the skipped warm-ups)
        kept = runs[skip_runs:] if len(runs) > skip_runs else runs
        if kept:
            start = kept[0]["ts"]
            nodes = [e for e in evs if e["cat"] != "run" and e["ts"] >= start]
            nrun = len(kept)
        else:
            nodes = [e for e in evs if e["cat"] != "run"]
            nrun = 1
        acc = collections.Counter()
        for e in nodes:
            a = e["args"]
            key = e["name"] if by == "node" else f'{a.get("op", e["cat"])} ({a.get("impl", "?")})'
            acc[key] += e["dur"]
        total = sum(acc.values()) or 1.0
        rows = [(k, v / 1e3 / nrun, v / total) for k, v in acc.most_common()]
        out[model] = (nrun, rows)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--by", choices=["op", "node"], default="op")
    ap.add_argument("--skip-runs", type=int, default=1)
    ap.add_argument("--md", action="store_true")
    a = ap.parse_args()
    res = summarise(load(a.trace), a.by, a.skip_runs)
    for model, (nrun, rows) in sorted(res.items()):
        total = sum(r[1] for r in rows)
        if a.md:
            print(f"| {'op (impl)' if a.by == 'op' else 'node'} | ms/run | share |")
            print("|---|---|---|")
            for k, ms, sh in rows[:a.top]:
                print(f"| {k} | {ms:.3f} | {100 * sh:.1f} % |")
            print(f"| all kernels | {total:.3f} | 100 % |\n")
        else:
            print(f"model {model}: {nrun} runs, kernel time {total:.3f} ms/run")
            for k, ms, sh in rows[:a.top]:
                print(f"  {ms:9.3f} ms  {100 * sh:5.1f} %  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
