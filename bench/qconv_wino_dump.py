#!/usr/bin/env python3
"""The real data of a QDQ model's 3x3 stride-1 `DQ -> Conv -> Relu -> Q`
layers, for bench/qconv_wino (QWINO_DATA):

    bench/qconv_wino_dump.py MODEL INPUT.npy OUTDIR

exposes each such layer's quantised input as a model output, runs the model
once under ONNX Runtime (tools/ortref), and writes per layer OUTDIR/lNN.x
(u8 source, NHWC), .w (s8 weights, OIHW), .b (s32 bias), .sc (f32 output
scale per channel, x_scale * w_scale / y_scale), printing the qconv_wino
arguments (C M H W) and the source's statistics. Layers whose input or
output zero point is not 0 are left out (oneDNN's int8 Winograd primitive
takes none)."""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx import numpy_helper as nh

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def layers_of(g):
    init = {i.name: nh.to_array(i) for i in g.initializer}
    prod = {o: n for n in g.node for o in n.output}
    cons = {}
    for n in g.node:
        for i in n.input:
            cons.setdefault(i, []).append(n)

    def const(name):
        if name in init:
            return init[name]
        p = prod.get(name)
        if p is not None and p.op_type == "Constant":
            return nh.to_array(p.attribute[0].t)
        return None

    out = []
    for n in g.node:
        if n.op_type != "Conv" or len(n.input) < 3:
            continue
        a = {x.name: x for x in n.attribute}
        dw, dx, db = prod.get(n.input[1]), prod.get(n.input[0]), prod.get(n.input[2])
        if not all(d is not None and d.op_type == "DequantizeLinear" for d in (dw, dx, db)):
            continue
        w = const(dw.input[0])
        if w is None or w.ndim != 4 or w.shape[2:] != (3, 3):
            continue
        if list(a["strides"].ints) != [1, 1] or (a["group"].i if "group" in a else 1) != 1:
            continue
        nxt = cons.get(n.output[0], [])
        if len(nxt) != 1 or nxt[0].op_type != "Relu" or len(cons.get(nxt[0].output[0], [])) != 1:
            continue
        q = cons[nxt[0].output[0]][0]
        if q.op_type != "QuantizeLinear":
            continue
        xz, yz = const(dx.input[2]), const(q.input[2])
        if xz is None or yz is None or int(xz) != 0 or int(yz) != 0:
            continue
        ws = np.broadcast_to(const(dw.input[1]).astype(np.float64), (w.shape[0],))
        out.append(dict(name=n.name, x=dx.input[0], w=w, b=const(db.input[0]),
                        sc=float(const(dx.input[1])) * ws / float(const(q.input[1]))))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    model, inp, outdir = sys.argv[1:]
    m = onnx.load(model)
    layers = layers_of(m.graph)
    for L in layers:
        m.graph.output.append(helper.make_tensor_value_info(L["x"], TensorProto.UINT8, None))
    os.makedirs(outdir, exist_ok=True)
    exposed = os.path.join(outdir, "exposed.onnx")
    onnx.save(m, exposed)
    ort = os.path.join(outdir, "ort")
    subprocess.check_call(["node", os.path.join(REPO, "tools", "ortref", "ortref.js"), "--model", exposed,
                           "--inputs", inp, "--outdir", ort], stdout=subprocess.DEVNULL)
    files = {o["name"]: o["file"] for o in json.load(open(os.path.join(ort, "outputs.json")))["outputs"]}
    for k, L in enumerate(layers):
        x = np.load(os.path.join(ort, files[L["x"]]))
        _, C, H, W = x.shape
        p = os.path.join(outdir, "l%02d" % k)
        np.ascontiguousarray(x.transpose(0, 2, 3, 1)).astype(np.uint8).tofile(p + ".x")
        L["w"].astype(np.int8).tofile(p + ".w")
        L["b"].astype(np.int32).tofile(p + ".b")
        L["sc"].astype(np.float32).tofile(p + ".sc")
        nz = x[x > 0]
        print("%s %d %d %d %d  # %s: source nonzero %.2f, median %d, p99 %d, max %d" % (
            p, C, L["w"].shape[0], H, W, L["name"], (x > 0).mean(), np.median(nz), np.percentile(nz, 99), x.max()))


if __name__ == "__main__":
    main()
