#!/usr/bin/python3
"""openacl-quant: calibration-based int8 quantisation of an fp32 ONNX model
into a standard QDQ model (see oaquant/cli.py and docs/quantization.md).

This launcher finds its library (the oaquant package) and openacl's Python
package in the source tree, the build tree or an install, then runs it.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _setup_path():
    # oaquant: beside this file (source and build tree) or in the install's
    # python/site-packages; openacl + acl: the build's python/ folder or the
    # install's python/site-packages, unless already importable.
    site = os.path.join(HERE, "..", "python", "site-packages")
    for d in (HERE, site):
        if os.path.isdir(os.path.join(d, "oaquant")):
            sys.path.insert(0, d)
            break
    try:
        import openacl  # noqa: F401
        return
    except ImportError:
        pass
    for d in (os.path.join(HERE, "python"), os.path.join(HERE, "..", "..", "build", "python"), site):
        if os.path.isdir(os.path.join(d, "openacl")):
            sys.path.insert(1, d)
            return


_setup_path()
# openacl-quant reports failures itself (AclError messages): the runtime's own
# error log lines would only repeat them, unless the user asks for a level.
os.environ.setdefault("ASCEND_GLOBAL_LOG_LEVEL", "4")
from oaquant.cli import entry  # noqa: E402

if __name__ == "__main__":
    sys.exit(entry())
