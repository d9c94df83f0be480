#!/usr/bin/python3
"""The int8 matrix-product path (graph/qmatmul.c, openacl.DynQMatMul) against
ONNX Runtime on the same files, through the public API (mdl_run):

  graphs   hand-built ONNX Runtime dynamic int8 chains (DynamicQuantizeLinear ->
           MatMulInteger -> Cast -> Mul(x_scale * w_scale) [-> Add bias]
           [-> Relu / exact GELU] [-> residual Add]): M = 1, K not a multiple
           of 4, 3-D and 4-D activations, per-column and per-tensor w_scale,
           negative and all-positive activations (nonzero zero points). Each
           runs with the fast kernel, the reference (OPENACL_FORCE_REF=1) and
           the pass off (OPENACL_NO_QMATMUL=1); float outputs within one
           quantisation step (x_scale * max w_scale) of ORT's.
  bert4    the BERT-4 encoder in the dynamic form (make_dyn.py): hidden states
           cosine >= 0.99 to ORT's float32 model and >= 0.999 to ORT on the same
           dynamic file; the products must run as DynQMatMul [dnnl].

Exit 0 pass, 1 fail, 77 skipped (ORT through node or the model set absent).
  qdq      QDQ models as ORT's quantiser writes them (x -> Q -> DQ -> MatMul or
           Gemm over DQ(W_s8) [+ bias, float or int32 through DQ] [-> Relu] ->
           Q -> DQ): per-column and per-tensor weights, Gemm with transB 0/1;
           outputs within one output quantisation step of ORT's; the products
           must run as openacl.QMatMul [dnnl].

  qop      MatMulInteger and QLinearMatMul (uint8 A with a zero point, int8 B,
           constant or not): integer outputs equal to ORT's, on the dnnl kernels;
           per-tensor QuantizeLinear/DequantizeLinear (AVX-512): equal to ORT's
           and, on NaN and infinities, to the reference kernels; com.microsoft
           QGemm (reference: ORT's outputs; as openacl.QMatMul: within one step),
           com.microsoft DynamicQuantizeMatMul (reference and as DynQMatMul);
           malformed int8 product nodes refused at load with the node named.

Usage: check_qmm.py --mdl-run BIN [--models DIR] [--only graphs|qdq|qop|bert4]"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")
sys.path.insert(0, HERE)
import make_dyn  # noqa: E402

SKIP = 77


def run_ort(model, inputs, outdir):
    os.makedirs(outdir, exist_ok=True)
    p = subprocess.run(["node", ORTREF, "--model", model, "--inputs", ",".join(inputs), "--outdir", outdir],
                       capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"ortref failed on {model}: {p.stderr.strip()}")
    return outs(outdir)


def outs(d):
    r, i = [], 0
    while os.path.exists(os.path.join(d, f"output_{i}.npy")):
        r.append(np.load(os.path.join(d, f"output_{i}.npy")))
        i += 1
    return r


def run_acl(mdl_run, model, inputs, outdir, env=None, dump=False):
    os.makedirs(outdir, exist_ok=True)
    e = dict(os.environ, OPENACL_THREADS="1", **(env or {}))
    if dump:
        e["OPENACL_DUMP_GRAPH"] = "1"
    p = subprocess.run([mdl_run, "--model", model, "--inputs", ",".join(inputs), "--outdir", outdir],
                       capture_output=True, text=True, env=e)
    if p.returncode:
        raise RuntimeError(f"mdl_run failed on {model} ({env}): {p.stdout}{p.stderr}")
    return outs(outdir), p.stdout + p.stderr


def dyn_graph(rng, xshape, N, per_col, bias, act, residual):
    """A float MatMul (+ bias, activation, residual) in ORT's dynamic int8
    form, written by make_dyn.convert from the float graph."""
    K = xshape[-1]
    yshape = list(xshape[:-1]) + [N]
    w = rng.standard_normal((K, N)).astype(np.float32) * 0.2
    nodes = [helper.make_node("MatMul", ["x", "W"], ["mm"])]
    inits = [numpy_helper.from_array(w, "W")]
    t = "mm"
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(N).astype(np.float32), "B"))
        nodes.append(helper.make_node("Add", ["B", t], ["biased"]))
        t = "biased"
    if act == "relu":
        nodes.append(helper.make_node("Relu", [t], ["act"]))
        t = "act"
    elif act == "gelu":
        inits += [numpy_helper.from_array(np.array(np.sqrt(2.0), np.float32), "r2"),
                  numpy_helper.from_array(np.array(1.0, np.float32), "one"),
                  numpy_helper.from_array(np.array(0.5, np.float32), "half")]
        nodes += [helper.make_node("Div", [t, "r2"], ["g0"]), helper.make_node("Erf", ["g0"], ["g1"]),
                  helper.make_node("Add", ["g1", "one"], ["g2"]), helper.make_node("Mul", [t, "g2"], ["g3"]),
                  helper.make_node("Mul", ["g3", "half"], ["act"])]
        t = "act"
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(xshape))]
    if residual:
        ins.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, yshape))
        nodes.append(helper.make_node("Add", [t, "r"], ["res"]))
        t = "res"
    nodes.append(helper.make_node("Identity", [t], ["y"]))
    g = helper.make_graph(nodes, "dynq", ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    m = make_dyn.convert(m, per_tensor=not per_col)
    onnx.checker.check_model(m)
    return m, w


CASES = [
    # xshape, N, per_col, bias, act, residual, x offset (all-positive x: zp 0)
    ((1, 64), 32, True, False, None, False, 0.0),
    ((7, 13), 5, True, True, None, False, 0.0),
    ((2, 9, 30), 17, True, True, "relu", False, 0.0),
    ((2, 3, 5, 20), 24, False, True, None, False, 0.0),
    ((1, 128, 256), 256, True, True, None, True, 0.0),
    ((1, 16, 96), 384, True, True, "gelu", False, 0.0),
    ((4, 33), 63, False, False, "relu", False, 3.0),
    ((5, 64), 16, True, True, None, False, -1.5),
]


def quant_step(x, w, per_col):
    lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
    xs = (hi - lo) / 255.0
    ws = np.abs(w).max(axis=0 if per_col else None) / 127.0
    return xs * float(np.max(ws))


def check_graphs(a, tmp):
    rng = np.random.default_rng(7)
    fails = 0
    for ci, (xs, N, per_col, bias, act, res, off) in enumerate(CASES):
        m, w = dyn_graph(rng, xs, N, per_col, bias, act, res)
        d = os.path.join(tmp, f"g{ci}")
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "m.onnx")
        onnx.save(m, mp)
        x = (rng.standard_normal(xs) + off).astype(np.float32)
        inputs = [os.path.join(d, "x.npy")]
        np.save(inputs[0], x)
        if res:
            inputs.append(os.path.join(d, "r.npy"))
            np.save(inputs[1], rng.standard_normal(list(xs[:-1]) + [N]).astype(np.float32))
        ref = run_ort(mp, inputs, os.path.join(d, "ort"))[0]
        step = quant_step(x, w, per_col)
        for tag, env in (("dnnl", {}), ("ref", {"OPENACL_FORCE_REF": "1"}),
                         ("unfused", {"OPENACL_NO_QMATMUL": "1"})):
            got, log = run_acl(a.mdl_run, mp, inputs, os.path.join(d, tag), env, dump=True)
            got = got[0]
            want_impl = {"dnnl": "DynQMatMul", "ref": "DynQMatMul", "unfused": "MatMulInteger"}[tag]
            err = float(np.abs(got.astype(np.float64) - ref).max()) if got.shape == ref.shape else float("inf")
            tol = step + 1e-5 * float(np.abs(ref).max())
            ok = err <= tol and want_impl in log
            if tag == "dnnl":
                ok = ok and "DynQMatMul" in log and "[dnnl]" in log.split("DynQMatMul", 1)[1][:200]
            print(f"{'ok  ' if ok else 'FAIL'} case {ci} x{list(xs)} N={N} per_col={per_col} bias={bias} "
                  f"act={act} res={res} [{tag}]: max|diff| {err:.3g} (one step {step:.3g})")
            fails += not ok
    return fails


def check_zero_scales(a, tmp):
    """Columns whose run scale x_scale * w_scale is zero or subnormal: dead
    columns (all-zero weights) with the subnormal w_scale a calibrator
    leaves, and an all-zero activation (x_scale 0: every column). The fast
    kernel gives oneDNN scale 0 there and writes bias - s * zp * colsum(W)
    through the post-ops itself (kernels/dnnl/dn_qmatmul.c); against ORT as
    check_graphs does, with bias, GELU and a residual add."""
    rng = np.random.default_rng(11)
    fails = 0
    dead = [0, 7, 23]
    for ci, zero_x in enumerate((False, True)):
        xs, N = (3, 40), 24
        m, w = dyn_graph(rng, xs, N, True, True, "gelu", True)
        for t in m.graph.initializer:
            if t.name.endswith("_W"):
                q = numpy_helper.to_array(t).copy()
                q[:, dead] = 0
                t.CopyFrom(numpy_helper.from_array(q, t.name))
            elif t.name.endswith("_ws"):
                sc = numpy_helper.to_array(t).copy()
                sc[dead] = np.float32(6.589e-42)
                t.CopyFrom(numpy_helper.from_array(sc, t.name))
        w[:, dead] = 0
        d = os.path.join(tmp, f"z{ci}")
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "m.onnx")
        onnx.save(m, mp)
        x = np.zeros(xs, np.float32) if zero_x else rng.standard_normal(xs).astype(np.float32)
        inputs = [os.path.join(d, "x.npy"), os.path.join(d, "r.npy")]
        np.save(inputs[0], x)
        np.save(inputs[1], rng.standard_normal((3, N)).astype(np.float32))
        ref = run_ort(mp, inputs, os.path.join(d, "ort"))[0]
        step = quant_step(x, w, True)
        for tag, env in (("dnnl", {}), ("ref", {"OPENACL_FORCE_REF": "1"})):
            got, log = run_acl(a.mdl_run, mp, inputs, os.path.join(d, tag), env, dump=True)
            got = got[0]
            err = float(np.abs(got.astype(np.float64) - ref).max()) if got.shape == ref.shape else float("inf")
            tol = step + 1e-5 * float(np.abs(ref).max())
            ok = err <= tol and "DynQMatMul" in log
            if tag == "dnnl":
                ok = ok and "[dnnl]" in log.split("DynQMatMul", 1)[1][:200]
            print(f"{'ok  ' if ok else 'FAIL'} zero-scale case {ci} dead columns {dead} zero x={zero_x} "
                  f"[{tag}]: max|diff| {err:.3g} (one step {step:.3g})")
            fails += not ok
    return fails


def qparams(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    s = (hi - lo) / 255.0 or 1.0
    return np.float32(s), np.uint8(np.clip(np.rint(-lo / s), 0, 255))


def qdq_graph(rng, xshape, N, per_col, kind, bias, act):
    """A QDQ model as ORT's quantiser writes it (docs: the QDQ contract):
    x -> Q -> DQ -> MatMul/Gemm(DQ(W_s8)) [+ bias] [-> Relu] -> Q -> DQ -> y."""
    K = xshape[-1]
    w = (rng.standard_normal((K, N)) * 0.3).astype(np.float32)
    amax = np.abs(w).max(axis=0) if per_col else np.abs(w).max()
    ws = np.atleast_1d(amax / 127.0).astype(np.float32)
    wq = np.clip(np.rint(w / ws), -127, 127).astype(np.int8)
    x = rng.standard_normal(xshape).astype(np.float32)
    xs, xz = qparams(float(x.min()), float(x.max()))
    xd = (np.clip(np.rint(x / xs) + xz, 0, 255) - xz) * xs
    b = rng.standard_normal(N).astype(np.float32) if bias else np.zeros(N, np.float32)
    mm = xd @ (wq * ws)
    ms, mz = qparams(float(mm.min()), float(mm.max()))
    if kind == "matmulq":   # ORT's quantiser: the product's output quantised before the bias
        mm = (np.clip(np.rint(mm / ms) + mz, 0, 255) - mz) * ms
    y = mm + b
    if act == "gelu":
        y = 0.5 * y * (1 + np.vectorize(math.erf)(y / math.sqrt(2)))
    elif act:
        y = np.maximum(y, 0)
    ys, yz = qparams(float(y.min()), float(y.max()))
    def sc(v):
        return np.array(v, np.float32)
    inits = [numpy_helper.from_array(sc(xs), "xs"), numpy_helper.from_array(np.array(xz, np.uint8), "xz"),
             numpy_helper.from_array(sc(ys), "ys"), numpy_helper.from_array(np.array(yz, np.uint8), "yz"),
             numpy_helper.from_array(ws if per_col else sc(ws[0]), "ws")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"])]
    tb = kind == "gemmT"
    inits.append(numpy_helper.from_array(wq.T.copy() if tb else wq, "wq"))
    nodes.append(helper.make_node("DequantizeLinear", ["wq", "ws"], ["wd"], axis=0 if tb else 1))
    if kind == "matmulq":
        inits += [numpy_helper.from_array(sc(ms), "ms"), numpy_helper.from_array(np.array(mz, np.uint8), "mz"),
                  numpy_helper.from_array(b, "B")]
        nodes += [helper.make_node("MatMul", ["xd", "wd"], ["mm"]),
                  helper.make_node("QuantizeLinear", ["mm", "ms", "mz"], ["mq"]),
                  helper.make_node("DequantizeLinear", ["mq", "ms", "mz"], ["md"]),
                  helper.make_node("Add", ["B", "md"], ["mb"])]
        t = "mb"
    elif kind == "matmul":
        nodes.append(helper.make_node("MatMul", ["xd", "wd"], ["mm"]))
        t = "mm"
        if bias:
            inits.append(numpy_helper.from_array(b, "B"))
            nodes.append(helper.make_node("Add", ["mm", "B"], ["mb"]))
            t = "mb"
    else:
        cin = []
        if bias and kind == "gemmF":   # a float C, as a hand-written QDQ model may have
            inits.append(numpy_helper.from_array(b, "bf"))
            cin = ["bf"]
        elif bias:
            bq = np.rint(b / (xs * ws)).astype(np.int32)
            inits += [numpy_helper.from_array(bq, "bq"), numpy_helper.from_array((xs * ws).astype(np.float32), "bs")]
            nodes.append(helper.make_node("DequantizeLinear", ["bq", "bs"], ["bd"], axis=0))
            cin = ["bd"]
        nodes.append(helper.make_node("Gemm", ["xd", "wd"] + cin, ["mm"], transB=int(tb)))
        t = "mm"
    if act == "gelu":   # as torch exports it
        inits += [numpy_helper.from_array(sc(math.sqrt(2)), "g_c"), numpy_helper.from_array(sc(1.0), "g_one"),
                  numpy_helper.from_array(sc(0.5), "g_half")]
        nodes += [helper.make_node("Div", [t, "g_c"], ["g_d"]), helper.make_node("Erf", ["g_d"], ["g_e"]),
                  helper.make_node("Add", ["g_e", "g_one"], ["g_a"]), helper.make_node("Mul", [t, "g_a"], ["g_m"]),
                  helper.make_node("Mul", ["g_m", "g_half"], ["act"])]
        t = "act"
    elif act:
        nodes.append(helper.make_node("Relu", [t], ["act"]))
        t = "act"
    nodes += [helper.make_node("QuantizeLinear", [t, "ys", "yz"], ["yq"]),
              helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    yshape = list(xshape[:-1]) + [N]
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(xshape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m, x, float(ys)


QDQ_CASES = [
    # xshape, N, per_col, kind, bias, relu
    ((1, 64), 32, True, "matmul", False, False),
    ((7, 13), 5, True, "matmul", True, True),
    ((2, 9, 30), 17, False, "matmul", True, False),
    ((2, 3, 5, 20), 24, True, "matmul", False, True),
    ((16, 96), 40, True, "gemmT", True, True),
    ((3, 33), 64, False, "gemm", True, False),
    ((1, 256), 1000, True, "gemmT", True, False),
    ((5, 48), 20, True, "gemmF", True, True),
    # ORT's quantiser's form: bias (and GELU) between two quantised tensors (openacl.QBias)
    ((2, 9, 64), 40, True, "matmulq", True, False),
    ((1, 16, 48), 70, True, "matmulq", True, "gelu"),
    ((3, 32), 16, False, "matmulq", True, "gelu"),
]


def check_qdq(a, tmp):
    rng = np.random.default_rng(11)
    fails = 0
    for ci, (xs, N, per_col, kind, bias, act) in enumerate(QDQ_CASES):
        m, x, ystep = qdq_graph(rng, xs, N, per_col, kind, bias, act)
        d = os.path.join(tmp, f"q{ci}")
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "m.onnx")
        onnx.save(m, mp)
        inputs = [os.path.join(d, "x.npy")]
        np.save(inputs[0], x)
        ref = run_ort(mp, inputs, os.path.join(d, "ort"))[0]
        for tag, env in (("dnnl", {}), ("ref", {"OPENACL_FORCE_REF": "1"}),
                         ("unfused", {"OPENACL_NO_QMATMUL": "1"})):
            got, log = run_acl(a.mdl_run, mp, inputs, os.path.join(d, tag), env, dump=True)
            got = got[0]
            err = float(np.abs(got.astype(np.float64) - ref).max()) if got.shape == ref.shape else float("inf")
            ok = err <= ystep * 1.001
            if tag != "unfused":
                ok = ok and "QMatMul" in log and (tag == "ref" or "[dnnl]" in log.split("QMatMul", 1)[1][:200])
                # the output's QuantizeLinear folded in: only the input's is left
                ok = ok and sum(1 for ln in log.splitlines() if " QuantizeLinear " in ln) == 1
                if kind == "matmulq":
                    ok = ok and "QBias" in log and " Erf " not in log and " Add " not in log
            print(f"{'ok  ' if ok else 'FAIL'} qdq case {ci} x{list(xs)} N={N} per_col={per_col} {kind} "
                  f"bias={bias} relu={act} [{tag}]: max|diff| {err:.3g} (one step {ystep:.3g})")
            fails += not ok
    return fails


QOP_CASES = [
    # op, A shape, N, B constant, per-column b scale
    ("MatMulInteger", (1, 64), 32, True, False),
    ("MatMulInteger", (7, 13), 5, False, False),
    ("MatMulInteger", (2, 9, 30), 17, True, False),
    ("QLinearMatMul", (2, 3, 5, 20), 24, True, True),
    ("QLinearMatMul", (16, 96), 40, False, False),
    ("QLinearMatMul", (1, 255), 33, True, True),
]


def qop_graph(rng, op, ashape, N, b_const, per_col):
    K = ashape[-1]
    a = rng.integers(0, 256, ashape).astype(np.uint8)
    b = rng.integers(-127, 128, (K, N)).astype(np.int8)
    azp = np.array(rng.integers(0, 256), np.uint8)
    ins = [helper.make_tensor_value_info("a", TensorProto.UINT8, list(ashape))]
    feeds = {"a": a}
    inits = [numpy_helper.from_array(azp, "azp")]
    if b_const:
        inits.append(numpy_helper.from_array(b, "b"))
    else:
        ins.append(helper.make_tensor_value_info("b", TensorProto.INT8, [K, N]))
        feeds["b"] = b
    yshape = list(ashape[:-1]) + [N]
    if op == "MatMulInteger":
        node = helper.make_node(op, ["a", "b", "azp"], ["y"])
        out = helper.make_tensor_value_info("y", TensorProto.INT32, yshape)
    else:
        bs = (rng.random(N if per_col else 1) * 0.01 + 0.001).astype(np.float32)
        inits += [numpy_helper.from_array(np.array(0.02, np.float32), "as"),
                  numpy_helper.from_array(bs if per_col else np.array(bs[0], np.float32), "bs"),
                  numpy_helper.from_array(np.zeros(N if per_col else (), np.int8), "bzp"),
                  numpy_helper.from_array(np.array(float(K) * 0.02, np.float32), "ys"),
                  numpy_helper.from_array(np.array(128, np.uint8), "yzp")]
        node = helper.make_node(op, ["a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"], ["y"])
        out = helper.make_tensor_value_info("y", TensorProto.UINT8, yshape)
    g = helper.make_graph([node], "qop", ins, [out], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m, feeds


def check_qop(a, tmp):
    """QOperator products: integer outputs equal to ORT's, on the dnnl kernels."""
    rng = np.random.default_rng(5)
    fails = 0
    for ci, (op, ashape, N, b_const, per_col) in enumerate(QOP_CASES):
        m, feeds = qop_graph(rng, op, ashape, N, b_const, per_col)
        d = os.path.join(tmp, f"o{ci}")
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "m.onnx")
        onnx.save(m, mp)
        inputs = []
        for k, v in feeds.items():
            inputs.append(os.path.join(d, k + ".npy"))
            np.save(inputs[-1], v)
        ref = run_ort(mp, inputs, os.path.join(d, "ort"))[0]
        got, log = run_acl(a.mdl_run, mp, inputs, os.path.join(d, "acl"), dump=True)
        got = got[0]
        same = got.dtype == ref.dtype and got.shape == ref.shape and np.array_equal(got, ref)
        ok = same and "[dnnl]" in log.split(op, 1)[-1][:300]
        nd = int((got != ref).sum()) if got.shape == ref.shape else -1
        print(f"{'ok  ' if ok else 'FAIL'} {op} a{list(ashape)} N={N} b_const={b_const} per_col={per_col}: "
              f"{'exact' if same else f'{nd} values differ'}")
        fails += not ok
    return fails


QGEMM_CASES = [
    # M, K, N, transB, per-column b scale, C, quantised output, alpha
    (16, 96, 40, 1, True, True, True, 1.0),
    (1, 64, 33, 0, False, True, False, 1.0),
    (7, 13, 5, 1, True, False, True, 0.5),
    (3, 256, 1000, 1, True, True, False, 1.0),
]


def qgemm_graph(rng, M, K, N, tb, per_col, with_c, quant, alpha):
    a = rng.integers(0, 256, (M, K)).astype(np.uint8)
    b = rng.integers(-127, 128, (N, K) if tb else (K, N)).astype(np.int8)
    bs = (rng.random(N if per_col else 1) * 0.01 + 0.002).astype(np.float32)
    inits = [numpy_helper.from_array(np.array(0.03, np.float32), "as"),
             numpy_helper.from_array(np.array(rng.integers(0, 256), np.uint8), "azp"),
             numpy_helper.from_array(b, "b"),
             numpy_helper.from_array(bs if per_col else np.array(bs[0], np.float32), "bs"),
             numpy_helper.from_array(np.zeros(N if per_col else (), np.int8), "bzp")]
    names = ["a", "as", "azp", "b", "bs", "bzp"]
    if with_c or quant:
        names.append("c" if with_c else "")
    if with_c:
        inits.append(numpy_helper.from_array(rng.integers(-20000, 20000, N).astype(np.int32), "c"))
    if quant:
        inits += [numpy_helper.from_array(np.array(0.03 * float(bs.mean()) * np.sqrt(K) * 60, np.float32), "ys"),
                  numpy_helper.from_array(np.array(120, np.uint8), "yzp")]
        names += ["ys", "yzp"]
    node = helper.make_node("QGemm", names, ["y"], domain="com.microsoft", transB=tb, alpha=alpha)
    out = helper.make_tensor_value_info("y", TensorProto.UINT8 if quant else TensorProto.FLOAT, [M, N])
    g = helper.make_graph([node], "qgemm", [helper.make_tensor_value_info("a", TensorProto.UINT8, [M, K])],
                          [out], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 7
    return m, a


def check_qgemm(a, tmp):
    """com.microsoft QGemm: the reference and the QMatMul rewrite against ORT
    (float outputs within 1e-5 relative, quantised ones within one step)."""
    rng = np.random.default_rng(9)
    fails = 0
    for ci, (M, K, N, tb, per_col, with_c, quant, alpha) in enumerate(QGEMM_CASES):
        m, av = qgemm_graph(rng, M, K, N, tb, per_col, with_c, quant, alpha)
        d = os.path.join(tmp, f"qg{ci}")
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "m.onnx")
        onnx.save(m, mp)
        xs = os.path.join(d, "a.npy")
        np.save(xs, av)
        ref = run_ort(mp, [xs], os.path.join(d, "ort"))[0]
        for tag, env in (("fast", {}), ("ref", {"OPENACL_FORCE_REF": "1"})):
            got, log = run_acl(a.mdl_run, mp, [xs], os.path.join(d, tag), env, dump=True)
            got = got[0]
            if got.dtype != ref.dtype or got.shape != ref.shape:
                err, tol = float("inf"), 0
            elif quant:
                err, tol = float(np.abs(got.astype(np.int32) - ref).max()), (0 if tag == "ref" else 1)
            else:
                err, tol = float(np.abs(got - ref).max()), 1e-5 * float(np.abs(ref).max())
            ok = err <= tol and (tag == "ref" or "QMatMul" in log)
            print(f"{'ok  ' if ok else 'FAIL'} QGemm M={M} K={K} N={N} transB={tb} per_col={per_col} C={with_c} "
                  f"quant={quant} alpha={alpha} [{tag}]: max|diff| {err:.3g} (allowed {tol:.3g})")
            fails += not ok
    return fails


def check_dqmm(a, tmp):
    """com.microsoft DynamicQuantizeMatMul (ORT's fused dynamic product): the
    reference and the DynQMatMul rewrite against ORT, within one step."""
    rng = np.random.default_rng(17)
    fails = 0
    for ci, (xshape, N, per_col, bias) in enumerate([((1, 64), 32, True, True), ((2, 9, 30), 17, False, False),
                                                     ((7, 13), 5, True, False)]):
        K = xshape[-1]
        w = rng.standard_normal((K, N)).astype(np.float32)
        q, ws = make_dyn.quant_weight(w, not per_col)
        inits = [numpy_helper.from_array(q, "B"),
                 numpy_helper.from_array(ws if per_col else np.array(ws[0], np.float32), "bs"),
                 numpy_helper.from_array(np.zeros(N if per_col else (), np.int8), "bz")]
        names = ["x", "B", "bs", "bz"]
        if bias:
            inits.append(numpy_helper.from_array(rng.standard_normal(N).astype(np.float32), "bias"))
            names.append("bias")
        node = helper.make_node("DynamicQuantizeMatMul", names, ["y"], domain="com.microsoft")
        g = helper.make_graph([node], "dqmm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(xshape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(xshape[:-1]) + [N])],
                              inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
        m.ir_version = 8
        d = os.path.join(tmp, f"dqmm{ci}")
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "m.onnx")
        onnx.save(m, mp)
        x = rng.standard_normal(xshape).astype(np.float32)
        xs = os.path.join(d, "x.npy")
        np.save(xs, x)
        ref = run_ort(mp, [xs], os.path.join(d, "ort"))[0]
        step = quant_step(x, q.astype(np.float32) * ws, per_col)
        for tag, env in (("fast", {}), ("ref", {"OPENACL_FORCE_REF": "1"})):
            got, log = run_acl(a.mdl_run, mp, [xs], os.path.join(d, tag), env, dump=True)
            err = float(np.abs(got[0] - ref).max()) if got[0].shape == ref.shape else float("inf")
            ok = err <= step + 1e-5 * float(np.abs(ref).max())
            if tag == "fast":
                ok = ok and "DynQMatMul" in log and "[dnnl]" in log.split("DynQMatMul", 1)[1][:200]
            print(f"{'ok  ' if ok else 'FAIL'} DynamicQuantizeMatMul x{list(xshape)} N={N} per_col={per_col} "
                  f"bias={bias} [{tag}]: max|diff| {err:.3g} (one step {step:.3g})")
            fails += not ok
    return fails


def check_qdq_ops(a, tmp):
    """Per-tensor QuantizeLinear / DequantizeLinear (kernels/x86/x86_qdq.c):
    equal to the reference kernels on ties, NaN, infinities and odd lengths,
    and to ORT on the finite values."""
    rng = np.random.default_rng(3)
    fails = 0
    for ci, (dt, scale, zp, n) in enumerate([(TensorProto.UINT8, 0.25, 128, 1001), (TensorProto.INT8, 0.1, -3, 77),
                                             (TensorProto.UINT8, 0.0173, 0, 40000), (TensorProto.INT8, 1e-3, 0, 15)]):
        npdt = np.uint8 if dt == TensorProto.UINT8 else np.int8
        x = (rng.standard_normal(n) * 60 * scale).astype(np.float32)
        x[: n // 4] = ((rng.integers(-200, 200, n // 4) + 0.5) * scale).astype(np.float32)   # ties
        inits = [numpy_helper.from_array(np.array(scale, np.float32), "s"),
                 numpy_helper.from_array(np.array(zp, npdt), "z")]
        nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                 helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
        g = helper.make_graph(nodes, "qd", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                              [helper.make_tensor_value_info("q", dt, [n]),
                               helper.make_tensor_value_info("y", TensorProto.FLOAT, [n])], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 7
        d = os.path.join(tmp, f"qd{ci}")
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "m.onnx")
        onnx.save(m, mp)
        xs = os.path.join(d, "x.npy")
        np.save(xs, x)
        ref = run_ort(mp, [xs], os.path.join(d, "ort"))
        fast, log = run_acl(a.mdl_run, mp, [xs], os.path.join(d, "fast"), dump=True)
        ok = all(np.array_equal(f, r) for f, r in zip(fast, ref)) and log.count("[avx512]") == 2
        # special values against the reference kernels
        x2 = x.copy()
        x2[1::7] = np.nan
        x2[2::11] = np.inf
        x2[3::13] = -np.inf
        np.save(xs, x2)
        f2, _ = run_acl(a.mdl_run, mp, [xs], os.path.join(d, "fast2"))
        r2, _ = run_acl(a.mdl_run, mp, [xs], os.path.join(d, "ref2"), {"OPENACL_FORCE_REF": "1"})
        ok = ok and np.array_equal(f2[0], r2[0]) and np.array_equal(f2[1], r2[1])
        print(f"{'ok  ' if ok else 'FAIL'} Quantize/DequantizeLinear {npdt.__name__} scale {scale} zp {zp} n={n}")
        fails += not ok
    return fails


def bad_models(tmp):
    """Malformed int8 products: each load must fail with a message naming the
    node (no crash, no wrong answer)."""
    K, N = 8, 4
    w = numpy_helper.from_array(np.ones((K, N), np.int8), "W")
    ws = numpy_helper.from_array(np.ones(N, np.float32), "ws")
    ws_bad = numpy_helper.from_array(np.ones(N + 1, np.float32), "ws")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, K])
    xu = helper.make_tensor_value_info("x", TensorProto.UINT8, [2, K])
    wi = helper.make_tensor_value_info("W", TensorProto.INT8, [K, N])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, N])
    cases = {
        "weight not constant": ([helper.make_node("DynQMatMul", ["x", "W", "", "", "ws"], ["y"], "bad0",
                                                  domain="openacl")], [x, wi], [ws]),
        "w_scale of N+1 values": ([helper.make_node("DynQMatMul", ["x", "W", "", "", "ws"], ["y"], "bad1",
                                                    domain="openacl")], [x], [w, ws_bad]),
        "no w_scale": ([helper.make_node("DynQMatMul", ["x", "W"], ["y"], "bad2", domain="openacl")], [x], [w]),
        "QMatMul without x_scale": ([helper.make_node("QMatMul", ["x", "W", "", "", "ws"], ["y"], "bad3",
                                                      domain="openacl")], [xu], [w, ws]),
        "QGemm with a float A": ([helper.make_node("QGemm", ["x", "ws", "zp", "W", "ws"], ["y"], "bad4",
                                                   domain="com.microsoft", transB=0)], [x],
                                 [w, ws, numpy_helper.from_array(np.array(3, np.uint8), "zp")]),
    }
    out = []
    for what, (nodes, ins, inits) in cases.items():
        g = helper.make_graph(nodes, "bad", ins, [y], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("openacl", 1),
                                                helper.make_opsetid("com.microsoft", 1)])
        m.ir_version = 8
        p = os.path.join(tmp, "bad_" + nodes[0].name + ".onnx")
        onnx.save(m, p)
        out.append((what, nodes[0].name, p, ins))
    return out


def check_bad(a, tmp):
    fails = 0
    for what, name, p, ins in bad_models(tmp):
        inputs = []
        for vi in ins:
            if vi.name == "x":
                dt = np.float32 if vi.type.tensor_type.elem_type == TensorProto.FLOAT else np.uint8
                inputs.append(os.path.join(tmp, f"{name}_x.npy"))
                np.save(inputs[-1], np.ones([d.dim_value for d in vi.type.tensor_type.shape.dim], dt))
            else:
                inputs.append(os.path.join(tmp, f"{name}_W.npy"))
                np.save(inputs[-1], np.ones((8, 4), np.int8))
        r = subprocess.run([a.mdl_run, "--model", p, "--inputs", ",".join(inputs), "--outdir",
                            os.path.join(tmp, name)], capture_output=True, text=True)
        msg = (r.stdout + r.stderr).strip().splitlines()
        ok = r.returncode not in (0, -11, -6, 134, 139) and any(name in ln for ln in msg)
        print(f"{'ok  ' if ok else 'FAIL'} refused: {what} (rc {r.returncode}): {msg[-1][:150] if msg else ''}")
        fails += not ok
    return fails


def check_dynamic_rows(a, tmp):
    """A symbolic row count (the dynamic executor): both products at 1, 5 and
    17 rows against ORT."""
    rng = np.random.default_rng(13)
    m1, _ = dyn_graph(rng, (3, 40), 24, True, True, "gelu", False)
    m2, _, ystep = qdq_graph(rng, (3, 40), 24, True, "matmul", True, True)
    fails = 0
    for name, m, tol in (("DynQMatMul", m1, 1e-4), ("QMatMul", m2, ystep * 1.001)):
        for vi in (m.graph.input[0], m.graph.output[0]):
            vi.type.tensor_type.shape.dim[0].dim_param = "rows"
        mp = os.path.join(tmp, f"rows_{name}.onnx")
        onnx.save(m, mp)
        for rows in (1, 5, 17):
            xs = os.path.join(tmp, f"rows_{name}_{rows}.npy")
            np.save(xs, rng.standard_normal((rows, 40)).astype(np.float32))
            ref = run_ort(mp, [xs], os.path.join(tmp, f"rows_{name}_{rows}_ort"))[0]
            got, log = run_acl(a.mdl_run, mp, [xs], os.path.join(tmp, f"rows_{name}_{rows}_acl"), dump=True)
            err = float(np.abs(got[0] - ref).max()) if got[0].shape == ref.shape else float("inf")
            ok = err <= tol and name in log
            print(f"{'ok  ' if ok else 'FAIL'} {name} with a symbolic row count, {rows} rows: max|diff| {err:.3g}")
            fails += not ok
    return fails


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def check_bert(a, tmp):
    model = os.path.join(a.models, "bert4.onnx")
    data = os.path.join(a.models, "data", "bert4")
    inputs = [os.path.join(data, f"input_{i}.npy") for i in range(2)]
    if not os.path.exists(model) or not all(map(os.path.exists, inputs)):
        print("skip bert4: run scripts/models.sh")
        return None
    dyn = os.path.join(tmp, "bert4_dyn.onnx")
    m = make_dyn.convert(onnx.load(model))
    onnx.save(m, dyn)
    f32 = run_ort(model, inputs, os.path.join(tmp, "b_f32"))
    ortd = run_ort(dyn, inputs, os.path.join(tmp, "b_ortd"))
    got, log = run_acl(a.mdl_run, dyn, inputs, os.path.join(tmp, "b_acl"), dump=True)
    nfast = log.count("DynQMatMul") and sum(1 for ln in log.splitlines() if "DynQMatMul" in ln and "[dnnl]" in ln)
    c32, cdyn = cosine(got[0], f32[0]), cosine(got[0], ortd[0])
    e = float(np.abs(got[0] - ortd[0]).max())
    ok = c32 >= 0.99 and cdyn >= 0.999 and nfast == 24
    print(f"{'ok  ' if ok else 'FAIL'} bert4 dynamic: cosine to ORT float32 {c32:.5f}, to ORT on the "
          f"dynamic file {cdyn:.6f} (max|diff| {e:.3g}), {nfast} of 24 products as DynQMatMul [dnnl]")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mdl-run", required=True)
    ap.add_argument("--models", default=os.path.join(REPO, "models"))
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    if subprocess.run(["node", "-e", "1"], capture_output=True).returncode or not os.path.exists(ORTREF):
        print("skip: node / ONNX Runtime not available")
        return SKIP
    if os.environ.get("OPENACL_FORCE_REF", "0") not in ("", "0"):
        print("skip: OPENACL_FORCE_REF hides the int8 fast paths these cases check")
        return SKIP
    fails, ran = 0, False
    with tempfile.TemporaryDirectory() as tmp:
        if a.only in ("", "graphs"):
            fails += check_graphs(a, tmp) + check_dynamic_rows(a, tmp) + check_zero_scales(a, tmp)
            ran = True
        if a.only in ("", "qop"):
            fails += check_qop(a, tmp) + check_qdq_ops(a, tmp) + check_qgemm(a, tmp) + check_dqmm(a, tmp)
            fails += check_bad(a, tmp)
            ran = True
        if a.only in ("", "qdq"):
            fails += check_qdq(a, tmp)
            ran = True
        if a.only in ("", "bert4"):
            r = check_bert(a, tmp)
            if r is not None:
                fails += r
                ran = True
    if not ran:
        return SKIP
    print("FAIL" if fails else "PASS", f"({fails} failures)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
