#!/usr/bin/python3
"""End-to-end check of samples/ocr: renders known text (Pillow, DejaVu Sans),
runs the OCR sample (real PP-OCRv4 models through openacl) and compares
what it read with what was drawn.

Per line the read text must be within a small edit distance of the drawn
one: at most 1 edit once spaces are removed, at most 3 counting spaces (the
Chinese+English PP-OCRv4 recogniser sometimes drops the narrow spaces of
English text), and each box must overlap the line's ink (IoU >= 0.4).
Case 2 turns the image upside down and saves it as JPEG: every line must be
turned back by the angle classifier. Exit 77 (skip) when the models, Pillow
or the font are missing.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RENDER = os.path.join(ROOT, "samples", "ocr", "render_text.py")
DEFAULT_MODELS = os.path.join(ROOT, "third_party", "npm", "node_modules", "@gutenye", "ocr-models", "assets")


def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def run_case(args, name, lines, size, turn180=False, jpeg=False):
    work = args.workdir
    png = os.path.join(work, name + ".png")
    meta = os.path.join(work, name + ".json")
    r = subprocess.run([sys.executable, RENDER, png, *lines, "--size", str(size), "--boxes", meta])
    if r.returncode == 77:
        sys.exit(77)
    if r.returncode:
        raise SystemExit(f"render_text failed ({r.returncode})")
    with open(meta) as f:
        info = json.load(f)
    ink = info["ink"]
    image = png
    if turn180 or jpeg:
        from PIL import Image
        im = Image.open(png)
        if turn180:
            im = im.rotate(180)
            w, h = info["width"], info["height"]
            # The ink boxes turn with the image; reading order reverses.
            ink = [[w - b[2], h - b[3], w - b[0], h - b[1]] for b in ink][::-1]
            lines = lines[::-1]
        image = os.path.join(work, name + (".jpg" if jpeg else ".png"))
        im.save(image, quality=95) if jpeg else im.save(image)
    tsv = os.path.join(work, name + ".tsv")
    cmd = [args.ocr, "--models", args.models, "--tsv", tsv, image]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout)
    if r.returncode:
        print(f"FAIL {name}: ocr exited with {r.returncode}")
        return False
    got = []
    with open(tsv, encoding="utf-8") as f:
        for row in f:
            score, turned, box, text = row.rstrip("\n").split("\t", 3)
            c = [float(v) for v in box.split(",")]
            xs, ys = c[0::2], c[1::2]
            got.append((float(score), int(turned), [min(xs), min(ys), max(xs), max(ys)], text))
    ok = True
    if len(got) != len(lines):
        print(f"FAIL {name}: {len(got)} lines read, {len(lines)} drawn")
        ok = False
    for i, want in enumerate(lines):
        if i >= len(got):
            break
        score, turned, box, text = got[i]
        d_all = edit_distance(text, want)
        d_nospace = edit_distance(text.replace(" ", ""), want.replace(" ", ""))
        overlap = iou(box, ink[i])
        good = d_nospace <= 1 and d_all <= 3 and overlap >= 0.4 and (turned == 1) == turn180
        ok &= good
        print(f"{'ok  ' if good else 'FAIL'} {name} line {i + 1}: drawn {want!r} read {text!r} "
              f"(edits {d_all}, without spaces {d_nospace}; conf {score:.3f}; box IoU {overlap:.2f}; "
              f"turned {turned})")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ocr", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--models", default=os.environ.get("OPENACL_OCR_MODELS", DEFAULT_MODELS))
    args = ap.parse_args()
    need = ["ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx",
            "ppocr_keys_v1.txt"]
    missing = [n for n in need if not os.path.isfile(os.path.join(args.models, n))]
    if missing:
        print(f"skip: {', '.join(missing)} not in {args.models} (run scripts/setup.sh)")
        return 77
    try:
        import PIL  # noqa: F401
    except ImportError:
        print("skip: Pillow (python3-pil) is not installed")
        return 77
    os.makedirs(args.workdir, exist_ok=True)
    ok = run_case(args, "upright", ["openacl runs AscendCL", "on any CPU 2026", "det + cls + rec in 1 context"], 48)
    ok &= run_case(args, "upside_down", ["Model chain: 3 networks", "Invoice No. 58213", "Total 1,024.50 EUR"], 40,
                   turn180=True, jpeg=True)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
