#!/usr/bin/python3
"""openacl-run on a real model built by scripts/models.sh: its stored input
(.npy) in, the NPY output compared with the ONNX Runtime reference within
the manifest's tolerance. Exits 77 (skip) when models/ lacks the model.
Run: real_model.py <openacl-run> <models-dir> <name> <scratch-dir>"""
import json
import os
import subprocess
import sys

import numpy as np

run, models, name, scratch = sys.argv[1:5]
manifest = os.path.join(models, "manifest.json")
model = os.path.join(models, name + ".onnx")
inp = os.path.join(models, "data", name, "input_0.npy")
ref = os.path.join(models, "ref", name, "output_0.npy")
if not all(os.path.exists(f) for f in (manifest, model, inp, ref)):
    print("skip: %s not built (bash scripts/models.sh)" % name)
    sys.exit(77)
entry = next(m for m in json.load(open(manifest))["models"] if m["name"] == name)
tol = entry.get("tolerance", {}).get("max_rel", 1e-3)

os.makedirs(scratch, exist_ok=True)
r = subprocess.run([run, "--model", model, "--input", inp, "--output", scratch, "--output_dirname", "r",
                    "--outfmt", "NPY", "--loop", "3", "--json", "-"], capture_output=True, text=True, timeout=250)
if r.returncode:
    sys.exit("openacl-run failed (%d):\n%s" % (r.returncode, r.stderr))
summary = json.loads(r.stdout)
got = np.load(os.path.join(scratch, "r", "%s_output_0.npy" % name))
want = np.load(ref)
rel = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-12))
print("%s: max rel diff %.2e (tolerance %.0e), mean latency %.2f ms, load %.1f ms" % (
    name, rel, tol, summary["latency_ms"]["mean"], summary["load_ms"]))
assert got.shape == want.shape, (got.shape, want.shape)
assert rel <= tol, rel
assert summary["inferences"] == 3
