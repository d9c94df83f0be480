#!/usr/bin/python3
"""Stand-in for mdl_run that answers with ONNX Runtime's own outputs,
optionally perturbed (FAKE_PERTURB=<relative error>, FAKE_SWAP_TOP1=1), so
the harness's self-test can prove check_model.py passes and fails correctly."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--model")
ap.add_argument("--inputs")
ap.add_argument("--outdir")
a = ap.parse_args()
subprocess.run(["node", os.path.join(REPO, "tools", "ortref", "ortref.js"), "--model", a.model,
                "--inputs", a.inputs, "--outdir", a.outdir], check=True)
meta = json.load(open(os.path.join(a.outdir, "outputs.json")))
rel = float(os.environ.get("FAKE_PERTURB", "0"))
for o in meta["outputs"]:
    p = os.path.join(a.outdir, o["file"])
    x = np.load(p)
    if rel and x.dtype.kind == "f":
        x = x + (rel * np.abs(x).max() * np.linspace(-1, 1, x.size).reshape(x.shape)).astype(x.dtype)
    if os.environ.get("FAKE_SWAP_TOP1") == "1" and x.dtype.kind == "f":
        flat = x.reshape(-1, x.shape[-1])
        for row in flat:  # move the winner to the loser's place
            i, j = row.argmax(), row.argmin()
            row[i], row[j] = row[j], row[i]
        x = flat.reshape(x.shape)
    np.save(p, x)
meta["load_ms"] = meta["first_run_ms"] = 0
json.dump(meta, open(os.path.join(a.outdir, "outputs.json"), "w"))
sys.exit(0)
