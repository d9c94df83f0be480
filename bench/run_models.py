#!/usr/bin/python3
"""openacl vs ONNX Runtime on the real models, side by side in one run.

For each model of models/manifest.json marked for benchmarking and each
thread count, runs openacl (bench/mdl_bench through the public API, threads
via OPENACL_THREADS; optionally also with OPENACL_PRECISION=bf16) and ORT
(intra-op threads, float32) alternately, each in a fresh process on the same
seeded inputs, for --rounds rounds (the order rotates every round). Per point
it keeps every round's median and minimum, and reports the median of the
round medians and the smallest minimum. The speedup is ORT's median of round
medians over openacl's; "same-round" speedups (speedup_fp32_rounds,
speedup_bf16_rounds) are the median over rounds of ORT's round median over
openacl's in the same round: the processes of one round run within a few
seconds of each other, so a slow stretch of the shared host that outlasts a
round weighs on both sides of that round's ratio.

How ORT runs (--ort-runner; models.json records which):
  c     bench/ortc's ort_bench: a C program that dlopen()s the npm package's
        libonnxruntime.so.1 and calls ORT's C API (Run on OrtValues made
        once), the same way mdl_bench calls openacl. Nothing is subtracted.
        The default when ort_bench is built (next to --mdl-bench, or
        --ort-bench) and loads the library.
  node  tools/ortref/ortref.js --bench (onnxruntime-node). ORT's times have
        the Node binding's per-call cost subtracted (measured by ortref with
        an Identity model of the same inputs and output shapes, in the first
        round; an upper bound, so it slightly favours ORT).

Memory (1-thread rounds): each runtime's peak resident set minus its own
empty baseline (openacl: mdl_bench --empty, after aclInit/aclrtSetDevice;
ORT c: ort_bench --empty, library loaded and OrtEnv created; ORT node:
ortref --empty, node with onnxruntime-node loaded, no session).

--parallel N adds a throughput section: N workers each with 1 thread (openacl:
N devices with threads_per_device 1; ORT: N sessions with 1 intra-op thread,
each on its own thread -- a pthread with c, a Node worker thread with node),
total inferences per second.
--throughput-only runs just that section into the existing results file.

--paired S adds a paired section: per model, thread count and precision one
ort_bench --pair-openacl process runs ORT and openacl (its libascendcl.so
next to --mdl-bench) in turns of 0.5 s until each has run S seconds. A
shared machine's slow stretches last longer than a turn, so both runtimes
meet them alike; the speedup reported is the median over turn pairs of
ORT's median / openacl's median. It complements the per-process rounds,
whose medians move with the stretches a process happens to land in.

Writes bench/results/models.json.

--set torchvision runs the torchvision sweep instead (models/tv/, built by
scripts/models.sh --set torchvision; bench/torchvision.sh): every model of
that manifest up to --tier counts for the geometric mean, and the results go
to bench/results/torchvision.json.

  run_models.py --mdl-bench BUILD/mdl_bench [--ort-runner c|node] [--ort-bench BUILD/ort_bench]
                [--threads 1,2] [--rounds 3] [--min-time 1.5]
                [--only resnet50,bert4] [--bf16] [--parallel 2] [--paired 3] [--out FILE]
                [--set torchvision [--tier 2]]"""
import argparse
import datetime
import json
import math
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
# The models the speed targets are stated for (BENCHMARKS.md).
TARGETS = ["resnet50", "mobilenet_v2", "efficientnet_b0", "bert4", "ocr_det", "ocr_rec", "ocr_cls",
           "ocr_cls_b8", "vad"]


def cpu_steal():
    """(steal, total) jiffies of all CPUs from /proc/stat, or None: time the
    hypervisor gave this VM's vCPUs to other guests."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (v[7], sum(v[:8])) if len(v) >= 8 else None


def steal_pct(s0, s1):
    if not s0 or not s1 or s1[1] <= s0[1]:
        return None
    return round(100.0 * (s1[0] - s0[0]) / (s1[1] - s0[1]), 1)


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


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summary(rounds):
    meds = [r["median"] for r in rounds]
    return {"median_ms": statistics.median(meds), "min_ms": min(r["min"] for r in rounds),
            "round_medians": meds, "round_mins": [r["min"] for r in rounds]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-bench", required=True)
    ap.add_argument("--models", default=None, help="models folder (default models/, or models/tv/ "
                    "with --set torchvision; OPENACL_MODELS_DIR overrides models/)")
    ap.add_argument("--set", default="default", choices=["default", "torchvision"],
                    help="model set: the benchmark set (TARGETS) or the torchvision sweep")
    ap.add_argument("--tier", type=int, default=1, help="torchvision set: 1 one variant per family, 2 all")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=1.5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--bf16", action="store_true", help="also openacl with OPENACL_PRECISION=bf16")
    ap.add_argument("--parallel", type=int, default=0, help="throughput with N 1-thread workers")
    ap.add_argument("--paired", type=float, default=0,
                    help="S seconds per runtime of in-process paired turns (ort_bench --pair-openacl)")
    ap.add_argument("--throughput-only", action="store_true",
                    help="only the throughput section, merged into the existing --out file")
    ap.add_argument("--out", default=None, help="results file (default bench/results/<set>.json)")
    ap.add_argument("--ort-runner", choices=["c", "node"], default=None,
                    help="ORT from C (bench/ortc ort_bench) or through Node (tools/ortref); "
                         "default c when ort_bench is built and finds the library")
    ap.add_argument("--ort-bench", default=None, help="ort_bench binary (default: next to --mdl-bench)")
    a = ap.parse_args()
    base = os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models"))
    tv = a.set == "torchvision"
    a.models = a.models or (os.path.join(base, "tv") if tv else base)
    a.out = a.out or os.path.join(REPO, "bench", "results", "torchvision.json" if tv else "models.json")

    if not os.path.exists(os.path.join(a.models, "manifest.json")):
        sys.exit(f"bench: no {a.models}/manifest.json (run scripts/models.sh)")
    threads = [int(t) for t in a.threads.split(",") if t]
    only = set(filter(None, a.only.split(",")))
    models = [m for m in refs.load_manifest(a.models)
              if (m["name"] in only if only else m.get("bench", True) and m.get("tier", 1) <= a.tier)]
    targets = [m["name"] for m in models] if tv else TARGETS
    t_start = time.time()
    load0 = os.getloadavg()
    steal0 = cpu_steal()
    if load0[0] > 0.75 * (os.cpu_count() or 1):
        print(f"warning: load average {load0[0]:.1f} on {os.cpu_count()} CPUs: other work competes "
              "for the cores; absolute numbers are not representative and ratios are noisy", flush=True)
    ort_bench = a.ort_bench or os.path.join(os.path.dirname(os.path.abspath(a.mdl_bench)), "ort_bench")
    base_ort_c, err_c, _ = run_json([ort_bench, "--empty"]) if os.access(ort_bench, os.X_OK) else \
        (None, f"no {ort_bench}", 1)
    runner = a.ort_runner or ("c" if base_ort_c else "node")
    if runner == "c" and not base_ort_c:
        sys.exit(f"bench: --ort-runner c: {err_c}")
    if runner == "c":
        base_ort, e2 = base_ort_c, None
    else:
        base_ort, e2, _ = run_json(["node", ORTREF, "--empty"])
    print(f"ORT runner: {runner} ({ort_bench if runner == 'c' else ORTREF})", flush=True)
    base_ours, e1, _ = run_json([a.mdl_bench, "--empty"])
    if e1 or e2:
        print(f"note: no memory baseline ({e1 or e2})")
    variants = [("fp32", {})] + ([("bf16", {"OPENACL_PRECISION": "bf16"})] if a.bf16 else [])
    hdr = (f"{'model':<20}{'thr':>4}{'ours ms':>10}{'min':>9}{'ORT ms':>10}{'min':>9}{'ORT/ours':>9}"
           + (f"{'bf16 ms':>10}{'ORT/bf16':>9}" if a.bf16 else "") + f"{'load':>7}{'steal%':>7}")
    print(hdr)
    print("-" * len(hdr), flush=True)
    rows = []
    for m in (models if not a.throughput_only else []):
        ins = refs.ensure_inputs(a.models, m)
        path = os.path.join(a.models, m["file"])
        binding = None
        for t in threads:
            res = {v: [] for v, _ in variants}
            res["ort"] = []
            mem = {v: [] for v, _ in variants}
            mem["ort"] = []
            errs, loads, extra = [], [], {}
            st0 = cpu_steal()
            for r in range(a.rounds):
                order = [("ours", v, env) for v, env in variants] + [("ort", "ort", None)]
                order = order[r % len(order):] + order[:r % len(order)]
                for who, key, env in order:
                    if who == "ours":
                        e = dict(os.environ, OPENACL_THREADS=str(t), **env)
                        o, err, rc = run_json([a.mdl_bench, "--model", path, "--inputs", ",".join(ins),
                                               "--warmup", str(a.warmup), "--min-time", str(a.min_time)], env=e)
                        if not o:
                            errs.append(f"openacl {key}: " + err.splitlines()[-1])
                            continue
                        L = o["latency_ms"]
                        res[key].append({"median": L["median"], "min": L["min"], "round": r})
                        extra.setdefault(key, {"load_ms": o["load_ms"], "first_run_ms": o["first_run_ms"],
                                               "cpu_per_wall": o["cpu_per_wall"]})
                        if base_ours and "peak_rss_kb" in o:
                            mem[key].append(o["peak_rss_kb"] - base_ours["baseline_rss_kb"])
                    elif runner == "c":
                        o, err, rc = run_json([ort_bench, "--model", path, "--inputs", ",".join(ins),
                                               "--threads", str(t), "--warmup", str(a.warmup),
                                               "--min-time", str(a.min_time)])
                        if not o:
                            errs.append("ORT: " + err.splitlines()[-1])
                            continue
                        L = o["latency_ms"]
                        res["ort"].append({"median": L["median"], "min": L["min"], "raw_median": L["median"],
                                           "round": r})
                        extra.setdefault("ort", {"session_create_ms": o["session_create_ms"],
                                                 "first_run_ms": o["first_run_ms"],
                                                 "cpu_per_wall": o["cpu_per_wall"]})
                        if base_ort and "peak_rss_kb" in o:
                            mem["ort"].append(o["peak_rss_kb"] - base_ort["baseline_rss_kb"])
                    else:
                        cmd = ["node", ORTREF, "--model", path, "--inputs", ",".join(ins), "--bench",
                               "--threads", str(t), "--warmup", str(a.warmup), "--min-time", str(a.min_time)]
                        if binding is not None:
                            cmd.append("--no-overhead")
                        o, err, rc = run_json(cmd)
                        if not o:
                            errs.append("ORT: " + err.splitlines()[-1])
                            continue
                        if binding is None:
                            binding = o["binding_overhead_ms"]["io"]["median"]
                            extra["ort_binding_fixed_ms"] = o["binding_overhead_ms"]["fixed"]["median"]
                        L = o["latency_ms"]
                        res["ort"].append({"median": max(L["median"] - binding, 0.0),
                                           "min": max(L["min"] - binding, 0.0), "raw_median": L["median"],
                                           "round": r})
                        extra.setdefault("ort", {"session_create_ms": o["session_create_ms"],
                                                 "first_run_ms": o["first_run_ms"]})
                        if base_ort and "peak_rss_kb" in o:
                            mem["ort"].append(o["peak_rss_kb"] - base_ort["baseline_rss_kb"])
                loads.append(round(os.getloadavg()[0], 2))
            row = {"model": m["name"], "threads": t, "errors": errs, "loadavg_1min": loads,
                   "steal_pct": steal_pct(st0, cpu_steal()), "binding_overhead_ms": binding}
            for key in list(res):
                if res[key]:
                    row[key] = summary(res[key])
                    row[key].update(extra.get(key, {}))
                    if key == "ort":
                        row[key]["raw_median_ms"] = statistics.median(x["raw_median"] for x in res[key])
                    if mem[key] and t == 1:
                        row[key]["mem_kb"] = int(statistics.median(mem[key]))
            if "fp32" in row and "ort" in row and row["fp32"]["median_ms"] > 0:
                row["speedup_fp32"] = round(row["ort"]["median_ms"] / row["fp32"]["median_ms"], 3)
            if "bf16" in row and "ort" in row and row["bf16"]["median_ms"] > 0:
                row["speedup_bf16"] = round(row["ort"]["median_ms"] / row["bf16"]["median_ms"], 3)
            for v, _ in variants:
                by_round = {x["round"]: x["median"] for x in res[v]}
                rat = [x["median"] / by_round[x["round"]] for x in res["ort"]
                       if by_round.get(x["round"], 0) > 0]
                if rat:
                    row[f"speedup_{v}_rounds"] = round(statistics.median(rat), 3)
            if binding is not None and "ort" in row and binding > 0.5 * row["ort"]["raw_median_ms"]:
                row["note"] = "ORT time is mostly the binding's cost: ratio unreliable"
            rows.append(row)
            o, q, b = row.get("fp32", {}), row.get("ort", {}), row.get("bf16", {})
            line = (f"{m['name']:<20}{t:>4}{fmt(o.get('median_ms'), 10, 3)}{fmt(o.get('min_ms'), 9, 3)}"
                    f"{fmt(q.get('median_ms'), 10, 3)}{fmt(q.get('min_ms'), 9, 3)}"
                    f"{fmt(row.get('speedup_fp32'), 9, 2)}")
            if a.bf16:
                line += f"{fmt(b.get('median_ms'), 10, 3)}{fmt(row.get('speedup_bf16'), 9, 2)}"
            print(line + f"{fmt(max(loads) if loads else None, 7, 1)}{fmt(row['steal_pct'], 7, 1)}", flush=True)
            for e in errs + ([row["note"]] if "note" in row else []):
                print(f"    {e}", flush=True)

    par = []
    if a.parallel:
        print(f"\nthroughput, {a.parallel} workers x 1 thread (inferences/s; higher is better)")
        for m in models:
            ins = refs.ensure_inputs(a.models, m)
            path = os.path.join(a.models, m["file"])
            ours, theirs = [], []
            for r in range(a.rounds):
                e = dict(os.environ, OPENACL_THREADS="1", OPENACL_DEVICE_COUNT=str(a.parallel))
                o, err, _ = run_json([a.mdl_bench, "--model", path, "--inputs", ",".join(ins), "--warmup",
                                      str(a.warmup), "--min-time", str(a.min_time), "--parallel", str(a.parallel)],
                                     env=e)
                if o:
                    ours.append(o["throughput_per_s"])
                ort_cmd = ([ort_bench, "--model", path, "--inputs", ",".join(ins)] if runner == "c" else
                           ["node", ORTREF, "--model", path, "--inputs", ",".join(ins), "--bench"])
                q, err2, _ = run_json(ort_cmd + ["--threads", "1", "--warmup", str(a.warmup),
                                                 "--min-time", str(a.min_time), "--parallel", str(a.parallel)])
                if q:
                    theirs.append(q["throughput_per_s"])
            p = {"model": m["name"], "workers": a.parallel, "ours_per_s": ours, "ort_per_s": theirs,
                 "loadavg_1min": round(os.getloadavg()[0], 2)}
            if ours and theirs:
                p["ratio_ours_over_ort"] = round(statistics.median(ours) / statistics.median(theirs), 3)
            par.append(p)
            print(f"  {m['name']:<20}{fmt(statistics.median(ours) if ours else None, 10, 1)}"
                  f"{fmt(statistics.median(theirs) if theirs else None, 10, 1)}"
                  f"{fmt(p.get('ratio_ours_over_ort'), 8, 2)}", flush=True)

    paired = []
    lib = os.path.join(os.path.dirname(os.path.abspath(a.mdl_bench)), "libascendcl.so")
    if a.paired and runner == "c" and not a.throughput_only:
        print(f"\npaired in one process, turns of 0.5 s, {a.paired:g} s each (speedup: median over turn pairs)")
        print(f"{'model':<20}{'thr':>4}" + "".join(f"{v + ' ms':>10}{'ORT ms':>10}{'speedup':>9}" for v, _ in variants))
        for m in models:
            ins = refs.ensure_inputs(a.models, m)
            path = os.path.join(a.models, m["file"])
            for t in threads:
                p = {"model": m["name"], "threads": t}
                line = f"{m['name']:<20}{t:>4}"
                for v, env in variants:
                    o, err, _ = run_json([ort_bench, "--model", path, "--inputs", ",".join(ins), "--threads", str(t),
                                          "--warmup", str(a.warmup), "--min-time", str(a.paired),
                                          "--pair-openacl", lib], env=dict(os.environ, **env))
                    if not o:
                        p.setdefault("errors", []).append(f"{v}: " + (err.splitlines() or ["failed"])[-1])
                        line += f"{'-':>10}{'-':>10}{'-':>9}"
                        continue
                    p[v] = {"ours_ms": o["openacl"]["median_ms"], "ort_ms": o["ort"]["median_ms"],
                            "speedup": round(o["speedup_turn_median"], 3),
                            "speedup_of_medians": round(o["speedup"], 3), "turns": o["turns"]}
                    line += (f"{fmt(p[v]['ours_ms'], 10, 3)}{fmt(p[v]['ort_ms'], 10, 3)}"
                             f"{fmt(p[v]['speedup'], 9, 2)}")
                paired.append(p)
                print(line, flush=True)
                for e in p.get("errors", []):
                    print(f"    {e}", flush=True)

    geo = {}
    for t in threads:
        for v, _ in variants:
            sel = [p for p in paired if p["threads"] == t and p["model"] in targets and v in p]
            g = geomean([p[v]["speedup"] for p in sel])
            if g:
                geo[f"paired_{v}_t{t}"] = {"geomean": round(g, 3), "models": len(sel),
                                           "worst": min((p[v]["speedup"], p["model"]) for p in sel)}
    for t in threads:
        for key in ("speedup_fp32", "speedup_bf16", "speedup_fp32_rounds", "speedup_bf16_rounds"):
            sel = [r for r in rows if r["threads"] == t and r["model"] in targets and key in r]
            g = geomean([r[key] for r in sel])
            if g:
                geo[f"{key}_t{t}"] = {"geomean": round(g, 3), "models": len(sel),
                                      "worst": min((r[key], r["model"]) for r in sel)}
    how_ort = ("ORT via its C API from C (bench/ortc/ort_bench: Run on OrtValues made once, nothing subtracted)"
               if runner == "c" else
               "ORT via onnxruntime-node with the binding's per-call cost (Identity model, same I/O) subtracted")
    res = {
        "what": "ms per inference, median of per-round medians and the smallest minimum; openacl via "
                f"aclmdlExecute (bench/mdl_bench), {how_ort}; speedup = ORT / openacl (> 1: openacl faster); "
                "mem_kb = peak RSS minus each runtime's empty-process baseline",
        "ort_runner": runner,
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": {"cpu": cpu_model(), "nproc": os.cpu_count(), "kernel": platform.release()},
        "set": a.set, "models_dir": os.path.relpath(a.models, REPO),
        "ort_version": refs.ort_version(), "min_time_s": a.min_time, "warmup": a.warmup, "rounds": a.rounds,
        "threads": threads, "wall_s": round(time.time() - t_start, 1),
        "baseline_rss_kb": {"openacl": (base_ours or {}).get("baseline_rss_kb"),
                            "ort": (base_ort or {}).get("baseline_rss_kb")},
        "loadavg_start": [round(x, 2) for x in load0], "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "steal_pct": steal_pct(steal0, cpu_steal()),
        "geomean": geo, "results": rows, "throughput": par, "paired": paired,
        "paired_s": a.paired,
    }
    if a.throughput_only and os.path.exists(a.out):
        old = json.load(open(a.out))
        old["throughput"] = par
        old["throughput_ort_runner"] = runner
        old["throughput_date"] = res["date"]
        old["throughput_loadavg"] = res["loadavg_end"]
        res, geo = old, old.get("geomean", {})
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print()
    for k, v in geo.items():
        print(f"{k}: geometric mean {v['geomean']:.2f}x over {v['models']} target models "
              f"(lowest {v['worst'][0]:.2f}x, {v['worst'][1]})")
    print(f"speedup = ORT / openacl (> 1: openacl faster). Written {a.out} in {res['wall_s']} s")


if __name__ == "__main__":
    main()
