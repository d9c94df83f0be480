#!/usr/bin/python3
"""BERT-4 dynamic int8, side by side: openacl on the dynamic file (ORT's
dynamic int8 form, tests/qmm/make_dyn.py, or --dyn FILE such as
openacl-quant --dynamic's output), ONNX Runtime float32 on the float model,
and ONNX Runtime on the same dynamic file; openacl float32 too, for scale.
Each measurement a fresh process (mdl_bench / ort_bench), the four taken in
turn, order rotated per round. Per thread count: the median of the per-round
medians, the median over rounds of each round's ratio to ORT float32 (taken
minutes apart, a shared machine's slow stretches meet the runs of one round
alike) and the ratio of the fastest runs (min latency).
With --qdq FILE (a static QDQ model of the same encoder, e.g. openacl-quant's)
openacl and ORT on that file join the rotation.
Usage: bench/qmm_bert.py --build build [--threads 1,2] [--rounds 3] [--min-time 1.5]
       [--models models] [--dyn FILE] [--qdq FILE]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "qmm"))


def run_json(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    try:
        return json.loads(p.stdout[p.stdout.index("{"):])
    except ValueError:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()[-400:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--models", default=os.path.join(REPO, "models"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=1.5)
    ap.add_argument("--dyn", default="")
    ap.add_argument("--qdq", default="")
    a = ap.parse_args()
    f32 = os.path.join(a.models, "bert4.onnx")
    ins = ",".join(os.path.join(a.models, "data", "bert4", f"input_{i}.npy") for i in range(2))
    tmp = tempfile.mkdtemp()
    dyn = a.dyn
    if not dyn:
        import onnx
        import make_dyn
        dyn = os.path.join(tmp, "bert4_dyn.onnx")
        onnx.save(make_dyn.convert(onnx.load(f32)), dyn)
    mdl, ort = os.path.join(a.build, "mdl_bench"), os.path.join(a.build, "ort_bench")
    rows = []
    for t in [int(x) for x in a.threads.split(",")]:
        runs = {
            "openacl int8 (dynamic file)": lambda: run_json(
                [mdl, "--model", dyn, "--inputs", ins, "--min-time", str(a.min_time)],
                dict(os.environ, OPENACL_THREADS=str(t))),
            "openacl fp32": lambda: run_json(
                [mdl, "--model", f32, "--inputs", ins, "--min-time", str(a.min_time)],
                dict(os.environ, OPENACL_THREADS=str(t))),
            "ORT fp32": lambda: run_json(
                [ort, "--model", f32, "--inputs", ins, "--threads", str(t), "--min-time", str(a.min_time)]),
            "ORT int8 (dynamic file)": lambda: run_json(
                [ort, "--model", dyn, "--inputs", ins, "--threads", str(t), "--min-time", str(a.min_time)]),
        }
        if a.qdq:
            runs["openacl int8 (QDQ file)"] = lambda: run_json(
                [mdl, "--model", a.qdq, "--inputs", ins, "--min-time", str(a.min_time)],
                dict(os.environ, OPENACL_THREADS=str(t)))
            runs["ORT int8 (QDQ file)"] = lambda: run_json(
                [ort, "--model", a.qdq, "--inputs", ins, "--threads", str(t), "--min-time", str(a.min_time)])
        names = list(runs)
        res = {k: [] for k in names}
        mins = {k: [] for k in names}
        for r in range(a.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for k in order:
                lat = runs[k]()["latency_ms"]
                res[k].append(lat["median"])
                mins[k].append(lat["min"])
        med = {k: statistics.median(v) for k, v in res.items()}
        for k in names:
            per_round = statistics.median(f / x for f, x in zip(res["ORT fp32"], res[k]))
            per_round_d = statistics.median(f / x for f, x in zip(res["ORT int8 (dynamic file)"], res[k]))
            rmin = min(mins["ORT fp32"]) / min(mins[k])
            rows.append((t, k, med[k], min(mins[k]), per_round, per_round_d, rmin))
    print(f"{'threads':>7}  {'runtime':<28} {'median ms':>9} {'min ms':>7}  {'x ORT fp32':>10}  "
          f"{'x ORT dyn int8':>14}  {'x ORT fp32 (min)':>16}")
    for t, k, ms, mn, r1, r2, r3 in rows:
        print(f"{t:>7}  {k:<28} {ms:9.3f} {mn:7.3f}  {r1:10.2f}  {r2:14.2f}  {r3:16.2f}")


if __name__ == "__main__":
    main()
