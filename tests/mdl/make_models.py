#!/usr/bin/python3
"""Builds the small ONNX models the aclmdl tests load, with inputs and the
numpy-computed expected outputs as raw little-endian files:
  <out>/<name>.onnx, <name>.in<i>.bin, <name>.out<i>.bin
Run: make_models.py <out-dir>"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(1234)


def save(name, model, inputs, outputs):
    onnx.checker.check_model(model)
    onnx.save_model(model, os.path.join(OUT, name + ".onnx"))
    for i, a in enumerate(inputs):
        np.ascontiguousarray(a).tofile(os.path.join(OUT, "%s.in%d.bin" % (name, i)))
    for i, a in enumerate(outputs):
        np.ascontiguousarray(a).tofile(os.path.join(OUT, "%s.out%d.bin" % (name, i)))


def mk(nodes, ins, outs, inits=(), opset=13, name="g"):
    g = helper.make_graph(nodes, name, ins, outs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="openacl-tests")
    m.ir_version = 7
    return m


# 1. two inputs, two outputs: Z = Relu(X + Y), W = X * Y
x = rng.standard_normal((2, 3)).astype(np.float32)
y = rng.standard_normal((2, 3)).astype(np.float32)
m = mk([helper.make_node("Add", ["X", "Y"], ["S"]), helper.make_node("Relu", ["S"], ["Z"]),
        helper.make_node("Mul", ["X", "Y"], ["W"])],
       [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3]),
        helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3])],
       [helper.make_tensor_value_info("Z", TensorProto.FLOAT, [2, 3]),
        helper.make_tensor_value_info("W", TensorProto.FLOAT, [2, 3])])
save("add_relu", m, [x, y], [np.maximum(x + y, 0), x * y])

# 2. weights: Y = X @ W + B (Gemm), so the model has weight memory
x = rng.standard_normal((1, 4)).astype(np.float32)
w = rng.standard_normal((4, 3)).astype(np.float32)
b = rng.standard_normal((3,)).astype(np.float32)
m = mk([helper.make_node("Gemm", ["X", "W", "B"], ["Y"])],
       [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4])],
       [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 3])],
       [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
save("gemm", m, [x], [x @ w + b])

# 3. dynamic first dim: Y = X * 2 + 1, X is [N, 3]; expected for N = 5
x = rng.standard_normal((5, 3)).astype(np.float32)
m = mk([helper.make_node("Mul", ["X", "two"], ["T"]), helper.make_node("Add", ["T", "one"], ["Y"])],
       [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3])],
       [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 3])],
       [numpy_helper.from_array(np.array(2, np.float32), "two"),
        numpy_helper.from_array(np.array(1, np.float32), "one")])
save("dyn", m, [x], [x * 2 + 1])

# 4. float16 input and output: Y = X + X * X
x = rng.standard_normal((2, 4)).astype(np.float16)
m = mk([helper.make_node("Mul", ["X", "X"], ["T"]), helper.make_node("Add", ["X", "T"], ["Y"])],
       [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [2, 4])],
       [helper.make_tensor_value_info("Y", TensorProto.FLOAT16, [2, 4])])
save("fp16", m, [x], [(x + x * x).astype(np.float16)])

# 5. a 4-D NCHW convolution (format label NCHW), 3x3 kernel, no padding
x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
y = np.zeros((1, 3, 3, 3), np.float32)
for o in range(3):
    for i in range(3):
        for j in range(3):
            y[0, o, i, j] = np.sum(x[0, :, i:i + 3, j:j + 3] * w[o])
m = mk([helper.make_node("Conv", ["X", "W"], ["Y"], kernel_shape=[3, 3])],
       [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 5, 5])],
       [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 3, 3, 3])],
       [numpy_helper.from_array(w, "W")])
save("conv", m, [x], [y])

# 6. names longer than aclmdlIODims.name holds (aliased)
long_in = "input_" + "x" * 194
long_out = "output_" + "y" * 193
x = rng.standard_normal((3,)).astype(np.float32)
m = mk([helper.make_node("Neg", [long_in], [long_out])],
       [helper.make_tensor_value_info(long_in, TensorProto.FLOAT, [3])],
       [helper.make_tensor_value_info(long_out, TensorProto.FLOAT, [3])])
save("longname", m, [x], [-x])

# 7. external data next to the model file: Y = X + C, C in "ext.weights"
x = rng.standard_normal((64,)).astype(np.float32)
c = rng.standard_normal((64,)).astype(np.float32)
m = mk([helper.make_node("Add", ["X", "C"], ["Y"])],
       [helper.make_tensor_value_info("X", TensorProto.FLOAT, [64])],
       [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [64])],
       [numpy_helper.from_array(c, "C")])
onnx.save_model(m, os.path.join(OUT, "extdata.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
                location="ext.weights", size_threshold=0)
x.tofile(os.path.join(OUT, "extdata.in0.bin"))
(x + c).tofile(os.path.join(OUT, "extdata.out0.bin"))

# 8. a data-dependent output shape: Y = NonZero(X) (int64 [1, nnz])
x = np.array([0, 3, 0, 1, 5, 0], np.float32)
m = mk([helper.make_node("NonZero", ["X"], ["Y"])],
       [helper.make_tensor_value_info("X", TensorProto.FLOAT, [6])],
       [helper.make_tensor_value_info("Y", TensorProto.INT64, [1, None])])
save("nonzero", m, [x], [np.array(np.nonzero(x), np.int64)])

print("models written to", OUT)
