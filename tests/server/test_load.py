"""openacl-server under load and faults, on 127.0.0.1 only, bounded in count
and time: 1,000+ concurrent requests with and without dynamic batching, a
queue-full storm, timeouts, clients that go away mid-request, slow-loris
connections, garbage on the wire, model unload under load, wrk with a Lua
script, and the SIGTERM drain. Every answer is checked (status, body)."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import requests

sys.path.insert(0, os.path.dirname(__file__))
from srvlib import Server, concurrent, http_request, infer_json, small_ref  # noqa: E402

N_CONC = int(os.environ.get("SERVER_LOAD_N", "1200"))


@pytest.fixture(scope="module")
def srv():
    s = Server("--max-connections", "8192")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def srv_idle2():
    """A server that closes connections idle or stalled for 2 s."""
    s = Server("--idle-timeout", "2")
    yield s
    s.stop()


def small_requests(n, model, seed):
    rng = np.random.default_rng(seed)
    xs, raws = [], []
    for i in range(n):
        x = rng.standard_normal((1 + i % 3, 16)).astype(np.float32)
        xs.append(x)
        raws.append(http_request("POST", "/v2/models/%s/infer" % model, json.dumps(infer_json(x)).encode(),
                                 {"Content-Type": "application/json"}))
    return xs, raws


def check_all_ok(xs, res):
    errors = [r for r in res if isinstance(r, Exception)]
    assert not errors, "%d requests failed: %r" % (len(errors), errors[:3])
    for x, (st, _, body) in zip(xs, res):
        assert st == 200, body[:300]
        o = json.loads(body)["outputs"][0]
        assert o["shape"] == [x.shape[0], 10]
        np.testing.assert_allclose(np.array(o["data"], np.float32).reshape(x.shape[0], 10), small_ref(x),
                                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("model", ["small", "small_nb"])
def test_concurrent_requests(srv, model):
    before = srv.metrics()
    key = '{model="%s"}' % model
    xs, raws = small_requests(N_CONC, model, 1 if model == "small" else 2)
    t0 = time.time()
    res = concurrent(srv.port, raws, timeout=60)
    took = time.time() - t0
    check_all_ok(xs, res)
    m = srv.metrics()
    execs = m["openacl_inference_batch_size_count" + key] - before.get("openacl_inference_batch_size_count" + key, 0)
    rows = m["openacl_inference_batch_size_sum" + key] - before.get("openacl_inference_batch_size_sum" + key, 0)
    assert rows == sum(x.shape[0] for x in xs)
    if model == "small":
        assert execs < N_CONC, "dynamic batching grouped nothing (%d executions)" % execs
    else:
        assert execs == N_CONC, "without dynamic batching every request runs alone"
    print("%s: %d concurrent requests in %.2f s, %d executions" % (model, N_CONC, took, execs))
    assert m["openacl_http_inflight_requests"] <= 1


def test_queue_full_storm(srv):
    """heavy_q: one instance, a queue of 4. Every request is answered 200 or
    503 (with Retry-After), none lost or hung."""
    x = np.ones((16, 384), np.float32)
    raw = http_request("POST", "/v2/models/heavy_q/infer", json.dumps(infer_json(x)).encode())
    res = concurrent(srv.port, [raw] * 600, timeout=60)
    errors = [r for r in res if isinstance(r, Exception)]
    assert not errors, errors[:3]
    codes = [r[0] for r in res]
    assert set(codes) <= {200, 503}, set(codes)
    assert codes.count(200) >= 1 and codes.count(503) >= 1, (codes.count(200), codes.count(503))
    for st, h, body in res:
        if st == 503:
            assert h.get("retry-after") == "1" and "queue is full" in json.loads(body)["error"]
    m = srv.metrics()
    assert m['openacl_inference_requests_total{model="heavy_q",outcome="rejected"}'] == codes.count(503)
    assert m['openacl_inference_queue_depth{model="heavy_q"}'] == 0


def test_timeouts(srv):
    x = np.ones((16, 384), np.float32)
    raw = http_request("POST", "/v2/models/heavy_t/infer", json.dumps(infer_json(x)).encode())
    res = concurrent(srv.port, [raw] * 120, timeout=60)
    codes = [r if isinstance(r, Exception) else r[0] for r in res]
    assert set(codes) <= {200, 504}, codes
    # whether the burst above queues long enough depends on the host's
    # speed; the model's timeout_ms on a request its batching window holds
    # for 2 s times out on any host
    one = dict(infer_json(np.ones((1, 16), np.float32)))
    raws = [http_request("POST", "/v2/models/small_drain_t/infer", json.dumps(one).encode())] * 3
    res = concurrent(srv.port, raws, timeout=60)
    assert [r[0] for r in res] == [504] * 3, res
    assert "timed out" in json.loads(res[0][2])["error"]
    # parameters.timeout (us) beats the model's: a 1 ms timeout on a model
    # whose batching window holds a lone request for 2 s
    req = dict(infer_json(np.ones((1, 16), np.float32)), parameters={"timeout": 1000})
    raws = [http_request("POST", "/v2/models/small_drain/infer", json.dumps(req).encode())] * 3
    assert [r[0] for r in concurrent(srv.port, raws, timeout=60)] == [504] * 3


def alive(srv):
    r = requests.post(srv.url + "/v2/models/small/infer", json=infer_json(np.ones((1, 16), np.float32)), timeout=10)
    return r.status_code == 200


def test_clients_disconnect_mid_request(srv):
    x = np.ones((16, 384), np.float32)
    full = http_request("POST", "/v2/models/heavy_slow/infer", json.dumps(infer_json(x)).encode())
    socks = []
    for i in range(150):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        if i % 3 == 0:
            s.sendall(full[:len(full) // 2])      # half a body
        elif i % 3 == 1:
            s.sendall(full)                       # queued, then gone before the answer
        else:
            s.sendall(full[:40])                  # half a request line
        socks.append(s)
    time.sleep(0.2)
    for s in socks:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")   # RST
        s.close()
    assert alive(srv)
    deadline = time.time() + 30
    while srv.metrics()["openacl_http_inflight_requests"] > 1 and time.time() < deadline:
        time.sleep(0.1)
    assert srv.metrics()["openacl_http_inflight_requests"] <= 1, "abandoned requests were never finished"
    log = srv.access_log()
    assert any(e["status"] == 499 for e in log), "no request was logged as abandoned by its client"


def test_garbage_and_oversized_headers(srv_idle2):
    srv = srv_idle2
    for raw in (b"\x00\x01\x02 garbage \xff\r\n\r\n", b"GET /v2 HTTP/9.9\r\n\r\n",
                b"POST /v2/models/small/infer HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                b"GET /v2 HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n"):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        try:
            s.sendall(raw)
            data = s.recv(4096)
            # MHD answers what it cannot parse itself (400, 413, 431, 505) and closes
            assert data == b"" or data[:10] in (b"HTTP/1.1 4", b"HTTP/1.0 4") or data.startswith(b"HTTP/1.1 505"), \
                data[:100]
        except (ConnectionResetError, BrokenPipeError):
            pass
        finally:
            s.close()
    assert alive(srv)


def test_slow_loris(srv_idle2):
    """Connections that send part of their headers and stall are closed after
    the idle timeout (2 s here); other clients are served meanwhile."""
    srv = srv_idle2
    slow = []
    for _ in range(200):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        s.sendall(b"POST /v2/models/small/infer HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        slow.append(s)
    t0 = time.time()
    for _ in range(20):
        assert alive(srv)
    assert time.time() - t0 < 5, "the server was slowed down by stalled connections"
    closed = 0
    deadline = time.time() + 10
    for s in slow:
        s.settimeout(max(0.1, deadline - time.time()))
        try:
            data = s.recv(1024)
            if data == b"" or data.startswith(b"HTTP/1.1 408"):
                closed += 1
        except ConnectionResetError:
            closed += 1
        except socket.timeout:
            pass
        s.close()
    assert closed == len(slow), "%d of %d stalled connections were left open" % (len(slow) - closed, len(slow))
    assert time.time() - t0 < 12


def test_unload_under_load(srv):
    stop = time.time() + 2.5
    seen, bad = {}, []
    x = np.ones((2, 16), np.float32)
    want = small_ref(x)

    def client():
        sess = requests.Session()
        while time.time() < stop:
            try:
                r = sess.post(srv.url + "/v2/models/small_nb/infer", json=infer_json(x), timeout=20)
            except requests.RequestException as e:
                bad.append(repr(e))
                continue
            seen[r.status_code] = seen.get(r.status_code, 0) + 1
            if r.status_code == 200:
                y = np.array(r.json()["outputs"][0]["data"], np.float32).reshape(2, 10)
                if not np.allclose(y, want, rtol=1e-4, atol=1e-5):
                    bad.append("wrong result")
            elif r.status_code not in (404, 503) or "error" not in r.json():
                bad.append((r.status_code, r.text[:200]))
    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    assert requests.post(srv.url + "/v2/repository/models/small_nb/unload", timeout=30).status_code == 200
    time.sleep(0.5)
    assert requests.post(srv.url + "/v2/repository/models/small_nb/load", timeout=60).status_code == 200
    for t in threads:
        t.join(30)
    assert not bad, bad[:5]
    assert seen.get(200, 0) > 0 and seen.get(404, 0) + seen.get(503, 0) > 0, seen


WRK_LUA = r"""
-- POST one inference request; every response must be 200 and carry the
-- outputs numpy expects (to 1e-4: rows batched onto different gears may
-- differ in the last bits).
wrk.method = "POST"
wrk.body = %(body)s
wrk.headers["Content-Type"] = "application/json"
local expected = {%(expected)s}
local threads = {}
local function matches(body)
  local data = body:match('"data":%%[(.-)%%]')
  if not data then return false end
  local i = 0
  for v in data:gmatch("[^,]+") do
    i = i + 1
    local a, b = tonumber(v), expected[i]
    if a == nil or b == nil or math.abs(a - b) > 1e-4 * math.max(1, math.abs(b)) then return false end
  end
  return i == #expected
end
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  bad = 0
  checked = 0
end
function response(status, headers, body)
  checked = checked + 1
  if status ~= 200 or not matches(body) then
    bad = bad + 1
  end
end
function done(summary, latency, requests)
  local b, c = 0, 0
  for _, t in ipairs(threads) do
    b = b + t:get("bad")
    c = c + t:get("checked")
  end
  io.write(string.format("CHECKED %%d BAD %%d\n", c, b))
  io.write(string.format("ERRORS %%d %%d %%d %%d %%d\n", summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout))
end
"""


def test_wrk(srv, tmp_path):
    x = np.random.default_rng(12).standard_normal((1, 16)).astype(np.float32)
    body = json.dumps(infer_json(x))
    for model in ("small", "small_nb"):
        ref = requests.post(srv.url + "/v2/models/%s/infer" % model, data=body, timeout=10)
        y = np.array(ref.json()["outputs"][0]["data"], np.float32).reshape(1, 10)
        np.testing.assert_allclose(y, small_ref(x), rtol=1e-4, atol=1e-5)
        script = tmp_path / ("post_%s.lua" % model)
        want = ",".join("%.9g" % v for v in small_ref(x).flatten())
        script.write_text(WRK_LUA % {"body": json.dumps(body), "expected": want})
        p = subprocess.run(["wrk", "-t2", "-c32", "-d2s", "--timeout", "10s", "-s", str(script),
                            srv.url + "/v2/models/%s/infer" % model], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        errs = [int(v) for v in p.stdout.split("ERRORS")[1].split()]
        assert errs == [0, 0, 0, 0, 0], p.stdout
        checked, bad = (int(v) for v in p.stdout.split("CHECKED")[1].split()[::2][:2])
        assert bad == 0 and checked >= 100, p.stdout
        print(model, p.stdout.splitlines()[-4:])


def test_sigterm_drains_in_flight_requests():
    """13 one-row requests on a model with gears up to 8 and a 2 s batching
    window: 8 run at once, 5 wait in the queue. SIGTERM then: the 5 are
    still answered 200, and the server exits 0."""
    s = Server("--drain-timeout-ms", "30000")
    try:
        xs, raws = small_requests(13, "small_drain", 9)
        xs = [x[:1] for x in xs]
        raws = [http_request("POST", "/v2/models/small_drain/infer", json.dumps(infer_json(x)).encode()) for x in xs]
        out = {}
        t = threading.Thread(target=lambda: out.setdefault("res", concurrent(s.port, raws, timeout=60)))
        t.start()
        deadline, waiting, execs = time.time() + 20, 0, 0
        while time.time() < deadline and (waiting < 5 or execs < 1):
            m = s.metrics()
            waiting = m['openacl_inference_queue_depth{model="small_drain"}']
            execs = m['openacl_inference_batch_size_count{model="small_drain"}']
            time.sleep(0.01)
        s.proc.send_signal(signal.SIGTERM)
        t.join(60)
        check_all_ok(xs, out["res"])
        assert s.proc.wait(30) == 0
        drained = [ln for ln in s.stderr().splitlines() if "draining" in ln]
        assert drained and int(drained[0].split("draining ")[1].split()[0]) >= 5, s.stderr()[-2000:]
        shutil.rmtree(s.dir, ignore_errors=True)
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def test_short_load():
    """The ThreadSanitizer check (label tsan): a short load with batching,
    without it, an unload and reload, then the SIGTERM exit."""
    s = Server()
    try:
        xs, raws = small_requests(150, "small", 5)
        xs2, raws2 = small_requests(150, "small_nb", 6)
        res = concurrent(s.port, raws + raws2, timeout=120)
        check_all_ok(xs + xs2, res)
        assert requests.post(s.url + "/v2/repository/models/small_nb/unload", timeout=60).status_code == 200
        assert requests.post(s.url + "/v2/repository/models/small_nb/load", timeout=60).status_code == 200
        res = concurrent(s.port, raws2[:50], timeout=120)
        check_all_ok(xs2[:50], res)
    finally:
        s.stop(timeout=60)
