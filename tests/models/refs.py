#!/usr/bin/python3
"""Inputs and ONNX Runtime reference outputs of the real-model test set,
cached in the models folder:  data/<name>/input_<i>.npy  (scripts/gen_inputs.py)
and  ref/<name>/output_<i>.npy + outputs.json  (tools/ortref/ortref.js).

Both are redone only when the model's recipe stamp, the input recipe or the
ONNX Runtime version changed. Used by scripts/models.sh (all models) and by
check_model.py (one model, on demand)."""
import argparse
import hashlib
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(REPO, "scripts", "gen_inputs.py")
ORTREF = os.path.join(REPO, "tools", "ortref", "ortref.js")
EXPORT = os.path.join(REPO, "tests", "models", "export_models.py")
EXPORT_TV = os.path.join(REPO, "tests", "models", "export_torchvision.py")
SEED = 0


def ort_version():
    p = os.path.join(os.environ.get("ORTREF_NODE_MODULES",
                                    os.path.join(REPO, "third_party", "npm", "node_modules")),
                     "onnxruntime-node", "package.json")
    try:
        return json.load(open(p))["version"]
    except OSError:
        return None


def load_manifest(models_dir):
    return json.load(open(os.path.join(models_dir, "manifest.json")))["models"]


def _stamp(models_dir, m, what):
    s = os.path.join(models_dir, m["file"] + ".stamp")
    model_stamp = open(s).read() if os.path.exists(s) else str(os.path.getsize(os.path.join(models_dir, m["file"])))
    key = [model_stamp, m["inputs"], SEED] + ([ort_version()] if what == "ref" else [])
    return hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()


def _fresh(d, stamp):
    p = os.path.join(d, "stamp")
    return os.path.exists(p) and open(p).read() == stamp


def input_files(models_dir, m):
    d = os.path.join(models_dir, "data", m["name"])
    return [os.path.join(d, f"input_{i}.npy") for i in range(len(m["inputs"]))]


def ensure_inputs(models_dir, m):
    d = os.path.join(models_dir, "data", m["name"])
    st = _stamp(models_dir, m, "data")
    if not _fresh(d, st):
        os.makedirs(d, exist_ok=True)
        subprocess.run([sys.executable, GEN, "--manifest", os.path.join(models_dir, "manifest.json"),
                        "--model", m["name"], "--outdir", d, "--seed", str(SEED)], check=True)
        open(os.path.join(d, "stamp"), "w").write(st)
    return input_files(models_dir, m)


def ensure_ref(models_dir, m, threads=1):
    """Returns the reference folder, running ORT when needed; None when ORT
    is not available (node or onnxruntime-node missing)."""
    ins = ensure_inputs(models_dir, m)
    d = os.path.join(models_dir, "ref", m["name"])
    if ort_version() is None:
        return None
    st = _stamp(models_dir, m, "ref")
    if not _fresh(d, st):
        os.makedirs(d, exist_ok=True)
        cmd = ["node", ORTREF, "--model", os.path.join(models_dir, m["file"]),
               "--inputs", ",".join(ins), "--outdir", d, "--threads", str(threads)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"ortref failed for {m['name']}: {p.stderr.strip()}")
        open(os.path.join(d, "stamp"), "w").write(st)
        # Fixed-shape variants get concrete output dims too (the originals'
        # outputs are symbolic); the recipe stamp is unchanged by this.
        if not m["dynamic"] and any(isinstance(x, str) for o in m["outputs"] for x in o["shape"]):
            subprocess.run([sys.executable, EXPORT, "--out", models_dir,
                            "--pin-outputs", f"{m['name']}={d}"], check=True)
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", required=True)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    pinned = False
    for m in load_manifest(a.models):
        if only and m["name"] not in only:
            continue
        d = ensure_ref(a.models, m)
        if d is None:
            sys.exit("refs: onnxruntime-node not installed (run scripts/setup.sh)")
        pinned |= not m["dynamic"] and any(isinstance(x, str) for o in m["outputs"] for x in o["shape"])
    if pinned:  # refresh the manifest's output shapes, with the script that wrote it
        man = json.load(open(os.path.join(a.models, "manifest.json")))
        script = EXPORT_TV if man.get("set") == "torchvision" else EXPORT
        subprocess.run([sys.executable, script, "--out", a.models, "--manifest-only"], check=True)


if __name__ == "__main__":
    main()
