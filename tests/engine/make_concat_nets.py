#!/usr/bin/python3
"""Writes the models of the concat-in-place test (concat_inplace_test.c) with
numpy references: cat_odd (elementwise ops, every layout plain: a Concat
input also read by a later node, one input feeding two Concats, a graph
output as a Concat input, channel counts off the 16-lane grid whose slices
start off a 64-byte boundary, N=2 concats on axis 1 and on axis 0, a Concat
inside a Concat, a view producing a Concat input and a view of one),
cat_conv (convolutions writing Concat inputs, a residual convolution whose
addend is a Concat input), cat_dyn (a symbolic batch, run with 1 and 2: the
shape cache plans a static program per batch size),
and with atc: cat_conv.om and cat_odd.om, and cat_odd_old.om compiled with
concat in place off (a plan as an older build recorded it).
Each model M comes with M.meta ("inputs K", one line per input: rank and
dims; "outputs K"; "placed P": the Concat inputs the plan should place when
its layouts are plain), M.in<i>.bin and M.out<k>.bin (float32).
usage: make_concat_nets.py <atc> <out-dir>"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ATC, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(11)


class Net:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, p):
        self.n += 1
        return "%s_%d" % (p, self.n)

    def const(self, arr):
        nm = self.name("c")
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), nm))
        return nm

    def op(self, op, ins, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, ins, [out], name=self.name("n_" + op), **attrs))
        return out

    def save(self, model, inputs, outputs, refs, placed):
        g = helper.make_graph(self.nodes, model,
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s, _ in inputs],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(np.shape(r)))
                               for o, r in zip(outputs, refs)],
                              self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(OUT, model + ".onnx"))
        with open(os.path.join(OUT, model + ".meta"), "w") as f:
            f.write("inputs %d\n" % len(inputs))
            for i, (_, _, v) in enumerate(inputs):
                f.write("%d %s\n" % (v.ndim, " ".join(str(d) for d in v.shape)))
                v.astype(np.float32).tofile(os.path.join(OUT, "%s.in%d.bin" % (model, i)))
            f.write("outputs %d\nplaced %d\n" % (len(refs), placed))
        for k, r in enumerate(refs):
            np.asarray(r, dtype=np.float32).tofile(os.path.join(OUT, "%s.out%d.bin" % (model, k)))


def sig(v):
    return 1 / (1 + np.exp(-v))


def cat_odd():
    n = Net()
    x = rng.standard_normal((1, 16, 4, 4)).astype(np.float32)
    z = rng.standard_normal((1, 5, 3, 3)).astype(np.float32)
    w = rng.standard_normal((2, 8, 2, 2)).astype(np.float32)
    outs, refs = [], []
    # a and b placed; a is read again after the Concat
    a, b = n.op("Relu", ["x"]), n.op("Sigmoid", ["x"])
    c1 = n.op("Concat", [a, b], axis=1)
    ra, rb = np.maximum(x, 0), sig(x)
    rc1 = np.concatenate([ra, rb], 1)
    outs.append(n.op("Mul", [c1, n.const(2.0)])); refs.append(rc1 * 2)
    outs.append(n.op("Mul", [a, n.const(3.0)])); refs.append(ra * 3)
    # e feeds two Concats: placed in the first only (the other copies it)
    e, ng = n.op("Tanh", ["x"]), n.op("Neg", ["x"])
    c2 = n.op("Concat", [e, ng], axis=1)
    ab = n.op("Abs", ["x"])
    c3 = n.op("Concat", [ab, e], axis=1)
    re_ = np.tanh(x)
    outs.append(n.op("Add", [c2, c3])); refs.append(np.concatenate([re_, -x], 1) + np.concatenate([np.abs(x), re_], 1))
    # a graph output as a Concat input (stays the caller's buffer)
    o1 = n.op("Mul", ["x", n.const(0.5)])
    outs.append(o1); refs.append(x * 0.5)
    s1 = n.op("Sin", ["x"])
    c4 = n.op("Concat", [o1, s1], axis=1)
    outs.append(n.op("Sub", [c4, n.const(1.0)])); refs.append(np.concatenate([x * 0.5, np.sin(x)], 1) - 1)
    # 5 channels of 3x3: the second and third slices start off a 64-byte boundary
    p, q, r = n.op("Relu", ["z"]), n.op("Neg", ["z"]), n.op("Abs", ["z"])
    c5 = n.op("Concat", [p, q, r], axis=1)
    outs.append(n.op("Add", [c5, n.const(0.25)]))
    refs.append(np.concatenate([np.maximum(z, 0), -z, np.abs(z)], 1) + 0.25)
    # N=2: axis 1 is no contiguous slice, axis 0 is
    wa, wb = n.op("Relu", ["w"]), n.op("Neg", ["w"])
    c6 = n.op("Concat", [wa, wb], axis=1)
    outs.append(n.op("Mul", [c6, n.const(1.5)])); refs.append(np.concatenate([np.maximum(w, 0), -w], 1) * 1.5)
    wc, wd = n.op("Exp", ["w"]), n.op("Cos", ["w"])
    c7 = n.op("Concat", [wc, wd], axis=0)
    outs.append(n.op("Mul", [c7, n.const(0.5)])); refs.append(np.concatenate([np.exp(w), np.cos(w)], 0) * 0.5)
    # a Concat inside a Concat: c8's inputs land inside c9's buffer
    f1, f2 = n.op("Softsign", ["x"]), n.op("Cos", ["x"])
    c8 = n.op("Concat", [f1, f2], axis=1)
    f3 = n.op("Sqrt", [n.op("Abs", ["x"])])
    c9 = n.op("Concat", [c8, f3], axis=1)
    rf1, rf2, rf3 = x / (1 + np.abs(x)), np.cos(x), np.sqrt(np.abs(x))
    outs.append(n.op("Neg", [c9])); refs.append(-np.concatenate([rf1, rf2, rf3], 1))
    # a view producing a Concat input (copied by the view) and a view of a placed input
    fl = n.op("Flatten", [n.op("Floor", ["x"])], axis=1)
    h = n.op("Ceil", ["x"])
    c10 = n.op("Concat", [fl, n.op("Flatten", [n.op("Round", ["x"])], axis=1)], axis=1)
    c11 = n.op("Concat", [h, n.op("Relu", [n.op("Neg", ["x"])])], axis=1)
    hv = n.op("Flatten", [h], axis=1)
    outs.append(n.op("Add", [c10, n.const(1.0)]))
    refs.append(np.concatenate([np.floor(x).reshape(1, -1), np.round(x).reshape(1, -1)], 1) + 1)
    outs.append(n.op("Mul", [c11, n.const(2.0)])); refs.append(np.concatenate([np.ceil(x), np.maximum(-x, 0)], 1) * 2)
    outs.append(n.op("Mul", [hv, n.const(4.0)])); refs.append(np.ceil(x).reshape(1, -1) * 4)
    # placed: a, b (c1); e, ng (c2); ab (c3: e is in c2 already); s1 (c4: o1 is
    # an output); p (c5: q, r start off a 64-byte boundary); none of c6 (N=2,
    # axis 1); wc, wd (c7); f1, f2 (c8); c8, f3 (c9); both Flatten outputs (c10:
    # the views copy into place); h, the Relu (c11)
    n.save("cat_odd", [("x", [1, 16, 4, 4], x), ("z", [1, 5, 3, 3], z), ("w", [2, 8, 2, 2], w)],
           outs, refs, 17)


def conv_np(x, w, b, pad):
    n_, c, hh, ww = x.shape
    m, _, k, _ = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    y = np.zeros((n_, m, hh, ww), np.float64)
    for i in range(k):
        for j in range(k):
            y += np.einsum("nchw,mc->nmhw", xp[:, :, i:i + hh, j:j + ww], w[:, :, i, j])
    return (y + b.reshape(1, -1, 1, 1)).astype(np.float32)


def cat_conv():
    n = Net()
    x = rng.standard_normal((1, 8, 10, 10)).astype(np.float32)

    def conv(inp, rin, cin, cout, k):
        w = (rng.standard_normal((cout, cin, k, k)) * (2.0 / (cin * k * k)) ** 0.5).astype(np.float32)
        b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
        o = n.op("Conv", [inp, n.const(w), n.const(b)], kernel_shape=[k, k], pads=[k // 2] * 4)
        return o, conv_np(rin, w, b, k // 2)

    a, ra = conv("x", x, 8, 16, 3)
    a = n.op("Relu", [a]); ra = np.maximum(ra, 0)
    b, rb = conv("x", x, 8, 16, 1)
    c = n.op("Concat", [a, b], axis=1)
    rc = np.concatenate([ra, rb], 1)
    d, rd = conv(c, rc, 32, 16, 1)
    # residual: the addend is a placed Concat input, read after the Concat
    e = n.op("Add", [d, a])
    re_ = rd + ra
    f, rf = conv(e, re_, 16, 24, 3)
    g, rg = conv(e, re_, 16, 8, 1)
    h = n.op("Concat", [f, g, e], axis=1)
    rh = np.concatenate([rf, rg, re_], 1)
    y, ry = conv(h, rh, 48, 4, 1)
    # placed when plain: a, b (c); f, g, e (h)
    n.save("cat_conv", [("x", [1, 8, 10, 10], x)], [y], [ry], 5)


def cat_dyn():
    n = Net()
    x = rng.standard_normal((1, 8, 4, 4)).astype(np.float32)
    a, b = n.op("Relu", ["x"]), n.op("Neg", ["x"])
    c = n.op("Concat", [a, b], axis=1)
    y = n.op("Mul", [c, n.const(2.0)])
    n.save("cat_dyn", [("x", ["N", 8, 4, 4], x)], [y], [np.concatenate([np.maximum(x, 0), -x], 1) * 2], -1)
    # the same model run with a batch of 2 (cat_dyn_b2.meta and data only)
    x2 = rng.standard_normal((2, 8, 4, 4)).astype(np.float32)
    with open(os.path.join(OUT, "cat_dyn_b2.meta"), "w") as f:
        f.write("inputs 1\n4 2 8 4 4\noutputs 1\nplaced -1\n")
    x2.tofile(os.path.join(OUT, "cat_dyn_b2.in0.bin"))
    (np.concatenate([np.maximum(x2, 0), -x2], 1) * 2).astype(np.float32).tofile(os.path.join(OUT, "cat_dyn_b2.out0.bin"))


def atc(model, out, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([ATC, "--model=" + os.path.join(OUT, model + ".onnx"), "--framework=5",
                        "--output=" + os.path.join(OUT, out)], capture_output=True, text=True, env=e)
    if p.returncode:
        sys.exit("atc %s failed: %s%s" % (model, p.stdout, p.stderr))


cat_odd()
cat_conv()
cat_dyn()
atc("cat_conv", "cat_conv", {"OPENACL_NO_LAYOUT": "1"})
atc("cat_odd", "cat_odd")
atc("cat_odd", "cat_odd_old", {"OPENACL_NO_CONCAT_INPLACE": "1"})
print("wrote", OUT)
