"""Small fp32 ONNX models for openacl-quant's tests, built with onnx.helper
from seeded random weights: a CNN with every quantised op kind and an MLP
with MatMul and Gemm (both transB forms)."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _w(rng, name, shape, scale=0.3):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def cnn(path, seed=0):
    """x[1,3,16,16] -> Conv+Relu -> MaxPool -> Conv+Clip, Conv (no bias) ->
    Add (residual) -> Relu -> Concat with an AveragePool branch -> Conv ->
    x*Sigmoid(x) -> GlobalAveragePool -> Flatten -> Gemm -> logits [1,10]."""
    rng = np.random.default_rng(seed)
    inits = [_w(rng, "c1_w", [8, 3, 3, 3]), _w(rng, "c1_b", [8], 0.1),
             _w(rng, "c2_w", [8, 8, 3, 3], 0.2), _w(rng, "c2_b", [8], 0.1),
             _w(rng, "c3_w", [8, 8, 1, 1], 0.3),
             _w(rng, "c4_w", [12, 16, 3, 3], 0.2), _w(rng, "c4_b", [12], 0.1),
             _w(rng, "fc_w", [10, 12], 0.4), _w(rng, "fc_b", [10], 0.1),
             numpy_helper.from_array(np.array(0.0, np.float32), "clip_lo"),
             numpy_helper.from_array(np.array(6.0, np.float32), "clip_hi")]
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "c1_w", "c1_b"], ["c1"], "conv1", pads=[1, 1, 1, 1]),
        N("Relu", ["c1"], ["r1"], "relu1"),
        N("MaxPool", ["r1"], ["p1"], "pool1", kernel_shape=[2, 2], strides=[2, 2]),
        N("Conv", ["p1", "c2_w", "c2_b"], ["c2"], "conv2", pads=[1, 1, 1, 1]),
        N("Clip", ["c2", "clip_lo", "clip_hi"], ["k2"], "clip2"),
        N("Conv", ["p1", "c3_w"], ["c3"], "conv3"),
        N("Add", ["k2", "c3"], ["a1"], "add1"),
        N("Relu", ["a1"], ["r2"], "relu2"),
        N("AveragePool", ["p1"], ["ap"], "avgpool", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
          count_include_pad=0),
        N("Concat", ["r2", "ap"], ["cat"], "concat", axis=1),
        N("Conv", ["cat", "c4_w", "c4_b"], ["c4"], "conv4", pads=[1, 1, 1, 1]),
        N("Sigmoid", ["c4"], ["s4"], "sig4"),
        N("Mul", ["c4", "s4"], ["m4"], "swish4"),
        N("GlobalAveragePool", ["m4"], ["g"], "gap"),
        N("Flatten", ["g"], ["f"], "flatten"),
        N("Gemm", ["f", "fc_w", "fc_b"], ["logits"], "fc", transB=1),
    ]
    g = helper.make_graph(nodes, "qcnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="qtest")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, path)
    return path


def mlp(path, seed=1):
    """x[2,16] -> MatMul(W[16,24]) + b -> Relu -> Gemm(transB=0, [24,20]) ->
    Relu -> Gemm(transB=1, [12,20]) -> y[2,12]."""
    rng = np.random.default_rng(seed)
    inits = [_w(rng, "w1", [16, 24]), _w(rng, "b1", [24], 0.1), _w(rng, "w2", [24, 20], 0.3),
             _w(rng, "b2", [20], 0.1), _w(rng, "w3", [12, 20], 0.3), _w(rng, "b3", [12], 0.1)]
    N = helper.make_node
    nodes = [N("MatMul", ["x", "w1"], ["mm1"], "mm1"), N("Add", ["mm1", "b1"], ["h1"], "bias1"),
             N("Relu", ["h1"], ["r1"], "relu1"), N("Gemm", ["r1", "w2", "b2"], ["h2"], "gemm2"),
             N("Relu", ["h2"], ["r2"], "relu2"), N("Gemm", ["r2", "w3", "b3"], ["y"], "gemm3", transB=1)]
    g = helper.make_graph(nodes, "qmlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 12])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="qtest")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, path)
    return path


def two_inputs(path):
    """a[1,8] + b[1,8] -> MatMul W -> y: a model with two inputs."""
    rng = np.random.default_rng(2)
    N = helper.make_node
    g = helper.make_graph(
        [N("Add", ["a", "b"], ["s"], "add"), N("MatMul", ["s", "w"], ["y"], "mm")], "q2in",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [_w(rng, "w", [8, 4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="qtest")
    m.ir_version = 7
    onnx.save(m, path)
    return path


def constant_act(path):
    """A Conv whose weights and bias are all zero: its output (and the Relu
    after it) is a constant 0, a zero-range activation."""
    rng = np.random.default_rng(3)
    N = helper.make_node
    z = numpy_helper.from_array(np.zeros([4, 3, 1, 1], np.float32), "zw")
    zb = numpy_helper.from_array(np.zeros([4], np.float32), "zb")
    g = helper.make_graph(
        [N("Conv", ["x", "zw", "zb"], ["c"], "zconv"), N("Relu", ["c"], ["r"], "zrelu"),
         N("Conv", ["r", "w2"], ["y"], "conv2")], "qconst",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])],
        [z, zb, _w(rng, "w2", [2, 4, 1, 1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="qtest")
    m.ir_version = 7
    onnx.save(m, path)
    return path


def write_samples(folder, shape, n, seed=0, dist="normal", dtype=np.float32):
    import os
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        a = (rng.standard_normal(shape) if dist == "normal" else rng.uniform(-1, 1, shape)).astype(dtype)
        p = os.path.join(folder, "s%03d.npy" % i)
        np.save(p, a)
        out.append(a)
    return out
