"""Fixtures of openacl-quant's tests: the tool (OPENACL_QUANT, else the
source tree's launcher), the small models of qmodels.py and their
calibration folders, and helpers to run the tool, ONNX Runtime (through
tools/ortref) and openacl on a model."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tools", "quant"))

import qmodels  # noqa: E402

TOOL = os.environ.get("OPENACL_QUANT") or os.path.join(REPO, "tools", "quant", "openacl_quant.py")
ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")


def run_tool(*args, check=True):
    """Runs openacl-quant; returns the CompletedProcess."""
    p = subprocess.run(["/usr/bin/python3", TOOL] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=900)
    if check and p.returncode != 0:
        raise AssertionError("openacl-quant failed (%d):\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
    return p


def ort_run(model, inputs, outdir, opt=None):
    """ONNX Runtime's outputs (tools/ortref; opt: its graph optimisation
    level, default all), or None without Node/ORT."""
    if not shutil.which("node"):
        return None
    os.makedirs(outdir, exist_ok=True)
    paths = []
    for i, a in enumerate(inputs):
        p = os.path.join(outdir, "in%d.npy" % i)
        np.save(p, a)
        paths.append(p)
    p = subprocess.run(["node", ORTREF, "--model", model, "--inputs", ",".join(paths), "--outdir", outdir] +
                       (["--opt", opt] if opt else []), capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        if "onnxruntime-node not found" in p.stderr:
            return None
        raise AssertionError("ortref failed on %s: %s" % (model, p.stderr[-2000:]))
    n = len(json.load(open(os.path.join(outdir, "outputs.json")))["outputs"])
    return [np.load(os.path.join(outdir, "output_%d.npy" % i)) for i in range(n)]


def acl_run(model, inputs):
    """openacl's outputs (its Python package)."""
    import openacl
    with openacl.Session(model) as s:
        return s.run(list(inputs))


@pytest.fixture(scope="session")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("quant")


@pytest.fixture(scope="session")
def cnn(work):
    d = work / "cnn"
    data = qmodels.write_samples(str(d / "calib"), [1, 3, 16, 16], 12, seed=10)
    ev = qmodels.write_samples(str(d / "eval"), [1, 3, 16, 16], 6, seed=11)
    return {"model": qmodels.cnn(str(work / "cnn.onnx")), "calib": str(d / "calib"), "eval": str(d / "eval"),
            "data": data, "eval_data": ev}


@pytest.fixture(scope="session")
def mlp(work):
    d = work / "mlp"
    data = qmodels.write_samples(str(d / "calib"), [2, 16], 12, seed=20)
    ev = qmodels.write_samples(str(d / "eval"), [2, 16], 6, seed=21)
    return {"model": qmodels.mlp(str(work / "mlp.onnx")), "calib": str(d / "calib"), "eval": str(d / "eval"),
            "data": data, "eval_data": ev}


@pytest.fixture(scope="session")
def cnn_q(cnn, work):
    out = str(work / "cnn_q.onnx")
    rep = str(work / "cnn_q.json")
    run_tool(cnn["model"], "--calib", cnn["calib"], "--eval", cnn["eval"], "-o", out, "--report", rep,
             "--no-bias-correction", "--method", "minmax")
    return {"path": out, "report": json.load(open(rep))}


@pytest.fixture(scope="session")
def mlp_q(mlp, work):
    out = str(work / "mlp_q.onnx")
    rep = str(work / "mlp_q.json")
    run_tool(mlp["model"], "--calib", mlp["calib"], "--eval", mlp["eval"], "-o", out, "--report", rep,
             "--no-bias-correction", "--method", "minmax")
    return {"path": out, "report": json.load(open(rep))}
