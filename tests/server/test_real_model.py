"""A real model through openacl-server: PP-OCRv4 cls (models/, `make models`)
compiled with batch gears, three images in one binary request and three
concurrent single-image requests batched by the server, each output checked
against the in-process result of the same image (the `acl` module through
openacl.run on the ONNX model). Skipped (77) without models/ or the module."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from srvlib import Server, binary_body, concurrent, http_request, split_binary  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ONNX = os.path.join(ROOT, "models", "ocr_cls.onnx")


def main():
    try:
        import openacl
    except ImportError:
        print("skipped: the acl module is not built here")
        return 77
    if not os.path.exists(ONNX):
        print("skipped: models/ocr_cls.onnx is missing (make models)")
        return 77
    work = tempfile.mkdtemp(prefix="oa-real-")
    repo = os.path.join(work, "repo")
    os.makedirs(os.path.join(repo, "ocr_cls", "1"))
    subprocess.run([os.environ["OPENACL_ATC"], "--model=" + ONNX, "--framework=5",
                    "--output=" + os.path.join(repo, "ocr_cls", "1", "model"), "--input_shape=x:-1,3,48,192",
                    "--dynamic_batch_size=1,2,4,8"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(repo, "ocr_cls", "config.json"), "w") as f:
        json.dump({"dynamic_batching": {"max_queue_delay_us": 20000}}, f)
    x = np.random.default_rng(5).uniform(-1, 1, (3, 3, 48, 192)).astype(np.float32)
    ref = np.concatenate([openacl.run(ONNX, [x[i:i + 1]])[0] for i in range(3)])
    s = Server("--access-log", "off", repo=repo)
    try:
        import requests
        body, hl = binary_body([("x", "FP32", x)], binary_output=True)
        r = requests.post(s.url + "/v2/models/ocr_cls/infer", data=body,
                          headers={"Inference-Header-Content-Length": str(hl)}, timeout=60)
        assert r.status_code == 200, r.text
        hdr, raw = split_binary(r)
        (name,) = raw
        y = np.frombuffer(raw[name], np.float32).reshape(3, 2)
        np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
        raws = []
        for i in range(3):
            b, h = binary_body([("x", "FP32", x[i:i + 1])], binary_output=True)
            raws.append(http_request("POST", "/v2/models/ocr_cls/infer", b, {"Inference-Header-Content-Length": h}))
        for i, (st, headers, b) in enumerate(concurrent(s.port, raws, timeout=60)):
            assert st == 200, b[:300]
            hl = int(headers["inference-header-content-length"])
            np.testing.assert_allclose(np.frombuffer(b[hl:], np.float32).reshape(1, 2), ref[i:i + 1], rtol=1e-4,
                                       atol=1e-5)
        m = s.metrics()
        print("ocr_cls: 3 rows in one request and 3 concurrent requests match in-process results; %d executions"
              % m['openacl_inference_batch_size_count{model="ocr_cls"}'])
    finally:
        s.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
