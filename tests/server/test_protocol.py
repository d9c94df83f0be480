"""openacl-server protocol tests: health, metadata, inference with JSON and
binary tensors (checked against numpy and, where the acl module is built,
the in-process result), requested outputs, datatypes, the repository
extension, errors, metrics and the access log. Clients: curl and requests."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import requests

sys.path.insert(0, os.path.dirname(__file__))
from srvlib import SRC, Server, binary_body, infer_json, small_ref, split_binary  # noqa: E402

try:
    import openacl  # the in-process reference (not built in sanitizer builds)
except ImportError:
    openacl = None


@pytest.fixture(scope="module")
def srv():
    s = Server("--max-body-mb", "1")
    yield s
    s.stop()


def curl(*args):
    p = subprocess.run(["curl", "-s", "-S", "--max-time", "20", "-w", "\n%{http_code}"] + list(args),
                       capture_output=True, text=True, check=True)
    body, code = p.stdout.rsplit("\n", 1)
    return int(code), body


def test_health_and_server_metadata(srv):
    assert curl(srv.url + "/v2/health/live")[0] == 200
    assert curl(srv.url + "/v2/health/ready")[0] == 200
    code, body = curl(srv.url + "/v2")
    meta = json.loads(body)
    assert code == 200 and meta["name"] == "openacl-server"
    assert "binary_tensor_data" in meta["extensions"] and "model_repository" in meta["extensions"]


def test_model_metadata(srv):
    code, body = curl(srv.url + "/v2/models/small")
    m = json.loads(body)
    assert code == 200
    assert m["name"] == "small" and m["versions"] == ["1"] and m["platform"] == "openacl_om"
    assert m["inputs"] == [{"name": "X", "datatype": "FP32", "shape": [-1, 16]}]
    assert m["outputs"] == [{"name": "Y", "datatype": "FP32", "shape": [-1, 10]}]
    assert curl(srv.url + "/v2/models/small/versions/1")[0] == 200
    assert curl(srv.url + "/v2/models/small/ready")[0] == 200
    assert curl(srv.url + "/v2/models/small/versions/1/ready")[0] == 200
    code, body = curl(srv.url + "/v2/models/small/versions/7")
    assert code == 404 and "error" in json.loads(body)
    code, body = curl(srv.url + "/v2/models/nope")
    assert code == 404 and json.loads(body)["error"]
    cfg = requests.get(srv.url + "/v2/models/small/config").json()
    assert cfg["batch_gears"] == [1, 2, 4, 8] and cfg["max_batch_size"] == 8
    two = requests.get(srv.url + "/v2/models/two").json()
    assert two["platform"] == "openacl_onnx" and two["inputs"][0]["shape"] == [2, 3]
    alias = requests.get(srv.url + "/v2/models/small_alias").json()
    assert alias["inputs"][0]["name"] == "features" and alias["outputs"][0]["name"] == "scores"
    assert requests.get(srv.url + "/v2/models/small_alias/config").json()["max_batch_size"] == 4


@pytest.mark.parametrize("rows", [1, 3, 8])
def test_infer_json_matches_reference(srv, rows):
    x = np.random.default_rng(rows).standard_normal((rows, 16)).astype(np.float32)
    r = requests.post(srv.url + "/v2/models/small/infer", json=dict(infer_json(x), id="req-%d" % rows), timeout=20)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["model_name"] == "small" and out["model_version"] == "1" and out["id"] == "req-%d" % rows
    (o,) = out["outputs"]
    assert o["name"] == "Y" and o["datatype"] == "FP32" and o["shape"] == [rows, 10]
    y = np.array(o["data"], np.float32).reshape(rows, 10)
    np.testing.assert_allclose(y, small_ref(x), rtol=1e-4, atol=1e-5)
    if openacl is not None:
        ref = openacl.run(os.path.join(SRC, "small.onnx"), [x])[0]
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_infer_nested_json_and_curl(srv):
    x = np.random.default_rng(7).standard_normal((2, 16)).astype(np.float32)
    body = json.dumps({"inputs": [{"name": "X", "datatype": "FP32", "shape": [2, 16], "data": x.tolist()}]})
    code, text = curl("-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body,
                      srv.url + "/v2/models/small/versions/1/infer")
    assert code == 200, text
    y = np.array(json.loads(text)["outputs"][0]["data"], np.float32).reshape(2, 10)
    np.testing.assert_allclose(y, small_ref(x), rtol=1e-4, atol=1e-5)


def test_infer_binary_in_and_out(srv, tmp_path):
    x = np.random.default_rng(11).standard_normal((5, 16)).astype(np.float32)
    body, hl = binary_body([("X", "FP32", x)], binary_output=True)
    r = requests.post(srv.url + "/v2/models/small/infer", data=body,
                      headers={"Inference-Header-Content-Length": str(hl)}, timeout=20)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == "application/octet-stream"
    hdr, raw = split_binary(r)
    assert hdr["outputs"][0]["parameters"]["binary_data_size"] == 5 * 10 * 4
    y = np.frombuffer(raw["Y"], np.float32).reshape(5, 10)
    np.testing.assert_allclose(y, small_ref(x), rtol=1e-4, atol=1e-5)
    # the same with curl, reading the body from a file
    f = tmp_path / "body.bin"
    f.write_bytes(body)
    out = tmp_path / "out.bin"
    p = subprocess.run(["curl", "-s", "--max-time", "20", "-o", str(out), "-w", "%{http_code}", "-X", "POST",
                        "-H", "Inference-Header-Content-Length: %d" % hl, "--data-binary", "@" + str(f),
                        srv.url + "/v2/models/small/infer"], capture_output=True, text=True, check=True)
    assert p.stdout == "200"
    data = out.read_bytes()
    assert np.array_equal(np.frombuffer(data[-200:], np.float32).reshape(5, 10), y)


def test_requested_outputs(srv):
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    y = np.full((2, 3), 1.5, np.float32)
    req = {"inputs": [{"name": "X", "datatype": "FP32", "shape": [2, 3], "data": x.flatten().tolist()},
                      {"name": "Y", "datatype": "FP32", "shape": [2, 3], "data": y.flatten().tolist()}],
           "outputs": [{"name": "W"}]}
    out = requests.post(srv.url + "/v2/models/two/infer", json=req, timeout=20).json()
    assert [o["name"] for o in out["outputs"]] == ["W"]
    np.testing.assert_allclose(out["outputs"][0]["data"], (x * y).flatten())
    req["outputs"] = [{"name": "W", "parameters": {"binary_data": True}}, {"name": "Z"}]
    r = requests.post(srv.url + "/v2/models/two/infer", json=req, timeout=20)
    hdr, raw = split_binary(r)
    assert [o["name"] for o in hdr["outputs"]] == ["W", "Z"]
    assert np.array_equal(np.frombuffer(raw["W"], np.float32), (x * y).flatten())
    np.testing.assert_allclose(hdr["outputs"][1]["data"], np.maximum(x + y, 0).flatten())
    # aliases from config.json
    xs = np.ones((2, 16), np.float32)
    out = requests.post(srv.url + "/v2/models/small_alias/infer", json=infer_json(xs, "features"), timeout=20).json()
    assert out["outputs"][0]["name"] == "scores"
    np.testing.assert_allclose(np.array(out["outputs"][0]["data"]).reshape(2, 10), small_ref(xs), rtol=1e-4,
                               atol=1e-5)


TYPES = [("i8", "INT8", np.int8), ("u8", "UINT8", np.uint8), ("i16", "INT16", np.int16),
         ("i32", "INT32", np.int32), ("i64", "INT64", np.int64), ("f16", "FP16", np.float16),
         ("f32", "FP32", np.float32), ("f64", "FP64", np.float64), ("b", "BOOL", np.bool_)]


def types_inputs():
    vals = {}
    for n, _, t in TYPES:
        if t is np.bool_:
            vals[n] = np.array([[True, False, True], [False, False, True]])
        else:
            vals[n] = (np.arange(6).reshape(2, 3) - 2).astype(t) * (3 if t != np.uint8 else 1) + \
                (2 if t == np.uint8 else 0)
    return vals


def types_expect(vals):
    return {n: (~a if a.dtype == np.bool_ else a + a) for n, a in vals.items()}


def test_datatypes_json(srv):
    vals = types_inputs()
    req = {"inputs": [{"name": "in_" + n, "datatype": dt, "shape": [2, 3], "data": vals[n].flatten().tolist()}
                      for n, dt, _ in TYPES]}
    r = requests.post(srv.url + "/v2/models/types/infer", json=req, timeout=20)
    assert r.status_code == 200, r.text
    want = types_expect(vals)
    for o in r.json()["outputs"]:
        n = o["name"][4:]
        dt = dict((a, b) for a, b, _ in TYPES)[n]
        assert o["datatype"] == dt
        assert np.array_equal(np.array(o["data"], dtype=want[n].dtype).reshape(2, 3), want[n]), n


def test_datatypes_binary(srv):
    vals = types_inputs()
    body, hl = binary_body([("in_" + n, dt, vals[n]) for n, dt, _ in TYPES], binary_output=True)
    r = requests.post(srv.url + "/v2/models/types/infer", data=body,
                      headers={"Inference-Header-Content-Length": str(hl)}, timeout=20)
    assert r.status_code == 200, r.text
    hdr, raw = split_binary(r)
    want = types_expect(vals)
    for n, _, t in TYPES:
        assert np.array_equal(np.frombuffer(raw["out_" + n], t).reshape(2, 3), want[n]), n


BAD = [
    (b"{not json", "malformed JSON"),
    (b"[1,2]", "JSON object"),
    (b"", "empty"),
    (b'{"inputs": 3}', "'inputs' must be an array"),
    (b'{"inputs": []}', "input 'X' is missing"),
    (b'{"inputs": [{"name": "Q", "datatype": "FP32", "shape": [1, 16], "data": []}]}', "unexpected input 'Q'"),
    (b'{"inputs": [{"name": "X", "datatype": "INT32", "shape": [1, 16], "data": []}]}', "does not match the model"),
    (b'{"inputs": [{"name": "X", "datatype": "FP99", "shape": [1, 16], "data": []}]}', "v2 datatype"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 15], "data": []}]}', "does not match the model"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [9, 16], "data": []}]}', "max_batch_size 8"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 16, 1], "data": []}]}', "does not match"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 16], "data": [1, 2]}]}', "holds 2 elements"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 16], "data": ["a"]}]}', "not a number"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [-1, 16], "data": []}]}', "non-negative"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 16]}]}', "neither 'data'"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 16], "parameters": {"binary_data_size": 60}}]}',
     "binary_data_size 60"),
    (b'{"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 16], "parameters": {"binary_data_size": 64}}]}',
     None),
    (json.dumps(dict(infer_json(np.zeros((1, 16), np.float32)), outputs=[{"name": "nope"}])).encode(),
     "unknown output 'nope'"),
    (json.dumps(dict(infer_json(np.zeros((1, 16), np.float32)), extra=1)).encode() + b" junk", "trailing bytes"),
]


@pytest.mark.parametrize("body,msg", BAD)
def test_bad_requests(srv, body, msg):
    if msg is None:   # binary size right but no bytes sent
        r = requests.post(srv.url + "/v2/models/small/infer", data=body,
                          headers={"Inference-Header-Content-Length": str(len(body))}, timeout=20)
        assert r.status_code == 400 and "binary bytes" in r.json()["error"]
        return
    r = requests.post(srv.url + "/v2/models/small/infer", data=body, timeout=20)
    assert r.status_code == 400, r.text
    assert r.headers["Content-Type"] == "application/json"
    assert msg in r.json()["error"], r.json()["error"]


def test_bad_integers_and_header_length(srv):
    vals = types_inputs()
    req = {"inputs": [{"name": "in_" + n, "datatype": dt, "shape": [2, 3], "data": vals[n].flatten().tolist()}
                      for n, dt, _ in TYPES]}
    req["inputs"][0]["data"][0] = 300   # INT8
    r = requests.post(srv.url + "/v2/models/types/infer", json=req, timeout=20)
    assert r.status_code == 400 and "in range for INT8" in r.json()["error"]
    req["inputs"][0]["data"][0] = 1.5
    assert requests.post(srv.url + "/v2/models/types/infer", json=req, timeout=20).status_code == 400
    body = json.dumps(infer_json(np.zeros((1, 16), np.float32))).encode()
    for hl in ("abc", str(len(body) + 1), "-3"):
        r = requests.post(srv.url + "/v2/models/small/infer", data=body,
                          headers={"Inference-Header-Content-Length": hl}, timeout=20)
        assert r.status_code == 400, hl
    body, hl = binary_body([("X", "FP32", np.zeros((1, 16), np.float32))])
    r = requests.post(srv.url + "/v2/models/small/infer", data=body + b"xx",
                      headers={"Inference-Header-Content-Length": str(hl)}, timeout=20)
    assert r.status_code == 400 and "not claimed" in r.json()["error"]


def test_paths_and_methods(srv):
    assert requests.get(srv.url + "/v2/models/small/infer", timeout=10).status_code == 405
    assert requests.post(srv.url + "/v2/health/live", timeout=10).status_code == 405
    assert requests.get(srv.url + "/v3", timeout=10).status_code == 404
    assert requests.get(srv.url + "/v2/models/small/bogus", timeout=10).status_code == 404
    r = requests.post(srv.url + "/v2/models/nope/infer", json={}, timeout=10)
    assert r.status_code == 404 and r.json()["error"]
    assert requests.get(srv.url + "/v2/" + "a/" * 20, timeout=10).status_code == 404


def test_chunked_body(srv):
    x = np.random.default_rng(3).standard_normal((4, 16)).astype(np.float32)
    body = json.dumps(infer_json(x)).encode()
    chunks = iter([body[:100], body[100:1000], body[1000:]])   # no Content-Length: chunked encoding
    r = requests.post(srv.url + "/v2/models/small/infer", data=chunks, timeout=20)
    assert r.status_code == 200, r.text
    y = np.array(r.json()["outputs"][0]["data"], np.float32).reshape(4, 10)
    np.testing.assert_allclose(y, small_ref(x), rtol=1e-4, atol=1e-5)
    big = iter([b"x" * (512 << 10)] * 4)   # 2 MiB chunked, over the 1 MiB limit: the connection is closed
    with pytest.raises(requests.ConnectionError):
        requests.post(srv.url + "/v2/models/small/infer", data=big, timeout=20)
    assert requests.get(srv.url + "/v2/health/live", timeout=10).status_code == 200


def test_value_flood_is_refused_before_parsing(srv):
    # 900 KB of zeros: under the body limit, far over what the model takes
    body = b'{"inputs":[{"name":"X","datatype":"FP32","shape":[1,16],"data":[' + b"0," * 450000 + b'0]}]}'
    r = requests.post(srv.url + "/v2/models/small/infer", data=body, timeout=20)
    assert r.status_code == 400 and "more values" in r.json()["error"], r.text


def test_oversized_body_is_refused(srv):
    big = b"x" * (2 << 20)   # the fixture server takes 1 MiB at most
    r = requests.post(srv.url + "/v2/models/small/infer", data=big, timeout=20)
    assert r.status_code == 413 and "limit" in r.json()["error"]
    assert requests.get(srv.url + "/v2/health/live", timeout=10).status_code == 200


def test_repository_extension(srv):
    idx = requests.post(srv.url + "/v2/repository/index", timeout=10).json()
    states = {m["name"]: m for m in idx}
    assert states["small"]["state"] == "READY" and states["small"]["version"] == "1"
    assert states["broken"]["state"] == "UNAVAILABLE" and "aclmdlLoadFromFile" in states["broken"]["reason"]
    assert "max_batch_sise" in states["badconfig"]["reason"]
    ready = requests.post(srv.url + "/v2/repository/index", json={"ready": True}, timeout=10).json()
    assert "broken" not in [m["name"] for m in ready] and "small" in [m["name"] for m in ready]
    assert requests.post(srv.url + "/v2/repository/index", data=b"[", timeout=10).status_code == 400

    x = np.ones((1, 16), np.float32)
    assert requests.post(srv.url + "/v2/repository/models/small_nb/unload", timeout=30).status_code == 200
    assert requests.get(srv.url + "/v2/models/small_nb/ready", timeout=10).status_code == 400
    r = requests.post(srv.url + "/v2/models/small_nb/infer", json=infer_json(x), timeout=10)
    assert r.status_code == 404 and "not loaded" in r.json()["error"]
    assert requests.post(srv.url + "/v2/repository/models/small_nb/load", timeout=60).status_code == 200
    r = requests.post(srv.url + "/v2/models/small_nb/infer", json=infer_json(x), timeout=10)
    assert r.status_code == 200
    r = requests.post(srv.url + "/v2/repository/models/broken/load", timeout=60)
    assert r.status_code == 400 and "unrecognised model format" in r.json()["error"]
    assert requests.post(srv.url + "/v2/repository/models/missing/load", timeout=10).status_code == 404
    assert requests.post(srv.url + "/v2/repository/models/..%2Fetc/load", timeout=10).status_code in (400, 404)


def test_metrics_and_access_log(srv):
    x = np.ones((1, 16), np.float32)
    for _ in range(3):
        assert requests.post(srv.url + "/v2/models/small/infer", json=infer_json(x), timeout=10).status_code == 200
    m = srv.metrics()
    assert m['openacl_inference_requests_total{model="small",outcome="success"}'] >= 3
    assert m['openacl_inference_request_duration_seconds_count{model="small"}'] >= 3
    assert m['openacl_inference_batch_size_count{model="small"}'] >= 1
    assert m['openacl_model_ready{model="broken"}'] == 0 and m['openacl_model_ready{model="small"}'] == 1
    assert 'openacl_inference_queue_depth{model="small"}' in m
    assert m['openacl_http_responses_total{code="400"}'] >= 1
    assert m['openacl_inference_requests_total{model="small",outcome="bad_request"}'] >= len(BAD) - 1
    assert m['openacl_inference_requests_total{model="small_nb",outcome="unavailable"}'] >= 1   # while unloaded
    log = srv.access_log()
    infer = [e for e in log if e["path"] == "/v2/models/small/infer" and e["status"] == 200]
    assert infer and infer[-1]["model"] == "small" and infer[-1]["method"] == "POST"
    assert all(k in infer[-1] for k in ("ts", "remote", "bytes_in", "bytes_out", "duration_us"))
    assert any(e["status"] == 400 and e.get("error") for e in log)
