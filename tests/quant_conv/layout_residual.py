#!/usr/bin/python3
"""Layouts around int8 residual blocks (graph/layout.c): a ResNet bottleneck
whose shortcut is a strided 1x1 convolution (a downsample) folds into
QLinearConv nodes where the last convolution takes the shortcut's output as
its fused residual addend, its input 9. That input must be asked about as
input 9: the shortcut's output then stays channels-last like every other
activation between the convolutions, and no openacl.Reorder is left between
them (before the fix, the question went to input 7, the output zero point,
and each downsample wrote channels-first, to be reordered back by its
consumer). The block ends in a GlobalAveragePool, which the int8 pass makes
ORT's QLinearGlobalAveragePool: the convolution before it writes
channels-last as well (the pool reads either layout), not channels-first
through a reorder. Compiles the block with atc and reads the program's JSON
dump (atc --mode=1); needs no ONNX Runtime.

Usage: layout_residual.py --atc BIN [--keep]
Exit codes: 0 pass, 1 fail."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qdq_nets as qn  # noqa: E402


def bottleneck(seed=41, C=16, M=32, H=15, W=13):
    """conv1 1x1 -> conv2 3x3 stride 2 -> conv3 1x1, plus a 1x1 stride-2
    downsample of the block input, the Add and its Relu, then a second
    block's 1x1 convolution reading the sum, a GlobalAveragePool."""
    b = qn.B(seed)
    x_dq, _, _, _ = b.qdq("x", 0.03, 100)
    h = qn.conv_layer(b, x_dq, 0.03, C, C, 1, act="relu", ys=0.03, yzp=0)
    h = qn.conv_layer(b, h, 0.03, C, C, 3, stride=2, pad=1, act="relu", ys=0.03, yzp=0)
    h = qn.conv_layer(b, h, 0.03, C, M, 1, act="none", ys=0.05, yzp=120)
    d = qn.conv_layer(b, x_dq, 0.03, C, M, 1, stride=2, act="none", ys=0.05, yzp=125)
    a = b.node("Relu", [b.node("Add", [h, d])])
    a_dq, _, _, _ = b.qdq(a, 0.04, 0)
    y = qn.conv_layer(b, a_dq, 0.04, M, M, 1, act="relu", ys=0.03, yzp=0)
    g, _, _, _ = b.qdq(b.node("GlobalAveragePool", [y]), 0.01, 0)
    return b.model([qn.fin([1, C, H, W])], [qn.fin(None, name=g)], opset=13)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--atc", required=True)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="oa_qlayout_")
    try:
        mp, om, js = (os.path.join(work, f) for f in ("block.onnx", "block", "block.json"))
        import onnx
        onnx.save(bottleneck(), mp)
        subprocess.run([a.atc, f"--model={mp}", "--framework=5", f"--output={om}"], check=True,
                       capture_output=True)
        subprocess.run([a.atc, "--mode=1", f"--om={om}.om", f"--json={js}"], check=True, capture_output=True)
        with open(js) as f:
            dump = json.load(f)
        bad = check(dump)
    finally:
        if a.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(("ok   " if not bad else "FAIL ") + "int8 bottleneck with a downsample, then a pool" + ("" if not bad else ": " + "; ".join(bad)))
    return 1 if bad else 0


def check(dump):
    bad = []
    for p in dump["programs"]:
        tens = {t["name"]: t for t in p["tensors"]}
        convs = [n for n in p["nodes"] if n["op"] == "QLinearConv"]
        if len(convs) != 5:
            bad.append(f"{len(convs)} QLinearConv nodes, expected 5 (the Add folded into one)")
        fused = [n for n in convs if len(n["inputs"]) > 9]
        if len(fused) != 1:
            bad.append(f"{len(fused)} QLinearConv with a fused residual, expected 1")
        for n in fused:
            r = tens[n["inputs"][9]]
            if r["layout"] != "nhwc":
                bad.append(f"the fused residual '{r['name']}' is {r['layout']}, not nhwc")
        if not any(n["op"] == "QLinearGlobalAveragePool" for n in p["nodes"]):
            bad.append("no QLinearGlobalAveragePool")
        plain = [n["outputs"][0] for n in convs if tens[n["outputs"][0]]["layout"] != "nhwc"]
        if plain:
            bad.append(f"convolution outputs left channels-first: {plain}")
        reorders = [n["name"] for n in p["nodes"] if "Reorder" in n["op"]]
        if reorders:
            bad.append(f"openacl.Reorder nodes: {reorders}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
