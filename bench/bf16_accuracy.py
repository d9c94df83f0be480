#!/usr/bin/python3
"""Accuracy of openacl's bfloat16 mode against ONNX Runtime float32.

For each model, N seeded random inputs (the manifest's generators with other
seeds) run through ORT float32 (one Node process, tools/ortref's npy I/O),
openacl float32 and openacl with OPENACL_PRECISION=bf16 (tests/models'
mdl_run, public API). Reports per precision: top-1 agreement with ORT (per
row of the last axis for classifiers and recognisers), the largest absolute
error as a share of the reference's range, and the mean relative L2 error.
The models' weights are random (no pretrained weights offline), so their
top-1 margins are far smaller than a trained network's: agreement here is a
pessimistic figure.

  bf16_accuracy.py --mdl-run BUILD/mdl_run [--only resnet50,...] [--n 16] [--out FILE]"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import refs  # noqa: E402
import gen_inputs  # noqa: E402

DEFAULT = ["resnet50", "mobilenet_v2", "efficientnet_b0", "mobilenet_v3_large", "shufflenet_v2_x1_0",
           "ocr_cls", "ocr_rec", "bert4"]

ORT_JS = r"""
const path = require('path');
const repo = process.argv[1], model = process.argv[2], list = JSON.parse(process.argv[3]);
const npy = require(path.join(repo, 'tools', 'ortref', 'npy.js'));
const ort = require(path.join(repo, 'third_party', 'npm', 'node_modules', 'onnxruntime-node'));
(async () => {
  const s = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
  for (const job of list) {
    const feeds = {};
    job.inputs.forEach((f, i) => { const a = npy.read(f); feeds[s.inputNames[i]] = new ort.Tensor(a.dtype, a.data, a.shape); });
    const r = await s.run(feeds);
    s.outputNames.forEach((n, i) => { const t = r[n]; npy.write(path.join(job.out, `output_${i}.npy`), t.type, t.dims, t.data); });
  }
})().catch((e) => { process.stderr.write(String(e) + '\n'); process.exit(1); });
"""


def run_ours(mdl_run, model, inputs, outdir, env):
    os.makedirs(outdir, exist_ok=True)
    p = subprocess.run([mdl_run, "--model", model, "--inputs", ",".join(inputs), "--outdir", outdir],
                       capture_output=True, text=True, env=env)
    if p.returncode:
        raise RuntimeError(p.stderr[-400:])


def compare(ref, got, top1_axis):
    ref, got = ref.astype(np.float64), got.astype(np.float64)
    rng = float(ref.max() - ref.min()) or 1.0
    res = {"max_abs_over_range": float(np.abs(ref - got).max() / rng),
           "rel_l2": float(np.linalg.norm(ref - got) / (np.linalg.norm(ref) or 1.0))}
    if top1_axis is not None:
        a, b = ref.argmax(axis=top1_axis), got.argmax(axis=top1_axis)
        res["top1_same"], res["top1_total"] = int((a == b).sum()), int(a.size)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    ap.add_argument("--models", default=os.path.join(REPO, "models"))
    ap.add_argument("--only", default="")
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results", "bf16_accuracy.json"))
    a = ap.parse_args()
    names = [x for x in a.only.split(",") if x] or DEFAULT
    man = {m["name"]: m for m in refs.load_manifest(a.models)}
    report = {"what": "openacl fp32 and bf16 outputs vs ONNX Runtime fp32 on N seeded random inputs per model "
                      "(random-weight models: small top-1 margins)", "n": a.n, "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            m = man.get(name)
            if not m:
                print(f"{name}: not in the manifest, skipped")
                continue
            model = os.path.join(a.models, m["file"])
            jobs = []
            for k in range(a.n):
                d = os.path.join(tmp, name, str(k))
                meta = gen_inputs.write_set(name, m["inputs"], os.path.join(d, "in"), 1000 + k)
                jobs.append({"inputs": [os.path.join(d, "in", i["file"]) for i in meta["inputs"]],
                             "out": os.path.join(d, "ort")})
                os.makedirs(jobs[-1]["out"], exist_ok=True)
            p = subprocess.run(["node", "-e", ORT_JS, REPO, model, json.dumps(jobs)], capture_output=True, text=True)
            if p.returncode:
                print(f"{name}: ORT failed: {p.stderr[-300:]}")
                continue
            axis = m.get("top1_axis")
            per = {}
            for prec in ("fp32", "bf16"):
                env = dict(os.environ, OPENACL_THREADS="1", OPENACL_PRECISION=prec)
                rows = []
                for k, job in enumerate(jobs):
                    od = os.path.join(tmp, name, str(k), prec)
                    run_ours(a.mdl_run, model, job["inputs"], od, env)
                    ref = np.load(os.path.join(job["out"], "output_0.npy"))
                    got = np.load(os.path.join(od, "output_0.npy"))
                    rows.append(compare(ref, got, axis))
                agg = {"max_abs_over_range": max(r["max_abs_over_range"] for r in rows),
                       "mean_rel_l2": float(np.mean([r["rel_l2"] for r in rows]))}
                if axis is not None:
                    agg["top1_same"] = sum(r["top1_same"] for r in rows)
                    agg["top1_total"] = sum(r["top1_total"] for r in rows)
                per[prec] = agg
            report["models"][name] = per
            line = f"{name:<20}"
            for prec in ("fp32", "bf16"):
                g = per[prec]
                t1 = f" top-1 {g['top1_same']}/{g['top1_total']}" if "top1_total" in g else ""
                line += f"  {prec}: max err {100 * g['max_abs_over_range']:.3f} % of range, rel L2 " \
                        f"{100 * g['mean_rel_l2']:.3f} %{t1}"
            print(line, flush=True)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(report, f, indent=1)
    print(f"written {a.out}")


if __name__ == "__main__":
    main()
