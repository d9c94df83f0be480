#!/usr/bin/python3
"""Builds the model repository the openacl-server tests serve: small ONNX
models written here, compiled with atc into batch-gear models where the
tests need batching, each in <repo>/<model>/1/ with its config.json.
Run: make_repo.py <atc> <repo-dir>"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ATC, REPO = sys.argv[1], sys.argv[2]
SRC = os.path.join(REPO + ".src")
shutil.rmtree(REPO, ignore_errors=True)
shutil.rmtree(SRC, ignore_errors=True)
os.makedirs(REPO)
os.makedirs(SRC)
rng = np.random.default_rng(2024)


def mk(nodes, ins, outs, inits=()):
    g = helper.make_graph(nodes, "g", ins, outs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="openacl-tests")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def place(name, src_file, ext, config=None):
    d = os.path.join(REPO, name, "1")
    os.makedirs(d)
    shutil.copy(src_file, os.path.join(d, "model." + ext))
    if config is not None:
        with open(os.path.join(REPO, name, "config.json"), "w") as f:
            json.dump(config, f)


def compile_gears(src, out, shape, gears):
    subprocess.run([ATC, "--model=" + src, "--framework=5", "--output=" + out, "--input_shape=" + shape,
                    "--dynamic_batch_size=" + gears], check=True, stdout=subprocess.DEVNULL)
    return out + ".om"


F = TensorProto.FLOAT

# small: Y = Relu(X @ W + B), X [N, 16] -> gears 1,2,4,8
w = rng.standard_normal((16, 10)).astype(np.float32)
b = rng.standard_normal((10,)).astype(np.float32)
np.save(os.path.join(SRC, "small.W.npy"), w)
np.save(os.path.join(SRC, "small.B.npy"), b)
small = os.path.join(SRC, "small.onnx")
onnx.save_model(mk([helper.make_node("MatMul", ["X", "W"], ["T"]), helper.make_node("Add", ["T", "B"], ["U"]),
                    helper.make_node("Relu", ["U"], ["Y"])],
                   [vi("X", F, ["N", 16])], [vi("Y", F, ["N", 10])],
                   [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")]), small)
small_om = compile_gears(small, os.path.join(SRC, "small_g"), "X:-1,16", "1,2,4,8")
place("small", small_om, "om", {"dynamic_batching": {"max_queue_delay_us": 2000}, "instance_count": 1})
place("small_nb", small_om, "om", {"instance_count": 2})
# a 2 s batching window: requests short of a full gear wait (the drain test)
place("small_drain", small_om, "om", {"dynamic_batching": {"max_queue_delay_us": 2000000}})
place("small_drain_t", small_om, "om", {"dynamic_batching": {"max_queue_delay_us": 2000000}, "timeout_ms": 1})
# the same model with its tensors renamed by config.json, max batch 4
place("small_alias", small_om, "om", {"max_batch_size": 4, "inputs": [{"name": "X", "alias": "features",
                                                                        "datatype": "FP32", "shape": [-1, 16]}],
                                      "outputs": [{"name": "Y", "alias": "scores"}]})

# heavy: 8 x (MatMul 384x384 + Relu), X [N, 384], for queues and timeouts
nodes, inits, prev = [], [], "X"
for i in range(8):
    wi = (rng.standard_normal((384, 384)) / 20).astype(np.float32)
    inits.append(numpy_helper.from_array(wi, "W%d" % i))
    nodes += [helper.make_node("MatMul", [prev, "W%d" % i], ["M%d" % i]),
              helper.make_node("Relu", ["M%d" % i], ["R%d" % i])]
    prev = "R%d" % i
nodes.append(helper.make_node("Identity", [prev], ["Y"]))
heavy = os.path.join(SRC, "heavy.onnx")
onnx.save_model(mk(nodes, [vi("X", F, ["N", 384])], [vi("Y", F, ["N", 384])], inits), heavy)
heavy_om = compile_gears(heavy, os.path.join(SRC, "heavy_g"), "X:-1,384", "1,2,4,8,16")
place("heavy_q", heavy_om, "om", {"max_queue_size": 4, "instance_count": 1})
place("heavy_t", heavy_om, "om", {"timeout_ms": 1, "instance_count": 1})
place("heavy_slow", heavy_om, "om", {"instance_count": 1, "max_queue_size": 4096})
place("heavy", heavy_om, "om", {"dynamic_batching": {"max_queue_delay_us": 1000}, "max_queue_size": 4096})

# two inputs, two outputs, fixed shapes, served from ONNX: Z = Relu(X + Y), W = X * Y
onnx.save_model(mk([helper.make_node("Add", ["X", "Y"], ["S"]), helper.make_node("Relu", ["S"], ["Z"]),
                    helper.make_node("Mul", ["X", "Y"], ["W"])],
                   [vi("X", F, [2, 3]), vi("Y", F, [2, 3])], [vi("Z", F, [2, 3]), vi("W", F, [2, 3])]),
                os.path.join(SRC, "two.onnx"))
place("two", os.path.join(SRC, "two.onnx"), "onnx")

# every v2 datatype our models use: out_t = in_t + in_t (Not for BOOL)
types = [("i8", TensorProto.INT8), ("u8", TensorProto.UINT8), ("i16", TensorProto.INT16),
         ("i32", TensorProto.INT32), ("i64", TensorProto.INT64), ("f16", TensorProto.FLOAT16),
         ("f32", TensorProto.FLOAT), ("f64", TensorProto.DOUBLE)]
nodes = [helper.make_node("Add", ["in_" + n, "in_" + n], ["out_" + n]) for n, _ in types]
nodes.append(helper.make_node("Not", ["in_b"], ["out_b"]))
ins = [vi("in_" + n, t, [2, 3]) for n, t in types] + [vi("in_b", TensorProto.BOOL, [2, 3])]
outs = [vi("out_" + n, t, [2, 3]) for n, t in types] + [vi("out_b", TensorProto.BOOL, [2, 3])]
onnx.save_model(mk(nodes, ins, outs), os.path.join(SRC, "types.onnx"))
place("types", os.path.join(SRC, "types.onnx"), "onnx")

# a model folder that cannot load, and one with a bad config.json
os.makedirs(os.path.join(REPO, "broken", "1"))
with open(os.path.join(REPO, "broken", "1", "model.onnx"), "wb") as f:
    f.write(b"this is not an onnx model")
place("badconfig", small_om, "om", {"max_batch_sise": 4})
print("repository ready:", sorted(os.listdir(REPO)))
