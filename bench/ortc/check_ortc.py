#!/usr/bin/python3
"""Checks bench/ortc's ort_bench (ONNX Runtime driven from C through its API
table): outputs of small generated models against numpy, names and types
against the model, the error path on mismatched data, the JSON of the
bench, IoBinding and parallel modes, and -- when scripts/models.sh has built
them -- outputs of a few real models against tools/ortref's (Node) reference
outputs of the same ORT version.

Exit codes: 0 pass, 1 fail, 77 skipped (no npm ONNX Runtime library).
  check_ortc.py --ort-bench BUILD/ort_bench [--models DIR]"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77
REAL = ["mlp", "vad", "ocr_cls"]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def run(bench, args, expect_ok=True):
    p = subprocess.run([bench] + args, capture_output=True, text=True, timeout=240)
    if expect_ok and p.returncode != 0:
        print(p.stderr[-2000:], file=sys.stderr)
    return p


def save(d, name, arr):
    path = os.path.join(d, name)
    np.save(path, arr)
    return path


def build_models(d):
    """Two small models with their inputs and numpy outputs."""
    from onnx import TensorProto, helper, numpy_helper, save_model
    rng = np.random.default_rng(7)
    out = []

    # An MLP with a symbolic batch dimension.
    w1 = rng.standard_normal((8, 16)).astype(np.float32)
    b1 = rng.standard_normal(16).astype(np.float32)
    w2 = rng.standard_normal((16, 4)).astype(np.float32)
    b2 = rng.standard_normal(4).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h0"]), helper.make_node("Add", ["h0", "b1"], ["h1"]),
         helper.make_node("Relu", ["h1"], ["h2"]), helper.make_node("MatMul", ["h2", "w2"], ["h3"]),
         helper.make_node("Add", ["h3", "b2"], ["h4"]), helper.make_node("Softmax", ["h4"], ["probs"], axis=-1)],
        "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 4])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
         numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(b2, "b2")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    path = os.path.join(d, "mlp.onnx")
    save_model(m, path)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    h = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    e = np.exp(h - h.max(-1, keepdims=True))
    out.append(("small mlp", path, ["x"], [save(d, "mlp_x.npy", x)], ["probs"], [e / e.sum(-1, keepdims=True)]))

    # Two inputs of different types, two outputs.
    g = helper.make_graph(
        [helper.make_node("Gather", ["a", "idx"], ["picked"], axis=1),
         helper.make_node("Cast", ["idx"], ["idx_f"], to=TensorProto.DOUBLE),
         helper.make_node("Mul", ["idx_f", "idx_f"], ["sq"])],
        "mixed", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 5]),
                  helper.make_tensor_value_info("idx", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("picked", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("sq", TensorProto.DOUBLE, [4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    path = os.path.join(d, "mixed.onnx")
    save_model(m, path)
    a = rng.standard_normal((3, 5)).astype(np.float32)
    idx = np.array([4, 0, 2, 2], dtype=np.int64)
    out.append(("small mixed", path, ["a", "idx"], [save(d, "mixed_a.npy", a), save(d, "mixed_idx.npy", idx)],
                ["picked", "sq"], [a[:, idx], idx.astype(np.float64) ** 2]))
    return out


def compare_dir(label, outdir, names, refs, rtol):
    meta = json.load(open(os.path.join(outdir, "outputs.json")))
    check([o["name"] for o in meta["outputs"]] == names, f"{label}: output names {names}")
    for i, ref in enumerate(refs):
        got = np.load(os.path.join(outdir, f"output_{i}.npy"))
        same = got.dtype == ref.dtype and got.shape == ref.shape
        err = float(np.abs(got.astype(np.float64) - ref.astype(np.float64)).max()) if same and ref.size else 0.0
        scale = max(float(np.abs(ref).max()) if ref.size else 0.0, 1e-6)
        check(same and err <= rtol * scale,
              f"{label}: output {i} {got.dtype}{list(got.shape)} vs {ref.dtype}{list(ref.shape)}, "
              f"max err {err:.3g} (scale {scale:.3g})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ort-bench", required=True)
    ap.add_argument("--models", default=os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models")))
    a = ap.parse_args()
    bench = a.ort_bench

    p = run(bench, ["--empty"], expect_ok=False)
    if p.returncode == SKIP:
        print(f"skipped: {p.stderr.strip()}")
        return SKIP
    if not check(p.returncode == 0, "--empty runs"):
        print(p.stderr)
        return 1
    e = json.loads(p.stdout)
    check(e["ort_version"].startswith("1.") and e["api_version"] >= 5, f"version {e['ort_version']} "
          f"api {e['api_version']}")
    check(0 < e["baseline_rss_kb"] <= e["peak_rss_kb"], "baseline <= peak RSS")

    with tempfile.TemporaryDirectory() as d:
        for label, model, in_names, files, out_names, refs in build_models(d):
            od = os.path.join(d, label.replace(" ", "_"))
            p = run(bench, ["--model", model, "--inputs", ",".join(files), "--outdir", od])
            if check(p.returncode == 0, f"{label}: --outdir run"):
                compare_dir(label, od, out_names, refs, 1e-5)
            for extra in ([], ["--iobinding"], ["--threads", "2"]):
                p = run(bench, ["--model", model, "--inputs", ",".join(files), "--warmup", "1", "--min-time", "0",
                                "--min-runs", "5"] + extra)
                tag = f"{label}: bench {' '.join(extra) or 'Run'}"
                if not check(p.returncode == 0, tag):
                    continue
                j = json.loads(p.stdout)
                L = j["latency_ms"]
                check(j["inputs"] == in_names and j["outputs"] == out_names, f"{tag}: I/O names from ORT")
                check(L["runs"] >= 5 and 0 < L["min"] <= L["median"] <= L["max"], f"{tag}: latency fields")
                check(0 < j["baseline_rss_kb"] <= j["peak_rss_kb"], f"{tag}: memory fields")
            p = run(bench, ["--model", model, "--inputs", ",".join(files), "--warmup", "1", "--min-time", "0.05",
                            "--parallel", "2"])
            if check(p.returncode == 0, f"{label}: --parallel 2"):
                j = json.loads(p.stdout)
                check(j["throughput_per_s"] > 0 and len(j["per_worker_per_s"]) == 2, f"{label}: throughput fields")
        # --profile: ORT's own per-node profile (EnableProfiling), written
        # when the session is released, with the kernel time of every node.
        prefix = os.path.join(d, "ortprof")
        p = run(bench, ["--model", os.path.join(d, "mlp.onnx"), "--inputs", os.path.join(d, "mlp_x.npy"), "--warmup", "1",
                        "--min-time", "0", "--min-runs", "3", "--profile", prefix])
        written = [f for f in os.listdir(d) if f.startswith("ortprof")]
        if check(p.returncode == 0 and len(written) == 1, f"--profile wrote one trace ({written})"):
            ev = json.load(open(os.path.join(d, written[0])))
            nodes = [e for e in ev if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time")]
            runs = [e for e in ev if e.get("cat") == "Session" and e.get("name") == "model_run"]
            check(len(runs) >= 3 and len(nodes) >= len(runs), f"--profile: {len(runs)} runs, {len(nodes)} node events")
            # bench/prof_top.py reads ORT's trace as it reads openacl's
            q = subprocess.run([sys.executable, os.path.join(REPO, "bench", "prof_top.py"),
                                os.path.join(d, written[0])], capture_output=True, text=True, timeout=60)
            check(q.returncode == 0 and "Gemm (ort)" in q.stdout and "Softmax (ort)" in q.stdout,
                  "prof_top.py on ORT's trace: " + (q.stdout or q.stderr)[-200:])
        # Data that disagrees with the model must be refused, not run.
        bad = save(d, "bad.npy", np.zeros((3, 8), dtype=np.int32))
        p = run(bench, ["--model", os.path.join(d, "mlp.onnx"), "--inputs", bad, "--min-time", "0"],
                expect_ok=False)
        check(p.returncode == 1 and "declares type" in p.stderr, "wrong input dtype refused")
        p = run(bench, ["--model", os.path.join(d, "mixed.onnx"), "--inputs", files[0], "--min-time", "0"],
                expect_ok=False)
        check(p.returncode == 1 and "2 inputs" in p.stderr, "wrong input count refused")

        # Paired mode: openacl (the libascendcl.so built next to ort_bench)
        # and ORT in turns within one process, on the static MLP of the
        # model set.
        lib = os.path.join(os.path.dirname(os.path.abspath(bench)), "libascendcl.so")
        mlp = os.path.join(a.models, "mlp.onnx")
        if os.path.exists(lib) and os.path.exists(mlp):
            p = run(bench, ["--model", mlp, "--min-time", "0.3", "--turn", "0.1", "--pair-openacl", lib])
            o = json.loads(p.stdout) if p.returncode == 0 else {}
            ok = (o.get("runtime") == "pair" and o.get("turns", 0) >= 1 and
                  o.get("ort", {}).get("runs", 0) > 0 and o.get("openacl", {}).get("runs", 0) > 0 and
                  o.get("ort", {}).get("median_ms", 0) > 0 and o.get("openacl", {}).get("median_ms", 0) > 0 and
                  o.get("speedup_turn_median", 0) > 0)
            check(ok, "--pair-openacl: both runtimes ran in turns (" + (p.stdout or p.stderr)[-300:] + ")")
            p = run(bench, ["--model", mlp, "--pair-openacl", os.path.join(d, "nolib.so")], expect_ok=False)
            check(p.returncode == 1 and "cannot load" in p.stderr, "--pair-openacl with a missing library refused")
        else:
            print(f"skip --pair-openacl: no {lib} or {mlp} (scripts/models.sh)")

        # Real models against tools/ortref's outputs (same ORT, through Node).
        for name in REAL:
            man = os.path.join(a.models, "manifest.json")
            ref = os.path.join(a.models, "ref", name)
            if not os.path.exists(man) or not os.path.exists(os.path.join(ref, "outputs.json")):
                print(f"skip {name}: no {ref} (scripts/models.sh)")
                continue
            m = next((x for x in json.load(open(man))["models"] if x["name"] == name), None)
            if m is None:
                continue
            files = [os.path.join(a.models, "data", name, f"input_{i}.npy") for i in range(len(m["inputs"]))]
            if not all(map(os.path.exists, files)):
                print(f"skip {name}: inputs not generated")
                continue
            meta = json.load(open(os.path.join(ref, "outputs.json")))
            refs = [np.load(os.path.join(ref, o["file"])) for o in meta["outputs"]]
            od = os.path.join(d, "real_" + name)
            p = run(bench, ["--model", os.path.join(a.models, m["file"]), "--inputs", ",".join(files),
                            "--outdir", od])
            if check(p.returncode == 0, f"{name}: --outdir run"):
                compare_dir(name + " vs ortref", od, [o["name"] for o in meta["outputs"]], refs, 1e-5)

    print(f"{len(failures)} failure(s)" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
