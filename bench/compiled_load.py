#!/usr/bin/python3
"""Compiled models: how long loading takes, side by side with ONNX Runtime.

For each model: atc compiles the ONNX file once (timed); then, alternating
in fresh processes, openacl loads the compiled model (bench/mdl_bench: the
aclmdlLoadFromFile call, then its first run), openacl loads the ONNX file,
and ONNX Runtime creates a session for the same ONNX file
(tools/ortref/ortref.js --bench: InferenceSession.create, then its first
run). Medians; the ratio is ORT's session create over openacl's compiled
load. Writes bench/results/compiled_load.json.

  compiled_load.py --atc BUILD/atc --mdl-bench BUILD/mdl_bench
                   [--only resnet50,mobilenet_v2] [--repeat 5] [--threads 1]"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")


def run_json(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if p.returncode != 0:
        sys.exit("compiled_load: %s failed:\n%s%s" % (" ".join(cmd), p.stdout[-1500:], p.stderr[-1500:]))
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--atc", required=True)
    ap.add_argument("--mdl-bench", required=True)
    ap.add_argument("--models", default=os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models")))
    ap.add_argument("--only", default="resnet50,mobilenet_v2")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results", "compiled_load.json"))
    ap.add_argument("--scratch", default="/tmp/openacl_compiled_load")
    a = ap.parse_args()
    os.makedirs(a.scratch, exist_ok=True)
    env = dict(os.environ, OPENACL_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads))
    load0 = os.getloadavg()
    rows = []
    hdr = "%-14s %9s %9s %12s %12s %12s %12s %9s %9s" % (
        "model", "compile s", "om MB", "om load ms", "om +1st ms", "onnx load", "ORT create", "ORT 1st", "ratio")
    print(hdr)
    print("-" * len(hdr), flush=True)
    for name in filter(None, a.only.split(",")):
        onnx = os.path.join(a.models, name + ".onnx")
        if not os.path.exists(onnx):
            print("%-14s missing (scripts/models.sh)" % name)
            continue
        out = os.path.join(a.scratch, name)
        t = time.monotonic()
        p = subprocess.run([a.atc, "--model=" + onnx, "--framework=5", "--output=" + out], capture_output=True,
                           text=True, env=env)
        compile_s = time.monotonic() - t
        if p.returncode != 0:
            sys.exit("atc failed:\n" + p.stdout + p.stderr)
        om = out + ".om"
        om_load, om_first, onnx_load, ort_create, ort_first = [], [], [], [], []
        for _ in range(a.repeat):
            o = run_json([a.mdl_bench, "--model", om, "--warmup", "0", "--min-time", "0", "--min-runs", "1"], env)
            om_load.append(o["load_ms"])
            om_first.append(o["load_ms"] + o["first_run_ms"])
            o = run_json([a.mdl_bench, "--model", onnx, "--warmup", "0", "--min-time", "0", "--min-runs", "1"], env)
            onnx_load.append(o["load_ms"])
            r = run_json(["node", ORTREF, "--model", onnx, "--bench", "--threads", str(a.threads), "--warmup", "0",
                          "--min-time", "0", "--min-runs", "1", "--no-overhead"])
            ort_create.append(r["session_create_ms"])
            ort_first.append(r["session_create_ms"] + r["first_run_ms"])
        med = statistics.median
        row = {"model": name, "compile_s": round(compile_s, 2), "om_bytes": os.path.getsize(om),
               "onnx_bytes": os.path.getsize(onnx), "om_load_ms": med(om_load),
               "om_load_plus_first_run_ms": med(om_first), "onnx_load_ms": med(onnx_load),
               "ort_session_create_ms": med(ort_create), "ort_create_plus_first_run_ms": med(ort_first),
               "ratio_ort_create_over_om_load": round(med(ort_create) / med(om_load), 1),
               "samples": {"om_load_ms": om_load, "onnx_load_ms": onnx_load, "ort_session_create_ms": ort_create}}
        rows.append(row)
        print("%-14s %9.2f %9.1f %12.1f %12.1f %12.1f %12.1f %9.1f %8.1fx" % (
            name, compile_s, row["om_bytes"] / 1e6, row["om_load_ms"], row["om_load_plus_first_run_ms"],
            row["onnx_load_ms"], row["ort_session_create_ms"], row["ort_create_plus_first_run_ms"],
            row["ratio_ort_create_over_om_load"]), flush=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
               platform.processor())
    res = {"what": "model load: openacl aclmdlLoadFromFile of an atc-compiled model vs ONNX Runtime "
                   "InferenceSession.create of the ONNX file (fresh processes, medians); '+first' adds the first "
                   "inference (oneDNN creates its JIT kernels there)",
           "date": datetime.datetime.now().isoformat(timespec="seconds"),
           "host": {"cpu": cpu, "nproc": os.cpu_count(), "kernel": platform.release()},
           "threads": a.threads, "repeat": a.repeat, "loadavg_start": load0, "loadavg_end": os.getloadavg(),
           "results": rows}
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    print("written", a.out)


if __name__ == "__main__":
    main()
