#!/usr/bin/python3
"""The qdq_table pass (src/graph/qdq_table.c) on small hand-built QDQ graphs.

An elementwise float chain from one quantised tensor to a QuantizeLinear is a
function of one byte, so the pass runs it as openacl.QTable (256 entries).
The cases: SiLU as ONNX Runtime's quantiser writes it after a convolution
(Conv -> Q -> DQ -> Sigmoid -> Q -> DQ -> Mul(DQ, DQ) -> Q) and without the
inner pair, int8 bytes on both sides, a Tanh/Add/Mul chain, a chain whose
float tensor is also a graph output, a chain ending in a graph output, and
two that must stay as they are: a constant with one value per channel, and a
Mul of two different quantised tensors.
Checks, per case: whether the pass made a table (its info-level log line),
outputs equal bit for bit with the pass switched off
(OPENACL_QDQ_TABLE=0: the table holds what the chain computes), the same
under OPENACL_FORCE_REF=1 (the reference QTable), and within one output step
of ONNX Runtime (tools/ortref) on the same file.

Usage: qdq_table.py --mdl-run BIN [--keep]
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qdq_nets import B, cases_main, conv_layer, fin, ort_case, ort_steps, outputs, same_outputs  # noqa: E402

C, H, W = 8, 9, 10
OUT_STEP = 0.05


def tail(bld, y_dq, ys):
    """y's integers into a depthwise convolution (an int8 reader)."""
    return conv_layer(bld, y_dq, ys, C, C, 3, pad=1, group=C, act="none", ys=OUT_STEP, yzp=128)


def silu(seed, inner_q=True, dtype=np.uint8, hzp=120, yzp=20):
    """x -> Conv -> Q(h) -> DQ -> Sigmoid [-> Q -> DQ] -> Mul(h, s) -> Q(y) -> dw Conv."""
    bld = B(seed)
    x_dq, _, _, _ = bld.qdq("x", 0.02, 128)
    h_dq = conv_layer(bld, x_dq, 0.02, C, C, 1, act="none", ys=0.045, yzp=hzp)
    if dtype == np.int8:   # h as int8 instead: requantise the uint8 h
        h_dq, _, _, _ = bld.qdq(h_dq, 0.045, hzp - 128, dtype=np.int8)
    s = bld.node("Sigmoid", [h_dq])
    if inner_q:
        s, _, _, _ = bld.qdq(s, 1.0 / 255, 0)
    y = bld.node("Mul", [h_dq, s])
    y_dq, _, _, _ = bld.qdq(y, 0.03, yzp - (128 if dtype == np.int8 else 0), dtype=dtype)
    out = tail(bld, y_dq, 0.03)
    m = bld.model([fin([1, C, H, W])], [fin(None, name=out)])
    return m, [bld.rng.uniform(-2.5, 2.5, (1, C, H, W)).astype(np.float32)], [OUT_STEP]


def chain(seed, kind):
    """x -> Q(h) -> DQ -> chain -> Q(y) -> DQ -> dw Conv (and other outputs)."""
    bld = B(seed)
    h_dq, _, _, _ = bld.qdq("x", 0.03, 100)
    outs, steps = [], []
    if kind == "tanh_affine":
        t = bld.node("Tanh", [h_dq])
        t = bld.node("Add", [t, bld.const(np.array([0.5], np.float32))])
        t = bld.node("Mul", [bld.const(np.float32(1.7)), t])
    elif kind == "per_channel":
        t = bld.node("Mul", [h_dq, bld.const(np.linspace(0.5, 1.5, C, dtype=np.float32).reshape(1, C, 1, 1))])
    elif kind == "two_leaves":
        g_dq, _, _, _ = bld.qdq(bld.node("Relu", ["x"]), 0.02, 0)
        t = bld.node("Mul", [h_dq, g_dq])
    else:    # "float_read_too" and "graph_output": a SiLU
        t = bld.node("Mul", [h_dq, bld.node("Sigmoid", [h_dq])])
    y_dq, _, _, _ = bld.qdq(t, 0.02, 40)
    if kind == "graph_output":
        outs.append(fin(None, name=y_dq))
        steps.append(0.02)
    else:
        outs.append(fin(None, name=tail(bld, y_dq, 0.02)))
        steps.append(OUT_STEP)
    if kind == "float_read_too":
        outs.append(fin(None, name=t))
        steps.append(None)
    m = bld.model([fin([1, C, H, W])], outs)
    return m, [bld.rng.uniform(-3, 3, (1, C, H, W)).astype(np.float32)], steps


CASES = {   # name: (builder, folds)
    "silu_as_ort_writes_it": (lambda: silu(1), True),
    "silu_without_inner_pair": (lambda: silu(2, inner_q=False), True),
    "silu_int8": (lambda: silu(3, dtype=np.int8), True),
    "tanh_affine": (lambda: chain(4, "tanh_affine"), True),
    "float_read_too": (lambda: chain(5, "float_read_too"), True),
    "graph_output": (lambda: chain(6, "graph_output"), True),
    "per_channel_constant": (lambda: chain(7, "per_channel"), False),
    "two_leaves": (lambda: chain(8, "two_leaves"), False),
}


def run(cmd, env):
    """stdout and stderr of a run (the log lines go to stdout)."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:2])} failed (rc {p.returncode}): {p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def check(name, args, work):
    build, folds = CASES[name]
    mp, ins, steps, want = ort_case(name, build, work)
    bad, got = [], {}
    for mode, extra in (("on", {}), ("off", {"OPENACL_QDQ_TABLE": "0"}), ("ref", {"OPENACL_FORCE_REF": "1"})):
        out = os.path.join(work, f"{name}_{mode}")
        env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1", ASCEND_SLOG_PRINT_TO_STDOUT="1", **extra)
        log = run([args.mdl_run, "--model", mp, "--inputs", ",".join(ins), "--outdir", out], env)
        got[mode] = outputs(out)
        m = re.search(r"QDQ table: (\d+) elementwise chain", log)
        made = int(m.group(1)) if m else 0
        if mode != "off" and (made == 1) != folds:
            bad.append(f"{mode}: {made} table(s), expected {1 if folds else 0}")
        if mode == "off" and made:
            bad.append("a table with OPENACL_QDQ_TABLE=0")
        bad += ort_steps(mode, got[mode], want, steps)
    for other in ("off", "ref"):
        bad += same_outputs(got["on"], got[other], f"from '{other}'")
    return bad


def main():
    return cases_main(__doc__, CASES, check, "oa_qtab_")


if __name__ == "__main__":
    sys.exit(main())
