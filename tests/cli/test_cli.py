"""openacl-run end to end: output files against numpy, every --outfmt,
folders of inputs, range-dynamic shapes, runtime-allocated outputs, the
--json summary, several devices and workers, and every error exit.
Environment: OPENACL_RUN (the binary), CLI_MODELS (make_models.py output)."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

RUN = os.environ["OPENACL_RUN"]
M = os.environ["CLI_MODELS"]


def p(name):
    return os.path.join(M, name)


def run(*args, expect=0):
    r = subprocess.run([RUN, *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == expect, "exit %d, expected %d\nstdout:\n%s\nstderr:\n%s" % (
        r.returncode, expect, r.stdout, r.stderr)
    return r


def relu(x):
    return np.maximum(x, 0)


def add_relu_ref(x, y):
    return [relu(x + y), x * y]


def matmul_ref(x):
    return x @ np.load(p("matmul.W.npy")) + np.load(p("matmul.B.npy"))


def conv_ref(x):
    w = np.load(p("conv.W.npy"))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((1, 3, 6, 6), np.float32)
    for o in range(3):
        for i in range(6):
            for j in range(6):
                y[0, o, i, j] = np.sum(xp[0, :, i:i + 3, j:j + 3] * w[o])
    return y


def bin_in(name, i, dtype=np.float32):
    return np.fromfile(p("%s.in%d.bin" % (name, i)), dtype)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---- outputs ----

def test_out_bin_two_inputs(tmp_path):
    run("--model", p("add_relu.onnx"), "--input", p("add_relu.in0.bin") + "," + p("add_relu.in1.bin"),
        "--output", str(tmp_path), "--output_dirname", "r", "--loop", "3")
    x, y = bin_in("add_relu", 0).reshape(2, 3), bin_in("add_relu", 1).reshape(2, 3)
    want = add_relu_ref(x, y)
    assert sorted(os.listdir(tmp_path / "r")) == ["add_relu_output_0.bin", "add_relu_output_1.bin"]
    for i in range(2):
        got = np.fromfile(tmp_path / "r" / ("add_relu_output_%d.bin" % i), np.float32).reshape(2, 3)
        close(got, want[i])


def test_out_npy_in_and_out(tmp_path):
    run("--model", p("matmul.onnx"), "--input", p("matmul.in0.npy"), "--output", str(tmp_path),
        "--output_dirname", "r", "--outfmt", "NPY")
    got = np.load(tmp_path / "r" / "matmul_output_0.npy")
    assert got.dtype == np.float32 and got.shape == (4, 5)
    close(got, matmul_ref(np.load(p("matmul.in0.npy"))), 1e-4)


def test_out_txt_layout(tmp_path):
    run("--model", p("add_relu.onnx"), "--input", p("add_relu.in0.npy") + "," + p("add_relu.in1.npy"),
        "--output", str(tmp_path), "--output_dirname", "r", "--outfmt", "txt")
    want = add_relu_ref(np.load(p("add_relu.in0.npy")), np.load(p("add_relu.in1.npy")))
    for i in range(2):
        text = (tmp_path / "r" / ("add_relu_output_%d.txt" % i)).read_text()
        # msame's layout: a blank line between the items of the batch (dim 0)
        items = text.strip().split("\n\n")
        assert len(items) == 2
        close(np.array([float(v) for v in text.split()], np.float32).reshape(2, 3), want[i])


def test_out_conv_nchw_listing(tmp_path):
    r = run("--model", p("conv.onnx"), "--input", p("conv.in0.bin"), "--output", str(tmp_path),
            "--output_dirname", "r", "--outfmt", "NPY")
    assert re.search(r"input\s+0: X\s+dims \[1,2,6,6\]\s+float32\s+NCHW\s+size 288", r.stdout), r.stdout
    assert re.search(r"output 0: Y\s+dims \[1,3,6,6\]\s+float32\s+NCHW\s+size 432", r.stdout), r.stdout
    close(np.load(tmp_path / "r" / "conv_output_0.npy"), conv_ref(bin_in("conv", 0).reshape(1, 2, 6, 6)), 1e-4)


def test_out_fp16_and_int64(tmp_path):
    run("--model", p("fp16.onnx"), "--input", p("fp16.in0.npy"), "--output", str(tmp_path),
        "--output_dirname", "h", "--outfmt", "NPY")
    x = np.load(p("fp16.in0.npy"))
    got = np.load(tmp_path / "h" / "fp16_output_0.npy")
    assert got.dtype == np.float16 and got.shape == (2, 4)
    close(got.astype(np.float32), (x + x * x).astype(np.float32), 2e-3)
    run("--model", p("int64.onnx"), "--input", p("int64.in0.bin"), "--output", str(tmp_path),
        "--output_dirname", "i", "--outfmt", "TXT")
    vals = [int(v) for v in (tmp_path / "i" / "int64_output_0.txt").read_text().split()]
    assert vals == list(bin_in("int64", 0, np.int64) * 3)


def test_out_folders_one_file_per_inference(tmp_path):
    r = run("--model", p("add_relu.onnx"), "--input", p("fx") + "," + p("fy"), "--output", str(tmp_path),
            "--output_dirname", "r", "--loop", "2", "--outfmt", "NPY")
    assert "8 measured (2 loop x 4 input set(s)" in r.stdout, r.stdout
    files = sorted(os.listdir(tmp_path / "r"))
    assert files == ["s%d_output_%d.npy" % (k, i) for k in range(4) for i in range(2)]
    for k in range(4):
        x = np.load(p("fx/s%d.npy" % k))
        y = np.fromfile(p("fy/s%d.bin" % k), np.float32).reshape(2, 3)
        want = add_relu_ref(x, y)
        for i in range(2):
            close(np.load(tmp_path / "r" / ("s%d_output_%d.npy" % (k, i))), want[i])


def test_out_folder_with_fixed_file(tmp_path):
    run("--model", p("add_relu.onnx"), "--input", p("fx") + "," + p("add_relu.in1.bin"), "--output", str(tmp_path),
        "--output_dirname", "r", "--outfmt", "NPY")
    y = bin_in("add_relu", 1).reshape(2, 3)
    for k in range(4):
        close(np.load(tmp_path / "r" / ("s%d_output_0.npy" % k)), relu(np.load(p("fx/s%d.npy" % k)) + y))


def test_out_range_dynamic(tmp_path):
    x = bin_in("dyn", 0).reshape(5, 3)
    # a raw file needs the shape
    run("--model", p("dyn.onnx"), "--input", p("dyn.in0.bin"), "--dymShape", "X:5,3", "--output", str(tmp_path),
        "--output_dirname", "a", "--outfmt", "NPY")
    got = np.load(tmp_path / "a" / "dyn_output_0.npy")
    assert got.shape == (5, 3)
    close(got, x * 2 + 1)
    # a .npy carries it
    np.save(tmp_path / "x2.npy", x[:2])
    run("--model", p("dyn.onnx"), "--input", str(tmp_path / "x2.npy"), "--output", str(tmp_path),
        "--output_dirname", "b", "--outfmt", "NPY")
    close(np.load(tmp_path / "b" / "dyn_output_0.npy"), x[:2] * 2 + 1)
    # generated data with a given shape, and a caller-sized output buffer
    run("--model", p("dyn.onnx"), "--dymShape", "X:4,3", "--outputSize", "48", "--output", str(tmp_path),
        "--output_dirname", "c", "--outfmt", "NPY")
    close(np.load(tmp_path / "c" / "dyn_output_0.npy"), np.ones((4, 3), np.float32))


def test_out_runtime_allocated(tmp_path):
    run("--model", p("nonzero.onnx"), "--input", p("nonzero.in0.bin"), "--output", str(tmp_path),
        "--output_dirname", "r", "--outfmt", "NPY", "--loop", "3")
    got = np.load(tmp_path / "r" / "nonzero_output_0.npy")
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.array(np.nonzero(bin_in("nonzero", 0)), np.int64))


def test_out_generated_inputs(tmp_path):
    # msame: no --input means zeros
    run("--model", p("add_relu.onnx"), "--output", str(tmp_path), "--output_dirname", "z", "--outfmt", "NPY")
    assert not np.load(tmp_path / "z" / "add_relu_output_1.npy").any()
    for d in ("r1", "r2"):
        run("--model", p("add_relu.onnx"), "--pure_data_type", "random", "--output", str(tmp_path),
            "--output_dirname", d, "--outfmt", "NPY")
    a, b = (np.load(tmp_path / d / "add_relu_output_1.npy") for d in ("r1", "r2"))
    assert a.any() and np.array_equal(a, b)  # random, but the same every run


def test_out_time_stamped_folder(tmp_path):
    r = run("--model", p("add_relu.onnx"), "--output", str(tmp_path))
    (sub,) = os.listdir(tmp_path)
    assert re.fullmatch(r"\d{8}_\d{6}(_\d+)?", sub), sub
    assert ("output folder: %s/%s" % (tmp_path, sub)) in r.stdout
    run("--model", p("add_relu.onnx"), "--output", str(tmp_path))
    assert len(os.listdir(tmp_path)) == 2  # a second run never mixes into the first one's folder


# ---- summary, devices, workers ----

STAT_KEYS = {"count", "min", "mean", "median", "p90", "p99", "max"}


def check_stats(s, count):
    assert set(s) == STAT_KEYS and s["count"] == count
    assert 0 <= s["min"] <= s["median"] <= s["p90"] <= s["p99"] <= s["max"]
    assert s["min"] <= s["mean"] <= s["max"]


def test_json_summary_fields(tmp_path):
    out = tmp_path / "s.json"
    r = run("--model", p("matmul.onnx"), "--loop", "20", "--warmup_count", "2", "--json", str(out))
    d = json.loads(out.read_text())
    for k in ("tool", "version", "model", "devices", "threads_per_device", "batchsize", "loop", "warmup_count",
              "input_sets", "inferences", "inputs", "outputs", "gears", "output_dir", "outfmt", "load_ms",
              "first_run_ms", "latency_ms", "h2d_ms", "compute_ms", "d2h_ms", "throughput", "throughput_wall",
              "wall_s", "per_device", "cpu", "peak_rss_mb"):
        assert k in d, k
    assert d["tool"] == "openacl-run" and d["model"] == p("matmul.onnx")
    assert d["devices"] == [0] and d["batchsize"] == 4 and d["loop"] == 20 and d["inferences"] == 20
    assert d["inputs"] == [{"index": 0, "name": "X", "dims": [4, 8], "dtype": "float32", "format": "ND",
                            "size": 128}]
    assert d["outputs"][0]["dims"] == [4, 5] and d["outputs"][0]["size"] == 80
    assert d["gears"] == {"batch": [], "hw": [], "dims": []}
    assert d["output_dir"] is None
    for k in ("latency_ms", "h2d_ms", "compute_ms", "d2h_ms"):
        check_stats(d[k], 20)
    assert d["load_ms"] > 0 and d["first_run_ms"] > 0
    # throughput = 1000 x batch / mean latency
    assert d["throughput"] == pytest.approx(1000 * 4 / d["latency_ms"]["mean"], rel=1e-3)
    assert d["throughput_wall"] > 0 and d["wall_s"] > 0
    assert d["cpu"]["percent"] >= 0 and d["cpu"]["user_s"] >= 0 and d["peak_rss_mb"] > 1
    # the human-readable report is there too
    for line in ("load time", "first run", "latency (ms)", "H2D / compute / D2H", "throughput", "cpu use",
                 "peak rss", "Inference average time"):
        assert line in r.stdout, line


def test_json_to_stdout_report_to_stderr():
    r = run("--model", p("add_relu.onnx"), "--json", "-", "--batchsize", "3")
    d = json.loads(r.stdout)  # nothing else on stdout
    assert d["batchsize"] == 3 and d["inferences"] == 1
    assert "latency (ms)" in r.stderr and "model " in r.stderr


def test_two_devices_concurrently(tmp_path):
    out = tmp_path / "s.json"
    run("--model", p("conv.onnx"), "--input", p("conv.in0.npy"), "--device", "0,1", "--loop", "6", "--json",
        str(out), "--output", str(tmp_path), "--output_dirname", "r", "--outfmt", "NPY")
    d = json.loads(out.read_text())
    assert d["devices"] == [0, 1] and d["inferences"] == 12
    assert [x["device"] for x in d["per_device"]] == [0, 1]
    for x in d["per_device"]:
        assert x["inferences"] == 6 and x["load_ms"] > 0
        check_stats(x["latency_ms"], 6)
        assert x["throughput"] == pytest.approx(1000 / x["latency_ms"]["mean"], rel=1e-3)
    assert d["throughput"] == pytest.approx(sum(x["throughput"] for x in d["per_device"]), rel=1e-6)
    check_stats(d["latency_ms"], 12)
    # outputs are written once (by the first worker), and right
    assert os.listdir(tmp_path / "r") == ["conv_output_0.npy"]
    close(np.load(tmp_path / "r" / "conv_output_0.npy"), conv_ref(np.load(p("conv.in0.npy"))), 1e-4)


def test_workers_per_device(tmp_path):
    r = run("--model", p("add_relu.onnx"), "--input", p("fx") + "," + p("fy"), "--threads", "2", "--device", "1",
            "--json", "-")
    d = json.loads(r.stdout)
    assert d["threads_per_device"] == 2 and d["inferences"] == 8 and d["per_device"][0]["device"] == 1


def test_help():
    r = run("--help")
    for flag in ("--model", "--input", "--output", "--outfmt", "--loop", "--warmup_count", "--device", "--batchsize",
                 "--dymBatch", "--dymHW", "--dymDims", "--dymShape", "--outputSize", "--pure_data_type", "--threads",
                 "--json"):
        assert flag in r.stdout, flag


# ---- errors: a message naming the problem and a non-zero exit ----

@pytest.mark.parametrize("args, code, needles", [
    (["--model", "nope.onnx"], 1, ["--model nope.onnx", "No such file"]),
    ([], 2, ["--model", "is required"]),
    (["--model", "@add_relu", "--frob", "1"], 2, ["--frob", "unknown flag"]),
    (["--model", "@add_relu", "--loop"], 2, ["--loop", "needs a value"]),
    (["--model", "@add_relu", "--loop", "0"], 2, ["--loop", "at least 1"]),
    (["--model", "@add_relu", "--loop", "x"], 2, ["--loop", "not an integer"]),
    (["--model", "@add_relu", "--outfmt", "CSV"], 2, ["--outfmt", "BIN, NPY or TXT"]),
    (["--model", "@add_relu", "--device", "0,0"], 2, ["--device", "twice"]),
    (["--model", "@add_relu", "--dymHW", "224"], 2, ["--dymHW", "H,W"]),
    (["--model", "@add_relu", "--dymBatch", "2", "--dymHW", "2,2"], 2, ["only one gear flag"]),
    (["--model", "@add_relu", "--profiler", "true"], 2, ["--profiler", "needs --output"]),
    (["--model", "@add_relu", "--dump", "yes"], 2, ["--dump", "true or false"]),
    (["--model", "@add_relu", "--aipp_config", "a.cfg"], 2, ["--aipp_config", "not supported"]),
    (["--model", "@add_relu", "--device", "5"], 1, ["--device 5", "device(s)"]),
    (["--model", "@add_relu", "--input", "@add_relu.in0.bin"], 1, ["gives 1 path(s)", "2 data input(s)"]),
    (["--model", "@add_relu", "--input", "@add_relu.in0.bin,missing.bin"], 1, ["missing.bin", "No such file"]),
    (["--model", "@add_relu", "--input", "@add_relu.in0.bin,@matmul.in0.bin"], 1,
     ["matmul.in0.bin has 128 bytes", "input 'Y' expects 24 bytes", "float32 [2,3]"]),
    (["--model", "@add_relu", "--input", "@int64.in0.npy,@add_relu.in1.bin"], 1, ["int64 data", "float32"]),
    (["--model", "@add_relu", "--input", "@fx,@fbad"], 1, ["hold 4 and 3 files"]),
    (["--model", "@dyn", "--input", "@dyn.in0.bin"], 1, ["dynamic dims [-1,3]", "--dymShape X:"]),
    (["--model", "@dyn"], 1, ["dynamic dims [-1,3]", "--dymShape"]),
    (["--model", "@dyn", "--dymShape", "Q:5,3"], 1, ["no input named 'Q'", "X"]),
    (["--model", "@dyn", "--dymShape", "X:5,4"], 1, ["[5,4]", "does not fit", "[-1,3]"]),
    (["--model", "@dyn", "--dymShape", "X:5,3", "--outputSize", "4,4"], 1, ["--outputSize gives 2", "1 output"]),
    # gear flags on a model without gears: the library's error, code and message
    (["--model", "@conv", "--dymBatch", "4"], 1, ["aclmdlSetDynamicBatchSize", "145013", "no batch gears"]),
    (["--model", "@conv", "--dymHW", "6,6"], 1, ["aclmdlSetDynamicHWSize", "145013"]),
    (["--model", "@add_relu", "--dymDims", "X:2,3;Y:2,3"], 1, ["aclmdlSetInputDynamicDims", "145013"]),
    (["--model", "@add_relu", "--dymDims", "X:2,3"], 1, ["--dymDims", "'Y' is missing"]),
])
def test_err(args, code, needles, tmp_path):
    def expand(a):  # "@name": a file or folder of the models dir, or a model without ".onnx"
        return ",".join((p(x[1:]) if os.path.exists(p(x[1:])) else p(x[1:]) + ".onnx") if x.startswith("@") else x
                        for x in a.split(","))
    r = run(*[expand(a) for a in args], expect=code)
    for n in needles:
        assert n in r.stderr, "%r not in stderr:\n%s" % (n, r.stderr)
    assert "openacl-run: error:" in r.stderr
    assert "latency" not in r.stdout  # no report after a failure


def test_err_bad_model_file(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"this is not a model")
    r = run("--model", str(bad), expect=1)
    assert "aclmdlLoadFromFile" in r.stderr and "failed with ACL error" in r.stderr


def test_err_unwritable_output(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    r = run("--model", p("add_relu.onnx"), "--output", str(f / "sub"), expect=1)
    assert "--output" in r.stderr
