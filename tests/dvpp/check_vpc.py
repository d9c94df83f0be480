#!/usr/bin/python3
"""Compares the VPC outputs dvpp_test_vpc wrote (DIR/manifest.txt, DIR/*.raw)
with references computed here by OpenCV and numpy from the same input.

Tolerances and why (libyuv and dvpp_scale.c do the work in openacl; the references are
independent implementations of the same arithmetic):
  nearest (interpolation 2, 4) vs numpy: the source pixel under the
      destination pixel's centre, floor((i + 0.5) * src / dst) (OpenCV 4.6's
      INTER_NEAREST_EXACT picks the pixel left of it for integer factors);
      where a centre falls on a pixel edge (within 0.02 px) libyuv's 16.16
      fixed-point step may take either neighbour, so both are accepted:
      every sample must match.
  bilinear (0, 1, 3), shrinking or enlarging, vs cv2.INTER_LINEAR: the same
      half-pixel-centre 2-tap filter with 11-bit weights (dvpp_scale.c);
      openacl rounds the sum once, OpenCV's SIMD path truncates the vertical
      products to 16 bits first, so it may be 1 level lower: max |diff| <= 1,
      mean <= 0.2 (measured up to 0.12).
  YUV -> RGB vs the float BT.601/709/2020 matrices (full and narrow range),
      chroma brought to full resolution by the same filter: the matrix is
      16.16 fixed point, but a chroma sample one level off after the
      upsampling filter's rounding moves R or B by up to 2.1 levels: max
      |diff| <= 3, mean <= 0.1 at the same size; with a resize the luma
      filter's rounding adds one more: max <= 5, mean <= 0.5.
  RGB -> YUV vs the float matrix, chroma the mean of each 2x2 block:
      max |diff| <= 2.
  make-border vs cv2.copyMakeBorder per plane (chroma with halved borders)
      and pyramid-down vs cv2.pyrDown: the same integer arithmetic, exact.
Exit status 1 on any violation; a table of the measured agreement is printed.
"""
import os
import sys

import cv2
import numpy as np

NV12, NV21, YUV444SP, YVU444SP, RGB, BGR = 1, 2, 5, 6, 12, 13

KRB = {0: (0.299, 0.114), 1: (0.299, 0.114), 2: (0.2126, 0.0722), 3: (0.2126, 0.0722),
       4: (0.2627, 0.0593), 5: (0.2627, 0.0593)}


def load(path, fmt, w, h):
    raw = np.fromfile(path, dtype=np.uint8)
    if fmt in (NV12, NV21):
        y = raw[:w * h].reshape(h, w)
        uv = raw[w * h:w * h + w * (h // 2)].reshape(h // 2, w)
        u, v = (uv[:, 0::2], uv[:, 1::2]) if fmt == NV12 else (uv[:, 1::2], uv[:, 0::2])
        return y, u, v
    if fmt in (YUV444SP, YVU444SP):
        y = raw[:w * h].reshape(h, w)
        uv = raw[w * h:3 * w * h].reshape(h, 2 * w)
        u, v = (uv[:, 0::2], uv[:, 1::2]) if fmt == YUV444SP else (uv[:, 1::2], uv[:, 0::2])
        return y, u, v
    rgb = raw[:w * h * 3].reshape(h, w, 3)
    return rgb[:, :, ::-1] if fmt == BGR else rgb


def nearest_centres(n_src, n_dst, eps):
    return np.minimum(np.floor((np.arange(n_dst) + 0.5) * n_src / n_dst + eps).astype(int), n_src - 1)


def resize_ref(img, dw, dh, nearest):
    """Nearest: the pixel under each centre; where a centre lies within 0.02
    px of a pixel edge either neighbour is right (the four choices are returned).
    Bilinear: cv2.INTER_LINEAR (half-pixel centres)."""
    h, w = img.shape[:2]
    if nearest:
        return tuple(img[nearest_centres(h, dh, ey)][:, nearest_centres(w, dw, ex)].astype(np.float64)
                     for ey in (-0.02, 0.02) for ex in (-0.02, 0.02))
    return cv2.resize(img, (dw, dh), interpolation=cv2.INTER_LINEAR).astype(np.float64)


def near_diff(got, ref):
    """|got - ref| where ref may be a (lo, hi) pair of acceptable values."""
    if isinstance(ref, tuple):
        return np.min([np.abs(got - r) for r in ref], axis=0)
    return np.abs(got - ref)


def yuv_to_rgb(y, u, v, csc):
    kr, kb = KRB[csc]
    kg = 1 - kr - kb
    y, u, v = y.astype(np.float64), u.astype(np.float64) - 128, v.astype(np.float64) - 128
    if csc % 2 == 1:  # narrow range
        y = (y - 16) * 255 / 219
        u, v = u * 255 / 224, v * 255 / 224
    r = y + 2 * (1 - kr) * v
    b = y + 2 * (1 - kb) * u
    g = (y - kr * r - kb * b) / kg
    return np.clip(np.rint(np.stack([r, g, b], axis=-1)), 0, 255)


def rgb_to_yuv(rgb):
    kr, kb = KRB[0]
    kg = 1 - kr - kb
    f = rgb.astype(np.float64)
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    y = kr * r + kg * g + kb * b
    u = (b - y) / (2 * (1 - kb)) + 128
    v = (r - y) / (2 * (1 - kr)) + 128
    return [np.clip(np.rint(c), 0, 255) for c in (y, u, v)]


def main():
    d = sys.argv[1]
    rows, bad = [], 0
    with open(os.path.join(d, 'manifest.txt')) as f:
        lines = [l.split() for l in f if l.strip()]
    for (name, src, sfmt, sw, sh, cx, cy, cw, ch, dw, dh, ofmt, ic) in lines:
        sfmt, sw, sh, cx, cy, cw, ch, dw, dh, ofmt, ic = map(int, (sfmt, sw, sh, cx, cy, cw, ch, dw, dh, ofmt, ic))
        interp, csc = ic // 10, ic % 10
        nearest = interp in (2, 4)
        s = load(os.path.join(d, src + '.raw'), sfmt, sw, sh)
        o = load(os.path.join(d, name + '.raw'), ofmt, dw, dh)
        if sfmt in (NV12, NV21, YUV444SP, YVU444SP) and ofmt in (NV12, NV21):
            k = 1 if sfmt in (NV12, NV21) else 0  # the source's chroma subsampling
            ys, us, vs = (p[(cy >> q):(cy + ch) >> q, (cx >> q):(cx + cw) >> q] for p, q in zip(s, (0, k, k)))
            ref = [resize_ref(ys, dw, dh, nearest), resize_ref(us, dw // 2, dh // 2, nearest),
                   resize_ref(vs, dw // 2, dh // 2, nearest)]
            got = [p.astype(np.float64) for p in o]
            kind = 'nearest' if nearest else 'bilinear'
            tol = (0, 0.0) if nearest else (1, 0.2)
        elif sfmt in (NV12, NV21):
            y, u, v = s
            ys = y[cy:cy + ch, cx:cx + cw]
            us, vs = u[cy // 2:(cy + ch) // 2, cx // 2:(cx + cw) // 2], v[cy // 2:(cy + ch) // 2, cx // 2:(cx + cw) // 2]
            # luma scaled to the output, chroma scaled (up) to full resolution with the same filter
            yr = ys if (dw == cw and dh == ch) else resize_ref(ys, dw, dh, nearest)
            uf, vf = resize_ref(us, dw, dh, nearest), resize_ref(vs, dw, dh, nearest)
            ref = [yuv_to_rgb(yr, uf, vf, csc)]
            got = [o.astype(np.float64)]
            kind = 'yuv->rgb csc%d' % csc + ('' if dw == cw else ' +resize')
            tol = (3, 0.1) if dw == cw else (5, 0.5)
        elif ofmt in (NV12, NV21):
            yr, ur, vr = rgb_to_yuv(s)
            ur = ur.reshape(dh // 2, 2, dw // 2, 2).mean(axis=(1, 3))
            vr = vr.reshape(dh // 2, 2, dw // 2, 2).mean(axis=(1, 3))
            ref = [yr, np.rint(ur), np.rint(vr)]
            got = [p.astype(np.float64) for p in o]
            kind = 'rgb->yuv'
            tol = (2, 0.5)
        else:
            ref = [resize_ref(s[cy:cy + ch, cx:cx + cw], dw, dh, nearest)]
            got = [o.astype(np.float64)]
            kind = 'rgb ' + ('nearest' if nearest else 'bilinear')
            tol = (0, 0.0) if nearest else (1, 0.2)
        diffs = np.concatenate([near_diff(g, r).ravel() for g, r in zip(got, ref)])
        mx, mean, frac = diffs.max(), diffs.mean(), (diffs > 0).mean()
        if tol[0] is None:
            ok = frac <= tol[1]
        else:
            ok = mx <= tol[0] and mean <= tol[1]
        rows.append((name, kind, mx, mean, frac, ok))
        bad += not ok
    # borders and the pyramid: exact (OpenCV's copyMakeBorder and pyrDown do the same integer arithmetic)
    extra = os.path.join(d, 'extra.txt')
    if os.path.exists(extra):
        with open(extra) as f:
            for l in f:
                p = l.split()
                if p[0] == 'border':
                    name, src, sfmt, sw, sh, bt, top, bottom, left, right, v0, v1, v2 = p[1:]
                    sw, sh, bt, top, bottom, left, right, v0, v1, v2 = map(
                        int, (sw, sh, bt, top, bottom, left, right, v0, v1, v2))
                    cvb = [cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_REFLECT_101][bt]
                    s_ = load(os.path.join(d, src + '.raw'), int(sfmt), sw, sh)
                    o = load(os.path.join(d, name + '.raw'), int(sfmt), sw + left + right, sh + top + bottom)
                    ref = [cv2.copyMakeBorder(s_[0], top, bottom, left, right, cvb, value=v0),
                           cv2.copyMakeBorder(s_[1], top // 2, bottom // 2, left // 2, right // 2, cvb, value=v1),
                           cv2.copyMakeBorder(s_[2], top // 2, bottom // 2, left // 2, right // 2, cvb, value=v2)]
                    kind = 'copyMakeBorder'
                else:
                    name, src, _, sw, sh = p[1:]
                    sw, sh = int(sw), int(sh)
                    s_ = np.fromfile(os.path.join(d, src + '.raw'), dtype=np.uint8).reshape(sh, sw)
                    o = [np.fromfile(os.path.join(d, name + '.raw'), dtype=np.uint8).reshape((sh + 1) // 2, (sw + 1) // 2)]
                    ref = [cv2.pyrDown(s_)]
                    kind = 'pyrDown'
                diffs = np.concatenate([np.abs(g.astype(np.float64) - r).ravel() for g, r in zip(o, ref)])
                mx, mean, frac = diffs.max(), diffs.mean(), (diffs > 0).mean()
                ok = mx == 0
                rows.append((name, kind, mx, mean, frac, ok))
                bad += not ok
    print('%-44s %-22s %6s %7s %8s' % ('case', 'reference', 'max', 'mean', 'differ'))
    for name, kind, mx, mean, frac, ok in rows:
        print('%-44s %-22s %6d %7.3f %7.2f%% %s' % (name, kind, mx, mean, 100 * frac, '' if ok else 'FAIL'))
    print('%d cases, %d outside tolerance' % (len(rows), bad))
    return 1 if bad or not rows else 0


if __name__ == '__main__':
    sys.exit(main())
