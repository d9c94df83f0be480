#!/usr/bin/python3
"""Small hand-built QDQ and QOperator graphs checked against ONNX Runtime.

Each case is built with onnx.helper from seeded numpy data, in the form ORT's
own quantiser writes (uint8 per-tensor activations, int8 symmetric weights
per output channel or per tensor, int32 bias, the activation chain before
the QuantizeLinear), run by ONNX Runtime (tools/ortref, CPU EP, all graph
optimisations) and by openacl through its public API (tests/models/mdl_run),
and compared: float outputs (a DequantizeLinear at the end) within one
quantisation step of the output, integer outputs exactly for the QOperator
cases where ORT is exact. Then the same with OPENACL_FORCE_REF=1, so the
reference kernels are checked too, and with OPENACL_NO_QDQ=1 (the float
Q/DQ path must stay right).

Usage: qdq_nets.py --mdl-run BIN [--only NAME] [--keep]
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")
SKIP = 77


class B:
    """A graph under construction: initializers, nodes, a name counter."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.k = [], [], 0

    def name(self, p):
        self.k += 1
        return f"{p}{self.k}"

    def const(self, arr, p="c"):
        n = self.name(p)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def node(self, op, ins, domain="", **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, ins, [out], name=self.name("n"), domain=domain, **attrs))
        return out

    def qdq(self, x, scale, zp, dtype=np.uint8):
        """QuantizeLinear -> DequantizeLinear of activation x (per tensor)."""
        s, z = self.const(np.float32(scale), "s"), self.const(dtype(zp), "z")
        q = self.node("QuantizeLinear", [x, s, z])
        return self.node("DequantizeLinear", [q, s, z]), q, s, z

    def weight(self, w, per_channel=True):
        """int8 symmetric weights (axis 0) behind a DequantizeLinear."""
        if per_channel:
            amax = np.abs(w).reshape(w.shape[0], -1).max(1)
        else:
            amax = np.full(w.shape[0], np.abs(w).max())
        sc = np.maximum(amax, 1e-8).astype(np.float32) / 127
        q = np.clip(np.rint(w / sc.reshape(-1, *([1] * (w.ndim - 1)))), -127, 127).astype(np.int8)
        scale = sc if per_channel else np.float32(sc[0])
        zp = np.zeros(w.shape[0], np.int8) if per_channel else np.int8(0)
        ws, wz = self.const(scale, "ws"), self.const(zp, "wz")
        return self.node("DequantizeLinear", [self.const(q, "wq"), ws, wz], axis=0), sc

    def bias(self, b, xs, wsc):
        bs = (xs * wsc).astype(np.float32)
        q = np.rint(b / bs).astype(np.int32)
        return self.node("DequantizeLinear", [self.const(q, "bq"), self.const(bs, "bs"),
                                              self.const(np.zeros_like(q), "bz")], axis=0)

    def model(self, inputs, outputs, opset=14, ms=False):
        g = helper.make_graph(self.nodes, "qdq", inputs, outputs, self.inits)
        ops = [helper.make_opsetid("", opset)]
        if ms:
            ops.append(helper.make_opsetid("com.microsoft", 1))
        m = helper.make_model(g, opset_imports=ops)
        m.ir_version = 8
        inf = onnx.shape_inference.infer_shapes(m)
        known = {v.name: v for v in list(inf.graph.value_info) + list(inf.graph.output)}
        for o in m.graph.output:
            if not o.type.HasField("tensor_type") and o.name in known:
                o.CopyFrom(known[o.name])
        return m


def fin(shape, dtype=TensorProto.FLOAT, name="x"):
    if shape is None:   # an output: type and shape left to inference
        return helper.make_empty_tensor_value_info(name)
    return helper.make_tensor_value_info(name, dtype, shape)


def act_chain(b, y, act):
    if act == "relu":
        return b.node("Relu", [y])
    if act == "relu6":
        return b.node("Clip", [y, b.const(np.float32(0)), b.const(np.float32(6))])
    if act == "hswish":
        return b.node("HardSwish", [y])
    if act == "silu":
        s = b.node("Sigmoid", [y])
        return b.node("Mul", [y, s])
    if act == "leaky":
        return b.node("LeakyRelu", [y], alpha=0.1)
    if act == "hsigmoid":
        return b.node("HardSigmoid", [y], alpha=0.2, beta=0.5)
    if act == "sigmoid":
        return b.node("Sigmoid", [y])
    return y


def conv_layer(b, x_dq, xs, C, M, k, stride=1, pad=0, group=1, act="relu", per_channel=True,
               ys=0.05, yzp=0, dil=1, bias=True):
    w = b.rng.normal(0, 1.0 / np.sqrt(C // group * k * k), (M, C // group, k, k)).astype(np.float32)
    wdq, wsc = b.weight(w, per_channel)
    ins = [x_dq, wdq]
    if bias:
        ins.append(b.bias(b.rng.normal(0, 0.2, M).astype(np.float32), xs, wsc))
    y = b.node("Conv", ins, kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4,
               group=group, dilations=[dil, dil])
    y = act_chain(b, y, act)
    dq, _, _, _ = b.qdq(y, ys, yzp)
    return dq


def case_conv(seed, N, C, H, W, M, k, stride, pad, group, act, per_channel, xzp, bias=True, dil=1):
    b = B(seed)
    xs = 0.02
    x_dq, _, _, _ = b.qdq("x", xs, xzp)
    y = conv_layer(b, x_dq, xs, C, M, k, stride, pad, group, act, per_channel, ys=0.04,
                   yzp=0 if act in ("relu", "relu6") else 128, bias=bias, dil=dil)
    m = b.model([fin([N, C, H, W])], [fin(None, name=y)])
    x = b.rng.uniform(-xzp * xs, (255 - xzp) * xs, (N, C, H, W)).astype(np.float32)
    return m, [x], 0.04


def case_conv_dead(seed, act):
    """A 1x1 layer whose dead output channels (all-zero weights) carry the
    subnormal w_scale a calibrator gives them (PP-OCRv4 rec has such), and
    their bias the int32 extreme its subnormal scale quantises to: the fast
    kernel sets those output scales to 0 (kernels/dnnl/dn_qconv.c), which
    must not change an integer of the result."""
    b = B(seed)
    xs, C, M, H, W = 0.02, 48, 40, 6, 17
    x_dq, _, _, _ = b.qdq("x", xs, 57)
    w = b.rng.normal(0, 1.0 / np.sqrt(C), (M, C, 1, 1)).astype(np.float32)
    dead = [0, 5, 17, 39]
    w[dead] = 0
    sc = np.maximum(np.abs(w).reshape(M, -1).max(1), 1e-8).astype(np.float32) / 127
    sc[dead] = np.float32(6.589e-42)
    q = np.clip(np.rint(w / sc.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
    wdq = b.node("DequantizeLinear", [b.const(q, "wq"), b.const(sc, "ws"), b.const(np.zeros(M, np.int8), "wz")],
                 axis=0)
    bs = (np.float32(xs) * sc).astype(np.float32)
    bq = np.clip(np.rint(b.rng.normal(0, 0.2, M) / bs.astype(np.float64)), -2**31, 2**31 - 1).astype(np.int32)
    bdq = b.node("DequantizeLinear", [b.const(bq, "bq"), b.const(bs, "bs"), b.const(np.zeros(M, np.int32), "bz")],
                 axis=0)
    y = act_chain(b, b.node("Conv", [x_dq, wdq, bdq], kernel_shape=[1, 1]), act)
    dq, _, _, _ = b.qdq(y, 0.04, 22)
    m = b.model([fin([1, C, H, W])], [fin(None, name=dq)])
    x = b.rng.uniform(-57 * xs, 198 * xs, (1, C, H, W)).astype(np.float32)
    return m, [x], 0.04


def case_zpad_chain(seed, k, stride, group, C=24, H=9, W=13, act="relu6"):
    """A 1x1 layer (HardSwish, output zero point 128) feeding a padded layer
    channels-last: the second one's input has a nonzero zero point, which
    the fast kernel writes into the border of a padded copy of its input
    and folds into the int32 bias instead of oneDNN's runtime zero point
    (kernels/dnnl/dn_qconv.c, zpad). A padded copy of 64 KiB or more is
    written by the threads together (dn_qconv_zp.c): a HardSwish depthwise
    layer as PP-OCRv4 rec's (dn_qdw.c takes the Relu6 ones)."""
    b = B(seed)
    xs = 0.02
    x_dq, _, _, _ = b.qdq("x", xs, 100)
    y = conv_layer(b, x_dq, xs, C, C, 1, act="hswish", ys=0.03, yzp=128)
    y = conv_layer(b, y, 0.03, C, C, k, stride=stride, pad=k // 2, group=group, act=act, ys=0.04,
                   yzp=0 if act == "relu6" else 20)
    m = b.model([fin([1, C, H, W])], [fin(None, name=y)])
    x = b.rng.uniform(-100 * xs, 155 * xs, (1, C, H, W)).astype(np.float32)
    return m, [x], 0.04


def case_block(seed, C=32, H=14, W=14, pool=None):
    """Two convolutions (u8 between them, channels-last), a residual add with
    its Relu, then optional pooling, GlobalAveragePool and Flatten."""
    b = B(seed)
    xs = 0.03
    x_dq, _, _, _ = b.qdq("x", xs, 100)
    if pool == "max":
        p = b.node("MaxPool", [x_dq], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        x_dq, _, _, _ = b.qdq(p, xs, 100)
    if pool == "avg":
        p = b.node("AveragePool", [x_dq], kernel_shape=[2, 2], strides=[2, 2])
        x_dq, _, _, _ = b.qdq(p, 0.02, 90)
        xs = 0.02
    h1 = conv_layer(b, x_dq, xs, C, C, 3, 1, 1, 1, "relu", ys=0.03, yzp=0)
    h2 = conv_layer(b, h1, 0.03, C, C, 1, 1, 0, 1, "none", ys=0.05, yzp=120)
    a = b.node("Add", [h2, x_dq])
    a = b.node("Relu", [a])
    a_dq, _, _, _ = b.qdq(a, 0.04, 0)
    g = b.node("GlobalAveragePool", [a_dq])
    g_dq, _, _, _ = b.qdq(g, 0.01, 0)
    f = b.node("Flatten", [g_dq])
    f_dq, _, _, _ = b.qdq(f, 0.01, 0)
    m = b.model([fin([1, C, H, W])], [fin(None, name=f_dq), fin(None, name=a_dq)])
    x = b.rng.uniform(-3, 4.5, (1, C, H, W)).astype(np.float32)
    return m, [x], 0.04


def case_concat(seed):
    b = B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    c1 = conv_layer(b, x_dq, 0.02, 8, 16, 1, act="relu", ys=0.03, yzp=0)
    c2 = conv_layer(b, x_dq, 0.02, 8, 8, 3, pad=1, act="hswish", ys=0.02, yzp=20)
    c = b.node("Concat", [c1, c2], axis=1)
    c_dq, _, _, _ = b.qdq(c, 0.025, 10)
    c3 = conv_layer(b, c_dq, 0.025, 24, 8, 1, act="none", ys=0.05, yzp=128)
    m = b.model([fin([1, 8, 10, 12])], [fin(None, name=c3)])
    return m, [b.rng.uniform(-2.5, 2.5, (1, 8, 10, 12)).astype(np.float32)], 0.05


def case_fpn(seed):
    """A detection neck: a convolution's output upsampled by a nearest Resize
    (Q after it with the DQ's parameters: the pass runs it on the bytes),
    concatenated along channels with another convolution's output (NHWC)
    and the quantised input itself (stored plain, sharing the concat's
    parameters: copied), then a convolution."""
    b = B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.025, 10)
    lo = conv_layer(b, x_dq, 0.025, 8, 12, 3, stride=2, pad=1, act="relu", ys=0.03, yzp=0)
    sc = b.const(np.array([1, 1, 2, 2], np.float32))
    up = b.node("Resize", [lo, "", sc], mode="nearest", coordinate_transformation_mode="asymmetric",
                nearest_mode="floor")
    up_dq, _, _, _ = b.qdq(up, 0.03, 0)
    hi = conv_layer(b, x_dq, 0.025, 8, 6, 1, act="hswish", ys=0.02, yzp=30)
    c = b.node("Concat", [up_dq, hi, x_dq], axis=1)
    c_dq, _, _, _ = b.qdq(c, 0.025, 10)
    y = conv_layer(b, c_dq, 0.025, 26, 8, 3, pad=1, act="none", ys=0.05, yzp=128)
    m = b.model([fin([1, 8, 12, 14])], [fin(None, name=y), fin(None, name=c_dq)])
    return m, [b.rng.uniform(-0.2, 6, (1, 8, 12, 14)).astype(np.float32)], [0.05, 0.025]


def case_pool_nhwc(seed, include_pad, H=9, W=14):
    """Average pooling between two convolutions, so it reads and writes
    channels-last: PP-OCR rec's neck pool (3x2 window, stride 3x2) or a
    padded 3x3 window with count_include_pad. H=3: one output row, as in
    PP-OCR rec (which the threads share by column chunks)."""
    b = B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    h = conv_layer(b, x_dq, 0.02, 8, 24, 1, act="hswish", ys=0.03, yzp=12)
    if include_pad:
        p = b.node("AveragePool", [h], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                   count_include_pad=1)
    else:
        p = b.node("AveragePool", [h], kernel_shape=[3, 2], strides=[3, 2])
    p_dq, _, _, _ = b.qdq(p, 0.02, 20)
    y = conv_layer(b, p_dq, 0.02, 24, 16, 1, act="none", ys=0.04, yzp=128)
    m = b.model([fin([1, 8, H, W])], [fin(None, name=y), fin(None, name=p_dq)])
    return m, [b.rng.uniform(-2.5, 2.5, (1, 8, H, W)).astype(np.float32)], [0.04, 0.02]


def case_pool(seed, op):
    """One pooling op between a DQ and a Q (other scales for the averages)."""
    b = B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.03, 100)
    if op == "avg":
        p = b.node("AveragePool", [x_dq], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        y, _, _, _ = b.qdq(p, 0.02, 90)
    elif op == "avg_pad_ceil":   # count_include_pad, ceil_mode, a 3x2 window as PP-OCR's neck
        p = b.node("AveragePool", [x_dq], kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1],
                   count_include_pad=1, ceil_mode=1)
        y, _, _, _ = b.qdq(p, 0.02, 90)
    elif op == "gap":
        p = b.node("GlobalAveragePool", [x_dq])
        y, _, _, _ = b.qdq(p, 0.01, 7)
    else:
        p = b.node("MaxPool", [x_dq], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        y, _, _, _ = b.qdq(p, 0.03, 100)
    m = b.model([fin([2, 16, 11, 13])], [fin(None, name=y)])
    return m, [b.rng.uniform(-3, 4.5, (2, 16, 11, 13)).astype(np.float32)], 0.02 if op.startswith("avg") else 0.03


def case_bin(seed, op, yshape, ys):
    b = B(seed)
    a_dq, _, _, _ = b.qdq("x", 0.03, 100)
    c_dq, _, _, _ = b.qdq("y", 0.05, 20)
    a = b.node(op, [a_dq, c_dq])
    y, _, _, _ = b.qdq(a, ys, 128)
    m = b.model([fin([1, 8, 5, 70]), fin(yshape, name="y")], [fin(None, name=y)])
    return m, [b.rng.uniform(-3, 4.5, (1, 8, 5, 70)).astype(np.float32),
               b.rng.uniform(-1, 10, yshape).astype(np.float32)], ys


def case_se(seed):
    """A squeeze-excite block as EfficientNet has it: depthwise conv with
    SiLU, GlobalAveragePool, two 1x1 convs (SiLU, Sigmoid), the channel
    scaling Mul of two quantised tensors, the projection conv."""
    b = B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.03, 110)
    d = conv_layer(b, x_dq, 0.03, 32, 32, 3, pad=1, group=32, act="silu", ys=0.02, yzp=20)
    g = b.node("GlobalAveragePool", [d])
    g_dq, _, _, _ = b.qdq(g, 0.01, 10)
    s1 = conv_layer(b, g_dq, 0.01, 32, 8, 1, act="silu", ys=0.01, yzp=30)
    s2 = conv_layer(b, s1, 0.01, 8, 32, 1, act="none", ys=0.05, yzp=128)
    s2 = b.node("Sigmoid", [s2])
    s2_dq, _, _, _ = b.qdq(s2, 1 / 255, 0)
    m = b.node("Mul", [d, s2_dq])
    m_dq, _, _, _ = b.qdq(m, 0.015, 30)
    y = conv_layer(b, m_dq, 0.015, 32, 16, 1, act="none", ys=0.03, yzp=128)
    mo = b.model([fin([1, 32, 14, 14])], [fin(None, name=y)])
    return mo, [b.rng.uniform(-3, 4.5, (1, 32, 14, 14)).astype(np.float32)], 0.03


def case_nomatch(seed, kind):
    """Patterns the folding must leave to the float Q/DQ path: an activation
    outside the fusable chains between the convolution and its Q, or a
    convolution output also read as a float graph output (that output is
    compared to a float tolerance: step None)."""
    b = B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    wdq, _ = b.weight(b.rng.normal(0, 0.3, (8, 6, 3, 3)).astype(np.float32))
    c = b.node("Conv", [x_dq, wdq], pads=[1, 1, 1, 1])
    if kind == "softplus":
        c = b.node("Softplus", [c])
    y, _, _, _ = b.qdq(c, 0.05, 128)
    outs = [fin(None, name=y)] + ([fin(None, name=c)] if kind == "also_output" else [])
    m = b.model([fin([1, 6, 9, 9])], outs)
    steps = [0.05, None] if kind == "also_output" else 0.05
    return m, [b.rng.uniform(-2.5, 2.5, (1, 6, 9, 9)).astype(np.float32)], steps


def case_qop(seed):
    """QOperator form written directly: QLinearConv on uint8 input, integer output."""
    b = B(seed)
    w = b.rng.integers(-127, 128, (6, 3, 3, 3)).astype(np.int8)
    ins = ["x", b.const(np.float32(0.05)), b.const(np.uint8(7)), b.const(w),
           b.const(np.float32(0.004)), b.const(np.int8(0)), b.const(np.float32(0.3)),
           b.const(np.uint8(100)), b.const(b.rng.integers(-500, 500, 6).astype(np.int32))]
    b.nodes.append(helper.make_node("QLinearConv", ins, ["y"], pads=[1, 1, 1, 1], strides=[2, 1]))
    m = b.model([fin([1, 3, 9, 11], TensorProto.UINT8)], [fin(None, TensorProto.UINT8, "y")], opset=13)
    return m, [b.rng.integers(0, 256, (1, 3, 9, 11)).astype(np.uint8)], 0


def case_dw_chain(seed, N=2, C=250, H=13, W=11, k=3):
    """Depthwise 3x3 layers between channels-last uint8 tensors, as
    kernels/dnnl/dn_qdw.c's VNNI loop takes them (250 channels: a partial
    64-channel block; odd sizes; two images): a 1x1 expansion, then
    depthwise stride 1 with Relu6, stride 2 with SiLU (input zero point
    12), stride 1 with no activation (output zero point 128), stride 2 with
    Relu, and a 1x1 projection. With channels a multiple of 16 but not of
    64, the stride-1 layers take the loop's flat-row form; k=5: 5x5 kernels
    with two pixels of padding."""
    b = B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    e = conv_layer(b, x_dq, 0.02, 8, C, 1, act="relu", ys=0.03, yzp=0)
    p = k // 2
    d = conv_layer(b, e, 0.03, C, C, k, pad=p, group=C, act="relu6", ys=6 / 255, yzp=0)
    d = conv_layer(b, d, 6 / 255, C, C, k, stride=2, pad=p, group=C, act="silu", ys=0.02, yzp=12)
    d = conv_layer(b, d, 0.02, C, C, k, pad=p, group=C, act="none", ys=0.03, yzp=128)
    d = conv_layer(b, d, 0.03, C, C, k, stride=2, pad=p, group=C, act="relu", ys=0.03, yzp=0)
    y = conv_layer(b, d, 0.03, C, 16, 1, act="none", ys=0.05, yzp=128)
    m = b.model([fin([N, 8, H, W])], [fin(None, name=y)], opset=13)
    return m, [b.rng.uniform(-2.5, 2.5, (N, 8, H, W)).astype(np.float32)], 0.05


def case_stem_chain(seed, N, H, W, M, act, yzp=0, s8=False, k=3):
    """A 3-channel 3x3 (or ResNet's 7x7) stride-2 stem read from the
    quantised (channels-first) input and written channels-last for a 1x1
    projection, as kernels/dnnl/dn_qstem.c's VNNI loop takes it: odd sizes,
    widths past one 64-pixel block, even widths (the right padding
    columns), int8 output; 32 and 64 channels narrow by packs, 16 and 48 by
    saturating stores; 7x7 with 64 channels four pixels a step (a row's
    last one to three pixels alone)."""
    b = B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 118)
    w = b.rng.normal(0, 1.0 / np.sqrt(3 * k * k), (M, 3, k, k)).astype(np.float32)
    wdq, wsc = b.weight(w)
    y = b.node("Conv", [x_dq, wdq, b.bias(b.rng.normal(0, 0.2, M).astype(np.float32), 0.02, wsc)],
               kernel_shape=[k, k], strides=[2, 2], pads=[k // 2] * 4)
    ys = 6 / 255 if act == "relu6" else 0.03
    h, _, _, _ = b.qdq(act_chain(b, y, act), ys, yzp, np.int8 if s8 else np.uint8)
    y = conv_layer(b, h, ys, M, 16, 1, act="none", ys=0.05, yzp=128)
    m = b.model([fin([N, 3, H, W])], [fin(None, name=y)], opset=13)
    return m, [b.rng.uniform(-2.5, 2.5, (N, 3, H, W)).astype(np.float32)], 0.05


MULTI = {"zpad_dw5", "zpad_dw5_big", "zpad_dw3_s2", "zpad_full3", "block_residual", "block_maxpool",
         "block_avgpool", "concat", "squeeze_excite", "fpn_resize_concat", "avgpool_nhwc", "avgpool_nhwc_pad",
         "avgpool_nhwc_row", "dw_vnni", "dw_vnni_c144", "dw_vnni_c96", "dw_vnni_c112", "dw_vnni_c64", "dw_vnni_c192",
         "dw_vnni_c48", "dw_vnni_k5", "stem_vnni", "stem_vnni_silu", "stem_vnni_m64", "stem_vnni_m16",
         "stem_vnni_m48", "stem7_vnni", "stem7_vnni_m48", "stem7_vnni_m64", "stem7_vnni_tiny"}

def case_contrib(seed):
    """ORT's contrib ops written directly (QOperator form, uint8 in and out):
    QLinearAdd, QLinearMul, QLinearConcat, QLinearAveragePool,
    QLinearGlobalAveragePool."""
    b = B(seed)
    f, u8 = np.float32, np.uint8
    c = lambda v: b.const(v)
    ms = "com.microsoft"
    def q(op, ins, **kw):
        out = b.name(op.lower())
        b.nodes.append(helper.make_node(op, ins, [out], domain=ms, **kw))
        return out
    add = q("QLinearAdd", ["a", c(f(0.03)), c(u8(100)), "b", c(f(0.05)), c(u8(20)), c(f(0.06)), c(u8(128))])
    mul = q("QLinearMul", [add, c(f(0.06)), c(u8(128)), "b", c(f(0.05)), c(u8(20)), c(f(0.1)), c(u8(60))])
    cat = q("QLinearConcat", [c(f(0.08)), c(u8(90)), add, c(f(0.06)), c(u8(128)), mul, c(f(0.1)), c(u8(60))],
            axis=1)
    ap = q("QLinearAveragePool", [cat, c(f(0.08)), c(u8(90)), c(f(0.07)), c(u8(80))], kernel_shape=[3, 3],
           strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0)
    gap = q("QLinearGlobalAveragePool", [ap, c(f(0.07)), c(u8(80)), c(f(0.02)), c(u8(30))])
    u = TensorProto.UINT8
    m = b.model([fin([1, 4, 9, 11], u, "a"), fin([1, 4, 9, 11], u, "b")],
                [fin([1, 8, 9, 11], u, cat), fin([1, 8, 5, 6], u, ap), fin([1, 8, 1, 1], u, gap)], ms=True)
    xs = [b.rng.integers(0, 256, (1, 4, 9, 11)).astype(np.uint8) for _ in range(2)]
    return m, xs, 0


def case_contrib_i8(seed):
    """The pooling and concatenation contrib ops on int8 (QOperator form, int8
    in and out): QLinearAveragePool with count_include_pad, QLinearConcat of
    inputs with other parameters and one sharing the output's (copied). The
    scales are not in a simple ratio: with, say, 0.05 over 0.04 and windows of
    6, one average in 24 is an exact .5 in real arithmetic, which each
    implementation (ORT's float sum, openacl's reference in double, its int32
    sum) rounds by its own float error."""
    b = B(seed)
    f, i8 = np.float32, np.int8
    c = lambda v: b.const(v)
    ms = "com.microsoft"
    def q(op, ins, **kw):
        out = b.name(op.lower())
        b.nodes.append(helper.make_node(op, ins, [out], domain=ms, **kw))
        return out
    ap = q("QLinearAveragePool", ["a", c(f(0.05)), c(i8(-3)), c(f(0.0413)), c(i8(5))], kernel_shape=[3, 2],
           strides=[2, 2], pads=[1, 0, 1, 1], count_include_pad=1)
    cat = q("QLinearConcat", [c(f(0.0413)), c(i8(5)), ap, c(f(0.0413)), c(i8(5)), "b", c(f(0.07)), c(i8(-20))],
            axis=1)
    t = TensorProto.INT8
    m = b.model([fin([1, 4, 9, 11], t, "a"), fin([1, 3, 5, 6], t, "b")],
                [fin([1, 4, 5, 6], t, ap), fin([1, 7, 5, 6], t, cat)], ms=True)
    xs = [b.rng.integers(-128, 128, (1, 4, 9, 11)).astype(np.int8),
          b.rng.integers(-128, 128, (1, 3, 5, 6)).astype(np.int8)]
    return m, xs, 0


CASES = {
    "conv3x3_relu": lambda: case_conv(1, 1, 16, 12, 12, 32, 3, 1, 1, 1, "relu", True, 128),
    "conv1x1_relu6": lambda: case_conv(2, 2, 24, 7, 9, 40, 1, 1, 0, 1, "relu6", True, 0),
    "conv_stride2_odd": lambda: case_conv(3, 1, 5, 13, 11, 7, 3, 2, 1, 1, "none", True, 37),
    "conv_dw_hswish": lambda: case_conv(4, 1, 32, 10, 10, 32, 3, 1, 1, 32, "hswish", True, 128),
    "conv_dw_s2_relu6": lambda: case_conv(5, 1, 24, 15, 15, 24, 3, 2, 1, 24, "relu6", True, 60),
    "dw_vnni": lambda: case_dw_chain(31),
    "dw_vnni_c144": lambda: case_dw_chain(32, N=1, C=144, H=9, W=7),
    # stride-2 layers of 96 and 112 channels: dn_qdw.c's flat stride-2 rows
    # (qdw_s2_row; 144 above too), even sizes (no padding column on the
    # right), and odd ones whose last odd column is padding; the second
    # stride-2 layer of 112 channels has fewer 64-byte chunks a row (6)
    # than channel phases (7)
    "dw_vnni_c96": lambda: case_dw_chain(35, N=2, C=96, H=16, W=14),
    # whole 64-channel blocks at stride 2 take the flat stride-2 rows too
    # (the blocked loop with OPENACL_QDW_S2=0): 64 (every 64-byte chunk one
    # column) and 192
    "dw_vnni_c64": lambda: case_dw_chain(37, N=2, C=64, H=9, W=11),
    "dw_vnni_c192": lambda: case_dw_chain(38, N=1, C=192, H=10, W=7),
    "dw_vnni_c112": lambda: case_dw_chain(36, N=1, C=112, H=11, W=9),
    "dw_vnni_c48": lambda: case_dw_chain(33, N=2, C=48, H=5, W=13),
    "dw_vnni_k5": lambda: case_dw_chain(34, N=1, C=124, H=15, W=9, k=5),
    "stem_vnni": lambda: case_stem_chain(36, N=2, H=37, W=150, M=32, act="relu6"),
    "stem_vnni_silu": lambda: case_stem_chain(37, N=1, H=20, W=9, M=32, act="silu", yzp=-7, s8=True),
    "stem_vnni_m48": lambda: case_stem_chain(40, N=1, H=9, W=33, M=48, act="relu6", yzp=-20, s8=True),
    "stem_vnni_m64": lambda: case_stem_chain(38, N=1, H=11, W=64, M=64, act="relu"),
    "stem_vnni_m16": lambda: case_stem_chain(39, N=1, H=6, W=130, M=16, act="none", yzp=128),
    "stem7_vnni": lambda: case_stem_chain(41, N=2, H=37, W=150, M=64, act="relu", k=7),
    "stem7_vnni_m48": lambda: case_stem_chain(42, N=1, H=10, W=67, M=48, act="relu6", yzp=-20, s8=True, k=7),
    "stem7_vnni_m64": lambda: case_stem_chain(43, N=1, H=8, W=14, M=64, act="none", yzp=128, k=7),
    "stem7_vnni_tiny": lambda: case_stem_chain(44, N=2, H=5, W=3, M=32, act="relu", k=7),
    "conv_group_silu": lambda: case_conv(6, 1, 16, 9, 9, 8, 3, 1, 1, 4, "silu", True, 128),
    "conv_pertensor_leaky": lambda: case_conv(7, 1, 8, 8, 8, 16, 5, 1, 2, 1, "leaky", False, 128),
    "conv_nobias_hsig": lambda: case_conv(8, 1, 12, 6, 6, 20, 3, 1, 0, 1, "hsigmoid", True, 255, bias=False),
    "conv_dilated": lambda: case_conv(9, 1, 16, 16, 16, 16, 3, 1, 2, 1, "relu", True, 128, dil=2),
    "conv_stem_3ch": lambda: case_conv(10, 1, 3, 32, 32, 16, 3, 2, 1, 1, "relu", True, 114),
    "conv_dead_subnormal": lambda: case_conv_dead(31, "none"),
    "conv_dead_subnormal_hswish": lambda: case_conv_dead(32, "hswish"),
    "zpad_dw5": lambda: case_zpad_chain(33, 5, 1, 24),
    "zpad_dw3_s2": lambda: case_zpad_chain(34, 3, 2, 24),
    "zpad_full3": lambda: case_zpad_chain(35, 3, 1, 1),
    "zpad_dw5_big": lambda: case_zpad_chain(36, 5, 1, 64, C=64, H=37, W=29, act="hswish"),
    "block_residual": lambda: case_block(11),
    "block_maxpool": lambda: case_block(12, pool="max", H=15, W=15),
    "block_avgpool": lambda: case_block(13, pool="avg", H=16, W=16),
    "concat": lambda: case_concat(14),
    "qoperator_conv": lambda: case_qop(15),
    "fpn_resize_concat": lambda: case_fpn(27),
    "avgpool": lambda: case_pool(16, "avg"),
    "avgpool_pad_ceil": lambda: case_pool(26, "avg_pad_ceil"),
    "avgpool_nhwc": lambda: case_pool_nhwc(28, False),
    "avgpool_nhwc_pad": lambda: case_pool_nhwc(29, True),
    "avgpool_nhwc_row": lambda: case_pool_nhwc(30, False, H=3, W=27),
    "globalavgpool": lambda: case_pool(17, "gap"),
    "maxpool": lambda: case_pool(18, "max"),
    "add_broadcast": lambda: case_bin(19, "Add", [1, 8, 1, 70], 0.06),
    "mul_same": lambda: case_bin(21, "Mul", [1, 8, 5, 70], 0.2),
    "mul_channel": lambda: case_bin(22, "Mul", [1, 8, 1, 1], 0.2),
    "squeeze_excite": lambda: case_se(20),
    "nomatch_softplus": lambda: case_nomatch(23, "softplus"),
    "contrib_ops": lambda: case_contrib(25),
    "contrib_ops_int8": lambda: case_contrib_i8(30),
    "nomatch_conv_output": lambda: case_nomatch(24, "also_output"),
}


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:2])} failed (rc {p.returncode}): {p.stdout}{p.stderr}")


def outputs(d):
    j = json.load(open(os.path.join(d, "outputs.json")))
    return [np.load(os.path.join(d, o["file"])) for o in j["outputs"]]


def save_case(name, case, work):
    """Builds a case, checks and saves its model and inputs under work:
    (model path, input paths, output step(s))."""
    m, xs, step = case()
    onnx.checker.check_model(m)
    mp = os.path.join(work, name + ".onnx")
    onnx.save(m, mp)
    ins = []
    for i, x in enumerate(xs):
        ins.append(os.path.join(work, f"{name}_in{i}.npy"))
        np.save(ins[-1], x)
    return mp, ins, step


def check_case(name, args, work):
    mp, ins, step = save_case(name, CASES[name], work)
    ref = os.path.join(work, name + "_ort")
    run(["node", ORTREF, "--model", mp, "--inputs", ",".join(ins), "--outdir", ref])
    want = outputs(ref)
    bad = []
    for mode, extra in (("dnnl", {}), ("ref", {"OPENACL_FORCE_REF": "1"}),
                        ("float Q/DQ", {"OPENACL_NO_QDQ": "1"})):
        out = os.path.join(work, f"{name}_oa_{mode.split()[0]}")
        env = dict(os.environ, **extra)
        run([args.mdl_run, "--model", mp, "--inputs", ",".join(ins), "--outdir", out], env)
        got = outputs(out)
        for k, (a, w) in enumerate(zip(got, want)):
            if a.dtype != w.dtype or a.shape != w.shape:
                bad.append(f"{mode} output {k}: {a.dtype}{a.shape} vs ORT {w.dtype}{w.shape}")
                continue
            d = np.abs(a.astype(np.float64) - w.astype(np.float64))
            st = step[k] if isinstance(step, list) else step
            if st is None:
                # a float output no QuantizeLinear rounds: float32 agreement
                lim = 1e-4 * max(float(np.abs(w).max()), 1e-6)
                if d.max() > lim:
                    bad.append(f"{mode} output {k}: max diff {d.max():.4g} > {lim:.4g}")
                continue
            if w.dtype.kind == "f":
                # one step of the output, two after several int8 layers (a
                # step in a tensor between them moves the next result; a
                # residual add folded into its convolution skips that
                # convolution's own rounding, which moves many values a step)
                lim, frac_lim = st * (2 if name in MULTI else 1) * 1.001, 0.3 if name in MULTI else 0.1
            else:
                # integer QOperator outputs: exact on the reference kernels;
                # oneDNN's requantisation may round a .5 tie the other way
                lim, frac_lim = (0 if mode == "ref" else 1), 0.01
            if d.max() > lim:
                bad.append(f"{mode} output {k}: max diff {d.max():.4g} > {lim:.4g} "
                           f"({int((d > lim).sum())} of {d.size})")
            frac = float((d > 0).mean())
            if frac > frac_lim:
                bad.append(f"{mode} output {k}: {frac:.1%} of values differ from ORT's")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    ap.add_argument("--only")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(REPO, "third_party", "npm", "node_modules", "onnxruntime-node")):
        print("SKIP: onnxruntime-node missing (run scripts/setup.sh)")
        return SKIP
    return run_all([a.only] if a.only else list(CASES), lambda name, work: (check_case(name, a, work), ""),
                   a.keep, "oa_qdq_")


def ort_steps(mode, got, want, steps):
    """Problems of outputs got against ORT's (want): each within its step
    (steps[k]; None: a float output, within 1e-4 of its largest value)."""
    bad = []
    for k, (a, w) in enumerate(zip(got, want)):
        d = np.abs(a.astype(np.float64) - w.astype(np.float64))
        st = steps[k]
        lim = 1e-4 * max(float(np.abs(w).max()), 1e-6) if st is None else st * 1.001
        if a.shape != w.shape or d.max() > lim:
            bad.append(f"{mode} output {k}: max diff {d.max():.4g} > {lim:.4g} vs ORT")
    return bad


def same_outputs(got, other, what):
    """Problems of outputs got that differ from other's bit for bit; what
    names the other run."""
    return [f"output {k} differs {what} (max {np.abs(a - b).max():.4g})"
            for k, (a, b) in enumerate(zip(got, other)) if not np.array_equal(a, b)]


def cases_main(doc, cases, check, prefix):
    """The command line of a pass test (--mdl-run BIN [--keep]): check(name,
    args, work) -> problems for each of cases; 77 without onnxruntime-node."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(REPO, "third_party", "npm", "node_modules", "onnxruntime-node")):
        print("SKIP: onnxruntime-node missing (run scripts/setup.sh)")
        return SKIP
    return run_all(list(cases), lambda name, work: (check(name, a, work), ""), a.keep, prefix)


def ort_case(name, build, work):
    """Saves case `name` (builder build) under work and runs ORT on it:
    (model path, input paths, output steps, ORT's outputs)."""
    mp, ins, steps = save_case(name, build, work)
    ref = os.path.join(work, name + "_ort")
    subprocess.run(["node", ORTREF, "--model", mp, "--inputs", ",".join(ins), "--outdir", ref],
                   check=True, capture_output=True, timeout=600)
    return mp, ins, steps, outputs(ref)


def run_all(names, check, keep, prefix):
    """check(name, work) -> (problems, a note) for each case in a fresh
    folder; prints a line per case; 1 when any failed."""
    work = tempfile.mkdtemp(prefix=prefix)
    fails = 0
    try:
        for name in names:
            bad, note = check(name, work)
            print(("ok   " if not bad else "FAIL ") + name + note + ("" if not bad else ": " + "; ".join(bad)))
            fails += bool(bad)
    finally:
        if keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
