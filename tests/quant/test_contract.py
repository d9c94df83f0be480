"""openacl-quant's output against the QDQ contract (docs/quantization.md),
checked with numpy formulas on the original weights and calibration data,
and the QDQ models run by ONNX Runtime and by openacl."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, numpy_helper

from conftest import acl_run, ort_run, run_tool


class Q:
    """Index of a quantised model."""

    def __init__(self, path):
        self.m = onnx.load(path)
        g = self.m.graph
        self.init = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        self.init_type = {t.name: t.data_type for t in g.initializer}
        self.prod = {o: n for n in g.node for o in n.output}
        self.nodes = {n.name: n for n in g.node}
        self.cons = {}
        for n in g.node:
            for i in n.input:
                self.cons.setdefault(i, []).append(n)

    def attr(self, n, name, default=None):
        for a in n.attribute:
            if a.name == name:
                return onnx.helper.get_attribute_value(a)
        return default

    def dq_of(self, tensor):
        n = self.prod.get(tensor)
        assert n is not None and n.op_type == "DequantizeLinear", "%s is not a DequantizeLinear output" % tensor
        return n

    def act_q(self, tensor):
        """(scale, zp) of the activation feeding `tensor` (a DQ output),
        checking the Q -> DQ pair on the way."""
        dq = self.dq_of(tensor)
        q = self.prod[dq.input[0]]
        assert q.op_type == "QuantizeLinear"
        assert list(q.input[1:]) == list(dq.input[1:]), "Q and DQ of %s use different parameters" % tensor
        assert self.init_type[q.input[2]] == TensorProto.UINT8
        scale, zp = self.init[q.input[1]], self.init[q.input[2]]
        assert scale.shape == () and zp.shape == ()
        return float(scale), int(zp), q.input[0]


def orig(path):
    m = onnx.load(path)
    return {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}


def check_weight(q, node, w_orig, axis):
    """int8 symmetric per-channel weight: the numpy formula absmax/127."""
    dq = q.dq_of(node.input[1])
    assert q.init_type[dq.input[0]] == TensorProto.INT8
    assert q.init_type[dq.input[2]] == TensorProto.INT8
    wq, ws, wz = q.init[dq.input[0]], q.init[dq.input[1]], q.init[dq.input[2]]
    assert q.attr(dq, "axis") == axis
    n = w_orig.shape[axis]
    amax = np.abs(np.moveaxis(w_orig, axis, 0).reshape(n, -1)).max(axis=1)
    np.testing.assert_allclose(ws, amax / 127.0, rtol=1e-6)
    assert ws.shape == (n,) and not wz.any()
    shape = [1] * w_orig.ndim
    shape[axis] = n
    np.testing.assert_array_equal(wq, np.clip(np.rint(w_orig / ws.reshape(shape)), -127, 127).astype(np.int8))
    return ws


def check_bias(q, node, b_orig, w_scale):
    x_scale, _, _ = q.act_q(node.input[0])
    dq = q.dq_of(node.input[2])
    assert q.init_type[dq.input[0]] == TensorProto.INT32
    bq, bs = q.init[dq.input[0]], q.init[dq.input[1]]
    assert not q.init[dq.input[2]].any() and q.attr(dq, "axis", 0) == 0
    np.testing.assert_allclose(bs, np.float32(x_scale) * w_scale, rtol=1e-6)
    np.testing.assert_array_equal(bq, np.rint(b_orig.astype(np.float64) / bs).astype(np.int32))


def test_cnn_weights_bias_activations(cnn, cnn_q):
    q, w = Q(cnn_q["path"]), orig(cnn["model"])
    for name, wn, bn in (("conv1", "c1_w", "c1_b"), ("conv2", "c2_w", "c2_b"), ("conv3", "c3_w", None),
                         ("conv4", "c4_w", "c4_b")):
        n = q.nodes[name]
        ws = check_weight(q, n, w[wn], 0)
        if bn:
            check_bias(q, n, w[bn], ws)
        else:
            assert len(n.input) == 2
        q.act_q(n.input[0])
    fc = q.nodes["fc"]
    ws = check_weight(q, fc, w["fc_w"], 0)          # transB=1: B is [N, K], channels on axis 0
    check_bias(q, fc, w["fc_b"], ws)


def test_cnn_activation_placement(cnn, cnn_q):
    q = Q(cnn_q["path"])
    g = q.m.graph
    # the input is quantised for conv1, and stays float as a graph input
    assert g.input[0].type.tensor_type.elem_type == TensorProto.FLOAT
    assert g.output[0].type.tensor_type.elem_type == TensorProto.FLOAT
    assert q.act_q(q.nodes["conv1"].input[0])[2] == "x"
    # the chain after a Conv stays float: Conv -> Relu -> Q, Conv -> Clip -> Q, Conv -> x*sigmoid(x) -> Q
    assert q.nodes["relu1"].input[0] == "c1" and q.nodes["clip2"].input[0] == "c2"
    assert q.nodes["sig4"].input[0] == "c4" and sorted(q.nodes["swish4"].input) == ["c4", "s4"]
    assert q.act_q(q.nodes["pool1"].input[0])[2] == "r1"
    assert q.act_q(q.nodes["add1"].input[0])[2] == "k2"
    assert q.act_q(q.nodes["add1"].input[1])[2] == "c3"           # conv3 has no chain: its own output
    assert q.act_q(q.nodes["gap"].input[0])[2] == "m4"
    # Add -> Relu -> Q (the chain after the residual Add)
    assert q.act_q(q.nodes["concat"].input[0])[2] == "r2"
    assert q.act_q(q.nodes["concat"].input[1])[2] == "ap"
    # MaxPool's output reuses its input's scale and zero point
    s_in, z_in, _ = q.act_q(q.nodes["pool1"].input[0])
    s_out, z_out, _ = q.act_q(q.nodes["conv2"].input[0])
    assert (s_in, z_in) == (s_out, z_out)
    # every quantised tensor has exactly one Q, and nothing reads the float tensor but its Q (and chain)
    qs = [n.input[0] for n in g.node if n.op_type == "QuantizeLinear"]
    assert len(qs) == len(set(qs))
    for t in qs:
        readers = [n for n in q.cons.get(t, []) if n.op_type != "QuantizeLinear"]
        assert not readers, "%s is read unquantised by %s" % (t, [n.name for n in readers])
    # the logits (a graph output) are float, straight from the Gemm
    assert q.prod["logits"].op_type == "Gemm"


def test_minmax_ranges_match_numpy(cnn, cnn_q):
    """The input's Q parameters: min-max over the calibration samples used
    (the eval folder is separate), widened to include 0."""
    q = Q(cnn_q["path"])
    x = np.stack(cnn["data"])
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    scale, zp, _ = q.act_q(q.nodes["conv1"].input[0])
    assert scale == pytest.approx((hi - lo) / 255.0, rel=1e-6)
    assert zp == int(round(-lo / ((hi - lo) / 255.0)))


def test_mlp_contract(mlp, mlp_q):
    q, w = Q(mlp_q["path"]), orig(mlp["model"])
    check_weight(q, q.nodes["mm1"], w["w1"], 1)            # MatMul [K, N]: per column
    ws2 = check_weight(q, q.nodes["gemm2"], w["w2"], 1)    # Gemm transB=0: B [K, N]
    check_bias(q, q.nodes["gemm2"], w["b2"], ws2)
    ws3 = check_weight(q, q.nodes["gemm3"], w["w3"], 0)    # Gemm transB=1: B [N, K]
    check_bias(q, q.nodes["gemm3"], w["b3"], ws3)
    # the MatMul's output is quantised (no activation chain follows it); the Add of a
    # constant bias stays float and reads the DQ output; its Relu's output feeds gemm2
    assert q.act_q(q.nodes["bias1"].input[0])[2] == "mm1" and q.nodes["bias1"].input[1] == "b1"
    assert q.act_q(q.nodes["gemm2"].input[0])[2] == "r1"


def test_report_contents(cnn_q, mlp_q):
    for rep in (cnn_q["report"], mlp_q["report"]):
        assert rep["accuracy"]["samples"] == 6
        layers = rep["layers"]
        assert layers and all(r["weight_sqnr_db"] is None or r["weight_sqnr_db"] > 30 for r in layers)
        # an int8 activation's SQNR is bounded by its 256 levels: about 6 dB a bit
        assert all(r["min_sqnr_db"] < 60 for r in layers)
    assert cnn_q["report"]["accuracy"]["classifier"] is True
    assert cnn_q["report"]["quantized_ops"] == {"Conv": 4, "Gemm": 1, "MaxPool": 1, "AveragePool": 1, "Add": 1,
                                                "Concat": 1, "GlobalAveragePool": 1}
    # one 2-D output: a classifier; every row of a batch is compared
    assert mlp_q["report"]["accuracy"]["classifier"] is True and mlp_q["report"]["accuracy"]["rows"] == 12


@pytest.mark.parametrize("which", ["cnn", "mlp"])
def test_roundtrip_ort_and_openacl(which, cnn, cnn_q, mlp, mlp_q, work):
    """The QDQ model runs in ONNX Runtime and in openacl with matching
    outputs, and both stay close to the fp32 model."""
    src, qq = (cnn, cnn_q) if which == "cnn" else (mlp, mlp_q)
    for k, x in enumerate(src["eval_data"][:3]):
        ours = acl_run(qq["path"], [x])[0]
        theirs = ort_run(qq["path"], [x], str(work / ("ort_%s_%d" % (which, k))))
        if theirs is None:
            pytest.skip("ONNX Runtime (onnxruntime-node) is not available")
        ref = acl_run(src["model"], [x])[0]
        span = float(np.abs(ref).max())
        # the same integer arithmetic: ORT and openacl differ by float rounding only
        np.testing.assert_allclose(ours, theirs[0], atol=2e-3 * span, rtol=0)
        assert np.abs(ours - ref).max() < 0.1 * span


def test_bias_correction(cnn, work):
    """By default conv1's bias absorbs the mean shift its rounded weights
    cause: b + sum_k (W - dq(q(W)))[c, k] * mean over the calibration data of
    input channel k (conv1 reads the graph input, so numpy has that mean)."""
    out = str(work / "cnn_bc.onnx")
    run_tool(cnn["model"], "--calib", cnn["calib"], "-o", out, "--quiet", "--holdout", "0")
    q, w = Q(out), orig(cnn["model"])
    W = w["c1_w"]
    ws = np.abs(W.reshape(8, -1)).max(axis=1) / 127.0
    E = W - np.clip(np.rint(W / ws.reshape(-1, 1, 1, 1)), -127, 127) * ws.reshape(-1, 1, 1, 1)
    mu = np.mean([a.mean(axis=(0, 2, 3)) for a in cnn["data"]], axis=0)
    b = w["c1_b"].astype(np.float64) + (E.sum(axis=(2, 3)) * mu).sum(axis=1)
    dq = q.dq_of(q.nodes["conv1"].input[2])
    bq, bs = q.init[dq.input[0]], q.init[dq.input[1]]
    assert np.abs(bq - b / bs).max() <= 0.5 + 1e-3
    assert (bq != np.rint(w["c1_b"] / bs)).any()        # the correction moved the bias


def test_per_tensor_weights(mlp, work):
    out = str(work / "mlp_pt.onnx")
    run_tool(mlp["model"], "--calib", mlp["calib"], "-o", out, "--per-tensor", "--quiet")
    q, w = Q(out), orig(mlp["model"])
    dq = q.dq_of(q.nodes["mm1"].input[1])
    assert q.init[dq.input[1]].shape == () and q.attr(dq, "axis") is None
    assert float(q.init[dq.input[1]]) == pytest.approx(np.abs(w["w1"]).max() / 127.0, rel=1e-6)
    # the biases of both Gemm forms are int32 with one scale x_scale * w_scale for every output
    for name, wn in (("gemm2", "w2"), ("gemm3", "w3")):
        bdq = q.dq_of(q.nodes[name].input[2])
        x_scale = q.act_q(q.nodes[name].input[0])[0]
        bs = q.init[bdq.input[1]]
        assert q.init_type[bdq.input[0]] == TensorProto.INT32 and bs.shape == (w["b" + wn[1]].shape[0],)
        np.testing.assert_allclose(bs, np.float32(x_scale) * np.float32(np.abs(w[wn]).max() / 127.0), rtol=1e-6)


def test_skip_by_name_and_type(cnn, work):
    out = str(work / "cnn_skip.onnx")
    p = run_tool(cnn["model"], "--calib", cnn["calib"], "-o", out, "--skip", "conv4,Gemm", "--quiet")
    q = Q(out)
    assert q.nodes["conv4"].input[1] == "c4_w" and q.nodes["fc"].input[1] == "fc_w"
    assert q.prod[q.nodes["conv1"].input[1]].op_type == "DequantizeLinear"
    assert "3 Conv" in p.stdout
    out2 = str(work / "cnn_skip2.onnx")
    p = run_tool(cnn["model"], "--calib", cnn["calib"], "-o", out2, "--skip", "conv[34]", "--quiet")
    q = Q(out2)
    assert q.nodes["conv3"].input[1] == "c3_w" and q.nodes["conv4"].input[1] == "c4_w"
    assert "2 Conv" in p.stdout


def test_dynamic_mode(mlp, work):
    out = str(work / "mlp_dyn.onnx")
    run_tool(mlp["model"], "--dynamic", "-o", out, "--calib", mlp["eval"], "--quiet")
    q, w = Q(out), orig(mlp["model"])
    ops = [n.op_type for n in q.m.graph.node]
    assert ops.count("DynamicQuantizeLinear") == 1 and ops.count("MatMulInteger") == 1
    mmi = next(n for n in q.m.graph.node if n.op_type == "MatMulInteger")
    dql = q.prod[mmi.input[0]]
    assert dql.op_type == "DynamicQuantizeLinear" and mmi.input[2] == dql.output[2]
    wq = q.init[mmi.input[1]]
    assert wq.dtype == np.int8
    ws = np.abs(w["w1"]).max(axis=0) / 127.0
    np.testing.assert_array_equal(wq, np.clip(np.rint(w["w1"] / ws), -127, 127).astype(np.int8))
    cast = q.cons[mmi.output[0]][0]
    assert cast.op_type == "Cast" and q.attr(cast, "to") == TensorProto.FLOAT
    mul = q.cons[cast.output[0]][0]
    scale_mul = q.prod[[i for i in mul.input if i != cast.output[0]][0]]
    assert scale_mul.op_type == "Mul" and dql.output[1] in scale_mul.input
    np.testing.assert_allclose(q.init[[i for i in scale_mul.input if i != dql.output[1]][0]], ws, rtol=1e-6)
    assert mul.output[0] == "mm1" and q.nodes["bias1"].input == ["mm1", "b1"]   # the bias Add stays
    x = mlp["eval_data"][0]
    ours = acl_run(out, [x])[0]
    theirs = ort_run(out, [x], str(work / "ort_dyn"))
    ref = acl_run(mlp["model"], [x])[0]
    assert np.abs(ours - ref).max() < 0.05 * np.abs(ref).max()
    if theirs is not None:
        np.testing.assert_allclose(ours, theirs[0], atol=1e-3 * np.abs(ref).max(), rtol=0)


def test_images_with_preprocessing(cnn, work):
    from PIL import Image
    d = work / "images"
    d.mkdir()
    rng = np.random.default_rng(5)
    imgs = []
    for i in range(4):
        a = rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)
        Image.fromarray(a).save(str(d / ("i%d.png" % i)))
        imgs.append(a)
    out = str(work / "cnn_img.onnx")
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    run_tool(cnn["model"], "--calib", str(d), "-o", out, "--method", "minmax",
             "--mean", ",".join(map(str, mean)), "--std", ",".join(map(str, std)), "--quiet")
    x = (np.stack(imgs).astype(np.float32) / 255.0 - np.array(mean, np.float32)) / np.array(std, np.float32)
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    q = Q(out)
    scale, _, _ = q.act_q(q.nodes["conv1"].input[0])
    assert scale == pytest.approx((hi - lo) / 255.0, rel=1e-5)


def test_old_opset_softmax_of_unknown_rank(work):
    """An opset-11 model whose Softmax input has a rank shape inference
    cannot give (Squeeze of a tensor with symbolic dims) is brought to
    opset 13 with the old meaning kept (softmax over the input flattened to
    2-D at axis): the converted float model computes the same."""
    from onnx import helper
    from oaquant import qdq
    rng = np.random.default_rng(4)
    N = helper.make_node
    g = helper.make_graph(
        [N("Conv", ["x", "w"], ["c"], "conv"), N("Squeeze", ["c"], ["q"], "squeeze"),
         N("Softmax", ["q"], ["y"], "softmax", axis=1)], "old",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b", "c"])],
        [numpy_helper.from_array(rng.standard_normal([5, 3, 1, 1]).astype(np.float32), "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 6
    src = str(work / "old11.onnx")
    onnx.save(m, src)
    conv = qdq.load_model(src)
    assert qdq.default_opset(conv) == 13
    assert [n.op_type for n in conv.graph.node].count("Flatten") == 1
    dst = str(work / "old11_13.onnx")
    onnx.save(conv, dst)
    x = rng.standard_normal([1, 3, 4, 4]).astype(np.float32)
    ref = acl_run(src, [x])[0]
    got = acl_run(dst, [x])[0]
    assert ref.shape == (5, 4, 4) and got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7)
    # the old meaning: each row of the [5, 16] flattening sums to 1
    np.testing.assert_allclose(ref.reshape(5, 16).sum(axis=1), 1.0, rtol=1e-5)


def test_graph_output_read_by_a_quantised_node_stays_float(work):
    """r1 is a graph output and gemm2's input: the output is the Relu's
    float result; gemm2 reads its Q -> DQ copy."""
    from onnx import helper
    rng = np.random.default_rng(6)
    N = helper.make_node
    g = helper.make_graph(
        [N("Gemm", ["x", "w1"], ["h1"], "gemm1", transB=1), N("Relu", ["h1"], ["r1"], "relu1"),
         N("Gemm", ["r1", "w2"], ["y"], "gemm2", transB=1)], "twoout",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("r1", TensorProto.FLOAT, [1, 6]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        [numpy_helper.from_array(rng.standard_normal([6, 8]).astype(np.float32), "w1"),
         numpy_helper.from_array(rng.standard_normal([4, 6]).astype(np.float32), "w2")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    src = str(work / "twoout.onnx")
    onnx.save(m, src)
    d = work / "twoout_cal"
    d.mkdir()
    for i in range(4):
        np.save(str(d / ("%d.npy" % i)), rng.standard_normal([1, 8]).astype(np.float32))
    out = str(work / "twoout_q.onnx")
    run_tool(src, "--calib", str(d), "-o", out, "--quiet")
    q = Q(out)
    assert q.prod["r1"].op_type == "Relu"
    assert q.act_q(q.nodes["gemm2"].input[0])[2] == "r1"
    x = rng.standard_normal([1, 8]).astype(np.float32)
    r_ref = acl_run(src, [x])[0]
    r_got = acl_run(out, [x])[0]
    np.testing.assert_allclose(r_got, r_ref, rtol=0.03, atol=0.03 * np.abs(r_ref).max())


def test_ort_runner_calibrates_the_same(mlp, mlp_q, work):
    """--runner ort (ONNX Runtime's C API) sees the same activations as
    openacl: the same scales, to float rounding."""
    import json
    out, rep = str(work / "mlp_ortrun.onnx"), str(work / "mlp_ortrun.json")
    p = run_tool(mlp["model"], "--calib", mlp["calib"], "--eval", mlp["eval"], "-o", out, "--report", rep,
                 "--no-bias-correction", "--method", "minmax", "--runner", "ort", "--quiet", check=False)
    if p.returncode != 0 and "library was not found" in p.stderr:
        pytest.skip("ONNX Runtime's library is not available")
    assert p.returncode == 0, p.stderr
    a, b = json.load(open(rep))["ranges"], mlp_q["report"]["ranges"]
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("per_tensor", [False, True])
def test_bias_correction_of_gemm_both_forms(work, per_tensor):
    """The correction of a Gemm bias, transB 0 and 1, per channel or per
    tensor: b + (W - dq(q(W))) applied to the mean input row (the graph
    input, so numpy has it)."""
    from onnx import helper
    rng = np.random.default_rng(8)
    N = helper.make_node
    w0 = rng.standard_normal([8, 5]).astype(np.float32)           # transB 0: [K, N]
    w1 = rng.standard_normal([5, 8]).astype(np.float32)           # transB 1: [N, K]
    b = rng.standard_normal([5]).astype(np.float32)
    g = helper.make_graph(
        [N("Gemm", ["x", "w0", "b"], ["y0"], "g0"), N("Gemm", ["x", "w1", "b1"], ["y1"], "g1", transB=1)], "gb",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [1, 5]),
         helper.make_tensor_value_info("y1", TensorProto.FLOAT, [1, 5])],
        [numpy_helper.from_array(w0, "w0"), numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b, "b"),
         numpy_helper.from_array(b.copy(), "b1")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    src = str(work / "gb.onnx")
    onnx.save(m, src)
    d = work / ("gb_cal_%d" % per_tensor)
    d.mkdir()
    xs = [(rng.standard_normal([1, 8]) + 1.0).astype(np.float32) for _ in range(6)]
    for i, x in enumerate(xs):
        np.save(str(d / ("%d.npy" % i)), x)
    out = str(work / ("gb_q_%d.onnx" % per_tensor))
    run_tool(src, "--calib", str(d), "-o", out, "--quiet", "--holdout", "0", *(["--per-tensor"] if per_tensor else []))
    q = Q(out)
    mu = np.mean([x[0] for x in xs], axis=0).astype(np.float64)
    for name, W in (("g0", w0.T), ("g1", w1)):      # W as [N, K]
        s = np.full(5, np.abs(W).max() / 127.0) if per_tensor else np.abs(W).max(axis=1) / 127.0
        E = W - np.clip(np.rint(W / s[:, None]), -127, 127) * s[:, None]
        want = b.astype(np.float64) + E @ mu
        dq = q.dq_of(q.nodes[name].input[2])
        bq, bs = q.init[dq.input[0]], q.init[dq.input[1]]
        assert np.abs(bq - want / bs).max() <= 0.5 + 1e-3, name


def test_bias_behind_identity_is_quantised(work):
    """A bias an exporter routes through Identity (torch does for shared
    SE-block biases) is an initializer to the quantiser: int32 like the rest."""
    from onnx import helper
    rng = np.random.default_rng(10)
    N = helper.make_node
    g = helper.make_graph(
        [N("Identity", ["b_src"], ["b"], "id"), N("Conv", ["x", "w", "b"], ["y"], "conv")], "idb",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 3, 3])],
        [numpy_helper.from_array(rng.standard_normal([4, 2, 1, 1]).astype(np.float32), "w"),
         numpy_helper.from_array(rng.standard_normal([4]).astype(np.float32), "b_src")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    src = str(work / "idb.onnx")
    onnx.save(m, src)
    d = work / "idb_cal"
    d.mkdir()
    for i in range(3):
        np.save(str(d / ("%d.npy" % i)), rng.standard_normal([1, 2, 3, 3]).astype(np.float32))
    out = str(work / "idb_q.onnx")
    run_tool(src, "--calib", str(d), "-o", out, "--quiet")
    q = Q(out)
    assert "id" not in q.nodes
    dq = q.dq_of(q.nodes["conv"].input[2])
    assert q.init_type[dq.input[0]] == TensorProto.INT32


def test_act_tables(cnn, cnn_q, work):
    """--act-tables quantises the SiLU's input too (c4 -> Q -> DQ, read by
    both the Sigmoid and the Mul), with min-max parameters from numpy like
    any other tensor, and leaves the rest of the layout as it was; the file
    runs in ORT and openacl with matching outputs, close to fp32."""
    out = str(work / "cnn_tab.onnx")
    run_tool(cnn["model"], "--calib", cnn["calib"], "-o", out, "--no-bias-correction", "--method", "minmax",
             "--act-tables", "--sensitivity-samples", "0")
    q, base = Q(out), Q(cnn_q["path"])
    assert q.act_q(q.nodes["sig4"].input[0])[2] == "c4"
    assert q.nodes["swish4"].input[0] == q.nodes["sig4"].input[0]     # the Mul reads the same DQ
    assert q.act_q(q.nodes["gap"].input[0])[2] == "m4"
    count = lambda m: sum(n.op_type == "QuantizeLinear" for n in m.m.graph.node)  # noqa: E731
    assert count(q) == count(base) + 1
    # c4's range: min-max of the float model's c4 over the calibration samples
    import onnx.helper as oh
    m = onnx.load(cnn["model"])
    m.graph.output.append(oh.make_tensor_value_info("c4", TensorProto.FLOAT, None))
    tap = str(work / "cnn_c4.onnx")
    onnx.save(m, tap)
    c4 = np.concatenate([acl_run(tap, [x])[1].ravel() for x in cnn["data"]])
    lo, hi = min(float(c4.min()), 0.0), max(float(c4.max()), 0.0)
    scale, zp, _ = q.act_q(q.nodes["sig4"].input[0])
    assert scale == pytest.approx((hi - lo) / 255.0, rel=1e-5)
    assert zp == int(round(-lo / ((hi - lo) / 255.0)))
    for k, x in enumerate(cnn["eval_data"][:3]):
        ours = acl_run(out, [x])[0]
        ref = acl_run(cnn["model"], [x])[0]
        span = float(np.abs(ref).max())
        assert np.abs(ours - ref).max() < 0.1 * span
        theirs = ort_run(out, [x], str(work / ("ort_tab_%d" % k)))
        if theirs is not None:
            np.testing.assert_allclose(ours, theirs[0], atol=2e-3 * span, rtol=0)
