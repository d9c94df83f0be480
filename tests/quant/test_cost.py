"""--fallback-rank cost and --max-float-cost: each layer's multiply-
accumulates against a count made with numpy (a direct convolution and
product done here, counting the multiplies), the order and the budget of
the greedy fallback on a scored stand-in whose cosine is a known sum of
per-layer gains, the options end to end on the small CNN, and bad values
refused with a clear message."""
import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import run_tool
from oaquant import cost, tune
from test_errors import fails


def counted_conv_macs(x_shape, w_shape, group, stride, pad):
    """Multiplies of a direct grouped convolution: each output element
    takes Cin/group * KH * KW taps (padded ones included, as im2col does)."""
    n, c, h, w = x_shape
    co, ci, kh, kw = w_shape
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w + 2 * pad - kw) // stride + 1
    per_out = int(np.ones((ci, kh, kw), np.int64).sum())
    assert ci * group == c
    return n * co * oh * ow * per_out


def small_model(path):
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), nm) for nm, s in
             [("w1", [16, 4, 3, 3]), ("w2", [16, 1, 5, 5]), ("wm", [3, 7]), ("wg_t", [7, 5])]]
    N = helper.make_node
    nodes = [N("Conv", ["x", "w1"], ["c1"], "conv", pads=[1, 1, 1, 1], strides=[2, 2]),
             N("Conv", ["c1", "w2"], ["c2"], "dw", pads=[2, 2, 2, 2], group=16),
             N("Relu", ["c2"], ["r"], "relu"),
             N("MatMul", ["r", "wm"], ["m"], "mm"),
             N("MatMul", ["m", "wg_t"], ["y"], "mm2")]
    g = helper.make_graph(nodes, "cost", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, 6, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, path)
    return m


def test_layer_macs_match_a_counted_convolution_and_product(tmp_path):
    m = small_model(str(tmp_path / "c.onnx"))
    costs, total = cost.layer_costs(m)
    # the symbolic batch counts as 1
    assert costs["conv"] == counted_conv_macs((1, 4, 6, 6), (16, 4, 3, 3), 1, 2, 1)
    assert costs["dw"] == counted_conv_macs((1, 16, 3, 3), (16, 1, 5, 5), 16, 1, 2)
    # products of ones: each output element sums one 1 per multiply
    assert costs["mm"] == int(np.einsum("ncik,kj->ncij", np.ones((1, 16, 3, 3)), np.ones((3, 7))).sum())
    assert costs["mm2"] == int(np.einsum("ncik,kj->ncij", np.ones((1, 16, 3, 7)), np.ones((7, 5))).sum())
    assert costs["relu"] == 16 * 3 * 3
    assert total == sum(costs.values())


def test_float_cost_counts_conversions_only_between_float_and_int8(tmp_path):
    """x -> conv -> Relu -> dw -> Relu -> mm -> mm2 with every layer
    quantised: a float layer pays CONVERT_MACS per element of each
    activation it takes from or gives to an int8 layer; the graph input and
    output and a tensor between two float layers cost nothing."""
    m = small_model(str(tmp_path / "c.onnx"))
    macs, total = cost.layer_costs(m)
    fc = cost.FloatCost(m, ["conv", "dw", "mm", "mm2"])
    assert fc.total == total
    k = cost.CONVERT_MACS
    c1, c2, mo = 16 * 3 * 3, 16 * 3 * 3, 16 * 3 * 7
    assert fc([]) == 0
    assert fc(["conv"]) == macs["conv"] + k * c1                       # reads the graph input: no conversion
    assert fc(["dw"]) == macs["dw"] + k * (c1 + c2)                    # through the Relus to int8 on both sides
    assert fc(["conv", "dw"]) == macs["conv"] + macs["dw"] + k * c2     # c1 stays float between them
    assert fc(["conv", "dw"]) < fc(["conv"]) + fc(["dw"])
    assert fc(["mm2"]) == macs["mm2"] + k * mo      # its int8 input; the graph output it writes costs nothing
    assert fc(["conv", "dw", "mm", "mm2"]) == sum(macs[l] for l in ["conv", "dw", "mm", "mm2"])


class Additive:
    """A cost whose sets cost the sum of their layers'."""

    def __init__(self, macs):
        self.macs, self.total = macs, sum(macs.values())

    def __call__(self, labels):
        return sum(self.macs[k] for k in labels)


class Scored:
    """A stand-in for tune.Search: the cosine of a variant is the start plus
    the known gain of each layer kept in float."""

    def __init__(self, start, gains):
        self.start, self.gains, self.runs = start, gains, 0

    def score(self, kept):
        self.runs += 1
        return self.start + sum(self.gains[k] for k in kept)


LAYERS = [{"node": k, "min_sqnr_db": 30.0} for k in "abcd"]
GAINS = {"a": 0.004, "b": 0.003, "c": 0.002, "d": -0.001}
MACS = {"a": 1000, "b": 100, "c": 50, "d": 10}


def test_rank_gain_takes_the_largest_gain_first():
    fb = tune.fallback(Scored(0.98, GAINS), LAYERS, 0.9835, 8, 0)
    assert [f["node"] for f in fb["float_layers"]] == ["a"] and fb["met"]


def test_rank_cost_takes_gain_per_mac_and_meets_the_target_cheaper():
    costs = Additive(MACS)
    fb = tune.fallback(Scored(0.98, GAINS), LAYERS, 0.9845, 8, 0, rank="cost", costs=costs)
    got = [f["node"] for f in fb["float_layers"]]
    ratio = {k: GAINS[k] / MACS[k] for k in got}
    assert got == ["c", "b"] and fb["met"], fb                 # 0.98 + 0.002 + 0.003 >= 0.9845
    assert ratio["c"] >= ratio["b"]
    assert fb["float_cost"] == 150 and fb["float_cost_fraction"] == pytest.approx(150 / 1160)
    # the same target by gain costs 1000 MACs (a, then b): the cost rank is cheaper
    by_gain = tune.fallback(Scored(0.98, GAINS), LAYERS, 0.9845, 8, 0, costs=costs)
    assert by_gain["float_cost"] > fb["float_cost"]


@pytest.mark.parametrize("budget", [0.0, 0.05, 0.2, 1.0])
def test_budget_is_never_exceeded(budget):
    costs = Additive(MACS)
    fb = tune.fallback(Scored(0.98, GAINS), LAYERS, 0.99, 8, 0, rank="cost", costs=costs, budget=budget)
    spent = sum(MACS[f["node"]] for f in fb["float_layers"])
    assert spent <= budget * costs.total and fb["float_cost"] == spent
    # every positive-gain layer that fitted in what was left was taken
    left = [k for k in GAINS if GAINS[k] > 0 and k not in [f["node"] for f in fb["float_layers"]]]
    assert all(spent + MACS[k] > budget * costs.total for k in left), fb


def test_cost_options_end_to_end(cnn, tmp_path):
    rep = str(tmp_path / "r.json")
    run_tool(cnn["model"], "--calib", cnn["calib"], "--eval", cnn["eval"], "-o", tmp_path / "q.onnx", "--quiet",
             "--per-tensor", "--target-cosine", "0.99999999", "--fallback-rank", "cost", "--max-float-cost", "0.1",
             "--report", rep)
    fb = json.load(open(rep))["fallback"]
    layers = [row["node"] for row in json.load(open(rep))["layers"]]
    fc = cost.FloatCost(onnx.load(cnn["model"]), layers)
    assert fb["rank"] == "cost" and fb["total_macs"] == fc.total
    assert fc([f["node"] for f in fb["float_layers"]]) == fb["float_cost"] <= 0.1 * fc.total
    # conv2 does 8*8*9 MACs for each of 8*8*8 outputs: over the budget alone
    assert fc(["conv2"]) > 0.1 * fc.total and "conv2" not in [f["node"] for f in fb["float_layers"]]


@pytest.mark.parametrize("args,want", [
    (["--max-float-cost", "1.5"], "--max-float-cost must be a fraction of the model's MACs in [0, 1]"),
    (["--max-float-cost", "-0.1"], "--max-float-cost must be a fraction"),
    (["--max-float-cost", "nan"], "--max-float-cost must be a fraction"),
])
def test_bad_cost_options(cnn, tmp_path, args, want):
    fails(cnn["model"], "--calib", cnn["calib"], "-o", tmp_path / "o.onnx", "--quiet", "--target-cosine", "0.99",
          *args, want=[want])


def test_unknown_rank_is_a_command_line_error(cnn, tmp_path):
    p = run_tool(cnn["model"], "--calib", cnn["calib"], "-o", tmp_path / "o.onnx", "--fallback-rank", "speed",
                 check=False)
    assert p.returncode == 2 and "invalid choice" in p.stderr and "cost" in p.stderr
