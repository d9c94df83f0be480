"""The debugging workflow end to end (issue 22): openacl-run --dump and
--profiler, the dump's files and index against an unfused run, and
openacl-compare catching a corrupted layer of a compiled model. Paths come
from the environment CTest sets (tests/debug/part.cmake)."""
import csv
import glob
import json
import os
import subprocess

import numpy as np
import onnx
import pytest

RUN = os.environ["OPENACL_RUN"]
ATC = os.environ["OPENACL_ATC"]
COMPARE = os.environ["OPENACL_COMPARE"]
MODELS = os.environ["DEBUG_MODELS"]
SMALL = os.path.join(MODELS, "small.onnx")
X = os.path.join(MODELS, "small.in0.npy")
HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env=None, ok=True):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    if ok:
        assert r.returncode == 0, r.stdout
    return r


def dump(out, model=SMALL, env=None, extra=()):
    run([RUN, "--model", model, "--input", X, "--output", str(out), "--dump", "true", "--loop", "1",
         "--warmup_count", "0", *extra], env)
    idx = glob.glob(os.path.join(str(out), "dump", "*", "0", "*", "*", "0", "dump_index.json"))
    assert len(idx) == 1, idx
    with open(idx[0]) as f:
        return os.path.dirname(idx[0]), json.load(f)["files"]


def outputs(d, entries):
    return {e["tensor"]: np.load(os.path.join(d, e["file"])) for e in entries if e["io"] == "output"}


def test_dump_equals_unfused_run(tmp_path):
    d, ent = dump(tmp_path / "fused")
    du, entu = dump(tmp_path / "unfused", env={"OPENACL_NO_FUSE": "1", "OPENACL_NO_LAYOUT": "1"})
    fused, unfused = outputs(d, ent), outputs(du, entu)
    # fusion leaves fewer nodes; each tensor it keeps equals the unfused run's
    assert len(fused) < len(unfused)
    assert any(e["stored_layout"] == "NHWC" for e in ent)   # transposed back when dumped
    for t, v in fused.items():
        assert v.shape == unfused[t].shape, t
        np.testing.assert_allclose(v, unfused[t], rtol=1e-4, atol=1e-5, err_msg=t)
    # file names: {op_type}.{op_name}.{task}.{timestamp}.{input|output}.{i}.npy
    for e in ent:
        parts = e["file"].split(".")
        assert parts[0] == e["op_type"] and parts[1] == e["node"] and parts[2] == str(e["task"])
        assert parts[4:] == [e["io"], str(e["index"]), "npy"]


def test_dump_index_covers_every_onnx_node(tmp_path):
    _, ent = dump(tmp_path / "d")
    covered = set()
    for e in ent:
        covered.update(e["onnx_nodes"])
    names = {n.name for n in onnx.load(SMALL).graph.node}
    assert covered == names
    conv2 = [e for e in ent if e["node"] == "conv2"][0]
    assert conv2["onnx_nodes"] == ["conv2", "add2", "relu2"]


def test_dump_index_covers_removed_and_folded_nodes(tmp_path):
    # Identity, Dropout and a folded shape computation leave no node of
    # their own: they are credited to the nodes that took their work over
    model = os.path.join(MODELS, "cover.onnx")
    run([RUN, "--model", model, "--input", os.path.join(MODELS, "cover.in0.npy"), "--output", str(tmp_path),
         "--dump", "true", "--loop", "1", "--warmup_count", "0"])
    idx = glob.glob(str(tmp_path / "dump" / "*" / "0" / "cover" / "*" / "0" / "dump_index.json"))
    ent = json.load(open(idx[0]))["files"]
    covered = {n for e in ent for n in e["onnx_nodes"]}
    assert covered == {n.name for n in onnx.load(model).graph.node}
    assert len({e["node"] for e in ent}) < 7


def test_dump_of_compiled_model_keeps_onnx_names(tmp_path):
    om = str(tmp_path / "small")
    run([ATC, "--model=" + SMALL, "--framework=5", "--output=" + om, "--soc_version=Ascend310"])
    d, ent = dump(tmp_path / "c", model=om + ".om")
    assert {n for e in ent for n in e["onnx_nodes"]} == {n.name for n in onnx.load(SMALL).graph.node}
    ref = outputs(*dump(tmp_path / "o"))
    for t, v in outputs(d, ent).items():
        np.testing.assert_allclose(v, ref[t], rtol=1e-5, atol=1e-6, err_msg=t)


@pytest.mark.parametrize("cache", ["4", "0"])
def test_dump_of_dynamic_model(tmp_path, cache):
    # symbolic batch: the shape cache's static program, or the dynamic executor
    x = os.path.join(MODELS, "dyn.in0.npy")
    run([RUN, "--model", os.path.join(MODELS, "dyn.onnx"), "--input", x, "--output", str(tmp_path), "--dump",
         "true", "--loop", "1", "--warmup_count", "0"], env={"OPENACL_SHAPE_CACHE": cache})
    idx = glob.glob(str(tmp_path / "dump" / "*" / "0" / "dyn" / "*" / "0" / "dump_index.json"))
    assert len(idx) == 1
    ent = json.load(open(idx[0]))["files"]
    got = outputs(os.path.dirname(idx[0]), ent)
    assert set(got) == {"t", "y"}
    np.testing.assert_array_equal(got["t"], np.load(x) * 2)
    np.testing.assert_array_equal(got["y"], np.maximum(np.load(x) * 2, 0))


def test_profiler_flag_writes_trace_and_summary(tmp_path):
    run([RUN, "--model", SMALL, "--input", X, "--output", str(tmp_path), "--profiler", "true", "--loop", "3",
         "--warmup_count", "1"])
    with open(tmp_path / "profiler" / "op_trace.json") as f:
        trace = json.load(f)
    assert any(e.get("cat") == "Conv" for e in trace["traceEvents"])
    rows = list(csv.DictReader(open(tmp_path / "profiler" / "op_summary.csv")))
    assert {r["Op Name"] for r in rows} == {"conv1", "conv2", "conv3", "flat", "fc"}
    assert all(int(r["Calls"]) == 4 for r in rows)          # 1 warm-up + 3 runs
    assert abs(sum(float(r["Ratio(%)"]) for r in rows) - 100) < 0.1
    tot = [float(r["Total Time(us)"]) for r in rows]
    assert tot == sorted(tot, reverse=True)


@pytest.mark.skipif(bool(os.environ.get("OA_SANITIZE")), reason="a sanitizer runtime cannot be loaded by ctypes")
def test_profiler_section_written_at_exit_without_finalize(tmp_path):
    cfg = tmp_path / "acl.json"
    cfg.write_text(json.dumps({"profiler": {"switch": "on", "output": str(tmp_path)}}))
    # aclInit with the section, then exit without aclFinalize
    code = "import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); sys.exit(lib.aclInit(sys.argv[2].encode()))"
    run(["/usr/bin/python3", "-c", code, os.environ["LIBASCENDCL"], str(cfg)])
    assert (tmp_path / "op_trace.json").exists() and (tmp_path / "op_summary.csv").exists()


def test_openacl_profile_writes_summary_too(tmp_path):
    trace = tmp_path / "t.json"
    run([RUN, "--model", SMALL, "--input", X, "--loop", "2"], env={"OPENACL_PROFILE": str(trace)})
    assert trace.exists()
    rows = list(csv.DictReader(open(tmp_path / "t_op_summary.csv")))
    assert len(rows) == 5


def compiled(tmp_path, precision=None):
    om = str(tmp_path / ("small_" + (precision or "fp32")))
    cmd = [ATC, "--model=" + SMALL, "--framework=5", "--output=" + om, "--soc_version=Ascend310"]
    if precision:
        cmd.append("--precision_mode=" + precision)
    run(cmd)
    return om + ".om"


def compare(tmp_path, model, *extra):
    out = tmp_path / "cmp"
    r = run([COMPARE, "--golden", SMALL, "--model", model, "--input", X, "--output", str(out), *extra])
    rows = list(csv.DictReader(open(out / "compare.csv")))
    assert (out / "compare.png").stat().st_size > 1000
    return r.stdout.strip().splitlines(), rows


GOLDENS = {"ort": ["--golden-runtime", "ort"], "ref64": ["--golden-runtime", "openacl"],
           "ref32": ["--golden-runtime", "openacl", "--golden-precision", "fp32"]}


@pytest.mark.parametrize("golden", sorted(GOLDENS))
def test_compare_catches_corrupted_weight_at_its_layer(tmp_path, golden):
    om = compiled(tmp_path)
    bad = str(tmp_path / "bad.om")
    run(["/usr/bin/python3", os.path.join(HERE, "corrupt_om.py"), om, bad, SMALL, "w2"])
    lines, rows = compare(tmp_path, bad, *GOLDENS[golden])
    head = [x for x in lines if x.startswith("golden: ")]
    assert head and head[0].startswith({"ort": "golden: ONNX Runtime", "ref64": "golden: openacl reference kernels "
                                        "(float64", "ref32": "golden: openacl reference kernels (float32"}[golden]), lines
    assert lines[-1] == "first divergence: r2 (relu2)", "\n".join(lines)
    by = {r["tensor"]: r for r in rows}
    assert float(by["r1"]["cosine"]) > 0.9999          # the layer before is intact
    assert float(by["r2"]["cosine"]) < 0.99
    assert by["c2"]["status"] == "fused into conv2"
    # the intact compiled model agrees everywhere
    lines, _ = compare(tmp_path, om, *GOLDENS[golden])
    assert lines[-1] == "first divergence: none"


def test_compare_bf16_reports_every_layer(tmp_path):
    lines, rows = compare(tmp_path, compiled(tmp_path, "allow_mix_precision_bf16"))
    compared = [r for r in rows if r["cosine"]]
    # every node of the compiled model has its output compared
    assert {r["compiled_node"] for r in compared} == {"conv1", "conv2", "conv3", "flat", "fc"}
    assert all(r["cosine"] or r["status"].startswith("fused into") for r in rows)
    assert all(0.99 < float(r["cosine"]) < 1.0 for r in compared)   # bf16: close, not exact
    assert lines[-1] == "first divergence: none"


def test_compare_gear_model(tmp_path):
    # a dynamic-batch gear model: the gear is chosen with openacl-run's --dymBatch
    dyn = os.path.join(MODELS, "dyn.onnx")
    om = str(tmp_path / "dyn_gears")
    run([ATC, "--model=" + dyn, "--framework=5", "--output=" + om, "--soc_version=Ascend310",
         "--input_shape=x:-1,3", "--dynamic_batch_size=1,5"])
    out = tmp_path / "cmp"
    r = run([COMPARE, "--golden", dyn, "--model", om + ".om", "--input", os.path.join(MODELS, "dyn.in0.npy"),
             "--output", str(out), "--run-arg=--dymBatch", "--run-arg=5"])
    rows = list(csv.DictReader(open(out / "compare.csv")))
    assert [(x["tensor"], x["shape"], float(x["cosine"])) for x in rows] == [("t", "5x3", 1.0), ("y", "5x3", 1.0)]
    assert r.stdout.strip().splitlines()[-1] == "first divergence: none"


def test_compare_bad_command_line(tmp_path):
    r = run([COMPARE, "--golden", str(tmp_path / "none.onnx"), "--model", SMALL], ok=False)
    assert r.returncode == 2 and "no such file" in r.stdout
    r = run([COMPARE, "--golden", SMALL, "--model", SMALL, "--cosine", "2"], ok=False)
    assert r.returncode == 2 and "--cosine" in r.stdout
    r = run([COMPARE, "--golden", SMALL, "--model", SMALL, "--output", str(tmp_path / "o"), "--golden-runtime", "ort",
             "--ort-lib", str(tmp_path / "no_ort.so")], ok=False)
    assert r.returncode == 1 and "ONNX Runtime" in r.stdout and "not available" in r.stdout
