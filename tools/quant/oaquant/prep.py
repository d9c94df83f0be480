"""Pre-processing of the float model before quantising (what ONNX Runtime's
quant_pre_process does with its graph optimiser), so the affine and the
activation after each convolution are one node the int8 engine fuses and the
QuantizeLinear comes after them instead of right after the Conv:

- Conv -> BatchNormalization (inference form) folds into the Conv's weights
  and bias;
- Conv -> Mul / Div / Add / Sub by a constant that is one value, or one value
  per output channel, folds likewise (in float64, then rounded to float32);
- Mul by a constant of one value right before a Conv folds into its weights,
  and Add of one value right before a Conv without padding folds into its
  bias (with padding the border would change, so it stays);
- x * Clip(x + 3, 0, 6) / 6 (also with Mul by 1/6, the division first, or
  x * HardSigmoid(x, 1/6, 0.5)) becomes HardSwish (opset 14), and
  Clip(x + 3, 0, 6) / 6 alone becomes HardSigmoid(x, 1/6, 0.5).

Every rewrite is exact in real arithmetic; the float model changes by float
rounding only (tests/quant/test_prep.py checks it).
"""
import numpy as np
import onnx
from onnx import numpy_helper

HSWISH_OPSET = 14
SIXTH = 1.0 / 6.0


class _G:
    """Producer/consumer indices, rebuilt after each rewrite."""

    def __init__(self, graph):
        self.g = graph
        self.inits = {t.name: t for t in graph.initializer}
        # graph outputs, and tensors a subgraph (If/Loop body) reads from
        # this scope: neither may disappear
        self.outputs = {o.name for o in graph.output} | _subgraph_reads(graph)
        self.producer, self.users = {}, {}
        for n in graph.node:
            for o in n.output:
                self.producer[o] = n
            for i in n.input:
                if i:
                    self.users.setdefault(i, []).append(n)

    def const(self, t):
        t = self.inits.get(t)
        if t is None or t.data_type != onnx.TensorProto.FLOAT:
            return None
        return numpy_helper.to_array(t).astype(np.float64)

    def only_user(self, t):
        u = self.users.get(t, [])
        return u[0] if len(u) == 1 and t not in self.outputs else None

    def scalar(self, t):
        c = self.const(t)
        return float(c.reshape(-1)[0]) if c is not None and c.size == 1 else None

    def fresh(self, base):
        k = 0
        while "%s_prep%d" % (base, k) in self.inits:
            k += 1
        return "%s_prep%d" % (base, k)

    def put(self, base, arr):
        """A new initializer (weights may be shared by several nodes)."""
        name = self.fresh(base)
        t = numpy_helper.from_array(np.asarray(arr, np.float32), name)
        self.g.initializer.append(t)
        self.inits[name] = t
        return name


def _subgraph_reads(graph):
    names = set()
    for n in graph.node:
        for a in n.attribute:
            for sub in ([a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)):
                for m in sub.node:
                    names.update(i for i in m.input if i)
                names |= _subgraph_reads(sub)
    return names


def _attr(n, name, default):
    for a in n.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _conv_wb(gr, conv):
    """(weight, bias) of a Conv as float64 arrays, or None when not constant."""
    w = gr.const(conv.input[1]) if len(conv.input) > 1 else None
    if w is None or w.ndim < 3:
        return None
    if len(conv.input) > 2 and conv.input[2]:
        b = gr.const(conv.input[2])
        if b is None or b.shape != (w.shape[0],):
            return None
    else:
        b = np.zeros(w.shape[0])
    return w, b


def _set_conv(gr, conv, w, b):
    conv.input[1] = gr.put(conv.input[1], w)
    bname = gr.put(conv.input[2] if len(conv.input) > 2 and conv.input[2] else conv.input[1] + "_bias", b)
    if len(conv.input) > 2:
        conv.input[2] = bname
    else:
        conv.input.append(bname)


def _per_channel(c, cout, rank):
    """The constant as one value per output channel of a rank-`rank` Conv
    output [N, C, ...], or None when it broadcasts any other way."""
    if c.size == 1:
        return np.full(cout, float(c.reshape(-1)[0]))
    if c.ndim > rank:
        return None
    shape = (1,) * (rank - c.ndim) + c.shape
    if shape[1] != cout or any(d != 1 for i, d in enumerate(shape) if i != 1):
        return None
    return c.reshape(-1)


def _fold_after_conv(gr, conv):
    """Folds the one node after conv (BatchNormalization, Mul/Div/Add/Sub by
    a per-channel constant) into it. True when something changed."""
    wb = _conv_wb(gr, conv)
    nxt = gr.only_user(conv.output[0])
    if wb is None or nxt is None or len(nxt.output) != 1:
        return False
    w, b = wb
    cout, rank = w.shape[0], w.ndim
    y = conv.output[0]
    if nxt.op_type == "BatchNormalization":
        if nxt.input[0] != y or _attr(nxt, "training_mode", 0):
            return False
        p = [gr.const(t) for t in nxt.input[1:5]]
        if any(v is None or v.shape != (cout,) for v in p):
            return False
        gamma, beta, mean, var = p
        s = gamma / np.sqrt(var + _attr(nxt, "epsilon", 1e-5))
        w, b = w * s.reshape((-1,) + (1,) * (rank - 1)), (b - mean) * s + beta
    elif nxt.op_type in ("Mul", "Div", "Add", "Sub") and len(nxt.input) == 2:
        other = nxt.input[1] if nxt.input[0] == y else nxt.input[0]
        if other == y or (nxt.op_type in ("Div", "Sub") and nxt.input[0] != y):
            return False
        c = gr.const(other)
        c = _per_channel(c, cout, rank) if c is not None else None
        if c is None or (nxt.op_type == "Div" and not np.all(c != 0)):
            return False
        if nxt.op_type in ("Mul", "Div"):
            s = c if nxt.op_type == "Mul" else 1.0 / c
            w, b = w * s.reshape((-1,) + (1,) * (rank - 1)), b * s
        else:
            b = b + c if nxt.op_type == "Add" else b - c
    else:
        return False
    _set_conv(gr, conv, w, b)
    conv.output[0] = nxt.output[0]
    gr.g.node.remove(nxt)
    return True


def _fold_before_conv(gr, conv):
    """Folds a Mul by one value (any Conv) or an Add of one value (a Conv
    without padding) that alone feeds conv's input into conv."""
    wb = _conv_wb(gr, conv)
    src = gr.producer.get(conv.input[0])
    if wb is None or src is None or src.op_type not in ("Mul", "Add") or len(src.input) != 2:
        return False
    if gr.only_user(conv.input[0]) is not conv:
        return False
    k = 1 if gr.scalar(src.input[1]) is not None else 0 if gr.scalar(src.input[0]) is not None else -1
    if k < 0 or gr.const(src.input[1 - k]) is not None:
        return False
    v = gr.scalar(src.input[k])
    w, b = wb
    if src.op_type == "Mul":
        w = w * v
    else:
        pads = _attr(conv, "pads", [0])
        if any(pads) or _attr(conv, "auto_pad", b"NOTSET") not in (b"NOTSET", b"VALID", "NOTSET", "VALID"):
            return False
        b = b + v * w.reshape(w.shape[0], -1).sum(axis=1)
    _set_conv(gr, conv, w, b)
    conv.input[0] = src.input[1 - k]
    gr.g.node.remove(src)
    return True


def _clip_range(gr, clip):
    """(lo, hi) of a Clip with constant bounds (opset >= 11), else None."""
    lo = gr.scalar(clip.input[1]) if len(clip.input) > 1 and clip.input[1] else -np.inf
    hi = gr.scalar(clip.input[2]) if len(clip.input) > 2 and clip.input[2] else np.inf
    return None if lo is None or hi is None else (lo, hi)


def _by_sixth(gr, n, t):
    """True when n computes t / 6 or t * (1/6)."""
    if n is None or len(n.input) != 2 or t not in n.input:
        return False
    if n.op_type == "Div" and n.input[0] == t:
        v = gr.scalar(n.input[1])
        return v is not None and abs(v - 6.0) < 1e-6
    if n.op_type == "Mul":
        v = gr.scalar(n.input[1] if n.input[0] == t else n.input[0])
        return v is not None and abs(v - SIXTH) < 1e-6
    return False


def _mul_of(n, x, t):
    return n is not None and n.op_type == "Mul" and len(n.input) == 2 and sorted(n.input) == sorted([x, t])


def _hard_swish(gr, add):
    """add = Add(x, 3) -> Clip(0, 6) -> ...: the nodes of a hard-swish or a
    hard-sigmoid spelled out, as (x, nodes to remove, output, op type), or
    None."""
    if add.op_type != "Add" or len(add.input) != 2:
        return None
    k = 1 if gr.scalar(add.input[1]) is not None else 0 if gr.scalar(add.input[0]) is not None else -1
    if k < 0 or abs(gr.scalar(add.input[k]) - 3.0) > 1e-6:
        return None
    x = add.input[1 - k]
    clip = gr.only_user(add.output[0])
    if clip is None or clip.op_type != "Clip" or clip.input[0] != add.output[0] or _clip_range(gr, clip) != (0.0, 6.0):
        return None
    c = clip.output[0]
    a = gr.only_user(c)
    b = gr.only_user(a.output[0]) if a is not None else None
    if _mul_of(a, x, c) and _by_sixth(gr, b, a.output[0]):          # x * clip / 6
        return x, [add, clip, a, b], b.output[0], "HardSwish"
    if _by_sixth(gr, a, c):
        if _mul_of(b, x, a.output[0]):                                # x * (clip / 6)
            return x, [add, clip, a, b], b.output[0], "HardSwish"
        return x, [add, clip, a], a.output[0], "HardSigmoid"          # clip / 6
    return None


def _hard_sigmoid_mul(gr, hs):
    """x * HardSigmoid(x, 1/6, 0.5) -> HardSwish."""
    if hs.op_type != "HardSigmoid":
        return None
    if abs(_attr(hs, "alpha", 0.2) - SIXTH) > 1e-6 or abs(_attr(hs, "beta", 0.5) - 0.5) > 1e-6:
        return None
    m = gr.only_user(hs.output[0])
    if not _mul_of(m, hs.input[0], hs.output[0]):
        return None
    return hs.input[0], [hs, m], m.output[0], "HardSwish"


def _rewrite_act(gr, found):
    x, nodes, out, op = found
    first = min(list(gr.g.node).index(n) for n in nodes)
    name = nodes[-1].name or out
    attrs = {"alpha": SIXTH, "beta": 0.5} if op == "HardSigmoid" else {}
    new = onnx.helper.make_node(op, [x], [out], name + "_" + op, **attrs)
    for n in nodes:
        gr.g.node.remove(n)
    gr.g.node.insert(first, new)


def _needs_opset(model, version):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx") and o.version < version:
            # Every operator change from opset 13 to 14 keeps the meaning of
            # existing nodes (new types, attributes with defaults as before).
            o.version = version


def preprocess(model):
    """A copy of model with the folds and rewrites above; returns (model,
    counts of each rewrite)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    counts = {}
    # the activations first: a Conv -> Add(3) -> Clip -> /6 would otherwise lose
    # its +3 to the bias fold and no longer read as a hard-sigmoid
    gr = _G(m.graph)
    for n in list(m.graph.node):
        if n.op_type not in ("Add", "HardSigmoid") or n not in m.graph.node:
            continue
        found = _hard_swish(gr, n) or _hard_sigmoid_mul(gr, n)
        if found:
            _rewrite_act(gr, found)
            counts[found[3]] = counts.get(found[3], 0) + 1
            gr = _G(m.graph)
    passes = (("fold after Conv", lambda gr, n: n.op_type == "Conv" and _fold_after_conv(gr, n)),
              ("fold before Conv", lambda gr, n: n.op_type == "Conv" and _fold_before_conv(gr, n)))
    changed = True
    while changed:
        changed = False
        for what, step in passes:
            gr = _G(m.graph)
            for n in list(m.graph.node):
                if n in m.graph.node and step(gr, n):
                    counts[what] = counts.get(what, 0) + 1
                    changed = True
                    gr = _G(m.graph)
    if counts.get("HardSwish"):
        _needs_opset(m, HSWISH_OPSET)
    _drop_unused(m.graph)
    return m, counts


def _drop_unused(g):
    """Initializers nothing reads any more go, with their graph-input entries
    (old models list initializers as inputs too) and stale value_info."""
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    dropped = {t.name for t in g.initializer if t.name not in used}
    if dropped:
        keep = [t for t in g.initializer if t.name not in dropped]
        del g.initializer[:]
        g.initializer.extend(keep)
        for i in [i for i in g.input if i.name in dropped]:
            g.input.remove(i)
    live = {o for n in g.node for o in n.output}
    vis = [v for v in g.value_info if v.name in live]
    del g.value_info[:]
    g.value_info.extend(vis)
