#!/usr/bin/python3
"""A real model with batch gears against ONNX Runtime: mobilenet_v2 from
models/ (scripts/models.sh) compiled by atc with --dynamic_batch_size=1,2,4,
run by openacl-run for each gear, each output row compared with ORT's output
for that sample alone (the ONNX file is batch 1; the network treats samples
independently). Exits 77 (skipped) without the model set.
Run: real_model.py <atc> <openacl-run> <scratch dir>"""
import json
import os
import subprocess
import sys

import numpy as np

ATC, RUN, SCRATCH = sys.argv[1:4]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models"))
ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")
onnx_path = os.path.join(MODELS, "mobilenet_v2.onnx")
if not os.path.exists(onnx_path) or not os.path.exists(ORTREF):
    print("real_model: %s not built (scripts/models.sh): skipped" % onnx_path)
    sys.exit(77)
os.makedirs(SCRATCH, exist_ok=True)


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    if p.returncode != 0:
        sys.exit("real_model: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:],
                                                         p.stderr[-2000:]))
    return p


om = os.path.join(SCRATCH, "mobilenet_v2_b124")
sh([ATC, "--model=" + onnx_path, "--framework=5", "--output=" + om, "--input_shape=input:-1,3,224,224",
    "--dynamic_batch_size=1,2,4", "--soc_version=Ascend310"])
om += ".om"

rng = np.random.default_rng(7)
x = rng.uniform(-1, 1, (4, 3, 224, 224)).astype(np.float32)
ref = []
for i in range(4):
    f = os.path.join(SCRATCH, "sample%d.npy" % i)
    np.save(f, x[i:i + 1])
    d = os.path.join(SCRATCH, "ort%d" % i)
    sh(["node", ORTREF, "--model", onnx_path, "--inputs", f, "--outdir", d])
    ref.append(np.load(os.path.join(d, "output_0.npy")))
ref = np.concatenate(ref)

worst = 0.0
for b in (1, 2, 4):
    f = os.path.join(SCRATCH, "batch%d.npy" % b)
    np.save(f, x[:b])
    sh([RUN, "--model", om, "--input", f, "--dymBatch", str(b), "--output", SCRATCH, "--output_dirname",
        "gear%d" % b, "--outfmt", "NPY"])
    out_dir = os.path.join(SCRATCH, "gear%d" % b)
    files = [n for n in os.listdir(out_dir) if n.endswith("_output_0.npy")]
    if len(files) != 1:
        sys.exit("real_model: gear %d: no single output file in %s: %s" % (b, out_dir, os.listdir(out_dir)))
    y = np.load(os.path.join(out_dir, files[0]))
    if y.shape != (b, ref.shape[1]):
        sys.exit("real_model: gear %d output shape %s, expected %s" % (b, y.shape, (b, ref.shape[1])))
    err = np.abs(y - ref[:b]).max() / (np.abs(ref[:b]).max() + 1e-6)
    worst = max(worst, float(err))
    print("gear %d: max |openacl - ORT| / max|ORT| = %.2e" % (b, err))
    if not err < 1e-3:
        sys.exit("real_model: gear %d differs from ONNX Runtime (relative %.3g)" % (b, err))
print("real_model: mobilenet_v2 batch gears 1,2,4 agree with ONNX Runtime (worst %.2e)" % worst)
