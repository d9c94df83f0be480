"""Channel equalisation (--equalize): before calibration, each channel of a
linear activation stream is rescaled so that per-tensor uint8 activations and
per-channel int8 weights share the quantisation error evenly (the cross-layer
equalisation of Nagel et al., 2019, "Data-Free Quantization", with the
activation side of SmoothQuant, Xiao et al., 2022).

A stream is a set of 4-D tensors, joined by the ops a positive per-channel
scale passes through unchanged (Add of two members, Relu, MaxPool), whose
every producer outside the set is a Conv with constant weights (the tensor is
its output, no activation between) and whose every consumer outside the set
is a Conv with group 1 and constant weights reading it as its input X: the
residual stream of an inverted-residual stage (projection outputs and the
residual sums that the next expand convolutions read), or a Conv -> Relu ->
Conv pair. Dividing channel i of every writer (weights and bias) by s_i and
multiplying input channel i of every reader's weights by s_i leaves the float
network the same in real arithmetic (float rounding only); a channel with a
wide range then takes less of the per-tensor activation step, and the
readers' weights carry the difference, per output channel.

s_i = a_i^alpha / w_i^(1 - alpha), with a_i the channel's range over the
stream's tensors on the calibration data and w_i the largest |weight| that
reads channel i; alpha 0.5 balances the two (both become sqrt(a_i w_i)),
alpha 1 evens the activation ranges completely (the default, 0.9, was the
best of 0.5-1.0 on the PP-OCRv4 detector: docs/quantization.md section 3).
SiLU, Sigmoid gates and ReLU6's clip are not positive-homogeneous, so a
stream never crosses them (there the rescaling would change the network).
"""
import numpy as np
import onnx
from onnx import numpy_helper

from . import QuantError

PASS_OPS = ("Add", "Relu", "MaxPool")
MAX_RATIO = 1e3     # s_i kept within [1/MAX_RATIO, MAX_RATIO] of the stream's median channel
DEAD = 1e-6         # a channel whose range or reader weights are below this share of the widest is left as it is


def _attr(n, name, default):
    for a in n.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


class _Index:
    def __init__(self, model):
        g = model.graph
        self.inits = {t.name: t for t in g.initializer}
        self.outputs = {o.name for o in g.output}
        self.inputs = {i.name for i in g.input}
        self.nodes = g.node
        self.producer, self.users, self.index = {}, {}, {}
        for i, n in enumerate(g.node):
            self.index[id(n)] = i
            for o in n.output:
                self.producer[o] = n
            for k, t in enumerate(n.input):
                if t:
                    self.users.setdefault(t, []).append((n, k))

    def weight(self, n):
        """The float weight of a Conv with constant weight (and bias), or None."""
        if n.op_type != "Conv" or len(n.input) < 2 or n.input[1] not in self.inits:
            return None
        if len(n.input) > 2 and n.input[2] and n.input[2] not in self.inits:
            return None
        w = self.inits[n.input[1]]
        if w.data_type != onnx.TensorProto.FLOAT or len(w.dims) != 4:
            return None
        return numpy_helper.to_array(w)


def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def streams(model):
    """The valid streams: a list of (members, writers, readers) with members
    the tensor names, writers the Conv nodes producing members, readers
    the Conv nodes reading them."""
    ix = _Index(model)
    parent = {}
    for n in model.graph.node:
        if n.op_type not in PASS_OPS or not n.output:
            continue
        ins = [t for t in n.input if t]
        if n.op_type == "Add" and (len(ins) != 2 or any(t in ix.inits for t in ins)):
            continue
        if n.op_type == "MaxPool" and len(n.output) > 1 and n.output[1]:
            continue
        for t in ins[:2] + [n.output[0]]:
            parent.setdefault(t, t)
        for t in ins[:2]:
            parent[_find(parent, t)] = _find(parent, n.output[0])
    # every Conv output is a candidate stream on its own too (Conv -> Conv)
    for n in model.graph.node:
        if n.op_type == "Conv" and n.output:
            parent.setdefault(n.output[0], n.output[0])
    groups = {}
    for t in parent:
        groups.setdefault(_find(parent, t), []).append(t)
    out = []
    for members in groups.values():
        s = _check(ix, set(members))
        if s is not None:
            out.append(s)
    out.sort(key=lambda s: min(s[0]))
    return out


def _check(ix, members):
    writers, readers = [], []
    for t in sorted(members):
        if t in ix.outputs or t in ix.inputs or t in ix.inits:
            return None
        p = ix.producer.get(t)
        if p is None:
            return None
        if p.op_type in PASS_OPS:
            if not all(i in members for i in p.input if i) or p.output[0] != t:
                return None
        elif p.op_type == "Conv" and ix.weight(p) is not None and p.output[0] == t:
            writers.append(p)
        else:
            return None
        for n, k in ix.users.get(t, []):
            if n.op_type in PASS_OPS and n.output[0] in members and (n.op_type == "Add" or k == 0):
                continue
            if n.op_type == "Conv" and k == 0 and _attr(n, "group", 1) == 1 and ix.weight(n) is not None:
                readers.append(n)
                continue
            return None
    if not writers or not readers:
        return None
    c = {ix.weight(w).shape[0] for w in writers} | {ix.weight(r).shape[1] for r in readers}
    if len(c) != 1:
        return None
    return sorted(members), sorted({ix.index[id(n)] for n in writers}), sorted({ix.index[id(n)] for n in readers})


def channel_ranges(x):
    """Per channel (axis 1) [min, max] of an NCHW activation, as two arrays."""
    x = np.asarray(x, np.float32)
    if x.ndim != 4:
        return None
    t = np.moveaxis(x, 1, 0).reshape(x.shape[1], -1)
    return t.min(axis=1), t.max(axis=1)


class ChannelStats:
    """Running per-channel min/max of the stream members."""

    def __init__(self):
        self.lo, self.hi = {}, {}

    def add(self, name, x):
        r = channel_ranges(x)
        if r is None:
            return
        if name in self.lo:
            self.lo[name] = np.minimum(self.lo[name], r[0])
            self.hi[name] = np.maximum(self.hi[name], r[1])
        else:
            self.lo[name], self.hi[name] = r

    def spread(self, members):
        """Per channel, the largest range (0 included) over the members."""
        out = None
        for t in members:
            if t not in self.lo:
                return None
            r = np.maximum(self.hi[t], 0.0) - np.minimum(self.lo[t], 0.0)
            out = r if out is None else np.maximum(out, r)
        return out


def scales(ix, stream, spread, alpha):
    """s_i of one stream (float64), or None when it has nothing to even out."""
    _, writers, readers = stream
    w = None
    for r in readers:
        m = np.abs(ix.weight(ix.nodes[r])).max(axis=(0, 2, 3)).astype(np.float64)
        w = m if w is None else np.maximum(w, m)
    a = np.asarray(spread, np.float64)
    # dead channels (pruned: weights of 1e-40 on both sides in PP-OCRv4) say
    # nothing about the balance; they keep the scale of a typical channel
    ok = np.isfinite(a) & np.isfinite(w) & (a > DEAD * a.max()) & (w > DEAD * w.max())
    if not ok.any():
        return None
    s = np.empty_like(a)
    s[ok] = a[ok] ** alpha / w[ok] ** (1.0 - alpha)
    s[ok] /= np.median(s[ok])
    s[~ok] = 1.0
    return np.clip(s, 1.0 / MAX_RATIO, MAX_RATIO)


def _put(model, inits, base, arr):
    k = 0
    while "%s_eq%d" % (base, k) in inits:
        k += 1
    name = "%s_eq%d" % (base, k)
    t = numpy_helper.from_array(np.asarray(arr, np.float32), name)
    model.graph.initializer.append(t)
    inits[name] = t
    return name


def apply(model, found, stats, alpha):
    """A copy of model with each stream of `found` equalised; returns
    (model, report rows)."""
    if not 0.0 <= alpha <= 1.0:
        raise QuantError("--equalize-alpha must be in [0, 1], got %g" % alpha)
    m = onnx.ModelProto()
    m.CopyFrom(model)
    ix = _Index(m)
    rows = []
    for members, writers, readers in found:
        spread = stats.spread(members)
        if spread is None:
            continue
        s = scales(ix, (members, writers, readers), spread, alpha)
        if s is None:
            continue
        for w in writers:
            n = m.graph.node[w]
            wt = ix.weight(n).astype(np.float64) / s[:, None, None, None]
            n.input[1] = _put(m, ix.inits, n.input[1], wt)
            if len(n.input) > 2 and n.input[2]:
                b = numpy_helper.to_array(ix.inits[n.input[2]]).astype(np.float64) / s
                n.input[2] = _put(m, ix.inits, n.input[2], b)
        for r in readers:
            n = m.graph.node[r]
            wt = ix.weight(n).astype(np.float64) * s[None, :, None, None]
            n.input[1] = _put(m, ix.inits, n.input[1], wt)
        a = np.asarray(spread, np.float64)
        rows.append({"tensors": len(members), "writers": [m.graph.node[w].name for w in writers],
                     "readers": [m.graph.node[r].name for r in readers], "channels": int(s.size),
                     "range_ratio_before": float(a.max() / max(np.median(a), 1e-30)),
                     "range_ratio_after": float((a / s).max() / max(np.median(a / s), 1e-30))})
    _drop_unused(m.graph)
    return m, rows


def _drop_unused(g):
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
