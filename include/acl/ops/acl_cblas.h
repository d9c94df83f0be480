/* AscendCL matrix operations (openacl): CANN's acl/ops/acl_cblas.h, provided
 * by libacl_cblas.so (link -lacl_cblas -lascendcl). Names, enum values and
 * signatures are CANN's; CANN marks these calls as "to be deprecated".
 *
 * Rules shared by every compute call (docs/cblas.md):
 *  - matrices are dense and row-major: A is m x k, B is k x n, C is m x n;
 *    ACL_TRANS_T means the buffer holds the transposed matrix (A as k x m,
 *    B as n x k). The fractal layouts (ACL_TRANS_NZ) exist only on Ascend
 *    hardware and are refused with ACL_ERROR_FEATURE_UNSUPPORTED;
 *  - lda, ldb, ldc, incx and incy are reserved and must be -1;
 *  - element types (A and B alike -> C): fp16 -> fp16, fp16 -> fp32,
 *    int8 -> fp32, int8 -> int32; anything else is
 *    ACL_ERROR_UNSUPPORTED_DATA_TYPE. Products accumulate in fp32 (fp16 and
 *    int8 -> fp32) or int32 (int8 -> int32);
 *  - A, B, C and the scalars alpha and beta are device memory (aclrtMalloc)
 *    of the current device, large enough for their shapes; alpha and beta
 *    each point to one value of C's type. C = alpha*op(A)*op(B) + beta*C,
 *    y = alpha*op(A)*x + beta*y; with beta == 0 the old C is not read;
 *  - asynchronous: the arguments are checked during the call (an error
 *    returns at once, with a message for aclGetRecentErrMsg, and nothing is
 *    queued); the computation is queued on `stream` (NULL: the default
 *    stream) behind its earlier tasks and has finished when
 *    aclrtSynchronizeStream returns. alpha and beta are read when the task
 *    runs, so a copy queued before the call on the same stream is seen.
 *    Every buffer must stay allocated until then.
 *  - type must be ACL_COMPUTE_HIGH_PRECISION.
 * Thread rules: every function may be called from any thread that has a
 * current context. */
#ifndef INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_
#define INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_

#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclTransType {
    ACL_TRANS_N,    /* as stored */
    ACL_TRANS_T,    /* the buffer holds the transposed matrix */
    ACL_TRANS_NZ,   /* Ascend's fractal layout: not supported by openacl */
    ACL_TRANS_NZ_T  /* not supported (as in CANN) */
} aclTransType;

typedef enum aclComputeType {
    ACL_COMPUTE_HIGH_PRECISION, /* the only accepted value */
    ACL_COMPUTE_LOW_PRECISION   /* refused with ACL_ERROR_INVALID_PARAM, as in CANN */
} aclComputeType;

/* y = alpha * op(A) * x + beta * y. op(A) is m x n (the buffer is n x m for
 * ACL_TRANS_T), x holds n elements, y holds m. Types as for aclblasGemmEx
 * (dataTypeA for A and x). */
ACL_FUNC_VISIBILITY aclError aclblasGemvEx(aclTransType transA, int m, int n, const void *alpha, const void *a,
                                           int lda, aclDataType dataTypeA, const void *x, int incx,
                                           aclDataType dataTypeX, const void *beta, void *y, int incy,
                                           aclDataType dataTypeY, aclComputeType type, aclrtStream stream);

/* CANN prepares a single-operator handle for aclopExecWithHandle here.
 * openacl has no single-operator handles: after the same argument checks as
 * the compute call, it returns ACL_ERROR_FEATURE_UNSUPPORTED and leaves
 * *handle untouched. Call aclblasGemvEx directly instead (it keeps its own
 * prepared computations, so repeated calls are cheap). Same for every
 * aclblasCreateHandleFor* below. */
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n, aclDataType dataTypeA,
                                                          aclDataType dataTypeX, aclDataType dataTypeY,
                                                          aclComputeType type, aclopHandle **handle);

/* aclblasGemvEx with fp16 A, x, y, alpha and beta. */
ACL_FUNC_VISIBILITY aclError aclblasHgemv(aclTransType transA, int m, int n, const aclFloat16 *alpha,
                                          const aclFloat16 *a, int lda, const aclFloat16 *x, int incx,
                                          const aclFloat16 *beta, aclFloat16 *y, int incy, aclComputeType type,
                                          aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n, aclComputeType type,
                                                         aclopHandle **handle);

/* aclblasGemvEx with int8 A and x, int32 y, alpha and beta (exact int32
 * arithmetic, wrapping on overflow). */
ACL_FUNC_VISIBILITY aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t *alpha, const int8_t *a,
                                           int lda, const int8_t *x, int incx, const int32_t *beta, int32_t *y,
                                           int incy, aclComputeType type, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n, aclComputeType type,
                                                          aclopHandle **handle);

/* C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n.
 * transC must be ACL_TRANS_N. */
ACL_FUNC_VISIBILITY aclError aclblasGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                           int n, int k, const void *alpha, const void *matrixA, int lda,
                                           aclDataType dataTypeA, const void *matrixB, int ldb,
                                           aclDataType dataTypeB, const void *beta, void *matrixC, int ldc,
                                           aclDataType dataTypeC, aclComputeType type, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclDataType dataTypeA, aclDataType dataTypeB,
                                                          aclDataType dataTypeC, aclComputeType type,
                                                          aclopHandle **handle);

/* aclblasGemmEx with fp16 A, B, C, alpha and beta. */
ACL_FUNC_VISIBILITY aclError aclblasHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                          int n, int k, const aclFloat16 *alpha, const aclFloat16 *matrixA, int lda,
                                          const aclFloat16 *matrixB, int ldb, const aclFloat16 *beta,
                                          aclFloat16 *matrixC, int ldc, aclComputeType type, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB,
                                                         aclTransType transC, int m, int n, int k,
                                                         aclComputeType type, aclopHandle **handle);

/* aclblasGemmEx with int8 A and B, int32 C, alpha and beta (exact int32
 * arithmetic, wrapping on overflow). */
ACL_FUNC_VISIBILITY aclError aclblasS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                           int n, int k, const int32_t *alpha, const int8_t *matrixA, int lda,
                                           const int8_t *matrixB, int ldb, const int32_t *beta, int32_t *matrixC,
                                           int ldc, aclComputeType type, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclComputeType type, aclopHandle **handle);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_ */
