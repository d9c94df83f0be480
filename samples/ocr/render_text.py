#!/usr/bin/python3
"""Renders lines of text, black on white, into a PNG for the OCR demo and
test. Uses Pillow (python3-pil) and DejaVu Sans (fonts-dejavu-core).

    render_text.py OUT.png "line one" "line two" ... [--size 40] [--font TTF] [--boxes OUT.json]

--boxes writes each line's ink box [x0, y0, x1, y1] (pixels) as JSON.
"""
import argparse
import sys

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("lines", nargs="+")
    ap.add_argument("--size", type=int, default=40, help="font size in pixels")
    ap.add_argument("--font", default=FONT)
    ap.add_argument("--boxes", help="write the lines' ink boxes here (JSON)")
    a = ap.parse_args()
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        print("render_text: Pillow is missing (apt-get install python3-pil)", file=sys.stderr)
        return 77
    try:
        font = ImageFont.truetype(a.font, a.size)
    except OSError as e:
        print(f"render_text: cannot open font {a.font}: {e} (apt-get install fonts-dejavu-core)", file=sys.stderr)
        return 77
    margin, gap = a.size, a.size
    boxes = [font.getbbox(t) for t in a.lines]
    width = max(b[2] for b in boxes) + 2 * margin
    line_h = max(b[3] for b in boxes)
    height = 2 * margin + len(a.lines) * line_h + (len(a.lines) - 1) * gap
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    ink = []
    for i, t in enumerate(a.lines):
        org = (margin, margin + i * (line_h + gap))
        draw.text(org, t, font=font, fill="black")
        ink.append([org[0] + boxes[i][0], org[1] + boxes[i][1], org[0] + boxes[i][2], org[1] + boxes[i][3]])
    img.save(a.out)
    if a.boxes:
        import json
        with open(a.boxes, "w") as f:
            json.dump({"width": width, "height": height, "lines": a.lines, "ink": ink}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
