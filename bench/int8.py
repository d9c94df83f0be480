#!/usr/bin/python3
"""int8: openacl on QDQ models vs ONNX Runtime fp32 and ORT on the same QDQ
file, side by side in one run (issue 23's targets, docs/quantization.md).

For each model (resnet50, mobilenet_v2, efficientnet_b0, ocr_det, ocr_rec
static; bert4 with --dynamic) the script first quantises with openacl-quant
(--method auto for the classifiers, percentile 99.99 for the OCR models, --equalize for ocr_det,
optionally --target-cosine, on --calib-n seeded inputs drawn like the manifest's, cached under
--cache and redone when the model, the tool or the options change; --act-tables for
efficientnet_b0), then per
thread count runs, each in a fresh process on the same seeded inputs, in an
order that rotates every round:
  ours   bench/mdl_bench on the QDQ model (OPENACL_THREADS=t)
  ortfp  bench/ortc ort_bench on the original fp32 model (t intra-op threads)
  ortq   ort_bench on the same QDQ model
  (--with-fp32: also mdl_bench on the fp32 model)
and reports the median of round medians, and the speedups
ORT fp32 / ours and ORT QDQ / ours (targets: >= 3x and >= 1.3x; the
dynamic BERT: >= 2x ORT fp32), plus the accuracy vs fp32 from
openacl-quant's report on --eval-n held-out inputs. When bench/cpu_peak is
built it measures one core's int8 multiply-add peak (VNNI) first, and each
static model's row also states the share of that peak (times the thread
count) that the int8 and the ORT QDQ runs reach, from the model's
multiply-adds (bench/macs.py), and the speedup over ORT QDQ that an int8 run
at the full peak would have: the ceiling for the >= 1.3x target.
--paired S adds, per model and thread count, ORT (fp32 original, then the
QDQ file) and openacl (the QDQ file) in one process taking turns of 0.5 s
(ort_bench --pair-openacl --pair-model), S seconds each: a shared host's
slow stretches (2-thread runs here move by up to 50 % minutes apart) then
fall on both runtimes alike; the speedup is the median of the per-turn ratios.
The timing and statistics code is bench/run_models.py's (imported).

  int8.py --mdl-bench BUILD/mdl_bench [--ort-bench BUILD/ort_bench] [--quant BUILD/openacl-quant]
          [--threads 1,2] [--rounds 3] [--min-time 1.5] [--only resnet50,bert4] [--with-fp32]
          [--calib-n 16] [--eval-n 16] [--method M] [--target-cosine C] [--paired S]
          [--cache BUILD/int8_models] [--out bench/results/int8.json]
"""
import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import macs  # noqa: E402
import run_models as rm  # noqa: E402

refs = rm.refs
STATIC = ["resnet50", "mobilenet_v2", "efficientnet_b0", "ocr_det", "ocr_rec"]
DYNAMIC = ["bert4"]
TARGET_FP32, TARGET_QDQ, TARGET_DYN = 3.0, 1.3, 2.0
# the calibrator per model unless --method names one: the classifiers take
# the per-tensor least-MSE choice (auto), the OCR models percentile, with
# which the recogniser reads the demo lines as fp32 does (auto and mse
# shift its CTC alignment: docs/quantization.md section 6)
METHOD = {"resnet50": "auto", "mobilenet_v2": "auto", "efficientnet_b0": "auto"}
# further openacl-quant options per model: the detector's residual and
# Conv -> Relu -> Conv streams are equalised (exact in float, the same int8
# graph; its probability map's cosine to fp32 on 16 held-out rendered pages
# 0.980 -> 0.988, docs/quantization.md section 3); the random-weight
# classifiers' channels are already even, so it changes nothing there
# EfficientNet-B0's SiLU inputs are quantised too (--act-tables), so each
# SiLU runs as a 256-entry table (graph/qdq_table.c) instead of a float
# sigmoid per value: 0.85x the time at 1 thread; held-out cosine to fp32
# 0.9984 -> 0.9980, the same top-1 (docs/quantization.md section 7)
OPTIONS = {"ocr_det": ["--equalize"], "efficientnet_b0": ["--act-tables"]}


def method_of(a, name):
    return a.method or METHOD.get(name, "percentile")


def load_gen():
    spec = importlib.util.spec_from_file_location("gen_inputs", os.path.join(REPO, "scripts", "gen_inputs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_samples(m, folder, n, seed0):
    """n samples, one sub-folder each with one <index>.npy per input, drawn
    as the manifest says (the same generator as the benchmark inputs)."""
    import numpy as np
    gen = load_gen()
    for k in range(n):
        d = os.path.join(folder, "%03d" % k)
        os.makedirs(d, exist_ok=True)
        rng = np.random.default_rng(seed0 + k)
        for i, spec in enumerate(m["inputs"]):
            np.save(os.path.join(d, "%d.npy" % i), gen.gen_one(spec, rng))


def tool_hash(quant):
    h = hashlib.sha1()
    base = os.path.dirname(os.path.abspath(quant))
    for d in (os.path.join(base, "oaquant"), os.path.join(REPO, "tools", "quant", "oaquant")):
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                if f.endswith(".py"):
                    h.update(open(os.path.join(d, f), "rb").read())
            break
    return h.hexdigest()


def quantise(a, m, path, dynamic):
    """The QDQ model and openacl-quant's report, cached."""
    cache = os.path.join(a.cache, m["name"])
    os.makedirs(cache, exist_ok=True)
    out, rep = os.path.join(cache, "int8.onnx"), os.path.join(cache, "report.json")
    stamp_file = path + ".stamp"
    model_stamp = open(stamp_file).read() if os.path.exists(stamp_file) else str(os.path.getmtime(path))
    key = hashlib.sha1(json.dumps([model_stamp, tool_hash(a.quant), dynamic, a.calib_n, a.eval_n,
                                   method_of(a, m["name"]), a.target_cosine,
                                   OPTIONS.get(m["name"], [])]).encode()).hexdigest()
    kf = os.path.join(cache, "key")
    if os.path.exists(out) and os.path.exists(rep) and os.path.exists(kf) and open(kf).read() == key:
        return out, json.load(open(rep)), True
    cal, ev = os.path.join(cache, "calib"), os.path.join(cache, "eval")
    write_samples(m, cal, 0 if dynamic else a.calib_n, 1000)
    write_samples(m, ev, a.eval_n, 5000)
    cmd = ["/usr/bin/python3", a.quant, path, "-o", out, "--report", rep, "--eval", ev, "--quiet"]
    cmd += ["--dynamic"] if dynamic else ["--calib", cal, "--method", method_of(a, m["name"])] + OPTIONS.get(m["name"], [])
    if a.target_cosine and not dynamic:
        cmd += ["--target-cosine", str(a.target_cosine)]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("openacl-quant failed on %s: %s" % (m["name"], (p.stderr or p.stdout).strip()[-800:]))
    r = json.load(open(rep))
    r["quantise_s"] = round(time.time() - t0, 1)
    json.dump(r, open(rep, "w"), indent=1)
    with open(kf, "w") as f:
        f.write(key)
    return out, r, False


def paired(a, name, path, qpath, ins, threads):
    """--paired S: per thread count, ORT (on the fp32 original, then on the
    QDQ file) and openacl (on the QDQ file) in one process taking turns of
    0.5 s (ort_bench --pair-openacl --pair-model), S seconds each: slow
    stretches of a shared host fall on both alike. Rows with the median of
    the per-turn ratios (ORT / openacl) and the ratio of the medians."""
    lib = os.path.join(os.path.dirname(os.path.abspath(a.mdl_bench)), "libascendcl.so")
    rows = []
    for t in threads:
        row = {"model": name, "threads": t}
        for key, ort_model in (("vs_ort_fp32", path), ("vs_ort_qdq", qpath)):
            cmd = [a.ort_bench, "--model", ort_model, "--inputs", ",".join(ins), "--threads", str(t),
                   "--warmup", str(a.warmup), "--min-time", str(a.paired), "--pair-openacl", lib,
                   "--pair-model", qpath]
            p = subprocess.run(cmd, capture_output=True, text=True)
            try:
                o = json.loads(p.stdout)
            except ValueError:
                row.setdefault("errors", []).append("%s: %s" % (key, (p.stderr.strip().splitlines() or ["failed"])[-1]))
                continue
            row[key] = {"int8_ms": o["openacl"]["median_ms"], "ort_ms": o["ort"]["median_ms"],
                        "speedup": round(o["speedup_turn_median"], 3), "speedup_of_medians": round(o["speedup"], 3),
                        "turns": o["turns"]}
        rows.append(row)
        g = lambda k, f: row.get(k, {}).get(f)  # noqa: E731
        print("  paired %-16s%4d  int8 %s ORTfp %s -> %sx   int8 %s ORTq %s -> %sx" % (
            name, t, rm.fmt(g("vs_ort_fp32", "int8_ms"), 7, 3), rm.fmt(g("vs_ort_fp32", "ort_ms"), 8, 3),
            rm.fmt(g("vs_ort_fp32", "speedup"), 5), rm.fmt(g("vs_ort_qdq", "int8_ms"), 7, 3),
            rm.fmt(g("vs_ort_qdq", "ort_ms"), 8, 3), rm.fmt(g("vs_ort_qdq", "speedup"), 5)), flush=True)
        for e in row.get("errors", []):
            print("    " + e, flush=True)
    return rows


def accuracy_line(r):
    acc = r.get("accuracy") or {}
    outs = acc.get("outputs") or {}
    if not outs:
        return {}, "-"
    cos = min(o["cosine_mean"] for o in outs.values())
    res = {"cosine_mean": cos, "samples": acc.get("samples")}
    txt = "cos %.4f" % cos
    if acc.get("classifier"):
        res["top1_agreement"] = acc["top1_agreement"]
        txt += " top1 %.0f%%" % (100 * acc["top1_agreement"])
    else:
        res["max_abs_error"] = max(o["max_abs_error"] for o in outs.values())
        txt += " max|e| %.3g" % res["max_abs_error"]
    return res, txt


def time_point(a, variants, ins, t, rounds):
    """{variant: [round results]} for one thread count."""
    res = {k: [] for k, _, _ in variants}
    errs = []
    for r in range(rounds):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for key, who, model in order:
            if who == "ours":
                cmd = [a.mdl_bench, "--model", model, "--inputs", ",".join(ins), "--warmup", str(a.warmup),
                       "--min-time", str(a.min_time)]
                o, err, _ = rm.run_json(cmd, env=dict(os.environ, OPENACL_THREADS=str(t)))
            else:
                cmd = [a.ort_bench, "--model", model, "--inputs", ",".join(ins), "--threads", str(t),
                       "--warmup", str(a.warmup), "--min-time", str(a.min_time)]
                o, err, _ = rm.run_json(cmd)
            if not o:
                errs.append("%s: %s" % (key, (err or "failed").splitlines()[-1]))
                continue
            L = o["latency_ms"]
            res[key].append({"median": L["median"], "min": L["min"], "round": r})
    return res, errs


def cpu_peak(bdir):
    """One core's measured int8 multiply-add rate in GMAC/s (bench/cpu_peak), or None."""
    exe = os.path.join(bdir, "cpu_peak")
    if not os.path.exists(exe):
        return None
    o, _, _ = rm.run_json([exe])
    return (o or {}).get("int8_gmacs")


def peak_share(row, gmac, peak, t):
    """Adds the int8 / ORT QDQ share of the int8 peak and the QDQ ceiling to a row."""
    if not (gmac and peak):
        return
    floor_ms = gmac / (peak * t) * 1e3  # every multiply-add at the peak rate
    row["gmac"] = round(gmac, 3)
    row["peak_pct"] = {k: round(100 * floor_ms / row[k]["median_ms"], 1)
                       for k in ("int8", "ort_qdq") if k in row}
    if "ort_qdq" in row:
        row["speedup_vs_ort_qdq_at_peak"] = round(row["ort_qdq"]["median_ms"] / floor_ms, 3)


def same_round_ratio(res, num, den):
    by = {x["round"]: x["median"] for x in res[den]}
    rat = [x["median"] / by[x["round"]] for x in res[num] if by.get(x["round"], 0) > 0]
    return round(statistics.median(rat), 3) if rat else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-bench", required=True)
    ap.add_argument("--ort-bench", default=None, help="default: next to --mdl-bench")
    ap.add_argument("--quant", default=None, help="openacl-quant (default: next to --mdl-bench)")
    ap.add_argument("--models", default=os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models")))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=1.5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--with-fp32", action="store_true", help="also openacl on the fp32 model")
    ap.add_argument("--calib-n", type=int, default=16)
    ap.add_argument("--eval-n", type=int, default=16)
    ap.add_argument("--method", default=None,
                    help="openacl-quant's calibrator for every model (default: auto for the classifiers, "
                         "percentile for the OCR models)")
    ap.add_argument("--target-cosine", type=float, default=None,
                    help="openacl-quant's accuracy-driven float fallback (e.g. 0.99; default none)")
    ap.add_argument("--cache", default=None, help="quantised models (default: int8_models/ in the build folder)")
    ap.add_argument("--paired", type=float, default=0, metavar="S",
                    help="also S seconds per runtime of in-process paired turns against ORT fp32 and ORT QDQ")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "int8.json"))
    a = ap.parse_args()
    bdir = os.path.dirname(os.path.abspath(a.mdl_bench))
    a.ort_bench = a.ort_bench or os.path.join(bdir, "ort_bench")
    a.quant = a.quant or os.path.join(bdir, "openacl-quant")
    a.cache = a.cache or os.path.join(bdir, "int8_models")
    for p in (a.mdl_bench, a.ort_bench, a.quant):
        if not os.path.exists(p):
            sys.exit("bench: %s not found (build mdl_bench, ort_bench and the tools)" % p)
    if not os.path.exists(os.path.join(a.models, "manifest.json")):
        sys.exit("bench: no %s/manifest.json (run scripts/models.sh)" % a.models)
    only = set(filter(None, a.only.split(",")))
    names = [n for n in STATIC + DYNAMIC if not only or n in only]
    manifest = {m["name"]: m for m in refs.load_manifest(a.models)}
    threads = [int(t) for t in a.threads.split(",") if t]
    peak = cpu_peak(bdir)
    if peak:
        print("one core's int8 multiply-add peak (bench/cpu_peak): %.1f GMAC/s" % peak, flush=True)
    t_start, load0, steal0 = time.time(), os.getloadavg(), rm.cpu_steal()
    if load0[0] > 0.75 * (os.cpu_count() or 1):
        print("warning: load average %.1f on %d CPUs: ratios are noisy" % (load0[0], os.cpu_count()), flush=True)
    hdr = "%-16s%4s%10s%10s%10s%9s%9s  %s" % ("model", "thr", "int8 ms", "ORTfp ms", "ORTq ms", "ORTfp/x",
                                           "ORTq/x", "accuracy vs fp32")
    print(hdr + ("%10s" % "fp32 ms" if a.with_fp32 else ""))
    print("-" * (len(hdr) + (10 if a.with_fp32 else 0)), flush=True)
    rows, pair_rows = [], []
    for name in names:
        m = manifest.get(name)
        if not m:
            print("%-16s not in the manifest" % name)
            continue
        path = os.path.join(a.models, m["file"])
        dynamic = name in DYNAMIC
        try:
            qpath, rep, cached = quantise(a, m, path, dynamic)
        except RuntimeError as e:
            print("%-16s %s" % (name, e), flush=True)
            rows.append({"model": name, "errors": [str(e)]})
            continue
        acc, acc_txt = accuracy_line(rep)
        gmac = None
        if not dynamic:  # bert4's dynamic MatMuls are part float: no int8 peak applies
            try:
                total, _ = macs.count(path)
                gmac = total / 1e9 if total else None
            except Exception as e:  # noqa: BLE001 (an unreadable model costs only this column)
                print("%-16s multiply-adds not counted: %s" % (name, e), flush=True)
        ins = refs.ensure_inputs(a.models, m)
        variants = [("int8", "ours", qpath), ("ort_fp32", "ort", path), ("ort_qdq", "ort", qpath)]
        if a.with_fp32:
            variants.append(("fp32", "ours", path))
        for t in threads:
            st0 = rm.cpu_steal()
            res, errs = time_point(a, variants, ins, t, a.rounds)
            row = {"model": name, "threads": t, "dynamic": dynamic, "accuracy": acc, "errors": errs,
                   "quantise_cached": cached, "steal_pct": rm.steal_pct(st0, rm.cpu_steal()),
                   "loadavg_1min": round(os.getloadavg()[0], 2)}
            for k in res:
                if res[k]:
                    row[k] = rm.summary(res[k])
            if "int8" in row:
                for k in ("ort_fp32", "ort_qdq", "fp32"):
                    if k in row:
                        row["speedup_vs_" + k] = round(row[k]["median_ms"] / row["int8"]["median_ms"], 3)
                        row["speedup_vs_%s_rounds" % k] = same_round_ratio(res, k, "int8")
            peak_share(row, gmac, peak, t)
            tgt = TARGET_DYN if dynamic else TARGET_FP32
            row["targets"] = {"vs_ort_fp32": tgt, "vs_ort_qdq": None if dynamic else TARGET_QDQ}
            rows.append(row)
            g = lambda k: row.get(k, {}).get("median_ms")  # noqa: E731
            line = "%-16s%4d%s%s%s%s%s  %s" % (name, t, rm.fmt(g("int8"), 10, 3), rm.fmt(g("ort_fp32"), 10, 3),
                                               rm.fmt(g("ort_qdq"), 10, 3), rm.fmt(row.get("speedup_vs_ort_fp32"), 9),
                                               rm.fmt(row.get("speedup_vs_ort_qdq"), 9), acc_txt)
            if a.with_fp32:
                line += rm.fmt(g("fp32"), 10, 3)
            if row.get("peak_pct"):
                line += "  peak %s%% (ORTq %s%%)" % (row["peak_pct"].get("int8"), row["peak_pct"].get("ort_qdq"))
            print(line, flush=True)
            for e in errs:
                print("    " + e, flush=True)
        if a.paired > 0:
            pair_rows += paired(a, name, path, qpath, ins, threads)
    geo = {}
    for t in threads:
        for k in ("speedup_vs_ort_fp32", "speedup_vs_ort_qdq"):
            sel = [r for r in rows if r.get("threads") == t and not r.get("dynamic") and r.get(k)]
            gm = rm.geomean([r[k] for r in sel])
            if gm:
                geo["%s_t%d" % (k, t)] = {"geomean": round(gm, 3), "models": len(sel),
                                          "worst": min((r[k], r["model"]) for r in sel)}
        for k in ("vs_ort_fp32", "vs_ort_qdq"):
            sel = [(r[k]["speedup"], r["model"]) for r in pair_rows
                   if r["threads"] == t and r.get(k) and r["model"] not in DYNAMIC]
            if sel:
                geo["paired_%s_t%d" % (k, t)] = {"geomean": round(rm.geomean([v for v, _ in sel]), 3),
                                                 "models": len(sel), "worst": min(sel)}
    out = {"what": "ms per inference, median of per-round medians; int8 = openacl (bench/mdl_bench) on the QDQ "
                   "model from openacl-quant; ort_fp32 / ort_qdq = ORT's C API (bench/ortc/ort_bench) on the "
                   "original and on the same QDQ model; speedup = ORT / openacl int8",
           "date": datetime.datetime.now().isoformat(timespec="seconds"),
           "host": {"cpu": rm.cpu_model(), "nproc": os.cpu_count()}, "ort_version": refs.ort_version(),
           "int8_peak_gmacs_per_core": peak, "threads": threads, "rounds": a.rounds, "min_time_s": a.min_time, "calib_n": a.calib_n,
           "eval_n": a.eval_n, "method": a.method or METHOD, "options": OPTIONS, "target_cosine": a.target_cosine, "wall_s": round(time.time() - t_start, 1),
           "loadavg_start": [round(x, 2) for x in load0], "loadavg_end": [round(x, 2) for x in os.getloadavg()],
           "steal_pct": rm.steal_pct(steal0, rm.cpu_steal()), "geomean": geo, "results": rows,
           "paired_s": a.paired, "paired": pair_rows}
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    print()
    for k, v in geo.items():
        print("%s: geometric mean %.2fx over %d models (lowest %.2fx, %s)" % (k, v["geomean"], v["models"],
                                                                          v["worst"][0], v["worst"][1]))
    print("targets: int8 >= %.1fx ORT fp32 and >= %.1fx ORT on the same QDQ file; bert4 dynamic >= %.1fx ORT fp32. "
          "Written %s in %.0f s" % (TARGET_FP32, TARGET_QDQ, TARGET_DYN, a.out, out["wall_s"]))


if __name__ == "__main__":
    main()
