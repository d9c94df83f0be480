"""The openacl extras: Session and run() on numpy arrays (not pyACL)."""
import numpy as np
import pytest

import acl
import openacl

import models as M


def test_run_one_call(ctx, model_paths):
    x = np.random.default_rng(1).standard_normal((1, 2, 6, 6)).astype(np.float32)
    y, = openacl.run(model_paths["conv_relu"], [x])
    np.testing.assert_allclose(y, M.conv_relu_ref(x), rtol=1e-4, atol=1e-5)
    # the caller's context is untouched
    assert acl.rt.get_context() == (ctx, 0)


def test_session_reuse_dict_inputs_bytes_model(ctx, model_paths):
    with open(model_paths["matmul_add"], "rb") as f:
        image = f.read()
    with openacl.Session(image, device=1) as s:
        assert [i.name for i in s.inputs] == ["X"] and s.inputs[0].dims == [4, 8]
        assert s.outputs[0].dtype == np.float32 and s.outputs[0].size == 80
        for seed in range(3):
            x = np.random.default_rng(seed).standard_normal((4, 8))      # float64: cast to the model's type
            y, = s.run({"X": x})
            np.testing.assert_allclose(y, M.matmul_add_ref(x.astype(np.float32)), rtol=1e-4, atol=1e-5)
        with pytest.raises(ValueError):
            s.run([np.zeros((3, 8), np.float32)])
        with pytest.raises(ValueError):
            s.run({"nope": np.zeros((4, 8), np.float32)})
    with pytest.raises(RuntimeError):
        s.run([np.zeros((4, 8), np.float32)])
    assert acl.rt.get_context() == (ctx, 0)


def test_session_dynamic_shapes(ctx, model_paths):
    with openacl.Session(model_paths["dyn_affine"]) as s:
        assert s.inputs[0].dims == [-1, 3] and s.outputs[0].size == 0
        for n in (1, 7, 3):
            x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
            y, = s.run(x)
            assert y.shape == (n, 3)
            np.testing.assert_allclose(y, M.dyn_affine_ref(x))


def test_session_errors(ctx, tmp_path):
    with pytest.raises(openacl.AclError) as e:
        openacl.Session(str(tmp_path / "missing.onnx"))
    assert e.value.api == "acl.mdl.load_from_file" and e.value.code != 0
    assert openacl.numpy_dtype(1) == np.float16
    with pytest.raises(ValueError):
        openacl.numpy_dtype(13)


@pytest.mark.parametrize("op,empty", [("MatMul", "K"), ("Gemm", "K"), ("MatMul", "M"), ("Gemm", "M")])
def test_empty_products(ctx, op, empty):
    # X sliced to zero columns (K = 0: the product is zeros, plus C for Gemm)
    # or zero rows (M = 0: an empty product, concatenated to X's rows);
    # oneDNN divides by these sizes, so the runtime must not hand them over
    from onnx import TensorProto, helper, numpy_helper
    c = np.array([1.5, -2.0, 0.25, 4.0], np.float32)
    k = 0 if empty == "K" else 4
    axis = 1 if empty == "K" else 0
    inits = [numpy_helper.from_array(np.array(v, np.int64), n)
             for n, v in (("s", [0]), ("e", [0]), ("ax", [axis]))]
    b = np.arange(k * 4, dtype=np.float32).reshape(k, 4)
    inits += [numpy_helper.from_array(b, "B"), numpy_helper.from_array(c, "C")]
    nodes = [helper.make_node("Slice", ["X", "s", "e", "ax"], ["xs"]),
             helper.make_node(op, ["xs", "B", "C"] if op == "Gemm" else ["xs", "B"], ["p"])]
    if empty == "M":
        nodes.append(helper.make_node("Concat", ["p", "X"], ["Y"], axis=0))
    else:
        nodes.append(helper.make_node("Identity", ["p"], ["Y"]))
    m = M._model(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 4])],
                 [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 4])], inits)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    with openacl.Session(m.SerializeToString()) as s:
        y, = s.run(x)
    if empty == "M":
        want = x
    else:
        want = np.broadcast_to(c if op == "Gemm" else np.zeros(4, np.float32), (2, 4))
    np.testing.assert_array_equal(y, want)
