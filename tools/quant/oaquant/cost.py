"""What a layer kept in float costs, for --fallback-rank cost and
--max-float-cost: the multiply-accumulates of each node from the float
model's inferred shapes (a dimension without a value, such as a symbolic
batch, counts as 1). A Conv does N*Cout*OH*OW * Cin/group * KH*KW, a MatMul
or Gemm its output elements times the inner dimension, any other node one
per output element (what an elementwise op or a pool touches)."""
import numpy as np
import onnx

from . import qdq


def shapes(model):
    """tensor name -> shape (a list of ints, unknown dims as 1) of every
    tensor whose shape the model or ONNX's inference gives."""
    try:
        g = onnx.shape_inference.infer_shapes(model).graph
    except Exception:
        g = model.graph
    out = {}
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        tt = vi.type.tensor_type
        if tt.HasField("shape"):
            out[vi.name] = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1
                            for d in tt.shape.dim]
    for t in g.initializer:
        out[t.name] = list(t.dims)
    return out


def node_macs(n, sh):
    """Multiply-accumulates of node n given the shapes; None when its
    output shape is unknown."""
    y = sh.get(n.output[0]) if n.output else None
    if y is None:
        return None
    elems = int(np.prod(y, dtype=np.int64)) if y else 1
    if n.op_type in ("Conv", "ConvTranspose") and len(n.input) > 1 and n.input[1] in sh:
        w = sh[n.input[1]]
        if len(w) < 2:
            return elems
        group = next((a.i for a in n.attribute if a.name == "group"), 1) or 1
        k = int(np.prod(w[2:], dtype=np.int64)) if len(w) > 2 else 1
        if n.op_type == "Conv":
            return elems * w[1] * k
        x = sh.get(n.input[0])      # ConvTranspose: every input element meets Cout/group * K weights
        return int(np.prod(x, dtype=np.int64)) * w[1] * k if x else elems * k * max(1, w[0] // group)
    if n.op_type in ("MatMul", "Gemm") and n.input[0] in sh and sh[n.input[0]]:
        a = sh[n.input[0]]
        trans_a = n.op_type == "Gemm" and any(x.name == "transA" and x.i for x in n.attribute)
        inner = a[0] if trans_a and len(a) == 2 else a[-1]
        return elems * inner
    return elems


def layer_costs(model):
    """node label -> multiply-accumulates (nodes of unknown shape left
    out), and the model's total over the nodes it knows."""
    sh = shapes(model)
    costs = {}
    for i, n in enumerate(model.graph.node):
        m = node_macs(n, sh)
        if m is not None:
            costs[qdq.node_label(n, i)] = m
    return costs, sum(costs.values())
