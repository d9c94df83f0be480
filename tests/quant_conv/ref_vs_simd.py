#!/usr/bin/python3
"""The int8 models of qdq_nets.py, and a tiny EfficientNet-like network,
run by openacl twice through its public API (tests/models/mdl_run): with its
fast implementations (oneDNN, the x86 vector kernels) and with
OPENACL_FORCE_REF=1 (the portable reference kernels only), compared with
each other. No ONNX Runtime is needed, so the reference path runs wherever
the tests do.

What must agree, and why:
  - graphs without a convolution or a product (pools, QLinearAdd, the
    contrib ops, Quantize/DequantizeLinear): byte for byte, since the x86
    kernels compute the reference's float32 steps in its order
    (tests/kernels_x86 checks them one by one);
  - QLinearAveragePool: the fast run takes the integer kernel
    (ref/nn_qavgpool.c: an exact int32 window sum, one rounding), the
    reference pools dequantised float32 values, whose summation error can
    put a value on the other side of a tie (one step; 2x2 windows of one
    grid meet ties often);
  - QLinearMul: the reference run takes the generic kernel (ONNX Runtime's
    association, (a*b)*k) where the fast run takes the int8 pass's form
    (a*(b*k)): a value on a rounding tie may move one step;
  - graphs with convolutions or products: oneDNN's requantisation may round a
    tie the other way, and the next layer carries that step on; within one
    output step (two after several int8 layers) and with few values moved.

Usage: ref_vs_simd.py --mdl-run BIN [--only NAME] [--keep]
Exit codes: 0 pass, 1 fail."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qdq_nets as qn  # noqa: E402

# graphs whose every int8 op has a bit-exact fast form
EXACT = {"globalavgpool", "maxpool", "add_broadcast", "contrib_ops"}
ONE_STEP = {"mul_same", "mul_channel"}


def case_tiny_effnet(seed=31):
    """A stem convolution with SiLU, one MBConv block (1x1 expansion, depthwise
    3x3, squeeze-excite: GlobalAveragePool, two 1x1 convolutions, Sigmoid,
    the channel scaling Mul; 1x1 projection, residual Add), a 1x1 head,
    GlobalAveragePool, Flatten and a classifier Gemm, quantised as ORT's
    quantiser writes EfficientNet-B0."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    stem = qn.conv_layer(b, x_dq, 0.02, 3, 16, 3, stride=2, pad=1, act="silu", ys=0.03, yzp=10)
    e = qn.conv_layer(b, stem, 0.03, 16, 64, 1, act="silu", ys=0.025, yzp=12)
    d = qn.conv_layer(b, e, 0.025, 64, 64, 3, pad=1, group=64, act="silu", ys=0.02, yzp=15)
    g = b.node("GlobalAveragePool", [d])
    g_dq, _, _, _ = b.qdq(g, 0.005, 20)
    s1 = qn.conv_layer(b, g_dq, 0.005, 64, 4, 1, act="silu", ys=0.01, yzp=30)
    s2 = qn.conv_layer(b, s1, 0.01, 4, 64, 1, act="none", ys=0.05, yzp=128)
    s2 = b.node("Sigmoid", [s2])
    s2_dq, _, _, _ = b.qdq(s2, 1 / 255, 0)
    m = b.node("Mul", [d, s2_dq])
    m_dq, _, _, _ = b.qdq(m, 0.015, 30)
    p = qn.conv_layer(b, m_dq, 0.015, 64, 16, 1, act="none", ys=0.03, yzp=128)
    r = b.node("Add", [p, stem])
    r_dq, _, _, _ = b.qdq(r, 0.04, 100)
    h = qn.conv_layer(b, r_dq, 0.04, 16, 32, 1, act="silu", ys=0.03, yzp=10)
    gh = b.node("GlobalAveragePool", [h])
    gh_dq, _, _, _ = b.qdq(gh, 0.01, 10)
    f = b.node("Flatten", [gh_dq])
    wdq, wsc = b.weight(b.rng.normal(0, 0.3, (10, 32)).astype(np.float32))
    wt = b.node("Transpose", [wdq], perm=[1, 0])
    bias = b.bias(b.rng.normal(0, 0.1, 10).astype(np.float32), 0.01, wsc)
    y = b.node("Gemm", [f, wt, bias])
    y_dq, _, _, _ = b.qdq(y, 0.05, 128)
    mo = b.model([qn.fin([1, 3, 32, 32])], [qn.fin(None, name=y_dq), qn.fin(None, name=r_dq)], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (1, 3, 32, 32)).astype(np.float32)], [0.05, 0.04]


def case_band_net(seed=37):
    """SiLU convolutions between channels-last tensors at odd sizes, which
    oneDNN's int8 convolution runs in bands of output rows
    (kernels/dnnl/dn_qconv.c dq_bands): a stem, a 1x1 expansion, depthwise
    5x5 stride 2, depthwise 3x3 dilated 2 and 3x3 stride 2 with a pad of 1
    (the first band's padding above, the last's below), a 1x1 projection."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    st = qn.conv_layer(b, x_dq, 0.02, 3, 8, 3, pad=1, act="silu", ys=0.03, yzp=10)
    e = qn.conv_layer(b, st, 0.03, 8, 40, 1, act="silu", ys=0.025, yzp=12)
    d = qn.conv_layer(b, e, 0.025, 40, 40, 5, stride=2, pad=2, group=40, act="silu", ys=0.02, yzp=15)
    d = qn.conv_layer(b, d, 0.02, 40, 40, 3, pad=2, group=40, dil=2, act="silu", ys=0.02, yzp=14)
    d = qn.conv_layer(b, d, 0.02, 40, 24, 3, stride=2, pad=1, act="silu", ys=0.02, yzp=16)
    y = qn.conv_layer(b, d, 0.02, 24, 16, 1, act="none", ys=0.04, yzp=128)
    mo = b.model([qn.fin([1, 3, 37, 29])], [qn.fin(None, name=y)], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (1, 3, 37, 29)).astype(np.float32)], 0.04


def case_silu_s8(seed=43):
    """SiLU convolutions with int8 outputs (zero points -5, -20 and 3)
    between channels-last tensors, 13x11 images of 16, 40 and 24 channels:
    the SiLU pass's int8 saturation in its 64-value, 16-value and scalar
    steps, and a depthwise layer's in dn_qdw.c (whose packs narrow to int8
    there)."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    h = qn.conv_layer(b, x_dq, 0.02, 3, 16, 3, pad=1, act="relu", ys=0.03, yzp=0)
    # a depthwise 3x3 SiLU layer with int8 output (dn_qdw.c's flat rows, int8 packs)
    wd = b.rng.normal(0, 1.0 / 3, (16, 1, 3, 3)).astype(np.float32)
    wdq, wsc = b.weight(wd)
    y = b.node("Conv", [h, wdq, b.bias(b.rng.normal(0, 0.2, 16).astype(np.float32), 0.03, wsc)],
               kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=16)
    h, _, _, _ = b.qdq(qn.act_chain(b, y, "silu"), 0.03, -5, np.int8)
    for C, M, zp in ((16, 40, -20), (40, 24, 3)):
        w = b.rng.normal(0, 1.0 / np.sqrt(C), (M, C, 1, 1)).astype(np.float32)
        wdq, wsc = b.weight(w)
        y = b.node("Conv", [h, wdq, b.bias(b.rng.normal(0, 0.2, M).astype(np.float32), 0.03, wsc)])
        y = qn.act_chain(b, y, "silu")
        h, _, _, _ = b.qdq(y, 0.03, zp, np.int8)
    mo = b.model([qn.fin([1, 3, 13, 11])], [qn.fin(None, name=h)], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (1, 3, 13, 11)).astype(np.float32)], 0.03


def case_gap_split(seed=44):
    """A uint8 QLinearGlobalAveragePool of a channels-last 2x72x60x58 image
    (above the size threads share: rows per thread, partial sums added)
    and of the plain input (channels per thread)."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    h = qn.conv_layer(b, x_dq, 0.02, 3, 72, 3, pad=1, act="relu", ys=0.03, yzp=0)
    g, _, _, _ = b.qdq(b.node("GlobalAveragePool", [h]), 0.01, 7)
    g2, _, _, _ = b.qdq(b.node("GlobalAveragePool", [x_dq]), 0.005, 100)
    mo = b.model([qn.fin([2, 3, 60, 58])], [qn.fin(None, name=g), qn.fin(None, name=g2)], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (2, 3, 60, 58)).astype(np.float32)], 0.01


def case_gap_requant(seed=50):
    """QLinearGlobalAveragePool of two plain 37-channel images into int8 (zero
    point -3, a step small enough that most channels saturate at either
    end) and into uint8 (zero point 200): the pooled sums' requantisation
    (a channel loop the compiler vectorises, its tail of 5) against the
    value-at-a-time form (OPENACL_QGAP_VEC=0), byte for byte; the reference
    run pools dequantised float32 values (a tie may go the other way)."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.03, 100)
    g = b.node("GlobalAveragePool", [x_dq])
    y8, _, _, _ = b.qdq(g, 0.004, -3, np.int8)
    yu, _, _, _ = b.qdq(b.node("GlobalAveragePool", [x_dq]), 0.01, 200)
    mo = b.model([qn.fin([2, 37, 5, 6])], [qn.fin(None, name=y8), qn.fin(None, name=yu)], opset=13)
    x = b.rng.uniform(-3.0, 4.6, (2, 37, 5, 6)).astype(np.float32) * b.rng.uniform(0, 1, (1, 37, 1, 1)).astype(np.float32)
    return mo, [x], [0.004, 0.01]


def case_qmul_runs(seed=45):
    """Squeeze-excite channel scalings (QLinearMul of a channels-last
    [N,C,H,W] by [N,C,1,1]) of two 13x11 images at 24 and 40 channels: the
    row loop's runs of whole pixels over a repeated factor row
    (kernels/ref/nn_qlinear.c qmul_px: 43 and 26 pixels, the last run of
    each image shorter), each image with its own factors."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.03, 110)
    h = qn.conv_layer(b, x_dq, 0.03, 3, 24, 3, pad=1, act="silu", ys=0.02, yzp=20)
    outs = []
    for C, M in ((24, 40), (40, 16)):
        g = b.node("GlobalAveragePool", [h])
        g_dq, _, _, _ = b.qdq(g, 0.01, 10)
        s2 = qn.conv_layer(b, g_dq, 0.01, C, C, 1, act="none", ys=0.05, yzp=128)
        s2_dq, _, _, _ = b.qdq(b.node("Sigmoid", [s2]), 1 / 255, 0)
        m_dq, _, _, _ = b.qdq(b.node("Mul", [h, s2_dq]), 0.015, 30)
        outs.append(m_dq)
        h = qn.conv_layer(b, m_dq, 0.015, C, M, 1, act="silu", ys=0.02, yzp=20)
    mo = b.model([qn.fin([2, 3, 13, 11])], [qn.fin(None, name=o) for o in outs], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (2, 3, 13, 11)).astype(np.float32)], [0.015, 0.015]


def case_se_direct(seed=49):
    """Squeeze-excite first convolutions (GlobalAveragePool, then a 1x1
    layer with SiLU on the one pixel) of 13, 64, 100, 200 and 257 input
    channels to 5, 1, 7, 48 and 3 outputs (dn_qse.c's dot products: a
    masked step alone, one whole step, whole steps and a masked tail, two
    and three at once), source zero points 20 to 137, one layer with a
    per-tensor weight scale."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    outs = []
    for K, M, gzp, pc in ((13, 5, 20, True), (64, 1, 137, True), (100, 7, 64, False), (200, 48, 33, True),
                          (257, 3, 90, True)):
        h = qn.conv_layer(b, x_dq, 0.02, 3, K, 3, pad=1, act="relu", ys=0.03, yzp=0)
        g_dq, _, _, _ = b.qdq(b.node("GlobalAveragePool", [h]), 0.004, gzp)
        outs.append(qn.conv_layer(b, g_dq, 0.004, K, M, 1, act="silu", per_channel=pc, ys=0.01, yzp=30))
    mo = b.model([qn.fin([1, 3, 9, 7])], [qn.fin(None, name=o) for o in outs], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (1, 3, 9, 7)).astype(np.float32)], [0.01] * len(outs)


def case_se_gate(seed=53):
    """Squeeze-excite gates (GlobalAveragePool, then a 1x1 layer with
    Sigmoid on the one pixel) of 1, 4, 5, 13, 48 and 64 input channels to 16,
    96, 100, 33, 1152 and 257 outputs (dn_qse.c's columns of quadruples: a
    partial quadruple, whole ones, a masked tail of 16 channels), source zero
    points 0 to 200, a per-tensor weight scale, and one gate with int8
    outputs (zero point -100)."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    outs = []
    for K, M, gzp, pc, s8 in ((1, 16, 0, True, False), (4, 96, 20, True, False), (5, 100, 200, False, False),
                              (13, 33, 64, True, True), (48, 1152, 90, True, False), (64, 257, 7, True, False)):
        h = qn.conv_layer(b, x_dq, 0.02, 3, K, 3, pad=1, act="relu", ys=0.03, yzp=0)
        g_dq, _, _, _ = b.qdq(b.node("GlobalAveragePool", [h]), 0.004, gzp)
        if s8:
            y = b.node("Sigmoid", [b.node("Conv", [g_dq, b.weight(b.rng.normal(0, 2.0, (M, K, 1, 1)).astype(np.float32),
                                                                     pc)[0]])])
            outs.append(b.qdq(y, 1 / 255, -100, np.int8)[0])
        else:
            outs.append(qn.conv_layer(b, g_dq, 0.004, K, M, 1, act="sigmoid", per_channel=pc, ys=1 / 255, yzp=0))
    mo = b.model([qn.fin([1, 3, 9, 7])], [qn.fin(None, name=o) for o in outs], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (1, 3, 9, 7)).astype(np.float32)], [1 / 255] * len(outs)


def case_down_s2(seed=47, N=2, H=13, W=11):
    """A ResNet downsample at odd sizes on two images: a 3x3 layer writes a
    channels-last 2x24x13x11 tensor, then a stride-2 1x1 layer (24 -> 40,
    7x6 output) whose residual Add with a stride-2 3x3 branch folds into it,
    and a plain stride-2 1x1 layer (40 -> 16, 4x3) with an int8 output;
    dn_qconv_s2.c runs both at stride 1 on every second pixel."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    h = qn.conv_layer(b, x_dq, 0.02, 3, 24, 3, pad=1, act="relu", ys=0.03, yzp=0)
    br = qn.conv_layer(b, h, 0.03, 24, 40, 3, stride=2, pad=1, act="none", ys=0.04, yzp=120)
    w = b.rng.normal(0, 1.0 / np.sqrt(24), (40, 24, 1, 1)).astype(np.float32)
    wdq, wsc = b.weight(w)
    y = b.node("Conv", [h, wdq, b.bias(b.rng.normal(0, 0.2, 40).astype(np.float32), 0.03, wsc)],
               kernel_shape=[1, 1], strides=[2, 2])
    ds, _, _, _ = b.qdq(y, 0.04, 125)
    r = b.node("Relu", [b.node("Add", [ds, br])])
    r_dq, _, _, _ = b.qdq(r, 0.05, 0)
    w2 = b.rng.normal(0, 1.0 / np.sqrt(40), (16, 40, 1, 1)).astype(np.float32)
    wdq2, wsc2 = b.weight(w2)
    y2 = b.node("Conv", [r_dq, wdq2, b.bias(b.rng.normal(0, 0.2, 16).astype(np.float32), 0.05, wsc2)],
                kernel_shape=[1, 1], strides=[2, 2])
    o, _, _, _ = b.qdq(y2, 0.04, -3, np.int8)
    mo = b.model([qn.fin([N, 3, H, W])], [qn.fin(None, name=r_dq), qn.fin(None, name=o)], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (N, 3, H, W)).astype(np.float32)], [0.05, 0.04]


def case_row_bands(seed=47):
    """Relu / Relu6 / linear int8 convolutions between channels-last tensors
    of 23 rows, which oneDNN runs as bands of output rows at 2 threads or
    more (kernels/dnnl/dn_qconv_band.c): 1x1 expansion, depthwise 3x3,
    1x1 projection with the residual added (sum post-op), a dense 3x3
    (padding above the first band, below the last), a dilated one, a 3x3
    of stride 2 from 45 rows (12 rows: too few to split); 23 rows split
    11 + 12 at 2 threads and 7 + 8 + 8 at 3."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    st = qn.conv_layer(b, x_dq, 0.02, 3, 16, 3, stride=2, pad=1, act="relu", ys=0.03, yzp=0)
    e = qn.conv_layer(b, st, 0.03, 16, 48, 1, act="relu6", ys=6 / 255, yzp=0)
    d = qn.conv_layer(b, e, 6 / 255, 48, 48, 3, pad=1, group=48, act="relu6", ys=6 / 255, yzp=0)
    p = qn.conv_layer(b, d, 6 / 255, 48, 16, 1, act="none", ys=0.04, yzp=120)
    r, _, _, _ = b.qdq(b.node("Relu", [b.node("Add", [p, st])]), 0.04, 0)
    h = qn.conv_layer(b, r, 0.04, 16, 24, 3, pad=1, act="relu", ys=0.03, yzp=0)
    h = qn.conv_layer(b, h, 0.03, 24, 24, 3, pad=2, dil=2, act="none", ys=0.03, yzp=7)
    w = qn.conv_layer(b, x_dq, 0.02, 3, 8, 3, stride=2, pad=1, act="relu", ys=0.03, yzp=0)
    w = qn.conv_layer(b, w, 0.03, 8, 8, 3, stride=2, pad=1, act="relu", ys=0.03, yzp=0)
    mo = b.model([qn.fin([1, 3, 45, 19])], [qn.fin(None, name=h), qn.fin(None, name=w)], opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (1, 3, 45, 19)).astype(np.float32)], [0.03, 0.03]


def case_pw_chain(seed=49, N=2, H=13, W=11):
    """1x1 layers between channels-last uint8 tensors, as
    kernels/dnnl/dn_qpw.c's VNNI loop takes them (dn_qpw_takes): 16 -> 96
    with Relu6 (its clamp saturated, dropped), 96 -> 24 (24 of 32 lanes),
    24 -> 144 with no activation (output zero point 128), 144 -> 32 with
    Relu, 32 -> 192 with SiLU (zero point 12), 192 -> 32 with the residual
    Add folded in (the 144 -> 32 output; a branch to the second output),
    8 -> 80 with Relu at zero point 20 (the kept lower clamp), 80 -> 40 (32
    channels and 8 of a third register), 40 -> 240 with SiLU (15 registers
    a pixel: chunks of 8 and 7), 20 -> 176 with a Clip whose upper bound
    stays, 24 -> 96 with SiLU and int8 outputs (a branch to the third
    output); 8 -> 16 (reading the channels-first input), 192 -> 8, 32 -> 8,
    240 -> 20 and 176 -> 8 stay with oneDNN. Whole 64-channel groups, 17-32
    and 1-16 channels past them narrow by packs over one, two and four
    pixels; two images of 13x11 pixels (286: the tiles' tails). Fourteen
    int8 layers: the reference's float rounding may move a value two
    steps."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.02, 128)
    h = qn.conv_layer(b, x_dq, 0.02, 8, 16, 1, act="relu", ys=0.03, yzp=0)
    h = qn.conv_layer(b, h, 0.03, 16, 96, 1, act="relu6", ys=6 / 255, yzp=0)
    h = qn.conv_layer(b, h, 6 / 255, 96, 24, 1, act="none", ys=0.04, yzp=120)
    # int8 outputs (zero point -5) with SiLU, 24 -> 96: a branch to the third output
    w = b.rng.normal(0, 1.0 / np.sqrt(24), (96, 24, 1, 1)).astype(np.float32)
    wdq, wsc = b.weight(w)
    s8 = b.node("Conv", [h, wdq, b.bias(b.rng.normal(0, 0.2, 96).astype(np.float32), 0.04, wsc)])
    s8, _, _, _ = b.qdq(qn.act_chain(b, s8, "silu"), 0.03, -5, np.int8)
    s8 = qn.conv_layer(b, s8, 0.03, 96, 8, 1, act="none", ys=0.04, yzp=100)
    h = qn.conv_layer(b, h, 0.04, 24, 144, 1, act="none", ys=0.03, yzp=128)
    h = h32 = qn.conv_layer(b, h, 0.03, 144, 32, 1, act="relu", ys=0.03, yzp=0)
    h = qn.conv_layer(b, h, 0.03, 32, 192, 1, act="silu", ys=0.02, yzp=12)
    # a projection with the residual Add folded in (MobileNetV2's 192 -> 32),
    # on a branch of its own (the second output)
    p = qn.conv_layer(b, h, 0.02, 192, 32, 1, act="none", ys=0.05, yzp=115)
    r, _, _, _ = b.qdq(b.node("Add", [p, h32]), 0.05, 118)
    r = qn.conv_layer(b, r, 0.05, 32, 8, 1, act="none", ys=0.03, yzp=100)
    h = qn.conv_layer(b, h, 0.02, 192, 8, 1, act="none", ys=0.04, yzp=100)
    h = qn.conv_layer(b, h, 0.04, 8, 80, 1, act="relu", ys=0.03, yzp=20)
    h = qn.conv_layer(b, h, 0.03, 80, 40, 1, act="none", ys=0.04, yzp=90)
    h = qn.conv_layer(b, h, 0.04, 40, 240, 1, act="silu", ys=0.02, yzp=12)
    h = qn.conv_layer(b, h, 0.02, 240, 20, 1, act="relu", ys=0.04, yzp=0)
    w = b.rng.normal(0, 1.0 / np.sqrt(20), (176, 20, 1, 1)).astype(np.float32)
    wdq, wsc = b.weight(w)
    y = b.node("Conv", [h, wdq, b.bias(b.rng.normal(0, 0.2, 176).astype(np.float32), 0.04, wsc)])
    y = b.node("Clip", [y, b.const(np.array(-1.0, np.float32)), b.const(np.array(1.5, np.float32))])
    h, _, _, _ = b.qdq(y, 0.02, 60)
    h = qn.conv_layer(b, h, 0.02, 176, 8, 1, act="none", ys=0.04, yzp=128)
    mo = b.model([qn.fin([N, 8, H, W])], [qn.fin(None, name=h), qn.fin(None, name=r), qn.fin(None, name=s8)],
                 opset=13)
    return mo, [b.rng.uniform(-2.5, 2.5, (N, 8, H, W)).astype(np.float32)], [0.04, 0.04, 0.04]


CASES = dict(qn.CASES, down_s2=case_down_s2, se_gate=case_se_gate,
             # one image of 59 rows: 30 and 15 rows after the stride-2 layers,
             # enough for row bands at 2 threads (which must not take the
             # subsampled form's stride-1 primitive over the whole input)
             down_s2_tall=lambda: case_down_s2(48, N=1, H=59, W=9), tiny_effnet=case_tiny_effnet, band_net=case_band_net,
             silu_s8=case_silu_s8, gap_split=case_gap_split, qmul_runs=case_qmul_runs, row_bands=case_row_bands,
             se_direct=case_se_direct, gap_requant=case_gap_requant, pw_vnni=case_pw_chain,
             # 5x5 depthwise rows whose quadruples of all four blocks (17
             # columns x 4 x 2 sets x 256 bytes) exceed dn_qdw.c's 32 KiB: a
             # block's at a time (qdw_row_step), the 7-wide rows after the
             # stride-2 layer all at once
             dw_vnni_k5_wide=lambda: qn.case_dw_chain(46, N=1, C=250, H=9, W=13, k=5))
MULTI = qn.MULTI | {"down_s2", "down_s2_tall", "tiny_effnet", "band_net", "silu_s8", "gap_split", "qmul_runs", "dw_vnni_k5_wide",
                     "row_bands", "se_direct", "pw_vnni"}
# SiLU convolutions run in bands of rows must give the whole image's bytes
# (the integer products do not depend on the band): bands of one row (1 KiB
# of float32 values) and none (0) against the default
BANDED = {"tiny_effnet", "band_net"}
# depthwise 3x3 layers dn_qdw.c's VNNI loop runs, stems dn_qstem.c's and 1x1 expansions dn_qpw.c's:
# against oneDNN's run of them (OPENACL_NO_QDW=1, OPENACL_NO_QSTEM=1, OPENACL_NO_QPW=1),
# within one output step (the bias joins the int32 sum before the
# conversion there, after it in oneDNN), few values moved
QDW = {"dw_vnni": "QDW", "dw_vnni_c144": "QDW", "dw_vnni_c96": "QDW", "dw_vnni_c112": "QDW",
       "dw_vnni_c64": "QDW", "dw_vnni_c192": "QDW",
       "dw_vnni_c48": "QDW", "dw_vnni_k5": "QDW", "dw_vnni_k5_wide": "QDW",
       "silu_s8": "QDW",
       "stem_vnni": "QSTEM", "stem_vnni_silu": "QSTEM", "stem_vnni_m64": "QSTEM", "stem_vnni_m16": "QSTEM",
       "stem_vnni_m48": "QSTEM", "stem7_vnni": "QSTEM", "stem7_vnni_m48": "QSTEM", "stem7_vnni_m64": "QSTEM",
       "stem7_vnni_tiny": "QSTEM", "pw_vnni": "QPW"}
# stride-2 depthwise layers of whole 64-channel blocks: dn_qdw.c's flat
# stride-2 rows, or its blocked loop with OPENACL_QDW_S2=0 (same packing)
QDW_S2_BLOCKS = {"dw_vnni_c64", "dw_vnni_c192"}
# dn_qdw.c's second and third threads build their quadruples in
# the node's own area (dn_qdw_geo.wscr): byte for byte against the planned scratch
# (OPENACL_QDW_TBUF=0) and the 1-thread run, at 1 to 3 threads (blocked,
# flat stride-1, flat stride-2 and 5x5 rows)
QDW_TBUF = {"dw_vnni", "dw_vnni_c144", "dw_vnni_c192", "dw_vnni_k5"}
# Relu / Clip chains whose clamps the 8-bit saturation already does, which
# the oneDNN convolutions leave out (dn_qpost_drop_saturated): byte for byte
# against OPENACL_QCONV_KEEP_CLAMPS=1 (Relu at zero point 0, Relu6 at
# 6/255, a Clip whose upper bound stays, int8 outputs)
CLAMPS = {"pw_vnni", "conv3x3_relu", "conv1x1_relu6", "dw_vnni", "stem_vnni", "block_residual", "silu_s8"}
# channels-last QLinearAveragePool rows cut in column chunks when fewer
# than the threads (the one-row case: 13 output columns, 6 + 7 at 2 threads,
# 4 + 4 + 5 at 3): byte for byte against whole rows (OPENACL_QAVGPOOL_COLS=0)
# and the default run, at 1 to 3 threads
POOL_COLS = {"avgpool_nhwc", "avgpool_nhwc_pad", "avgpool_nhwc_row"}
# padded layers whose zp-bordered input copy the threads write together
# (64 KiB and more: zpad_dw5_big's 64 x 41 x 33 bytes; the others stay on
# one thread): byte for byte against one thread's copy
# (OPENACL_QCONV_PAD_PAR=0) and the default run, at 1 to 3 threads
PAD_PAR = {"zpad_dw5_big", "zpad_dw5"}
# stride-2 1x1 layers run at stride 1 on every second pixel
# (kernels/dnnl/dn_qconv_s2.c; by default on small planes, every plane with
# OPENACL_QCONV_S2=1): the same integer sums, byte for byte against the
# stride-2 primitive (OPENACL_QCONV_S2=0), at 1 and 2 threads
S2 = {"down_s2", "down_s2_tall"}
# squeeze-excite first convolutions on one pixel (kernels/dnnl/dn_qse.c)
SE = {"se_direct"}
# squeeze-excite gates on one pixel (dn_qse.c) against oneDNN's primitive,
# whose logistic post-op has other last bits: within one step, few moved
SE_GATE = {"se_gate", "tiny_effnet"}
# the threads' shares (of a QLinearGlobalAveragePool, of dn_qstem.c's rows)
# against one thread, byte for byte
THREADED = {"pw_vnni", "gap_split", "stem_vnni", "stem_vnni_silu", "stem7_vnni", "stem7_vnni_tiny"}
# int8 convolutions in bands of output rows at 2 and 3 threads (any plane:
# OPENACL_QCONV_ROW_BANDS=all) against the whole layer
# (OPENACL_QCONV_ROW_BANDS=0) and the default run, byte for byte
ROW_BANDS = {"row_bands", "block_residual"}
# SiLU convolutions (the pass after oneDNN and dn_qdw.c's requantisation):
# the default step (t = -x log2 e from the output scales, y_scale folded
# into the sigmoid) against the earlier forms (OPENACL_SILU_FOLD=1: t from
# x; OPENACL_SILU_FOLD=0: nothing folded), which round ties differently: within a step per layer (two
# after several), few values moved
SILU = {"tiny_effnet", "band_net", "silu_s8", "dw_vnni_k5", "stem_vnni_silu"}


def run_mode(args, mp, ins, out, extra):
    env = dict(os.environ)
    env.pop("OPENACL_FORCE_REF", None)
    env.update(extra)
    qn.run([args.mdl_run, "--model", mp, "--inputs", ",".join(ins), "--outdir", out], env)
    return qn.outputs(out)


def check_case(name, args, work):
    mp, ins, step = qn.save_case(name, CASES[name], work)
    fast = run_mode(args, mp, ins, os.path.join(work, name + "_fast"), {})
    ref = run_mode(args, mp, ins, os.path.join(work, name + "_ref"), {"OPENACL_FORCE_REF": "1"})
    bad, notes = [], []
    for k, (a, w) in enumerate(zip(fast, ref)):
        if a.dtype != w.dtype or a.shape != w.shape:
            bad.append(f"output {k}: {a.dtype}{a.shape} vs the reference's {w.dtype}{w.shape}")
            continue
        d = np.abs(a.astype(np.float64) - w.astype(np.float64))
        st = step[k] if isinstance(step, list) else step
        if st is None:   # a float output no QuantizeLinear rounds
            lim, frac_lim = 1e-4 * max(float(np.abs(w).max()), 1e-6), 1.0
        elif name in EXACT:
            lim, frac_lim = 0.0, 0.0
        else:
            unit = st if w.dtype.kind == "f" else 1
            lim = unit * (2 if name in MULTI else 1) * 1.001
            frac_lim = 0.3 if name in MULTI else 0.1 if name not in ONE_STEP else 0.02
        frac = float((d > 0).mean())
        notes.append(f"out{k} max {d.max():.3g} moved {frac:.2%}")
        if d.max() > lim:
            bad.append(f"output {k}: max diff {d.max():.4g} > {lim:.4g} ({int((d > lim).sum())} of {d.size})")
        if frac > frac_lim:
            bad.append(f"output {k}: {frac:.1%} of values differ (at most {frac_lim:.0%})")
    def same_bytes(outs, want, what):
        for k, (a, w) in enumerate(zip(outs, want)):
            if a.shape != w.shape or not np.array_equal(a, w):
                bad.append(f"output {k} {what}")
        notes.append(f"{what.split(':')[0]}: checked")

    def off_same_at_threads(switch, what):
        # at 1, 2 and 3 threads (every node on the threads): the default run
        # against switch=0 and against the default 1-thread run, byte for byte
        for thr in ("1", "2", "3"):
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            on = run_mode(args, mp, ins, os.path.join(work, f"{name}_{switch.lower()}_on{thr}"), env)
            off = run_mode(args, mp, ins, os.path.join(work, f"{name}_{switch.lower()}_off{thr}"),
                           dict(env, **{switch: "0"}))
            same_bytes(on, off, f"at {thr} threads: {what} differs from {switch}=0")
            same_bytes(on, fast, f"at {thr} threads: {what} differs from the default run")

    def within_steps(other, what, steps=2, moved=0.05):
        # another rounding of the same sums: at most `steps` output steps, at most `moved` of the values moved
        for k, (a, w) in enumerate(zip(fast, other)):
            d = np.abs(a.astype(np.float64) - w.astype(np.float64))
            st = step[k] if isinstance(step, list) else step
            frac = float((d > 0).mean())
            if a.shape != w.shape or d.max() > steps * st * 1.001 or frac > moved:
                bad.append(f"output {k}: {what}: max diff {d.max():.4g}, {frac:.1%} moved")
            notes.append(f"{what}: max {d.max():.3g} moved {frac:.2%}")

    for kb in ("1", "0") if name in BANDED else ():
        other = run_mode(args, mp, ins, os.path.join(work, name + "_band" + kb), {"OPENACL_QCONV_BAND_KB": kb})
        same_bytes(other, fast, f"with OPENACL_QCONV_BAND_KB={kb}: differs from the default run")
    if name in BANDED:
        # whole bands per thread (the default at 2 to 4 threads) against
        # one band at a time on all threads (every node on the threads: the
        # small-node rule would run these small layers on one)
        for thr in ("2", "3"):
            env = {"OPENACL_THREADS": thr, "OPENACL_QCONV_BAND_KB": "1", "OPENACL_SMALL_OP_US": "0"}
            tb = run_mode(args, mp, ins, os.path.join(work, name + "_tb" + thr), env)
            old = run_mode(args, mp, ins, os.path.join(work, name + "_notb" + thr), dict(env, OPENACL_QCONV_TBANDS="0"))
            same_bytes(tb, old, f"with {thr} threads: bands per thread differ from OPENACL_QCONV_TBANDS=0")
            same_bytes(tb, fast, f"with {thr} threads: bands per thread differ from the default run")
    if name in THREADED:
        for thr in ("1", "2", "3"):
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            other = run_mode(args, mp, ins, os.path.join(work, name + "_t" + thr), env)
            same_bytes(other, fast, f"at {thr} threads: differs from the default run")
    if name in SILU:
        for fold in ("0", "1"):
            other = run_mode(args, mp, ins, os.path.join(work, name + "_fold" + fold), {"OPENACL_SILU_FOLD": fold})
            within_steps(other, f"default SiLU step vs OPENACL_SILU_FOLD={fold}")
    for thr in ("2", "3") if name in ROW_BANDS else ():
        env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0", "OPENACL_QCONV_ROW_BANDS": "all"}
        rb = run_mode(args, mp, ins, os.path.join(work, name + "_rb" + thr), env)
        whole = run_mode(args, mp, ins, os.path.join(work, name + "_norb" + thr), dict(env, OPENACL_QCONV_ROW_BANDS="0"))
        same_bytes(rb, whole, f"at {thr} threads: row bands differ from OPENACL_QCONV_ROW_BANDS=0")
        same_bytes(rb, fast, f"at {thr} threads: row bands differ from the default run")
    if name == "qmul_runs":   # runs of pixels against a call per pixel, byte for byte
        for thr in ("1", "3"):
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            runs = run_mode(args, mp, ins, os.path.join(work, name + "_r" + thr), env)
            px = run_mode(args, mp, ins, os.path.join(work, name + "_p" + thr), dict(env, OPENACL_QMUL_RUNS="0"))
            same_bytes(runs, px, f"at {thr} threads: runs of pixels differ from OPENACL_QMUL_RUNS=0")
    if name in ("gap_requant", "globalavgpool", "gap_split", "tiny_effnet"):
        # the pooled sums' requantisation, vector loop against a value at a time
        old = run_mode(args, mp, ins, os.path.join(work, name + "_gapvec0"), {"OPENACL_QGAP_VEC": "0"})
        same_bytes(fast, old, "the pool's requantisation differs from OPENACL_QGAP_VEC=0")
    if name in ("qmul_runs", "mul_channel", "tiny_effnet"):
        # the factor rows written row by row against a factor at a time
        # (OPENACL_QMUL_FROW=0), channels-last and plain: byte for byte
        old = run_mode(args, mp, ins, os.path.join(work, name + "_frow0"), {"OPENACL_QMUL_FROW": "0"})
        same_bytes(fast, old, "the factor rows differ from OPENACL_QMUL_FROW=0")
    if name in SE or name == "tiny_effnet":
        # dn_qse.c's one-pixel SiLU layers against oneDNN's primitive
        # (OPENACL_QSE_DIRECT=0): the same floats, byte for byte, at 1 and 2 threads
        for thr in ("1", "2"):
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            off = run_mode(args, mp, ins, os.path.join(work, name + "_qse0" + thr), dict(env, OPENACL_QSE_DIRECT="0"))
            on = run_mode(args, mp, ins, os.path.join(work, name + "_qse1" + thr), env)
            same_bytes(on, off, f"at {thr} threads: dn_qse.c differs from OPENACL_QSE_DIRECT=0")
    if name in SE_GATE:
        for thr in ("1", "2"):
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            off = run_mode(args, mp, ins, os.path.join(work, name + "_gate0" + thr), dict(env, OPENACL_QSE_DIRECT="0"))
            within_steps(off, f"at {thr} threads: gates vs OPENACL_QSE_DIRECT=0", steps=1, moved=0.01)
    if name in S2:
        for thr in ("1", "2"):
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            off = run_mode(args, mp, ins, os.path.join(work, name + "_s2off" + thr), dict(env, OPENACL_QCONV_S2="0"))
            for v in ("", "1"):
                on = run_mode(args, mp, ins, os.path.join(work, name + "_s2on" + v + thr),
                              dict(env, OPENACL_QCONV_S2=v) if v else env)
                same_bytes(on, off, f"at {thr} threads, OPENACL_QCONV_S2={v or 'unset'}: differs from OPENACL_QCONV_S2=0")
            rb = run_mode(args, mp, ins, os.path.join(work, name + "_s2rb" + thr),
                          dict(env, OPENACL_QCONV_S2="1", OPENACL_QCONV_ROW_BANDS="all"))
            same_bytes(rb, off, f"at {thr} threads, OPENACL_QCONV_S2=1 with row bands: differs from OPENACL_QCONV_S2=0")
    if name in CLAMPS:
        other = run_mode(args, mp, ins, os.path.join(work, name + "_clamps"), {"OPENACL_QCONV_KEEP_CLAMPS": "1"})
        same_bytes(other, fast, "with OPENACL_QCONV_KEEP_CLAMPS=1: differs from the default run")
    if name in POOL_COLS:
        off_same_at_threads("OPENACL_QAVGPOOL_COLS", "column chunks")
    if name in PAD_PAR:
        off_same_at_threads("OPENACL_QCONV_PAD_PAR", "the threads' padded copy")
    if name in QDW_TBUF:
        off_same_at_threads("OPENACL_QDW_TBUF", "the workers' own quadruple areas")
    if QDW.get(name) == "QDW":
        # two output rows per pass against one (the same int32 sums): byte for
        # byte, at 1 thread and at 2 and 3 (rows per thread odd: single rows
        # between the pairs; every node on the threads)
        for thr in ("1", "2", "3"):
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            one = run_mode(args, mp, ins, os.path.join(work, name + "_p0t" + thr), dict(env, OPENACL_QDW_PAIRS="0"))
            two = run_mode(args, mp, ins, os.path.join(work, name + "_p1t" + thr), env)
            same_bytes(two, one, f"at {thr} threads: row pairs differ from OPENACL_QDW_PAIRS=0")
            same_bytes(two, fast, f"at {thr} threads: row pairs differ from the default run")
    if name in QDW:
        sw = "OPENACL_NO_" + QDW[name]
        other = run_mode(args, mp, ins, os.path.join(work, name + "_no" + QDW[name].lower()), {sw: "1"})
        within_steps(other, f"VNNI loop vs oneDNN ({sw})")
        if QDW[name] == "QPW":   # dn_qpw.c requantises in oneDNN's float order: byte for byte
            same_bytes(other, fast, f"with {sw}=1: differs from the default run")
    if QDW.get(name) == "QDW":
        # one output pixel and one row a step (OPENACL_QDW_PAIR=0 with
        # OPENACL_QDW_PAIRS=0) and every block's quadruples of a row at once
        # (OPENACL_QDW_ROWBLK=0) against the default (row pairs, two pixels a
        # step on the rows left single), byte for byte
        one = run_mode(args, mp, ins, os.path.join(work, name + "_onepx"),
                       {"OPENACL_QDW_PAIR": "0", "OPENACL_QDW_PAIRS": "0"})
        same_bytes(one, fast, "with OPENACL_QDW_PAIR=0 OPENACL_QDW_PAIRS=0: differs from the default run")
        whole = run_mode(args, mp, ins, os.path.join(work, name + "_whole"), {"OPENACL_QDW_ROWBLK": "0"})
        same_bytes(whole, fast, "with OPENACL_QDW_ROWBLK=0: differs from the default run")
        # stride-2 layers of whole 64-channel blocks: flat stride-2 rows
        # against the blocked loop (OPENACL_QDW_S2=0), byte for byte
        for thr in ("1", "3") if name in QDW_S2_BLOCKS else ():
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            blocked = run_mode(args, mp, ins, os.path.join(work, name + "_s2blk" + thr),
                               dict(env, OPENACL_QDW_S2="0"))
            same_bytes(blocked, fast, f"at {thr} threads, OPENACL_QDW_S2=0: differs from the default run")
        # flat rows chunk by chunk (OPENACL_QDW_PHASES=0) against phase by
        # phase with the weights in registers, at 1 and 3 threads
        for thr in ("1", "3"):
            env = {"OPENACL_THREADS": thr, "OPENACL_SMALL_OP_US": "0"}
            chunks = run_mode(args, mp, ins, os.path.join(work, name + "_chunks" + thr),
                              dict(env, OPENACL_QDW_PHASES="0"))
            same_bytes(chunks, fast, f"at {thr} threads, OPENACL_QDW_PHASES=0: differs from the default run")
    return bad, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    ap.add_argument("--only")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    def check(name, work):
        bad, notes = check_case(name, a, work)
        return bad, f" [{'exact' if name in EXACT else 'steps'}] " + ", ".join(notes)

    return qn.run_all([a.only] if a.only else list(CASES), check, a.keep, "oa_refsimd_")

if __name__ == "__main__":
    sys.exit(main())
