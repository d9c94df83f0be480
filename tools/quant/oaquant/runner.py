"""Running a model on numpy inputs: openacl itself through its Python
package (`openacl.Session`, over the pyACL-compatible `acl` module), or
ONNX Runtime's C API as an optional fallback (the loader of openacl-compare,
no Node). Intermediate tensors are read by making them extra graph outputs
of a temporary copy of the model."""
import importlib.machinery
import importlib.util
import os
import tempfile

import numpy as np
import onnx
from onnx import helper

from . import QuantError
from .data import ONNX_NP

HERE = os.path.dirname(os.path.abspath(__file__))


def with_outputs(model, names, types):
    """A copy of model whose graph also outputs `names` (float unless the
    type is known)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in names:
        if n not in have:
            et = types.get(n) or onnx.TensorProto.FLOAT
            m.graph.output.append(helper.make_tensor_value_info(n, et, None))
    return m


class OpenaclRunner:
    """One openacl session on a model (ModelProto); run() returns
    {output name: array} for the graph's outputs."""

    name = "openacl"

    def __init__(self, model):
        try:
            import openacl
        except ImportError as e:
            raise QuantError("the openacl Python package cannot be loaded (%s): put the build's python/ "
                             "folder (or the install's python/site-packages) on PYTHONPATH, or use "
                             "--runner ort" % e) from None
        self.names = [o.name for o in model.graph.output]
        try:
            self.sess = openacl.Session(model.SerializeToString())
        except openacl.AclError as e:
            raise QuantError("openacl cannot load the model: %s" % e) from None
        self.in_names = [i.name for i in self.sess.inputs]
        self.AclError = openacl.AclError

    def run(self, arrays):
        try:
            outs = self.sess.run(list(arrays))
        except (self.AclError, ValueError, RuntimeError) as e:
            raise QuantError("openacl failed to run the model: %s" % e) from None
        return dict(zip(self.names, outs))

    def close(self):
        self.sess.close()


def load_compare_module():
    """openacl-compare's module (its ONNX Runtime C API loader), from the
    source tree, the build tree or the install's bin/."""
    cands = [os.path.join(HERE, "..", "..", "compare", "openacl_compare.py"),
             os.path.join(HERE, "..", "openacl-compare"),
             os.path.join(HERE, "..", "..", "..", "bin", "openacl-compare")]
    for c in cands:
        if os.path.isfile(c):
            loader = importlib.machinery.SourceFileLoader("openacl_compare", c)
            spec = importlib.util.spec_from_loader("openacl_compare", loader)
            mod = importlib.util.module_from_spec(spec)
            loader.exec_module(mod)
            return mod
    raise QuantError("--runner ort needs openacl-compare (its ONNX Runtime loader) next to openacl-quant")


class OrtRunner:
    """ONNX Runtime through its C API (set OPENACL_ORT_LIB to the library)."""

    name = "onnxruntime"

    def __init__(self, model):
        cmp = load_compare_module()
        lib = cmp.find_ort_library(None, os.path.join(HERE, ".."))
        if lib is None:
            lib = cmp.find_ort_library(None, os.path.join(HERE, "..", ".."))
        if lib is None:
            raise QuantError("ONNX Runtime's library was not found: set OPENACL_ORT_LIB")
        self.ort = cmp.Ort(lib)
        self.err = cmp.OrtError
        self.names = [o.name for o in model.graph.output]
        inits = {t.name for t in model.graph.initializer}
        self.in_names = [i.name for i in model.graph.input if i.name not in inits]
        fd, self.path = tempfile.mkstemp(suffix=".onnx", prefix="oaquant_")
        with os.fdopen(fd, "wb") as f:
            f.write(model.SerializeToString())

    def run(self, arrays):
        try:
            res = self.ort.run(self.path, list(zip(self.in_names, arrays)), self.names)
        except self.err as e:
            raise QuantError("ONNX Runtime failed to run the model: %s" % e) from None
        return res

    def close(self):
        try:
            os.unlink(self.path)
        except OSError:
            pass


RUNNERS = {"openacl": OpenaclRunner, "ort": OrtRunner}


def make_runner(kind, model):
    return RUNNERS[kind](model)


def output_dtype(model, name):
    for o in model.graph.output:
        if o.name == name:
            return np.dtype(ONNX_NP.get(o.type.tensor_type.elem_type, np.float32))
    return np.dtype(np.float32)
