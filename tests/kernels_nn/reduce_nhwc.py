#!/usr/bin/python3
"""Reductions reading a channels-last input (kernels/ref/reduce.c) against ONNX Runtime.

A convolution writes channels-last when its consumer takes it; a reduction
over H and W (MNASNet's and ShuffleNetV2's mean before the classifier) or
over C reads those bytes in place of a reorder. Mean, Sum, Max and L2 over
odd shapes, batch 2, keepdims 0 and 1, axes as an attribute (opset 13) and
as a constant input (opset 18, negative axes), and the reductions that must
stay plain (H alone, W alone) through the reorder. Each runs with the
channels-last reading on and off (OPENACL_NO_REDUCE_NHWC=1) and under
OPENACL_FORCE_REF=1 (the layout pass runs there too).

Usage: reduce_nhwc.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cases  # noqa: E402


def model(seed, op, shape, axes, keepdims, opset):
    rng = np.random.default_rng(seed)
    C = shape[1]
    inits = [numpy_helper.from_array((rng.standard_normal((C, C, 3, 3)) * 0.2).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(C).astype(np.float32), "b")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1])]
    sum_from_input = op == "ReduceSum" and opset >= 13
    if opset >= 18 or sum_from_input:
        inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
        nodes.append(helper.make_node(op, ["c", "axes"], ["y"], keepdims=keepdims))
    else:
        nodes.append(helper.make_node(op, ["c"], ["y"], axes=axes, keepdims=keepdims))
    g = helper.make_graph(nodes, "reduce", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m, rng.uniform(-2, 2, shape).astype(np.float32)


CASES = {
    # channels-last: H and W, or C, reduced
    "mean_hw": ("ReduceMean", [1, 24, 7, 7], [2, 3], 0, 13),
    "mean_hw_keep_n2": ("ReduceMean", [2, 37, 5, 3], [2, 3], 1, 13),
    "mean_hw_neg_op18": ("ReduceMean", [2, 19, 6, 9], [-1, -2], 0, 18),
    "sum_hw_op13": ("ReduceSum", [1, 300, 3, 5], [2, 3], 0, 13),
    "max_hw_keep": ("ReduceMax", [2, 17, 4, 11], [3, 2], 1, 13),
    "mean_c": ("ReduceMean", [2, 21, 5, 6], [1], 1, 13),
    "l2_c_op18": ("ReduceL2", [1, 16, 9, 4], [1], 0, 18),
    "sum_wc_op18": ("ReduceSum", [2, 10, 4, 6], [3, 1], 0, 18),
    "mean_all": ("ReduceMean", [2, 8, 3, 5], [0, 1, 2, 3], 0, 13),
    # plain: the kept dims would change order in [N, H, W, C]
    "plain_mean_h": ("ReduceMean", [1, 12, 5, 7], [2], 1, 13),
    "plain_max_w_op18": ("ReduceMax", [2, 10, 4, 6], [3], 0, 18),
}


def check(got, want):
    return ort_cases.diff_vs_ort(got, want, 2e-5)


MODES = (("nhwc", {}), ("plain", {"OPENACL_NO_REDUCE_NHWC": "1"}), ("ref", {"OPENACL_FORCE_REF": "1"}))


def cases():
    return ((name, *model(80 + i, *spec), MODES, check) for i, (name, spec) in enumerate(CASES.items()))


if __name__ == "__main__":
    sys.exit(ort_cases.main(__doc__, "oa_reduce_", cases()))
