#!/usr/bin/python3
"""openacl-compare: which layer makes a compiled model's output wrong (the
msquickcmp workflow, for openacl models).

  openacl-compare --golden ORIGINAL.onnx --model COMPILED [--input a.npy,b.bin]
                  [--output DIR] [--cosine 0.99]

Runs the compiled model (any precision, gears) through openacl-run --dump,
and the original ONNX model on the golden side: ONNX Runtime when its
library and the onnx package are present (every tensor made a graph output,
loaded at run time through its C API), else openacl itself with the reference
kernels, no fusion, no layout change, in float64 (the model's float32
tensors widened; float32 with --golden-precision fp32 or without the onnx
package) (OPENACL_FORCE_REF=1, OPENACL_NO_FUSE=1, OPENACL_NO_LAYOUT=1). The dump
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
import ctypes
import ctypes.util
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


# ---- ONNX Runtime through its C API (ctypes) --------------------------------
# Like bench/ortc/ort_bench.c, the shared library is loaded at run time and
# driven through the OrtApi table of function pointers, whose entries are
# only ever appended (indices counted from onnxruntime_c_api.h; all from API
# version 5 or older). One session, CPU, one thread.
VP = ctypes.c_void_p
API_VERSION, API_MIN = 30, 5
# ONNX TensorProto element types <-> numpy
TYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
         9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64}
# index: (restype, argtypes)
FUNCS = {
    "GetErrorMessage": (2, ctypes.c_char_p, [VP]),
    "CreateEnv": (3, VP, [ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(VP)]),
    "CreateSession": (7, VP, [VP, ctypes.c_char_p, VP, ctypes.POINTER(VP)]),
    "Run": (9, VP, [VP, VP, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(VP), ctypes.c_size_t,
                    ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.POINTER(VP)]),
    "CreateSessionOptions": (10, VP, [ctypes.POINTER(VP)]),
    "SetIntraOpNumThreads": (24, VP, [VP, ctypes.c_int]),
    "SetInterOpNumThreads": (25, VP, [VP, ctypes.c_int]),
    "CreateTensorWithDataAsOrtValue": (49, VP, [VP, VP, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64),
                                                ctypes.c_size_t, ctypes.c_int, ctypes.POINTER(VP)]),
    "GetTensorMutableData": (51, VP, [VP, ctypes.POINTER(VP)]),
    "GetTensorElementType": (60, VP, [VP, ctypes.POINTER(ctypes.c_int)]),
    "GetDimensionsCount": (61, VP, [VP, ctypes.POINTER(ctypes.c_size_t)]),
    "GetDimensions": (62, VP, [VP, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t]),
    "GetTensorTypeAndShape": (65, VP, [VP, ctypes.POINTER(VP)]),
    "CreateCpuMemoryInfo": (69, VP, [ctypes.c_int, ctypes.c_int, ctypes.POINTER(VP)]),
    "ReleaseEnv": (92, None, [VP]),
    "ReleaseStatus": (93, None, [VP]),
    "ReleaseMemoryInfo": (94, None, [VP]),
    "ReleaseSession": (95, None, [VP]),
    "ReleaseValue": (96, None, [VP]),
    "ReleaseTensorTypeAndShapeInfo": (99, None, [VP]),
    "ReleaseSessionOptions": (100, None, [VP]),
}


class OrtError(Exception):
    pass


def find_ort_library(explicit=None, here=None):
    if explicit:
        cands = [explicit]
        here = None
    else:
        cands = [os.environ.get("OPENACL_ORT_LIB")]
    if here:
        for up in ("..", os.path.join("..", "..")):   # the build tree, the source tree
            cands.append(os.path.join(here, up, "third_party", "npm", "node_modules", "onnxruntime-node", "bin",
                                      "napi-v6", "linux", "x64", "libonnxruntime.so.1"))
    if not explicit:
        cands.append(ctypes.util.find_library("onnxruntime"))
    for c in cands:
        if c and (os.path.exists(c) or not os.path.dirname(c)):
            try:
                return ctypes.CDLL(c)
            except OSError:
                continue
    return None


class Ort:
    def __init__(self, lib):
        class Base(ctypes.Structure):
            _fields_ = [("GetApi", ctypes.CFUNCTYPE(VP, ctypes.c_uint32)),
                        ("GetVersionString", ctypes.CFUNCTYPE(ctypes.c_char_p))]
        lib.OrtGetApiBase.restype = ctypes.POINTER(Base)
        base = lib.OrtGetApiBase().contents
        self.version = base.GetVersionString().decode()
        major, minor = (int(x) for x in self.version.split(".")[:2])
        api = min(minor, API_VERSION)
        if major != 1 or api < API_MIN:
            raise OrtError("ONNX Runtime %s is not supported" % self.version)
        tab = base.GetApi(api)
        if not tab:
            raise OrtError("ONNX Runtime %s refuses API version %d" % (self.version, api))
        slots = ctypes.cast(tab, ctypes.POINTER(VP))
        for name, (ix, res, args) in FUNCS.items():
            setattr(self, name, ctypes.CFUNCTYPE(res, *args)(slots[ix]))

    def check(self, st, what):
        if st:
            msg = self.GetErrorMessage(st).decode(errors="replace")
            self.ReleaseStatus(st)
            raise OrtError("%s: %s" % (what, msg))

    def run(self, model, feeds, out_names):
        """feeds: [(name, array)]; returns {name: array} for out_names."""
        env, opts, sess, mi = VP(), VP(), VP(), VP()
        values = []
        try:
            self.check(self.CreateEnv(3, b"openacl-compare", ctypes.byref(env)), "CreateEnv")
            self.check(self.CreateSessionOptions(ctypes.byref(opts)), "CreateSessionOptions")
            self.check(self.SetIntraOpNumThreads(opts, 1), "SetIntraOpNumThreads")
            self.check(self.SetInterOpNumThreads(opts, 1), "SetInterOpNumThreads")
            self.check(self.CreateSession(env, model.encode(), opts, ctypes.byref(sess)), "CreateSession")
            self.check(self.CreateCpuMemoryInfo(1, 0, ctypes.byref(mi)), "CreateCpuMemoryInfo")
            keep, ins = [], []
            for _, a in feeds:
                a = np.ascontiguousarray(a)
                et = next((k for k, v in TYPES.items() if np.dtype(v) == a.dtype), None)
                if et is None:
                    raise OrtError("input dtype %s is not supported" % a.dtype)
                shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
                v = VP()
                self.check(self.CreateTensorWithDataAsOrtValue(mi, a.ctypes.data, a.nbytes, shape, a.ndim, et,
                                                               ctypes.byref(v)), "CreateTensor")
                keep.append(a)
                ins.append(v)
                values.append(v)
            in_names = (ctypes.c_char_p * len(feeds))(*[n.encode() for n, _ in feeds])
            in_vals = (VP * len(ins))(*[v.value for v in ins])
            on = (ctypes.c_char_p * len(out_names))(*[n.encode() for n in out_names])
            outs = (VP * len(out_names))()
            self.check(self.Run(sess, None, in_names, in_vals, len(ins), on, len(out_names), outs), "Run")
            res = {}
            for name, v in zip(out_names, outs):
                if not v:
                    continue
                values.append(VP(v))
                info = VP()
                self.check(self.GetTensorTypeAndShape(v, ctypes.byref(info)), "GetTensorTypeAndShape")
                et, nd = ctypes.c_int(), ctypes.c_size_t()
                self.check(self.GetTensorElementType(info, ctypes.byref(et)), "GetTensorElementType")
                self.check(self.GetDimensionsCount(info, ctypes.byref(nd)), "GetDimensionsCount")
                dims = (ctypes.c_int64 * max(nd.value, 1))()
                self.check(self.GetDimensions(info, dims, nd.value), "GetDimensions")
                self.ReleaseTensorTypeAndShapeInfo(info)
                if et.value not in TYPES:
                    continue
                shape = tuple(dims[i] for i in range(nd.value))
                data = VP()
                self.check(self.GetTensorMutableData(v, ctypes.byref(data)), "GetTensorMutableData")
                dt = np.dtype(TYPES[et.value])
                n = int(np.prod(shape)) if shape else 1
                buf = (ctypes.c_char * (n * dt.itemsize)).from_address(data.value) if n else b""
                res[name] = np.frombuffer(bytes(buf), dtype=dt).reshape(shape).copy()
            return res
        finally:
            for v in values:
                self.ReleaseValue(v)
            for obj, rel in ((mi, self.ReleaseMemoryInfo), (sess, self.ReleaseSession),
                             (opts, self.ReleaseSessionOptions), (env, self.ReleaseEnv)):
                if obj:
                    rel(obj)


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


def dump_run(runner, model, inputs, out, env_extra, extra=(), fail=True):
    """openacl-run --dump of one run; returns {tensor: (array, entry)} and the entries."""
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [runner, "--model", model, "--output", out, "--dump", "true", "--loop", "1", "--warmup_count", "0"]
    if inputs:
        cmd += ["--input", ",".join(inputs)]
    cmd += list(extra)
    if fail:
        run(cmd, env, "openacl-run on " + model)
    else:
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise RuntimeError(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "exit %d" % r.returncode)
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


def ort_golden(ort_lib, golden, inputs, out):
    """Every node output of the original model through ONNX Runtime, in node
    order, or None (with the reason on stderr) when that is not possible."""
    try:
        import onnx
        from onnx import shape_inference
    except ImportError:
        print("openacl-compare: the onnx package is missing, no ONNX Runtime golden", file=sys.stderr)
        return None
    lib = find_ort_library(ort_lib, HERE)
    if lib is None:
        return None
    m = onnx.load(golden)
    try:
        m = shape_inference.infer_shapes(m)
    except Exception:  # noqa: BLE001 - outputs without inferred types are simply not added
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
            vi = known.get(t)
            if t not in have and vi is not None and vi.type.tensor_type.elem_type:
                m.graph.output.append(vi)
                have.add(t)
    inits = {t.name for t in m.graph.initializer}
    names = [vi.name for vi in m.graph.input if vi.name not in inits]
    if len(names) != len(inputs):
        die("%s has %d inputs, %d files given" % (golden, len(names), len(inputs)), 2)
    feeds = [(n, load_input(p, vi)) for n, p, vi in
             zip(names, inputs, [vi for vi in m.graph.input if vi.name not in inits])]
    os.makedirs(out, exist_ok=True)
    exp = os.path.join(out, "golden_all_outputs.onnx")
    onnx.save(m, exp)
    try:
        ort = Ort(lib)
        vals = ort.run(exp, feeds, [o.name for o in m.graph.output])
    except (OrtError, OSError, ValueError) as e:
        print("openacl-compare: ONNX Runtime golden failed (%s), using openacl's reference kernels" % e,
              file=sys.stderr)
        return None
    print("openacl-compare: golden: ONNX Runtime %s" % ort.version, file=sys.stderr)
    return [(t, (vals[t], {"node": node_of[t][0], "op_type": node_of[t][1], "tensor": t}))
            for t in order if t in vals]


def load_input(path, vi):
    """An input file as an array: .npy as stored, raw .bin by the declared type and shape."""
    if path.endswith(".npy"):
        return np.load(path)
    tt = vi.type.tensor_type
    a = np.fromfile(path, dtype=ONNX_NP.get(tt.elem_type, np.float32))
    shape = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else -1 for d in tt.shape.dim]
    return a.reshape(shape) if shape.count(-1) <= 1 else a


def to_float64(golden, inputs, out):
    """The original model and inputs with every float32 made float64 (the
    reference kernels' float64 golden); None when the onnx package is missing."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return None
    m = onnx.load(golden)
    F, D = onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE

    def wide(t):
        t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float64), t.name))

    def graph(g):
        for t in g.initializer:
            if t.data_type == F:
                wide(t)
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            if vi.type.tensor_type.elem_type == F:
                vi.type.tensor_type.elem_type = D
        for n in g.node:
            for at in n.attribute:
                if n.op_type == "Cast" and at.name == "to" and at.i == F:
                    at.i = D
                if at.type == onnx.AttributeProto.TENSOR and at.t.data_type == F:
                    wide(at.t)
                if at.type == onnx.AttributeProto.GRAPH:
                    graph(at.g)
    inits = {t.name for t in m.graph.initializer}
    vis = [vi for vi in m.graph.input if vi.name not in inits]
    graph(m.graph)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "golden_float64.onnx")
    onnx.save(m, path)
    files = []
    for i, (p, vi) in enumerate(zip(inputs, vis)):
        a = load_input(p, vi)
        f = os.path.join(out, "input_%d.npy" % i)
        np.save(f, a.astype(np.float64) if a.dtype == np.float32 else a)
        files.append(f)
    return path, files


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
    ap.add_argument("--golden-precision", choices=("fp64", "fp32"), default="fp64",
                    help="openacl golden: the model widened to float64 (default; needs the onnx package) or float32")
    ap.add_argument("--openacl-run", help="openacl-run to use (default: beside this tool, then PATH)")
    ap.add_argument("--ort-lib", help="libonnxruntime.so for the golden side (default: OPENACL_ORT_LIB, the npm "
                                      "package of the source tree, the system's)")
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
    if a.golden_runtime != "openacl":
        gold = ort_golden(a.ort_lib, a.golden, inputs, os.path.join(a.output, "golden_ort"))
        source = "ONNX Runtime"
    if gold is None:
        if a.golden_runtime == "ort":
            die("--golden-runtime ort: ONNX Runtime (its library and the onnx package) is not available")
        env = {"OPENACL_FORCE_REF": "1", "OPENACL_NO_FUSE": "1", "OPENACL_NO_LAYOUT": "1",
               "OPENACL_PRECISION": "fp32"}
        g = None
        if a.golden_precision == "fp64":
            wide = to_float64(a.golden, inputs, os.path.join(a.output, "golden64_model"))
            if wide is None:
                print("openacl-compare: the onnx package is missing: float32 golden", file=sys.stderr)
            else:
                try:
                    g, g_entries = dump_run(runner, wide[0], wide[1], os.path.join(a.output, "golden"), env,
                                            fail=False)
                    source = "openacl reference kernels (float64, unfused)"
                except RuntimeError as e:
                    print("openacl-compare: the float64 golden failed (%s): float32 golden" % e, file=sys.stderr)
        if g is None:
            g, g_entries = dump_run(runner, a.golden, inputs, os.path.join(a.output, "golden"), env)
            source = "openacl reference kernels (float32, unfused)"
        order = []
        for e in g_entries:
            if e["io"] == "output" and e["tensor"] not in order:
                order.append(e["tensor"])
        gold = [(t, g[t]) for t in order]

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
