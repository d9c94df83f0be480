#!/usr/bin/python3
"""A real model's int8 path against ONNX Runtime on the same QDQ file.

Quantises the model of models/ with openacl-quant (tools/quant, min-max over
seeded smooth images from make_calib.py), then on held-out samples compares
openacl's outputs (its int8 convolution path) with ORT's on that same QDQ
file: logits cosine >= 0.999 and the same top-1 (unless ORT's two best are
closer than 1 % of its largest logit). With --atc, also compiles the QDQ and
the fp32 model and checks that the compiled int8 model is at most 30 % of the
fp32 one (packed int8 weights) and gives the ONNX run's outputs.

Usage: qdq_models.py --mdl-run BIN --name resnet50 [--atc BIN] [--quant SCRIPT] [--keep]
Exit codes: 0 pass, 1 fail, 77 skipped (model, quantiser or ORT missing)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import make_calib  # noqa: E402

SKIP = 77
SHAPES = {"resnet50": (1, 3, 224, 224), "mobilenet_v2": (1, 3, 224, 224),
          "efficientnet_b0": (1, 3, 224, 224)}


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} {' '.join(cmd[1:3])} failed (rc {p.returncode}): "
                           f"{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p


def out0(d):
    j = json.load(open(os.path.join(d, "outputs.json")))
    return np.load(os.path.join(d, j["outputs"][0]["file"])).astype(np.float64).ravel()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    ap.add_argument("--name", required=True, choices=sorted(SHAPES))
    ap.add_argument("--models", default=os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models")))
    ap.add_argument("--quant", default=os.path.join(REPO, "tools", "quant", "openacl_quant.py"))
    ap.add_argument("--atc")
    ap.add_argument("--held-out", type=int, default=4)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    model = os.path.join(a.models, a.name + ".onnx")
    ortref = os.path.join(REPO, "tools", "ortref", "ortref.js")
    for what, path in (("model", model), ("openacl-quant", a.quant),
                       ("onnxruntime-node", os.path.join(REPO, "third_party", "npm", "node_modules",
                                                         "onnxruntime-node"))):
        if not os.path.exists(path):
            print(f"SKIP: {what} missing ({path})")
            return SKIP
    work = tempfile.mkdtemp(prefix=f"oa_q_{a.name}_")
    rng = np.random.default_rng(0)
    shape = SHAPES[a.name]
    try:
        calib = os.path.join(work, "calib")
        os.makedirs(calib)
        for i in range(16):
            np.save(os.path.join(calib, f"s{i:02d}.npy"), make_calib.sample(rng, shape))
        qdq = os.path.join(work, a.name + "_qdq.onnx")
        env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(a.mdl_run), "python"))
        run(["/usr/bin/python3", a.quant, model, "-o", qdq, "--calib", calib, "--quiet"], env=env)
        bad = []
        rng = np.random.default_rng(1000)   # held out: not among the calibration samples
        for k in range(a.held_out):
            x = os.path.join(work, f"held{k}.npy")
            np.save(x, make_calib.sample(rng, shape))
            ro, oo = os.path.join(work, f"ort{k}"), os.path.join(work, f"oa{k}")
            run(["node", ortref, "--model", qdq, "--inputs", x, "--outdir", ro])
            run([a.mdl_run, "--model", qdq, "--inputs", x, "--outdir", oo])
            r, o = out0(ro), out0(oo)
            cos = float(r @ o / (np.linalg.norm(r) * np.linalg.norm(o)))
            top = np.argsort(r)[::-1]
            tie = r[top[0]] - r[top[1]] < 0.01 * np.abs(r).max()
            ok = cos >= 0.999 and (o.argmax() == r.argmax() or tie)
            print(f"{'ok  ' if ok else 'FAIL'} sample {k}: cosine {cos:.6f}, top-1 openacl {o.argmax()} "
                  f"ORT {r.argmax()}{' (tie)' if tie else ''}")
            if not ok:
                bad.append(k)
        if a.atc:
            om_q, om_f = os.path.join(work, "int8"), os.path.join(work, "fp32")
            run([a.atc, f"--model={qdq}", "--framework=5", f"--output={om_q}"])
            run([a.atc, f"--model={model}", "--framework=5", f"--output={om_f}"])
            sq, sf = os.path.getsize(om_q + ".om"), os.path.getsize(om_f + ".om")
            x = os.path.join(work, "held0.npy")
            run([a.mdl_run, "--model", om_q + ".om", "--inputs", x, "--outdir", os.path.join(work, "om")])
            d = np.abs(out0(os.path.join(work, "om")) - out0(os.path.join(work, "oa0"))).max()
            scale = np.abs(out0(os.path.join(work, "oa0"))).max()
            ok = sq <= 0.3 * sf and d <= 1e-4 * scale
            print(f"{'ok  ' if ok else 'FAIL'} atc: int8 .om {sq} bytes = {sq / sf:.1%} of the fp32 .om; "
                  f"outputs vs the ONNX run max |diff| {d:.3g} (largest logit {scale:.3g})")
            if not ok:
                bad.append("atc")
        return 1 if bad else 0
    except RuntimeError as e:
        print(f"FAIL: {e}")
        return 1
    finally:
        if a.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
