#!/usr/bin/python3
"""atc --precision_mode=allow_fp32_to_bf16 end to end, through openacl-run:
the compiled model records bf16 (atc --mode=1), its packed weights shrink,
it runs in bf16 with no environment (measurably off float32, within bf16's
error of the float32 reference, same top-1), exactly as the ONNX model loaded
with OPENACL_PRECISION=bf16 at the same thread count -- also when loaded
with another thread count than it was compiled for (packed again) -- ignores
OPENACL_PRECISION, and on a CPU without bf16 (ONEDNN_MAX_CPU_ISA=AVX512_CORE)
or with OPENACL_FORCE_REF=1 falls back to float32.

  bf16_run.py <atc> <openacl-run> <fixture dir> <scratch>          the test net
  bf16_run.py <atc> <openacl-run> <fixture dir> <scratch> --real   mobilenet_v2
Exits 77 (skipped) without bf16 on this CPU, or (--real) without the model set
(scripts/models.sh)."""
import json
import os
import subprocess
import sys

import numpy as np

ATC, RUN, FIXTURE, SCRATCH = sys.argv[1:5]
REAL = "--real" in sys.argv[5:]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.exists(os.path.join(FIXTURE, "bf16_unsupported.txt")):
    print("bf16_run: this CPU has no bfloat16 (atc refuses the bf16 modes, test_atc_cli checks that): skipped")
    sys.exit(77)

if REAL:
    MODELS = os.environ.get("OPENACL_MODELS_DIR", os.path.join(REPO, "models"))
    name = "mobilenet_v2"
    onnx_path = os.path.join(MODELS, name + ".onnx")
    x_path = os.path.join(MODELS, "data", name, "input_0.npy")
    ref_path = os.path.join(MODELS, "ref", name, "output_0.npy")
    if not all(os.path.exists(p) for p in (onnx_path, x_path, ref_path)):
        print("bf16_run: %s and its reference not built (scripts/models.sh): skipped" % name)
        sys.exit(77)
    refs = [np.load(ref_path)]
    # bf16 (8-bit mantissas) on random-weight logits: a few % (BENCHMARKS.md)
    lo, hi = 1e-3, 0.10
else:
    name = "bfnet"
    onnx_path = os.path.join(FIXTURE, "bfnet.onnx")
    x_path = os.path.join(FIXTURE, "bfnet.in0.bin")
    refs = [np.fromfile(os.path.join(FIXTURE, "bfnet.out%d.bin" % i), np.float32) for i in (0, 1)]
    lo, hi = 1e-4, 3e-2
SCRATCH = os.path.join(SCRATCH, name)
os.makedirs(SCRATCH, exist_ok=True)
failures = []
BASE_ENV = {k: v for k, v in os.environ.items()
            if k not in ("OPENACL_PRECISION", "OPENACL_FORCE_REF", "ONEDNN_MAX_CPU_ISA", "OPENACL_THREADS")}


def sh(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(BASE_ENV, **(env or {})))
    if p.returncode != 0:
        sys.exit("bf16_run: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def compile_om(tag, *flags):
    out = os.path.join(SCRATCH, tag)
    sh([ATC, "--model=" + onnx_path, "--framework=5", "--output=" + out, *flags], {"OPENACL_THREADS": "2"})
    sh([ATC, "--mode=1", "--om=" + out + ".om", "--json=" + out + ".json"])
    return out + ".om", json.load(open(out + ".json"))


runs = 0


def run(model, **env):
    global runs
    runs += 1
    d = "run%d" % runs
    sh([RUN, "--model", model, "--input", x_path, "--output", SCRATCH, "--output_dirname", d, "--outfmt", "NPY",
        "--warmup_count", "0"], {k: str(v) for k, v in env.items()})
    base = os.path.splitext(os.path.basename(model))[0]
    return [np.load(os.path.join(SCRATCH, d, "%s_output_%d.npy" % (base, i))).ravel() for i in range(len(refs))]


def rel(ys, rs=None):
    rs = rs if rs is not None else refs
    return max(float(np.linalg.norm(y - r.ravel()) / np.linalg.norm(r.ravel())) for y, r in zip(ys, rs))


def check(cond, what):
    if not cond:
        failures.append(what)


def section(d, n):
    return next((s["bytes"] for s in d["sections"] if s["name"] == n), -1)


om32, j32 = compile_om("fp32")
om16, j16 = compile_om("bf16", "--precision_mode=allow_fp32_to_bf16")
w32, w16 = section(j32, "weights"), section(j16, "weights")
check(j32["compile"]["precision"] == "fp32" and j16["compile"]["precision"] == "bf16",
      "JSON precision: %r / %r" % (j32["compile"], j16["compile"]))
check(j16["compile"]["precision_mode"] == "allow_fp32_to_bf16", "precision_mode %r" % j16["compile"])
marked = sum(1 for n in j16["programs"][0]["nodes"] if n.get("attributes", {}).get("_oa_bf16") == 1)
bf_acts = sum(1 for t in j16["programs"][0]["tensors"] if t["dtype"] == "bfloat16")
check(marked > 0 and not any(n.get("attributes", {}).get("_oa_bf16") for n in j32["programs"][0]["nodes"]),
      "bf16 marks: %d in the bf16 compile" % marked)
check(section(j16, "plain") == section(j32, "plain"), "plain copies differ: %d vs %d" %
      (section(j16, "plain"), section(j32, "plain")))
if REAL:
    check(w16 < 0.55 * w32, "bf16 weights %d bytes, fp32 %d: not about half" % (w16, w32))
else:
    check(w16 + 18000 <= w32, "bf16 weights %d bytes, fp32 %d: the 1x1 convolutions are not bf16" % (w16, w32))

y32 = run(om32, OPENACL_THREADS=2)
y16 = run(om16, OPENACL_THREADS=2)
e32, e16 = rel(y32), rel(y16)
check(e32 < 1e-4, "fp32 .om: rel. L2 error %.3g vs the float32 reference" % e32)
check(lo < e16 < hi, "bf16 .om: rel. L2 error %.3g, expected in (%g, %g)" % (e16, lo, hi))
if REAL:
    check(int(np.argmax(y16[0])) == int(np.argmax(refs[0])) == int(np.argmax(y32[0])),
          "top-1: bf16 %d, fp32 %d, reference %d" % (np.argmax(y16[0]), np.argmax(y32[0]), np.argmax(refs[0])))
# the same computation as the engine's bf16 path for the ONNX model
yo2 = run(onnx_path, OPENACL_THREADS=2, OPENACL_PRECISION="bf16")
check(rel(y16, yo2) < 1e-6, "bf16 .om vs ONNX with OPENACL_PRECISION=bf16 (2 threads): %.3g" % rel(y16, yo2))
# loaded with another thread count than compiled for: packed again, still right
y16t1 = run(om16, OPENACL_THREADS=1)
yo1 = run(onnx_path, OPENACL_THREADS=1, OPENACL_PRECISION="bf16")
check(rel(y16t1, yo1) < 1e-6, "bf16 .om at 1 thread vs ONNX bf16 at 1 thread: %.3g" % rel(y16t1, yo1))
check(lo < rel(y16t1) < hi, "bf16 .om at 1 thread: rel. L2 error %.3g" % rel(y16t1))
# OPENACL_PRECISION does not change a compiled model
yenv = run(om16, OPENACL_THREADS=2, OPENACL_PRECISION="fp32")
check(rel(yenv, y16) == 0, "OPENACL_PRECISION=fp32 changed the bf16 .om's output (%.3g)" % rel(yenv, y16))
yenv32 = run(om32, OPENACL_THREADS=2, OPENACL_PRECISION="bf16")
check(rel(yenv32, y32) == 0, "OPENACL_PRECISION=bf16 changed the fp32 .om's output (%.3g)" % rel(yenv32, y32))
# no bf16 on the loading CPU / reference kernels: float32 fallback
ync = run(om16, OPENACL_THREADS=2, ONEDNN_MAX_CPU_ISA="AVX512_CORE")
check(rel(ync) < 1e-4, "bf16 .om on a CPU without bf16: rel. L2 error %.3g (float32 expected)" % rel(ync))
yref = run(om16, OPENACL_THREADS=1, OPENACL_FORCE_REF="1") if not REAL else None
if yref is not None:
    check(rel(yref) < 1e-4, "bf16 .om with OPENACL_FORCE_REF=1: rel. L2 error %.3g" % rel(yref))

print("bf16_run %s: weights fp32 %d bytes, bf16 %d (%.2fx); %d nodes marked bf16, %d bf16 activations; rel. L2 "
      "error vs the float32 reference: fp32 .om %.2e, bf16 .om %.2e (1 thread %.2e), no-bf16 CPU fallback %.2e%s"
      % (name, w32, w16, w16 / w32, marked, bf_acts, e32, e16, rel(y16t1), rel(ync),
         "; top-1 %d (reference %d)" % (np.argmax(y16[0]), np.argmax(refs[0])) if REAL else ""))
if failures:
    print("\n".join(failures))
    print("bf16_run %s: %d failure(s)" % (name, len(failures)))
    sys.exit(1)
print("bf16_run %s: ok" % name)
