#!/usr/bin/python3
"""Multiply-adds of one inference of an ONNX model with static shapes.

  macs.py MODEL.onnx [--by-op]

Counts the multiply-adds of Conv, ConvTranspose, Gemm and MatMul (the
operators that hold nearly all of a CNN's or encoder's arithmetic) from the
shapes ONNX's shape inference gives; everything else (activations, pools,
adds, normalisations) is left out, so the count is the work an int8 or fp32
matrix engine has to do. bench/int8.py divides it by a run's time and by
bench/cpu_peak's measured rate to state how close a run is to the core's
limit. A model with a counted node whose shapes inference leaves unknown (a
Reshape to a computed shape before an attention MatMul, as in the PP-OCR
recogniser) gives None.
"""
import argparse
import math
import sys

import onnx
from onnx import shape_inference


def _shapes(model):
    g = model.graph
    out = {}
    for v in list(g.input) + list(g.value_info) + list(g.output):
        t = v.type.tensor_type
        if t.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
            out[v.name] = dims
    for i in g.initializer:
        out[i.name] = list(i.dims)
    return out


def _known(*shapes):
    return all(s is not None and all(isinstance(d, int) and d > 0 for d in s) for s in shapes)


def node_macs(node, shapes):
    """Multiply-adds of one node, 0 for ops not counted, None if unknown."""
    op = node.op_type
    if op not in ("Conv", "ConvTranspose", "Gemm", "MatMul"):
        return 0
    a = shapes.get(node.input[0])
    b = shapes.get(node.input[1]) if len(node.input) > 1 else None
    y = shapes.get(node.output[0])
    if op == "Conv" and _known(b, y):  # every output element reads Cin/group * kernel taps
        return math.prod(y) * math.prod(b[1:])
    if op == "ConvTranspose" and _known(a, b):  # every input element scatters into Cout/group * taps
        return math.prod(a) * math.prod(b[1:])
    if op == "Gemm" and _known(y) and (_known(a) or _known(b)):
        attr = {at.name: at.i for at in node.attribute}
        k = (a[0] if attr.get("transA") else a[1]) if _known(a) else (b[1] if attr.get("transB") else b[0])
        return math.prod(y) * k
    if op == "MatMul" and _known(y) and (_known(a) or _known(b)):
        return math.prod(y) * (a[-1] if _known(a) else b[-2])  # each output reads one row of K
    return None


def count(path):
    """(total multiply-adds or None, {op type: multiply-adds})"""
    model = shape_inference.infer_shapes(onnx.load(path))
    shapes = _shapes(model)
    total, by_op = 0, {}
    for n in model.graph.node:
        m = node_macs(n, shapes)
        if m is None:
            return None, by_op
        if m:
            total += m
            by_op[n.op_type] = by_op.get(n.op_type, 0) + m
    return total, by_op


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--by-op", action="store_true")
    a = ap.parse_args()
    total, by_op = count(a.model)
    if total is None:
        sys.exit("macs: %s has a Conv/Gemm/MatMul whose shapes are not static" % a.model)
    print("%.3f GMAC" % (total / 1e9))
    if a.by_op:
        for k, v in sorted(by_op.items(), key=lambda kv: -kv[1]):
            print("  %-14s %.3f GMAC" % (k, v / 1e9))


if __name__ == "__main__":
    main()
