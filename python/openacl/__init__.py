"""openacl extras for Python: conveniences beyond pyACL, built only on the
pyACL-compatible `acl` module.

    import numpy as np
    import openacl

    outs = openacl.run("model.onnx", [np.ones((1, 3, 8, 8), np.float32)])

    with openacl.Session("model.onnx", device=0) as s:
        print(s.inputs, s.outputs)
        y, = s.run([x])            # or s.run({"input_name": x})

Nothing here is part of pyACL: code that must also run on Ascend hardware
should keep to the `acl` module (see docs/python.md).
"""
from .session import AclError, IOInfo, Session, numpy_dtype, run

__all__ = ["AclError", "IOInfo", "Session", "numpy_dtype", "run"]
