#!/usr/bin/python3
"""Self-test of the real-model harness: with ONNX Runtime standing in for
openacl (fake_mdl_run.py), check_model.py must pass exact and slightly-off
outputs and fail outputs beyond tolerance or with a different top-1.
Exit 77 (skip) when the model set is absent."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
cases = [({}, 0), ({"FAKE_PERTURB": "5e-4"}, 0), ({"FAKE_PERTURB": "3e-3"}, 1),
         ({"FAKE_SWAP_TOP1": "1"}, 1)]
for model in ["mlp"]:
    for extra, want in cases:
        env = dict(os.environ, **extra)
        p = subprocess.run([sys.executable, os.path.join(here, "check_model.py"), "--mdl-run",
                            os.path.join(here, "fake_mdl_run.py"), "--name", model],
                           env=env, capture_output=True, text=True)
        if p.returncode == 77:
            print(p.stdout.strip())
            sys.exit(77)
        if p.returncode != want:
            sys.exit(f"FAIL {model} {extra}: rc {p.returncode}, want {want}\n{p.stdout}{p.stderr}")
        print(f"ok {model} {extra or 'exact'} -> rc {p.returncode}")
