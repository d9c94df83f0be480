#!/usr/bin/python3
"""Stride-2 1x1 float32 convolutions on small output planes, run at stride 1
on the input's even pixels (kernels/dnnl/dn_conv.c sub_build), checked
against ONNX Runtime (tools/ortref) inside small models: a 1x1 layer before
(so the strided layer reads a channels-last tensor), ResNet's downsample
shape with the residual add and Relu after it, odd input sides, and the
layers that keep the strided kernel (an output plane over 14x14, a plain
graph input, a shape oneDNN has no fast stride-1 primitive for in the
strided one's weight format). Each case runs with the rewrite (the default), with
OPENACL_CONV_S2=0 and with the reference kernels (OPENACL_FORCE_REF=1);
all must match ORT within float32 rounding, and the info log must say
which layers took the rewrite.

Usage: conv_s2.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cases  # noqa: E402


def model(seed, C, M, H, W, pre, residual):
    rng = np.random.default_rng(seed)
    OH, OW = (H + 1) // 2, (W + 1) // 2
    inits = [numpy_helper.from_array((rng.standard_normal((M, C, 1, 1)) * 0.1).astype(np.float32), "w"),
             numpy_helper.from_array((rng.standard_normal(M) * 0.1).astype(np.float32), "b")]
    nodes, t = [], "x"
    if pre:
        inits.append(numpy_helper.from_array((rng.standard_normal((C, C, 1, 1)) * 0.2).astype(np.float32), "w0"))
        nodes.append(helper.make_node("Conv", ["x", "w0"], ["x1"], kernel_shape=[1, 1]))
        t = "x1"
    nodes.append(helper.make_node("Conv", [t, "w", "b"], ["c"], kernel_shape=[1, 1], strides=[2, 2]))
    y = "c"
    if residual:   # ResNet's block: a 3x3 stride-2 path added to the projection
        inits.append(numpy_helper.from_array((rng.standard_normal((M, C, 3, 3)) * 0.05).astype(np.float32), "w3"))
        nodes.append(helper.make_node("Conv", [t, "w3"], ["r"], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4))
        nodes.append(helper.make_node("Add", ["r", "c"], ["s"]))
        y = "s"
    nodes.append(helper.make_node("Relu", [y], ["y"]))
    g = helper.make_graph(nodes, "conv_s2", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, M, OH, OW])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m, rng.uniform(-1, 1, (1, C, H, W)).astype(np.float32)


CASES = {   # name: (C, M, H, W, 1x1 layer before, residual add), takes the rewrite
    "downsample_14x14_residual": ((64, 160, 28, 28, True, True), True),
    "projection_7x7": ((96, 160, 14, 14, True, False), True),
    "odd_sides_27x25": ((96, 192, 27, 25, True, True), True),
    "plane_28x28_stays": ((32, 64, 56, 56, True, False), False),
    "plain_input_stays": ((32, 64, 28, 28, False, False), False),
    # oneDNN 2.6 has no stride-1 brgemm primitive in the weight format its
    # stride-2 one chose for 64 -> 128: only its reference loops, so the
    # layer keeps the strided kernel
    "no_fast_stride1_stays": ((64, 128, 28, 28, True, True), False),
}


def close(got, want):
    return ort_cases.diff_vs_ort(got, want, 1e-5)   # float32 rounding


MODES = (("rewrite", {}), ("strided", {"OPENACL_CONV_S2": "0"}), ("ref", {"OPENACL_FORCE_REF": "1"}))


def cases():
    return ((name, *model(80 + i, *cfg), MODES, close, ("run at stride 1 on every second pixel", expect))
            for i, (name, (cfg, expect)) in enumerate(CASES.items()))


if __name__ == "__main__":
    sys.exit(ort_cases.main(__doc__, "oa_conv_s2_", cases()))
