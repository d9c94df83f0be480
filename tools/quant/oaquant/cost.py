"""What a layer kept in float costs, for --fallback-rank cost and
--max-float-cost: the multiply-accumulates of each node from the float
model's inferred shapes (a dimension without a value, such as a symbolic
batch, counts as 1). A Conv does N*Cout*OH*OW * Cin/group * KH*KW, a MatMul
or Gemm its output elements times the inner dimension, any other node one
per output element (what an elementwise op or a pool touches).

A layer in float between int8 ones also adds a DequantizeLinear on its
input and a QuantizeLinear on its output, which the int8 layer had folded
in; float_cost counts each element converted as CONVERT_MACS
multiply-accumulates (FloatCost; only where a tensor crosses between
float and int8). The figure is measured (openacl's per-node profile of
MobileNetV2, 1 thread): a standalone QuantizeLinear of the 401k-element
output of the first depthwise convolution took 0.109 ms, while that
convolution itself (3.6M MACs) took 0.148 ms in float against 0.113 ms in
int8, and the first convolution (10.8M MACs) 0.249 against 0.154 ms: about
0.27 ns per element converted against 0.009-0.010 ns per MAC moved to
float, a ratio of about 30."""
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


CONVERT_MACS = 30
HEAVY = ("Conv", "ConvTranspose", "MatMul", "Gemm")


def _elems(shape):
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


class FloatCost:
    """The cost, in MAC units, of keeping a set of the quantised layers in
    float: their MACs plus CONVERT_MACS per element of each activation that
    crosses between a float layer and an int8 one. A tensor between two
    float layers is converted nowhere, and neither is a graph input read by
    a float layer, so the cost of a set is not the sum of its layers' (the
    first convolution and the depthwise one after it cost less together).
    Nodes that are not layers (activations, Sigmoid/Mul chains, shape ops)
    are looked through to the layers on either side."""

    def __init__(self, model, layers):
        self.sh = shapes(model)
        self.layers = set(layers)
        self.node = {}
        self.producer, self.consumers = {}, {}
        self.macs, self.total = {}, 0
        for i, n in enumerate(model.graph.node):
            label = qdq.node_label(n, i)
            self.node[label] = n
            for t in n.output:
                self.producer[t] = label
            for t in n.input:
                self.consumers.setdefault(t, []).append(label)
            m = node_macs(n, self.sh)
            if m is not None:
                self.macs[label] = m
                self.total += m
        self.inits = {t.name for t in model.graph.initializer}
        self.outputs = {o.name for o in model.graph.output}
        self._ends = {}

    def _near(self, t, back):
        """The layers reached from tensor t through non-layer nodes,
        backwards (producers) or forwards (consumers)."""
        key = (t, back)
        if key not in self._ends:
            found, seen, todo = set(), set(), [t]
            while todo:
                x = todo.pop()
                if x in seen or x in self.inits:
                    continue
                seen.add(x)
                nodes = [self.producer[x]] if back and x in self.producer else (
                    [] if back else self.consumers.get(x, []))
                for label in nodes:
                    if label in self.layers:
                        found.add(label)
                    else:
                        todo.extend(self.node[label].input if back else self.node[label].output)
            self._ends[key] = found
        return self._ends[key]

    def __call__(self, labels):
        s = set(labels)
        cost = 0
        for label in s:
            n = self.node.get(label)
            if n is None:
                continue
            cost += self.macs.get(label, 0)
            ins = n.input[:1] if n.op_type in HEAVY else [t for t in n.input if t and t not in self.inits]
            for t in ins:
                if t in self.sh and self._near(t, True) - s:
                    cost += CONVERT_MACS * _elems(self.sh[t])
            for t in n.output[:1]:
                if t in self.sh and self._near(t, False) - s:
                    cost += CONVERT_MACS * _elems(self.sh[t])
        return cost


def layer_costs(model):
    """node label -> multiply-accumulates (nodes of unknown shape left
    out), and the model's total over the nodes it knows."""
    sh = shapes(model)
    costs, total = {}, 0
    for i, n in enumerate(model.graph.node):
        m = node_macs(n, sh)
        if m is not None:
            costs[qdq.node_label(n, i)] = m
            total += m
    return costs, total
