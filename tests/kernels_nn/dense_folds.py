#!/usr/bin/python3
"""DenseNet's rewrites (graph/fuse_simple.c) against ONNX Runtime: a channel
Concat and the BatchNormalization reading it folded into one
openacl.ConcatNorm (kernels/ref/nn_catnorm.c), a strided AveragePool moved
before the plain 1x1 Conv feeding it (the transitions), and an unpadded
AveragePool after a ConcatNorm folded into it.

Cases: a DenseNet-like chain (every layer concatenates all earlier features,
BN -> ReLU -> 1x1 Conv -> 3x3 Conv, channels-last), channel counts off the
16-lane grid, a BN without Relu, N=2, plain tensors (no convolution, so the
layout pass keeps them NCHW), a graph input as one part beside channels-last
parts (mixed layouts), a one-input Concat; and two the fold must leave alone:
a Concat also read by another node, and a Concat along H. Pool first: a
DenseNet transition (ConcatNorm -> 1x1 Conv -> 2x2 stride-2 AveragePool), odd
planes, an overlapping 3x3 stride-2 pool, a grouped 1x1 Conv without bias;
left alone: a Relu after the Conv, a padded pool, a stride-1 pool, a 3x3
Conv, a Conv output read twice. Pooled ConcatNorm: a pool straight after the
BN's ReLU, plain NCHW with an overlapping 3x3 stride-2 window, mixed layouts;
left alone: a padded pool. Each runs with the rewrites on and off
(OPENACL_NO_CONCAT_NORM=1 OPENACL_NO_POOL_FIRST=1 OPENACL_NO_NORM_POOL=1), and
the pool fold alone off; OPENACL_DUMP_GRAPH=1 gives the number of ConcatNorm
nodes, of Convs moved after their pool and of AveragePools left, checked
against what each case expects.

Usage: dense_folds.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cases  # noqa: E402


class Net:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def const(self, arr):
        self.n += 1
        nm = "c%d" % self.n
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), nm))
        return nm

    def op(self, op, ins, **attrs):
        self.n += 1
        out = "%s_%d" % (op.lower(), self.n)
        self.nodes.append(helper.make_node(op, ins, [out], name="n%d" % self.n, **attrs))
        return out

    def conv(self, x, cin, cout, k, group=1, bias=True):
        w = self.const(self.rng.standard_normal((cout, cin // group, k, k)) * (1.0 / np.sqrt(cin * k * k)))
        ins = [x, w] + ([self.const(self.rng.standard_normal(cout) * 0.1)] if bias else [])
        return self.op("Conv", ins, pads=[k // 2] * 4, group=group)

    def bn(self, x, c, relu=True):
        r = self.rng
        ins = [x, self.const(r.uniform(0.5, 1.5, c)), self.const(r.standard_normal(c) * 0.2),
               self.const(r.standard_normal(c) * 0.3), self.const(r.uniform(0.5, 2.0, c))]
        y = self.op("BatchNormalization", ins, epsilon=1e-5)
        return self.op("Relu", [y]) if relu else y

    def model(self, shape, y):
        g = helper.make_graph(self.nodes, "catnorm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        return m, self.rng.uniform(-2, 2, shape).astype(np.float32)


def dense(seed, shape, growth, layers, relu=True):
    """DenseNet block: layer i reads BN(ReLU)(concat(x, f_1 .. f_i-1))."""
    t = Net(seed)
    c0 = shape[1]
    feats, chans = [t.conv("x", c0, c0, 3)], [c0]
    for _ in range(layers):
        cat = t.op("Concat", list(feats), axis=1)
        h = t.bn(cat, sum(chans), relu)
        h = t.conv(h, sum(chans), 2 * growth, 1)
        feats.append(t.conv(h, 2 * growth, growth, 3))
        chans.append(growth)
    y = t.bn(t.op("Concat", list(feats), axis=1), sum(chans))
    return t.model(shape, t.conv(y, sum(chans), 8, 1)), (layers + 1, 0, 0)


def plain(seed, shape):
    """No convolution: everything stays NCHW."""
    t = Net(seed)
    a = t.op("Relu", ["x"])
    b = t.op("Sigmoid", ["x"])
    return t.model(shape, t.bn(t.op("Concat", ["x", a, b], axis=1), 3 * shape[1])), (1, 0, 0)


def mixed(seed, shape):
    """The graph input (plain) beside convolution outputs (channels-last)."""
    t = Net(seed)
    c = shape[1]
    a, b = t.conv("x", c, 16, 3), t.conv("x", c, 5, 1)
    y = t.bn(t.op("Concat", [a, "x", b], axis=1), 21 + c)
    return t.model(shape, t.conv(y, 21 + c, 4, 1)), (1, 0, 0)


def single(seed, shape):
    t = Net(seed)
    a = t.conv("x", shape[1], 16, 3)
    return t.model(shape, t.conv(t.bn(t.op("Concat", [a], axis=1), 16), 16, 8, 1)), (1, 0, 0)


def shared(seed, shape):
    """The Concat is also a graph-visible value another node reads: no fold."""
    t = Net(seed)
    a, b = t.conv("x", shape[1], 16, 3), t.conv("x", shape[1], 16, 1)
    cat = t.op("Concat", [a, b], axis=1)
    y = t.conv(t.bn(cat, 32), 32, 32, 1)
    return t.model(shape, t.op("Add", [y, cat])), (0, 0, 0)


def along_h(seed, shape):
    """A Concat along H feeding a BN: not a channel concat, no fold."""
    t = Net(seed)
    a, b = t.conv("x", shape[1], 16, 3), t.conv("x", shape[1], 16, 1)
    y = t.bn(t.op("Concat", [a, b], axis=2), 16)
    return t.model(shape, t.conv(y, 16, 8, 1)), (0, 0, 0)


def transition(seed, shape, kind="plain", k=2, s=2, pads=0):
    """[Concat -> BN -> ReLU ->] 1x1 Conv -> AveragePool: the pool moves first
    unless kind or the pool's window says otherwise."""
    t = Net(seed)
    c = shape[1]
    a, b = t.conv("x", c, 16, 3), t.conv("x", c, 16, 1)
    h = t.bn(t.op("Concat", [a, b], axis=1), 32)
    if kind == "conv3x3":
        y = t.conv(h, 32, 16, 3)
    elif kind == "grouped":
        y = t.conv(h, 32, 16, 1, group=4, bias=False)
    else:
        y = t.conv(h, 32, 16, 1)
    if kind == "relu":
        y = t.op("Relu", [y])
    p = t.op("AveragePool", [y], kernel_shape=[k, k], strides=[s, s], pads=[pads] * 4)
    if kind == "twice":
        p = t.op("Add", [p, t.op("AveragePool", [y], kernel_shape=[k, k], strides=[s, s])])
    moved = int(kind in ("plain", "grouped") and s > 1 and pads == 0)
    left = 1 - moved + (kind == "twice")   # a moved pool joins the ConcatNorm
    return t.model(shape, t.conv(p, 16, 8, 1)), (1, moved, left)


def norm_pool(seed, shape, kind="nhwc", k=2, s=2, pads=0):
    """Concat -> BN -> ReLU -> AveragePool [-> Conv]: the pool joins the
    ConcatNorm unless it pads."""
    t = Net(seed)
    c = shape[1]
    if kind == "plain":
        parts = ["x", t.op("Sigmoid", ["x"])]
        cc = 2 * c
    elif kind == "mixed":
        parts = [t.conv("x", c, 16, 3), "x"]
        cc = 16 + c
    else:
        parts = [t.conv("x", c, 16, 3), t.conv("x", c, 5, 1)]
        cc = 21
    h = t.bn(t.op("Concat", parts, axis=1), cc)
    p = t.op("AveragePool", [h], kernel_shape=[k, k], strides=[s, s], pads=[pads] * 4)
    y = p if kind == "plain" else t.conv(p, cc, 8, 1)
    return t.model(shape, y), (1, 0, int(pads > 0))


CASES = {
    "dense_nhwc": lambda s: dense(s, [1, 16, 9, 11], 16, 4),
    "dense_odd_growth": lambda s: dense(s, [1, 12, 7, 6], 12, 3),
    "dense_n2_no_relu": lambda s: dense(s, [2, 16, 5, 8], 8, 3, relu=False),
    "plain_nchw": lambda s: plain(s, [2, 5, 4, 6]),
    "mixed_layouts": lambda s: mixed(s, [1, 3, 6, 7]),
    "single_input": lambda s: single(s, [1, 4, 5, 5]),
    "declined_shared": lambda s: shared(s, [1, 4, 6, 6]),
    "declined_axis_h": lambda s: along_h(s, [1, 4, 6, 6]),
    "pool_first_transition": lambda s: transition(s, [1, 8, 12, 10]),
    "pool_first_odd_plane": lambda s: transition(s, [1, 8, 9, 7]),
    "pool_first_3x3_s2": lambda s: transition(s, [1, 8, 11, 9], k=3),
    "pool_first_grouped": lambda s: transition(s, [1, 8, 8, 8], kind="grouped"),
    "declined_pool_relu": lambda s: transition(s, [1, 8, 8, 8], kind="relu"),
    "declined_pool_pads": lambda s: transition(s, [1, 8, 8, 8], pads=1),
    "declined_pool_stride1": lambda s: transition(s, [1, 8, 8, 8], s=1),
    "declined_pool_conv3x3": lambda s: transition(s, [1, 8, 8, 8], kind="conv3x3"),
    "declined_pool_twice": lambda s: transition(s, [1, 8, 8, 8], kind="twice"),
    "norm_pool_nhwc": lambda s: norm_pool(s, [1, 8, 10, 9]),
    "norm_pool_plain_3x3_s2": lambda s: norm_pool(s, [2, 5, 9, 11], kind="plain", k=3),
    "norm_pool_mixed": lambda s: norm_pool(s, [1, 3, 8, 6], kind="mixed"),
    "declined_norm_pool_pads": lambda s: norm_pool(s, [1, 8, 8, 8], pads=1),
}
MODES = (("on", {}), ("off", {"OPENACL_NO_CONCAT_NORM": "1", "OPENACL_NO_POOL_FIRST": "1", "OPENACL_NO_NORM_POOL": "1"}),
         ("no_norm_pool", {"OPENACL_NO_NORM_POOL": "1"}))


def check(got, want):
    return ort_cases.diff_vs_ort(got, want, 2e-5)


def folds(mdl_run, m, x, env):
    """ConcatNorm nodes, Convs moved after their pool (writing the pool's
    tensor, named averagepool_*) and AveragePool nodes in the planned graph
    (OPENACL_DUMP_GRAPH=1)."""
    with tempfile.TemporaryDirectory(prefix="oa_catnorm_n_") as d:
        mp, xp = os.path.join(d, "m.onnx"), os.path.join(d, "x.npy")
        onnx.save(m, mp)
        np.save(xp, x)
        p = subprocess.run([mdl_run, "--model", mp, "--inputs", xp, "--outdir", os.path.join(d, "o")],
                           capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, OPENACL_DUMP_GRAPH="1", **env))
        if p.returncode:
            return (-1, -1, -1)
        text = p.stdout + p.stderr
        return (text.count(" ConcatNorm '"), len(re.findall(r" Conv '[^']*' .*-> \(averagepool_", text)),
                len(re.findall(r" AveragePool '", text)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    a = ap.parse_args()
    built = {name: make(70 + i) for i, (name, make) in enumerate(CASES.items())}
    bad = 0
    for name, ((m, x), want) in built.items():
        on, off = folds(a.mdl_run, m, x, {}), folds(a.mdl_run, m, x, dict(MODES[1][1]))
        pools = sum(1 for nd in m.graph.node if nd.op_type == "AveragePool")
        if on != want or off != (0, 0, pools):
            print(f"FAIL {name}: (ConcatNorm nodes, Convs after their pool, AveragePools) {on}, want {want}; "
                  f"with the rewrites off {off}, want (0, 0, {pools})")
            bad += 1
    rc = ort_cases.run_cases(a.mdl_run, "oa_dense_folds_",
                             ((name, m, x, MODES, check) for name, ((m, x), _) in built.items()))
    return rc if rc or not bad else 1


if __name__ == "__main__":
    sys.exit(main())
