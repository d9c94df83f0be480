#!/usr/bin/python3
"""Checks samples/aipp_dvpp on a real classifier (mobilenet_v2 of
scripts/models.sh; skipped, 77, without it):
  1. the sample's logits equal the plain model's on the numpy AIPP of the very
     bytes VPC gave the model (the AIPP stage, exact up to the two builds of
     the same network: rtol/atol 1e-4, same top-5);
  2. against the float pipeline (libjpeg decode and bilinear resize of the
     RGB image by OpenCV, ImageNet normalisation in numpy, plain model): the
     two 224x224 RGB images differ by at most 4 (8-bit units) on average, the
     logits' cosine similarity is at least 0.98 and at least 3 of the top-5
     classes are shared (VPC resizes the YUV planes, the float pipeline the
     RGB image, so equality is not expected; the models' random weights give
     flat logits, so the top-1 alone is not a fair test).
The sample is either the C program or the Python twin
(samples/python/aipp_dvpp.py); both take <model.om> <image> <out dir>.
Run: check.py <atc> <openacl-run> <models dir> <photo.jpg> <scratch> -- <sample command...>"""
import os
import subprocess
import sys

import numpy as np

if len(sys.argv) < 8 or sys.argv[6] != "--":
    sys.exit("usage: check.py <atc> <openacl-run> <models dir> <photo.jpg> <scratch> -- <sample command...>")
ATC, RUN, MODELS, PHOTO, OUT = sys.argv[1:6]
SAMPLE = sys.argv[7:]
onnx_path = os.path.join(MODELS, "mobilenet_v2.onnx")
if not os.path.exists(onnx_path) or not os.path.exists(PHOTO):
    print("skipped: %s or %s missing (scripts/models.sh, python-matplotlib-data)" % (onnx_path, PHOTO))
    sys.exit(77)
os.makedirs(OUT, exist_ok=True)
MIN = np.array([123.675, 116.28, 103.53], np.float32)
VAR = np.array([0.0171247538316637, 0.0175070028011204, 0.0174291938997821], np.float32)
FULL = np.array([256, 0, 359, 256, -88, -183, 256, 454, 0], np.int64).reshape(3, 3)

cfg = os.path.join(OUT, "aipp.cfg")
with open(cfg, "w") as f:
    f.write("aipp_op {\n  aipp_mode: static\n  input_format: YUV420SP_U8\n  src_image_size_w: 224\n"
            "  src_image_size_h: 224\n  csc_switch: true\n")
    for i, v in enumerate(FULL.ravel()):
        f.write("  matrix_r%dc%d: %d\n" % (i // 3, i % 3, v))
    f.write("  input_bias_0: 0\n  input_bias_1: 128\n  input_bias_2: 128\n")
    for i in range(3):
        f.write("  min_chn_%d: %r\n  var_reci_chn_%d: %r\n" % (i, float(MIN[i]), i, float(VAR[i])))
    f.write("}\n")


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("%s failed:\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return p.stdout


run(ATC, "--model=" + onnx_path, "--framework=5", "--output=" + os.path.join(OUT, "m_aipp"),
    "--insert_op_conf=" + cfg)
print(run(*SAMPLE, os.path.join(OUT, "m_aipp.om"), PHOTO, OUT).strip())
logits = np.fromfile(os.path.join(OUT, "logits.bin"), np.float32)
yuv = np.fromfile(os.path.join(OUT, "yuv.bin"), np.uint8)


def plain(x, name):
    path = os.path.join(OUT, name + ".bin")
    x.astype(np.float32).tofile(path)
    run(RUN, "--model", onnx_path, "--input", path, "--output", OUT, "--output_dirname", name, "--warmup_count", "0")
    d = os.path.join(OUT, name)
    return np.fromfile(os.path.join(d, sorted(os.listdir(d))[0]), np.float32)


# 1. numpy AIPP of the bytes the model read
y = yuv[:224 * 224].reshape(224, 224).astype(np.int64)
uv = yuv[224 * 224:].reshape(112, 112, 2).astype(np.int64).repeat(2, 0).repeat(2, 1)
px = np.stack([y, uv[..., 0], uv[..., 1]], -1) - np.array([0, 128, 128])
rgb = np.clip((px @ FULL.T + 128) >> 8, 0, 255)
x = ((rgb.astype(np.float32) - MIN) * VAR).transpose(2, 0, 1)[None]
ref = plain(x, "numpy_aipp")
top = lambda v: list(np.argsort(-v)[:5])
fails = []
if not np.allclose(logits, ref, rtol=1e-4, atol=1e-4) or top(logits) != top(ref):
    fails.append("AIPP model vs numpy AIPP + plain model: max diff %g, top-5 %s vs %s" %
                 (np.abs(logits - ref).max(), top(logits), top(ref)))
print("AIPP vs numpy AIPP: max |diff| %.3g, top-5 %s" % (np.abs(logits - ref).max(), top(ref)))

# 2. the float pipeline
import cv2  # noqa: E402
img = cv2.resize(cv2.cvtColor(cv2.imread(PHOTO), cv2.COLOR_BGR2RGB), (224, 224), interpolation=cv2.INTER_LINEAR)
xf = ((img.astype(np.float32) - MIN) * VAR).transpose(2, 0, 1)[None]
flt = plain(xf, "float_pipeline")
cos = float(logits @ flt / (np.linalg.norm(logits) * np.linalg.norm(flt)))
shared = len(set(top(logits)) & set(top(flt)))
mad = float(np.abs(rgb.astype(np.float32) - img.astype(np.float32)).mean())
print("AIPP pipeline vs float pipeline: images mean |diff| %.2f (8-bit units), top-5 %s vs %s (%d shared), "
      "cosine %.4f" % (mad, top(logits), top(flt), shared, cos))
# the stated tolerance: these random-weight models have flat logits (top-1
# margins of 1e-3), so the classes are compared as a set
if mad > 4.0 or cos < 0.98 or shared < 3:
    fails.append("vs the float pipeline: images mean |diff| %.2f (> 4?), cosine %.4f (< 0.98?), %d of the top-5 "
                 "shared (< 3?)" % (mad, cos, shared))
for f in fails:
    print("FAIL " + f)
sys.exit(1 if fails else 0)
