#!/usr/bin/python3
"""OpenMP thread binding with both OpenMP runtimes loaded (src/core/par.c).

libascendcl runs its threads on LLVM's libomp; Debian's oneDNN also loads
libgomp, whose constructor binds the loading thread to one CPU when
OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY is set. Unguarded, libomp
then starts from that one-CPU mask and puts its whole team on that CPU.

A convolution runs at 2 threads under each binding variable; while it runs,
the threads' allowed CPUs are read from /proc. The team must span at least
two CPUs. The same run with the guard off (OPENACL_OMP_BIND_GUARD=0) shows
whether this host reproduces the one-CPU team at all; where it does not
(libgomp absent, a single-runtime build) that is printed, and the guarded
runs are still checked.

Usage: omp_bind.py --mdl-run BIN
Exit codes: 0 pass, 1 fail, 77 skipped (fewer than 2 CPUs to run on)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv_model(path):
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.standard_normal((64, 64, 3, 3)).astype(np.float32), "w")
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])
    g = helper.make_graph([node], "bind", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 96, 96])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64, 96, 96])], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(m, path)


def cpus_of(text):
    """The CPU numbers of a Cpus_allowed_list value such as '0-3,6'."""
    out = set()
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    return out


def team_cpus(cmd, env, settle=1.0, timeout=60.0):
    """Runs cmd; returns the union of its threads' allowed CPUs and the
    thread count, read `settle` seconds after a second thread appeared (the
    OpenMP team formed and bound, many runs in)."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    best = (set(), 0)
    deadline, since = time.time() + timeout, None
    try:
        while p.poll() is None and time.time() < deadline:
            seen, n = set(), 0
            try:
                for t in os.listdir(f"/proc/{p.pid}/task"):
                    with open(f"/proc/{p.pid}/task/{t}/status") as f:
                        for line in f:
                            if line.startswith("Cpus_allowed_list:"):
                                seen |= cpus_of(line.split(":", 1)[1])
                                n += 1
            except (FileNotFoundError, ProcessLookupError):
                break
            if n >= 2:
                best = (seen, n)
                since = since or time.time()
                if time.time() - since >= settle:
                    break
            time.sleep(0.005)
    finally:
        p.kill()
        p.wait()
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mdl-run", required=True)
    a = ap.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        print("skipped: fewer than 2 CPUs to run on")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "bind.onnx")
        conv_model(model)
        x = np.random.default_rng(2).standard_normal((1, 64, 96, 96)).astype(np.float32)
        np.save(os.path.join(tmp, "x.npy"), x)
        cmd = [a.mdl_run, "--model", model, "--inputs", os.path.join(tmp, "x.npy"), "--outdir", tmp,
               "--loop", "100000"]
        base = dict(os.environ, OPENACL_THREADS="2", OPENACL_SMALL_OP_US="0")
        for v in ("OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY", "OPENACL_OMP_BIND_GUARD"):
            base.pop(v, None)
        fails = 0
        off, n = team_cpus(cmd, dict(base, OMP_PROC_BIND="true", OPENACL_OMP_BIND_GUARD="0"))
        print(f"guard off, OMP_PROC_BIND=true: {n} threads on CPUs {sorted(off)}"
              + ("" if len(off) < 2 else " (this host does not reproduce the one-CPU team)"))
        for var, val in (("OMP_PROC_BIND", "true"), ("OMP_PLACES", "cores"), ("OMP_PROC_BIND", "close")):
            cpus, n = team_cpus(cmd, dict(base, **{var: val}))
            ok = n >= 2 and len(cpus) >= 2
            fails += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {var}={val}: {n} threads on CPUs {sorted(cpus)}")
        return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
