#!/usr/bin/python3
"""Builds the small ONNX models the openacl-run tests run, with seeded
inputs as .bin and .npy files; the tests compute expected outputs with numpy.
Run: make_models.py <out-dir>"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(4321)


def mk(nodes, ins, outs, inits=()):
    g = helper.make_graph(nodes, "g", ins, outs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="openacl-tests")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def save(name, model, inputs):
    onnx.save_model(model, os.path.join(OUT, name + ".onnx"))
    for i, a in enumerate(inputs):
        np.ascontiguousarray(a).tofile(os.path.join(OUT, "%s.in%d.bin" % (name, i)))
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, i)), a)


F = TensorProto.FLOAT

# two inputs, two outputs: Z = Relu(X + Y), W = X * Y
save("add_relu",
     mk([helper.make_node("Add", ["X", "Y"], ["S"]), helper.make_node("Relu", ["S"], ["Z"]),
         helper.make_node("Mul", ["X", "Y"], ["W"])],
        [vi("X", F, [2, 3]), vi("Y", F, [2, 3])], [vi("Z", F, [2, 3]), vi("W", F, [2, 3])]),
     [rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)])

# batch 4 with weights: Y = X @ W + B; the weights are saved for the tests
w = rng.standard_normal((8, 5)).astype(np.float32)
b = rng.standard_normal((5,)).astype(np.float32)
np.save(os.path.join(OUT, "matmul.W.npy"), w)
np.save(os.path.join(OUT, "matmul.B.npy"), b)
save("matmul",
     mk([helper.make_node("MatMul", ["X", "W"], ["T"]), helper.make_node("Add", ["T", "B"], ["Y"])],
        [vi("X", F, [4, 8])], [vi("Y", F, [4, 5])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")]),
     [rng.standard_normal((4, 8)).astype(np.float32)])

# range-dynamic first dim: Y = X * 2 + 1, X is [N, 3]
save("dyn",
     mk([helper.make_node("Mul", ["X", "two"], ["T"]), helper.make_node("Add", ["T", "one"], ["Y"])],
        [vi("X", F, ["N", 3])], [vi("Y", F, ["N", 3])],
        [numpy_helper.from_array(np.array(2, np.float32), "two"),
         numpy_helper.from_array(np.array(1, np.float32), "one")]),
     [rng.standard_normal((5, 3)).astype(np.float32)])

# float16 in and out: Y = X + X * X
save("fp16",
     mk([helper.make_node("Mul", ["X", "X"], ["T"]), helper.make_node("Add", ["X", "T"], ["Y"])],
        [vi("X", TensorProto.FLOAT16, [2, 4])], [vi("Y", TensorProto.FLOAT16, [2, 4])]),
     [rng.standard_normal((2, 4)).astype(np.float16)])

# int64 in and out: Y = X * 3
save("int64",
     mk([helper.make_node("Mul", ["X", "three"], ["Y"])],
        [vi("X", TensorProto.INT64, [3, 2])], [vi("Y", TensorProto.INT64, [3, 2])],
        [numpy_helper.from_array(np.array(3, np.int64), "three")]),
     [rng.integers(-50, 50, (3, 2)).astype(np.int64)])

# data-dependent output shape: Y = NonZero(X) (the runtime allocates it)
save("nonzero",
     mk([helper.make_node("NonZero", ["X"], ["Y"])], [vi("X", F, [6])], [vi("Y", TensorProto.INT64, [1, None])]),
     [np.array([0, 3, 0, 1, 5, 0], np.float32)])

# NCHW convolution, so formats and 4-D dims show up in the model listing
cw = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
np.save(os.path.join(OUT, "conv.W.npy"), cw)
save("conv",
     mk([helper.make_node("Conv", ["X", "W"], ["Y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
        [vi("X", F, [1, 2, 6, 6])], [vi("Y", F, [1, 3, 6, 6])], [numpy_helper.from_array(cw, "W")]),
     [rng.standard_normal((1, 2, 6, 6)).astype(np.float32)])

# a folder of per-inference inputs for add_relu (sorted names s0..s3), and
# one of mismatched size
for name in ("fx", "fy", "fbad"):
    os.makedirs(os.path.join(OUT, name), exist_ok=True)
for k in range(4):
    np.save(os.path.join(OUT, "fx", "s%d.npy" % k), rng.standard_normal((2, 3)).astype(np.float32))
    rng.standard_normal((2, 3)).astype(np.float32).tofile(os.path.join(OUT, "fy", "s%d.bin" % k))
for k in range(3):
    rng.standard_normal((2, 3)).astype(np.float32).tofile(os.path.join(OUT, "fbad", "s%d.bin" % k))
print("cli models written to", OUT)
