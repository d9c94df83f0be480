"""--per-channel-act (per-axis uint8 activations, axis 1): the per-channel
ranges against numpy (min/max) and against the per-tensor calibrators run
on each channel's own histogram; the written QuantizeLinear/DequantizeLinear
pairs (axis 1, one scale and zero point per channel, recomputed with numpy
from the float model's tensor as ONNX Runtime computes it); ONNX Runtime and
openacl running the written model alike; bad values refused."""
import json

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from conftest import acl_run, ort_run, run_tool
from oaquant import calib, chan
from test_errors import fails


def channel_data(seed=5):
    """[4, 6, 9, 9]: channels of different spreads, one with far outliers,
    one never negative."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 6, 9, 9)) * np.array([0.1, 1, 3, 10, 1, 1]).reshape(1, 6, 1, 1)
    x[0, 4, 0, :3] = [40.0, -25.0, 60.0]
    x[:, 5] = np.abs(x[:, 5])
    return x.astype(np.float32)


def per_channel(method, x):
    pc = chan.ChannelCalib(["t"])
    for k in range(x.shape[0]):
        pc.add_range("t", x[k:k + 1])
    if method != "minmax":
        pc.start_hist()
        for k in range(x.shape[0]):
            pc.add_hist("t", x[k:k + 1])
    return pc.ranges(method, 99.9)["t"]


def test_minmax_per_channel_is_numpy_min_max():
    x = channel_data()
    lo, hi = per_channel("minmax", x)
    np.testing.assert_array_equal(lo, x.min(axis=(0, 2, 3)))
    np.testing.assert_array_equal(hi, x.max(axis=(0, 2, 3)))


@pytest.mark.parametrize("method", ["percentile", "mse", "auto"])
def test_each_channel_calibrated_as_a_tensor_of_its_own(method):
    """Channel c's range is what calib.py's calibrator gives on channel c's
    values alone, histogrammed over the same PC_BINS bins (percentile:
    exactly; mse and auto search error curves that the prefix sums evaluate
    in another order: within a bin)."""
    x = channel_data()
    lo, hi = per_channel(method, x)
    for c in range(x.shape[1]):
        v = x[:, c].ravel().astype(np.float64)
        a, b = float(v.min()), float(v.max())
        h, _ = np.histogram(v, bins=chan.PC_BINS, range=(a, b))
        if method == "percentile":
            want = calib.percentile_range(h, a, b, 99.9)
            want = (max(a, want[0]), min(b, want[1]))
        elif method == "mse":
            want = calib.mse_range(h, a, b)
        else:
            want = calib.auto_range(h, a, b, 99.9)[0]
        tol = 1.01 * (b - a) / chan.PC_BINS
        assert abs(lo[c] - want[0]) <= tol and abs(hi[c] - want[1]) <= tol, (c, (lo[c], hi[c]), want)
    assert hi[3] > 5 * hi[1] and lo[5] >= 0.0      # each channel its own range


@pytest.fixture(scope="module")
def pc_model(cnn, work):
    out, rep = str(work / "cnn_pc.onnx"), str(work / "cnn_pc.json")
    run_tool(cnn["model"], "--calib", cnn["calib"], "--eval", cnn["eval"], "-o", out, "--report", rep,
             "--no-bias-correction", "--method", "minmax", "--per-channel-act", "Mul,relu2")
    return out, json.load(open(rep))


def float_tensors(model, names, inputs, outdir):
    """The fp32 model's tensors `names` on inputs, computed by ONNX Runtime."""
    m = onnx.load(model)
    for n in names:
        m.graph.output.append(helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None))
    p = str(outdir / "probe.onnx")
    onnx.save(m, p)
    outs = []
    for i, a in enumerate(inputs):
        o = ort_run(p, [a], str(outdir / ("probe%d" % i)))
        if o is None:
            pytest.skip("ONNX Runtime (node + onnxruntime-node) not available")
        outs.append(o[1:])
    return [np.concatenate([o[k] for o in outs]) for k in range(len(names))]


def test_written_pairs_are_per_axis_min_max(cnn, pc_model, work):
    path, rep = pc_model
    m = onnx.load(path)
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    ref = dict(zip(["m4", "r2"], float_tensors(cnn["model"], ["m4", "r2"], cnn["data"], work)))
    assert sorted(rep["per_channel_acts"]) == ["m4", "r2"]
    for t, x in ref.items():
        q = [n for n in m.graph.node if n.op_type in ("QuantizeLinear", "DequantizeLinear") and
             n.name.startswith(t + "_")]
        assert len(q) == 2 and all([a.i for a in n.attribute if a.name == "axis"] == [1] for n in q)
        lo = np.minimum(x.min(axis=(0, 2, 3)).astype(np.float64), 0.0)
        hi = np.maximum(x.max(axis=(0, 2, 3)).astype(np.float64), 0.0)
        scale = ((hi - lo) / 255.0).astype(np.float32)
        np.testing.assert_allclose(inits[t + "_scale"], scale, rtol=1e-6)
        zp = np.clip(np.rint(-lo / scale), 0, 255)
        assert np.abs(inits[t + "_zero_point"].astype(np.int32) - zp).max() <= 1
        assert inits[t + "_zero_point"].dtype == np.uint8 and inits[t + "_scale"].shape == (x.shape[1],)
    # the other tensors stay per tensor
    others = [n for n in m.graph.node if n.op_type == "QuantizeLinear" and not n.name.startswith(("m4_", "r2_"))]
    assert others and all(numpy_helper.to_array(next(t for t in m.graph.initializer if t.name == n.input[1])).ndim
                          == 0 for n in others)


def test_ort_and_openacl_run_the_per_axis_file_alike(cnn, pc_model, work):
    path, rep = pc_model
    fp = [acl_run(cnn["model"], [a])[0] for a in cnn["eval_data"]]
    mine = [acl_run(path, [a])[0] for a in cnn["eval_data"]]
    theirs = []
    for i, a in enumerate(cnn["eval_data"]):
        # basic: ORT 1.30's QDQ fusions (level all) refuse per-axis activation scales
        o = ort_run(path, [a], str(work / ("pc_ort%d" % i)), opt="basic")
        if o is None:
            pytest.skip("ONNX Runtime (node + onnxruntime-node) not available")
        theirs.append(o[0])
    mine, theirs, fp = np.concatenate(mine), np.concatenate(theirs), np.concatenate(fp)
    q_err = np.abs(theirs - fp).max()
    assert q_err > 0
    # the two int8 executions differ by a rounding step here and there, far
    # less than what quantisation itself moves the logits
    assert np.abs(mine - theirs).max() <= 0.25 * q_err, (np.abs(mine - theirs).max(), q_err)
    assert rep["accuracy"]["outputs"]["logits"]["cosine_mean"] > 0.99


def test_bad_values_refused(cnn, tmp_path):
    out = str(tmp_path / "o.onnx")
    fails(cnn["model"], "--calib", cnn["calib"], "-o", out, "--per-channel-act", "NoSuchOp",
          want=["--per-channel-act", "NoSuchOp"])
    fails(cnn["model"], "--calib", cnn["calib"], "-o", out, "--per-channel-act", "depthwise",
          want=["--per-channel-act", "depthwise"])
    fails(cnn["model"], "--calib", cnn["calib"], "-o", out, "--per-channel-act", "Mul", "--method", "entropy",
          want=["--per-channel-act", "entropy"])
    fails(cnn["model"], "--dynamic", "-o", out, "--per-channel-act", "Mul", want=["--dynamic"])
