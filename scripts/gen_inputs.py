#!/usr/bin/python3
"""Seeded random inputs for a model, written as input_<i>.npy (+ inputs.json).

  gen_inputs.py --manifest models/manifest.json --model resnet50 --outdir D [--seed 0]
  gen_inputs.py --manifest models/manifest.json --all --outroot models/data
  gen_inputs.py --onnx m.onnx --outdir D [--shape name=1x3x224x224 ...]

Values per the manifest's "gen" of each input: uniform [low, high) floats
(default -1..1), normal, integers in [low, high) (token ids < vocab), an
attention mask (first `valid` positions 1, the rest 0), or a constant.
The same seed, model name and input index always give the same bytes."""
import argparse
import json
import os
import sys
import zlib

import numpy as np

ONNX_DT = {1: "float32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32", 7: "int64",
           9: "bool", 10: "float16", 11: "float64"}


def gen_one(spec, rng):
    dt = np.dtype(spec["dtype"])
    shape = tuple(int(d) for d in spec["shape"])
    g = spec.get("gen") or {}
    kind = g.get("kind") or ("uniform" if dt.kind == "f" else "int")
    if kind == "uniform":
        a = rng.uniform(g.get("low", -1.0), g.get("high", 1.0), size=shape)
    elif kind == "normal":
        a = rng.normal(g.get("mean", 0.0), g.get("std", 1.0), size=shape)
    elif kind == "int":
        lo, hi = int(g.get("low", 0)), int(g.get("high", 2 if dt.kind != "f" else 10))
        if dt == np.bool_:
            lo, hi = 0, 2
        a = rng.integers(lo, hi, size=shape)
    elif kind == "mask":
        valid = int(g.get("valid", shape[-1] if shape else 1))
        a = np.zeros(shape, np.int64)
        a[..., :valid] = 1
    elif kind == "const":
        a = np.full(shape, g.get("value", 0))
    else:
        sys.exit(f"gen_inputs: {spec['name']}: unknown gen kind '{kind}'")
    # ascontiguousarray turns a 0-d array into shape (1,): keep scalars scalar
    return np.ascontiguousarray(a.astype(dt)).reshape(shape)


def write_set(name, inputs, outdir, seed):
    os.makedirs(outdir, exist_ok=True)
    meta = {"model": name, "seed": seed, "inputs": []}
    for i, spec in enumerate(inputs):
        if any(not isinstance(d, int) or d < 0 for d in spec["shape"]):
            sys.exit(f"gen_inputs: {name}: input {spec['name']} has no concrete shape {spec['shape']}"
                     " (give --shape)")
        rng = np.random.default_rng([seed, zlib.crc32(name.encode()), i])
        arr = gen_one(spec, rng)
        fn = f"input_{i}.npy"
        np.save(os.path.join(outdir, fn), arr)
        meta["inputs"].append({"name": spec["name"], "dtype": str(arr.dtype),
                               "shape": list(arr.shape), "file": fn})
    with open(os.path.join(outdir, "inputs.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def from_onnx(path, shapes):
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    out = []
    for v in m.graph.input:
        if v.name in inits:
            continue
        tt = v.type.tensor_type
        shape = shapes.get(v.name) or [d.dim_value if d.HasField("dim_value") else "?"
                                       for d in tt.shape.dim]
        out.append({"name": v.name, "dtype": ONNX_DT.get(tt.elem_type, "float32"), "shape": shape})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest")
    ap.add_argument("--model", help="model name in the manifest")
    ap.add_argument("--all", action="store_true", help="every model of the manifest")
    ap.add_argument("--outroot", help="with --all: writes <outroot>/<name>/")
    ap.add_argument("--onnx", help="take inputs from an ONNX file instead of a manifest")
    ap.add_argument("--shape", action="append", default=[], help="name=AxBxC (with --onnx)")
    ap.add_argument("--outdir")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.onnx:
        shapes = {}
        for s in a.shape:
            k, v = s.split("=", 1)
            shapes[k] = [int(x) for x in v.split("x")]
        name = os.path.splitext(os.path.basename(a.onnx))[0]
        write_set(name, from_onnx(a.onnx, shapes), a.outdir or ".", a.seed)
        return
    if not a.manifest:
        ap.error("--manifest or --onnx is required")
    models = json.load(open(a.manifest))["models"]
    if a.all:
        if not a.outroot:
            ap.error("--all needs --outroot")
        for m in models:
            write_set(m["name"], m["inputs"], os.path.join(a.outroot, m["name"]), a.seed)
        return
    sel = [m for m in models if m["name"] == a.model]
    if not sel:
        sys.exit(f"gen_inputs: no model '{a.model}' in {a.manifest}")
    if not a.outdir:
        ap.error("--outdir is required")
    write_set(a.model, sel[0]["inputs"], a.outdir, a.seed)


if __name__ == "__main__":
    main()
