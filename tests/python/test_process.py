"""Whole-process behaviour, each case in its own interpreter: init/finalize
cycles, and exiting with a report thread still looping and nothing
released (must neither hang nor crash)."""
import os
import subprocess
import sys
import textwrap


def run_py(code, timeout=60):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_init_finalize_cycles():
    r = run_py("""
        import acl
        for i in range(3):
            assert acl.init() == 0
            assert acl.rt.set_device(1) == 0
            p, ret = acl.rt.malloc(64, 0)
            assert ret == 0 and p
            assert acl.finalize() == 0
        assert acl.finalize() == 100037          # ACL_ERROR_REPEAT_FINALIZE
        assert acl.rt.malloc(64, 0) == (0, 100001)   # ACL_ERROR_UNINITIALIZE
        print("cycles ok")
    """)
    assert r.returncode == 0, r.stderr
    assert "cycles ok" in r.stdout


def test_init_with_empty_path_means_no_configuration():
    # CANN's Python samples call acl.init("") (and some acl.init(None)).
    r = run_py("""
        import acl
        assert acl.init("") == 0, acl.get_recent_err_msg()
        assert acl.rt.get_device_count() == (2, 0)
        assert acl.finalize() == 0
        assert acl.init(None) == 0
        assert acl.finalize() == 0
        print("empty ok")
    """)
    assert r.returncode == 0, r.stderr
    assert "empty ok" in r.stdout


def test_exit_with_report_thread_running():
    r = run_py("""
        import acl
        acl.init(); acl.rt.set_device(0)
        ctx, _ = acl.rt.get_context()
        s, _ = acl.rt.create_stream()
        def loop(c):
            acl.rt.set_context(c)
            while True:
                acl.rt.process_report(10)
        tid, _ = acl.util.start_thread(loop, ctx)
        assert acl.rt.subscribe_report(tid, s) == 0
        assert acl.rt.launch_callback(lambda d: print("callback", d, flush=True), 7, 1, s) == 0
        assert acl.rt.synchronize_stream(s) == 0
        print("leaving", flush=True)
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["callback", "7", "leaving"]
