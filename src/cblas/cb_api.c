/* The public aclblas* calls: every argument is checked here, on the caller's
 * thread, against CANN's rules (acl/ops/acl_cblas.h), and only a fully
 * checked job is queued on the stream (cb_exec.c runs it). The typed
 * variants (Hgemm, S8gemv, ...) and the matrix-vector calls are the general
 * product with fixed types or n = 1, as in CANN. */
#include <stdio.h>
#include <stdlib.h>

#include "acl/ops/acl_cblas.h"
#include "cblas/cb_internal.h"
#include "rt/rt_ext.h"

/* What one call looks like, for the shared checks. */
typedef struct cb_call {
    const char *api;
    int gemv;            /* names: x/y, incx/incy; n is the length of x */
    aclTransType ta, tb, tc;
    int m, n, k;
    int lda, ldb, ldc;
    aclDataType da, db, dc;
    aclComputeType type;
} cb_call;

static const char *type_name(aclDataType t)
{
    switch (t) {
    case ACL_FLOAT: return "ACL_FLOAT";
    case ACL_FLOAT16: return "ACL_FLOAT16";
    case ACL_INT8: return "ACL_INT8";
    case ACL_INT32: return "ACL_INT32";
    case ACL_DT_UNDEFINED: return "ACL_DT_UNDEFINED";
    default: return "another type";
    }
}

static size_t type_size(aclDataType t)
{
    switch (t) {
    case ACL_FLOAT: case ACL_INT32: return 4;
    case ACL_FLOAT16: return 2;
    case ACL_INT8: return 1;
    default: return 0;
    }
}

static int check_trans(const cb_call *c, const char *name, aclTransType t)
{
    if (t == ACL_TRANS_N || t == ACL_TRANS_T) return ACL_SUCCESS;
    if (t == ACL_TRANS_NZ)
        return openacl_ext_fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                                "%s: %s is ACL_TRANS_NZ (Ascend's fractal layout), which openacl does not "
                                "provide; pass row-major data with ACL_TRANS_N or ACL_TRANS_T",
                                c->api, name);
    return openacl_ext_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is %d; only ACL_TRANS_N (0) and ACL_TRANS_T (1) are "
                            "supported", c->api, name, (int)t);
}

/* The checks that need no memory: shapes, transposes, reserved leading
 * dimensions, compute type and the type combination. */
static int check_shape(const cb_call *c)
{
    int rc = openacl_ext_check_init(c->api);
    if (rc) return rc;
    if (c->m <= 0 || c->n <= 0 || c->k <= 0) {
        if (c->gemv)
            return openacl_ext_fail(ACL_ERROR_INVALID_PARAM, "%s: m = %d, n = %d: both must be > 0", c->api, c->m,
                                    c->k);
        return openacl_ext_fail(ACL_ERROR_INVALID_PARAM, "%s: m = %d, n = %d, k = %d: all must be > 0", c->api, c->m,
                                c->n, c->k);
    }
    if ((rc = check_trans(c, "transA", c->ta))) return rc;
    if (!c->gemv && (rc = check_trans(c, "transB", c->tb))) return rc;
    if (!c->gemv && c->tc != ACL_TRANS_N) {
        if (c->tc == ACL_TRANS_NZ)
            return openacl_ext_fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                                    "%s: transC is ACL_TRANS_NZ (Ascend's fractal layout), which openacl does not "
                                    "provide; use ACL_TRANS_N", c->api);
        return openacl_ext_fail(ACL_ERROR_INVALID_PARAM, "%s: transC is %d; only ACL_TRANS_N (0) is supported",
                                c->api, (int)c->tc);
    }
    const char *const *ld = c->gemv ? (const char *const[]){"lda", "incx", "incy"}
                                    : (const char *const[]){"lda", "ldb", "ldc"};
    const int vals[3] = {c->lda, c->ldb, c->ldc};
    for (int i = 0; i < 3; i++)
        if (vals[i] != -1)
            return openacl_ext_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is %d; it is reserved and must be -1", c->api,
                                    ld[i], vals[i]);
    if (c->type != ACL_COMPUTE_HIGH_PRECISION)
        return openacl_ext_fail(ACL_ERROR_INVALID_PARAM,
                                "%s: type is %d; only ACL_COMPUTE_HIGH_PRECISION (0) is supported", c->api,
                                (int)c->type);
    const char *nb = c->gemv ? "dataTypeX" : "dataTypeB", *nc = c->gemv ? "dataTypeY" : "dataTypeC";
    int ok = c->da == c->db &&
             ((c->da == ACL_FLOAT16 && (c->dc == ACL_FLOAT16 || c->dc == ACL_FLOAT)) ||
              (c->da == ACL_INT8 && (c->dc == ACL_FLOAT || c->dc == ACL_INT32)));
    if (!ok)
        return openacl_ext_fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
                                "%s: dataTypeA %s (%d), %s %s (%d), %s %s (%d) is not a supported combination; "
                                "supported (A and %s alike -> %s): ACL_FLOAT16 -> ACL_FLOAT16 or ACL_FLOAT, "
                                "ACL_INT8 -> ACL_FLOAT or ACL_INT32",
                                c->api, type_name(c->da), (int)c->da, nb, type_name(c->db), (int)c->db, nc,
                                type_name(c->dc), (int)c->dc, c->gemv ? "x" : "B", c->gemv ? "y" : "C");
    return ACL_SUCCESS;
}

/* p must be device memory of the current device holding `bytes`. */
static int check_mem(const char *api, const char *name, const void *p, size_t bytes, int32_t device, const char *shape)
{
    if (!p) return openacl_ext_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, name);
    int kind = 0;
    int32_t dev = -1;
    if (openacl_ext_mem_query(p, bytes, &kind, &dev) != ACL_SUCCESS)
        return openacl_ext_fail(ACL_ERROR_INVALID_PARAM,
                                "%s: %s %p: %s needs %zu bytes, which run past the end of its allocation", api,
                                name, p, shape, bytes);
    if (kind != OPENACL_EXT_MEM_DEVICE && kind != OPENACL_EXT_MEM_DVPP)
        return openacl_ext_fail(ACL_ERROR_INVALID_PARAM,
                                "%s: %s %p is %s, not device memory; allocate it with aclrtMalloc", api, name, p,
                                kind == OPENACL_EXT_MEM_HOST ? "host memory from aclrtMallocHost"
                                                             : "not memory of the runtime");
    if (dev != device)
        return openacl_ext_fail(ACL_ERROR_INVALID_PARAM,
                                "%s: %s %p is memory of device %d, but the current device is %d", api, name, p,
                                (int)dev, (int)device);
    return ACL_SUCCESS;
}

/* m, n, k are positive ints: rows * cols < 2^62, times at most 4 fits. */
static size_t bytes_of(int64_t rows, int64_t cols, aclDataType t) { return (size_t)(rows * cols) * type_size(t); }

/* Checks everything and queues the product. */
static int submit(const cb_call *c, const void *alpha, const void *a, const void *b, const void *beta, void *cm,
                  aclrtStream stream)
{
    int rc = check_shape(c);
    if (rc) return rc;
    /* NULL pointers before the device lookup, so the message names them */
    const char *na = c->gemv ? "a" : "matrixA", *nb = c->gemv ? "x" : "matrixB", *nc = c->gemv ? "y" : "matrixC";
    const void *ptrs[5] = {alpha, a, b, beta, cm};
    const char *names[5] = {"alpha", na, nb, "beta", nc};
    for (int i = 0; i < 5; i++)
        if (!ptrs[i]) return openacl_ext_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", c->api, names[i]);
    int32_t device = -1;
    if ((rc = openacl_ext_current_device(c->api, &device))) return rc;

    const int64_t M = c->m, N = c->n, K = c->k;
    const int ta = c->ta == ACL_TRANS_T, tb = c->tb == ACL_TRANS_T;
    const size_t sa = bytes_of(M, K, c->da), sb = bytes_of(K, N, c->db), sc = bytes_of(M, N, c->dc);
    char shape[96];
    snprintf(shape, sizeof(shape), "%s %lld x %lld", type_name(c->da), (long long)(ta ? K : M), (long long)(ta ? M : K));
    if ((rc = check_mem(c->api, na, a, sa, device, shape))) return rc;
    if (c->gemv)
        snprintf(shape, sizeof(shape), "%s vector of %lld", type_name(c->db), (long long)K);
    else
        snprintf(shape, sizeof(shape), "%s %lld x %lld", type_name(c->db), (long long)(tb ? N : K),
                 (long long)(tb ? K : N));
    if ((rc = check_mem(c->api, nb, b, sb, device, shape))) return rc;
    if (c->gemv)
        snprintf(shape, sizeof(shape), "%s vector of %lld", type_name(c->dc), (long long)M);
    else
        snprintf(shape, sizeof(shape), "%s %lld x %lld", type_name(c->dc), (long long)M, (long long)N);
    if ((rc = check_mem(c->api, nc, cm, sc, device, shape))) return rc;
    snprintf(shape, sizeof(shape), "one %s scalar", type_name(c->dc));
    if ((rc = check_mem(c->api, "alpha", alpha, type_size(c->dc), device, shape))) return rc;
    if ((rc = check_mem(c->api, "beta", beta, type_size(c->dc), device, shape))) return rc;

    cb_job *j = malloc(sizeof(*j));
    if (!j) return openacl_ext_fail(ACL_ERROR_BAD_ALLOC, "%s: no memory for the task", c->api);
    *j = (cb_job){.m = M, .n = N, .k = K, .ta = ta, .tb = tb, .ab_type = c->da, .c_type = c->dc,
                  .a = a, .b = b, .alpha = alpha, .beta = beta, .c = cm, .device = device, .api = c->api};
    rc = openacl_ext_stream_enqueue(c->api, stream, cb_job_run, free, j, c->api, NULL);
    if (rc) free(j);
    return rc;
}

/* The create-handle calls check what the compute calls check, then answer
 * that openacl has no single-operator handles. Written
 * `return OA_UNSUPPORTED(name)` so that scripts/api_coverage.py lists them as
 * unsupported. */
#define OA_UNSUPPORTED(name)                                                                                      \
    openacl_ext_fail(ACL_ERROR_FEATURE_UNSUPPORTED,                                                               \
                     "%s: not supported by openacl: it has no single-operator handles (aclopExecWithHandle); "    \
                     "call the matching aclblas compute function directly, which reuses its prepared computation", \
                     #name)

static int handle_args(const cb_call *c, aclopHandle **handle)
{
    int rc = check_shape(c);
    if (rc) return rc;
    if (!handle) return openacl_ext_fail(ACL_ERROR_INVALID_PARAM, "%s: handle is NULL", c->api);
    return ACL_SUCCESS;
}

#define GEMV_CALL(name, ta_, m_, n_, lda_, incx_, incy_, da_, dx_, dy_, type_)                                      \
    {.api = name, .gemv = 1, .ta = (ta_), .tb = ACL_TRANS_N, .tc = ACL_TRANS_N, .m = (m_), .n = 1, .k = (n_),       \
     .lda = (lda_), .ldb = (incx_), .ldc = (incy_), .da = (da_), .db = (dx_), .dc = (dy_), .type = (type_)}

#define GEMM_CALL(name, ta_, tb_, tc_, m_, n_, k_, lda_, ldb_, ldc_, da_, db_, dc_, type_)                          \
    {.api = name, .gemv = 0, .ta = (ta_), .tb = (tb_), .tc = (tc_), .m = (m_), .n = (n_), .k = (k_), .lda = (lda_), \
     .ldb = (ldb_), .ldc = (ldc_), .da = (da_), .db = (db_), .dc = (dc_), .type = (type_)}

/* For gemv the shape check reads m and n through the call's m and k. */
static int gemv_submit(cb_call c, const void *alpha, const void *a, const void *x, const void *beta, void *y,
                       aclrtStream stream)
{
    return submit(&c, alpha, a, x, beta, y, stream);
}

ACL_FUNC_VISIBILITY aclError aclblasGemvEx(aclTransType transA, int m, int n, const void *alpha, const void *a,
                                           int lda, aclDataType dataTypeA, const void *x, int incx,
                                           aclDataType dataTypeX, const void *beta, void *y, int incy,
                                           aclDataType dataTypeY, aclComputeType type, aclrtStream stream)
{
    cb_call c = GEMV_CALL("aclblasGemvEx", transA, m, n, lda, incx, incy, dataTypeA, dataTypeX, dataTypeY, type);
    return gemv_submit(c, alpha, a, x, beta, y, stream);
}

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n, aclDataType dataTypeA,
                                                          aclDataType dataTypeX, aclDataType dataTypeY,
                                                          aclComputeType type, aclopHandle **handle)
{
    cb_call c = GEMV_CALL("aclblasCreateHandleForGemvEx", transA, m, n, -1, -1, -1, dataTypeA, dataTypeX, dataTypeY,
                          type);
    int rc = handle_args(&c, handle);
    return rc ? rc : OA_UNSUPPORTED(aclblasCreateHandleForGemvEx);
}

ACL_FUNC_VISIBILITY aclError aclblasHgemv(aclTransType transA, int m, int n, const aclFloat16 *alpha,
                                          const aclFloat16 *a, int lda, const aclFloat16 *x, int incx,
                                          const aclFloat16 *beta, aclFloat16 *y, int incy, aclComputeType type,
                                          aclrtStream stream)
{
    cb_call c = GEMV_CALL("aclblasHgemv", transA, m, n, lda, incx, incy, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, type);
    return gemv_submit(c, alpha, a, x, beta, y, stream);
}

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n, aclComputeType type,
                                                         aclopHandle **handle)
{
    cb_call c = GEMV_CALL("aclblasCreateHandleForHgemv", transA, m, n, -1, -1, -1, ACL_FLOAT16, ACL_FLOAT16,
                          ACL_FLOAT16, type);
    int rc = handle_args(&c, handle);
    return rc ? rc : OA_UNSUPPORTED(aclblasCreateHandleForHgemv);
}

ACL_FUNC_VISIBILITY aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t *alpha, const int8_t *a,
                                           int lda, const int8_t *x, int incx, const int32_t *beta, int32_t *y,
                                           int incy, aclComputeType type, aclrtStream stream)
{
    cb_call c = GEMV_CALL("aclblasS8gemv", transA, m, n, lda, incx, incy, ACL_INT8, ACL_INT8, ACL_INT32, type);
    return gemv_submit(c, alpha, a, x, beta, y, stream);
}

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n, aclComputeType type,
                                                          aclopHandle **handle)
{
    cb_call c = GEMV_CALL("aclblasCreateHandleForS8gemv", transA, m, n, -1, -1, -1, ACL_INT8, ACL_INT8, ACL_INT32,
                          type);
    int rc = handle_args(&c, handle);
    return rc ? rc : OA_UNSUPPORTED(aclblasCreateHandleForS8gemv);
}

ACL_FUNC_VISIBILITY aclError aclblasGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                           int n, int k, const void *alpha, const void *matrixA, int lda,
                                           aclDataType dataTypeA, const void *matrixB, int ldb,
                                           aclDataType dataTypeB, const void *beta, void *matrixC, int ldc,
                                           aclDataType dataTypeC, aclComputeType type, aclrtStream stream)
{
    cb_call c = GEMM_CALL("aclblasGemmEx", transA, transB, transC, m, n, k, lda, ldb, ldc, dataTypeA, dataTypeB,
                          dataTypeC, type);
    return submit(&c, alpha, matrixA, matrixB, beta, matrixC, stream);
}

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclDataType dataTypeA, aclDataType dataTypeB,
                                                          aclDataType dataTypeC, aclComputeType type,
                                                          aclopHandle **handle)
{
    cb_call c = GEMM_CALL("aclblasCreateHandleForGemmEx", transA, transB, transC, m, n, k, -1, -1, -1, dataTypeA,
                          dataTypeB, dataTypeC, type);
    int rc = handle_args(&c, handle);
    return rc ? rc : OA_UNSUPPORTED(aclblasCreateHandleForGemmEx);
}

ACL_FUNC_VISIBILITY aclError aclblasHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                          int n, int k, const aclFloat16 *alpha, const aclFloat16 *matrixA, int lda,
                                          const aclFloat16 *matrixB, int ldb, const aclFloat16 *beta,
                                          aclFloat16 *matrixC, int ldc, aclComputeType type, aclrtStream stream)
{
    cb_call c = GEMM_CALL("aclblasHgemm", transA, transB, transC, m, n, k, lda, ldb, ldc, ACL_FLOAT16, ACL_FLOAT16,
                          ACL_FLOAT16, type);
    return submit(&c, alpha, matrixA, matrixB, beta, matrixC, stream);
}

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB,
                                                         aclTransType transC, int m, int n, int k,
                                                         aclComputeType type, aclopHandle **handle)
{
    cb_call c = GEMM_CALL("aclblasCreateHandleForHgemm", transA, transB, transC, m, n, k, -1, -1, -1, ACL_FLOAT16,
                          ACL_FLOAT16, ACL_FLOAT16, type);
    int rc = handle_args(&c, handle);
    return rc ? rc : OA_UNSUPPORTED(aclblasCreateHandleForHgemm);
}

ACL_FUNC_VISIBILITY aclError aclblasS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                           int n, int k, const int32_t *alpha, const int8_t *matrixA, int lda,
                                           const int8_t *matrixB, int ldb, const int32_t *beta, int32_t *matrixC,
                                           int ldc, aclComputeType type, aclrtStream stream)
{
    cb_call c = GEMM_CALL("aclblasS8gemm", transA, transB, transC, m, n, k, lda, ldb, ldc, ACL_INT8, ACL_INT8,
                          ACL_INT32, type);
    return submit(&c, alpha, matrixA, matrixB, beta, matrixC, stream);
}

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclComputeType type, aclopHandle **handle)
{
    cb_call c = GEMM_CALL("aclblasCreateHandleForS8gemm", transA, transB, transC, m, n, k, -1, -1, -1, ACL_INT8,
                          ACL_INT8, ACL_INT32, type);
    int rc = handle_args(&c, handle);
    return rc ? rc : OA_UNSUPPORTED(aclblasCreateHandleForS8gemm);
}
