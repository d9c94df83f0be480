#!/usr/bin/python3
"""atc's command line: every flag error ATC reports (exit status 1, an
"E1xxxx:" line naming the parameter and the reason, then "ATC run failed"),
the successful paths (--help, --version, --mode=1 JSON) and the progress
display (only when stderr is a terminal); the precision modes: every bf16
spelling compiles for bf16 compute (JSON says so), fp16 and unknown modes are
refused, and a CPU without bf16 (ONEDNN_MAX_CPU_ISA=AVX512_CORE caps it)
refuses the bf16 modes.
Run: test_atc_cli.py <atc> <models dir from make_models.py> <scratch dir>"""
import json
import os
import pty
import subprocess
import sys

ATC, MODELS, SCRATCH = sys.argv[1:4]
os.makedirs(SCRATCH, exist_ok=True)
CNN = "--model=" + os.path.join(MODELS, "cnn.onnx")
TWO = "--model=" + os.path.join(MODELS, "two.onnx")
OUT = "--output=" + os.path.join(SCRATCH, "out")
failures = []


def run(*args, env=None):
    return subprocess.run([ATC, *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **env) if env else None)


def expect_error(args, needle, env=None):
    p = run(*args, env=env)
    text = p.stdout + p.stderr
    if p.returncode != 1 or needle not in text or "ATC run failed" not in p.stderr:
        failures.append("atc %s: rc %d, wanted %r in:\n%s" % (" ".join(args), p.returncode, needle, text))


def expect_ok(args, needle="", env=None):
    p = run(*args, env=env)
    if p.returncode != 0 or needle not in p.stdout:
        failures.append("atc %s: rc %d, wanted %r:\n%s%s" % (" ".join(args), p.returncode, needle, p.stdout, p.stderr))
    return p


base = [CNN, "--framework=5", OUT]
cases = [
    ([], "usage"),
    (["--framework=5", OUT], "Argument [--model] is required"),
    ([CNN, OUT], "Argument [--framework] is required"),
    ([CNN, "--framework=5"], "Argument [--output] is required"),
    ([CNN, "--framework=3", OUT], "TensorFlow models are not supported"),
    ([CNN, "--framework=0", OUT], "Caffe models are not supported"),
    ([CNN, "--framework=9", OUT], "only 5 (ONNX) is supported"),
    ([CNN, "--framework=five", OUT], "not a number"),
    (base + ["--foo=1"], "[--foo] is not a valid parameter"),
    (base + ["--soc_version=a", "--soc_version=b"], "is given twice"),
    (base + ["--input_shape="], "is empty"),
    (base + ["stray"], "unexpected argument"),
    (base + ["--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,2", "--dynamic_image_size=8,8;16,16"],
     "mutually exclusive"),
    (base + ["--dynamic_batch_size=1,2"], "--input_shape is required with gears"),
    (base + ["--input_shape=x:1,3,8,8", "--dynamic_batch_size=1,2"], "has no -1 dim"),
    (base + ["--input_shape=x:-1,3,-1,8", "--dynamic_batch_size=1,2"], "only the batch (first) dim may be -1"),
    (base + ["--input_shape=x:-1,3,8,8", "--dynamic_batch_size=4"], "at least 2 are required"),
    (base + ["--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,2,2"], "gear 3 repeats gear 2"),
    (base + ["--input_shape=x:-1,3,8,8", "--dynamic_batch_size=" + ",".join(str(i) for i in range(1, 102))],
     "at most 100 are allowed"),
    (base + ["--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,0"], "not a positive integer"),
    (base + ["--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,b"], "not a positive integer"),
    (base + ["--input_shape=x:1~4,3,8,8", "--dynamic_batch_size=1,2"], "has a range"),
    (base + ["--input_shape=x:1,3,-1,-1", "--dynamic_image_size=8,8;16,16", "--input_format=ND"], "needs NCHW"),
    (base + ["--input_shape=x:1,3,-1,-1", "--dynamic_image_size=8,8,8;16,16,16"], "each gear is 2 values"),
    (base + ["--input_shape=x:1,3,-1,8", "--dynamic_image_size=8,8;16,16"], "exactly H and W"),
    (base + ["--input_shape=x:1,3,-1,-1", "--dynamic_image_size=8,8;8,8"], "repeats gear 1"),
    ([TWO, "--framework=5", OUT, "--input_shape=data:1,-1,4;mask:-1,4", "--dynamic_dims=2,3;5,1"],
     "--dynamic_dims needs --input_format=ND"),
    ([TWO, "--framework=5", OUT, "--input_shape=data:1,-1,4;mask:-1,4", "--dynamic_dims=2;5", "--input_format=ND"],
     "one per -1 dim"),
    ([TWO, "--framework=5", OUT, "--input_shape=data:1,-1,4", "--dynamic_dims=2;5", "--input_format=ND"],
     "still has an unknown shape"),
    (base + ["--input_shape=x:1,a,8,8"], "expected a size >= 0, -1 or a~b"),
    (base + ["--input_shape=x:1,3,8,8;x:1,3,8,8"], "given twice"),
    (base + ["--input_shape=1,3,8,8"], "is not \"name:d0,d1,...\""),
    (base + ["--input_shape=x:4~2,3,8,8"], "is not a range"),
    (base + ["--input_shape=nosuch:1,3,8,8"], "'nosuch' is not an input of the model"),
    (base + ["--precision_mode=force_fp16"], "compute in the model's own types"),
    (base + ["--precision_mode=allow_fp32_to_fp16"], "compute in the model's own types"),
    (base + ["--precision_mode=allow_mix_precision"], "compute in the model's own types"),
    (base + ["--precision_mode=allow_mix_precision_fp16"], "compute in the model's own types"),
    (base + ["--precision_mode=fast"], "expected force_fp32"),
    (base + ["--precision_mode=allow_fp32_to_BF16"], "expected force_fp32"),
    (base + ["--precision_mode=bf16"], "expected force_fp32"),
    (base + ["--precision_mode=force_fp32", "--precision_mode_v2=origin"], "cannot be used together"),
    (base + ["--precision_mode=allow_fp32_to_bf16", "--precision_mode_v2=mixed_bfloat16"], "cannot be used together"),
    (base + ["--precision_mode_v2=mixed_float16"], "use origin, cube_fp16in_fp32out or mixed_bfloat16"),
    (base + ["--precision_mode_v2=fp16"], "use origin, cube_fp16in_fp32out or mixed_bfloat16"),
    (base + ["--precision_mode_v2=mixed_hif8"], "use origin, cube_fp16in_fp32out or mixed_bfloat16"),
    (base + ["--precision_mode_v2=bfloat16"], "expected fp16, origin"),
    (base + ["--input_format=NHWC"], "ONNX models take NCHW, ND or NCDHW"),
    (base + ["--output_type=FP8"], "expected FP32"),
    (base + ["--output_type=Gemm:0:BAD"], "unknown type"),
    (base + ["--input_shape=x:1,3,8,8", "--output_type=nonode:0:FP16"], "has no node 'nonode'"),
    (base + ["--input_fp16_nodes=nosuch"], "'nosuch' is not an input"),
    (base + ["--log=loud"], "expected debug, info, warning, error or null"),
    (base + ["--weight=w.caffemodel"], "only Caffe models take --weight"),
    (base + ["--input_shape_range=x:[1~2,3,8,8]"], "deprecated"),
    (["--mode=3", CNN], "mode 3 is not supported"),
    (["--mode=x"], "expected 0 (compile) or 1"),
    (["--mode=1"], "--mode=1 needs --om"),
    (["--mode=1", "--om=" + os.path.join(MODELS, "cnn.onnx"), "--json=" + os.path.join(SCRATCH, "x.json")],
     "this is an ONNX model"),
    (["--model=" + os.path.join(MODELS, "cnn_static.om"), "--framework=5", OUT], "already an openacl compiled model"),
    (["--model=" + os.path.join(SCRATCH, "missing.onnx"), "--framework=5", OUT], "cannot open the file"),
    (["--model=" + os.path.join(MODELS, "cnn_b1.in0.bin"), "--framework=5", OUT], "not a valid ONNX"),
]
for args, needle in cases:
    expect_error(args, needle)

expect_ok(["--help"], "--dynamic_batch_size")
expect_ok(["--version"], "openacl")
# a successful compile, then its JSON
p = expect_ok(base + ["--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,2", "--soc_version=Ascend310P3",
                      "--log=null"], "ATC run success")
om = os.path.join(SCRATCH, "out.om")
js = os.path.join(SCRATCH, "out.json")
expect_ok(["--mode=1", "--om=" + om, "--json=" + js], "ATC run success")
try:
    d = json.load(open(js))
    assert d["format"] == "openacl compiled model" and d["version"] == "1.1", (d["format"], d["version"])
    assert d["compile"]["precision"] == "fp32" and d["compile"]["precision_source"] == "recorded", d["compile"]
    assert "exec" in [s["name"] for s in d["sections"]], d["sections"]
    assert d["gears"] == {"kind": "dynamic_batch_size", "values": [[1], [2]]}, d["gears"]
    assert d["compile"]["soc_version"] == "Ascend310P3", d["compile"]
    assert d["inputs"][0]["shape"] == [-1, 3, 8, 8], d["inputs"]
    assert len(d["programs"]) == 2 and all(p["static"] for p in d["programs"])
    ops = [n["op"] for n in d["programs"][1]["nodes"]]
    assert "Conv" in ops and "Gemm" in ops, ops
    assert any(n.get("kernel") == "dnnl" for n in d["programs"][1]["nodes"]), "no dnnl kernel recorded"
    assert d["programs"][1]["work_bytes"] > 0
except (AssertionError, KeyError, ValueError) as e:
    failures.append("--mode=1 JSON: %r" % (e,))


def precision_of(om_base):
    js = om_base + ".json"
    q = run("--mode=1", "--om=" + om_base + ".om", "--json=" + js)
    if q.returncode != 0:
        return "dump failed: " + q.stderr
    d = json.load(open(js))
    nodes = [n for p in d["programs"] for n in p["nodes"]]
    marked = sum(1 for n in nodes if n.get("attributes", {}).get("_oa_bf16") == 1)
    return "%s/%s/%d" % (d["compile"]["precision"], d["compile"]["precision_mode"], marked)


# the bf16 spellings (ATC's two --precision_mode values and the v2 one); the
# cnn's Conv reads the input (kept f32), its Gemm gets the bf16 mark
BF16 = not os.path.exists(os.path.join(MODELS, "bf16_unsupported.txt"))
bf16_modes = [("--precision_mode=allow_fp32_to_bf16", "allow_fp32_to_bf16"),
              ("--precision_mode=allow_mix_precision_bf16", "allow_mix_precision_bf16"),
              ("--precision_mode_v2=mixed_bfloat16", "mixed_bfloat16")]
for flag, mode in bf16_modes:
    ob = os.path.join(SCRATCH, "bf_" + mode)
    if BF16:
        expect_ok([CNN, "--framework=5", "--output=" + ob, flag], "bfloat16 compute")
        got = precision_of(ob)
        if got != "bf16/%s/1" % mode:
            failures.append("%s: JSON precision/mode/marked nodes %r, expected bf16/%s/1" % (flag, got, mode))
    else:
        expect_error([CNN, "--framework=5", "--output=" + ob, flag], "needs a CPU with AVX512-BF16 or AMX")
    # a CPU without bf16 refuses every spelling, naming the flag
    expect_error([CNN, "--framework=5", "--output=" + ob + "_nocpu", flag],
                 "[--%s] is invalid. Reason: bfloat16 compute needs a CPU with AVX512-BF16 or AMX" %
                 flag[2:].split("=")[0], env={"ONEDNN_MAX_CPU_ISA": "AVX512_CORE"})
# atc does not read OPENACL_PRECISION: it says so and compiles for float32
of = os.path.join(SCRATCH, "env_fp32")
expect_ok([CNN, "--framework=5", "--output=" + of], "OPENACL_PRECISION=bf16 is not read by atc",
          env={"OPENACL_PRECISION": "bf16"})
if precision_of(of) != "fp32/must_keep_origin_dtype/0":
    failures.append("OPENACL_PRECISION=bf16 leaked into atc: %r" % precision_of(of))

# no progress lines without a terminal, a progress display with one
if "\r[" in p.stderr:
    failures.append("progress written to a non-terminal stderr: %r" % p.stderr)
master, slave = pty.openpty()
q = subprocess.Popen([ATC] + base + ["--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,2,4"],
                     stdout=subprocess.PIPE, stderr=slave)
os.close(slave)
tty = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    tty += chunk
q.wait(timeout=120)
os.close(master)
if q.returncode != 0 or b"gear 3/3" not in tty or b"\r[" not in tty:
    failures.append("progress on a terminal: rc %d, %r" % (q.returncode, tty[-300:]))

if failures:
    print("\n\n".join(failures))
    print("test_atc_cli: %d failure(s) of %d checks" % (len(failures), len(cases) + 7 + 3 * len(bf16_modes)))
    sys.exit(1)
print("test_atc_cli: ok (%d error cases)" % len(cases))
