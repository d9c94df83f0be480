#!/usr/bin/python3
"""ConvTranspose whose kernel equals its stride with a fused activation chain
(kernels/dnnl/dn_deconv_mm.c), checked against ONNX Runtime (tools/ortref).

Where the output rows are narrow (kw * M < 16: a detection head's last 2x
up-sampling to one probability map) the chain runs as a separate primitive
over the whole output; wider rows keep it inside the matmul. Each case runs
with the split on and off (OPENACL_DECONV_POST_SPLIT=0) and with the reference
kernels (OPENACL_FORCE_REF=1); all must match ORT within float32 rounding.

Usage: deconv_post.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cases  # noqa: E402


def model(seed, C, M, k, H, W, chain):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((C, M, k, k)) * 0.3).astype(np.float32)
    b = (rng.standard_normal(M) * 0.2).astype(np.float32)
    nodes = [helper.make_node("ConvTranspose", ["x", "w", "b"], ["t0"], kernel_shape=[k, k], strides=[k, k])]
    t = "t0"
    for i, op in enumerate(chain):
        o = f"t{i + 1}"
        if op == "HardSigmoid":
            nodes.append(helper.make_node(op, [t], [o], alpha=0.2, beta=0.5))
        elif op == "Clip":
            nodes.append(helper.make_node(op, [t, "lo", "hi"], [o]))
        else:
            nodes.append(helper.make_node(op, [t], [o]))
        t = o
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
             numpy_helper.from_array(np.float32(-0.5), "lo"), numpy_helper.from_array(np.float32(0.7), "hi")]
    g = helper.make_graph(nodes, "deconv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
                          [helper.make_tensor_value_info(t, TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    x = rng.uniform(-2, 2, (1, C, H, W)).astype(np.float32)
    return m, x


CASES = {   # name: (C, M, k, H, W, chain); kw * M < 16 splits
    "one_map_sigmoid": (24, 1, 2, 20, 24, ["Sigmoid"]),
    "three_maps_relu_clip": (16, 3, 2, 9, 13, ["Relu", "Clip"]),
    "one_map_hsigmoid_k4": (8, 1, 4, 7, 5, ["HardSigmoid"]),
    "wide_rows_sigmoid": (24, 8, 2, 10, 12, ["Sigmoid"]),
    "one_map_no_chain": (24, 1, 2, 11, 9, []),
}


def close(got, want):
    d = float(np.abs(got.astype(np.float64) - want).max()) if got.shape == want.shape else np.inf
    if d > 1e-5 * max(1.0, float(np.abs(want).max())):
        return f"max diff {d:.3g} vs ORT (shape {got.shape} vs {want.shape})"
    return None


MODES = (("split", {}), ("inside", {"OPENACL_DECONV_POST_SPLIT": "0"}), ("ref", {"OPENACL_FORCE_REF": "1"}))


def cases():
    return ((name, *model(40 + i, C, M, k, H, W, chain), MODES, close)
            for i, (name, (C, M, k, H, W, chain)) in enumerate(CASES.items()))


if __name__ == "__main__":
    sys.exit(ort_cases.main(__doc__, "oa_deconv_", cases()))
