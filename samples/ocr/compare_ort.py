#!/usr/bin/python3
"""Runs the OCR sample on one image with --dump (each model's first input
and output as .npy), feeds the same inputs to ONNX Runtime (tools/ortref)
and prints how far openacl's outputs are from ORT's.

    compare_ort.py --ocr BUILD/ocr IMAGE [--workdir DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "third_party", "npm", "node_modules", "@gutenye", "ocr-models", "assets")
FILES = {"det": "ch_PP-OCRv4_det_infer.onnx", "cls": "ch_ppocr_mobile_v2.0_cls_infer.onnx",
         "rec": "ch_PP-OCRv4_rec_infer.onnx"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ocr", required=True)
    ap.add_argument("--models", default=os.environ.get("OPENACL_OCR_MODELS", MODELS))
    ap.add_argument("--workdir")
    ap.add_argument("image")
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="ocr_vs_ort.")
    dump = os.path.join(work, "openacl")
    subprocess.run([a.ocr, "--models", a.models, "--dump", dump, a.image], check=True, stdout=subprocess.DEVNULL)
    worst = 0.0
    for tag, fname in FILES.items():
        inp = os.path.join(dump, f"{tag}_input.npy")
        ref = os.path.join(work, f"ort_{tag}")
        subprocess.run(["node", os.path.join(ROOT, "tools", "ortref", "ortref.js"), "--model",
                        os.path.join(a.models, fname), "--inputs", inp, "--outdir", ref], check=True,
                       stdout=subprocess.DEVNULL)
        ours = np.load(os.path.join(dump, f"{tag}_output.npy"))
        theirs = np.load(os.path.join(ref, "output_0.npy"))
        if ours.shape != theirs.shape:
            print(f"{tag}: shape {ours.shape} vs ORT {theirs.shape}")
            worst = float("inf")
            continue
        diff = np.abs(ours.astype(np.float64) - theirs)
        rel = diff.max() / max(np.abs(theirs).max(), 1e-6)
        worst = max(worst, rel)
        extra = ""
        if tag == "det":
            extra = f", pixels on different sides of 0.3: {int(((ours > 0.3) != (theirs > 0.3)).sum())}"
        else:
            extra = f", argmax equal: {float((ours.argmax(-1) == theirs.argmax(-1)).mean()) * 100:.1f}%"
        print(f"{tag}: input {tuple(np.load(inp, mmap_mode='r').shape)} output {ours.shape}: "
              f"max|diff| {diff.max():.3g}, max_rel {rel:.3g}, mean|diff| {diff.mean():.3g}{extra}")
    print(f"worst max_rel {worst:.3g} (files in {work})")
    return 0 if worst <= 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
