/* Every argument error of the aclblas calls: the documented code, a message
 * naming the call and the bad value, and nothing queued (C unchanged after
 * the stream is synchronised). Also before aclInit, and the create-handle
 * calls' answers. */
#include "cb_test.h"

#define HP ACL_COMPUTE_HIGH_PRECISION
#define N_ ACL_TRANS_N
enum { M = 7, N = 5, K = 3 };

static void *g_a, *g_b, *g_c, *g_al, *g_be;   /* fp16 A, B, C and scalars */
static void *g_a8, *g_b8, *g_c32, *g_al32, *g_be32; /* int8 A, B, int32 C and scalars */
static unsigned char g_c_before[M * N * 4];

static aclError gemm(aclTransType ta, aclTransType tb, aclTransType tc, int m, int n, int k, const void *al,
                     const void *a, int lda, aclDataType da, const void *b, int ldb, aclDataType db, const void *be,
                     void *c, int ldc, aclDataType dc, aclComputeType type, aclrtStream s)
{
    return aclblasGemmEx(ta, tb, tc, m, n, k, al, a, lda, da, b, ldb, db, be, c, ldc, dc, type, s);
}

/* The fp16 C buffer still holds what it held: nothing ran. */
static void c_unchanged(int line)
{
    OK(aclrtSynchronizeStream(NULL));
    unsigned char now[M * N * 2];
    OK(aclrtMemcpy(now, sizeof(now), g_c, sizeof(now), ACL_MEMCPY_DEVICE_TO_HOST));
    if (memcmp(now, g_c_before, sizeof(now)) != 0) {
        fprintf(stderr, "line %d: C changed after a refused call\n", line);
        g_failures++;
    }
}
#define UNCHANGED() c_unchanged(__LINE__)

static void before_init(void)
{
    unsigned char h[64] = {0};
    aclopHandle *hd = NULL;
    FAILS(aclblasGemmEx(N_, N_, N_, 1, 1, 1, h, h, -1, ACL_FLOAT16, h, -1, ACL_FLOAT16, h, h, -1, ACL_FLOAT16, HP,
                        NULL), ACL_ERROR_UNINITIALIZE, "aclblasGemmEx");
    FAILS(aclblasHgemm(N_, N_, N_, 1, 1, 1, (aclFloat16 *)h, (aclFloat16 *)h, -1, (aclFloat16 *)h, -1,
                       (aclFloat16 *)h, (aclFloat16 *)h, -1, HP, NULL), ACL_ERROR_UNINITIALIZE, "aclblasHgemm");
    FAILS(aclblasS8gemv(N_, 1, 1, (int32_t *)h, (int8_t *)h, -1, (int8_t *)h, -1, (int32_t *)h, (int32_t *)h, -1, HP,
                        NULL), ACL_ERROR_UNINITIALIZE, "aclblasS8gemv");
    FAILS(aclblasCreateHandleForGemmEx(N_, N_, N_, 1, 1, 1, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, HP, &hd),
          ACL_ERROR_UNINITIALIZE, "aclblasCreateHandleForGemmEx");
    FAILS(aclopSetModelDir("op_models"), ACL_ERROR_UNINITIALIZE, "aclopSetModelDir");
}

static void shapes_and_flags(void)
{
    const aclDataType H = ACL_FLOAT16;
    FAILS(gemm(N_, N_, N_, 0, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "m = 0");
    FAILS(gemm(N_, N_, N_, M, -1, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "n = -1");
    FAILS(gemm(N_, N_, N_, M, N, 0, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "k = 0");
    FAILS(aclblasGemvEx(N_, M, 0, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "n = 0");
    FAILS(gemm(ACL_TRANS_NZ, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_FEATURE_UNSUPPORTED, "transA is ACL_TRANS_NZ");
    FAILS(gemm(N_, ACL_TRANS_NZ, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_FEATURE_UNSUPPORTED, "transB is ACL_TRANS_NZ");
    FAILS(gemm(ACL_TRANS_NZ_T, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "transA is 3");
    FAILS(gemm(N_, (aclTransType)9, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "transB is 9");
    FAILS(gemm(N_, N_, ACL_TRANS_T, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "transC is 1");
    FAILS(gemm(N_, N_, ACL_TRANS_NZ, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_FEATURE_UNSUPPORTED, "transC is ACL_TRANS_NZ");
    FAILS(aclblasHgemv((aclTransType)-1, M, K, g_al, g_a, -1, g_b, -1, g_be, g_c, -1, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "transA is -1");
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, K, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "lda is 3");
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, N, H, g_be, g_c, -1, H, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "ldb is 5");
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, 0, H, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "ldc is 0");
    FAILS(aclblasHgemv(N_, M, K, g_al, g_a, -1, g_b, 1, g_be, g_c, -1, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "incx is 1");
    FAILS(aclblasS8gemv(N_, M, K, g_al32, g_a8, -1, g_b8, -1, g_be32, g_c32, 2, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "incy is 2");
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, ACL_COMPUTE_LOW_PRECISION, NULL),
          ACL_ERROR_INVALID_PARAM, "type is 1");
    FAILS(aclblasS8gemm(N_, N_, N_, M, N, K, g_al32, g_a8, -1, g_b8, -1, g_be32, g_c32, -1, (aclComputeType)5, NULL),
          ACL_ERROR_INVALID_PARAM, "type is 5");
    UNCHANGED();
}

static void types(void)
{
    static const aclDataType bad[][3] = {
        {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},   {ACL_FLOAT16, ACL_FLOAT16, ACL_INT32}, {ACL_INT8, ACL_INT8, ACL_FLOAT16},
        {ACL_FLOAT16, ACL_INT8, ACL_FLOAT},  {ACL_INT8, ACL_FLOAT16, ACL_FLOAT},   {ACL_INT32, ACL_INT32, ACL_INT32},
        {ACL_BF16, ACL_BF16, ACL_FLOAT},     {ACL_INT8, ACL_INT8, ACL_INT8}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, bad[i][0], g_b, -1, bad[i][1], g_be, g_c, -1, bad[i][2], HP,
                   NULL), ACL_ERROR_UNSUPPORTED_DATA_TYPE, "not a supported combination");
        FAILS(aclblasGemvEx(N_, M, K, g_al, g_a, -1, bad[i][0], g_b, -1, bad[i][1], g_be, g_c, -1, bad[i][2], HP,
                            NULL), ACL_ERROR_UNSUPPORTED_DATA_TYPE, "aclblasGemvEx: dataTypeA");
    }
    UNCHANGED();
}

static void pointers(void)
{
    const aclDataType H = ACL_FLOAT16;
    FAILS(gemm(N_, N_, N_, M, N, K, NULL, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "alpha is NULL");
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, NULL, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "matrixA is NULL");
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, NULL, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "matrixB is NULL");
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, NULL, g_c, -1, H, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "beta is NULL");
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, NULL, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "matrixC is NULL");
    FAILS(aclblasHgemv(N_, M, K, g_al, g_a, -1, NULL, -1, g_be, g_c, -1, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "x is NULL");
    FAILS(aclblasS8gemv(N_, M, K, g_al32, g_a8, -1, g_b8, -1, g_be32, NULL, -1, HP, NULL), ACL_ERROR_INVALID_PARAM,
          "y is NULL");

    /* pageable host memory, page-locked host memory */
    aclFloat16 host[M * K];
    memset(host, 0, sizeof(host));
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, host, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "not memory of the runtime");
    void *pinned = NULL;
    OK(aclrtMallocHost(&pinned, 4096));
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, pinned, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "host memory from aclrtMallocHost");
    FAILS(aclblasHgemm(N_, N_, N_, M, N, K, pinned, g_a, -1, g_b, -1, g_be, g_c, -1, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "alpha");
    OK(aclrtFreeHost(pinned));

    /* too small: C of fp16 7x5 is 70 bytes, as fp32 it needs 140 (g_c holds 140 exactly) */
    FAILS(gemm(N_, N_, N_, M + 1, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, ACL_FLOAT, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "run past the end");
    /* an address inside an allocation whose shape runs past its end */
    FAILS(gemm(N_, N_, N_, M, N, K, g_al, (char *)g_a + 2, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "matrixA");
    /* a 4-byte allocation as the 3 x 5 int8 B */
    FAILS(gemm(N_, ACL_TRANS_T, N_, M, N, K, g_al32, g_a8, -1, ACL_INT8, g_be32, -1, ACL_INT8, g_al32, g_c32, -1,
               ACL_INT32, HP, NULL), ACL_ERROR_INVALID_PARAM, "matrixB");
    /* the int32 scalar needs 4 bytes of the right type: an fp16 scalar buffer of 2 bytes is too small */
    void *two = NULL;
    OK(aclrtMalloc(&two, 2, ACL_MEM_MALLOC_HUGE_FIRST));
    FAILS(aclblasS8gemm(N_, N_, N_, M, N, K, g_al32, g_a8, -1, g_b8, -1, two, g_c32, -1, HP, NULL),
          ACL_ERROR_INVALID_PARAM, "beta");
    OK(aclrtFree(two));

    /* memory of the other device */
    uint32_t ndev = 0;
    OK(aclrtGetDeviceCount(&ndev));
    if (ndev > 1) {
        OK(aclrtSetDevice(1));
        void *other = NULL;
        OK(aclrtMalloc(&other, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtSetDevice(0));
        FAILS(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, other, -1, H, HP, NULL),
              ACL_ERROR_INVALID_PARAM, "memory of device 1");
        OK(aclrtSetDevice(1));
        OK(aclrtFree(other));
        OK(aclrtResetDevice(1));
        OK(aclrtSetDevice(0));
    }

    /* a destroyed stream */
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    OK(aclrtDestroyStream(s));
    aclError rc = gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, H, g_b, -1, H, g_be, g_c, -1, H, HP, s);
    CHECK(rc != ACL_SUCCESS);
    MSG_NAMES("aclblasGemmEx");
    UNCHANGED();
}

static void handles(void)
{
    aclopHandle *h = (aclopHandle *)(uintptr_t)0x1234;
    FAILS(aclblasCreateHandleForGemmEx(N_, N_, N_, M, N, K, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT, HP, &h),
          ACL_ERROR_FEATURE_UNSUPPORTED, "aclblasCreateHandleForGemmEx: not supported by openacl: it has no single-operator handles");
    CHECK(h == (aclopHandle *)(uintptr_t)0x1234);
    FAILS(aclblasCreateHandleForHgemm(N_, N_, N_, M, N, K, HP, &h), ACL_ERROR_FEATURE_UNSUPPORTED,
          "aclblasCreateHandleForHgemm");
    FAILS(aclblasCreateHandleForS8gemm(N_, N_, N_, M, N, K, HP, &h), ACL_ERROR_FEATURE_UNSUPPORTED,
          "aclblasCreateHandleForS8gemm");
    FAILS(aclblasCreateHandleForGemvEx(N_, M, K, ACL_INT8, ACL_INT8, ACL_FLOAT, HP, &h), ACL_ERROR_FEATURE_UNSUPPORTED,
          "aclblasCreateHandleForGemvEx");
    FAILS(aclblasCreateHandleForHgemv(ACL_TRANS_T, M, K, HP, &h), ACL_ERROR_FEATURE_UNSUPPORTED,
          "aclblasCreateHandleForHgemv");
    FAILS(aclblasCreateHandleForS8gemv(N_, M, K, HP, &h), ACL_ERROR_FEATURE_UNSUPPORTED,
          "aclblasCreateHandleForS8gemv");
    /* argument errors come first, as in the compute calls */
    FAILS(aclblasCreateHandleForHgemm(N_, N_, N_, M, N, K, HP, NULL), ACL_ERROR_INVALID_PARAM, "handle is NULL");
    FAILS(aclblasCreateHandleForS8gemv(N_, 0, K, HP, &h), ACL_ERROR_INVALID_PARAM, "m = 0");
    FAILS(aclblasCreateHandleForGemmEx(N_, N_, N_, M, N, K, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, HP, &h),
          ACL_ERROR_UNSUPPORTED_DATA_TYPE, "ACL_FLOAT");
    FAILS(aclblasCreateHandleForHgemv(ACL_TRANS_NZ, M, K, HP, &h), ACL_ERROR_FEATURE_UNSUPPORTED, "ACL_TRANS_NZ");
    FAILS(aclblasCreateHandleForS8gemm(N_, N_, N_, M, N, K, ACL_COMPUTE_LOW_PRECISION, &h), ACL_ERROR_INVALID_PARAM,
          "type is 1");
    CHECK(h == (aclopHandle *)(uintptr_t)0x1234);
}

int main(void)
{
    before_init();
    cb_setup();
    FAILS(aclopSetModelDir(NULL), ACL_ERROR_INVALID_PARAM, "aclopSetModelDir: modelDir is NULL");
    OK(aclopSetModelDir("op_models")); /* need not exist: openacl needs no operator models */

    void *h16 = rand_fill(ACL_FLOAT16, M * N * 2), *h8 = rand_fill(ACL_INT8, 64);
    g_a = to_dev(h16, M * K * 2);
    g_b = to_dev(h16, K * N * 2);
    g_c = to_dev(h16, M * N * 4); /* fp16 C, also big enough for fp32 7 x 5 */
    memcpy(g_c_before, h16, M * N * 2);
    g_al = dev_scalar(ACL_FLOAT16, 1.0);
    g_be = dev_scalar(ACL_FLOAT16, 0.0);
    g_a8 = to_dev(h8, M * K);
    g_b8 = to_dev(h8, K * N);
    g_c32 = to_dev(NULL, M * N * 4);
    g_al32 = dev_scalar(ACL_INT32, 1);
    g_be32 = dev_scalar(ACL_INT32, 0);
    shapes_and_flags();
    types();
    pointers();
    handles();
    /* the fixtures themselves are valid: the same calls succeed */
    OK(gemm(N_, N_, N_, M, N, K, g_al, g_a, -1, ACL_FLOAT16, g_b, -1, ACL_FLOAT16, g_be, g_c, -1, ACL_FLOAT16, HP,
            NULL));
    OK(gemm(N_, ACL_TRANS_T, N_, M, N, K, g_al32, g_a8, -1, ACL_INT8, g_b8, -1, ACL_INT8, g_be32, g_c32, -1, ACL_INT32,
            HP, NULL));
    OK(aclblasS8gemv(N_, M, K, g_al32, g_a8, -1, g_b8, -1, g_be32, g_c32, -1, HP, NULL));
    OK(aclrtSynchronizeStream(NULL));
    void *bufs[] = {g_a, g_b, g_c, g_al, g_be, g_a8, g_b8, g_c32, g_al32, g_be32};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) OK(aclrtFree(bufs[i]));
    free(h16), free(h8);
    cb_teardown();
    TEST_DONE();
}
