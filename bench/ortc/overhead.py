#!/usr/bin/python3
"""Per-call cost on tiny models, both runtimes driven from C at 1 thread:
openacl's aclmdlExecute (bench/mdl_bench) against ONNX Runtime's Run
(bench/ortc/ort_bench, and RunWithBinding with --iobinding), alternating in
fresh processes for --rounds rounds. Models: an Identity on a [1,64] float
tensor (generated into <models>/ortc/, git-ignored) -- nothing but the call
itself -- and the tiny MLP of scripts/models.sh (64-128-64-10) when built.

Prints microseconds per call (median of round medians, smallest minimum)
and, with --out, writes them as JSON.
  overhead.py --build BUILD [--rounds 5] [--min-time 1] [--models DIR] [--out FILE]"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def identity_model(d):
    from onnx import TensorProto, helper, save_model
    path = os.path.join(d, "identity_64.onnx")
    x = os.path.join(d, "identity_64_x.npy")
    if not os.path.exists(path):
        g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "identity",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 7
        save_model(m, path)
    if not os.path.exists(x):
        np.save(x, np.random.default_rng(0).uniform(-1, 1, (1, 64)).astype(np.float32))
    return path, [x]


def run_json(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        sys.exit(f"overhead: {' '.join(cmd[:3])}...: {p.stderr.strip()[-500:]}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="build folder with mdl_bench and ort_bench")
    ap.add_argument("--models", default=os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models")))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    mdl_bench, ort_bench = os.path.join(a.build, "mdl_bench"), os.path.join(a.build, "ort_bench")
    d = os.path.join(a.models, "ortc")
    os.makedirs(d, exist_ok=True)
    models = [("identity", *identity_model(d))]
    mlp = os.path.join(a.models, "mlp.onnx")
    mlp_in = os.path.join(a.models, "data", "mlp", "input_0.npy")
    if os.path.exists(mlp) and os.path.exists(mlp_in):
        models.append(("mlp", mlp, [mlp_in]))
    else:
        print("note: no tiny MLP (run scripts/models.sh --only mlp)")
    runners = [
        ("openacl aclmdlExecute", lambda m, i: [mdl_bench, "--model", m, "--inputs", ",".join(i)],
         dict(os.environ, OPENACL_THREADS="1")),
        ("ORT Run", lambda m, i: [ort_bench, "--model", m, "--inputs", ",".join(i), "--threads", "1"], None),
        ("ORT RunWithBinding", lambda m, i: [ort_bench, "--model", m, "--inputs", ",".join(i), "--threads", "1",
                                             "--iobinding"], None),
    ]
    load0 = os.getloadavg()[0]
    out = {"what": "microseconds per call, 1 thread, both runtimes from C; median of round medians, "
                   "smallest minimum", "rounds": a.rounds, "min_time_s": a.min_time, "results": []}
    print(f"{'model':<10}{'runtime':<24}{'median us':>11}{'min us':>9}")
    for name, path, ins in models:
        per = {r[0]: [] for r in runners}
        for k in range(a.rounds):
            order = runners[k % len(runners):] + runners[:k % len(runners)]
            for label, cmd, env in order:
                j = run_json(cmd(path, ins) + ["--warmup", "100", "--min-time", str(a.min_time)], env)
                per[label].append((j["latency_ms"]["median"] * 1e3, j["latency_ms"]["min"] * 1e3))
        row = {"model": name}
        for label, _, _ in runners:
            med = statistics.median(x[0] for x in per[label])
            mn = min(x[1] for x in per[label])
            row[label] = {"median_us": round(med, 2), "min_us": round(mn, 2),
                          "round_medians_us": [round(x[0], 2) for x in per[label]]}
            print(f"{name:<10}{label:<24}{med:>11.2f}{mn:>9.2f}", flush=True)
        ours = row["openacl aclmdlExecute"]["median_us"]
        row["ort_run_over_ours"] = round(row["ORT Run"]["median_us"] / ours, 2) if ours else None
        out["results"].append(row)
    out["loadavg_1min"] = [round(load0, 2), round(os.getloadavg()[0], 2)]
    print(f"load average {load0:.1f} -> {os.getloadavg()[0]:.1f}; timer resolution of both tools: 0.1 us")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
