#!/usr/bin/python3
"""Checks openacl against ONNX Runtime on one real model (or all of them):
seeded inputs -> ORT reference (tools/ortref) and openacl through its public
API (mdl_run) -> compare.

Pass criteria per output: same dtype and shape; for floats
  max_rel = max|a-b| / max(max|b|, eps) <= tolerance (1e-3 by default),
where a is openacl's output and b the reference (so the error is relative to
the output's scale, robust to near-zero elements); integers must match
exactly. Classifiers also need the same top-1 along `top1_axis`, except
where the reference's top two are closer than the allowed error (a tie).

Exit codes: 0 pass, 1 fail, 77 skipped (models or ORT absent: run
scripts/models.sh). Usage:
  check_model.py --mdl-run BIN --name resnet50 [--models DIR] [--keep]
  check_model.py --mdl-run BIN --all"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs  # noqa: E402

SKIP = 77
EPS = 1e-6


def compare(name, a, b, tol, top1_axis):
    """Returns (ok, report dict) for openacl output a vs reference b."""
    r = {"output": name, "shape": list(b.shape), "dtype": str(b.dtype)}
    if a.dtype != b.dtype or a.shape != b.shape:
        r["error"] = f"got {a.dtype}{list(a.shape)}, want {b.dtype}{list(b.shape)}"
        return False, r
    if b.dtype.kind in "fc":
        af, bf = a.astype(np.float64), b.astype(np.float64)
        bad = np.isnan(af) != np.isnan(bf)
        if bad.any():
            r["error"] = f"NaN pattern differs at {int(bad.sum())} elements"
            return False, r
        fin = ~np.isnan(bf)
        diff = np.abs(af[fin] - bf[fin]) if fin.any() else np.zeros(1)
        scale = max(float(np.abs(bf[fin]).max()) if fin.any() else 0.0, EPS)
        r["max_abs"] = float(diff.max())
        r["max_rel"] = r["max_abs"] / scale
        r["ref_absmax"] = scale
        ok = r["max_rel"] <= tol
        if top1_axis is not None and b.ndim:
            ta, tb = np.argmax(af, axis=top1_axis), np.argmax(bf, axis=top1_axis)
            miss = ta != tb
            # A mismatch only counts when the reference separates the two
            # classes by more than the error we allow.
            gap = (np.take_along_axis(bf, np.expand_dims(tb, top1_axis), top1_axis)
                   - np.take_along_axis(bf, np.expand_dims(ta, top1_axis), top1_axis)).squeeze(top1_axis)
            real = miss & (gap > 2 * tol * scale)
            r["top1_same"] = int((~miss).sum())
            r["top1_total"] = int(miss.size)
            r["top1_ties"] = int((miss & ~real).sum())
            if real.any():
                ok = False
                r["error"] = f"top-1 differs at {int(real.sum())} of {miss.size} positions"
        if not ok and "error" not in r:
            r["error"] = f"max_rel {r['max_rel']:.3g} > {tol:g}"
        return ok, r
    eq = a == b
    r["mismatches"] = int((~eq).sum())
    if not eq.all():
        r["error"] = f"{r['mismatches']} integer elements differ"
        return False, r
    return True, r


def check(args, m):
    md = args.models
    if not os.path.exists(os.path.join(md, m["file"])):
        return SKIP, f"{m['name']}: model file missing (run scripts/models.sh)"
    try:
        ref = refs.ensure_ref(md, m)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        return 1, f"{m['name']}: reference failed: {e}"
    if ref is None:
        return SKIP, f"{m['name']}: onnxruntime-node missing (run scripts/setup.sh)"
    ins = refs.input_files(md, m)
    work = tempfile.mkdtemp(prefix=f"oa_{m['name']}_")
    try:
        cmd = [args.mdl_run, "--model", os.path.join(md, m["file"]), "--inputs", ",".join(ins),
               "--outdir", work]
        env = dict(os.environ)
        if args.threads:
            env["OPENACL_THREADS"] = str(args.threads)
        t = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
        wall = time.time() - t
        if p.returncode == SKIP:
            return SKIP, f"{m['name']}: {p.stderr.strip()}"
        if p.returncode != 0:
            return 1, f"{m['name']}: mdl_run failed (rc {p.returncode}):\n{p.stdout}{p.stderr}"
        ours = json.load(open(os.path.join(work, "outputs.json")))
        want = json.load(open(os.path.join(ref, "outputs.json")))
        if len(ours["outputs"]) != len(want["outputs"]):
            return 1, f"{m['name']}: {len(ours['outputs'])} outputs, reference has {len(want['outputs'])}"
        tol = m.get("tolerance", {}).get("max_rel", 1e-3)
        all_ok, lines = True, []
        for i, (o, w) in enumerate(zip(ours["outputs"], want["outputs"])):
            a = np.load(os.path.join(work, o["file"]))
            b = np.load(os.path.join(ref, w["file"]))
            ok, r = compare(w["name"], a, b, tol, m.get("top1_axis"))
            all_ok &= ok
            if o["name"] != w["name"]:
                r["name_note"] = f"openacl calls it '{o['name']}'"
            lines.append(("ok  " if ok else "FAIL") + " " + json.dumps(r))
        head = (f"{m['name']}: {'PASS' if all_ok else 'FAIL'} (load {ours.get('load_ms', 0):.0f} ms, "
                f"first run {ours.get('first_run_ms', 0):.1f} ms, wall {wall:.1f} s)")
        return (0 if all_ok else 1), "\n".join([head] + ["  " + s for s in lines])
    except subprocess.TimeoutExpired:
        return 1, f"{m['name']}: mdl_run timed out after {args.timeout} s"
    finally:
        if args.keep:
            print(f"kept openacl outputs in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    ap.add_argument("--models", default=os.environ.get("OPENACL_MODELS_DIR",
                                                       os.path.join(refs.REPO, "models")))
    ap.add_argument("--name")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--threads", type=int, default=0, help="OPENACL_THREADS for mdl_run")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.models, "manifest.json")):
        print(f"SKIP: no {a.models}/manifest.json (run scripts/models.sh)")
        return SKIP
    if not os.path.exists(a.mdl_run):
        print(f"FAIL: {a.mdl_run} not built")
        return 1
    models = refs.load_manifest(a.models)
    if not a.all:
        models = [m for m in models if m["name"] == a.name]
        if not models:
            print(f"SKIP: model '{a.name}' not in the manifest (run scripts/models.sh)")
            return SKIP
    worst = 0
    for m in models:
        rc, text = check(a, m)
        print(("SKIP: " if rc == SKIP else "") + text, flush=True)
        worst = max(worst, 1 if rc == 1 else 0) if rc != SKIP else worst
    if not a.all and rc == SKIP:
        return SKIP
    return worst


if __name__ == "__main__":
    sys.exit(main())
