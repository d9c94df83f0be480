#!/usr/bin/python3
"""openacl vs ONNX Runtime on the real models, side by side in one run.

For each model of models/manifest.json marked for benchmarking and each
thread count, runs openacl (bench/mdl_bench through the public API, threads
via OPENACL_THREADS) and ORT (tools/ortref/ortref.js --bench, intra-op
threads, the Node binding's own per-call cost measured and subtracted)
alternately, each in a fresh process on the same seeded inputs, and prints
a table of medians with the ratio ours/ORT (< 1: openacl is faster).
Writes bench/results/models.json.

  run_models.py --mdl-bench BUILD/mdl_bench [--threads 1,2] [--min-time 3]
                [--only resnet50,bert4] [--repeat 1] [--out bench/results/models.json]"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
import refs  # noqa: E402

ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")


def run_json(cmd, env=None, timeout=900):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        return None, (p.stderr.strip() or p.stdout.strip() or f"rc {p.returncode}")[-600:], p.returncode
    try:
        return json.loads(p.stdout), None, 0
    except json.JSONDecodeError:
        return None, f"bad JSON: {p.stdout[-300:]}", 1


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def fmt(v, w=8, p=2):
    return f"{v:{w}.{p}f}" if isinstance(v, (int, float)) else f"{'-':>{w}}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-bench", required=True)
    ap.add_argument("--models", default=os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models")))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--min-time", type=float, default=3.0)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1, help="process pairs per point (median taken)")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results", "models.json"))
    a = ap.parse_args()

    if not os.path.exists(os.path.join(a.models, "manifest.json")):
        sys.exit(f"bench: no {a.models}/manifest.json (run scripts/models.sh)")
    threads = [int(t) for t in a.threads.split(",") if t]
    only = set(filter(None, a.only.split(",")))
    models = [m for m in refs.load_manifest(a.models)
              if (m["name"] in only if only else m.get("bench", True))]
    rows, t_start = [], time.time()
    load0 = os.getloadavg()
    if load0[0] > 0.75 * (os.cpu_count() or 1):
        print(f"warning: load average {load0[0]:.1f} on {os.cpu_count()} CPUs: other work competes "
              "for the cores; absolute numbers are not representative and ratios are noisy", flush=True)
    hdr = (f"{'model':<20}{'thr':>4}{'openacl ms':>12}{'ORT ms':>10}{'ours/ORT':>10}"
           f"{'ORT raw':>9}{'binding':>9}{'cpu/wall':>9}{'load ms':>9}{'ORT create':>11}")
    print(hdr)
    print("-" * len(hdr), flush=True)
    for m in models:
        ins = refs.ensure_inputs(a.models, m)
        path = os.path.join(a.models, m["file"])
        for t in threads:
            ours, theirs, errs = [], [], []
            for _ in range(a.repeat):
                env = dict(os.environ, OPENACL_THREADS=str(t))
                o, e, rc = run_json([a.mdl_bench, "--model", path, "--inputs", ",".join(ins),
                                     "--warmup", str(a.warmup), "--min-time", str(a.min_time)], env=env)
                if o:
                    ours.append(o)
                else:
                    errs.append(("openacl not ready: " if rc == 77 else "openacl: ") + e.splitlines()[-1])
                r, e, _ = run_json(["node", ORTREF, "--model", path, "--inputs", ",".join(ins), "--bench",
                                    "--threads", str(t), "--warmup", str(a.warmup), "--min-time",
                                    str(a.min_time)])
                if r:
                    theirs.append(r)
                else:
                    errs.append("ORT: " + e.splitlines()[-1])
            row = {"model": m["name"], "threads": t, "errors": errs,
                   "loadavg_1min": round(os.getloadavg()[0], 2)}
            if ours:
                row["openacl"] = {
                    "median_ms": statistics.median(x["latency_ms"]["median"] for x in ours),
                    "mean_ms": statistics.median(x["latency_ms"]["mean"] for x in ours),
                    "p90_ms": statistics.median(x["latency_ms"]["p90"] for x in ours),
                    "min_ms": min(x["latency_ms"]["min"] for x in ours),
                    "load_ms": statistics.median(x["load_ms"] for x in ours),
                    "first_run_ms": statistics.median(x["first_run_ms"] for x in ours),
                    "cpu_per_wall": statistics.median(x["cpu_per_wall"] for x in ours),
                    "runs": [x["latency_ms"]["runs"] for x in ours]}
            if theirs:
                sub = [x["latency_minus_overhead_ms"] for x in theirs]
                row["ort"] = {
                    "median_ms": statistics.median(s["median"] for s in sub),
                    "mean_ms": statistics.median(s["mean"] for s in sub),
                    "p90_ms": statistics.median(s["p90"] for s in sub),
                    "min_ms": min(s["min"] for s in sub),
                    "raw_median_ms": statistics.median(x["latency_ms"]["median"] for x in theirs),
                    "binding_overhead_ms": statistics.median(s["subtracted"] for s in sub),
                    "binding_overhead_fixed_ms": statistics.median(
                        x["binding_overhead_ms"]["fixed"]["median"] for x in theirs),
                    "session_create_ms": statistics.median(x["session_create_ms"] for x in theirs),
                    "first_run_ms": statistics.median(x["first_run_ms"] for x in theirs),
                    "runs": [x["latency_ms"]["runs"] for x in theirs]}
            if ours and theirs and row["ort"]["median_ms"] > 0:
                row["ratio_ours_over_ort"] = round(row["openacl"]["median_ms"] / row["ort"]["median_ms"], 3)
                if row["ort"]["binding_overhead_ms"] > 0.5 * row["ort"]["raw_median_ms"]:
                    row["note"] = "ORT time is mostly the binding's cost: ratio unreliable"
            rows.append(row)
            o, r = row.get("openacl", {}), row.get("ort", {})
            print(f"{m['name']:<20}{t:>4}{fmt(o.get('median_ms'), 12, 3)}{fmt(r.get('median_ms'), 10, 3)}"
                  f"{fmt(row.get('ratio_ours_over_ort'), 10, 2)}{fmt(r.get('raw_median_ms'), 9, 3)}"
                  f"{fmt(r.get('binding_overhead_ms'), 9, 4)}{fmt(o.get('cpu_per_wall'), 9, 2)}"
                  f"{fmt(o.get('load_ms'), 9, 0)}{fmt(r.get('session_create_ms'), 11, 0)}", flush=True)
            for e in errs + ([row["note"]] if "note" in row else []):
                print(f"    {e}", flush=True)
    res = {
        "what": "median latency per inference, ms; openacl via aclmdlExecute (bench/mdl_bench), ORT 'ORT ms' "
                "is onnxruntime-node's median minus the binding's per-call cost (an Identity model with the "
                "same inputs and output shapes: an upper bound, so it slightly favours ORT)",
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": {"cpu": cpu_model(), "nproc": os.cpu_count(), "kernel": platform.release()},
        "ort_version": refs.ort_version(), "min_time_s": a.min_time, "warmup": a.warmup,
        "repeat": a.repeat, "threads": threads, "wall_s": round(time.time() - t_start, 1),
        "loadavg_start": [round(x, 2) for x in load0], "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "results": rows,
    }
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"\nours/ORT < 1 means openacl is faster. ORT ms has the binding's cost subtracted "
          f"(column 'binding'). Written {a.out} in {res['wall_s']} s")
    if any(r.get("openacl") and r["openacl"]["cpu_per_wall"] > 1.3 * r["threads"] for r in rows):
        print("note: openacl used more CPU than its thread count in some runs "
              "(is OPENACL_THREADS honoured?)")


if __name__ == "__main__":
    main()
