#!/usr/bin/python3
"""The qdq_affine pass (src/graph/qdq_affine.c) on small hand-built QDQ graphs.

A quantised HardSwish output h goes through DequantizeLinear, a scalar affine
(Mul/Add, or Div/Sub spelled the other way) and QuantizeLinear(y) into a padded
depthwise convolution, as openacl-quant writes PP-OCR's blocks. Where y's grid
is h's grid moved by the affine (y step = a * h step, the offset b a whole
number of y steps, h's zero point y's plus that number) every integer maps to itself and the pass lets the
convolution read h's integers; everywhere else (negative or zero scale, a
per-channel factor, an offset half a step off the grid) it must leave the
graph alone; an offset a smaller fraction of a step off rounds away and folds.
Checks, per case: whether the pass folded (node count after it, from
OPENACL_PRINT_PASSES), outputs equal bit for bit with the pass switched off
(OPENACL_QDQ_AFFINE=0: the rewrite changes no value), and within one output
step of ONNX Runtime (tools/ortref) on the same file.

Usage: qdq_affine.py --mdl-run BIN [--keep]
Exit codes: 0 pass, 1 fail, 77 skipped (no onnxruntime-node)."""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qdq_nets import B, cases_main, conv_layer, fin, ort_case, ort_steps, outputs, same_outputs  # noqa: E402

HS = 0.02     # h's (the HardSwish output's) step


def case(seed, a, b_steps, kind="mul_add", per_channel=False, also_float=False, yzp=30):
    """x -> Conv+HardSwish -> Q(h) -> DQ -> affine -> Q(y) -> DQ -> dw Conv.
    y's step s = a * h's step; b = b_steps * s; h's zero point is then
    zp_y + b_steps (the grids line up when b_steps is a whole number)."""
    bld = B(seed)
    C = 8
    x_dq, _, _, _ = bld.qdq("x", 0.02, 128)
    s = abs(a) * HS if a != 0 else HS
    hz = yzp + int(round(b_steps))
    h = conv_layer(bld, x_dq, 0.02, C, C, 1, act="hswish", ys=HS, yzp=hz)
    bval = np.float32(b_steps * s)
    if per_channel:
        av = np.full((1, C, 1, 1), a, np.float32)
        av[0, 1] = a * 1.5
        t = bld.node("Mul", [h, bld.const(av)])
    elif kind == "div_sub":
        t = bld.node("Div", [h, bld.const(np.array([1.0 / a], np.float32))])
    else:
        t = bld.node("Mul", [bld.const(np.array([a], np.float32)), h])
    if kind == "div_sub":
        t = bld.node("Sub", [t, bld.const(np.array([-bval], np.float32))])
    else:
        t = bld.node("Add", [t, bld.const(np.array([bval], np.float32))])
    y_dq, _, _, _ = bld.qdq(t, s, yzp)
    out = conv_layer(bld, y_dq, s, C, C, 3, pad=1, group=C, act="none", ys=0.05, yzp=128)
    outs = [fin(None, name=out)]
    steps = [0.05]
    if also_float:   # the affine's float output read elsewhere too
        r = bld.node("Relu", [t])
        outs.append(fin(None, name=r))
        steps.append(None)
    m = bld.model([fin([1, C, 9, 10])], outs)
    x = bld.rng.uniform(-2.5, 2.5, (1, C, 9, 10)).astype(np.float32)
    return m, [x], steps


CASES = {   # name: (builder, folds)
    "scalar_mul_add": (lambda: case(1, 0.7, 12), True),
    "scalar_div_sub": (lambda: case(2, 1.9, -7, kind="div_sub"), True),
    "scale_gt_one_zero_offset": (lambda: case(3, 3.35, 0), True),
    "also_read_as_float": (lambda: case(4, 0.53, 5, also_float=True), True),
    "offset_rounds_away": (lambda: case(9, 3.35, -0.374), True),
    "negative_scale": (lambda: case(5, -0.7, 12), False),
    "zero_scale": (lambda: case(6, 0.0, 3), False),
    "per_channel_factor": (lambda: case(7, 0.7, 12, per_channel=True), False),
    "offset_on_a_tie": (lambda: case(8, 0.7, 12.5), False),
}


def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:2])} failed (rc {p.returncode}): {p.stdout}{p.stderr}")
    return p.stderr


def nodes_after(log, name):
    m = re.search(r"pass %s\s+done, (\d+) nodes" % name, log)
    return int(m.group(1)) if m else None


def check(name, args, work):
    build, folds = CASES[name]
    mp, ins, steps, want = ort_case(name, build, work)
    bad, got = [], {}
    for mode, extra in (("on", {}), ("off", {"OPENACL_QDQ_AFFINE": "0"}),
                        ("ref", {"OPENACL_FORCE_REF": "1"})):
        out = os.path.join(work, f"{name}_{mode}")
        env = dict(os.environ, OPENACL_PRINT_PASSES="1", **extra)
        log = run([args.mdl_run, "--model", mp, "--inputs", ",".join(ins), "--outdir", out], env)
        got[mode] = outputs(out)
        before, after = nodes_after(log, "supported"), nodes_after(log, "qdq_affine")
        if before is None or after is None:
            bad.append(f"{mode}: no pass printout")
        elif mode != "off" and (after < before) != folds:
            bad.append(f"{mode}: nodes {before} -> {after} after qdq_affine, expected "
                       f"{'a fold' if folds else 'no change'}")
        bad += ort_steps(mode, got[mode], want, steps)
    return bad + same_outputs(got["on"], got["off"], "with the pass off")


def main():
    return cases_main(__doc__, CASES, check, "oa_qaff_")


if __name__ == "__main__":
    sys.exit(main())
