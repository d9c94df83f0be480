#!/usr/bin/python3
"""Writes the small models the tests/perf checks load:
  dyn_conv.onnx  x[N,3,H,W] -> Conv 3x3 (pads 1, 4 filters, bias) -> *0.5 -> +0.25 -> Relu -> y
  dyn_nz.onnx    x[N] -> NonZero -> y (int64 [1, K]: shape depends on the data)
  bf16_net.onnx  a small static conv net (3x3, 1x1, pooling, Gemm) with seeded weights
  bf16_res.onnx  a residual block (the addend may lend its storage to the conv adding it)
  bf16_res2.onnx two residual blocks on a stream that may be stored as bf16
Weights are fixed formulas the C test recomputes (w = ((o*7 + i*3 + k) % 11 - 5) / 8)."""
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
w = np.zeros((4, 3, 3, 3), np.float32)
for o in range(4):
    for i in range(3):
        for k in range(9):
            w[o, i, k // 3, k % 3] = ((o * 7 + i * 3 + k) % 11 - 5) / 8.0
b = np.array([0.5, -0.25, 0.0, 1.0], np.float32)
g = helper.make_graph(
    [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
     helper.make_node("Mul", ["c", "half"], ["m"]),
     helper.make_node("Add", ["m", "quarter"], ["a"]),
     helper.make_node("Relu", ["a"], ["y"])],
    "dyn_conv",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, "H", "W"])],
    [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.flatten()),
     helper.make_tensor("b", TensorProto.FLOAT, b.shape, b),
     helper.make_tensor("half", TensorProto.FLOAT, [], [0.5]),
     helper.make_tensor("quarter", TensorProto.FLOAT, [], [0.25])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/dyn_conv.onnx")
g = helper.make_graph(
    [helper.make_node("NonZero", ["x"], ["y"])], "dyn_nz",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
    [helper.make_tensor_value_info("y", TensorProto.INT64, [1, "K"])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/dyn_nz.onnx")

# bf16_net.onnx: x[1,16,32,32] -> Conv3x3 16->64 -> Relu -> Conv1x1 64->64 -> Relu
#   -> Conv1x1 64->64 -> Relu -> GlobalAveragePool -> Flatten -> Gemm 64->10 -> y[1,10]
rng = np.random.default_rng(7)
def rnd(*s):
    return (rng.standard_normal(s) / np.sqrt(np.prod(s[1:]))).astype(np.float32)
w1, b1, w2, b2 = rnd(64, 16, 3, 3), rnd(64), rnd(64, 64, 1, 1), rnd(64)
w3, b3 = rnd(64, 64, 1, 1), rnd(64)
wf, bf = rnd(10, 64), rnd(10)
inits = [helper.make_tensor(n, TensorProto.FLOAT, a.shape, a.flatten())
         for n, a in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("w3", w3), ("b3", b3),
                      ("wf", wf), ("bf", bf))]
g = helper.make_graph(
    [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["c1"], ["r1"]),
     helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"]),
     helper.make_node("Relu", ["c2"], ["r2"]),
     helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"]),
     helper.make_node("Relu", ["c3"], ["r3"]),
     helper.make_node("GlobalAveragePool", ["r3"], ["p"]),
     helper.make_node("Flatten", ["p"], ["f"]),
     helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1)],
    "bf16_net",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 32, 32])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/bf16_net.onnx")

# bf16_res.onnx: a residual block whose addend may give its storage to the
# convolution that adds it (sum post-op, dn_conv inplace):
#   x[1,64,28,28] -> Conv1x1 -> Relu = a -> Conv3x3 -> Relu -> Conv1x1 (+ a) -> Relu = r
#   -> Conv1x1 64->16 -> y[1,16,28,28]; x and numpy's float64 y in raw float32 files
w1, b1, w2, b2 = rnd(64, 64, 1, 1), rnd(64), rnd(64, 64, 3, 3), rnd(64)
w3, b3, w4, b4 = rnd(64, 64, 1, 1), rnd(64), rnd(16, 64, 1, 1), rnd(16)
x = rng.standard_normal((1, 64, 28, 28)).astype(np.float32)
def conv(v, wt, bias, pad=0):
    v = np.pad(v.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    k = wt.shape[2]
    H, W = v.shape[2] - k + 1, v.shape[3] - k + 1
    o = np.zeros((1, wt.shape[0], H, W))
    for i in range(k):
        for j in range(k):
            o += np.einsum("oc,nchw->nohw", wt[:, :, i, j].astype(np.float64), v[:, :, i:i + H, j:j + W])
    return o + bias.astype(np.float64)[None, :, None, None]
a = np.maximum(conv(x, w1, b1), 0)
r = np.maximum(conv(np.maximum(conv(a, w2, b2, 1), 0), w3, b3) + a, 0)
y = conv(r, w4, b4)
inits = [helper.make_tensor(n, TensorProto.FLOAT, v.shape, v.flatten())
         for n, v in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("w3", w3), ("b3", b3),
                      ("w4", w4), ("b4", b4))]
g = helper.make_graph(
    [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"]),
     helper.make_node("Relu", ["c1"], ["a"]),
     helper.make_node("Conv", ["a", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["c2"], ["r2"]),
     helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"]),
     helper.make_node("Add", ["c3", "a"], ["s"]),
     helper.make_node("Relu", ["s"], ["r"]),
     helper.make_node("Conv", ["r", "w4", "b4"], ["y"])],
    "bf16_res",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 28, 28])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 28, 28])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/bf16_res.onnx")
x.tofile(f"{out}/bf16_res_x.bin")
y.astype(np.float32).tofile(f"{out}/bf16_res_y.bin")

# bf16_res2.onnx: a bf16 residual stream (dn_conv_bf16_addend): a stem conv
# reads the input (float32), a 1x1 conv makes the stream s0, two residual
# blocks add to it (s1, s2), a 1x1 conv reads the end:
#   x[1,32,20,20] -> Conv1x1+Relu -> Conv1x1+Relu = s0
#   s_k = Relu(Conv1x1(Relu(Conv3x3(s_{k-1}))) + s_{k-1})   k = 1, 2
#   -> Conv1x1 32->8 -> y[1,8,20,20]
# s0, s1 and s2 are stored as bf16 where the CPU has it, each residual
# convolution writing over its addend.
C2 = 32
wts = {"w0": rnd(C2, C2, 1, 1), "b0": rnd(C2), "wa": rnd(C2, C2, 1, 1), "ba": rnd(C2),
       "wy": rnd(8, C2, 1, 1), "by": rnd(8)}
for k in (1, 2):
    wts[f"w{k}p"], wts[f"b{k}p"] = rnd(C2, C2, 3, 3), rnd(C2)
    wts[f"w{k}q"], wts[f"b{k}q"] = rnd(C2, C2, 1, 1), rnd(C2)
x2 = rng.standard_normal((1, C2, 20, 20)).astype(np.float32)
s = np.maximum(conv(np.maximum(conv(x2, wts["w0"], wts["b0"]), 0), wts["wa"], wts["ba"]), 0)
nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"]), helper.make_node("Relu", ["c0"], ["r0"]),
         helper.make_node("Conv", ["r0", "wa", "ba"], ["ca"]), helper.make_node("Relu", ["ca"], ["s0"])]
for k in (1, 2):
    s = np.maximum(conv(np.maximum(conv(s, wts[f"w{k}p"], wts[f"b{k}p"], 1), 0), wts[f"w{k}q"], wts[f"b{k}q"]) + s, 0)
    nodes += [helper.make_node("Conv", [f"s{k-1}", f"w{k}p", f"b{k}p"], [f"p{k}"], pads=[1, 1, 1, 1]),
              helper.make_node("Relu", [f"p{k}"], [f"pr{k}"]),
              helper.make_node("Conv", [f"pr{k}", f"w{k}q", f"b{k}q"], [f"q{k}"]),
              helper.make_node("Add", [f"q{k}", f"s{k-1}"], [f"t{k}"]),
              helper.make_node("Relu", [f"t{k}"], [f"s{k}"])]
y2 = conv(s, wts["wy"], wts["by"])
nodes.append(helper.make_node("Conv", ["s2", "wy", "by"], ["y"]))
g = helper.make_graph(
    nodes, "bf16_res2",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C2, 20, 20])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 20, 20])],
    [helper.make_tensor(n, TensorProto.FLOAT, v.shape, v.flatten()) for n, v in wts.items()])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/bf16_res2.onnx")
x2.tofile(f"{out}/bf16_res2_x.bin")
y2.astype(np.float32).tofile(f"{out}/bf16_res2_y.bin")
