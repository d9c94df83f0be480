#!/usr/bin/python3
"""Dilated 3x3 convolutions run by oneDNN's Winograd kernels over their phase
planes (kernels/dnnl/dn_conv_phase.c), checked against ONNX Runtime
(tools/ortref) inside small models: a 1x1 layer before (so the dilated layer
reads a channels-last tensor) or the graph input itself (plain), dilation 2
to 12 with padding equal to it (DeepLab's and FCN's backbones, an ASPP-like
head), planes no multiple of the dilation, a Relu after, and a residual add,
a batch of too few output tiles and phase planes too small (which keep the
layer on the direct kernel). Each case
runs with the phases (the default), with OPENACL_WINO_DILATED=0 and with
the reference kernels (OPENACL_FORCE_REF=1); all must match ORT within
float32 rounding (Winograd rounds differently: 1e-4 of the output's span).

Usage: dilated_wino.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cases  # noqa: E402


def model(seed, C, M, H, W, d, pre, add):
    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array((rng.standard_normal((M, C, 3, 3)) * 0.05).astype(np.float32), "w"),
             numpy_helper.from_array((rng.standard_normal(M) * 0.1).astype(np.float32), "b")]
    nodes, t = [], "x"
    if pre:
        inits.append(numpy_helper.from_array((rng.standard_normal((C, C, 1, 1)) * 0.1).astype(np.float32), "w0"))
        nodes.append(helper.make_node("Conv", ["x", "w0"], ["x1"], kernel_shape=[1, 1]))
        t = "x1"
    nodes.append(helper.make_node("Conv", [t, "w", "b"], ["c"], kernel_shape=[3, 3], dilations=[d, d],
                                  pads=[d] * 4))
    y = "c"
    if add:
        nodes.append(helper.make_node("Add", ["c", t], ["s"]))
        y = "s"
    nodes.append(helper.make_node("Relu", [y], ["y"]))
    g = helper.make_graph(nodes, "dilated", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m, rng.uniform(-1, 1, (1, C, H, W)).astype(np.float32)


CASES = {   # name: (C, M, H, W, dilation, 1x1 layer before, residual add), runs as phases
    "d2_channels_last": ((96, 96, 40, 40, 2, True, False), True),
    "d4_channels_last": ((96, 96, 40, 44, 4, True, False), True),
    "d2_plain_input": ((96, 96, 36, 36, 2, False, False), True),
    "d3_channels_last": ((96, 96, 27, 30, 3, True, False), True),
    "d2_f4x4": ((48, 48, 56, 56, 2, True, False), True),
    "d2_residual_add": ((96, 96, 40, 40, 2, True, True), False),
    "d2_odd_plane": ((96, 96, 41, 40, 2, True, False), True),
    "d12_aspp_like": ((64, 64, 40, 40, 12, True, False), False),
    "d3_neither_side_divides": ((48, 48, 29, 31, 3, False, False), True),
    "d2_too_few_tiles": ((96, 96, 20, 20, 2, True, False), False),
}


def close(got, want):
    return ort_cases.diff_vs_ort(got, want, 1e-4)   # Winograd's rounding


MODES = (("phases", {}), ("direct", {"OPENACL_WINO_DILATED": "0"}), ("ref", {"OPENACL_FORCE_REF": "1"}))


def cases():
    return ((name, *model(60 + i, *cfg), MODES, close, ("phase planes", expect))
            for i, (name, (cfg, expect)) in enumerate(CASES.items()))


if __name__ == "__main__":
    sys.exit(ort_cases.main(__doc__, "oa_dilated_", cases()))
