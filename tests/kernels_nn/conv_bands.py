#!/usr/bin/python3
"""Convolutions run as bands of output rows (kernels/dnnl/dn_conv_band.c) against ONNX Runtime.

At 2 threads or more a grouped channels-last layer runs as one single-thread
oneDNN primitive per band of output rows, each band reading only the input
rows it needs with the padding left at its ends. Odd planes, strides 1 and 2,
3x3, 5x5 and 3x1 kernels, asymmetric pads, dilation, groups of 16, 8 and 5
channels, with and without bias and activation, batch 2 (left whole), each
between two convolutions so that it reads and writes channels-last. Every
case runs with the bands (2 and 3 threads, OPENACL_CONV_BANDS=all at 3),
without them (OPENACL_CONV_BANDS=0), on one thread and under
OPENACL_FORCE_REF=1; OPENACL_SMALL_OP_US=0 keeps the small test layers on
all the threads. In the banded modes oneDNN's verbose log must show the
layer's band primitives (a convolution with the band's output rows), so a
case that stopped running as bands fails.

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


def model(seed, n, C, H, W, G, k, s, pads, dil, bias, act):
    """x -> 1x1 conv -> the grouped conv under test (+ act) -> 1x1 conv -> y."""
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
    elif act == "clip":
        inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
                  numpy_helper.from_array(np.array(6, np.float32), "hi")]
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["r"]))
        t = "r"
    nodes.append(helper.make_node("Conv", [t, "w2"], ["y"]))
    g = helper.make_graph(nodes, "bands", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, C, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    oh = conv_out(H, kh, s, pads[0], pads[2], dil)
    return m, rng.uniform(-2, 2, (n, C, H, W)).astype(np.float32), oh


# name: (batch, C, H, W, groups, kernel, stride, pads [t, l, b, r], dilation, bias, activation)
CASES = {
    "g2_s2_3x3": (1, 32, 57, 45, 2, (3, 3), 2, [1, 1, 1, 1], 1, True, "relu"),
    "g4_s1_3x3": (1, 64, 29, 17, 4, (3, 3), 1, [1, 1, 1, 1], 1, True, "relu"),
    "g3_s1_5x5_nobias": (1, 24, 31, 23, 3, (5, 5), 1, [2, 2, 2, 2], 1, False, None),
    "g5_s2_asym_pad": (1, 25, 44, 21, 5, (3, 3), 2, [0, 1, 2, 0], 1, True, "clip"),
    "g2_s1_3x1_dil2": (1, 32, 35, 19, 2, (3, 1), 1, [2, 0, 2, 0], 2, True, "relu"),
    "g2_s1_nopad": (1, 32, 30, 9, 2, (3, 3), 1, [0, 0, 0, 0], 1, True, None),
    "g4_batch2": (2, 64, 28, 14, 4, (3, 3), 2, [1, 1, 1, 1], 1, True, "relu"),
}

BASE = {"OPENACL_SMALL_OP_US": "0"}
# (mode, environment, bands expected in the log)
MODES = (("bands2", {"OPENACL_THREADS": "2"}, 2),
         ("bands3_all", {"OPENACL_THREADS": "3", "OPENACL_CONV_BANDS": "all"}, 3),
         ("whole2", {"OPENACL_THREADS": "2", "OPENACL_CONV_BANDS": "0"}, 0),
         ("one_thread", {"OPENACL_THREADS": "1"}, 0),
         ("ref", {"OPENACL_FORCE_REF": "1"}, 0))


def check(got, want):
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{got.shape} vs ORT {want.dtype}{want.shape}"
    tol = 1e-4 * max(1.0, float(np.abs(want).max()))
    d = float(np.abs(got.astype(np.float64) - want).max())
    return f"max diff {d:.3g}" if d > tol else None


def band_rows(log, G, oh, nb):
    """Output rows of each grouped convolution oneDNN ran, from its verbose log."""
    rows = [int(r) for r in re.findall(rf"exec,cpu,convolution,[^\n]*,g{G}mb1_[^\n]*?oh(\d+)", log)]
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
    for mode, extra, nb in MODES:
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
        if nb and n == 1 and not band_rows(p.stdout + p.stderr, G, oh, nb):
            bad.append(f"{mode}: no {nb} bands of the {oh} output rows in oneDNN's log")
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
