"""Per-channel activation ranges (--per-channel-act): the tensors chosen get
one uint8 scale and zero point per channel (axis 1), written as per-axis
QuantizeLinear/DequantizeLinear (opset 13, axis=1).

Which tensors: the entries of --per-channel-act are op types (the tensor a
node of that type writes: `Mul` takes the x * Sigmoid(x) chain ends and the
squeeze-excite gated features), tensor or node names, shell patterns of
them, or `depthwise` (every input of a grouped Conv with one input channel
per group). Only activation tensors the plan quantises qualify, and only
4-D ones of a known channel count.

Calibration runs the same passes as per tensor, per channel: the finite
min and max of each channel, then (percentile, mse, auto) a PC_BINS
histogram of each channel over its own [min, max]; the final ranges follow
calib.py's definitions channel by channel, vectorised (the mse search and
auto's comparison evaluate each candidate range from prefix sums of the
histogram instead of a pass over its bins).
"""
import fnmatch

import numpy as np

from . import QuantError, calib

PC_BINS = 1024


def select(model, plan, spec):
    """The planned activation tensors that --per-channel-act's entries
    (a list) pick, in plan order."""
    if not spec:
        return []
    prod, dw_in = {}, set()
    inits = {t.name: t for t in model.graph.initializer}
    for n in model.graph.node:
        for o in n.output:
            prod[o] = n
        if n.op_type == "Conv" and len(n.input) > 1 and n.input[1] in inits:
            group = next((a.i for a in n.attribute if a.name == "group"), 1)
            w = inits[n.input[1]]
            if group > 1 and len(w.dims) >= 2 and w.dims[1] == 1:
                dw_in.add(n.input[0])
    out, used = [], set()
    for t in plan.acts:
        n = prod.get(t)
        for e in spec:
            hit = (e == "depthwise" and t in dw_in) or e == t or (n is not None and e in (n.op_type, n.name))
            if not hit and any(c in e for c in "*?["):
                hit = fnmatch.fnmatchcase(t, e) or (n is not None and fnmatch.fnmatchcase(n.name, e))
            if hit:
                used.add(e)
                if t not in out:
                    out.append(t)
    bad = [e for e in spec if e not in used]
    if bad:
        raise QuantError("--per-channel-act: %s match(es) no quantised activation tensor (op types, tensor "
                         "or node names, patterns, or `depthwise`)" % ", ".join(bad))
    return out


def channels(x):
    """x [N, C, ...] as [C, rest] (float32, non-finite values dropped later)."""
    x = np.asarray(x, np.float32)
    if x.ndim < 3:
        raise QuantError("--per-channel-act: tensor of shape %s has no channel axis with spatial extent"
                         % (x.shape,))
    return np.moveaxis(x, 1, 0).reshape(x.shape[1], -1)


class ChannelCalib:
    """Per-channel min/max, then per-channel histograms, of chosen tensors."""

    def __init__(self, names):
        self.names = set(names)
        self.lo, self.hi, self.hist, self.edges = {}, {}, {}, {}

    def add_range(self, name, x):
        c = channels(x)
        fin = np.isfinite(c)
        lo = np.where(fin, c, np.inf).min(axis=1)
        hi = np.where(fin, c, -np.inf).max(axis=1)
        if name in self.lo:
            if len(lo) != len(self.lo[name]):
                raise QuantError("--per-channel-act: tensor %s changes its channel count" % name)
            lo, hi = np.minimum(lo, self.lo[name]), np.maximum(hi, self.hi[name])
        self.lo[name], self.hi[name] = lo, hi

    def missing(self):
        return [t for t in self.names if t not in self.lo or not np.isfinite(self.lo[t]).all()]

    def start_hist(self):
        for t in self.names:
            self.hist[t] = np.zeros((len(self.lo[t]), PC_BINS), np.int64)
            self.edges[t] = (self.lo[t].astype(np.float64), self.hi[t].astype(np.float64))

    def add_hist(self, name, x):
        c = channels(x).astype(np.float64)
        a, b = self.edges[name]
        width = np.where(b > a, (b - a) / PC_BINS, 1.0)
        idx = np.floor((c - a[:, None]) / width[:, None])
        idx = np.clip(np.nan_to_num(idx, nan=-1.0, posinf=-1.0, neginf=-1.0), -1, PC_BINS - 1).astype(np.int64)
        idx = np.where(np.isfinite(c), idx, -1)
        keep = idx >= 0
        flat = (idx + np.arange(len(a))[:, None] * PC_BINS)[keep]
        self.hist[name] += np.bincount(flat, minlength=len(a) * PC_BINS).reshape(len(a), PC_BINS)

    def ranges(self, method, percentile):
        """tensor -> (lo array, hi array)."""
        out = {}
        for t in self.names:
            lo, hi = self.lo[t].astype(np.float64), self.hi[t].astype(np.float64)
            if method == "minmax" or t not in self.hist:
                out[t] = (lo, hi)
                continue
            h = self.hist[t].astype(np.float64)
            if method == "percentile":
                out[t] = percentile_ranges(h, lo, hi, percentile)
            elif method == "mse":
                out[t] = mse_ranges(h, lo, hi)
            else:
                out[t] = auto_ranges(h, lo, hi, percentile)
        return out


def percentile_ranges(h, a, b, p):
    """calib.percentile_range per row of h (histograms over [a_c, b_c])."""
    total = h.sum(axis=1)
    width = (b - a) / h.shape[1]
    cdf = np.cumsum(h, axis=1)
    q = p / 100.0
    hi_bin = np.argmax(cdf >= (q * total)[:, None], axis=1)
    lo_bin = np.argmax(cdf > ((1.0 - q) * total)[:, None], axis=1)
    hi = a + np.minimum(hi_bin + 1, h.shape[1]) * width
    lo = a + np.minimum(lo_bin, h.shape[1] - 1) * width
    empty = total == 0
    return np.where(empty, a, np.maximum(a, lo)), np.where(empty, b, np.minimum(b, hi))


class Prefix:
    """Prefix sums of a histogram's counts, first and second moments about
    the bin centres, for the uint8 quantisation error of any range."""

    def __init__(self, h, a, b):
        nb = h.shape[1]
        self.a, self.w = a, np.where(b > a, (b - a) / nb, 1.0)
        cen = a[:, None] + (np.arange(nb) + 0.5) * self.w[:, None]
        z = np.zeros((h.shape[0], 1))
        self.p0 = np.concatenate([z, np.cumsum(h, axis=1)], axis=1)
        self.p1 = np.concatenate([z, np.cumsum(h * cen, axis=1)], axis=1)
        self.p2 = np.concatenate([z, np.cumsum(h * cen * cen, axis=1)], axis=1)
        self.nb = nb

    def count_le(self, v):
        """Per row, how many bin centres are <= v ([C, K])."""
        k = np.floor((v - self.a[:, None]) / self.w[:, None] - 0.5) + 1
        return np.clip(k, 0, self.nb).astype(np.int64)

    def err(self, lo, hi):
        """The squared error of [lo, hi] (arrays [C, K]) as calib.quant_mse
        counts it: step^2 / 12 inside, the distance to the edge outside."""
        r = np.arange(lo.shape[0])[:, None]
        il, ih = self.count_le(lo), self.count_le(hi)

        def g(p, i):
            return p[r, i]
        below = lo * lo * g(self.p0, il) - 2 * lo * g(self.p1, il) + g(self.p2, il)
        t0, t1, t2 = self.p0[:, -1:], self.p1[:, -1:], self.p2[:, -1:]
        above = (t2 - g(self.p2, ih)) - 2 * hi * (t1 - g(self.p1, ih)) + hi * hi * (t0 - g(self.p0, ih))
        step = (hi - lo) / 255.0
        inside = (g(self.p0, ih) - g(self.p0, il)) * step * step / 12.0
        return np.maximum(below, 0) + np.maximum(above, 0) + np.maximum(inside, 0)


def mse_ranges(h, a, b, steps=200, rounds=2):
    """calib.mse_range per row."""
    pre = Prefix(h, a, b)
    lo0, hi0 = np.minimum(a, 0.0), np.maximum(b, 0.0)
    fs = np.linspace(1.0 / steps, 1.0, steps)[None, :]
    lo, hi = lo0.copy(), hi0.copy()
    r = np.arange(len(a))
    for _ in range(rounds):
        cand = hi0[:, None] * fs
        e = pre.err(np.repeat(lo[:, None], steps, axis=1), cand)
        hi = np.where(hi0 > 0, cand[r, np.argmin(e, axis=1)], hi)
        cand = lo0[:, None] * fs
        e = pre.err(cand, np.repeat(hi[:, None], steps, axis=1))
        lo = np.where(lo0 < 0, cand[r, np.argmin(e, axis=1)], lo)
    empty = h.sum(axis=1) == 0
    return np.where(empty, a, np.maximum(a, lo)), np.where(empty, b, np.minimum(b, hi))


def auto_ranges(h, a, b, percentile):
    """calib.auto_range per row: the candidate with the least error."""
    cands = [(a, b)]
    for p in sorted(set(calib.AUTO_PERCENTILES) | {percentile}):
        cands.append(percentile_ranges(h, a, b, p))
    cands.append(mse_ranges(h, a, b))
    pre = Prefix(h, a, b)
    los = np.stack([c[0] for c in cands], axis=1)
    his = np.stack([c[1] for c in cands], axis=1)
    e = pre.err(np.minimum(los, 0.0), np.maximum(his, 0.0))
    pick = np.argmin(e, axis=1)
    r = np.arange(len(a))
    return los[r, pick], his[r, pick]
