#!/usr/bin/python3
"""Markdown tables from bench/results/models.json (run_models.py) for
BENCHMARKS.md: latency and speedup per model and thread count (fp32 and,
when measured, bf16), memory, throughput, and the geometric means.

  results_table.py [--results bench/results/models.json]"""
import argparse
import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def f(v, p=2):
    return f"{v:.{p}f}" if isinstance(v, (int, float)) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(REPO, "bench", "results", "models.json"))
    a = ap.parse_args()
    d = json.load(open(a.results))
    rows = d["results"]
    bf16 = any("bf16" in r for r in rows)
    print(f"Run {d['date']}, {d['host']['cpu']} x{d['host']['nproc']}, ORT {d.get('ort_version')}, "
          f"{d['rounds']} rounds of {d['min_time_s']} s per point, load average "
          f"{d['loadavg_start'][0]:.1f} at start, {d['loadavg_end'][0]:.1f} at end"
          + (f", {d['steal_pct']:.0f} % of the vCPUs' time taken by the host (steal)"
             if isinstance(d.get("steal_pct"), (int, float)) else "") + ".\n")
    rounds = any("speedup_fp32_rounds" in r for r in rows)
    hdr = "| model | thr | openacl fp32 ms (min) | ORT fp32 ms (min) | **fp32 speedup** |"
    sep = "|---|---|---|---|---|"
    if rounds:
        hdr += " same-round |"
        sep += "---|"
    if bf16:
        hdr += " openacl bf16 ms (min) | **bf16 speedup** |"
        sep += "---|---|"
        if rounds:
            hdr += " same-round |"
            sep += "---|"
    print(hdr + " load | steal |")
    print(sep + "---|---|")
    for r in rows:
        o, q, b = r.get("fp32", {}), r.get("ort", {}), r.get("bf16", {})
        line = (f"| {r['model']} | {r['threads']} | {f(o.get('median_ms'), 3)} ({f(o.get('min_ms'), 3)}) | "
                f"{f(q.get('median_ms'), 3)} ({f(q.get('min_ms'), 3)}) | **{f(r.get('speedup_fp32'))}x** |")
        if rounds:
            line += f" {f(r.get('speedup_fp32_rounds'))}x |"
        if bf16:
            line += f" {f(b.get('median_ms'), 3)} ({f(b.get('min_ms'), 3)}) | **{f(r.get('speedup_bf16'))}x** |"
            if rounds:
                line += f" {f(r.get('speedup_bf16_rounds'))}x |"
        loads = r.get("loadavg_1min", [])
        line += f" {min(loads):.1f}-{max(loads):.1f} |" if loads else " - |"
        st = r.get("steal_pct")
        line += f" {st:.0f} % |" if isinstance(st, (int, float)) else " - |"
        if r.get("note"):
            line += f" {r['note']}"
        print(line)
    print()
    for k, v in d.get("geomean", {}).items():
        if k.startswith("paired_"):
            continue
        print(f"- {k}: **{v['geomean']:.2f}x** over {v['models']} target models (lowest {v['worst'][0]:.2f}x, "
              f"{v['worst'][1]})")
    if d.get("paired"):
        vs = [v for v in ("fp32", "bf16") if any(v in p for p in d["paired"])]
        print(f"\nPaired in one process (`--paired {d.get('paired_s', 0):g}`: turns of 0.5 s, "
              f"{d.get('paired_s', 0):g} s per runtime; speedup = median over turn pairs of ORT / openacl):\n")
        print("| model | thr | " + " | ".join(f"openacl {v} ms | ORT ms | **{v} speedup**" for v in vs) + " |")
        print("|---|---|" + "---|---|---|" * len(vs))
        for p in d["paired"]:
            cells = []
            for v in vs:
                q = p.get(v, {})
                cells.append(f"{f(q.get('ours_ms'), 3)} | {f(q.get('ort_ms'), 3)} | **{f(q.get('speedup'))}x**")
            print(f"| {p['model']} | {p['threads']} | " + " | ".join(cells) + " |")
        print()
        for k, v in d.get("geomean", {}).items():
            if k.startswith("paired_"):
                print(f"- {k}: **{v['geomean']:.2f}x** over {v['models']} target models "
                      f"(lowest {v['worst'][0]:.2f}x, {v['worst'][1]})")
    print("\n| model | openacl fp32 MB | openacl bf16 MB | ORT MB |")
    print("|---|---|---|---|")
    for r in rows:
        if r["threads"] != 1:
            continue
        mb = lambda x: f"{x / 1024:.0f}" if isinstance(x, (int, float)) else "-"
        print(f"| {r['model']} | {mb(r.get('fp32', {}).get('mem_kb'))} | {mb(r.get('bf16', {}).get('mem_kb'))} | "
              f"{mb(r.get('ort', {}).get('mem_kb'))} |")
    if d.get("throughput"):
        print("\n| model | openacl inferences/s | ORT inferences/s | ratio |")
        print("|---|---|---|---|")
        import statistics
        for p in d["throughput"]:
            o = statistics.median(p["ours_per_s"]) if p["ours_per_s"] else None
            t = statistics.median(p["ort_per_s"]) if p["ort_per_s"] else None
            print(f"| {p['model']} | {f(o, 1)} | {f(t, 1)} | **{f(p.get('ratio_ours_over_ort'))}x** |")


if __name__ == "__main__":
    main()
