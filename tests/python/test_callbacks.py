"""Host callbacks, report threads and the GIL: callbacks run on the
subscribed native thread, exceptions in them are reported and never crash,
and every waiting call lets other Python threads run."""
import threading

import pytest

import acl

import aclconst as C
from acltools import ok


class ReportThread:
    """start_thread + subscribe_report, as the samples write it."""

    def __init__(self, ctx, stream, timeout_ms=20):
        self.stop = threading.Event()
        self.stream = stream
        self.tid, ret = acl.util.start_thread(self._loop, [ctx, timeout_ms])
        ok(ret, "start_thread")
        ok(acl.rt.subscribe_report(self.tid, stream), "subscribe_report")

    def _loop(self, args):
        ctx, timeout_ms = args
        ok(acl.rt.set_context(ctx))
        while not self.stop.is_set():
            if acl.rt.process_report(timeout_ms) == C.ACL_ERROR_RT_THREAD_SUBSCRIBE:
                self.stop.wait(0.001)

    def close(self):
        ok(acl.rt.unsubscribe_report(self.tid, self.stream), "unsubscribe_report")
        self.stop.set()
        return acl.util.stop_thread(self.tid)


@pytest.fixture
def stream(ctx):
    s, ret = acl.rt.create_stream()
    ok(ret)
    yield s
    acl.rt.destroy_stream(s)


def test_callback_gets_exactly_user_data(ctx, stream):
    rt = ReportThread(ctx, stream)
    got = []
    payloads = [None, [1, 2], {"k": "v"}, (3,), "text"]
    for p in payloads:
        ok(acl.rt.launch_callback(lambda *a: got.append(a), p, C.ACL_CALLBACK_BLOCK, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert rt.close() == 0
    assert got == [(p,) for p in payloads]


def test_callback_exception_is_reported_and_stream_goes_on(ctx, stream, unraisable):
    rt = ReportThread(ctx, stream)
    after = []

    def bad(data):
        raise ValueError("callback failed on purpose: %s" % data)

    def leave(data):
        raise SystemExit(3)    # must not end the process from the report thread

    with unraisable:
        ok(acl.rt.launch_callback(bad, "first", C.ACL_CALLBACK_BLOCK, stream))
        ok(acl.rt.launch_callback(after.append, "second", C.ACL_CALLBACK_NO_BLOCK, stream))
        ok(acl.rt.launch_callback(leave, None, C.ACL_CALLBACK_BLOCK, stream))
        ok(acl.rt.launch_callback(after.append, "third", C.ACL_CALLBACK_BLOCK, stream))
        ok(acl.rt.synchronize_stream(stream))
    assert rt.close() == 0
    assert after == ["second", "third"]
    kinds = [u[0] for u in unraisable]
    assert kinds == [ValueError, SystemExit]
    assert "on purpose: first" in unraisable[0][1]
    assert "acl.rt.launch_callback" in str(unraisable[0][2])


def test_report_thread_exception_surfaces_in_stop_thread(ctx, unraisable):
    def worker(arg):
        raise KeyError("report loop broke: %s" % arg)

    with unraisable:
        tid, ret = acl.util.start_thread(worker, "x")
        assert ret == 0
        with pytest.raises(RuntimeError, match="KeyError.*report loop broke: x"):
            acl.util.stop_thread(tid)
    assert [u[0] for u in unraisable] == [KeyError]
    # joined already: an unknown id is an error code, not a crash
    assert acl.util.stop_thread(tid) != 0


def test_start_thread_without_arg_calls_func_without_args(ctx):
    seen = []
    tid, ret = acl.util.start_thread(lambda: seen.append(threading.get_ident()), None)
    assert ret == 0
    assert acl.util.stop_thread(tid) == 0
    assert seen == [tid]          # the id is the native thread's pthread id


def test_gil_released_while_synchronize_waits(ctx, stream):
    """A BLOCK callback waits for a plain Python thread; synchronize_stream
    on the main thread must let that thread (and the callback) run."""
    rt = ReportThread(ctx, stream)
    gate = threading.Event()
    order = []

    def cb(_):
        order.append("callback waits")
        assert gate.wait(20)
        order.append("callback done")

    ok(acl.rt.launch_callback(cb, None, C.ACL_CALLBACK_BLOCK, stream))

    def opener():
        while "callback waits" not in order:
            threading.Event().wait(0.001)
        order.append("opened")
        gate.set()

    t = threading.Thread(target=opener)
    t.start()
    ret = acl.rt.synchronize_stream_with_timeout(stream, 20000)
    t.join()
    assert ret == C.ACL_SUCCESS
    assert order == ["callback waits", "opened", "callback done"]
    assert rt.close() == 0


def test_gil_released_in_event_and_device_waits(ctx, stream):
    rt = ReportThread(ctx, stream)
    gate = threading.Event()
    ok(acl.rt.launch_callback(lambda _: gate.wait(20), None, C.ACL_CALLBACK_BLOCK, stream))
    ev, ret = acl.rt.create_event()
    ok(ret)
    ok(acl.rt.record_event(ev, stream))
    other, ret = acl.rt.create_stream()
    ok(ret)
    ok(acl.rt.stream_wait_event(other, ev))
    threading.Timer(0.05, gate.set).start()
    assert acl.rt.synchronize_event(ev) == 0
    assert gate.is_set()
    ok(acl.rt.synchronize_stream(other))
    gate.clear()
    ok(acl.rt.launch_callback(lambda _: gate.wait(20), None, C.ACL_CALLBACK_BLOCK, stream))
    threading.Timer(0.05, gate.set).start()
    assert acl.rt.synchronize_device() == 0
    assert gate.is_set()
    ok(acl.rt.destroy_event(ev))
    ok(acl.rt.destroy_stream(other))
    assert rt.close() == 0


def test_sync_timeout_when_callback_never_returns_in_time(ctx, stream):
    rt = ReportThread(ctx, stream)
    gate = threading.Event()
    ok(acl.rt.launch_callback(lambda _: gate.wait(20), None, C.ACL_CALLBACK_BLOCK, stream))
    assert acl.rt.synchronize_stream_with_timeout(stream, 50) == C.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    gate.set()
    ok(acl.rt.synchronize_stream(stream))
    assert rt.close() == 0


def test_concurrent_python_threads_execute(ctx, model_paths):
    """Several Python threads, each with its own stream, run executions while
    the others wait: all complete with correct results."""
    import numpy as np
    import models as M
    from acltools import Model

    m = Model(model_paths["matmul_add"])
    errors = []

    def worker(seed):
        try:
            ok(acl.rt.set_context(ctx))
            x = np.random.default_rng(seed).standard_normal((4, 8)).astype(np.float32)
            in_ptr, in_size = __import__("acltools").to_device(x)
            out_ptr, ret = acl.rt.malloc(80, 0)
            ok(ret)
            ids, ods = acl.mdl.create_dataset(), acl.mdl.create_dataset()
            ib, ob = acl.create_data_buffer(in_ptr, in_size), acl.create_data_buffer(out_ptr, 80)
            acl.mdl.add_dataset_buffer(ids, ib)
            acl.mdl.add_dataset_buffer(ods, ob)
            for _ in range(5):
                ok(acl.mdl.execute(m.id, ids, ods))
            y = __import__("acltools").from_device(out_ptr, (4, 5))
            np.testing.assert_allclose(y, M.matmul_add_ref(x), rtol=1e-4, atol=1e-5)
            for b in (ib, ob):
                acl.destroy_data_buffer(b)
            for d in (ids, ods):
                acl.mdl.destroy_dataset(d)
            acl.rt.free(in_ptr)
            acl.rt.free(out_ptr)
        except BaseException as e:  # collected and re-raised on the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    m.close()
    assert not errors, errors


def test_exception_info_callback_on_async_failure(ctx, model_paths, stream):
    """An execution still queued when its model is unloaded fails on the
    stream: the Python exception callback gets the info pointer (usable
    with the getters during the call) and synchronize reports the code."""
    from acltools import Model

    rt = ReportThread(ctx, stream)
    m = Model(model_paths["relu_scale"])
    m2_id, ret = acl.mdl.load_from_file(model_paths["relu_scale"])
    ok(ret)
    infos = []

    def on_exception(info):
        infos.append((acl.rt.get_error_code_from_exception_info(info),
                      acl.rt.get_device_id_from_exception_info(info), threading.get_ident()))

    ok(acl.rt.set_exception_info_callback(on_exception))
    gate = threading.Event()
    ok(acl.rt.launch_callback(lambda _: gate.wait(20), None, C.ACL_CALLBACK_BLOCK, stream))
    ok(acl.mdl.execute_async(m2_id, m.inputs[0], m.outputs[0], stream))
    ok(acl.mdl.unload(m2_id))
    gate.set()
    assert acl.rt.synchronize_stream(stream) == C.ACL_ERROR_INVALID_MODEL_ID
    assert "unloaded" in (acl.get_recent_err_msg() or "")
    ok(acl.rt.synchronize_stream(stream))      # reported once
    ok(acl.rt.set_exception_info_callback(None))
    assert len(infos) == 1
    code, dev, thread = infos[0]
    assert (code, dev) == (C.ACL_ERROR_INVALID_MODEL_ID, 0)
    assert thread not in (threading.get_ident(), rt.tid)   # raised on the stream's own worker
    m.close()
    assert rt.close() == 0
    with pytest.raises(TypeError):
        acl.rt.set_exception_info_callback(5)


def test_callback_and_thread_references_are_released(ctx, stream):
    import sys

    rt = ReportThread(ctx, stream)
    payload, fn = object(), (lambda d: None)
    before = (sys.getrefcount(payload), sys.getrefcount(fn))
    for _ in range(20):
        ok(acl.rt.launch_callback(fn, payload, C.ACL_CALLBACK_NO_BLOCK, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert (sys.getrefcount(payload), sys.getrefcount(fn)) == before
    # a launch that fails keeps no reference either
    other, ret = acl.rt.create_stream()
    ok(ret)
    assert acl.rt.launch_callback(fn, payload, C.ACL_CALLBACK_BLOCK, other) == C.ACL_ERROR_RT_STREAM_NO_CB_REG
    assert acl.rt.launch_callback(fn, payload, 7, stream) != C.ACL_SUCCESS
    assert (sys.getrefcount(payload), sys.getrefcount(fn)) == before
    ok(acl.rt.destroy_stream(other))
    assert rt.close() == 0
    arg = object()
    before = sys.getrefcount(arg)
    tid, ret = acl.util.start_thread(lambda a: None, arg)
    assert ret == 0 and acl.util.stop_thread(tid) == 0
    assert sys.getrefcount(arg) == before
