"""The deployment recipe under deploy/: yamllint on the manifests, then a
parse of each with the fields Kubernetes and KServe require and the links
between them (Service -> pods, HPA -> Deployment, InferenceService ->
ServingRuntime and its model formats), the container arguments accepted by
this openacl-server, and the image's entrypoint run for real against a
CANN-like tree whose set_env.sh puts the server on PATH."""
import glob
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
import requests
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy")
SERVER = os.environ["OPENACL_SERVER"]
REPO = os.environ["SERVER_REPO"]


def load(rel):
    with open(os.path.join(DEPLOY, rel)) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    assert len(docs) == 1, rel
    d = docs[0]
    for k in ("apiVersion", "kind", "metadata"):
        assert k in d, "%s: no %s" % (rel, k)
    assert d["metadata"].get("name"), rel
    return d


def test_yamllint():
    p = subprocess.run(["yamllint", "-c", os.path.join(DEPLOY, ".yamllint"), "-f", "parsable",
                        os.path.join(DEPLOY, "kserve"), os.path.join(DEPLOY, "kubernetes")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def server_accepts(args):
    """The server parses flags in order and stops at --help: exit 0 means
    every flag before it was valid."""
    args = [REPO if a in ("/models", "/mnt/models") else a for a in args]
    p = subprocess.run([SERVER] + args + ["--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, "openacl-server refuses %s: %s" % (args, p.stderr)


def probe_paths(container):
    return [container[p]["httpGet"]["path"] for p in ("readinessProbe", "livenessProbe", "startupProbe")
            if p in container]


def test_kubernetes_manifests():
    dep = load("kubernetes/deployment.yaml")
    svc = load("kubernetes/service.yaml")
    hpa = load("kubernetes/hpa.yaml")
    assert dep["apiVersion"] == "apps/v1" and dep["kind"] == "Deployment"
    sel = dep["spec"]["selector"]["matchLabels"]
    pod = dep["spec"]["template"]
    assert all(pod["metadata"]["labels"].get(k) == v for k, v in sel.items()), "selector does not match the pods"
    (c,) = pod["spec"]["containers"]
    assert c["image"] and "/" not in c["image"].split(":")[0], "the image names no registry"
    server_accepts(c["args"])
    port = int(c["args"][c["args"].index("--port") + 1])
    assert c["ports"][0]["containerPort"] == port
    assert set(probe_paths(c)) == {"/v2/health/ready", "/v2/health/live"}
    drain = int(c["args"][c["args"].index("--drain-timeout-ms") + 1])
    assert pod["spec"]["terminationGracePeriodSeconds"] * 1000 > drain, "grace period shorter than the drain"
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    assert mounts["models"] == c["args"][c["args"].index("--model-repository") + 1]
    assert {v["name"] for v in pod["spec"]["volumes"]} >= set(mounts)
    assert svc["kind"] == "Service" and svc["spec"]["selector"] == sel
    assert svc["spec"]["ports"][0]["targetPort"] in (port, c["ports"][0]["name"])
    assert hpa["apiVersion"] == "autoscaling/v2" and hpa["kind"] == "HorizontalPodAutoscaler"
    ref = hpa["spec"]["scaleTargetRef"]
    assert (ref["kind"], ref["name"], ref["apiVersion"]) == ("Deployment", dep["metadata"]["name"], "apps/v1")
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"] and hpa["spec"]["metrics"]


def test_kserve_manifests():
    rt = load("kserve/servingruntime.yaml")
    isvc = load("kserve/inferenceservice.yaml")
    assert rt["apiVersion"] == "serving.kserve.io/v1alpha1" and rt["kind"] == "ServingRuntime"
    assert "v2" in rt["spec"]["protocolVersions"]
    (c,) = rt["spec"]["containers"]
    assert c["name"] == "kserve-container"
    server_accepts(c["args"])
    assert c["args"][c["args"].index("--model-repository") + 1] == "/mnt/models"   # KServe's mount point
    port = int(c["args"][c["args"].index("--port") + 1])
    assert c["ports"][0]["containerPort"] == port
    assert set(probe_paths(c)) <= {"/v2/health/ready", "/v2/health/live"}
    assert isvc["apiVersion"] == "serving.kserve.io/v1beta1" and isvc["kind"] == "InferenceService"
    model = isvc["spec"]["predictor"]["model"]
    assert model["runtime"] == rt["metadata"]["name"]
    assert model["modelFormat"]["name"] in [f["name"] for f in rt["spec"]["supportedModelFormats"]]
    assert model["protocolVersion"] == "v2" and model["storageUri"].startswith("pvc://")


def test_dockerfile():
    with open(os.path.join(DEPLOY, "Dockerfile")) as f:
        lines = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    assert lines[0].startswith("FROM debian:12")
    copies = [ln.split()[1] for ln in lines if ln.startswith("COPY")]
    assert "deploy/docker-entrypoint.sh" in copies and os.access(os.path.join(ROOT, copies[1]), os.X_OK)
    cmd = yaml.safe_load([ln for ln in lines if ln.startswith("CMD")][0][3:])
    server_accepts(cmd)
    expose = int([ln for ln in lines if ln.startswith("EXPOSE")][0].split()[1])
    assert expose == int(cmd[cmd.index("--port") + 1])
    assert any(ln.startswith("USER") for ln in lines), "the image runs as root"
    subprocess.run(["bash", "-n", os.path.join(DEPLOY, "docker-entrypoint.sh")], check=True)


def test_entrypoint_runs_the_server():
    """The image's start step for real: a CANN-like tree whose set_env.sh
    puts openacl-server on PATH; the entrypoint sources it and execs the
    server, which then answers, takes SIGTERM itself and exits 0."""
    tree = tempfile.mkdtemp(prefix="oa-tree-")
    bindir = os.path.join(tree, "latest", "bin")
    os.makedirs(bindir)
    os.symlink(SERVER, os.path.join(bindir, "openacl-server"))
    env_sh = os.path.join(tree, "set_env.sh")
    with open(env_sh, "w") as f:
        f.write("export PATH=%s:$PATH\nexport ASCEND_TOOLKIT_HOME=%s\n" % (shlex.quote(bindir), shlex.quote(tree)))
    port_file = os.path.join(tree, "port")
    env = dict(os.environ, OPENACL_SET_ENV=env_sh, PATH="/usr/bin:/bin")
    p = subprocess.Popen([os.path.join(DEPLOY, "docker-entrypoint.sh"), "--model-repository", REPO, "--host",
                          "127.0.0.1", "--port", "0", "--port-file", port_file, "--access-log", "off",
                          "--model-control-mode", "explicit", "--load-model", "small"],
                         env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while not os.path.exists(port_file):
            assert p.poll() is None and time.time() < deadline, p.stderr.read() if p.poll() is not None else ""
            time.sleep(0.05)
        url = "http://127.0.0.1:%s" % open(port_file).read().strip()
        assert requests.get(url + "/v2/health/ready", timeout=10).status_code == 200
        assert requests.get(url + "/v2/models/small/ready", timeout=10).status_code == 200
        p.send_signal(signal.SIGTERM)   # to the server itself: the entrypoint exec'ed it
        assert p.wait(30) == 0
        shutil.rmtree(tree)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    bad = subprocess.run([os.path.join(DEPLOY, "docker-entrypoint.sh")], env=dict(env, OPENACL_SET_ENV="/nonexistent"),
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "set_env.sh not found" in bad.stderr


def test_package_runs_the_server(tmp_path):
    """The image's steps with the real package where `make deb` made one:
    its files unpacked (dpkg-deb -x, nothing installed on this machine),
    the entrypoint sources the tree's own set_env.sh and runs the packaged
    openacl-server, which answers and drains on SIGTERM."""
    debs = sorted(glob.glob(os.path.join(os.environ.get("OPENACL_DEB_DIR", "/nonexistent"), "openacl_*.deb")))
    if not debs:
        pytest.skip("no openacl_*.deb in the build folder (make deb)")
    subprocess.run(["dpkg-deb", "-x", debs[-1], str(tmp_path)], check=True)
    env_sh = glob.glob(str(tmp_path / "**" / "set_env.sh"), recursive=True)
    assert len(env_sh) == 1, env_sh
    port_file = str(tmp_path / "port")
    env = dict(os.environ, OPENACL_SET_ENV=env_sh[0], PATH="/usr/bin:/bin")
    env.pop("LD_LIBRARY_PATH", None)
    p = subprocess.Popen([os.path.join(DEPLOY, "docker-entrypoint.sh"), "--model-repository", REPO, "--host",
                          "127.0.0.1", "--port", "0", "--port-file", port_file, "--access-log", "off",
                          "--model-control-mode", "explicit", "--load-model", "small", "--verbose"],
                         env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while not os.path.exists(port_file):
            assert p.poll() is None and time.time() < deadline, p.stderr.read() if p.poll() is not None else ""
            time.sleep(0.05)
        url = "http://127.0.0.1:%s" % open(port_file).read().strip()
        r = requests.post(url + "/v2/models/small/infer", timeout=10, json={"inputs": [
            {"name": "X", "datatype": "FP32", "shape": [1, 16], "data": [0.5] * 16}]})
        assert r.status_code == 200, r.text
        p.send_signal(signal.SIGTERM)
        assert p.wait(30) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    # it was the packaged binary that ran, with the packaged library
    exe = glob.glob(str(tmp_path / "**" / "bin" / "openacl-server"), recursive=True)
    assert exe and subprocess.run(["bash", "-c", ". %s && command -v openacl-server" % shlex.quote(env_sh[0])],
                                  capture_output=True, text=True, env=env).stdout.strip() == exe[0]


if __name__ == "__main__":
    pytest.main([__file__])
