#!/usr/bin/python3
"""Builds the small ONNX models the atc tests compile, then compiles them
with atc (so the fixture itself checks that compiling works), and writes
inputs with numpy-computed expected outputs as raw little-endian files:
  <out>/<case>.in<i>.bin, <case>.out<i>.bin
Run: make_models.py <atc> <out-dir>

Models:
  cnn   x[N,3,H,W] -> Conv 3x3 (4 ch) -> Relu -> GlobalAveragePool -> Flatten
        -> Gemm (5): weights packed by the oneDNN kernels, output [N,5]
        whatever H and W are (batch and image-size gears)
  two   data[1,S,4] @ W[4,3] -> out_a[1,S,3]; mask[T,4] -> Relu*2 -> out_b[T,4]
        (dims gears over S and T)
  mlp   x[N,8] -> MatMul + Add + Relu -> y[N,6] (range-dynamic)
  bfnet x[1,16,32,32] -> Conv 3x3 (32) -> Relu -> Conv 1x1 (64) -> Relu -> Conv 1x1 (64)
        -> Relu -> feat; feat -> GlobalAveragePool -> Flatten -> Gemm (10) -> y: compiled
        for float32 (bfnet_fp32.om) and with --precision_mode=allow_fp32_to_bf16
        (bfnet_bf16.om; the 1x1 convolutions are large enough to compute in bf16).
        Where the CPU has no bf16, atc must refuse that: bf16_unsupported.txt is
        written instead and the bf16 checks skip."""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ATC, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(20261202)


def mk(nodes, ins, outs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", ins, outs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="openacl-tests")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def vi(name, dims, dt=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dt, dims)


def save_case(case, inputs, outputs):
    for i, a in enumerate(inputs):
        np.ascontiguousarray(a).tofile(os.path.join(OUT, "%s.in%d.bin" % (case, i)))
    for i, a in enumerate(outputs):
        np.ascontiguousarray(a).tofile(os.path.join(OUT, "%s.out%d.bin" % (case, i)))


def atc(*args, may_refuse=None):
    p = subprocess.run([ATC, *args], capture_output=True, text=True)
    if p.returncode != 0 and may_refuse and may_refuse in p.stderr:
        return p.stderr
    if p.returncode != 0:
        sys.exit("atc %s failed:\n%s%s" % (" ".join(args), p.stdout, p.stderr))
    return None


# ---- cnn ----
cw = (rng.standard_normal((4, 3, 3, 3)) * 0.5).astype(np.float32)
cb = rng.standard_normal(4).astype(np.float32)
gw = rng.standard_normal((5, 4)).astype(np.float32)
gb = rng.standard_normal(5).astype(np.float32)
cnn = mk([helper.make_node("Conv", ["x", "cw", "cb"], ["c"], pads=[1, 1, 1, 1]),
          helper.make_node("Relu", ["c"], ["r"]),
          helper.make_node("GlobalAveragePool", ["r"], ["p"]),
          helper.make_node("Flatten", ["p"], ["f"]),
          helper.make_node("Gemm", ["f", "gw", "gb"], ["y"], transB=1)],
         [vi("x", ["N", 3, "H", "W"])], [vi("y", ["N", 5])],
         [numpy_helper.from_array(cw, "cw"), numpy_helper.from_array(cb, "cb"),
          numpy_helper.from_array(gw, "gw"), numpy_helper.from_array(gb, "gb")])
onnx.save_model(cnn, os.path.join(OUT, "cnn.onnx"))


def cnn_ref(x):
    n, _, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    c = np.zeros((n, 4, h, w), np.float64)
    for dy in range(3):
        for dx in range(3):
            c += np.einsum("nchw,oc->nohw", xp[:, :, dy:dy + h, dx:dx + w], cw[:, :, dy, dx])
    c += cb[None, :, None, None]
    p = np.maximum(c, 0).mean(axis=(2, 3))
    return (p @ gw.T + gb).astype(np.float32)


for b in (1, 2, 4):
    x = rng.standard_normal((b, 3, 8, 8)).astype(np.float32)
    save_case("cnn_b%d" % b, [x], [cnn_ref(x)])
for h, w in ((8, 8), (12, 16)):
    x = rng.standard_normal((1, 3, h, w)).astype(np.float32)
    save_case("cnn_hw%dx%d" % (h, w), [x], [cnn_ref(x)])
x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
save_case("cnn_static", [x], [cnn_ref(x)])

atc("--model=" + OUT + "/cnn.onnx", "--framework=5", "--output=" + OUT + "/cnn_batch",
    "--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,2,4", "--soc_version=Ascend310")
atc("--model=" + OUT + "/cnn.onnx", "--framework=5", "--output=" + OUT + "/cnn_hw",
    "--input_shape=x:1,3,-1,-1", "--dynamic_image_size=8,8;12,16", "--input_format=NCHW")
atc("--model=" + OUT + "/cnn.onnx", "--framework=5", "--output=" + OUT + "/cnn_static",
    "--input_shape=x:2,3,8,8")
atc("--model=" + OUT + "/cnn.onnx", "--framework=5", "--output=" + OUT + "/cnn_fp16",
    "--input_shape=x:2,3,8,8", "--input_fp16_nodes=x", "--output_type=FP16", "--precision_mode=force_fp32")

# ---- two (dims gears) ----
tw = rng.standard_normal((4, 3)).astype(np.float32)
two = mk([helper.make_node("MatMul", ["data", "tw"], ["out_a"]),
          helper.make_node("Relu", ["mask"], ["rm"]),
          helper.make_node("Mul", ["rm", "two"], ["out_b"])],
         [vi("data", [1, "S", 4]), vi("mask", ["T", 4])], [vi("out_a", [1, "S", 3]), vi("out_b", ["T", 4])],
         [numpy_helper.from_array(tw, "tw"), numpy_helper.from_array(np.array(2, np.float32), "two")])
onnx.save_model(two, os.path.join(OUT, "two.onnx"))
for s, t in ((2, 3), (5, 1)):
    d = rng.standard_normal((1, s, 4)).astype(np.float32)
    mm = rng.standard_normal((t, 4)).astype(np.float32)
    save_case("two_%d_%d" % (s, t), [d, mm], [d @ tw, np.maximum(mm, 0) * 2])
atc("--model=" + OUT + "/two.onnx", "--framework=5", "--output=" + OUT + "/two_dims",
    "--input_shape=data:1,-1,4;mask:-1,4", "--dynamic_dims=2,3;5,1", "--input_format=ND")

# ---- mlp (range-dynamic) ----
mw = rng.standard_normal((8, 6)).astype(np.float32)
mb = rng.standard_normal(6).astype(np.float32)
mlp = mk([helper.make_node("MatMul", ["x", "mw"], ["t"]), helper.make_node("Add", ["t", "mb"], ["u"]),
          helper.make_node("Relu", ["u"], ["y"])],
         [vi("x", ["N", 8])], [vi("y", ["N", 6])],
         [numpy_helper.from_array(mw, "mw"), numpy_helper.from_array(mb, "mb")])
onnx.save_model(mlp, os.path.join(OUT, "mlp.onnx"))
x = rng.standard_normal((5, 8)).astype(np.float32)
save_case("mlp_5", [x], [np.maximum(x @ mw + mb, 0)])
atc("--model=" + OUT + "/mlp.onnx", "--framework=5", "--output=" + OUT + "/mlp_range", "--input_shape=x:1~16,8")
atc("--model=" + OUT + "/mlp.onnx", "--framework=5", "--output=" + OUT + "/mlp_dyn")

# ---- bfnet (bfloat16 compute) ----
def he(shape):
    fan_in = int(np.prod(shape[1:]))
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


bw = [he((32, 16, 3, 3)), he((64, 32, 1, 1)), he((64, 64, 1, 1)), he((64, 64, 1, 1))]
bb = [(rng.standard_normal(w.shape[0]) * 0.1).astype(np.float32) for w in bw]
fw = he((10, 64))
fb = (rng.standard_normal(10) * 0.1).astype(np.float32)
nodes, inits, cur = [], [], "x"
for i, (w, b) in enumerate(zip(bw, bb)):
    nodes.append(helper.make_node("Conv", [cur, "w%d" % i, "b%d" % i], ["c%d" % i], name="conv%d" % i,
                                  pads=[1, 1, 1, 1] if w.shape[2] == 3 else [0, 0, 0, 0]))
    cur = "feat" if i == len(bw) - 1 else "r%d" % i
    nodes.append(helper.make_node("Relu", ["c%d" % i], [cur]))
    inits += [numpy_helper.from_array(w, "w%d" % i), numpy_helper.from_array(b, "b%d" % i)]
nodes += [helper.make_node("GlobalAveragePool", ["feat"], ["p"]), helper.make_node("Flatten", ["p"], ["f"]),
          helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1)]
inits += [numpy_helper.from_array(fw, "fw"), numpy_helper.from_array(fb, "fb")]
bfnet = mk(nodes, [vi("x", [1, 16, 32, 32])], [vi("feat", [1, 64, 32, 32]), vi("y", [1, 10])], inits)
onnx.save_model(bfnet, os.path.join(OUT, "bfnet.onnx"))


def bfnet_ref(x):
    a = x.astype(np.float64)
    for w, b in zip(bw, bb):
        k = w.shape[2]
        n, c, h, wd = a.shape
        ap = np.pad(a, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
        o = np.zeros((n, w.shape[0], h, wd))
        for dy in range(k):
            for dx in range(k):
                o += np.einsum("nchw,oc->nohw", ap[:, :, dy:dy + h, dx:dx + wd], w[:, :, dy, dx])
        a = np.maximum(o + b[None, :, None, None], 0)
    y = a.mean(axis=(2, 3)) @ fw.T.astype(np.float64) + fb
    return [a.astype(np.float32), y.astype(np.float32)]


x = rng.standard_normal((1, 16, 32, 32)).astype(np.float32)
save_case("bfnet", [x], bfnet_ref(x))
atc("--model=" + OUT + "/bfnet.onnx", "--framework=5", "--output=" + OUT + "/bfnet_fp32")
why = atc("--model=" + OUT + "/bfnet.onnx", "--framework=5", "--output=" + OUT + "/bfnet_bf16",
          "--precision_mode=allow_fp32_to_bf16", may_refuse="needs a CPU with AVX512-BF16 or AMX")
flag = os.path.join(OUT, "bf16_unsupported.txt")
if why:
    with open(flag, "w") as f:
        f.write(why)
    print("atc test models: this CPU has no bf16: bfnet_bf16.om not built")
elif os.path.exists(flag):
    os.unlink(flag)
print("atc test models: ok ->", OUT)
