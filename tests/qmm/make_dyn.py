#!/usr/bin/python3
"""Writes ONNX Runtime's dynamic int8 form of a float model (the test
fixture of the matmul int8 path): each MatMul with a constant 2-D float
weight becomes
  DynamicQuantizeLinear(x) -> (x_u8, x_scale, x_zp)
  MatMulInteger(x_u8, W_s8, x_zp) -> Cast(float) -> Mul(by Mul(x_scale, w_scale))
with W symmetric int8, per column (or per tensor with --per-tensor), as the
QDQ contract's --dynamic form says. One DynamicQuantizeLinear per activation
tensor, shared by the products that read it (as ORT's quantiser does).
Usage: make_dyn.py IN.onnx OUT.onnx [--per-tensor]"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def quant_weight(w, per_tensor):
    amax = np.abs(w).max() if per_tensor else np.abs(w).max(axis=0)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q, np.atleast_1d(scale).astype(np.float32)


def convert(model, per_tensor=False):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    nodes, new_inits, dql = [], [], {}
    for n in g.node:
        w = inits.get(n.input[1]) if n.op_type == "MatMul" and len(n.input) == 2 else None
        if w is None or len(w.dims) != 2 or w.data_type != TensorProto.FLOAT:
            nodes.append(n)
            continue
        x, y, base = n.input[0], n.output[0], n.output[0] + "_dq"
        if x not in dql:
            dql[x] = (x + "_u8", x + "_scale", x + "_zp")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(dql[x]),
                                          name=x + "_DynamicQuantizeLinear"))
        xq, xs, xz = dql[x]
        q, s = quant_weight(numpy_helper.to_array(w), per_tensor)
        new_inits += [numpy_helper.from_array(q, base + "_W"), numpy_helper.from_array(s, base + "_ws")]
        nodes += [
            helper.make_node("MatMulInteger", [xq, base + "_W", xz], [base + "_i32"], name=base + "_MatMulInteger"),
            helper.make_node("Cast", [base + "_i32"], [base + "_f"], to=TensorProto.FLOAT, name=base + "_Cast"),
            helper.make_node("Mul", [xs, base + "_ws"], [base + "_s"], name=base + "_ScaleMul"),
            helper.make_node("Mul", [base + "_f", base + "_s"], [y], name=base + "_Mul"),
        ]
    used = {i for nd in nodes for i in nd.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(keep + new_inits)
    return model


if __name__ == "__main__":
    m = convert(onnx.load(sys.argv[1]), "--per-tensor" in sys.argv)
    onnx.checker.check_model(m)
    onnx.save(m, sys.argv[2])
