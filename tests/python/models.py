"""Small ONNX models built at test time with the onnx helper, and the numpy
functions that compute what they should output."""
import os
import subprocess

import numpy as np
import onnx
from numpy.lib.stride_tricks import sliding_window_view
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(20261202)

# weights, fixed per process so numpy references can use them
CONV_W = RNG.standard_normal((3, 2, 3, 3)).astype(np.float32)
CONV_B = RNG.standard_normal((3,)).astype(np.float32)
MM_W = RNG.standard_normal((8, 5)).astype(np.float32)
MM_B = RNG.standard_normal((5,)).astype(np.float32)


def _model(nodes, ins, outs, inits=()):
    g = helper.make_graph(nodes, "g", ins, outs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="openacl-pytests")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def conv_relu_ref(x):
    """Conv 3x3, pads 1, stride 1, then Relu (NCHW)."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = sliding_window_view(xp, (3, 3), axis=(2, 3))          # N,C,H,W,3,3
    y = np.einsum("nchwij,ocij->nohw", win, CONV_W) + CONV_B[None, :, None, None]
    return np.maximum(y, 0).astype(np.float32)


def matmul_add_ref(x):
    return (x @ MM_W + MM_B).astype(np.float32)


def relu_scale_ref(x):
    return (np.maximum(x, 0) * 2).astype(np.float32)


def dyn_affine_ref(x):
    return (x * 2 + 1).astype(np.float32)


def build_all(out_dir):
    """Writes every model into out_dir; returns {name: path}."""
    os.makedirs(out_dir, exist_ok=True)
    f = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    models = {
        # X[1,2,6,6] -> Y[1,3,6,6]
        "conv_relu": _model(
            [helper.make_node("Conv", ["X", "W", "B"], ["C"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
             helper.make_node("Relu", ["C"], ["Y"])],
            [vi("X", f, [1, 2, 6, 6])], [vi("Y", f, [1, 3, 6, 6])],
            [numpy_helper.from_array(CONV_W, "W"), numpy_helper.from_array(CONV_B, "B")]),
        # X[4,8] -> Y[4,5]: static batch 4
        "matmul_add": _model(
            [helper.make_node("MatMul", ["X", "W"], ["M"]), helper.make_node("Add", ["M", "B"], ["Y"])],
            [vi("X", f, [4, 8])], [vi("Y", f, [4, 5])],
            [numpy_helper.from_array(MM_W, "W"), numpy_helper.from_array(MM_B, "B")]),
        # X[4,5] -> Y[4,5] = 2 * Relu(X): chained after matmul_add
        "relu_scale": _model(
            [helper.make_node("Relu", ["X"], ["R"]), helper.make_node("Mul", ["R", "two"], ["Y"])],
            [vi("X", f, [4, 5])], [vi("Y", f, [4, 5])],
            [numpy_helper.from_array(np.array(2, np.float32), "two")]),
        # X[N,3] -> Y[N,3] = 2X + 1: a dynamic first dimension
        "dyn_affine": _model(
            [helper.make_node("Mul", ["X", "two"], ["T"]), helper.make_node("Add", ["T", "one"], ["Y"])],
            [vi("X", f, ["N", 3])], [vi("Y", f, ["N", 3])],
            [numpy_helper.from_array(np.array(2, np.float32), "two"),
             numpy_helper.from_array(np.array(1, np.float32), "one")]),
    }
    paths = {}
    for name, m in models.items():
        p = os.path.join(out_dir, name + ".onnx")
        onnx.save_model(m, p)
        paths[name] = p
    # conv_relu compiled by atc with batch gears 1, 2, 4 (OPENACL_ATC: the
    # tool; without it the gear tests are skipped)
    atc = os.environ.get("OPENACL_ATC")
    if atc and os.path.exists(atc):
        out = os.path.join(out_dir, "gear_batch")
        subprocess.run([atc, "--model=" + paths["conv_relu"], "--framework=5", "--output=" + out,
                        "--input_shape=X:-1,2,6,6", "--dynamic_batch_size=1,2,4"], check=True,
                       capture_output=True)
        paths["gear_batch"] = out + ".om"
    return paths
