#!/usr/bin/python3
"""Whole-factor nearest Resize (kernels/ref/resize_up.c) against ONNX Runtime.

Nearest mode with asymmetric coordinates and floor rounding, constant whole
scales on H and W: float32 and uint8, plain and channels-last (between two
convolutions, so the layout pass keeps it NHWC), factors that differ per axis
or are 1; and configurations the implementation declines (half_pixel,
round_prefer_floor, a fractional scale, sizes), which the reference runs.
Each runs with the implementation on and off (OPENACL_RESIZE_UP=0); a gather
must match ORT exactly.

Usage: resize_up.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cases  # noqa: E402


def model(seed, dtype, shape, scales, convs=False, ctm="asymmetric", nearest="floor", sizes=False):
    rng = np.random.default_rng(seed)
    C = shape[1]
    inits, nodes, x = [], [], "x"
    if convs:
        inits.append(numpy_helper.from_array((rng.standard_normal((C, C, 1, 1)) * 0.3).astype(np.float32), "w1"))
        nodes.append(helper.make_node("Conv", ["x", "w1"], ["c1"]))
        x = "c1"
    inits.append(numpy_helper.from_array(np.zeros(0, np.float32), "roi"))
    if sizes:
        out = [shape[0], shape[1], int(shape[2] * scales[0]), int(shape[3] * scales[1])]
        inits.append(numpy_helper.from_array(np.array(out, np.int64), "sizes"))
        ins = [x, "roi", "", "sizes"]
    else:
        inits.append(numpy_helper.from_array(np.array([1, 1, scales[0], scales[1]], np.float32), "scales"))
        ins = [x, "roi", "scales"]
    nodes.append(helper.make_node("Resize", ins, ["r"], mode="nearest", coordinate_transformation_mode=ctm,
                                  nearest_mode=nearest))
    y = "r"
    if convs:
        inits.append(numpy_helper.from_array((rng.standard_normal((C, C, 1, 1)) * 0.3).astype(np.float32), "w2"))
        nodes.append(helper.make_node("Conv", ["r", "w2"], ["y"]))
        y = "y"
    g = helper.make_graph(nodes, "resize", [helper.make_tensor_value_info("x", dtype, shape)],
                          [helper.make_tensor_value_info(y, dtype, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    if dtype == TensorProto.UINT8:
        x = rng.integers(0, 256, shape).astype(np.uint8)
    else:
        x = rng.uniform(-3, 3, shape).astype(np.float32)
    return m, x


F, U8 = TensorProto.FLOAT, TensorProto.UINT8
CASES = {
    "f32_2x": (F, [1, 3, 5, 7], (2, 2), {}),
    "f32_h1_w3": (F, [2, 4, 3, 6], (1, 3), {}),
    "u8_8x": (U8, [1, 5, 4, 3], (8, 8), {}),
    "u8_2x4": (U8, [1, 24, 6, 5], (2, 4), {}),
    "f32_nhwc_2x": (F, [1, 16, 6, 9], (2, 2), {"convs": True}),
    "f32_nhwc_4x2": (F, [1, 24, 5, 4], (4, 2), {"convs": True}),
    "declined_half_pixel": (F, [1, 3, 5, 7], (2, 2), {"ctm": "half_pixel"}),
    "declined_round": (F, [1, 3, 5, 7], (3, 2), {"nearest": "round_prefer_floor"}),
    "declined_fraction": (F, [1, 3, 6, 8], (1.5, 2), {}),
    "declined_sizes": (U8, [1, 3, 5, 7], (2, 2), {"sizes": True}),
}


def checker(conv):
    def check(got, want):
        return ort_cases.diff_vs_ort(got, want, 1e-5 if conv else 0.0)
    return check


MODES = (("on", {}), ("off", {"OPENACL_RESIZE_UP": "0"}))


def cases():
    return ((name, *model(60 + i, dt, shape, scales, **kw), MODES, checker(kw.get("convs", False)))
            for i, (name, (dt, shape, scales, kw)) in enumerate(CASES.items()))


if __name__ == "__main__":
    sys.exit(ort_cases.main(__doc__, "oa_resize_", cases()))
