#!/usr/bin/python3
"""openacl-server benchmark (not a test): what the server adds over an
in-process aclmdlExecute, and what dynamic batching buys under load.

  1. added latency: p50 of one connection sending binary requests back to back
     (wrk -c1) minus the p50 of aclmdlExecute in process (openacl-run) on the
     same compiled model (mlp, a small model);
  2. 32 connections (wrk -c32), with and without dynamic batching, on OCR cls
     and ResNet-50 compiled with batch gears 1,2,4,8: p50, p99, requests/s;
  3. in process, the same gear models at batch 1 and 8 (openacl-run): how
     much faster per row the engine is batched, the bound on what batching
     can give a server with one instance.

Run: bench/server/run.py <build-dir> [seconds-per-run]   (after `make models`)
Everything listens on 127.0.0.1. Prints a Markdown table for BENCHMARKS.md."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

BUILD = os.path.abspath(sys.argv[1])
SECS = int(sys.argv[2]) if len(sys.argv) > 2 else 8
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "models")
ATC, RUN, SERVER = (os.path.join(BUILD, n) for n in ("atc", "openacl-run", "openacl-server"))
WORK = tempfile.mkdtemp(prefix="oa-server-bench-")
REPO = os.path.join(WORK, "repo")


def atc(src, out, shape=None, gears=None):
    cmd = [ATC, "--model=" + src, "--framework=5", "--output=" + out]
    if shape:
        cmd += ["--input_shape=" + shape, "--dynamic_batch_size=" + gears]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out + ".om"


def place(name, om, config):
    d = os.path.join(REPO, name, "1")
    os.makedirs(d)
    shutil.copy(om, os.path.join(d, "model.om"))
    with open(os.path.join(REPO, name, "config.json"), "w") as f:
        json.dump(config, f)


def wrk_body(name, dtype, shape):
    x = np.random.default_rng(0).uniform(-1, 1, shape).astype(dtype)
    hdr = json.dumps({"inputs": [{"name": name, "datatype": "FP32", "shape": list(shape),
                                  "parameters": {"binary_data_size": x.nbytes}}],
                      "parameters": {"binary_data_output": True}}).encode()
    path = os.path.join(WORK, "body_%s_%d.bin" % (name, abs(hash(shape))))
    with open(path, "wb") as f:
        f.write(hdr + x.tobytes())
    return path, len(hdr)


LUA = """local f = io.open(os.getenv("OA_BODY"), "rb")
local body = f:read("*a")
f:close()
wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.headers["Inference-Header-Content-Length"] = os.getenv("OA_HL")
"""


def to_us(v):
    m = re.match(r"([\d.]+)(us|ms|s)$", v)
    return float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)]


def wrk(url, body, hl, conns, secs):
    lua = os.path.join(WORK, "post.lua")
    with open(lua, "w") as f:
        f.write(LUA)
    env = dict(os.environ, OA_BODY=body, OA_HL=str(hl))
    p = subprocess.run(["wrk", "-t%d" % min(conns, 2), "-c%d" % conns, "-d%ds" % secs, "--latency", "--timeout",
                        "30s", "-s", lua, url], capture_output=True, text=True, env=env, check=True)
    out = p.stdout
    assert "Non-2xx" not in out and "Socket errors" not in out, out
    lat = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.M))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    return to_us(lat["50"]), to_us(lat["99"]), rps


def main():
    os.makedirs(REPO)
    mlp = atc(os.path.join(MODELS, "mlp.onnx"), os.path.join(WORK, "mlp"))
    place("mlp", mlp, {})
    cls = atc(os.path.join(MODELS, "ocr_cls.onnx"), os.path.join(WORK, "cls"), "x:-1,3,48,192", "1,2,4,8")
    place("ocr_cls_batching", cls, {"dynamic_batching": {"max_queue_delay_us": 2000}})
    place("ocr_cls", cls, {})
    rn = atc(os.path.join(MODELS, "resnet50.onnx"), os.path.join(WORK, "rn"), "input:-1,3,224,224", "1,2,4,8")
    place("resnet50_batching", rn, {"dynamic_batching": {"max_queue_delay_us": 5000}})
    place("resnet50", rn, {})

    # in process: openacl-run on the same compiled model, 2000 runs
    p = subprocess.run([RUN, "--model", mlp, "--loop", "2000", "--warmup_count", "50", "--json", "-"],
                       capture_output=True, text=True, check=True)
    s = json.loads(p.stdout)
    inproc_us = s["latency_ms"]["median"] * 1e3
    copies_us = (s.get("h2d_ms", {}).get("median", 0) + s.get("d2h_ms", {}).get("median", 0)) * 1e3

    port_file = os.path.join(WORK, "port")
    srv = subprocess.Popen([SERVER, "--model-repository", REPO, "--host", "127.0.0.1", "--port", "0",
                            "--port-file", port_file, "--access-log", "off"], stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(port_file):
            assert srv.poll() is None
            time.sleep(0.05)
        url = "http://127.0.0.1:%s/v2/models/" % open(port_file).read().strip()
        body, hl = wrk_body("x", np.float32, (1, 64))
        p50, p99, rps = wrk(url + "mlp/infer", body, hl, 1, SECS)
        # the HTTP floor: a GET the server answers without a model
        live = subprocess.run(["wrk", "-t1", "-c1", "-d%ds" % min(SECS, 3), "--latency",
                               url.replace("/v2/models/", "/v2/health/live")], capture_output=True, text=True,
                              check=True).stdout
        live50 = to_us(re.search(r"^\s+50%\s+(\S+)", live, re.M).group(1))
        print("## openacl-server (loaded machine: load average %.1f on %d cores)\n" % (os.getloadavg()[0],
                                                                                         os.cpu_count()))
        print("One connection, mlp (binary request and response):\n")
        print("| | p50 (us) | p99 (us) | requests/s |")
        print("|---|---|---|---|")
        print("| in process, aclmdlExecute (openacl-run median%s) | %.1f | | |"
              % (", copies %.1f us" % copies_us if copies_us else "", inproc_us))
        print("| openacl-server, 1 connection (wrk) | %.1f | %.1f | %.0f |" % (p50, p99, rps))
        print("| **added by the server** | **%.1f** | | |" % (p50 - inproc_us))
        print("| HTTP floor: `GET /v2/health/live`, 1 connection (wrk) | %.1f | | |\n" % live50)
        print("32 connections, 1 instance each, binary data, %d s per run:\n" % SECS)
        print("| model | batching | p50 (ms) | p99 (ms) | requests/s | speed-up |")
        print("|---|---|---|---|---|---|")
        for name, inp, shape in (("ocr_cls", "x", (1, 3, 48, 192)), ("resnet50", "input", (1, 3, 224, 224))):
            body, hl = wrk_body(inp, np.float32, shape)
            res = {}
            for variant in (name, name + "_batching"):
                res[variant] = wrk(url + variant + "/infer", body, hl, 32, SECS)
            base = res[name][2]
            for variant in (name, name + "_batching"):
                a, b, r = res[variant]
                print("| %s | %s | %.2f | %.2f | %.1f | %.2fx |" % (name, "dynamic" if "batching" in variant else
                                                                     "off", a / 1e3, b / 1e3, r, r / base))
        print("\nIn process (openacl-run, median), items/s at batch 1 and 8 on the same gear models:\n")
        print("| model | batch 1 | batch 8 | ratio |")
        print("|---|---|---|---|")
        for name, om in (("ocr_cls", cls), ("resnet50", rn)):
            ips = []
            for b in (1, 8):
                p = subprocess.run([RUN, "--model", om, "--dymBatch", str(b), "--batchsize", str(b), "--loop",
                                    str(max(3, 400 // b if name == "ocr_cls" else 24 // b)), "--json", "-"],
                                   capture_output=True, text=True, check=True)
                ips.append(b / (json.loads(p.stdout)["latency_ms"]["median"] / 1e3))
            print("| %s | %.1f | %.1f | %.2fx |" % (name, ips[0], ips[1], ips[1] / ips[0]))
    finally:
        srv.terminate()
        srv.wait(60)
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
