#!/usr/bin/python3
"""openacl-compare: which layer makes a compiled model's output wrong (the
msquickcmp workflow, for openacl models).

  openacl-compare --golden ORIGINAL.onnx --model COMPILED [--input a.npy,b.bin]
                  [--output DIR] [--cosine 0.99]

Runs the compiled model (any precision, gears) through openacl-run --dump,
and the original ONNX model on the golden side: ONNX Runtime when its
library and the onnx package are present (every tensor made a graph output,
run through bench/ortc's ort_bench), else openacl itself with the reference
kernels, no fusion, no layout change, float32 (OPENACL_FORCE_REF=1,
OPENACL_NO_FUSE=1, OPENACL_NO_LAYOUT=1, OPENACL_PRECISION=fp32). The dump
index maps each compiled tensor back to its ONNX name, so every original
tensor the compiled model still computes is compared: a table on stdout,
DIR/compare.csv, DIR/compare.png (error by layer) and, last, the line
"first divergence: TENSOR (NODE)" or "first divergence: none".

Tensors a fusion computes inside one node (a Conv's pre-BatchNorm output)
do not exist in the compiled model: they are listed as "fused into NODE"
and not compared. Exit status: 0 compared (whatever the result), 1 a run
failed, 2 bad command line.
"""
import argparse
import csv
import glob
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# ONNX TensorProto element types -> numpy
ONNX_NP = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
           9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64}


def die(msg, code=1):
    print("openacl-compare: " + msg, file=sys.stderr)
    sys.exit(code)


def find_tool(explicit, env, name):
    for p in (explicit, os.environ.get(env), os.path.join(HERE, name), shutil.which(name)):
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def make_inputs(golden, out_dir, seed):
    """Seeded inputs from the ONNX model's declared inputs (needs the onnx package)."""
    try:
        import onnx
    except ImportError:
        die("no --input given and the onnx package is not installed to read the inputs' shapes", 2)
    m = onnx.load(golden, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    rng = np.random.default_rng(seed)
    files = []
    os.makedirs(out_dir, exist_ok=True)
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1 for d in tt.shape.dim]
        if tt.elem_type not in ONNX_NP:
            die("input %s has ONNX type %d, which generated inputs do not cover: give --input"
                % (vi.name, tt.elem_type), 2)
        dt = np.dtype(ONNX_NP[tt.elem_type])
        if dt.kind == "f":
            a = rng.standard_normal(shape).astype(dt)
        elif dt.kind == "b":
            a = rng.integers(0, 2, shape).astype(dt)
        else:
            a = rng.integers(0, 8, shape).astype(dt)
        p = os.path.join(out_dir, "input_%d.npy" % len(files))
        np.save(p, a)
        files.append(p)
    return files


def run(cmd, env=None, what=""):
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        die("%s failed (exit %d): %s\n%s" % (what, r.returncode, " ".join(cmd), r.stdout[-4000:]))
    return r.stdout


def dump_run(runner, model, inputs, out, env_extra, extra=()):
    """openacl-run --dump of one run; returns {tensor: (array, entry)} and the entries."""
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [runner, "--model", model, "--output", out, "--dump", "true", "--loop", "1", "--warmup_count", "0"]
    if inputs:
        cmd += ["--input", ",".join(inputs)]
    cmd += list(extra)
    run(cmd, env, "openacl-run on " + model)
    idx = sorted(glob.glob(os.path.join(out, "dump", "*", "*", "*", "*", "0", "dump_index.json")))
    if not idx:
        die("openacl-run wrote no dump under %s/dump" % out)
    d = os.path.dirname(idx[0])
    with open(idx[0]) as f:
        entries = json.load(f)["files"]
    vals = {}
    for e in entries:
        if e["io"] == "output" and e["tensor"] not in vals:
            vals[e["tensor"]] = (np.load(os.path.join(d, e["file"])), e)
    return vals, entries


def ort_golden(ort_bench, golden, inputs, out):
    """Every node output of the original model through ONNX Runtime, or None when not possible."""
    try:
        import onnx
        from onnx import shape_inference
    except ImportError:
        return None
    m = onnx.load(golden)
    try:
        m = shape_inference.infer_shapes(m)
    except Exception:  # noqa: BLE001 - ORT can still run outputs without inferred types
        pass
    known = {vi.name: vi for vi in list(m.graph.value_info) + list(m.graph.output)}
    have = {o.name for o in m.graph.output}
    order, node_of = [], {}
    for n in m.graph.node:
        for t in n.output:
            if not t:
                continue
            node_of[t] = (n.name or t, n.op_type)
            order.append(t)
            if t not in have:
                vi = known.get(t)
                if vi is None or not vi.type.tensor_type.elem_type:
                    continue
                m.graph.output.append(vi)
                have.add(t)
    names = [o.name for o in m.graph.output]
    os.makedirs(out, exist_ok=True)
    exp = os.path.join(out, "golden_all_outputs.onnx")
    onnx.save(m, exp)
    cmd = [ort_bench, "--model", exp, "--outdir", out, "--threads", "1"]
    if inputs:
        cmd += ["--inputs", ",".join(inputs)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        print("openacl-compare: ONNX Runtime golden failed (exit %d), using openacl's reference kernels"
              % r.returncode, file=sys.stderr)
        return None
    vals = {}
    for i, t in enumerate(names):
        p = os.path.join(out, "output_%d.npy" % i)
        if os.path.exists(p) and t in node_of:
            vals[t] = (np.load(p), {"node": node_of[t][0], "op_type": node_of[t][1], "tensor": t})
    return [(t, vals[t]) for t in order if t in vals]


def metrics(a, g):
    a = a.astype(np.float64).ravel()
    g = g.astype(np.float64).ravel()
    if a.size == 0:
        return 1.0, 0.0, 0.0
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(g))):
        return float("nan"), float("inf"), float("inf")
    diff = np.abs(a - g)
    na, ng = np.linalg.norm(a), np.linalg.norm(g)
    if na == 0 and ng == 0:
        cos = 1.0
    elif na == 0 or ng == 0:
        cos = 0.0
    else:
        cos = float(np.dot(a, g) / (na * ng))
    # relative to each golden element, floored at 1e-3 of the tensor's largest
    # magnitude so values near zero do not dominate
    floor = max(float(np.max(np.abs(g))) * 1e-3, 1e-12)
    rel = float(np.max(diff / np.maximum(np.abs(g), floor)))
    return cos, float(np.max(diff)), rel


def plot(rows, path, threshold):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("openacl-compare: matplotlib not installed, no %s" % path, file=sys.stderr)
        return
    pts = [r for r in rows if r["cosine"] != ""]
    if not pts:
        return
    x = list(range(len(pts)))
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(max(8, len(pts) * 0.12), 7), sharex=True)
    cos = [float(r["cosine"]) for r in pts]
    a1.plot(x, cos, ".-")
    a1.axhline(threshold, color="r", lw=0.8, ls="--", label="threshold %g" % threshold)
    a1.set_ylabel("cosine similarity")
    a1.legend(loc="lower left")
    a2.semilogy(x, [max(float(r["max_abs_err"]), 1e-12) for r in pts], ".-", label="max abs err")
    a2.semilogy(x, [max(float(r["max_rel_err"]), 1e-12) for r in pts], ".-", label="max rel err")
    a2.set_ylabel("error")
    a2.set_xlabel("tensor (ONNX order)")
    a2.legend(loc="upper left")
    if len(pts) <= 60:
        a2.set_xticks(x)
        a2.set_xticklabels([r["tensor"] for r in pts], rotation=90, fontsize=6)
    fig.suptitle("openacl-compare: compiled vs golden, per layer")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(prog="openacl-compare", description=__doc__.split("\n\n")[0])
    ap.add_argument("--golden", required=True, help="the original ONNX model")
    ap.add_argument("--model", required=True, help="the compiled model (or any model openacl loads)")
    ap.add_argument("--input", help="comma-separated .npy/.bin input files (default: seeded random)")
    ap.add_argument("--output", default="compare_out", help="folder for the runs, compare.csv and compare.png")
    ap.add_argument("--cosine", type=float, default=0.99, help="divergence threshold (default 0.99)")
    ap.add_argument("--golden-runtime", choices=("auto", "ort", "openacl"), default="auto",
                    help="auto: ONNX Runtime when available, else openacl's reference kernels")
    ap.add_argument("--openacl-run", help="openacl-run to use (default: beside this tool, then PATH)")
    ap.add_argument("--ort-bench", help="ort_bench (bench/ortc) for the ONNX Runtime golden")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--run-arg", action="append", default=[], metavar="ARG",
                    help="extra openacl-run argument for the compiled model (repeat), e.g. "
                         "--run-arg=--dymBatch --run-arg=4 for a gear model")
    a = ap.parse_args()
    for p in (a.golden, a.model):
        if not os.path.isfile(p):
            die("%s: no such file" % p, 2)
    if not 0 < a.cosine <= 1:
        die("--cosine %g: must be in (0, 1]" % a.cosine, 2)
    runner = find_tool(a.openacl_run, "OPENACL_RUN", "openacl-run")
    if not runner:
        die("openacl-run not found (give --openacl-run)", 2)
    os.makedirs(a.output, exist_ok=True)
    inputs = a.input.split(",") if a.input else make_inputs(a.golden, os.path.join(a.output, "inputs"), a.seed)

    comp, comp_entries = dump_run(runner, a.model, inputs, os.path.join(a.output, "compiled"), {}, a.run_arg)
    gold, source = None, ""
    ort = find_tool(a.ort_bench, "OPENACL_ORT_BENCH", "ort_bench") if a.golden_runtime != "openacl" else None
    if ort:
        gold = ort_golden(ort, a.golden, inputs, os.path.join(a.output, "golden_ort"))
        source = "ONNX Runtime"
    if gold is None:
        if a.golden_runtime == "ort":
            die("--golden-runtime ort: ONNX Runtime (ort_bench and the onnx package) is not available")
        env = {"OPENACL_FORCE_REF": "1", "OPENACL_NO_FUSE": "1", "OPENACL_NO_LAYOUT": "1",
               "OPENACL_PRECISION": "fp32"}
        g, g_entries = dump_run(runner, a.golden, inputs, os.path.join(a.output, "golden"), env)
        order = []
        for e in g_entries:
            if e["io"] == "output" and e["tensor"] not in order:
                order.append(e["tensor"])
        gold = [(t, g[t]) for t in order]
        source = "openacl reference kernels (float32, unfused)"

    fused_into = {}
    for e in comp_entries:
        for n in e.get("onnx_nodes", []):
            fused_into.setdefault(n, e["node"])
    rows, first = [], None
    for t, (gv, ge) in gold:
        row = {"tensor": t, "node": ge["node"], "op_type": ge["op_type"], "compiled_node": "",
               "shape": "x".join(str(s) for s in gv.shape), "cosine": "", "max_abs_err": "",
               "max_rel_err": "", "status": ""}
        if t not in comp:
            where = fused_into.get(ge["node"])
            row["status"] = ("fused into %s" % where) if where else "not in the compiled model"
            rows.append(row)
            continue
        cv, ce = comp[t]
        row["compiled_node"] = ce["node"]
        if cv.shape != gv.shape and cv.size == gv.size:
            cv = cv.reshape(gv.shape)
        if cv.shape != gv.shape:
            row["status"] = "shape %s vs golden %s" % (list(cv.shape), list(gv.shape))
            cos, mae, mre = 0.0, float("inf"), float("inf")
        else:
            cos, mae, mre = metrics(cv, gv)
        row.update(cosine="%.6f" % cos, max_abs_err="%.6g" % mae, max_rel_err="%.6g" % mre)
        bad = not cos >= a.cosine
        if not row["status"]:
            row["status"] = "DIVERGES" if bad else "ok"
        if bad and first is None:
            first = row
        rows.append(row)

    cols = ["tensor", "node", "op_type", "compiled_node", "shape", "cosine", "max_abs_err", "max_rel_err", "status"]
    with open(os.path.join(a.output, "compare.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    plot(rows, os.path.join(a.output, "compare.png"), a.cosine)

    print("golden: %s on %s; compiled: %s" % (source, a.golden, a.model))
    fmt = "%-28s %-22s %-14s %10s %12s %12s  %s"
    print(fmt % ("tensor", "node", "op_type", "cosine", "max_abs_err", "max_rel_err", "status"))
    for r in rows:
        print(fmt % (r["tensor"][:28], r["node"][:22], r["op_type"][:14], r["cosine"], r["max_abs_err"],
                     r["max_rel_err"], r["status"]))
    n_cmp = sum(1 for r in rows if r["cosine"] != "")
    print("%d tensors compared, %d fused or absent; files: %s/compare.csv, %s/compare.png"
          % (n_cmp, len(rows) - n_cmp, a.output, a.output))
    if first:
        print("first divergence: %s (%s)" % (first["tensor"], first["node"]))
    else:
        print("first divergence: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
