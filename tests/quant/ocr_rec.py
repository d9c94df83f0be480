#!/usr/bin/python3
"""OCR recognition after quantisation: the PP-OCRv4 recogniser of the OCR
sample, quantised by openacl-quant on rendered text lines (none of them the
demo's), must read the demo's lines (scripts/demo.sh) exactly as the fp32
recogniser does, with the same detector and classifier. --with-det
quantises the detector too, calibrated on rendered pages of other text
through openacl-quant's image preprocessing (BGR, ImageNet mean/std, as
samples/ocr/prep.c feeds it).

  ocr_rec.py --ocr BUILD/ocr --work DIR [--models ASSETS] [--with-det]

Calibration data: --calib-n lines of other text rendered with DejaVu Sans
by Pillow, cropped to the ink, preprocessed as samples/ocr/prep.c does for
the recogniser (height 48, aspect kept, x * 2/255 - 1, zero padding to the
width 320). Exit 77 when the models, the ocr sample, Pillow or the font are
missing."""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOOL = os.environ.get("OPENACL_QUANT") or os.path.join(REPO, "tools", "quant", "openacl_quant.py")
ASSETS = os.path.join(REPO, "third_party", "npm", "node_modules", "@gutenye", "ocr-models", "assets")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DEMO = ["openacl runs AscendCL", "on any CPU 2026", "det + cls + rec in 1 context"]
FILES = {"det": "ch_PP-OCRv4_det_infer.onnx", "cls": "ch_ppocr_mobile_v2.0_cls_infer.onnx",
         "rec": "ch_PP-OCRv4_rec_infer.onnx", "keys": "ppocr_keys_v1.txt"}
WORDS = ("model tensor kernel stream device context memory thread quantise scale zero point layer "
         "batch image line text read write queue event graph node input output float int8 uint8 "
         "Paris 1984 x7 QDQ VNNI ONNX calibrate bias weight channel").split()


def line_sample(text, font, height=48, width=320):
    from PIL import Image, ImageDraw
    img = Image.new("RGB", (40 + 30 * len(text), 90), "white")
    ImageDraw.Draw(img).text((20, 15), text, fill="black", font=font)
    a = np.asarray(img)
    ink = np.argwhere(a.min(axis=2) < 128)
    (y0, x0), (y1, x1) = ink.min(axis=0), ink.max(axis=0)
    crop = img.crop((max(x0 - 6, 0), max(y0 - 6, 0), x1 + 7, y1 + 7))
    rw = min(width, max(1, int(np.ceil(height * crop.width / crop.height))))
    r = np.asarray(crop.resize((rw, height), Image.BILINEAR), np.float32)
    x = np.zeros((1, 3, height, width), np.float32)
    x[0, :, :, :rw] = r.transpose(2, 0, 1) * (2.0 / 255.0) - 1.0
    return x


def read_lines(ocr, models, img, tsv):
    p = subprocess.run([ocr, "--models", models, "--tsv", tsv, img], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("ocr failed: %s" % p.stderr[-1000:])
    return [line.rstrip("\n").split("\t")[-1] for line in open(tsv)]


def det_size(w, h, limit=960):
    """samples/ocr/prep.c's ocr_det_size."""
    r = min(1.0, limit / max(w, h))
    return max(32, int(round(int(h * r) / 32.0)) * 32), max(32, int(round(int(w * r) / 32.0)) * 32)


def quantise_det(a, qdir, demo_img, rng, pages=12):
    from PIL import Image
    cal = os.path.join(a.work, "det_calib")
    os.makedirs(cal, exist_ok=True)
    for i in range(pages):
        lines = [" ".join(rng.choice(WORDS, size=int(rng.integers(2, 5)))) for _ in range(int(rng.integers(2, 5)))]
        subprocess.run([sys.executable, os.path.join(REPO, "samples", "ocr", "render_text.py"),
                        os.path.join(cal, "p%02d.png" % i), *lines, "--size", str(int(rng.integers(36, 60)))],
                       check=True)
    with Image.open(demo_img) as im:
        h, w = det_size(im.width, im.height)
    p = subprocess.run(["/usr/bin/python3", TOOL, os.path.join(a.models, FILES["det"]), "--calib", cal,
                        "-o", os.path.join(qdir, FILES["det"]), "--method", a.method, "--quiet",
                        "--resize", "%dx%d" % (h, w), "--channel-order", "BGR", "--mean", "0.485,0.456,0.406",
                        "--std", "0.229,0.224,0.225", "--report", os.path.join(a.work, "det_report.json")]
                       + (["--equalize"] if a.det_equalize else []),
                       capture_output=True, text=True)
    print(p.stdout)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
    return p.returncode


def edits(a, b):
    """Levenshtein distance of two strings."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[len(b)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ocr", required=True)
    ap.add_argument("--models", default=os.environ.get("OPENACL_OCR_MODELS", ASSETS))
    ap.add_argument("--work", required=True)
    ap.add_argument("--calib-n", type=int, default=24)
    ap.add_argument("--method", default="percentile")
    ap.add_argument("--with-det", action="store_true", help="quantise the detector too")
    ap.add_argument("--det-equalize", action="store_true", help="quantise the detector with --equalize")
    a = ap.parse_args()
    try:
        from PIL import ImageFont
    except ImportError:
        print("skip: no Pillow")
        return 77
    if not os.path.exists(a.ocr) or not all(os.path.exists(os.path.join(a.models, f)) for f in FILES.values()) \
            or not os.path.exists(FONT):
        print("skip: the ocr sample, the PP-OCR models or the font is missing")
        return 77
    os.makedirs(a.work, exist_ok=True)
    font = ImageFont.truetype(FONT, 40)
    rng = np.random.default_rng(7)
    cal = os.path.join(a.work, "calib")
    os.makedirs(cal, exist_ok=True)
    for i in range(a.calib_n):
        text = " ".join(rng.choice(WORDS, size=int(rng.integers(2, 5))))
        np.save(os.path.join(cal, "l%03d.npy" % i), line_sample(text, font))
    qdir = os.path.join(a.work, "models_int8")
    os.makedirs(qdir, exist_ok=True)
    for k in ("det", "cls", "keys"):
        shutil.copy(os.path.join(a.models, FILES[k]), os.path.join(qdir, FILES[k]))
    q = os.path.join(qdir, FILES["rec"])
    p = subprocess.run(["/usr/bin/python3", TOOL, os.path.join(a.models, FILES["rec"]), "--calib", cal, "-o", q,
                        "--method", a.method, "--quiet", "--report", os.path.join(a.work, "rec_report.json")],
                       capture_output=True, text=True)
    print(p.stdout)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        return 1
    img = os.path.join(a.work, "demo.png")
    subprocess.run([sys.executable, os.path.join(REPO, "samples", "ocr", "render_text.py"), img, *DEMO,
                    "--size", "48"], check=True)
    if a.with_det and quantise_det(a, qdir, img, rng) != 0:
        return 1
    fp = read_lines(a.ocr, a.models, img, os.path.join(a.work, "fp32.tsv"))
    i8 = read_lines(a.ocr, qdir, img, os.path.join(a.work, "int8.tsv"))
    # The target is the recogniser: int8 rec on fp32 boxes reads every
    # line exactly as fp32 does. With the detector quantised too, its boxes
    # move by about a pixel and the crops the recogniser reads change with
    # them, so the stated tolerance there is the same lines, each within one
    # edited character of fp32's (measured: one letter of one line).
    slack = 1 if a.with_det else 0
    ok = len(fp) == len(DEMO) and len(i8) == len(fp) and all(edits(x, y) <= slack for x, y in zip(fp, i8))
    for k, exp in enumerate(DEMO):
        print("  drawn %-32r fp32 %-32r int8 rec %-32r %s" % (
            exp, fp[k] if k < len(fp) else None, i8[k] if k < len(i8) else None,
            "same" if k < len(fp) and k < len(i8) and fp[k] == i8[k] else
            "%d edit(s)" % edits(fp[k], i8[k]) if k < len(fp) and k < len(i8) else "MISSING"))
    print("int8: rec%s" % (" and det" if a.with_det else ""))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
