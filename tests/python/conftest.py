"""Shared fixtures: one aclInit per test process, device 0 bound on the main
thread, the ONNX models of models.py in a temporary folder."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import acl  # noqa: E402

import aclconst as C  # noqa: E402
import models  # noqa: E402


@pytest.fixture(scope="session")
def model_paths(tmp_path_factory):
    return models.build_all(str(tmp_path_factory.mktemp("models")))


@pytest.fixture(scope="session")
def acl_ctx():
    """acl.init + set_device(0); yields the default context of device 0."""
    assert acl.init() == C.ACL_SUCCESS
    assert acl.rt.set_device(0) == C.ACL_SUCCESS
    ctx, ret = acl.rt.get_context()
    assert ret == C.ACL_SUCCESS and ctx != 0
    yield ctx
    assert acl.rt.reset_device(0) == C.ACL_SUCCESS
    assert acl.finalize() == C.ACL_SUCCESS


@pytest.fixture
def ctx(acl_ctx):
    """Per test: device 0's default context is current before and after."""
    assert acl.rt.set_context(acl_ctx) == C.ACL_SUCCESS
    yield acl_ctx
    acl.rt.set_context(acl_ctx)
    acl.get_recent_err_msg()   # drop messages of expected failures


class _Unraisable(list):
    """Collects what the module reports through sys.unraisablehook
    (exceptions escaping callbacks and report threads) while active. Used
    as a context manager inside the test body: pytest installs its own hook
    for the call phase, after fixtures have run."""

    def __enter__(self):
        self._saved = sys.unraisablehook
        sys.unraisablehook = lambda u: self.append((u.exc_type, str(u.exc_value), u.object))
        return self

    def __exit__(self, *exc):
        sys.unraisablehook = self._saved


@pytest.fixture
def unraisable():
    return _Unraisable()
