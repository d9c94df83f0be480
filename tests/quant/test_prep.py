"""openacl-quant's pre-processing (tools/quant/oaquant/prep.py): the folds
and activation rewrites change the float model by float rounding only (ONNX
Runtime on the original model is the reference), the QDQ model has its
QuantizeLinear after the fused chain, and a scalar affine between two
quantised tensors puts both on one grid (numpy formulas)."""
import collections
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import REPO, acl_run, ort_run, run_tool

SIXTH = np.float32(1.0 / 6.0)


def _c(name, arr):
    return numpy_helper.from_array(np.asarray(arr, np.float32), name)


def lcnet_like(path, seed=3):
    """x[1,4,12,12] -> Conv(3x3, pads) -> BatchNormalization -> Mul([1,8,1,1])
    -> Add(scalar) -> x*Clip(x+3,0,6)/6 -> Mul(a) -> Add(b) -> Conv(1x1) ->
    Mul(scalar) -> x*HardSigmoid(x,1/6,0.5) -> Mul(a2) -> Add(b2) ->
    depthwise Conv(3x3, pads) -> Clip(x+3,0,6)*(1/6) -> Conv(1x1), plus
    Conv(1x1, x) -> Mul(const along W, not per channel); their sum is y."""
    rng = np.random.default_rng(seed)
    r = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    inits = [
        _c("w1", r(8, 4, 3, 3) * 0.3), _c("b1", r(8) * 0.1),
        _c("bn_g", 1 + 0.2 * r(8)), _c("bn_b", 0.1 * r(8)), _c("bn_m", 0.1 * r(8)),
        _c("bn_v", 0.5 + np.abs(r(8))),
        _c("s1", (1 + 0.3 * r(8)).reshape(1, 8, 1, 1)), _c("t1", [0.25]),
        _c("three", 3.0), _c("zero", 0.0), _c("six", 6.0), _c("sixth", SIXTH),
        _c("a1", [1.3]), _c("k1", [0.6]),
        _c("w2", r(12, 8, 1, 1) * 0.3), _c("b2", r(12) * 0.1), _c("s2", [0.8]),
        _c("a2", [1.7]), _c("k2", [0.9]),
        _c("w3", r(12, 1, 3, 3) * 0.4), _c("b3", r(12) * 0.1),
        _c("w4", r(6, 12, 1, 1) * 0.3),
        _c("wcol", (1 + 0.2 * r(12)).reshape(1, 1, 1, 12)),
        _c("w5", r(6, 4, 1, 1) * 0.3),
    ]
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "w1", "b1"], ["c1"], "conv1", pads=[1, 1, 1, 1]),
        N("BatchNormalization", ["c1", "bn_g", "bn_b", "bn_m", "bn_v"], ["bn1"], "bn1", epsilon=1e-5),
        N("Mul", ["bn1", "s1"], ["m1"], "mul1"),
        N("Add", ["t1", "m1"], ["a1o"], "add1"),
        N("Add", ["a1o", "three"], ["hs_a"], "hs_add"),
        N("Clip", ["hs_a", "zero", "six"], ["hs_c"], "hs_clip"),
        N("Mul", ["a1o", "hs_c"], ["hs_m"], "hs_mul"),
        N("Div", ["hs_m", "six"], ["hs1"], "hs_div"),
        N("Mul", ["hs1", "a1"], ["lab1"], "lab1_mul"),
        N("Add", ["lab1", "k1"], ["lab1b"], "lab1_add"),
        N("Conv", ["lab1b", "w2", "b2"], ["c2"], "conv2"),
        N("Mul", ["s2", "c2"], ["m2"], "mul2"),
        N("HardSigmoid", ["m2"], ["hsg"], "hsig2", alpha=float(SIXTH), beta=0.5),
        N("Mul", ["m2", "hsg"], ["hs2"], "hs2_mul"),
        N("Mul", ["hs2", "a2"], ["lab2"], "lab2_mul"),
        N("Add", ["lab2", "k2"], ["lab2b"], "lab2_add"),
        N("Conv", ["lab2b", "w3", "b3"], ["c3"], "dwconv3", group=12, pads=[1, 1, 1, 1]),
        N("Add", ["c3", "three"], ["hg_a"], "hg_add"),
        N("Clip", ["hg_a", "zero", "six"], ["hg_c"], "hg_clip"),
        N("Mul", ["hg_c", "sixth"], ["hg"], "hg_mul"),
        N("Conv", ["hg", "w4"], ["c4"], "conv4"),
        N("Conv", ["x", "w5"], ["c5"], "conv5"),
        N("Mul", ["c5", "wcol"], ["c5m"], "mul_cols"),
        N("Add", ["c4", "c5m"], ["y"], "residual"),
    ]
    g = helper.make_graph(nodes, "lcnet_like", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 12, 12])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 12, 12])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="qtest")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, path)
    return path


@pytest.fixture(scope="module")
def prepped(work):
    d = work / "prep"
    os.makedirs(d, exist_ok=True)
    import qmodels
    qmodels.write_samples(str(d / "calib"), [1, 4, 12, 12], 10, seed=30)
    src = lcnet_like(str(d / "lcnet.onnx"))
    pre, out = str(d / "lcnet_pre.onnx"), str(d / "lcnet_q.onnx")
    run_tool(src, "--calib", str(d / "calib"), "-o", out, "--save-preprocessed", pre, "--holdout", "0",
             "--method", "minmax", "--no-bias-correction", "--sensitivity-samples", "0")
    return {"src": src, "pre": pre, "q": out, "dir": d}


def ops(path):
    return collections.Counter(n.op_type for n in onnx.load(path).graph.node)


def test_folds_and_rewrites(prepped):
    before, after = ops(prepped["src"]), ops(prepped["pre"])
    assert before["BatchNormalization"] == 1 and after["BatchNormalization"] == 0
    assert after["HardSwish"] == 2 and after["HardSigmoid"] == 1
    assert after["Clip"] == 0 and after["Div"] == 0 and after["Conv"] == 5
    # left: the affine before the padded depthwise Conv keeps its Add (its Mul
    # cannot reach the Conv past it), and the Mul by a constant along W
    assert after["Add"] == 2 and after["Mul"] == 2, after
    m = onnx.load(prepped["pre"])
    assert any(o.domain in ("", "ai.onnx") and o.version >= 14 for o in m.opset_import)
    onnx.checker.check_model(m)


def test_preprocessed_equals_original(prepped):
    rng = np.random.default_rng(5)
    for k in range(3):
        x = rng.standard_normal([1, 4, 12, 12]).astype(np.float32) * 2
        ref = ort_run(prepped["src"], [x], str(prepped["dir"] / ("ort_src%d" % k)))
        if ref is None:
            pytest.skip("ONNX Runtime (tools/ortref) is not available")
        pre_ort = ort_run(prepped["pre"], [x], str(prepped["dir"] / ("ort_pre%d" % k)))[0]
        pre_acl = acl_run(prepped["pre"], [x])[0]
        tol = 1e-5 * float(np.abs(ref[0]).max())
        assert np.abs(pre_ort - ref[0]).max() <= tol
        assert np.abs(pre_acl - ref[0]).max() <= tol


def test_quantize_after_the_fused_chain(prepped):
    g = onnx.load(prepped["q"]).graph
    prod = {o: n for n in g.node for o in n.output}
    users = collections.defaultdict(list)
    for n in g.node:
        for i in n.input:
            users[i].append(n)
    for n in g.node:
        if n.op_type in ("HardSwish", "HardSigmoid"):
            assert prod[n.input[0]].op_type == "Conv"           # no Q/DQ between the Conv and its activation
            assert [u.op_type for u in users[n.output[0]]] == ["QuantizeLinear"]
    convs = [n for n in g.node if n.op_type == "Conv"]
    assert all(prod[n.input[0]].op_type == "DequantizeLinear" for n in convs)


def test_scalar_affine_shares_the_grid(prepped):
    """hs1 -> *1.3 -> +0.6 -> lab1b (folded into conv2 in the float model)
    and hs2 -> *1.7 -> +0.9 -> lab2b (kept, the depthwise Conv pads): the
    second pair is quantised on one grid, so q(y) = q(h) exactly."""
    g = onnx.load(prepped["q"]).graph
    init = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    q = {n.input[0]: n for n in g.node if n.op_type == "QuantizeLinear"}
    h, y = "hs2", "lab2b"
    assert next(n for n in g.node if n.output[0] == h).op_type == "HardSwish"
    assert h in q and y in q
    sh, zh = float(init[q[h].input[1]]), int(init[q[h].input[2]])
    sy, zy = float(init[q[y].input[1]]), int(init[q[y].input[2]])
    a, b = 1.7, 0.9
    assert abs(b / sy - round(b / sy)) < 1e-3
    assert abs(sh * a / sy - 1) < 1e-6
    assert zh == zy + round(b / sy)
    hv = np.linspace(-0.4, 6.0, 2001, dtype=np.float32)
    qh = np.clip(np.rint(hv / np.float32(sh)) + zh, 0, 255)
    yv = ((qh - zh) * np.float32(sh)).astype(np.float32) * np.float32(a) + np.float32(b)
    qy = np.clip(np.rint(yv / np.float32(sy)) + zy, 0, 255)
    assert np.array_equal(qh, qy)


def test_no_preprocess_keeps_the_model(work):
    d = work / "prep"
    src = str(d / "lcnet.onnx")
    out = str(d / "lcnet_noprep_q.onnx")
    run_tool(src, "--calib", str(d / "calib"), "-o", out, "--no-preprocess", "--holdout", "0", "--method", "minmax",
             "--sensitivity-samples", "0")
    after = ops(out)
    assert after["BatchNormalization"] == 1 and after["HardSwish"] == 0 and after["Clip"] == 2


def test_real_ocr_recogniser_preprocessed_equals_original(work):
    """PP-OCRv4's recogniser (models/, when built): every Conv's batch-norm
    affine folded, all 28 hard-swishes rewritten, output within float rounding."""
    src = os.path.join(REPO, "models", "ocr_rec.onnx")
    if not os.path.exists(src):
        pytest.skip("models/ocr_rec.onnx is not built")
    import sys
    sys.path.insert(0, os.path.join(REPO, "tools", "quant"))
    from oaquant import prep, qdq
    model = qdq.load_model(src)
    pre, counts = prep.preprocess(model)
    assert counts.get("HardSwish") == 28
    path = str(work / "ocr_rec_pre.onnx")
    onnx.save(pre, path)
    left = collections.Counter(n.op_type for n in pre.graph.node)
    assert left["Div"] <= 5 and left["Clip"] == 0          # the 5 Div left are LayerNorm's
    x = np.random.default_rng(2).uniform(-1, 1, [1, 3, 48, 320]).astype(np.float32)
    ref = ort_run(src, [x], str(work / "ocr_src"))
    if ref is None:
        ref = acl_run(src, [x])
    got = acl_run(path, [x])[0]
    assert np.abs(got - ref[0]).max() <= 1e-4 * float(np.abs(ref[0]).max())


def test_no_fold_of_what_a_subgraph_reads():
    """A Conv output an If branch reads from the outer scope keeps its name
    and value: the Mul after it stays."""
    import sys
    sys.path.insert(0, os.path.join(REPO, "tools", "quant"))
    from oaquant import prep
    rng = np.random.default_rng(9)
    N = helper.make_node
    branch = lambda name: helper.make_graph(  # noqa: E731
        [N("Identity", ["c"], [name + "_o"])], name, [],
        [helper.make_tensor_value_info(name + "_o", TensorProto.FLOAT, None)])
    g = helper.make_graph(
        [N("Conv", ["x", "w"], ["c"], "conv"), N("Mul", ["c", "s"], ["m"], "mul"),
         N("If", ["cond"], ["z"], "if", then_branch=branch("t"), else_branch=branch("e"))],
        "sub", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4]),
                helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("m", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        [_c("w", rng.standard_normal([3, 2, 1, 1])), _c("s", [2.0])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    pre, counts = prep.preprocess(m)
    assert counts == {} and [n.op_type for n in pre.graph.node] == ["Conv", "Mul", "If"]
