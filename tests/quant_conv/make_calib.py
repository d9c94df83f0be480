#!/usr/bin/python3
"""Seeded calibration samples for an image model without a data set at hand:
smooth random images (a coarse random grid, bilinearly upsampled, plus a
little fine noise) in the range an ImageNet-normalised input spans. Enough
to give every activation a plausible range for the engine's int8 checks and
benchmarks; accuracy work wants real images.

Usage: make_calib.py --shape 1,3,224,224 --count 16 --out DIR [--seed 0]"""
import argparse
import os

import numpy as np


def sample(rng, shape):
    n, c, h, w = shape
    gh, gw = max(2, h // 16), max(2, w // 16)
    g = rng.normal(0, 1, (n, c, gh, gw)).astype(np.float32)
    ys, xs = np.linspace(0, gh - 1, h), np.linspace(0, gw - 1, w)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, gh - 1), np.minimum(x0 + 1, gw - 1)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    img = (g[:, :, y0][:, :, :, x0] * (1 - fy) * (1 - fx) + g[:, :, y1][:, :, :, x0] * fy * (1 - fx)
           + g[:, :, y0][:, :, :, x1] * (1 - fy) * fx + g[:, :, y1][:, :, :, x1] * fy * fx)
    img += rng.normal(0, 0.1, img.shape)
    return np.ascontiguousarray(np.clip(img, -2.1, 2.6), dtype=np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", required=True)
    ap.add_argument("--count", type=int, default=16)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    shape = [int(v) for v in a.shape.split(",")]
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    for i in range(a.count):
        np.save(os.path.join(a.out, f"sample_{i:03d}.npy"), sample(rng, shape))


if __name__ == "__main__":
    main()
