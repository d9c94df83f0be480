"""Shared harness of the kernels_nn Python checks (deconv_post.py, resize_up.py):
each case is a small ONNX model and an input; ONNX Runtime (tools/ortref) gives
the expected output, and mdl_run runs the model once per mode (a set of
environment switches). A check function compares one mode's output with ORT's.
A case may also name a line of the info log and whether the first mode must
print it (which implementation path a layer took)."""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
import onnx

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")


def have_ort():
    return os.path.isdir(os.path.join(REPO, "third_party", "npm", "node_modules", "onnxruntime-node"))


def outputs(d):
    j = json.load(open(os.path.join(d, "outputs.json")))
    return [np.load(os.path.join(d, o["file"])) for o in j["outputs"]]


def diff_vs_ort(got, want, rel):
    """None when got matches ORT's want in shape, dtype and values within
    rel times the larger of 1 and want's largest magnitude; else why not."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{got.shape} vs ORT {want.dtype}{want.shape}"
    d = float(np.abs(got.astype(np.float64) - want).max())
    tol = rel * max(1.0, float(np.abs(want).max()))
    return f"max diff {d:.3g} (tolerance {tol:.3g})" if d > tol else None


LOG_ENV = {"ASCEND_GLOBAL_LOG_LEVEL": "1", "ASCEND_SLOG_PRINT_TO_STDOUT": "1"}


def _one(mdl_run, work, name, m, x, modes, check, log=None):
    mp, xp = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".npy")
    onnx.save(m, mp)
    np.save(xp, x)
    ref = os.path.join(work, name + "_ort")
    subprocess.run(["node", ORTREF, "--model", mp, "--inputs", xp, "--outdir", ref], check=True,
                   capture_output=True, timeout=600)
    want = outputs(ref)[0]
    bad = []
    for k, (mode, extra) in enumerate(modes):
        out = os.path.join(work, f"{name}_{mode}")
        env = dict(os.environ, **extra, **(LOG_ENV if log and k == 0 else {}))
        p = subprocess.run([mdl_run, "--model", mp, "--inputs", xp, "--outdir", out],
                           capture_output=True, text=True, env=env, timeout=600)
        if p.returncode:
            bad.append(f"{mode}: rc {p.returncode} {p.stderr.strip()[:200]}")
            continue
        if log and k == 0 and (log[0] in p.stdout + p.stderr) != log[1]:
            bad.append(f"{mode}: the info log {'lacks' if log[1] else 'has'} \"{log[0]}\"")
        msg = check(outputs(out)[0], want)
        if msg:
            bad.append(f"{mode}: {msg}")
    return bad


def run_cases(mdl_run, prefix, cases):
    """cases: iterable of (name, model, input, modes, check[, log]); log is
    (text, expected): whether the first mode's info log holds text. Prints a
    line per case; returns the exit code (0 pass, 1 fail, 77 without ONNX
    Runtime)."""
    if not have_ort():
        print("SKIP: onnxruntime-node missing (run scripts/setup.sh)")
        return 77
    work = tempfile.mkdtemp(prefix=prefix)
    fails = 0
    try:
        for name, m, x, modes, check, *log in cases:
            bad = _one(mdl_run, work, name, m, x, modes, check, log[0] if log else None)
            print(("ok   " if not bad else "FAIL ") + name + ("" if not bad else ": " + "; ".join(bad)))
            fails += bool(bad)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if fails else 0


def main(doc, prefix, cases):
    """A check script's command line (--mdl-run, its docstring's first line
    as the description), then run_cases over cases, an iterable built as it
    is read (so a generator makes each model only when its turn comes)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    a = ap.parse_args()
    return run_cases(a.mdl_run, prefix, cases)
