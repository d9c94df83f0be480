"""Shared pieces of the openacl-server tests: start a server on a free port
of 127.0.0.1 (the server binds port 0 and writes the port it got), wait for
it to be ready, stop it with SIGTERM and check it exits 0; the numpy
references of the test models (make_repo.py)."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import numpy as np
import requests

SERVER = os.environ.get("OPENACL_SERVER", "openacl-server")
REPO = os.environ.get("SERVER_REPO", "")
SRC = REPO + ".src"


class Server:
    def __init__(self, *extra, repo=None, env=None):
        self.dir = tempfile.mkdtemp(prefix="oa-server-")
        self.port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "access.log")
        self.err = open(os.path.join(self.dir, "stderr"), "w+")
        cmd = [SERVER, "--model-repository", repo or REPO, "--host", "127.0.0.1", "--port", "0",
               "--port-file", self.port_file, "--access-log", self.log] + list(extra)
        self.proc = subprocess.Popen(cmd, stdout=self.err, stderr=self.err, env=env)
        deadline = time.time() + 60
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("openacl-server did not start: " + self.stderr())
            time.sleep(0.02)
        self.port = int(open(self.port_file).read())
        self.url = "http://127.0.0.1:%d" % self.port

    def stderr(self):
        self.err.flush()
        with open(self.err.name) as f:
            return f.read()

    def access_log(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def stop(self, timeout=30):
        """SIGTERM; the server must drain and exit 0 in time."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("openacl-server did not exit within %ds of SIGTERM" % timeout)
        assert rc == 0, "openacl-server exited %d:\n%s" % (rc, self.stderr()[-4000:])
        self.err.close()
        shutil.rmtree(self.dir, ignore_errors=True)   # kept when the server failed: its logs are there
        return rc

    def metrics(self):
        text = requests.get(self.url + "/metrics", timeout=10).text
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                k, v = line.rsplit(" ", 1)
                out[k] = float(v)
        return out


def small_ref(x):
    w = np.load(os.path.join(SRC, "small.W.npy"))
    b = np.load(os.path.join(SRC, "small.B.npy"))
    return np.maximum(x @ w + b, 0)


def infer_json(x, name="X"):
    return {"inputs": [{"name": name, "datatype": "FP32", "shape": list(x.shape), "data": x.flatten().tolist()}]}


def binary_body(tensors, outputs=None, binary_output=None):
    """tensors: [(name, datatype, array)] -> (body bytes, header length)"""
    hdr = {"inputs": [{"name": n, "datatype": dt, "shape": list(a.shape),
                       "parameters": {"binary_data_size": a.nbytes}} for n, dt, a in tensors]}
    if outputs is not None:
        hdr["outputs"] = outputs
    if binary_output is not None:
        hdr["parameters"] = {"binary_data_output": binary_output}
    h = json.dumps(hdr).encode()
    return h + b"".join(np.ascontiguousarray(a).tobytes() for _, _, a in tensors), len(h)


def split_binary(resp):
    """-> (header dict, {name: raw bytes})"""
    hl = int(resp.headers.get("Inference-Header-Content-Length", len(resp.content)))
    hdr = json.loads(resp.content[:hl])
    raw, at = {}, hl
    for o in hdr["outputs"]:
        n = o.get("parameters", {}).get("binary_data_size")
        if n is not None:
            raw[o["name"]] = resp.content[at:at + n]
            at += n
    assert at == len(resp.content), "binary data is not exactly the outputs' sizes"
    return hdr, raw


def http_request(method, path, body=b"", headers=None):
    h = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: %d\r\n" % (method, path, len(body))
    for k, v in (headers or {}).items():
        h += "%s: %s\r\n" % (k, v)
    return h.encode() + b"\r\n" + body


async def _exchange(port, raw, timeout):
    import asyncio
    r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
    try:
        w.write(raw)
        await w.drain()
        status = await asyncio.wait_for(r.readline(), timeout)
        headers = {}
        while True:
            line = await asyncio.wait_for(r.readline(), timeout)
            if line in (b"\r\n", b""):
                break
            k, v = line.decode().split(":", 1)
            headers[k.strip().lower()] = v.strip()
        body = await asyncio.wait_for(r.readexactly(int(headers.get("content-length", 0))), timeout)
        return int(status.split()[1]), headers, body
    finally:
        w.close()


def concurrent(port, raws, timeout=60):
    """Sends every request at once, each on its own connection; returns
    (status, headers, body) or the exception, per request, in order."""
    import asyncio

    async def main():
        return await asyncio.gather(*[_exchange(port, raw, timeout) for raw in raws], return_exceptions=True)
    return asyncio.run(main())
