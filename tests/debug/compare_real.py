#!/usr/bin/python3
"""openacl-compare on a real model compiled for bf16 (models/ from
scripts/models.sh): every node of the compiled model gets its output's
cosine similarity reported, every other ONNX tensor is accounted for as
fused, and the final output still agrees (cosine >= 0.99).

  compare_real.py ATC COMPARE MODELS_DIR NAME WORK_DIR
Exit 77 (skipped) when the model has not been built."""
import csv
import json
import os
import subprocess
import sys

atc, compare, models, name, work = sys.argv[1:6]
onnx_path = os.path.join(models, name + ".onnx")
x = os.path.join(models, "data", name, "input_0.npy")
if not (os.path.exists(onnx_path) and os.path.exists(x)):
    print("skipped: %s not built (make models)" % onnx_path)
    sys.exit(77)
os.makedirs(work, exist_ok=True)
om = os.path.join(work, name + "_bf16")
subprocess.run([atc, "--model=" + onnx_path, "--framework=5", "--output=" + om, "--soc_version=Ascend310",
                "--precision_mode=allow_mix_precision_bf16"], check=True, stdout=subprocess.DEVNULL)
out = os.path.join(work, "cmp")
r = subprocess.run([compare, "--golden", onnx_path, "--model", om + ".om", "--input", x, "--output", out],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(r.stdout[-3000:])
assert r.returncode == 0
rows = list(csv.DictReader(open(os.path.join(out, "compare.csv"))))
idx = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(out, "compiled", "dump")) for f in fs
       if f == "dump_index.json"]
nodes = {e["node"] for e in json.load(open(idx[0]))["files"] if e["io"] == "output"}
compared = {r["compiled_node"] for r in rows if r["cosine"]}
missing = nodes - compared
assert not missing, "compiled nodes without a cosine: %s" % sorted(missing)[:10]
assert all(r["cosine"] or r["status"].startswith("fused into") for r in rows), \
    [r for r in rows if not r["cosine"] and not r["status"].startswith("fused into")][:5]
assert float(rows[-1]["cosine"]) >= 0.99, rows[-1]
print("compare_real: %d compiled nodes, all with a cosine; final output cosine %s" % (len(nodes), rows[-1]["cosine"]))
