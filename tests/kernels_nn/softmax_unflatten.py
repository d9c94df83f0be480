#!/usr/bin/python3
"""Flatten -> Softmax -> Reshape back (graph/fuse_simple.c
fz_softmax_unflatten) against ONNX Runtime: paddle2onnx writes a last-axis
softmax that way; the rewrite runs one Softmax over the last axis of the
Flatten's input, writing the Reshape's output, so no copy is made when that
output is a graph output (PP-OCRv4 rec's probabilities).

Cases: the recogniser's form (a 3-D graph output, the Reshape's shape from a
Shape node), opset 11 and 13, a 4-D tensor whose result feeds another node,
rows of 1 and of 37 values; left alone: a Flatten before the last axis, a
Flatten output read twice, a Reshape to another shape, a Softmax along the
columns of the 2-D view. Each runs with the rewrite on and off
(OPENACL_NO_SOFTMAX_UNFLATTEN=1): the two outputs must be equal bit for bit
(the same rows, the same arithmetic) and within float rounding of ORT's;
OPENACL_DUMP_GRAPH=1 gives the number of Flatten nodes left, checked against
what each case expects.

Usage: softmax_unflatten.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cases  # noqa: E402


def model(shape, opset, flat_axis=None, sm_axis=-1, back="shape", tail=False, twice=False):
    """x -> (Mul by 3: a node before, as in the model) -> Flatten -> Softmax
    -> Reshape; back: "shape" (Shape of the Flatten input), "const" (the
    same dims as a constant) or "other" (a different shape)."""
    r = len(shape)
    nodes = [helper.make_node("Mul", ["x", "three"], ["a"])]
    inits = [numpy_helper.from_array(np.array(3.0, np.float32), "three")]
    nodes.append(helper.make_node("Flatten", ["a"], ["f"], axis=r - 1 if flat_axis is None else flat_axis))
    nodes.append(helper.make_node("Softmax", ["f"], ["s"], axis=sm_axis))
    if back == "shape":
        nodes.append(helper.make_node("Shape", ["a"], ["shp"]))
    else:
        dims = list(shape) if back == "const" else [shape[0], -1]
        inits.append(numpy_helper.from_array(np.array(dims, np.int64), "shp"))
    nodes.append(helper.make_node("Reshape", ["s", "shp"], ["r"]))
    out = "r"
    if tail:
        nodes.append(helper.make_node("Add", ["r", "three"], ["y"]))
        out = "y"
    outs = [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)]
    if twice:
        nodes.append(helper.make_node("Neg", ["f"], ["g"]))
        outs.append(helper.make_tensor_value_info("g", TensorProto.FLOAT, None))
    g = helper.make_graph(nodes, "sm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                          outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    return m


CASES = {   # name: (model, Flatten nodes left with the rewrite on)
    "rec_3d_opset11": (lambda: model([1, 40, 100], 11), 0),
    "rec_3d_opset13": (lambda: model([1, 40, 100], 13), 0),
    "const_shape_4d_tail": (lambda: model([2, 3, 5, 37], 13, back="const", tail=True), 0),
    "rows_of_one": (lambda: model([2, 6, 1], 11, sm_axis=1), 0),
    "declined_not_last_axis": (lambda: model([2, 6, 7], 13, flat_axis=1), 1),
    "declined_flatten_read_twice": (lambda: model([1, 8, 9], 13, twice=True), 1),
    "declined_other_shape": (lambda: model([1, 8, 9], 13, back="other"), 1),
    "declined_columns": (lambda: model([1, 8, 9], 13, sm_axis=0), 1),
}
OFF = {"OPENACL_NO_SOFTMAX_UNFLATTEN": "1"}


def check(got, want):
    return ort_cases.diff_vs_ort(got, want, 2e-6)


def run(mdl_run, d, tag, env):
    """(Flatten nodes in the planned graph, first output) or None."""
    out = os.path.join(d, tag)
    p = subprocess.run([mdl_run, "--model", os.path.join(d, "m.onnx"), "--inputs", os.path.join(d, "x.npy"),
                        "--outdir", out], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OPENACL_DUMP_GRAPH="1", **env))
    if p.returncode:
        return None
    return (p.stdout + p.stderr).count(" Flatten '"), ort_cases.outputs(out)[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    a = ap.parse_args()
    rng = np.random.default_rng(23)
    built = {}
    bad = 0
    for name, (make, left) in CASES.items():
        m = make()
        shape = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
        x = (rng.standard_normal(shape) * 4).astype(np.float32)
        built[name] = (m, x)
        with tempfile.TemporaryDirectory(prefix="oa_sm_unflat_") as d:
            onnx.save(m, os.path.join(d, "m.onnx"))
            np.save(os.path.join(d, "x.npy"), x)
            on, off = run(a.mdl_run, d, "on", {}), run(a.mdl_run, d, "off", OFF)
        if on is None or off is None:
            print(f"FAIL {name}: mdl_run failed")
            bad += 1
        elif on[0] != left or off[0] != 1 or on[1].tobytes() != off[1].tobytes():
            print(f"FAIL {name}: Flatten nodes {on[0]} (want {left}), with the rewrite off {off[0]} (want 1); "
                  f"outputs equal bit for bit: {on[1].tobytes() == off[1].tobytes()}")
            bad += 1
    modes = (("on", {}), ("off", OFF))
    rc = ort_cases.run_cases(a.mdl_run, "oa_sm_unflat_",
                             ((name, m, x, modes, check) for name, (m, x) in built.items()))
    return rc if rc or not bad else 1


if __name__ == "__main__":
    sys.exit(main())
