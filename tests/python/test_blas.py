"""acl.blas (libacl_cblas) from Python, as pyACL applications call it:
device pointers as ints, alpha and beta in device memory, the call queued on
a stream and finished by synchronize_stream. Results against numpy: fp32
results within fp32 accumulation error, fp16 results within one fp16
rounding of numpy's float32 result, int32 results exact (wrapping like
numpy's int32)."""
import numpy as np
import pytest

import acl

import aclconst as C
from acltools import from_device, ok, to_device

ACL_INT8 = 2
ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_NZ = 0, 1, 2
ACL_COMPUTE_HIGH_PRECISION, ACL_COMPUTE_LOW_PRECISION = 0, 1
ACL_ERROR_UNSUPPORTED_DATA_TYPE = 100026

NP = {C.ACL_FLOAT16: np.float16, C.ACL_FLOAT: np.float32, ACL_INT8: np.int8, C.ACL_INT32: np.int32}
COMBOS = [(C.ACL_FLOAT16, C.ACL_FLOAT16), (C.ACL_FLOAT16, C.ACL_FLOAT), (ACL_INT8, C.ACL_FLOAT),
          (ACL_INT8, C.ACL_INT32)]
SIZES = [(1, 1, 1), (7, 33, 1), (1, 7, 33), (33, 1, 7), (257, 7, 33), (7, 257, 257), (33, 33, 257)]

rng = np.random.default_rng(7)
# the largest error seen per output type, relative to numpy, for the report
WORST = {}


def rand(dt, shape):
    if dt == ACL_INT8:
        return rng.integers(-128, 128, size=shape, dtype=np.int8)
    if dt == C.ACL_INT32:
        return rng.integers(-1000, 1001, size=shape, dtype=np.int32)
    return rng.uniform(-1, 1, size=shape).astype(NP[dt])


def free_all(*ptrs):
    for p in ptrs:
        ok(acl.rt.free(p), "free")


def reference(a, b, c, alpha, beta, tc):
    """numpy: op(A) op(B) in float32 (int64 for int32 C), alpha and beta of C's type."""
    if tc == C.ACL_INT32:
        acc = a.astype(np.int64) @ b.astype(np.int64)
        out = np.int64(alpha) * acc + np.int64(beta) * c.astype(np.int64)
        return out.astype(np.uint32).view(np.int32) if out.dtype != np.int32 else out  # wrap like int32
    acc = a.astype(np.float32) @ b.astype(np.float32)
    out = np.float32(alpha) * acc
    if beta != 0:
        out = out + np.float32(beta) * c.astype(np.float32)
    return out.astype(np.float32)


def check(got, ref, tc, a, b, alpha, c, beta, what):
    if tc == C.ACL_INT32:
        assert np.array_equal(got, ref), what
        WORST["int8->int32"] = (0, 0)
        return
    # fp32 accumulation of k terms: bounded by k * eps * sum |a*b| (generous), plus one fp16 rounding
    mag = abs(np.float32(alpha)) * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    if beta != 0:
        mag = mag + abs(float(beta)) * np.abs(c.astype(np.float64))
    k = a.shape[1]
    tol = mag * 1.2e-7 * (k + 2) + 1e-30
    if tc == C.ACL_FLOAT16:
        tol = tol + np.abs(ref.astype(np.float64)) * 2.0 ** -11 + 2.0 ** -25
    err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    assert np.all(err <= tol), "%s: max error %g (allowed %g there)" % (what, err.max(), tol.flat[err.argmax()])
    key = "%s->%s" % (np.dtype(a.dtype).name, np.dtype(NP[tc]).name)
    rel = float((err / tol).max())
    old = WORST.get(key, (0.0, 0.0))
    WORST[key] = (max(old[0], float(err.max())), max(old[1], rel))


def run(fn, tab, tc, m, n, k, ta, tb, alpha, beta, stream=0):
    a = rand(tab, (m, k))
    b = rand(tab, (k, n))
    c = rand(tc, (m, n))
    a_buf = a.T.copy() if ta else a   # ACL_TRANS_T: the buffer holds the transposed matrix
    b_buf = b.T.copy() if tb else b
    da, _ = to_device(a_buf)
    db, _ = to_device(b_buf)
    dc, _ = to_device(c)
    dal, _ = to_device(np.array([alpha], dtype=NP[tc]))
    dbe, _ = to_device(np.array([beta], dtype=NP[tc]))
    TA = ACL_TRANS_T if ta else ACL_TRANS_N
    TB = ACL_TRANS_T if tb else ACL_TRANS_N
    HP = ACL_COMPUTE_HIGH_PRECISION
    if fn == "gemm_ex":
        ret = acl.blas.gemm_ex(TA, TB, ACL_TRANS_N, m, n, k, dal, da, -1, tab, db, -1, tab, dbe, dc, -1, tc, HP, stream)
    elif fn == "hgemm":
        ret = acl.blas.hgemm(TA, TB, ACL_TRANS_N, m, n, k, dal, da, -1, db, -1, dbe, dc, -1, HP, stream)
    elif fn == "s8gemm":
        ret = acl.blas.s8gemm(TA, TB, ACL_TRANS_N, m, n, k, dal, da, -1, db, -1, dbe, dc, -1, HP, stream)
    elif fn == "gemv_ex":
        ret = acl.blas.gemv_ex(TA, m, k, dal, da, -1, tab, db, -1, tab, dbe, dc, -1, tc, HP, stream)
    elif fn == "hgemv":
        ret = acl.blas.hgemv(TA, m, k, dal, da, -1, db, -1, dbe, dc, -1, HP, stream)
    else:
        ret = acl.blas.s8gemv(TA, m, k, dal, da, -1, db, -1, dbe, dc, -1, HP, stream)
    ok(ret, fn)
    ok(acl.rt.synchronize_stream(stream), "synchronize_stream")
    got = from_device(dc, (m, n), NP[tc])
    free_all(da, db, dc, dal, dbe)
    ref = reference(a, b, c, alpha, beta, tc)
    check(got, ref, tc, a, b, alpha, c, beta, "%s %dx%dx%d ta=%d tb=%d" % (fn, m, n, k, ta, tb))


@pytest.mark.parametrize("tab,tc", COMBOS)
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_gemm_ex(ctx, tab, tc, ta, tb):
    ab = [(1, 0), (3, -2)] if tc == C.ACL_INT32 else [(1.0, 0.0), (0.5, -1.5)]
    for (m, n, k) in SIZES:
        for alpha, beta in ab:
            run("gemm_ex", tab, tc, m, n, k, ta, tb, alpha, beta)


@pytest.mark.parametrize("tab,tc", COMBOS)
@pytest.mark.parametrize("ta", [0, 1])
def test_gemv_ex(ctx, tab, tc, ta):
    for (m, _, k) in SIZES:
        run("gemv_ex", tab, tc, m, 1, k, ta, 0, 2 if tc == C.ACL_INT32 else 2.0, 1 if tc == C.ACL_INT32 else 0.25)


@pytest.mark.parametrize("fn,tab,tc", [("hgemm", C.ACL_FLOAT16, C.ACL_FLOAT16), ("s8gemm", ACL_INT8, C.ACL_INT32)])
def test_typed_gemm(ctx, fn, tab, tc):
    for (m, n, k) in SIZES:
        run(fn, tab, tc, m, n, k, 1, 0, 2, 1)
        run(fn, tab, tc, m, n, k, 0, 1, 1, 0)


@pytest.mark.parametrize("fn,tab,tc", [("hgemv", C.ACL_FLOAT16, C.ACL_FLOAT16), ("s8gemv", ACL_INT8, C.ACL_INT32)])
def test_typed_gemv(ctx, fn, tab, tc):
    for (m, _, k) in SIZES:
        run(fn, tab, tc, m, 1, k, 0, 0, 2, 1)
        run(fn, tab, tc, m, 1, k, 1, 0, -1, 3)


def test_int32_wraps_like_numpy(ctx):
    # alpha * (A B) runs past 2^31: the result wraps as numpy's int32 does
    run("s8gemm", ACL_INT8, C.ACL_INT32, 7, 33, 257, 0, 0, 1 << 20, 123457)


def test_on_a_created_stream_with_async_copies(ctx):
    stream, ret = acl.rt.create_stream()
    ok(ret, "create_stream")
    m, n, k = 33, 7, 257
    a = rand(C.ACL_FLOAT16, (m, k))
    b = rand(C.ACL_FLOAT16, (k, n))
    sizes = [a.nbytes, b.nbytes, m * n * 4, 4, 4]
    dev = []
    for s in sizes:
        p, ret = acl.rt.malloc(s, C.ACL_MEM_MALLOC_HUGE_FIRST)
        ok(ret, "malloc")
        dev.append(p)
    host = []
    for arr in (a, b, np.array([2.0], np.float32), np.array([0.0], np.float32)):
        p, ret = acl.rt.malloc_host(arr.nbytes)
        ok(ret, "malloc_host")
        data = arr.tobytes()
        ok(acl.rt.memcpy(p, arr.nbytes, acl.util.bytes_to_ptr(data), arr.nbytes, C.ACL_MEMCPY_HOST_TO_HOST))
        host.append(p)
    out, ret = acl.rt.malloc_host(m * n * 4)
    ok(ret, "malloc_host")
    da, db, dc, dal, dbe = dev
    for d, h, s in ((da, host[0], a.nbytes), (db, host[1], b.nbytes), (dal, host[2], 4), (dbe, host[3], 4)):
        ok(acl.rt.memcpy_async(d, s, h, s, C.ACL_MEMCPY_HOST_TO_DEVICE, stream), "memcpy_async")
    ok(acl.blas.gemm_ex(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, m, n, k, dal, da, -1, C.ACL_FLOAT16, db, -1,
                        C.ACL_FLOAT16, dbe, dc, -1, C.ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, stream), "gemm_ex")
    ok(acl.rt.memcpy_async(out, m * n * 4, dc, m * n * 4, C.ACL_MEMCPY_DEVICE_TO_HOST, stream), "memcpy_async")
    ok(acl.rt.synchronize_stream(stream), "synchronize_stream")
    res = bytes(m * n * 4)
    ok(acl.rt.memcpy(acl.util.bytes_to_ptr(res), m * n * 4, out, m * n * 4, C.ACL_MEMCPY_HOST_TO_HOST))
    got = np.frombuffer(res, np.float32).reshape(m, n)
    check(got, reference(a, b, None, 2.0, 0.0, C.ACL_FLOAT), C.ACL_FLOAT, a, b, 2.0, None, 0.0, "stream")
    for p in host + [out]:
        ok(acl.rt.free_host(p), "free_host")
    free_all(*dev)
    ok(acl.rt.destroy_stream(stream), "destroy_stream")


def test_argument_errors(ctx):
    da, _ = to_device(np.zeros((4, 4), np.float16))
    dal, _ = to_device(np.ones(1, np.float16))
    HP = ACL_COMPUTE_HIGH_PRECISION
    H = C.ACL_FLOAT16

    def gemm(**kw):
        a = dict(ta=0, tb=0, tc=0, m=4, n=4, k=4, lda=-1, ldb=-1, ldc=-1, tab=H, tcc=H, type=HP, c=da)
        a.update(kw)
        return acl.blas.gemm_ex(a["ta"], a["tb"], a["tc"], a["m"], a["n"], a["k"], dal, da, a["lda"], a["tab"], da,
                                a["ldb"], a["tab"], dal, a["c"], a["ldc"], a["tcc"], a["type"], 0)

    cases = [(dict(lda=4), C.ACL_ERROR_INVALID_PARAM, "lda is 4"),
             (dict(ldc=0), C.ACL_ERROR_INVALID_PARAM, "ldc is 0"),
             (dict(m=0), C.ACL_ERROR_INVALID_PARAM, "m = 0"),
             (dict(tc=ACL_TRANS_T), C.ACL_ERROR_INVALID_PARAM, "transC is 1"),
             (dict(ta=ACL_TRANS_NZ), C.ACL_ERROR_FEATURE_UNSUPPORTED, "ACL_TRANS_NZ"),
             (dict(type=ACL_COMPUTE_LOW_PRECISION), C.ACL_ERROR_INVALID_PARAM, "type is 1"),
             (dict(tab=C.ACL_FLOAT, tcc=C.ACL_FLOAT), ACL_ERROR_UNSUPPORTED_DATA_TYPE, "not a supported combination"),
             (dict(c=0), C.ACL_ERROR_INVALID_PARAM, "matrixC is NULL"),
             (dict(m=5), C.ACL_ERROR_INVALID_PARAM, "run past the end")]
    for kw, code, text in cases:
        assert gemm(**kw) == code, kw
        msg = acl.get_recent_err_msg()
        assert "aclblasGemmEx" in msg and text in msg, (kw, msg)
    host = bytes(32)   # pageable host memory as A
    ret = acl.blas.hgemv(0, 4, 4, dal, acl.util.bytes_to_ptr(host), -1, da, -1, dal, da, -1, HP, 0)
    assert ret == C.ACL_ERROR_INVALID_PARAM and "not device memory" in acl.get_recent_err_msg()
    assert acl.blas.s8gemv(0, 4, 4, dal, da, -1, da, 2, dal, da, -1, HP, 0) == C.ACL_ERROR_INVALID_PARAM
    assert "incx is 2" in acl.get_recent_err_msg()
    free_all(da, dal)
    with pytest.raises(TypeError, match="acl.blas.gemm_ex args parse failed"):
        acl.blas.gemm_ex(0, 0, 0)


def test_create_handle_calls(ctx):
    HP = ACL_COMPUTE_HIGH_PRECISION
    H = C.ACL_FLOAT16
    calls = [lambda: acl.blas.create_handle_for_gemm_ex(0, 0, 0, 4, 4, 4, H, H, C.ACL_FLOAT, HP),
             lambda: acl.blas.create_handle_for_hgemm(0, 1, 0, 4, 4, 4, HP),
             lambda: acl.blas.create_handle_for_s8gemm(1, 0, 0, 4, 4, 4, HP),
             lambda: acl.blas.create_handle_for_gemv_ex(0, 4, 4, ACL_INT8, ACL_INT8, C.ACL_INT32, HP),
             lambda: acl.blas.create_handle_for_hgemv(1, 4, 4, HP),
             lambda: acl.blas.create_handle_for_s8gemv(0, 4, 4, HP)]
    for call in calls:
        handle, ret = call()
        assert (handle, ret) == (0, C.ACL_ERROR_FEATURE_UNSUPPORTED)
        assert "not supported by openacl" in acl.get_recent_err_msg()
    handle, ret = acl.blas.create_handle_for_hgemm(0, 0, 0, 0, 4, 4, HP)
    assert (handle, ret) == (0, C.ACL_ERROR_INVALID_PARAM)


def test_report_worst_errors():
    """Prints the largest errors against numpy seen above (pytest -s): per
    type combination (max absolute error, max error / allowed error)."""
    print("acl.blas vs numpy: %s" % WORST)
