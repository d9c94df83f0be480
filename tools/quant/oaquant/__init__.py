"""oaquant: the library behind openacl-quant (calibration-based int8
quantisation of ONNX models into the QDQ format, docs/quantization.md).

Modules: data (calibration inputs), calib (range calibrators), qdq (the QDQ
and dynamic rewrites), runner (runs models through openacl, or ONNX Runtime
as a fallback), report (sensitivity and accuracy), tune (the accuracy-driven
float fallback of --target-cosine), cli (the command line).
"""


class QuantError(Exception):
    """Bad input or a failed step: the message is meant for the user; the
    command line prints it and exits nonzero, never with a traceback."""
