"""Range calibrators: min-max, percentile and entropy (KL divergence,
TensorRT style). Each tensor's values over all calibration samples go
through two passes: the first records the finite min and max, the second
(percentile and entropy only) a histogram over that range.

- minmax: [min, max].
- percentile p: [P(100 - p), P(p)] of the values, read from a HIST_BINS
  histogram over [min, max] (exact to one bin, range / HIST_BINS).
- mse: the range inside [min, max] whose uint8 quantisation error
  (rounding inside, clipping outside) has the least mean square over the
  HIST_BINS histogram of the values (each end shrunk towards 0 in turn).
- auto: per tensor, whichever of the ranges above (minmax, percentile
  99.9 / 99.99 / 99.999, mse) has the least uint8 quantisation MSE over
  the tensor's HIST_BINS histogram (the per-tensor choice of method).
- entropy: the threshold t minimising KL(P || Q) between the clipped
  reference distribution P and its quantised version Q, searched over a
  KL_BINS (2048) histogram; tensors that are never negative use the values
  on [0, max] with 256 levels (uint8), others |x| with 128 levels, giving
  [max(min, -t), min(max, t)]. The bin of exact zeros counts as its
  neighbour (a ReLU's spike at 0 would otherwise pull t down), and P and Q
  are smoothed (eps 1e-4 counts into empty bins) before the divergence.
"""
import sys
import time

import numpy as np

METHODS = ("minmax", "percentile", "entropy", "mse", "auto")
AUTO_PERCENTILES = (99.9, 99.99, 99.999)
HIST_BINS = 8192
KL_BINS = 2048


class Progress:
    """A plain-text progress bar on stderr: redrawn in place on a terminal,
    one line per tenth of the work otherwise."""

    def __init__(self, label, total, stream=None, enabled=True):
        self.label, self.total, self.done = label, max(total, 1), 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.t0 = time.time()
        self.last_tenth = -1

    def step(self, n=1):
        self.done += n
        if not self.enabled:
            return
        frac = self.done / self.total
        width = 30
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        line = "%s [%s] %d/%d %.1f s" % (self.label, bar, self.done, self.total, time.time() - self.t0)
        if self.tty:
            self.stream.write("\r" + line + ("\n" if self.done >= self.total else ""))
            self.stream.flush()
        else:
            tenth = int(frac * 10)
            if tenth != self.last_tenth:
                self.last_tenth = tenth
                self.stream.write(line + "\n")
                self.stream.flush()


class RangeStats:
    """Finite min/max per tensor, and how many non-finite values were seen."""

    def __init__(self):
        self.lo, self.hi, self.nonfinite, self.count = {}, {}, {}, {}

    def add(self, name, x):
        x = np.asarray(x)
        if x.size == 0:
            return
        if x.dtype.kind != "f":
            x = x.astype(np.float32)
        fin = np.isfinite(x)
        if not fin.all():
            self.nonfinite[name] = self.nonfinite.get(name, 0) + int(x.size - fin.sum())
            x = x[fin]
            if x.size == 0:
                return
        lo, hi = float(x.min()), float(x.max())
        self.lo[name] = min(self.lo.get(name, lo), lo)
        self.hi[name] = max(self.hi.get(name, hi), hi)
        self.count[name] = self.count.get(name, 0) + int(x.size)

    def range(self, name):
        if name not in self.lo:
            return None
        return self.lo[name], self.hi[name]


class Histograms:
    """Per-tensor histograms over fixed ranges: for percentile the values on
    [lo, hi]; for entropy the values on [0, hi] (never negative) or |x| on
    [0, max(|lo|, |hi|)]."""

    def __init__(self, ranges, method):
        self.method = method
        self.edges, self.hist, self.signed = {}, {}, {}
        for name, (lo, hi) in ranges.items():
            if method in ("percentile", "mse", "auto"):
                a, b, nb, signed = lo, hi, HIST_BINS, lo < 0
            else:
                signed = lo < 0
                a, b, nb = 0.0, (max(abs(lo), abs(hi)) if signed else hi), KL_BINS
            if not b > a:
                continue           # a constant tensor: its min-max range is final
            self.edges[name] = (a, b, nb)
            self.hist[name] = np.zeros(nb, np.int64)
            self.signed[name] = signed

    def add(self, name, x):
        if name not in self.hist:
            return
        a, b, nb = self.edges[name]
        x = np.asarray(x, np.float32).ravel()
        x = x[np.isfinite(x)]
        if self.method == "entropy" and self.signed[name]:
            x = np.abs(x)
        h, _ = np.histogram(x, bins=nb, range=(a, b))
        self.hist[name] += h


def percentile_range(hist, a, b, p):
    """[P(100 - p), P(p)] from a histogram of counts over [a, b]."""
    total = hist.sum()
    if total == 0:
        return a, b
    width = (b - a) / len(hist)
    cdf = np.cumsum(hist)
    q = p / 100.0
    hi_bin = int(np.searchsorted(cdf, q * total, side="left"))
    lo_bin = int(np.searchsorted(cdf, (1.0 - q) * total, side="right"))
    hi = a + min(hi_bin + 1, len(hist)) * width
    lo = a + min(lo_bin, len(hist) - 1) * width
    return lo, hi


def quant_mse(centers, w, lo, hi):
    """Mean-square uint8 error of values `centers` (weights w) quantised on
    [lo, hi]: step^2 / 12 inside, the squared distance to the edge outside."""
    step = (hi - lo) / 255.0
    out = np.where(centers < lo, lo - centers, np.where(centers > hi, centers - hi, 0.0))
    return float(np.dot(w, np.where(out > 0, out * out, step * step / 12.0)))


def mse_range(hist, a, b, steps=200, rounds=2):
    """The range, inside [a, b] widened to include 0, with the least mean
    square quantisation error over the histogram: each end in turn shrunk
    towards 0 over `steps` candidates, the other held."""
    lo0, hi0 = min(a, 0.0), max(b, 0.0)
    if hist.sum() == 0 or hi0 <= lo0:
        return a, b
    centers = a + (np.arange(len(hist)) + 0.5) * (b - a) / len(hist)
    w = hist.astype(np.float64)
    fs = np.linspace(1.0 / steps, 1.0, steps)
    lo, hi = lo0, hi0
    for _ in range(rounds):
        if hi0 > 0:
            hi = min((quant_mse(centers, w, lo, hi0 * f), hi0 * f) for f in fs)[1]
        if lo0 < 0:
            lo = min((quant_mse(centers, w, lo0 * f, hi), lo0 * f) for f in fs)[1]
    return max(a, lo), min(b, hi)


def auto_range(hist, a, b, percentile):
    """((lo, hi), name) of the candidate range with the least uint8
    quantisation MSE over the histogram: min-max, the percentiles of
    AUTO_PERCENTILES (and the one asked for), and mse_range's search. The
    error is measured as act_params quantises: the range widened to
    include 0."""
    total = hist.sum()
    if total == 0:
        return (a, b), "minmax"
    cands = [((a, b), "minmax")]
    for p in sorted(set(AUTO_PERCENTILES) | {percentile}):
        plo, phi = percentile_range(hist, a, b, p)
        cands.append(((max(a, plo), min(b, phi)), "percentile %g" % p))
    cands.append((mse_range(hist, a, b), "mse"))
    centers = a + (np.arange(len(hist)) + 0.5) * (b - a) / len(hist)
    w = hist.astype(np.float64) / float(total)
    best = None
    for (lo, hi), name in cands:
        lo0, hi0 = min(lo, 0.0), max(hi, 0.0)
        if not hi0 > lo0:
            continue
        err = quant_mse(centers, w, lo0, hi0)
        if best is None or err < best[0]:
            best = (err, (lo, hi), name)
    return (best[1], best[2]) if best else ((a, b), "minmax")


def quantize_distribution(p, levels):
    """Q of TensorRT's entropy calibration: p (len(p) >= levels) merged into
    `levels` groups, each group's mass spread evenly over its non-zero bins."""
    n = len(p)
    idx = np.floor(np.linspace(0, n, levels + 1)).astype(np.int64)
    idx[-1] = n
    starts = idx[:-1]
    nz = p != 0
    sums = np.add.reduceat(p, starts)
    cnt = np.add.reduceat(nz.astype(np.float64), starts)
    avg = np.divide(sums, cnt, out=np.zeros_like(sums), where=cnt > 0)
    group = np.repeat(np.arange(levels), np.diff(idx))
    return np.where(nz, avg[group], 0.0)


def smooth(p, eps=1e-4):
    """A histogram of counts with eps put into its empty bins, taken evenly
    from the others, then normalised (ONNX Runtime's and MXNet's entropy
    calibrators do this), so an empty bin of Q under a non-empty bin of P
    costs much, not infinity. None when a bin would not stay positive."""
    zero = p == 0
    nz = int((~zero).sum())
    if nz == 0:
        return None
    out = p + eps * zero - (eps * float(zero.sum()) / nz) * (~zero)
    if not (out > 0).all():
        return None
    return out / out.sum()


def kl_divergence(p, q):
    """KL(P || Q) of two unnormalised histograms, both smoothed; bins with
    p = 0 add nothing."""
    if p.sum() == 0 or q.sum() == 0:
        return np.inf
    p, q = smooth(p), smooth(q)
    if p is None or q is None:
        return np.inf
    m = p > 0
    return float(np.sum(p[m] * np.log(p[m] / q[m])))


def entropy_threshold(hist, top, levels):
    """The threshold (in the units of [0, top]) minimising KL(P || Q) over
    candidate bin counts levels..len(hist)."""
    hist = hist.astype(np.float64)
    if len(hist) > 1:
        # the spike of exact zeros (ReLU outputs, padding) says nothing about
        # where to clip: bin 0 takes bin 1's count, as TensorRT's calibrator
        # in pytorch-quantization does
        hist[0] = hist[1]
    nb = len(hist)
    width = top / nb
    best_i, best_kl = nb, np.inf
    tail = np.concatenate([np.cumsum(hist[::-1])[::-1], [0.0]])     # tail[i] = sum(hist[i:])
    nz_last = np.nonzero(hist)[0]
    if len(nz_last) == 0:
        return top
    for i in range(levels, nb + 1):
        p = hist[:i].copy()
        p[i - 1] += tail[i]
        if p.sum() == 0:
            continue
        q = quantize_distribution(hist[:i], levels)
        kl = kl_divergence(p, q)
        if kl < best_kl:
            best_i, best_kl = i, kl
    return (best_i + 0.5) * width if best_i < nb else top


def final_ranges(stats, hists, method, percentile, chosen=None):
    """tensor -> (lo, hi) for the chosen method; with method auto, `chosen`
    (a dict) receives tensor -> the candidate picked."""
    out = {}
    for name in stats.lo:
        lo, hi = stats.range(name)
        if method == "minmax" or hists is None or name not in hists.hist:
            out[name] = (lo, hi)
            continue
        a, b, nb = hists.edges[name]
        h = hists.hist[name]
        if method == "percentile":
            plo, phi = percentile_range(h, a, b, percentile)
            out[name] = (max(lo, plo), min(hi, phi))
        elif method == "mse":
            out[name] = mse_range(h, a, b)
        elif method == "auto":
            out[name], pick = auto_range(h, a, b, percentile)
            if chosen is not None:
                chosen[name] = pick
        else:
            if hists.signed[name]:
                t = entropy_threshold(h, b, 128)
                out[name] = (max(lo, -t), min(hi, t))
            else:
                t = entropy_threshold(h, b, 256)
                out[name] = (lo, min(hi, t))
    return out
