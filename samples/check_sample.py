#!/usr/bin/python3
"""Runs one sample (C binary or Python script) on the models of
samples/models/make_models.py, or on scripts/models.sh's models, and checks
every output file it writes against numpy / ONNX Runtime references.

Run: check_sample.py KIND SAMPLE_MODELS REAL_MODELS SCRATCH -- COMMAND...
KIND: sync, async, batch, pool, devices, dump, sync_real, batch_real.
Exit status 77 (skip) when a real model is not built."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

kind, models, real, scratch = sys.argv[1:5]
assert sys.argv[5] == "--"
command = sys.argv[6:]
out_dir = os.path.join(scratch, kind)
shutil.rmtree(out_dir, ignore_errors=True)
os.makedirs(out_dir)


def img(k):
    return os.path.join(models, "images", "img_%02d.bin" % k)


def ref(k, what):
    return np.fromfile(os.path.join(models, "ref", "img_%02d.%s.bin" % (k, what)), np.float32)


def out(name):
    path = os.path.join(out_dir, name)
    assert os.path.exists(path), "the sample did not write %s (it wrote %s)" % (name, sorted(os.listdir(out_dir)))
    return np.fromfile(path, np.float32)


def close(got, want, what, tol=1e-4):
    assert got.shape == want.shape, "%s: shape %s, expected %s" % (what, got.shape, want.shape)
    err = float(np.max(np.abs(got - want))) if got.size else 0.0
    assert err <= tol * (1 + float(np.max(np.abs(want)))), "%s: max abs diff %g" % (what, err)


def run(*args):
    r = subprocess.run(command + list(args), capture_output=True, text=True, timeout=240)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    assert r.returncode == 0, "the sample exited with %d" % r.returncode
    return r.stdout


def real_model(name):
    files = [os.path.join(real, name + ".onnx"), os.path.join(real, "data", name, "input_0.npy"),
             os.path.join(real, "ref", name, "output_0.npy"), os.path.join(real, "manifest.json")]
    if not all(os.path.exists(f) for f in files):
        print("skip: %s is not built (bash scripts/models.sh)" % name)
        sys.exit(77)
    entry = next(m for m in json.load(open(files[3]))["models"] if m["name"] == name)
    return files[0], np.load(files[1]), np.load(files[2]), entry.get("tolerance", {}).get("max_rel", 1e-3)


def rel_close(got, want, tol, what):
    rel = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-12))
    print("%s: max rel diff %.2e (tolerance %.0e)" % (what, rel, tol))
    assert rel <= tol, what


if kind == "sync":
    run(os.path.join(models, "classifier.onnx"), out_dir, img(0))
    close(out("output_0.bin"), ref(0, "prob"), "output 0")
elif kind == "async":
    n = 7  # an odd count: the last callback covers one execution
    stdout = run(os.path.join(models, "classifier.onnx"), out_dir, *[img(k) for k in range(n)])
    assert stdout.count("callback: executions") == 4, stdout
    for k in range(n):
        close(out("img_%02d_output_0.bin" % k), ref(k, "prob"), "image %d" % k)
elif kind == "batch":
    n = 11  # batch 8: one full batch, then 3 real items and 5 padded
    stdout = run(os.path.join(models, "classifier_b8.onnx"), out_dir, *[img(k) for k in range(n)])
    assert "3 real, 5 padded" in stdout, stdout
    assert sorted(os.listdir(out_dir)) == ["img_%02d_output_0.bin" % k for k in range(n)]
    for k in range(n):
        close(out("img_%02d_output_0.bin" % k), ref(k, "prob"), "image %d" % k)
elif kind == "pool":
    stdout = run(os.path.join(models, "classifier.onnx"), os.path.join(models, "head.onnx"), out_dir, img(3))
    offsets = [int(line.split("offset")[1].split()[0]) for line in stdout.splitlines() if " offset " in line]
    assert len(offsets) == 3 and all(o % 64 == 0 for o in offsets), stdout
    close(out("a_output_0.bin"), ref(3, "prob"), "model A")
    close(out("b_output_0.bin"), ref(3, "scores"), "model B")
elif kind == "devices":
    run(os.path.join(models, "classifier.onnx"), out_dir, img(5))
    outs = sorted(f for f in os.listdir(out_dir))
    assert outs == ["dev0_output_0.bin", "dev1_output_0.bin"], outs  # the default two devices
    for f in outs:
        close(out(f), ref(5, "prob"), f)
elif kind == "dump":
    import csv
    import glob
    run(os.path.join(models, "classifier.onnx"), out_dir, img(0))
    close(out("output_0.bin"), ref(0, "prob"), "output 0")
    idx = glob.glob(os.path.join(out_dir, "dump", "*", "0", "classifier", "*", "0", "dump_index.json"))
    assert len(idx) == 1, idx
    files = json.load(open(idx[0]))["files"]
    last = [e for e in files if e["io"] == "output"][-1]
    got = np.load(os.path.join(os.path.dirname(idx[0]), last["file"])).ravel()
    close(got, ref(0, "prob"), "dumped output of the last node")
    rows = list(csv.DictReader(open(os.path.join(out_dir, "prof", "op_summary.csv"))))
    assert {r["OP Type"] for r in rows} == {e["op_type"] for e in files}, rows
    assert os.path.getsize(os.path.join(out_dir, "prof", "op_trace.json")) > 0
elif kind == "sync_real":
    model, x, want, tol = real_model("mobilenet_v2")
    x.tofile(os.path.join(scratch, "mobilenet_v2_input.bin"))
    run(model, out_dir, os.path.join(scratch, "mobilenet_v2_input.bin"))
    rel_close(out("output_0.bin").reshape(want.shape), want, tol, "mobilenet_v2")
elif kind == "batch_real":
    model, x, want, tol = real_model("ocr_cls_b8")
    items = []
    for k in range(11):  # the 8 stored items, then 3 of them again: a padded last batch
        path = os.path.join(scratch, "item_%02d.bin" % k)
        x[k % 8:k % 8 + 1].tofile(path)
        items.append(path)
    stdout = run(model, out_dir, *items)
    assert "3 real, 5 padded" in stdout
    for k in range(11):
        rel_close(out("item_%02d_output_0.bin" % k).reshape(want[k % 8].shape), want[k % 8], tol, "item %d" % k)
else:
    sys.exit("unknown kind " + kind)
print("check_sample %s: ok" % kind)
