/* acl.blas.*: pyACL's names for libacl_cblas (acl/ops/acl_cblas.h). Same
 * arguments as the C calls, in the same order, with device pointers and the
 * stream as ints and enums as ints; the compute calls return ret, the
 * create_handle_* calls (handle, ret) without the C out-parameter. Each call
 * only queues work on the stream, with the GIL released like every call
 * that touches a stream. */
#include "pyacl.h"

#include "acl/ops/acl_cblas.h"

#define FN(name) static PyObject *blas_##name(PyObject *self, PyObject *args)
#define Q(name) "acl.blas." #name
#define PTR(v) ((void *)(uintptr_t)(v))

FN(gemv_ex)
{
    int ta, m, n, lda, da, incx, dx, incy, dy, type;
    unsigned long alpha, a, x, beta, y, stream;
    PA_PARSE(args, Q(gemv_ex), "iiikkiikiikkiiik", &ta, &m, &n, &alpha, &a, &lda, &da, &x, &incx, &dx, &beta, &y,
             &incy, &dy, &type, &stream);
    aclError ret;
    PA_NOGIL(ret = aclblasGemvEx((aclTransType)ta, m, n, PTR(alpha), PTR(a), lda, (aclDataType)da, PTR(x), incx,
                                 (aclDataType)dx, PTR(beta), PTR(y), incy, (aclDataType)dy, (aclComputeType)type,
                                 PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(create_handle_for_gemv_ex)
{
    int ta, m, n, da, dx, dy, type;
    PA_PARSE(args, Q(create_handle_for_gemv_ex), "iiiiiii", &ta, &m, &n, &da, &dx, &dy, &type);
    aclopHandle *h = NULL;
    aclError ret = aclblasCreateHandleForGemvEx((aclTransType)ta, m, n, (aclDataType)da, (aclDataType)dx,
                                                (aclDataType)dy, (aclComputeType)type, &h);
    return pa_ptr_ret(h, ret);
}

FN(hgemv)
{
    int ta, m, n, lda, incx, incy, type;
    unsigned long alpha, a, x, beta, y, stream;
    PA_PARSE(args, Q(hgemv), "iiikkikikkiik", &ta, &m, &n, &alpha, &a, &lda, &x, &incx, &beta, &y, &incy, &type,
             &stream);
    aclError ret;
    PA_NOGIL(ret = aclblasHgemv((aclTransType)ta, m, n, PTR(alpha), PTR(a), lda, PTR(x), incx, PTR(beta), PTR(y),
                                incy, (aclComputeType)type, PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(create_handle_for_hgemv)
{
    int ta, m, n, type;
    PA_PARSE(args, Q(create_handle_for_hgemv), "iiii", &ta, &m, &n, &type);
    aclopHandle *h = NULL;
    aclError ret = aclblasCreateHandleForHgemv((aclTransType)ta, m, n, (aclComputeType)type, &h);
    return pa_ptr_ret(h, ret);
}

FN(s8gemv)
{
    int ta, m, n, lda, incx, incy, type;
    unsigned long alpha, a, x, beta, y, stream;
    PA_PARSE(args, Q(s8gemv), "iiikkikikkiik", &ta, &m, &n, &alpha, &a, &lda, &x, &incx, &beta, &y, &incy, &type,
             &stream);
    aclError ret;
    PA_NOGIL(ret = aclblasS8gemv((aclTransType)ta, m, n, PTR(alpha), PTR(a), lda, PTR(x), incx, PTR(beta), PTR(y),
                                 incy, (aclComputeType)type, PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(create_handle_for_s8gemv)
{
    int ta, m, n, type;
    PA_PARSE(args, Q(create_handle_for_s8gemv), "iiii", &ta, &m, &n, &type);
    aclopHandle *h = NULL;
    aclError ret = aclblasCreateHandleForS8gemv((aclTransType)ta, m, n, (aclComputeType)type, &h);
    return pa_ptr_ret(h, ret);
}

FN(gemm_ex)
{
    int ta, tb, tc, m, n, k, lda, da, ldb, db, ldc, dc, type;
    unsigned long alpha, a, b, beta, c, stream;
    PA_PARSE(args, Q(gemm_ex), "iiiiiikkiikiikkiiik", &ta, &tb, &tc, &m, &n, &k, &alpha, &a, &lda, &da, &b, &ldb, &db,
             &beta, &c, &ldc, &dc, &type, &stream);
    aclError ret;
    PA_NOGIL(ret = aclblasGemmEx((aclTransType)ta, (aclTransType)tb, (aclTransType)tc, m, n, k, PTR(alpha), PTR(a),
                                 lda, (aclDataType)da, PTR(b), ldb, (aclDataType)db, PTR(beta), PTR(c), ldc,
                                 (aclDataType)dc, (aclComputeType)type, PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(create_handle_for_gemm_ex)
{
    int ta, tb, tc, m, n, k, da, db, dc, type;
    PA_PARSE(args, Q(create_handle_for_gemm_ex), "iiiiiiiiii", &ta, &tb, &tc, &m, &n, &k, &da, &db, &dc, &type);
    aclopHandle *h = NULL;
    aclError ret = aclblasCreateHandleForGemmEx((aclTransType)ta, (aclTransType)tb, (aclTransType)tc, m, n, k,
                                                (aclDataType)da, (aclDataType)db, (aclDataType)dc,
                                                (aclComputeType)type, &h);
    return pa_ptr_ret(h, ret);
}

FN(hgemm)
{
    int ta, tb, tc, m, n, k, lda, ldb, ldc, type;
    unsigned long alpha, a, b, beta, c, stream;
    PA_PARSE(args, Q(hgemm), "iiiiiikkikikkiik", &ta, &tb, &tc, &m, &n, &k, &alpha, &a, &lda, &b, &ldb, &beta, &c,
             &ldc, &type, &stream);
    aclError ret;
    PA_NOGIL(ret = aclblasHgemm((aclTransType)ta, (aclTransType)tb, (aclTransType)tc, m, n, k, PTR(alpha), PTR(a), lda,
                                PTR(b), ldb, PTR(beta), PTR(c), ldc, (aclComputeType)type, PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(create_handle_for_hgemm)
{
    int ta, tb, tc, m, n, k, type;
    PA_PARSE(args, Q(create_handle_for_hgemm), "iiiiiii", &ta, &tb, &tc, &m, &n, &k, &type);
    aclopHandle *h = NULL;
    aclError ret = aclblasCreateHandleForHgemm((aclTransType)ta, (aclTransType)tb, (aclTransType)tc, m, n, k,
                                               (aclComputeType)type, &h);
    return pa_ptr_ret(h, ret);
}

FN(s8gemm)
{
    int ta, tb, tc, m, n, k, lda, ldb, ldc, type;
    unsigned long alpha, a, b, beta, c, stream;
    PA_PARSE(args, Q(s8gemm), "iiiiiikkikikkiik", &ta, &tb, &tc, &m, &n, &k, &alpha, &a, &lda, &b, &ldb, &beta, &c,
             &ldc, &type, &stream);
    aclError ret;
    PA_NOGIL(ret = aclblasS8gemm((aclTransType)ta, (aclTransType)tb, (aclTransType)tc, m, n, k, PTR(alpha), PTR(a),
                                 lda, PTR(b), ldb, PTR(beta), PTR(c), ldc, (aclComputeType)type, PTR(stream)));
    return PyLong_FromLong(ret);
}

FN(create_handle_for_s8gemm)
{
    int ta, tb, tc, m, n, k, type;
    PA_PARSE(args, Q(create_handle_for_s8gemm), "iiiiiii", &ta, &tb, &tc, &m, &n, &k, &type);
    aclopHandle *h = NULL;
    aclError ret = aclblasCreateHandleForS8gemm((aclTransType)ta, (aclTransType)tb, (aclTransType)tc, m, n, k,
                                                (aclComputeType)type, &h);
    return pa_ptr_ret(h, ret);
}

#define M(name) {#name, blas_##name, METH_VARARGS, NULL}
PyMethodDef pa_blas_methods[] = {
    M(gemv_ex), M(create_handle_for_gemv_ex), M(hgemv), M(create_handle_for_hgemv), M(s8gemv),
    M(create_handle_for_s8gemv), M(gemm_ex), M(create_handle_for_gemm_ex), M(hgemm), M(create_handle_for_hgemm),
    M(s8gemm), M(create_handle_for_s8gemm), {NULL, NULL, 0, NULL},
};
