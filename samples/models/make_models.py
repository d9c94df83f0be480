#!/usr/bin/python3
"""Builds the small models and inputs the samples run on, with reference
outputs computed by numpy (no ONNX runtime involved):

  classifier.onnx     image [1,3,32,32] -> Conv 3x3 + Relu -> global average
                      pool -> Gemm -> Softmax -> prob [1,10]
  classifier_b8.onnx  the same network (same weights) for a batch of 8
  head.onnx           prob [1,10] -> Gemm + Relu -> scores [1,4]
  classifier224.onnx  image [1,3,224,224] -> Conv 8x8 stride 8 + Relu ->
                      global average pool -> Gemm -> logits [1,10] (the
                      DVPP samples' model; check_sample.py has its numpy
                      reference)
  images/img_NN.bin   11 inputs of [1,3,32,32] float32
  ref/img_NN.prob.bin   classifier(image)
  ref/img_NN.scores.bin head(classifier(image))

Run: make_models.py <out-dir>"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
N_IMAGES = 11
for d in ("", "images", "ref"):
    os.makedirs(os.path.join(OUT, d), exist_ok=True)
rng = np.random.default_rng(2024)

conv_w = (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32)
conv_b = (rng.standard_normal((8,)) * 0.1).astype(np.float32)
fc_w = rng.standard_normal((10, 8)).astype(np.float32)
fc_b = (rng.standard_normal((10,)) * 0.1).astype(np.float32)
head_w = rng.standard_normal((4, 10)).astype(np.float32)
head_b = (rng.standard_normal((4,)) * 0.1).astype(np.float32)


def save(name, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="openacl-samples")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save_model(m, os.path.join(OUT, name + ".onnx"))


def classifier(name, batch):
    save(name,
         [helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
          helper.make_node("Relu", ["c"], ["r"]),
          helper.make_node("GlobalAveragePool", ["r"], ["p"]),
          helper.make_node("Flatten", ["p"], ["f"]),
          helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], transB=1),
          helper.make_node("Softmax", ["logits"], ["prob"], axis=1)],
         [helper.make_tensor_value_info("image", TensorProto.FLOAT, [batch, 3, 32, 32])],
         [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [batch, 10])],
         [numpy_helper.from_array(conv_w, "conv_w"), numpy_helper.from_array(conv_b, "conv_b"),
          numpy_helper.from_array(fc_w, "fc_w"), numpy_helper.from_array(fc_b, "fc_b")])


classifier("classifier", 1)
classifier("classifier_b8", 8)
save("head",
     [helper.make_node("Gemm", ["prob", "head_w", "head_b"], ["h"], transB=1),
      helper.make_node("Relu", ["h"], ["scores"])],
     [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 10])],
     [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 4])],
     [numpy_helper.from_array(head_w, "head_w"), numpy_helper.from_array(head_b, "head_b")])


def classifier_ref(x):
    """numpy reference of the classifier for one [1,3,32,32] image."""
    xp = np.pad(x[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    # im2col: [27, 32*32] patches, then one matrix product for the convolution
    cols = np.stack([xp[c, i:i + 32, j:j + 32].reshape(-1)
                     for c in range(3) for i in range(3) for j in range(3)])
    conv = conv_w.reshape(8, 27).astype(np.float64) @ cols + conv_b[:, None]
    pooled = np.maximum(conv, 0).mean(axis=1)
    logits = fc_w.astype(np.float64) @ pooled + fc_b
    e = np.exp(logits - logits.max())
    return (e / e.sum()).astype(np.float32).reshape(1, 10)


def head_ref(prob):
    return np.maximum(prob.astype(np.float64) @ head_w.T.astype(np.float64) + head_b, 0).astype(np.float32)


for k in range(N_IMAGES):
    x = rng.uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32)
    x.tofile(os.path.join(OUT, "images", "img_%02d.bin" % k))
    prob = classifier_ref(x)
    prob.tofile(os.path.join(OUT, "ref", "img_%02d.prob.bin" % k))
    head_ref(prob).tofile(os.path.join(OUT, "ref", "img_%02d.scores.bin" % k))
# The DVPP samples' classifier: a real 224x224 input, patch features that
# see colour and texture, 10 classes. Its own generator so the models above
# keep their weights.
rng224 = np.random.default_rng(224)
c224_w = (rng224.standard_normal((16, 3, 8, 8)) * 0.05).astype(np.float32)
c224_b = (rng224.standard_normal((16,)) * 0.1).astype(np.float32)
f224_w = rng224.standard_normal((10, 16)).astype(np.float32)
f224_b = (rng224.standard_normal((10,)) * 0.1).astype(np.float32)
save("classifier224",
     [helper.make_node("Conv", ["image", "c224_w", "c224_b"], ["c"], kernel_shape=[8, 8], strides=[8, 8]),
      helper.make_node("Relu", ["c"], ["r"]),
      helper.make_node("GlobalAveragePool", ["r"], ["p"]),
      helper.make_node("Flatten", ["p"], ["f"]),
      helper.make_node("Gemm", ["f", "f224_w", "f224_b"], ["logits"], transB=1)],
     [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 224, 224])],
     [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
     [numpy_helper.from_array(c224_w, "c224_w"), numpy_helper.from_array(c224_b, "c224_b"),
      numpy_helper.from_array(f224_w, "f224_w"), numpy_helper.from_array(f224_b, "f224_b")])
print("sample models written to", OUT)
