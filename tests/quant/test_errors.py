"""Bad input to openacl-quant: a clear message naming the problem, exit
status 1 (2 for a bad command line), never a traceback."""
import os

import numpy as np
import onnx
import pytest

import qmodels
from conftest import acl_run, run_tool


def fails(*args, want):
    p = run_tool(*args, check=False)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr, p.stderr
    for w in want:
        assert w in p.stderr, "%r not in %r" % (w, p.stderr)
    return p


def folder(tmp_path, name, arrays):
    d = tmp_path / name
    d.mkdir()
    for i, a in enumerate(arrays):
        np.save(str(d / ("s%d.npy" % i)), a)
    return str(d)


def test_wrong_shape(cnn, tmp_path):
    d = folder(tmp_path, "shape", [np.zeros([1, 3, 16, 16], np.float32), np.zeros([1, 3, 8, 8], np.float32)])
    fails(cnn["model"], "--calib", d, "-o", tmp_path / "o.onnx", want=["s1.npy", "shape [1, 3, 8, 8]",
                                                                       "[1, 3, 16, 16]"])


def test_wrong_dtype(cnn, tmp_path):
    d = folder(tmp_path, "dtype", [np.zeros([1, 3, 16, 16], np.float64)])
    fails(cnn["model"], "--calib", d, "-o", tmp_path / "o.onnx", want=["s0.npy", "float64", "float32"])


def test_empty_folder(cnn, tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    fails(cnn["model"], "--calib", str(d), "-o", tmp_path / "o.onnx", want=["holds no samples"])


def test_missing_folder(cnn, tmp_path):
    fails(cnn["model"], "--calib", str(tmp_path / "nope"), "-o", tmp_path / "o.onnx", want=["does not exist"])


def test_unreadable_file(cnn, tmp_path):
    d = tmp_path / "bad"
    d.mkdir()
    (d / "junk.npy").write_bytes(b"not a numpy file at all")
    fails(cnn["model"], "--calib", str(d), "-o", tmp_path / "o.onnx", want=["junk.npy", "not a readable .npy"])


def test_bad_raw_bin_size(cnn, tmp_path):
    d = tmp_path / "bin"
    d.mkdir()
    np.zeros(100, np.float32).tofile(str(d / "a.bin"))
    fails(cnn["model"], "--calib", str(d), "-o", tmp_path / "o.onnx", want=["a.bin", "400 bytes", "3072"])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_inputs_refused(cnn, tmp_path, bad):
    a = np.zeros([1, 3, 16, 16], np.float32)
    a[0, 1, 2, 3] = bad
    d = folder(tmp_path, "nan", [np.ones([1, 3, 16, 16], np.float32), a])
    fails(cnn["model"], "--calib", d, "-o", tmp_path / "o.onnx", want=["s1.npy", "NaN/Inf"])


def test_not_onnx(cnn, tmp_path):
    p = tmp_path / "model.onnx"
    p.write_bytes(b"\x00\x01garbage" * 50)
    fails(str(p), "--calib", cnn["calib"], "-o", tmp_path / "o.onnx", want=["not an ONNX model"])
    fails(str(tmp_path / "absent.onnx"), "--calib", cnn["calib"], "-o", tmp_path / "o.onnx",
          want=["cannot read the model"])


def test_unknown_skip(cnn, tmp_path):
    fails(cnn["model"], "--calib", cnn["calib"], "-o", tmp_path / "o.onnx", "--skip", "conv9",
          want=["--skip", "conv9"])


def test_multi_input_needs_sub_folders(tmp_path):
    m = qmodels.two_inputs(str(tmp_path / "two.onnx"))
    d = folder(tmp_path, "flat", [np.zeros([1, 8], np.float32)])
    fails(m, "--calib", d, "-o", tmp_path / "o.onnx", want=["2 inputs", "sub-folder"])
    # the documented layout works: one sub-folder per sample, files named after the inputs or by index
    root = tmp_path / "samples"
    rng = np.random.default_rng(0)
    for i in range(3):
        s = root / ("%d" % i)
        s.mkdir(parents=True)
        np.save(str(s / "a.npy"), rng.standard_normal([1, 8]).astype(np.float32))
        np.save(str(s / ("1.npy")), rng.standard_normal([1, 8]).astype(np.float32))
    run_tool(m, "--calib", str(root), "-o", str(tmp_path / "two_q.onnx"), "--quiet")
    (root / "2" / "1.npy").unlink()
    fails(m, "--calib", str(root), "-o", tmp_path / "o.onnx", want=["no file for input 'b'"])


def test_zero_range_activation(tmp_path):
    """A constant-zero activation gets a valid scale (1, zero point 0):
    no division by zero, finite outputs equal to fp32's."""
    m = qmodels.constant_act(str(tmp_path / "const.onnx"))
    rng = np.random.default_rng(0)
    d = folder(tmp_path, "c", [rng.standard_normal([1, 3, 4, 4]).astype(np.float32) for _ in range(6)])
    out = str(tmp_path / "const_q.onnx")
    p = run_tool(m, "--calib", d, "-o", out, "--report", str(tmp_path / "r.json"))
    assert "warning" not in p.stderr.lower()
    q = onnx.load(out)
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in q.graph.initializer}
    qn = next(n for n in q.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == "r")
    assert float(inits[qn.input[1]]) == 1.0 and int(inits[qn.input[2]]) == 0
    x = rng.standard_normal([1, 3, 4, 4]).astype(np.float32)
    y = acl_run(out, [x])[0]
    assert np.isfinite(y).all() and not y.any()
    import json
    rep = json.load(open(str(tmp_path / "r.json")))
    assert rep["accuracy"]["classifier"] is False         # a 4-D output: errors, not top-1
    assert rep["accuracy"]["outputs"]["y"]["max_abs_error"] == 0.0


def test_bad_command_line(cnn, tmp_path):
    p = run_tool(cnn["model"], "--calib", cnn["calib"], check=False)       # no -o
    assert p.returncode == 2 and "Traceback" not in p.stderr
    fails(cnn["model"], "--calib", cnn["calib"], "-o", tmp_path / "o.onnx", "--percentile", "20",
          want=["--percentile"])
    fails(cnn["model"], "-o", tmp_path / "o.onnx", want=["--calib"])


def test_unwritable_output(cnn, tmp_path):
    fails(cnn["model"], "--calib", cnn["calib"], "-o", os.path.join(str(tmp_path), "no", "dir", "o.onnx"),
          "--quiet", want=["cannot write"])
