"""--equalize (channel equalisation of linear activation streams): which
tensors form a stream (never across SiLU or ReLU6's clip), the float model
unchanged by the rescaling (ONNX Runtime on the original against ONNX
Runtime on the equalised model, and openacl alike), the per-channel ranges
evened out as numpy computes them from the written weights, the gain on a
network with one wide channel, and bad values refused."""
import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import qmodels
from conftest import acl_run, ort_run, run_tool
from oaquant import equalize
from test_errors import fails

WIDE = 40.0     # channel 0 of the stream is this much wider than the others


def stream_cnn(path, seed=5):
    """x[1,3,12,12] -> Conv A (3x3) -> a; Conv B (1x1) on a -> b; s = a + b
    (a residual stream: a, b, s); Relu -> r (still the stream); Conv C (1x1)
    on r -> GlobalAveragePool -> Flatten -> logits [1,6]. Channel 0 of the
    stream carries WIDE times the range of the others (A's row 0 scaled up,
    the readers' column 0 scaled down: the same function as without)."""
    rng = np.random.default_rng(seed)
    wa, ba = rng.standard_normal((8, 3, 3, 3)) * 0.3, rng.standard_normal(8) * 0.1
    wb, bb = rng.standard_normal((8, 8, 1, 1)) * 0.3, rng.standard_normal(8) * 0.1
    wc, bc = rng.standard_normal((6, 8, 1, 1)) * 0.3, rng.standard_normal(6) * 0.1
    wa[0] *= WIDE
    ba[0] *= WIDE
    wb[0] *= WIDE           # b's channel 0 is as wide as a's (they add)
    bb[0] *= WIDE
    wb[:, 0] /= WIDE
    wc[:, 0] /= WIDE
    f = lambda a, n: numpy_helper.from_array(a.astype(np.float32), n)  # noqa: E731
    inits = [f(wa, "wa"), f(ba, "ba"), f(wb, "wb"), f(bb, "bb"), f(wc, "wc"), f(bc, "bc")]
    N = helper.make_node
    nodes = [N("Conv", ["x", "wa", "ba"], ["a"], "convA", pads=[1, 1, 1, 1]),
             N("Conv", ["a", "wb", "bb"], ["b"], "convB"),
             N("Add", ["a", "b"], ["s"], "add"),
             N("Relu", ["s"], ["r"], "relu"),
             N("Conv", ["r", "wc", "bc"], ["c"], "convC"),
             N("GlobalAveragePool", ["c"], ["g"], "gap"),
             N("Flatten", ["g"], ["logits"], "flatten")]
    g = helper.make_graph(nodes, "stream", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 6])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="qtest")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, path)
    return path


def chain(act):
    """Conv -> act -> Conv (1x1), act one of relu, relu6, silu."""
    rng = np.random.default_rng(1)
    f = lambda a, n: numpy_helper.from_array(a.astype(np.float32), n)  # noqa: E731
    inits = [f(rng.standard_normal((4, 2, 1, 1)), "w1"), f(rng.standard_normal((3, 4, 1, 1)), "w2"),
             f(np.array(0.0), "lo"), f(np.array(6.0), "hi")]
    N = helper.make_node
    mid = {"relu": [N("Relu", ["h"], ["y"])],
           "relu6": [N("Clip", ["h", "lo", "hi"], ["y"])],
           "silu": [N("Sigmoid", ["h"], ["sg"]), N("Mul", ["h", "sg"], ["y"])]}[act]
    nodes = [N("Conv", ["x", "w1"], ["h"], "c1")] + mid + [N("Conv", ["y", "w2"], ["z"], "c2")]
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3, 4, 4])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("act,n", [("relu", 1), ("relu6", 0), ("silu", 0)])
def test_streams_never_cross_a_clip_or_silu(act, n):
    found = equalize.streams(chain(act))
    assert len(found) == n
    if n:
        members, writers, readers = found[0]
        assert members == ["h", "y"] and writers == [0] and readers == [2]


def test_residual_stream_is_one_group(tmp_path):
    m = onnx.load(stream_cnn(str(tmp_path / "s.onnx")))
    found = equalize.streams(m)
    assert len(found) == 1          # c feeds the GlobalAveragePool: not a stream
    members, writers, readers = found[0]
    names = [m.graph.node[i].name for i in writers], [m.graph.node[i].name for i in readers]
    assert members == ["a", "b", "r", "s"] and names == (["convA", "convB"], ["convB", "convC"])


def numpy_stream(m, x):
    """a, b, s of the stream computed by numpy from the model's weights (the
    3x3 convolution with padding 1, then the 1x1 one)."""
    w = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}
    conv = {n.name: n for n in m.graph.node if n.op_type == "Conv"}
    wa, ba = w[conv["convA"].input[1]], w[conv["convA"].input[2]]
    wb, bb = w[conv["convB"].input[1]], w[conv["convB"].input[2]]
    xp = np.pad(x[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    h, wd = x.shape[2], x.shape[3]
    cols = np.stack([xp[:, i:i + h, j:j + wd] for i in range(3) for j in range(3)], axis=1)  # [3, 9, H, W]
    a = np.einsum("ockl,cklhw->ohw", wa.reshape(8, 3, 3, 3), cols.reshape(3, 3, 3, h, wd)) + ba[:, None, None]
    b = np.einsum("oc,chw->ohw", wb[:, :, 0, 0], a) + bb[:, None, None]
    return a, b, a + b


def spread(m, xs):
    """Per channel, the widest range (0 included) of a, b and s over all
    samples, as the tool measures it (min and max over the samples)."""
    outs = [numpy_stream(m, x) for x in xs]
    r = None
    for k in range(3):
        t = np.stack([o[k] for o in outs])              # [samples, C, H, W]
        c = np.maximum(t.max(axis=(0, 2, 3)), 0) - np.minimum(t.min(axis=(0, 2, 3)), 0)
        r = c if r is None else np.maximum(r, c)
    return r


def test_equalize_keeps_the_float_model_and_evens_the_ranges(tmp_path):
    model = stream_cnn(str(tmp_path / "s.onnx"))
    cal = qmodels.write_samples(str(tmp_path / "calib"), [1, 3, 12, 12], 10, seed=30)
    ev = qmodels.write_samples(str(tmp_path / "eval"), [1, 3, 12, 12], 4, seed=31)
    eqf, rep = tmp_path / "eq_float.onnx", tmp_path / "r.json"
    run_tool(model, "--calib", tmp_path / "calib", "--eval", tmp_path / "eval", "-o", tmp_path / "q.onnx",
             "--equalize", "--save-preprocessed", eqf, "--report", rep, "--quiet")
    r = json.load(open(rep))["equalize"]
    assert r["alpha"] == 0.9 and len(r["streams"]) == 1 and r["streams"][0]["tensors"] == 4
    m0, m1 = onnx.load(model), onnx.load(str(eqf))
    # the function is the same (float rounding only), in ONNX Runtime and in openacl
    for x in ev:
        ref = ort_run(model, [x], str(tmp_path / "o0"))
        if ref is not None:
            got = ort_run(str(eqf), [x], str(tmp_path / "o1"))
            assert np.abs(got[0] - ref[0]).max() <= 1e-5 * np.abs(ref[0]).max()
        a0, a1 = acl_run(model, [x])[0], acl_run(str(eqf), [x])[0]
        assert np.abs(a1 - a0).max() <= 1e-5 * np.abs(a0).max()
    # the weights did change, and the stream's channel ranges (numpy, on the
    # calibration data) went from one channel WIDE times the median to even
    before = spread(m0, cal)
    after = spread(m1, cal)
    assert before.max() / np.median(before) > WIDE / 4
    assert after.max() / np.median(after) < 3.0
    assert abs(r["streams"][0]["range_ratio_before"] - before.max() / np.median(before)) < 1e-3 * WIDE


def test_equalize_recovers_a_wide_channel(tmp_path):
    model = stream_cnn(str(tmp_path / "s.onnx"))
    qmodels.write_samples(str(tmp_path / "calib"), [1, 3, 12, 12], 12, seed=40)
    qmodels.write_samples(str(tmp_path / "eval"), [1, 3, 12, 12], 6, seed=41)
    cos = {}
    for flag in ("", "--equalize"):
        rep = tmp_path / ("r%s.json" % flag)
        run_tool(model, "--calib", tmp_path / "calib", "--eval", tmp_path / "eval", "-o", tmp_path / "q.onnx",
                 "--method", "minmax", "--report", rep, "--quiet", *([flag] if flag else []))
        cos[flag] = json.load(open(rep))["accuracy"]["outputs"]["logits"]["cosine_mean"]
    # the wide channel takes the per-tensor step of the whole stream unless evened out
    assert 1.0 - cos["--equalize"] < 0.5 * (1.0 - cos[""]), cos


def test_equalize_bad_values(cnn):
    common = (cnn["model"], "--calib", cnn["calib"], "-o", "/dev/null", "--quiet")
    fails(*common, "--equalize", "--equalize-alpha", "1.5", want=["--equalize-alpha must be in [0, 1]", "1.5"])
    fails(*common, "--equalize", "--equalize-alpha", "nan", want=["--equalize-alpha must be in [0, 1]"])
    fails(cnn["model"], "--dynamic", "-o", "/dev/null", "--equalize", want=["--equalize applies to static"])


def test_dead_channels_keep_their_scale():
    """A pruned channel (weights of 1e-40, as in PP-OCRv4) must not skew the
    others: live channels get a^alpha / w^(1-alpha) over its median, the
    dead one 1."""
    m = chain("relu")
    w2 = {t.name: t for t in m.graph.initializer}["w2"]
    w = numpy_helper.to_array(w2).copy()
    w[:, 1] = 1e-40
    w2.CopyFrom(numpy_helper.from_array(w, "w2"))
    found = equalize.streams(m)
    a = np.array([2.0, 1e-38, 0.5, 8.0])
    s = equalize.scales(equalize._Index(m), found[0], a, 0.9)
    live = [0, 2, 3]
    want = a[live] ** 0.9 / np.abs(w[:, live]).max(axis=(0, 2, 3)) ** 0.1
    assert s[1] == 1.0
    np.testing.assert_allclose(s[live], want / np.median(want), rtol=1e-6)
