#!/usr/bin/python3
"""ConvTranspose whose kernel equals its stride with a fused activation chain
(kernels/dnnl/dn_deconv_mm.c), checked against ONNX Runtime (tools/ortref).

Where the output rows are narrow (kw * M < 16: a detection head's last 2x
up-sampling to one probability map) the chain runs as a separate primitive
over the whole output; wider rows keep it inside the matmul. Each case runs
with the split on and off (OPENACL_DECONV_POST_SPLIT=0) and with the reference
kernels (OPENACL_FORCE_REF=1); all must match ORT within float32 rounding.

Usage: deconv_post.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")


def model(seed, C, M, k, H, W, chain):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((C, M, k, k)) * 0.3).astype(np.float32)
    b = (rng.standard_normal(M) * 0.2).astype(np.float32)
    nodes = [helper.make_node("ConvTranspose", ["x", "w", "b"], ["t0"], kernel_shape=[k, k], strides=[k, k])]
    t = "t0"
    for i, op in enumerate(chain):
        o = f"t{i + 1}"
        if op == "HardSigmoid":
            nodes.append(helper.make_node(op, [t], [o], alpha=0.2, beta=0.5))
        elif op == "Clip":
            nodes.append(helper.make_node(op, [t, "lo", "hi"], [o]))
        else:
            nodes.append(helper.make_node(op, [t], [o]))
        t = o
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
             numpy_helper.from_array(np.float32(-0.5), "lo"), numpy_helper.from_array(np.float32(0.7), "hi")]
    g = helper.make_graph(nodes, "deconv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
                          [helper.make_tensor_value_info(t, TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    x = rng.uniform(-2, 2, (1, C, H, W)).astype(np.float32)
    return m, x


CASES = {   # name: (C, M, k, H, W, chain); kw * M < 16 splits
    "one_map_sigmoid": (24, 1, 2, 20, 24, ["Sigmoid"]),
    "three_maps_relu_clip": (16, 3, 2, 9, 13, ["Relu", "Clip"]),
    "one_map_hsigmoid_k4": (8, 1, 4, 7, 5, ["HardSigmoid"]),
    "wide_rows_sigmoid": (24, 8, 2, 10, 12, ["Sigmoid"]),
    "one_map_no_chain": (24, 1, 2, 11, 9, []),
}


def outputs(d):
    j = json.load(open(os.path.join(d, "outputs.json")))
    return [np.load(os.path.join(d, o["file"])) for o in j["outputs"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mdl-run", required=True)
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(REPO, "third_party", "npm", "node_modules", "onnxruntime-node")):
        print("SKIP: onnxruntime-node missing (run scripts/setup.sh)")
        return 77
    work = tempfile.mkdtemp(prefix="oa_deconv_")
    fails = 0
    try:
        for i, (name, (C, M, k, H, W, chain)) in enumerate(CASES.items()):
            m, x = model(40 + i, C, M, k, H, W, chain)
            mp, xp = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".npy")
            onnx.save(m, mp)
            np.save(xp, x)
            ref = os.path.join(work, name + "_ort")
            subprocess.run(["node", ORTREF, "--model", mp, "--inputs", xp, "--outdir", ref], check=True,
                           capture_output=True, timeout=600)
            want = outputs(ref)[0]
            bad = []
            for mode, extra in (("split", {}), ("inside", {"OPENACL_DECONV_POST_SPLIT": "0"}),
                                ("ref", {"OPENACL_FORCE_REF": "1"})):
                out = os.path.join(work, f"{name}_{mode}")
                p = subprocess.run([a.mdl_run, "--model", mp, "--inputs", xp, "--outdir", out],
                                   capture_output=True, text=True, env=dict(os.environ, **extra), timeout=600)
                if p.returncode:
                    bad.append(f"{mode}: rc {p.returncode} {p.stderr.strip()[:200]}")
                    continue
                got = outputs(out)[0]
                d = float(np.abs(got.astype(np.float64) - want).max()) if got.shape == want.shape else np.inf
                if d > 1e-5 * max(1.0, float(np.abs(want).max())):
                    bad.append(f"{mode}: max diff {d:.3g} vs ORT (shape {got.shape} vs {want.shape})")
            print(("ok   " if not bad else "FAIL ") + name + ("" if not bad else ": " + "; ".join(bad)))
            fails += bool(bad)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
