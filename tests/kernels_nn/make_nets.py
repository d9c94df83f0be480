#!/usr/bin/python3
"""Writes small convolutional ONNX models for the fusion/layout tests:
resnet_tiny (Conv+BN+Relu, max pool, residual blocks with a downsampling
branch, global pool, Gemm) and mbnet_tiny (Clip as Relu6, depthwise convs,
an inverted residual, HardSwish, x*sigmoid(x), HardSigmoid, ConvTranspose +
LeakyRelu, AveragePool, a graph output inside the channels-last region,
hard-swish written as Add/Clip/Mul/Div with a scalar affine step after it,
MatMul + bias + GELU written with Erf) and se_tiny (squeeze-excite blocks:
EfficientNet's SiLU/Sigmoid after a SiLU depthwise conv, MobileNetV3's
ReLU/HardSigmoid with the Mul operands swapped and no squeeze bias, one over
a residual sum, channel counts off the 16-lane grid) and shuffle_tiny
(ShuffleNet channel shuffles: Concat -> Reshape -> Transpose -> Reshape ->
Slices with 2 groups and an odd half, uneven and overlapping slices, 3 and 4
groups over one input and over three, a shuffle read by a convolution and
one that is a graph output) and pool_tiny (an AveragePool 3x2 stride 3x2
and a MaxPool 2x2 stride 2 over odd sizes, whose floor mode leaves input
columns to no window). Random weights from a fixed seed.
usage: make_nets.py <out-dir>"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
nodes, inits = [], []
count = [0]


def name(p):
    count[0] += 1
    return "%s_%d" % (p, count[0])


def const(arr, p="c"):
    n = name(p)
    inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), n))
    return n


def node(op, ins, n_out=1, **attrs):
    outs = [name(op.lower()) for _ in range(n_out)]
    nodes.append(helper.make_node(op, ins, outs, name=name("n_" + op), **attrs))
    return outs[0] if n_out == 1 else outs


def conv(x, cin, cout, k, s=1, p=None, group=1, bias=True):
    p = k // 2 if p is None else p
    w = const(rng.standard_normal((cout, cin // group, k, k)) * (2.0 / (cin // group * k * k)) ** 0.5, "w")
    ins = [x, w] + ([const(rng.standard_normal(cout) * 0.1, "b")] if bias else [])
    return node("Conv", ins, kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p], group=group)


def bn(x, c):
    return node("BatchNormalization", [x, const(1 + 0.1 * rng.standard_normal(c), "g"),
                                       const(0.1 * rng.standard_normal(c), "be"),
                                       const(0.1 * rng.standard_normal(c), "mu"),
                                       const(0.5 + rng.random(c), "var")], epsilon=1e-5)


def finish(path, x_shape, outs, out_shapes, opset=14):
    g = helper.make_graph(nodes, os.path.basename(path)[:-5],
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, sh)
                           for o, sh in zip(outs, out_shapes)],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    onnx.save(m, path)
    nodes.clear()
    inits.clear()


def resnet_tiny(path):
    x = node("Relu", [bn(conv("x", 3, 16, 7, 2, 3, bias=False), 16)])
    x = node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    for cin, cout, s in ((16, 16, 1), (16, 32, 2), (32, 32, 1)):
        y = node("Relu", [bn(conv(x, cin, cout, 3, s, bias=False), cout)])
        y = bn(conv(y, cout, cout, 3, 1, bias=False), cout)
        sc = bn(conv(x, cin, cout, 1, s, 0, bias=False), cout) if (s != 1 or cin != cout) else x
        x = node("Relu", [node("Add", [y, sc])])
    x = node("GlobalAveragePool", [x])
    x = node("Flatten", [x], axis=1)
    y = node("Gemm", [x, const(rng.standard_normal((10, 32)) * 0.2, "fc"),
                      const(rng.standard_normal(10) * 0.1, "fcb")], transB=1)
    finish(path, [1, 3, 56, 56], [y], [[1, 10]])


def mbnet_tiny(path):
    lo, hi = const(0.0, "lo"), const(6.0, "hi")
    x = node("Clip", [bn(conv("x", 3, 16, 3, 2, bias=False), 16), lo, hi])
    # inverted residual: expand, depthwise, project, add
    e = node("Clip", [bn(conv(x, 16, 48, 1, bias=False), 48), lo, hi])
    d = node("Clip", [bn(conv(e, 48, 48, 3, 1, group=48, bias=False), 48), lo, hi])
    pj = bn(conv(d, 48, 16, 1, bias=False), 16)
    x = node("Add", [x, pj])
    mid = x   # also a graph output from inside the channels-last region
    h = node("HardSwish", [conv(x, 16, 24, 3, 2)])
    s = conv(h, 24, 24, 1)
    h = node("Mul", [s, node("Sigmoid", [s])])              # SiLU pattern
    h = node("HardSigmoid", [conv(h, 24, 24, 3, 1, group=3)], alpha=0.25, beta=0.4)
    # hard-swish spelled out, then a scalar affine step (PP-OCR style)
    c = conv(h, 24, 24, 1)
    r6 = node("Clip", [node("Add", [c, const(3.0, "three")]), lo, hi])
    h = node("Div", [node("Mul", [c, r6]), const(6.0, "six")])
    h = node("Add", [node("Mul", [const([1.5], "ls"), h]), const([-0.2], "lb")])
    u = node("ConvTranspose", [h, const(rng.standard_normal((24, 8, 2, 2)) * 0.3, "wt"),
                               const(rng.standard_normal(8) * 0.1, "bt")],
             kernel_shape=[2, 2], strides=[2, 2])
    u = node("LeakyRelu", [u], alpha=0.1)
    u = node("AveragePool", [u], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    u = node("Mul", [conv(u, 8, 8, 3), const(rng.standard_normal((1, 8, 1, 1)), "sc")])
    g = node("GlobalAveragePool", [u])
    f = node("Reshape", [g, numpy_const([1, 8])])
    y = node("Add", [node("MatMul", [f, const(rng.standard_normal((8, 5)), "mm")]),
                     const(rng.standard_normal(5), "mb")])
    # exact GELU as exporters spell it: x * (1 + erf(x / sqrt 2)) * 0.5
    e = node("Erf", [node("Div", [y, const(1.4142135381698608, "sqrt2")])])
    y = node("Mul", [node("Mul", [y, node("Add", [e, const(1.0, "one")])]), const(0.5, "half")])
    y = node("Relu", [y])
    finish(path, [1, 3, 40, 40], [y, mid], [[1, 5], [1, 16, 20, 20]])


def silu(x):
    return node("Mul", [x, node("Sigmoid", [x])])


def se(x, c, r, kind, bias1=True, swap=False):
    g = node("GlobalAveragePool", [x])
    h = conv(g, c, r, 1, bias=bias1)
    h = silu(h) if kind == "silu" else node("Relu", [h])
    s = conv(h, r, c, 1)
    s = node("Sigmoid", [s]) if kind == "silu" else node("HardSigmoid", [s], alpha=1.0 / 6, beta=0.5)
    return node("Mul", [s, x] if swap else [x, s])


def se_tiny(path):
    x = silu(bn(conv("x", 3, 16, 3, 1, bias=False), 16))                  # 16 x 64 x 64
    d = silu(bn(conv(x, 16, 16, 3, 1, group=16, bias=False), 16))
    x = bn(conv(se(d, 16, 4, "silu"), 16, 24, 1, bias=False), 24)        # EfficientNet
    e = node("Relu", [conv(x, 24, 40, 1)])
    d = node("Relu", [conv(e, 40, 40, 3, 2, group=40)])                  # 40 x 32 x 32
    y = se(d, 40, 10, "hard", bias1=False, swap=True)                    # MobileNetV3
    y = conv(y, 40, 40, 1)
    r = node("Add", [y, d])
    y = conv(se(r, 40, 8, "silu"), 40, 24, 1)                            # over a sum
    finish(path, [1, 3, 64, 64], [y], [[1, 24, 32, 32]])


def numpy_const(v):
    n = name("shape")
    inits.append(numpy_helper.from_array(np.asarray(v, dtype=np.int64), n))
    return n


def shuffle(parts, c, g, hw):
    x = node("Concat", parts, axis=1) if len(parts) > 1 else parts[0]
    r = node("Reshape", [x, numpy_const([1, g, c // g, hw, hw])])
    t = node("Transpose", [r], perm=[0, 2, 1, 3, 4])
    return node("Reshape", [t, numpy_const([1, -1, hw, hw])])


def cslice(x, a, b):
    return node("Slice", [x, numpy_const([a]), numpy_const([b]), numpy_const([1])])


def shuffle_tiny(path):
    x = node("Relu", [conv("x", 3, 22, 3)])                                # 22 x 16 x 16
    y = shuffle([node("Relu", [conv(x, 22, 11, 1)]), conv(x, 22, 11, 3)], 22, 2, 16)
    a, b = cslice(y, 0, 11), cslice(y, 11, 22)                             # halves of 11
    y = shuffle([a, node("Relu", [conv(b, 11, 11, 1)])], 22, 2, 16)
    a, b = cslice(y, 0, 7), cslice(y, 3, 22)                               # uneven, overlapping
    y = node("Concat", [conv(a, 7, 8, 1), conv(b, 19, 16, 1)], axis=1)    # 24
    y = conv(shuffle([y], 24, 3, 16), 24, 24, 3)                           # read by a conv
    p = [conv(y, 24, 5, 1), conv(y, 24, 7, 1), conv(y, 24, 12, 1)]
    y = shuffle(p, 24, 4, 16)
    a, b = cslice(y, 5, 18), cslice(y, 0, 24)
    y = shuffle([conv(a, 13, 4, 1), conv(b, 24, 4, 1)], 8, 2, 16)          # a graph output
    finish(path, [1, 3, 16, 16], [y], [[1, 8, 16, 16]])


def pool_tiny(path):
    x = conv(node("Relu", [conv("x", 3, 8, 3)]), 8, 8, 1)                 # 8 x 12 x 35
    a = node("AveragePool", [x], kernel_shape=[3, 2], strides=[3, 2])      # 8 x 4 x 17
    m = node("MaxPool", [conv(a, 8, 8, 1)], kernel_shape=[2, 2], strides=[2, 2])   # 8 x 2 x 8
    finish(path, [1, 3, 12, 35], [conv(m, 8, 4, 1)], [[1, 4, 2, 8]])


def dense_tiny(path):
    """DenseNet's pre-activation (Concat -> BN -> Relu -> Conv, the BN with no
    convolution before it to fold into: one openacl.ConcatNorm) and
    Inception's zero Pad before an AveragePool: both folded by
    graph/fuse_simple.c."""
    c1 = node("Relu", [conv("x", 3, 8, 3)])
    cat = node("Concat", [c1, conv(c1, 8, 8, 3)], axis=1)                   # 16 x 16 x 16
    y = conv(node("Relu", [bn(cat, 16)]), 16, 8, 1)
    pads = numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64), name("pads"))
    inits.append(pads)
    a = node("AveragePool", [node("Pad", [y, pads.name], mode="constant")], kernel_shape=[3, 3])
    finish(path, [1, 3, 16, 16], [conv(a, 8, 4, 1)], [[1, 4, 16, 16]])


def cnx_block(x, c, scale_shape=(None,), swap=False, bias=True):
    """One ConvNeXt block on x [1, c, H, W]; scale_shape None: no layer scale."""
    d = conv(x, c, c, 7, group=c)
    t = node("Transpose", [d], perm=[0, 2, 3, 1])
    ln = node("LayerNormalization", [t, const(1 + 0.1 * rng.standard_normal(c), "lg"),
                                     const(0.1 * rng.standard_normal(c), "lb")], axis=-1, epsilon=1e-6)
    h = node("MatMul", [ln, const(rng.standard_normal((c, 4 * c)) * c ** -0.5, "w1")])
    h = node("Add", [h, const(0.1 * rng.standard_normal(4 * c), "b1")])
    e = node("Erf", [node("Div", [h, const(1.4142135381698608, "sqrt2")])])
    h = node("Mul", [node("Mul", [h, node("Add", [e, const(1.0, "one")])]), const(0.5, "half")])
    y = node("MatMul", [h, const(rng.standard_normal((4 * c, c)) * (4 * c) ** -0.5, "w2")])
    if bias:
        y = node("Add", [const(0.1 * rng.standard_normal(c), "b2"), y])
    y = node("Transpose", [y], perm=[0, 3, 1, 2])
    if scale_shape[0] is not None:
        g = const(0.5 + rng.random(scale_shape), "gamma")
        y = node("Mul", [g, y] if swap else [y, g])
    return node("Add", [y, x] if swap else [x, y])


def cnx_tiny(path):
    x = conv("x", 3, 16, 4, 4, 0)                                   # 16 x 8 x 8 (a ConvNeXt stem)
    b1 = cnx_block(x, 16, (16, 1, 1))
    b2 = cnx_block(b1, 16, (1, 16, 1, 1), swap=True)
    b3 = cnx_block(b2, 16, (None,), bias=False)
    cat = node("Concat", [b3, b2], axis=1)                          # b2 read again after block 3
    finish(path, [1, 3, 32, 32], [cat, b1], [[1, 32, 8, 8], [1, 16, 8, 8]], opset=17)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    resnet_tiny(os.path.join(out, "resnet_tiny.onnx"))
    mbnet_tiny(os.path.join(out, "mbnet_tiny.onnx"))
    se_tiny(os.path.join(out, "se_tiny.onnx"))
    shuffle_tiny(os.path.join(out, "shuffle_tiny.onnx"))
    pool_tiny(os.path.join(out, "pool_tiny.onnx"))
    dense_tiny(os.path.join(out, "dense_tiny.onnx"))
    cnx_tiny(os.path.join(out, "cnx_tiny.onnx"))
