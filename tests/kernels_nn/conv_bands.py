#!/usr/bin/python3
"""Convolutions run as bands of output rows (kernels/dnnl/dn_conv_band.c) against ONNX Runtime.

At 2 threads or more a grouped channels-last layer runs as one single-thread
oneDNN primitive per band of output rows, each band reading only the input
rows it needs with the padding left at its ends. Odd planes, strides 1 and 2,
1x1, 3x3, 5x5 and 3x1 kernels, asymmetric pads, dilation, groups of 16, 8 and 5
channels, with and without bias and activation (Relu, Clip, SiLU), a residual add (the sum post-op),
batch 2 (left whole), each
between two convolutions so that it reads and writes channels-last. Every
case runs with the bands (2 and 3 threads, OPENACL_CONV_BANDS=all at 3),
without them (OPENACL_CONV_BANDS=0), on one thread and under
OPENACL_FORCE_REF=1; OPENACL_SMALL_OP_US=0 keeps the small test layers on
all the threads. Depthwise, pointwise and dense layers are banded by
default up to 20 output rows, every one under OPENACL_CONV_BANDS=all, none
of them under =grouped. oneDNN's verbose log must show the layer as the
bands (or the one primitive) the rule gives, so a case that stopped
running as bands, or started where it should not, fails.

Usage: conv_bands.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cases  # noqa: E402


def conv_out(h, k, s, pb, pe, d):
    return (h + pb + pe - ((k - 1) * d + 1)) // s + 1


def model(seed, n, C, H, W, G, k, s, pads, dil, bias, act, res=False):
    """x -> 1x1 conv -> the grouped conv under test (+ act) [+ the first
    conv's output] -> 1x1 conv -> y."""
    rng = np.random.default_rng(seed)
    kh, kw = k
    inits = [numpy_helper.from_array((rng.standard_normal((C, C, 1, 1)) * 0.3).astype(np.float32), "w0"),
             numpy_helper.from_array((rng.standard_normal((C, C // G, kh, kw)) * 0.3).astype(np.float32), "w1"),
             numpy_helper.from_array((rng.standard_normal((C, C, 1, 1)) * 0.3).astype(np.float32), "w2")]
    ins = ["a", "w1"]
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(C).astype(np.float32), "b1"))
        ins.append("b1")
    nodes = [helper.make_node("Conv", ["x", "w0"], ["a"]),
             helper.make_node("Conv", ins, ["c"], group=G, strides=[s, s], pads=pads, dilations=[dil, dil],
                              kernel_shape=[kh, kw], name="banded")]
    t = "c"
    if act == "relu":
        nodes.append(helper.make_node("Relu", ["c"], ["r"]))
        t = "r"
    elif act == "silu":
        nodes += [helper.make_node("Sigmoid", ["c"], ["sg"]), helper.make_node("Mul", ["c", "sg"], ["r"])]
        t = "r"
    elif act == "clip":
        inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
                  numpy_helper.from_array(np.array(6, np.float32), "hi")]
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["r"]))
        t = "r"
    if res:
        nodes.append(helper.make_node("Add", [t, "a"], ["s"]))
        t = "s"
    nodes.append(helper.make_node("Conv", [t, "w2"], ["y"]))
    g = helper.make_graph(nodes, "bands", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, C, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    oh = conv_out(H, kh, s, pads[0], pads[2], dil)
    return m, rng.uniform(-2, 2, (n, C, H, W)).astype(np.float32), oh


# name: (batch, C, H, W, groups, kernel, stride, pads [t, l, b, r], dilation, bias, activation[, residual])
CASES = {
    "g2_s2_3x3": (1, 32, 57, 45, 2, (3, 3), 2, [1, 1, 1, 1], 1, True, "relu"),
    "g4_s1_3x3": (1, 64, 29, 17, 4, (3, 3), 1, [1, 1, 1, 1], 1, True, "relu"),
    "g3_s1_5x5_nobias": (1, 24, 31, 23, 3, (5, 5), 1, [2, 2, 2, 2], 1, False, None),
    "g5_s2_asym_pad": (1, 25, 44, 21, 5, (3, 3), 2, [0, 1, 2, 0], 1, True, "clip"),
    "g2_s1_3x1_dil2": (1, 32, 35, 19, 2, (3, 1), 1, [2, 0, 2, 0], 2, True, "relu"),
    "g2_s1_nopad": (1, 32, 30, 9, 2, (3, 3), 1, [0, 0, 0, 0], 1, True, None),
    "g4_batch2": (2, 64, 28, 14, 4, (3, 3), 2, [1, 1, 1, 1], 1, True, "relu"),
    # ungrouped layers: banded by default up to 20 output rows
    "dw_14x14": (1, 48, 14, 14, 48, (3, 3), 1, [1, 1, 1, 1], 1, True, "clip"),
    "dw_s2_5x5": (1, 40, 55, 27, 40, (5, 5), 2, [2, 2, 2, 2], 1, True, "relu"),
    "pw_s2": (1, 24, 41, 13, 1, (1, 1), 2, [0, 0, 0, 0], 1, False, None),
    "dense_3x3_30rows": (1, 16, 30, 10, 1, (3, 3), 1, [1, 1, 1, 1], 1, True, "relu"),
    # a final SiLU: the backend's SiLU pass, over each band's rows
    "g2_s2_silu": (1, 32, 31, 17, 2, (3, 3), 2, [1, 1, 1, 1], 1, True, "silu"),
    "dw_16x16_silu": (1, 40, 16, 16, 40, (3, 3), 1, [1, 1, 1, 1], 1, True, "silu"),
    # a residual add after the layer, fused as oneDNN's sum post-op
    "pw_residual": (1, 32, 20, 14, 1, (1, 1), 1, [0, 0, 0, 0], 1, True, None, True),
    "pw_residual_relu": (1, 48, 15, 15, 1, (1, 1), 1, [0, 0, 0, 0], 1, False, "relu", True),
}

# OPENACL_CONV_S2=0: a stride-2 1x1 layer on a plane of at most 196 output
# pixels (pw_s2) otherwise runs at stride 1 on every second pixel, as one
# primitive without bands (dn_conv.c sub_build, tested by conv_s2.py); here
# it stays strided so that its bands are what is checked
BASE = {"OPENACL_SMALL_OP_US": "0", "OPENACL_CONV_S2": "0"}
# (mode, environment, threads that run bands, OPENACL_CONV_BANDS)
MODES = (("bands2", {"OPENACL_THREADS": "2"}, 2, "small"),
         ("bands3_all", {"OPENACL_THREADS": "3", "OPENACL_CONV_BANDS": "all"}, 3, "all"),
         ("grouped2", {"OPENACL_THREADS": "2", "OPENACL_CONV_BANDS": "grouped"}, 2, "grouped"),
         ("whole2", {"OPENACL_THREADS": "2", "OPENACL_CONV_BANDS": "0"}, 0, "0"),
         ("one_thread", {"OPENACL_THREADS": "1"}, 0, "small"),
         ("ref", {"OPENACL_FORCE_REF": "1"}, 0, "0"))
MIN_ROWS, SMALL_ROWS = 7, 20   # dn_conv_band.h


def bands_expected(n, C, G, oh, nb, mode):
    """How many bands the layer should run as (dn_conv.c band_suits)."""
    if n != 1 or nb < 2 or mode == "0" or oh < MIN_ROWS * nb or G == C and mode == "grouped":
        return 1
    if 1 < G < C or mode == "all" or (mode == "small" and oh <= SMALL_ROWS):
        return nb
    return 1


def check(got, want):
    return ort_cases.diff_vs_ort(got, want, 1e-4)


def band_rows(log, G, oh, nb, pointwise):
    """Whether oneDNN ran the layer under test as nb bands of its oh output
    rows, from its verbose log: the grouped layer, or the ungrouped one that
    is not 1x1 stride 1 like the layers around it, or (pointwise) the one
    with the residual sum post-op."""
    pre = f"g{G}mb1_" if G > 1 else "mb1_"
    rows = []
    for line in log.splitlines():
        m = re.search(rf"exec,cpu,convolution,.*,{pre}\S*?oh(\d+)(kh\d+sh\d+)", line)
        if m and (bool(re.search(r"post-ops:\S*sum", line)) if pointwise else m.group(2) != "kh1sh1"):
            rows.append(int(m.group(1)))
    want = [oh * (i + 1) // nb - oh * i // nb for i in range(nb)]
    return sorted(rows) == sorted(want)


def one(mdl_run, work, seed, name, spec):
    m, x, oh = model(seed, *spec)
    n, G = spec[0], spec[4]
    mp, xp = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".npy")
    onnx.save(m, mp)
    np.save(xp, x)
    ref = os.path.join(work, name + "_ort")
    subprocess.run(["node", ort_cases.ORTREF, "--model", mp, "--inputs", xp, "--outdir", ref], check=True,
                   capture_output=True, timeout=600)
    want = ort_cases.outputs(ref)[0]
    bad = []
    for mode, extra, nthr, bands in MODES:
        out = os.path.join(work, f"{name}_{mode}")
        env = dict(os.environ, **BASE, **extra, ONEDNN_VERBOSE="1")
        p = subprocess.run([mdl_run, "--model", mp, "--inputs", xp, "--outdir", out],
                           capture_output=True, text=True, env=env, timeout=600)
        if p.returncode:
            bad.append(f"{mode}: rc {p.returncode} {p.stderr.strip()[:200]}")
            continue
        msg = check(ort_cases.outputs(out)[0], want)
        if msg:
            bad.append(f"{mode}: {msg}")
        nb = bands_expected(n, spec[1], G, oh, nthr, bands)
        pointwise = spec[5] == (1, 1) and spec[6] == 1
        if n == 1 and mode != "ref" and not band_rows(p.stdout + p.stderr, G, oh, nb, pointwise):
            bad.append(f"{mode}: not {nb} band(s) of the {oh} output rows in oneDNN's log")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    a = ap.parse_args()
    if not ort_cases.have_ort():
        print("SKIP: onnxruntime-node missing (run scripts/setup.sh)")
        return 77
    work = tempfile.mkdtemp(prefix="oa_bands_")
    fails = 0
    try:
        for i, (name, spec) in enumerate(CASES.items()):
            bad = one(a.mdl_run, work, 90 + i, name, spec)
            print(("ok   " if not bad else "FAIL ") + name + ("" if not bad else ": " + "; ".join(bad)))
            fails += bool(bad)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
