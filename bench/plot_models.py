#!/usr/bin/python3
"""Plots bench/results/models.json (run_models.py): per model and thread
count, the speedup over ONNX Runtime float32 (ORT ms / openacl ms, higher is
better; 1.0 = parity) of openacl float32 and, when measured, bfloat16. Rows
whose ORT time is mostly the Node binding's own cost (a tiny MLP) are left
out: their ratio means nothing.

  plot_models.py [--results bench/results/models.json] [--out bench/results/models.png]

Needs python3-matplotlib (scripts/setup.sh installs it)."""
import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(REPO, "bench", "results", "models.json"))
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results", "models.png"))
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_models: python3-matplotlib is missing (scripts/setup.sh installs it)")
    res = json.load(open(a.results))
    # rows whose ORT time is mostly the Node binding's cost have no meaningful ratio
    rows = [r for r in res["results"] if not r.get("note")]
    threads = sorted({r["threads"] for r in rows})
    models = []
    for r in rows:
        if r["model"] not in models:
            models.append(r["model"])
    series = [("fp32", "speedup_fp32", "#3b6ea8")]
    if any("speedup_bf16" in r for r in rows):
        series.append(("bf16", "speedup_bf16", "#e08a2c"))
    fig, axes = plt.subplots(len(threads), 1, figsize=(max(8, 0.9 * len(models) + 2), 3.4 * len(threads)),
                             squeeze=False)
    width = 0.8 / len(series)
    for ax, t in zip(axes[:, 0], threads):
        by = {r["model"]: r for r in rows if r["threads"] == t}
        for k, (label, key, color) in enumerate(series):
            xs, ys = [], []
            for i, m in enumerate(models):
                v = by.get(m, {}).get(key)
                if v:
                    xs.append(i + (k - (len(series) - 1) / 2) * width)
                    ys.append(v)
            bars = ax.bar(xs, ys, width, label=f"openacl {label}", color=color)
            for b, y in zip(bars, ys):
                ax.text(b.get_x() + b.get_width() / 2, y, f"{y:.2f}", ha="center", va="bottom", fontsize=7)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(models)))
        ax.set_xticklabels(models, rotation=30, ha="right", fontsize=8)
        loads = [x for r in by.values() for x in r.get("loadavg_1min", [])]
        load = f", load average {min(loads):.1f}-{max(loads):.1f}" if loads else ""
        ax.set_title(f"{t} thread{'s' if t > 1 else ''}: speedup over ONNX Runtime {res.get('ort_version', '')} "
                     f"float32 (ORT ms / openacl ms){load}", fontsize=9)
        ax.set_ylabel("speedup (x)")
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"openacl vs ONNX Runtime, {res['host']['cpu']} x{res['host']['nproc']}, {res['date']}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"plot_models: wrote {a.out}")


if __name__ == "__main__":
    main()
