"""The QDQ rewrite: which tensors of an fp32 ONNX graph are quantised (the
plan, taken before calibration) and the quantised model written from the
plan and the calibrated ranges, as ONNX Runtime's own quantiser does by
default (docs/quantization.md, "The QDQ format"):

- Conv/MatMul/Gemm weights: int8, symmetric, per output channel (or per
  tensor with per_tensor), each read through DequantizeLinear(axis);
- Conv/Gemm bias: int32 with scale x_scale * w_scale[c], zero point 0;
- activations: uint8, asymmetric, per tensor; each quantised tensor T gets
  one QuantizeLinear(T) -> DequantizeLinear and every consumer reads the DQ
  output; graph inputs and outputs stay float;
- an elementwise activation chain after Conv/Gemm/MatMul/Add stays float
  and the Q/DQ pair follows the chain; MaxPool (and Concat whose inputs share
  one scale) reuse the input's scale and zero point.

The dynamic rewrite (--dynamic) turns each MatMul with a constant weight into
DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul.
"""
import fnmatch

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from . import QuantError

QUANT_OPS = ("Conv", "MatMul", "Gemm", "Add", "Concat", "MaxPool", "AveragePool", "GlobalAveragePool")
CHAIN_HEADS = ("Conv", "Gemm", "MatMul", "Add")
CHAIN_OPS = ("Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish")
MIN_OPSET = 13
FLOAT_TYPES = (TensorProto.FLOAT, TensorProto.UNDEFINED)


# ---- loading and preparing the model --------------------------------------

def load_model(path):
    """Loads an fp32 ONNX model, brings it to opset >= 13 (per-axis
    DequantizeLinear), turns Constant nodes into initializers and infers
    tensor types. Raises QuantError on anything that is not a usable model."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise QuantError("cannot read the model %s: %s" % (path, e.strerror or e)) from None
    try:
        model = onnx.load_model_from_string(data)
    except Exception:
        raise QuantError("%s is not an ONNX model (the protobuf does not parse)" % path) from None
    if not model.graph.node:
        raise QuantError("%s is not an ONNX model with a graph (no nodes)" % path)
    try:
        onnx.checker.check_model(model)
    except Exception as e:
        raise QuantError("%s is not a valid ONNX model: %s" % (path, str(e).splitlines()[0])) from None
    opset = default_opset(model)
    if opset < MIN_OPSET:
        try:
            from onnx import version_converter
            model = softmax_2d(model)
            model = version_converter.convert_version(model, MIN_OPSET)
        except Exception as e:
            raise QuantError("%s has opset %d and its conversion to opset %d failed: %s"
                             % (path, opset, MIN_OPSET, str(e).splitlines()[0])) from None
    constants_to_initializers(model.graph)
    try:
        model = onnx.shape_inference.infer_shapes(model)
    except Exception:
        pass            # types only help to pick float tensors; unknown types count as float
    return model


def softmax_2d(model):
    """Before opset 13, Softmax/LogSoftmax/Hardmax flatten their input to 2-D
    at `axis`; the converter to opset 13 needs the input's rank to keep that
    meaning. Where shape inference cannot give it, the node becomes what it
    always meant: Flatten(axis) -> op(axis 1) -> Reshape(back to Shape(x))."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:
        inferred = model
    g = inferred.graph
    ranks = {}
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        tt = vi.type.tensor_type
        if tt.HasField("shape") and len(tt.shape.dim):
            ranks[vi.name] = len(tt.shape.dim)
    ops = ("Softmax", "LogSoftmax", "Hardmax")
    if all(n.op_type not in ops or n.input[0] in ranks for n in model.graph.node):
        return inferred
    nodes = []
    for n in model.graph.node:
        if n.op_type not in ops or n.input[0] in ranks:
            nodes.append(n)
            continue
        axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
        x, y = n.input[0], n.output[0]
        p = safe(n.name or y)
        nodes += [helper.make_node("Flatten", [x], [p + "_2d"], p + "_Flatten", axis=axis),
                  helper.make_node(n.op_type, [p + "_2d"], [p + "_2d_out"], n.name, axis=1),
                  helper.make_node("Shape", [x], [p + "_shape"], p + "_Shape"),
                  helper.make_node("Reshape", [p + "_2d_out", p + "_shape"], [y], p + "_Reshape")]
        model.graph.value_info.append(helper.make_tensor_value_info(p + "_2d", TensorProto.FLOAT,
                                                                    [p + "_rows", p + "_cols"]))
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model


def default_opset(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 1


def constants_to_initializers(graph):
    """Constant nodes, and Identity nodes of initializers (exporters write
    shared biases that way), become initializers, so weights and biases
    behind them are quantised like any other."""
    keep = []
    inits = {t.name: t for t in graph.initializer}
    outputs = {o.name for o in graph.output}
    for n in graph.node:
        if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value":
            t = onnx.TensorProto()
            t.CopyFrom(n.attribute[0].t)
            t.name = n.output[0]
            graph.initializer.append(t)
            inits[t.name] = t
        elif n.op_type == "Identity" and n.input[0] in inits and n.output[0] not in outputs:
            t = onnx.TensorProto()
            t.CopyFrom(inits[n.input[0]])
            t.name = n.output[0]
            graph.initializer.append(t)
            inits[t.name] = t
        else:
            keep.append(n)
    if len(keep) != len(graph.node):
        del graph.node[:]
        graph.node.extend(keep)


def real_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def tensor_types(model):
    """name -> ONNX element type for every tensor whose type is known."""
    g = model.graph
    types = {}
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        types[vi.name] = vi.type.tensor_type.elem_type
    for t in g.initializer:
        types[t.name] = t.data_type
    return types


# ---- the plan -------------------------------------------------------------

class Graph:
    """Producer/consumer indices over a GraphProto."""

    def __init__(self, model):
        g = model.graph
        self.g = g
        self.inits = {t.name: t for t in g.initializer}
        self.inputs = {i.name for i in g.input if i.name not in self.inits}
        self.outputs = {o.name for o in g.output}
        self.types = tensor_types(model)
        self.producer, self.consumers = {}, {}
        for n in g.node:
            for o in n.output:
                self.producer[o] = n
            for i, t in enumerate(n.input):
                if t:
                    self.consumers.setdefault(t, []).append((n, i))

    def const(self, t):
        return t in self.inits

    def is_float(self, t):
        return self.types.get(t, TensorProto.UNDEFINED) in FLOAT_TYPES

    def users(self, t):
        return self.consumers.get(t, [])


class Plan:
    """What the static rewrite quantises.

    acts: activation tensors to quantise, in graph order; weights: initializer
    -> axis (None: per tensor); biases: (node name, bias, x tensor, weight);
    share: output tensor -> input tensors whose scale it may reuse;
    nodes: names of the quantised nodes; chains: head node -> chain end;
    affine: tensor h -> (y, a, b) where y = a * h + b through constant
    scalar Mul/Add nodes only, both h and y quantised (aligned_params)."""

    def __init__(self):
        self.acts, self.weights, self.biases, self.share, self.nodes, self.chains = [], {}, [], {}, [], {}
        self.affine = {}

    def add_act(self, t):
        if t not in self.acts:
            self.acts.append(t)


def node_label(n, i):
    return n.name or "%s_%d" % (n.op_type, i)


def skipped(n, label, skip):
    """--skip entries are node names, op types or shell patterns of names
    (`*/fc1/Conv`)."""
    if label in skip or n.name in skip or n.op_type in skip:
        return True
    return any(fnmatch.fnmatchcase(label, p) for p in skip if any(c in p for c in "*?["))


def chain_end(gr, t):
    """Follows an elementwise activation chain from t (the output of a
    Conv/Gemm/MatMul/Add); returns the chain's last tensor."""
    while t not in gr.outputs:
        users = gr.users(t)
        if len(users) == 1 and users[0][0].op_type in CHAIN_OPS and users[0][1] == 0:
            t = users[0][0].output[0]
            continue
        nxt = swish_end(gr, t, users)
        if nxt is None:
            break
        t = nxt
    return t


def swish_end(gr, t, users):
    """x * Sigmoid(x): t read by one Sigmoid and one Mul that also reads the
    Sigmoid's output (and nothing else)."""
    if len(users) != 2:
        return None
    sig = [n for n, _ in users if n.op_type == "Sigmoid"]
    mul = [n for n, _ in users if n.op_type == "Mul"]
    if len(sig) != 1 or len(mul) != 1:
        return None
    s_out = sig[0].output[0]
    if sorted(mul[0].input) != sorted([t, s_out]) or len(gr.users(s_out)) != 1 or s_out in gr.outputs:
        return None
    return mul[0].output[0]


def weight_axis(n, w_rank, per_tensor):
    if per_tensor:
        return None
    if n.op_type == "Conv":
        return 0
    if n.op_type == "Gemm":
        trans_b = next((a.i for a in n.attribute if a.name == "transB"), 0)
        return 0 if trans_b else 1
    return w_rank - 1          # MatMul: [.., K, N], per column


def gemm_plain(n):
    alpha = next((a.f for a in n.attribute if a.name == "alpha"), 1.0)
    beta = next((a.f for a in n.attribute if a.name == "beta"), 1.0)
    trans_a = next((a.i for a in n.attribute if a.name == "transA"), 0)
    return alpha == 1.0 and beta == 1.0 and not trans_a


def plan_static(model, skip=(), per_tensor=False, not_float=(), act_tables=False):
    """Decides, from the graph alone, which tensors get Q/DQ pairs.
    not_float: tensors seen at run time to be non-float (their types were
    unknown to shape inference). act_tables: the input of a SiLU
    (x * Sigmoid(x)) that follows a layer is quantised too, so a runtime
    can run the SiLU as a 256-entry table of that byte (openacl's
    graph/qdq_table.c; ONNX Runtime's quantiser lays SiLU out so)."""
    gr = Graph(model)
    for t in not_float:
        gr.types[t] = TensorProto.INT64
    plan = Plan()
    skip = set(skip)
    for i, n in enumerate(gr.g.node):
        label = node_label(n, i)
        if n.op_type not in QUANT_OPS or skipped(n, label, skip) or len(n.output) != 1:
            continue
        acts = plan_node(gr, plan, n, label, per_tensor)
        if acts is None:
            continue
        plan.nodes.append(label)
        for t in acts:
            plan.add_act(t)
        out = n.output[0]
        if not gr.is_float(out):
            continue
        if n.op_type in CHAIN_HEADS:
            end = chain_end(gr, out)
            if end != out:
                plan.chains[label] = end
                if act_tables and swish_end(gr, out, gr.users(out)) is not None and out not in gr.outputs:
                    plan.add_act(out)
            out = end
        if out in gr.outputs:
            continue            # graph outputs stay float, unrounded (logits keep their precision)
        if n.op_type == "MaxPool":
            plan.share[out] = [n.input[0]]
        elif n.op_type == "Concat":
            plan.share[out] = list(n.input)
        plan.add_act(out)
    for t in plan.acts:
        aff = scalar_affine(gr, t)
        if aff and aff[0] in plan.acts:
            plan.affine[t] = aff
    return plan


def scalar_affine(gr, t):
    """(y, a, b) when t reaches y = a * t + b through a run of Mul/Add/Sub/Div
    nodes by one constant value each (t alone feeding each), else None."""
    a, b, y = 1.0, 0.0, t
    while y not in gr.outputs:
        users = gr.users(y)
        if len(users) != 1 or len(users[0][0].input) != 2:
            break
        n, k = users[0]
        c = gr.inits.get(n.input[1 - k])
        if c is None or c.data_type != TensorProto.FLOAT or int(np.prod(c.dims)) != 1:
            break
        v = float(numpy_helper.to_array(c).reshape(-1)[0])
        if n.op_type == "Mul":
            a, b = a * v, b * v
        elif n.op_type == "Add":
            b += v
        elif n.op_type == "Sub" and k == 0:
            b -= v
        elif n.op_type == "Div" and k == 0 and v != 0.0:
            a, b = a / v, b / v
        else:
            break
        y = n.output[0]
    return (y, a, b) if y != t else None


def plan_node(gr, plan, n, label, per_tensor):
    """The activation inputs of node n to quantise (weights and biases are
    recorded in the plan), or None when n stays float."""
    ins = [t for t in n.input]
    op = n.op_type
    if op in ("Conv", "Gemm", "MatMul"):
        if len(ins) < 2 or gr.const(ins[0]) or not gr.is_float(ins[0]):
            return None
        if op == "Gemm" and not gemm_plain(n):
            return None
        w = ins[1]
        if not gr.const(w):
            if op == "Conv" or not gr.is_float(w):
                return None
            return [ins[0], w]                  # MatMul/Gemm of two activations
        wt = gr.inits[w]
        if wt.data_type != TensorProto.FLOAT or len(wt.dims) < 2:
            return None
        plan.weights[(label, w)] = weight_axis(n, len(wt.dims), per_tensor)
        if op in ("Conv", "Gemm") and len(ins) > 2 and ins[2] and gr.const(ins[2]):
            b = gr.inits[ins[2]]
            n_out = wt.dims[0] if op == "Conv" or weight_axis(n, len(wt.dims), False) == 0 else wt.dims[-1]
            if b.data_type == TensorProto.FLOAT and list(b.dims) == [n_out]:
                plan.biases.append((label, ins[2], ins[0], w))
        return [ins[0]]
    if op in ("Add", "Concat"):
        if not ins or any(not t or gr.const(t) or not gr.is_float(t) for t in ins):
            return None
        return ins
    if op in ("MaxPool", "AveragePool", "GlobalAveragePool"):
        if gr.const(ins[0]) or not gr.is_float(ins[0]):
            return None
        return [ins[0]]
    return None


# ---- quantisation arithmetic (shared with the report and the tests) --------

def act_params(rmin, rmax):
    """uint8 asymmetric scale and zero point of the range [rmin, rmax]
    widened to include 0. A zero range (a constant 0 tensor) gets scale 1.
    Arrays of ranges (per-channel activations) give arrays of parameters."""
    if np.ndim(rmin) or np.ndim(rmax):
        lo = np.minimum(np.asarray(rmin, np.float64), 0.0)
        hi = np.maximum(np.asarray(rmax, np.float64), 0.0)
        scale = ((hi - lo) / 255.0).astype(np.float32)
        ok = np.isfinite(scale) & (scale > 0)
        scale = np.where(ok, scale, np.float32(1.0)).astype(np.float32)
        zp = np.where(ok, np.rint(-lo / scale.astype(np.float64)), 0.0)
        return scale, np.clip(zp, 0, 255).astype(np.uint8)
    rmin, rmax = min(float(rmin), 0.0), max(float(rmax), 0.0)
    scale = (rmax - rmin) / 255.0
    if not np.isfinite(scale) or scale <= 0.0 or np.float32(scale) == 0.0:
        return np.float32(1.0), np.uint8(0)
    zp = int(round(-rmin / scale))
    return np.float32(scale), np.uint8(min(max(zp, 0), 255))


def weight_params(w, axis):
    """int8 symmetric scales of w (per `axis` slice, or one for None) and the
    quantised weight. An all-zero channel gets scale 1 (its values are 0)."""
    w = np.asarray(w, np.float32)
    if axis is None:
        amax = np.array(np.abs(w).max() if w.size else 0.0, np.float32)
    else:
        amax = np.abs(np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)).max(axis=1).astype(np.float32)
    scale = (amax / np.float32(127.0)).astype(np.float32)
    scale = np.where((scale > 0) & np.isfinite(scale), scale, np.float32(1.0)).astype(np.float32)
    bshape = [1] * w.ndim
    if axis is not None:
        bshape[axis] = -1
    q = np.clip(np.rint(w / scale.reshape(bshape)), -127, 127).astype(np.int8)
    return scale, q


def quant_dequant(x, scale, zp):
    """Float -> uint8 -> float with one scale and zero point (ONNX rounding),
    or one per channel (axis 1) when scale is an array."""
    x = np.asarray(x, np.float32)
    if np.ndim(scale):
        shape = [1] * x.ndim
        shape[1] = -1
        scale = np.asarray(scale, np.float32).reshape(shape)
        zp = np.asarray(zp, np.float32).reshape(shape)
    else:
        scale, zp = np.float32(scale), float(zp)
    q = np.clip(np.rint(x / scale) + zp, 0, 255)
    return ((q - zp) * scale).astype(np.float32)


def bias_quant(b, x_scale, w_scale):
    scale = (np.asarray(x_scale, np.float32) * np.asarray(w_scale, np.float32)).astype(np.float32)
    scale = np.where(scale > 0, scale, np.float32(1.0)).astype(np.float32)
    q = np.rint(np.asarray(b, np.float64) / scale.astype(np.float64))
    q = np.clip(q, -2 ** 31, 2 ** 31 - 1).astype(np.int32)
    return scale, q


def aligned_params(y_range, h_range, a, b):
    """Parameters of h and of y = a * h + b (a > 0) on one grid: y's step s
    divides b (widening y's range a little), h gets step s / a and zero point
    zp_y + b / s, so a * dq(q(h)) + b lies on y's grid and the second
    QuantizeLinear adds no error; one rounding as if only y were quantised
    (the affine left of a LearnableAffineBlock between an activation and a
    padded depthwise Conv, which pre-processing cannot fold). None when a <= 0
    or the grids cannot agree."""
    if not a > 0.0:
        return None
    lo = min(float(y_range[0]), a * float(h_range[0]) + b, b, 0.0)
    hi = max(float(y_range[1]), a * float(h_range[1]) + b, b, 0.0)
    s = (hi - lo) / 255.0
    if not np.isfinite(s) or s <= 0.0:
        return None
    if b != 0.0:
        m = int(np.floor(abs(b) / s))
        if m < 1:
            return None
        s = abs(b) / m
        if (hi - lo) / s > 255.0 + 1e-6:
            return None
    zp = min(max(int(round(-lo / s)), 0), 255)
    zh = zp + int(round(b / s))
    if not 0 <= zh <= 255 or np.float32(s / a) <= 0.0:
        return None
    return (np.float32(s), np.uint8(zp)), (np.float32(s / a), np.uint8(zh))


def resolve_params(plan, ranges):
    """Scale and zero point of every planned activation from its calibrated
    range; MaxPool outputs, and Concat outputs whose inputs agree, take their
    input's parameters."""
    params = {t: act_params(*ranges[t]) for t in plan.acts}
    for h, (y, a, b) in plan.affine.items():
        if np.ndim(ranges[y][0]) or np.ndim(ranges[h][0]):
            continue
        aligned = aligned_params(ranges[y], ranges[h], a, b)
        if aligned:
            params[y], params[h] = aligned
    for t in plan.acts:
        srcs = plan.share.get(t)
        if srcs and all(s in params for s in srcs) and not np.ndim(params[t][0]):
            first = params[srcs[0]]
            if not np.ndim(first[0]) and all(params[s] == first for s in srcs):
                params[t] = first
    return params


# ---- bias correction -------------------------------------------------------

def channel_mean(x, op):
    """Per input-channel mean of a Conv input (axis 1) or a Gemm input
    (last axis), over every other axis."""
    x = np.asarray(x, np.float64)
    if op == "Conv":
        return x.mean(axis=tuple(i for i in range(x.ndim) if i != 1)) if x.ndim >= 2 else None
    return x.reshape(-1, x.shape[-1]).mean(axis=0) if x.ndim >= 1 else None


def bias_input_tensors(model, plan):
    """label -> the activation input whose channel means correct its bias."""
    labels = {node_label(n, i): n for i, n in enumerate(model.graph.node)}
    return {label: labels[label].input[0] for label, _, _, _ in plan.biases}


def correct_biases(model, plan, means):
    """A copy of model whose Conv/Gemm biases absorb the expected shift that
    rounding the weights causes: b += sum_k (W - dq(q(W)))[c, k] * mean(x_k)
    (bias correction, Nagel et al. 2019), with mean(x) the per-channel mean
    of the float input over the calibration data (padding ignored)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    inits = {t.name: t for t in m.graph.initializer}
    labels = {node_label(n, i): n for i, n in enumerate(m.graph.node)}
    done = set()
    for label, b, x, w in plan.biases:
        mu = means.get(x)
        axis = plan.weights[(label, w)]
        if mu is None or b in done or sum(1 for p in plan.biases if p[1] == b) != 1:
            continue
        n = labels[label]
        W = numpy_helper.to_array(inits[w]).astype(np.float32)
        scale, q = weight_params(W, axis)
        shape = [1] * W.ndim
        if axis is not None:
            shape[axis] = -1
        E = (W - q.astype(np.float32) * scale.reshape(shape)).astype(np.float64)
        if n.op_type == "Conv":
            group = next((a.i for a in n.attribute if a.name == "group"), 1)
            cout, cin_g = W.shape[0], W.shape[1]
            if len(mu) != cin_g * group:
                continue
            es = E.reshape(cout, cin_g, -1).sum(axis=2)
            mu_g = mu.reshape(group, cin_g)[np.arange(cout) // (cout // group)]
            shift = (es * mu_g).sum(axis=1)
        else:
            E2 = E if weight_axis(n, W.ndim, False) == 0 else E.T          # Gemm's B as [N, K]
            if E2.shape[1] != len(mu):
                continue
            shift = E2 @ mu
        bias = numpy_helper.to_array(inits[b]).astype(np.float64) + shift
        inits[b].CopyFrom(numpy_helper.from_array(bias.astype(np.float32), b))
        done.add(b)
    return m


# ---- writing the static QDQ model -----------------------------------------

def safe(name):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def _init(graph, name, arr):
    graph.initializer.append(numpy_helper.from_array(np.asarray(arr), name))
    return name


def write_static(model, plan, params):
    """The QDQ model: a copy of model with weights, biases and the planned
    activations quantised. params: tensor -> (scale, zero point)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    gr = Graph(m)
    labels = {node_label(n, i): n for i, n in enumerate(g.node)}
    # weights and biases: int8/int32 initializers read through DequantizeLinear
    head, wdone = [], {}
    for (label, w), axis in plan.weights.items():
        n = labels[label]
        key = (w, axis)
        if key not in wdone:
            scale, q = weight_params(numpy_helper.to_array(gr.inits[w]), axis)
            base = w if not any(k[0] == w for k in wdone) else "%s_axis%s" % (w, axis)
            out = base + "_DequantizeLinear_Output"
            wdone[key] = (scale, out)
            attrs = {} if axis is None else {"axis": axis}
            head.append(helper.make_node("DequantizeLinear", [
                _init(g, base + "_quantized", q), _init(g, base + "_scale", scale),
                _init(g, base + "_zero_point", np.zeros(scale.shape, np.int8))], [out],
                base + "_DequantizeLinear", **attrs))
        n.input[1] = wdone[key][1]
    for label, b, x, w in plan.biases:
        n = labels[label]
        axis = plan.weights[(label, w)]
        w_scale = wdone[(w, axis)][0]
        group = next((a.i for a in n.attribute if a.name == "group"), 1)
        x_scale = bias_x_scale(params[x][0], w_scale, group > 1 and group == np.size(w_scale))
        scale, q = bias_quant(numpy_helper.to_array(gr.inits[b]), x_scale, w_scale)
        if scale.ndim == 0:
            scale = scale.reshape(1)
            q = q.reshape(-1)
        if scale.shape[0] == 1 and q.shape[0] != 1:
            scale = np.full(q.shape, scale[0], np.float32)
        base = b if sum(1 for x in plan.biases if x[1] == b) == 1 else "%s_%s" % (b, safe(label))
        out = base + "_DequantizeLinear_Output"
        head.append(helper.make_node("DequantizeLinear", [
            _init(g, base + "_quantized", q), _init(g, base + "_scale", scale),
            _init(g, base + "_zero_point", np.zeros(scale.shape, np.int32))], [out],
            base + "_DequantizeLinear", axis=0))
        n.input[2] = out
    _insert_act_pairs(m, gr, plan, params, head)
    _drop_unused(g)
    return m


def bias_x_scale(x_scale, w_scale, depthwise):
    """The input scale a bias is quantised with: the tensor's own, or for a
    per-channel input, its channel's (a depthwise Conv: one input channel per
    output) or the largest (any other layer: the bias is stored exactly to
    x_scale_max * w_scale, far below the activation step)."""
    if not np.ndim(x_scale):
        return x_scale
    if depthwise and np.size(w_scale) == len(x_scale):
        return x_scale
    return np.float32(np.max(x_scale))


def _insert_act_pairs(m, gr, plan, params, head):
    """Q -> DQ after each planned activation; every consumer reads the DQ
    output. A tensor that is also a graph output keeps being that output,
    in float, straight from its producer."""
    g = m.graph
    pairs = {}
    for t in plan.acts:
        scale, zp = params[t]
        q_out, dq_out = t + "_QuantizeLinear_Output", t + "_DequantizeLinear_Output"
        axis = {"axis": 1} if np.ndim(scale) else {}
        pairs[t] = [
            helper.make_node("QuantizeLinear", [t, _init(g, t + "_scale", np.array(scale, np.float32)),
                                                _init(g, t + "_zero_point", np.array(zp, np.uint8))],
                             [q_out], t + "_QuantizeLinear", **axis),
            helper.make_node("DequantizeLinear", [q_out, t + "_scale", t + "_zero_point"], [dq_out],
                             t + "_DequantizeLinear", **axis)]
    nodes = list(head)
    for t in plan.acts:
        if t in gr.inputs:
            nodes.extend(pairs[t])
    for n in g.node:
        for k, i in enumerate(n.input):
            if i in pairs:
                n.input[k] = i + "_DequantizeLinear_Output"
        nodes.append(n)
        for o in n.output:
            if o in pairs:
                nodes.extend(pairs[o])
    del g.node[:]
    g.node.extend(nodes)


def _drop_unused(g):
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    keep = [t for t in g.initializer if t.name in used]
    if len(keep) != len(g.initializer):
        del g.initializer[:]
        g.initializer.extend(keep)
    names = {t.name for t in keep}
    stale = [i for i in g.input if i.name not in used and i.name not in names and
             i.name in {t.name for t in g.initializer}]
    for i in stale:
        g.input.remove(i)
    vis = [v for v in g.value_info]
    del g.value_info[:]
    g.value_info.extend(v for v in vis if v.type.tensor_type.elem_type in FLOAT_TYPES and
                        not v.name.endswith("_QuantizeLinear_Output"))


# ---- the dynamic rewrite (transformer encoders) ----------------------------

def plan_dynamic(model, skip=()):
    """The MatMul nodes whose constant 2-D weight becomes int8 (label list)."""
    gr = Graph(model)
    out = []
    for i, n in enumerate(gr.g.node):
        label = node_label(n, i)
        if n.op_type != "MatMul" or skipped(n, label, set(skip)):
            continue
        if gr.const(n.input[0]) or not gr.const(n.input[1]) or not gr.is_float(n.input[0]):
            continue
        w = gr.inits[n.input[1]]
        if w.data_type == TensorProto.FLOAT and len(w.dims) == 2:
            out.append(label)
    return out


def write_dynamic(model, labels, per_tensor=False):
    """DynamicQuantizeLinear(x) -> MatMulInteger(x_u8, W_s8, x_zp) -> Cast ->
    Mul(x_scale * w_scale) for each MatMul in labels; the bias Add stays."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    gr = Graph(m)
    want = set(labels)
    nodes, wdone = [], {}
    for i, n in enumerate(g.node):
        label = node_label(n, i)
        if label not in want:
            nodes.append(n)
            continue
        x, w, y = n.input[0], n.input[1], n.output[0]
        if w not in wdone:
            scale, q = weight_params(numpy_helper.to_array(gr.inits[w]), None if per_tensor else 1)
            wdone[w] = (_init(g, w + "_quantized", q), _init(g, w + "_scale", scale))
        wq, ws = wdone[w]
        p = safe(label)
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [x], [p + "_x_u8", p + "_x_scale", p + "_x_zp"],
                             p + "_DynamicQuantizeLinear"),
            helper.make_node("MatMulInteger", [p + "_x_u8", wq, p + "_x_zp"], [p + "_i32"],
                             p + "_MatMulInteger"),
            helper.make_node("Cast", [p + "_i32"], [p + "_f32"], p + "_Cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [p + "_x_scale", ws], [p + "_scale"], p + "_ScaleMul"),
            helper.make_node("Mul", [p + "_f32", p + "_scale"], [y], p + "_Mul")]
    del g.node[:]
    g.node.extend(nodes)
    _drop_unused(g)
    return m
