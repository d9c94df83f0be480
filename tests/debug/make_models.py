#!/usr/bin/python3
"""Builds the models of the debugging tests (dump, profiler, compare):
small.onnx, a convolution block that fusion folds into two Conv nodes and a
Gemm (BatchNorm, Relu and a residual Add absorbed), with a seeded input.
Run: make_models.py <out-dir>"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(22)


def c(name, a):
    return numpy_helper.from_array(np.asarray(a, np.float32), name)


inits = [c("w1", rng.standard_normal((8, 3, 3, 3)) * 0.3), c("b1", rng.standard_normal(8) * 0.1),
         c("g", rng.random(8) + 0.5), c("be", rng.standard_normal(8) * 0.1),
         c("mu", rng.standard_normal(8) * 0.1), c("va", rng.random(8) + 0.5),
         c("w2", rng.standard_normal((8, 8, 3, 3)) * 0.2), c("w3", rng.standard_normal((8, 8, 1, 1)) * 0.3),
         c("fw", rng.standard_normal((8 * 8 * 8, 10)) * 0.05), c("fb", rng.standard_normal(10) * 0.1)]
nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization", ["c1", "g", "be", "mu", "va"], ["bn1"], name="bn1"),
         helper.make_node("Relu", ["bn1"], ["r1"], name="relu1"),
         helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
         helper.make_node("Add", ["c2", "r1"], ["a2"], name="add2"),
         helper.make_node("Relu", ["a2"], ["r2"], name="relu2"),
         helper.make_node("Conv", ["r2", "w3"], ["c3"], name="conv3"),
         helper.make_node("Sigmoid", ["c3"], ["s3"], name="sig3"),
         helper.make_node("Mul", ["c3", "s3"], ["m3"], name="silu3"),
         helper.make_node("Flatten", ["m3"], ["f"], name="flat"),
         helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], name="fc")]
g = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", T.FLOAT, [1, 3, 8, 8])],
                      [helper.make_tensor_value_info("y", T.FLOAT, [1, 10])], initializer=inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="openacl-tests")
m.ir_version = 7
onnx.checker.check_model(m)
onnx.save(m, os.path.join(OUT, "small.onnx"))
x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
np.save(os.path.join(OUT, "small.in0.npy"), x)
x.tofile(os.path.join(OUT, "small.in0.bin"))

# a model with a symbolic batch: runs through the shape cache's static
# programs, or the dynamic executor with OPENACL_SHAPE_CACHE=0
dn = [helper.make_node("Mul", ["x", "two"], ["t"], name="mul/" + "very_long_name." * 20), helper.make_node("Relu", ["t"], ["y"], name="relu")]
dg = helper.make_graph(dn, "dyn", [helper.make_tensor_value_info("x", T.FLOAT, ["N", 3])],
                       [helper.make_tensor_value_info("y", T.FLOAT, ["N", 3])], initializer=[c("two", [2.0])])
dm = helper.make_model(dg, opset_imports=[helper.make_opsetid("", 13)], producer_name="openacl-tests")
dm.ir_version = 7
onnx.save(dm, os.path.join(OUT, "dyn.onnx"))
np.save(os.path.join(OUT, "dyn.in0.npy"), rng.standard_normal((5, 3)).astype(np.float32))

# what passes remove besides fusion: an Identity forwarding a weight, a
# shape computation folded to a constant (Shape, Gather, Concat), a
# Dropout; the dump index must still name every node
cn = [helper.make_node("Identity", ["w"], ["wi"], name="fwd_w"),
      helper.make_node("MatMul", ["x", "wi"], ["h"], name="mm"),
      helper.make_node("Dropout", ["h"], ["hd"], name="drop"),
      helper.make_node("Shape", ["h"], ["sh"], name="shape"),
      helper.make_node("Gather", ["sh", "zero"], ["d0"], name="gather", axis=0),
      helper.make_node("Concat", ["d0", "minus1"], ["newshape"], name="concat", axis=0),
      helper.make_node("Reshape", ["hd", "newshape"], ["y"], name="reshape")]
cg = helper.make_graph(cn, "cover", [helper.make_tensor_value_info("x", T.FLOAT, [2, 3, 4])],
                       [helper.make_tensor_value_info("y", T.FLOAT, None)],
                       initializer=[c("w", rng.standard_normal((4, 5))),
                                    numpy_helper.from_array(np.array([0], np.int64), "zero"),
                                    numpy_helper.from_array(np.array([-1], np.int64), "minus1")])
cm = helper.make_model(cg, opset_imports=[helper.make_opsetid("", 13)], producer_name="openacl-tests")
cm.ir_version = 7
onnx.save(cm, os.path.join(OUT, "cover.onnx"))
np.save(os.path.join(OUT, "cover.in0.npy"), rng.standard_normal((2, 3, 4)).astype(np.float32))
