#!/usr/bin/python3
"""Per-node time of openacl and ONNX Runtime side by side, for one model.

  prof_cmp.py MODEL.onnx [--build build] [--threads 1] [--reps 3] [--runs 30] [--top 40]

Runs `openacl-run --profile` and `ort_bench --profile` (bench/ortc) one after
the other, --reps times, and keeps for each node the smallest of its per-run
times over the repetitions (the host is shared: the minimum is the least
disturbed). ORT names a fused node by its last output (a Conv with its Relu:
".../Relu_output_0", "_nchwc" appended by its NCHWc transformer); such names are
mapped back to the heavy node that starts the chain (Conv, Gemm, ...), which
is how openacl names it (on a QDQ file, ORT's "_token_<n>" suffix of the
QLinear node it made is dropped), so both sides meet on one row. Rows are sorted by
how much more openacl takes (ms per run); the kernel implementation and the
output shape and layout are openacl's. Nodes only one side has (ORT's
ReorderInput/ReorderOutput, openacl's fused chains) show 0 on the other."""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prof_top  # noqa: E402

# ORT's QDQ fusion names a QLinearConv it made "<Conv's name>_token_<n>"
TOKEN = re.compile(r"_token_\d+$")
CHAIN_OPS = ("Relu", "Add", "Clip", "BatchNormalization", "Sum")


def chain_roots(model):
    """{tensor name: name of the node that starts its chain of cheap ops}"""
    m = onnx.load(model, load_external_data=False)
    prod = {o: n for n in m.graph.node for o in n.output}

    def root(name):
        n = prod.get(name)
        while n is not None and n.op_type in CHAIN_OPS and n.input and n.input[0] in prod:
            n = prod[n.input[0]]
        return n.name if n is not None else name
    return root


def per_node(path, root):
    """{node: ms per run}, {node: (op, impl, shape)} of one profile."""
    ev = prof_top.load(path)
    res = prof_top.summarise(ev, by="node")
    times = collections.Counter()
    info = {}
    for _, (_, rows) in res.items():
        for k, ms, _ in rows:
            if root:
                k = k[:-len("_nchwc")] if k.endswith("_nchwc") else k
                k = TOKEN.sub("", k)
                k = root(k)
            times[k] += ms
    if not root:
        for e in ev:
            if e.get("ph") == "X" and e.get("cat") != "run":
                a = e.get("args", {})
                info[e["name"]] = (a.get("op", "?"), a.get("impl", "?"), a.get("shape", ""))
    return times, info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    root = chain_roots(a.model)
    ours, orts, info = [], [], {}
    env = dict(os.environ, OPENACL_THREADS=a.threads)
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.reps):
            trace = os.path.join(tmp, "openacl.json")
            subprocess.run([os.path.join(a.build, "openacl-run"), "--model", a.model, "--loop", str(a.runs),
                            "--warmup_count", "3", "--pure_data_type", "random", "--profile", trace],
                           env=env, capture_output=True, check=True)
            t, info = per_node(trace, None)
            ours.append(t)
            for f in glob.glob(os.path.join(tmp, "ort_*.json")):
                os.remove(f)
            subprocess.run([os.path.join(a.build, "ort_bench"), "--model", a.model, "--threads", a.threads,
                            "--warmup", "3", "--min-runs", str(a.runs), "--profile", os.path.join(tmp, "ort")],
                           capture_output=True, check=True)
            t, _ = per_node(glob.glob(os.path.join(tmp, "ort_*.json"))[0], root)
            orts.append(t)
    keys = set().union(*ours, *orts)

    def best(runs, k):
        return min(r.get(k, 0.0) for r in runs)
    to, tr = sum(best(ours, k) for k in keys), sum(best(orts, k) for k in keys)
    print(f"{a.model}, {a.threads} thread(s), min over {a.reps} reps: openacl {to:.3f} ms, "
          f"ORT {tr:.3f} ms of kernel time per run (ORT/openacl {tr / to if to else 0:.2f})")
    print(f"{'openacl':>8} {'ORT':>8} {'diff':>7}  node (openacl op/impl, output)")
    rows = sorted(keys, key=lambda k: best(orts, k) - best(ours, k))
    for k in rows[:a.top]:
        o, r = best(ours, k), best(orts, k)
        op, impl, shape = info.get(k, ("?", "?", ""))
        print(f"{o:8.3f} {r:8.3f} {o - r:+7.3f}  {k} ({op}/{impl}, {shape})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
