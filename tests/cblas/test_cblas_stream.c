/* The aclblas calls as stream tasks: ordered with asynchronous copies before
 * and after them, with each other (one product's output is the next one's
 * input) and with a scalar rewritten between two calls (alpha is read when
 * the task runs); four threads with a stream each running the same shapes
 * at once (the shared table of prepared computations); a program shaped
 * like CANN's GEMM sample (aclopSetModelDir, fp16 16 x 16 x 16, alpha 2,
 * beta 1, synchronize, copy back). */
#include <pthread.h>

#include "cb_test.h"

#define HP ACL_COMPUTE_HIGH_PRECISION
#define TN ACL_TRANS_N

static void *pinned_copy(const void *src, size_t bytes)
{
    void *p = NULL;
    OK(aclrtMallocHost(&p, bytes));
    if (p && src) memcpy(p, src, bytes);
    return p;
}

static void *dev_alloc(size_t bytes)
{
    void *d = NULL;
    OK(aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    return d;
}

/* copy in -> C1 = A B -> C2 = 0.5 * C1 B2 + C2 -> copy out, no synchronisation in between */
static void ordering(void)
{
    enum { M = 33, K = 7, N = 257, P = 33 };
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    void *ha = rand_fill(ACL_FLOAT16, M * K), *hb = rand_fill(ACL_FLOAT16, K * N), *hb2 = rand_fill(ACL_FLOAT16, N * P),
         *hc2 = rand_fill(ACL_FLOAT16, M * P);
    /* asynchronous copies take 64-byte aligned addresses: one pinned buffer per scalar */
    aclFloat16 s1 = aclFloatToFloat16(1.0f), s0 = aclFloatToFloat16(0.0f), sh = aclFloatToFloat16(0.5f);
    void *pa = pinned_copy(ha, M * K * 2), *pb = pinned_copy(hb, K * N * 2), *pb2 = pinned_copy(hb2, N * P * 2),
         *pc2 = pinned_copy(hc2, M * P * 2), *psc = pinned_copy(&s1, 2), *ps0 = pinned_copy(&s0, 2),
         *psh = pinned_copy(&sh, 2);
    void *o1 = pinned_copy(NULL, M * N * 2), *o2 = pinned_copy(NULL, M * P * 2);
    void *da = dev_alloc(M * K * 2), *db = dev_alloc(K * N * 2), *db2 = dev_alloc(N * P * 2), *dc1 = dev_alloc(M * N * 2),
         *dc2 = dev_alloc(M * P * 2), *one = dev_alloc(2), *zero = dev_alloc(2), *half = dev_alloc(2);
    OK(aclrtMemcpyAsync(da, M * K * 2, pa, M * K * 2, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(db, K * N * 2, pb, K * N * 2, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(db2, N * P * 2, pb2, N * P * 2, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(dc2, M * P * 2, pc2, M * P * 2, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(one, 2, psc, 2, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(zero, 2, ps0, 2, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(half, 2, psh, 2, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclblasHgemm(TN, TN, TN, M, N, K, one, da, -1, db, -1, zero, dc1, -1, HP, s));
    OK(aclblasHgemm(TN, TN, TN, M, P, N, half, dc1, -1, db2, -1, one, dc2, -1, HP, s));
    OK(aclrtMemcpyAsync(o1, M * N * 2, dc1, M * N * 2, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtMemcpyAsync(o2, M * P * 2, dc2, M * P * 2, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtSynchronizeStream(s));

    double *ref = malloc(sizeof(double) * M * N), *bound = malloc(sizeof(double) * M * N);
    ref_gemm(M, N, K, 0, 0, ha, hb, ACL_FLOAT16, o1, ACL_FLOAT16, 1.0, 0.0, ref, bound);
    cmp_out("ordering: C1", o1, ACL_FLOAT16, ref, bound, M * N);
    /* the second product from the first one's fp16 result, as the device saw it */
    double *ref2 = malloc(sizeof(double) * M * P), *bound2 = malloc(sizeof(double) * M * P);
    ref_gemm(M, P, N, 0, 0, o1, hb2, ACL_FLOAT16, hc2, ACL_FLOAT16, 0.5, 1.0, ref2, bound2);
    cmp_out("ordering: C2", o2, ACL_FLOAT16, ref2, bound2, M * P);

    /* alpha rewritten on the stream between two calls into two outputs */
    float fa1 = 1.0f, fa3 = 3.0f, fz = 0.0f;
    void *pfa = pinned_copy(&fa1, 4), *pfa3 = pinned_copy(&fa3, 4), *pfz = pinned_copy(&fz, 4);
    void *dal = dev_alloc(4), *dz = dev_alloc(4), *r1 = dev_alloc(M * N * 4), *r2 = dev_alloc(M * N * 4);
    void *h1 = pinned_copy(NULL, M * N * 4), *h2 = pinned_copy(NULL, M * N * 4);
    OK(aclrtMemcpyAsync(dz, 4, pfz, 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(dal, 4, pfa, 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclblasGemmEx(TN, TN, TN, M, N, K, dal, da, -1, ACL_FLOAT16, db, -1, ACL_FLOAT16, dz, r1, -1, ACL_FLOAT, HP, s));
    OK(aclrtMemcpyAsync(dal, 4, pfa3, 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclblasGemmEx(TN, TN, TN, M, N, K, dal, da, -1, ACL_FLOAT16, db, -1, ACL_FLOAT16, dz, r2, -1, ACL_FLOAT, HP, s));
    OK(aclrtMemcpyAsync(h1, M * N * 4, r1, M * N * 4, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtMemcpyAsync(h2, M * N * 4, r2, M * N * 4, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtSynchronizeStream(s));
    int bad = 0;
    for (int i = 0; i < M * N; i++) bad += ((float *)h2)[i] != 3.0f * ((float *)h1)[i];
    CHECK_EQ_INT(bad, 0);
    ref_gemm(M, N, K, 0, 0, ha, hb, ACL_FLOAT16, h1, ACL_FLOAT, 1.0, 0.0, ref, bound);
    cmp_out("alpha on the stream: first call", h1, ACL_FLOAT, ref, bound, M * N);

    void *pins[] = {pa, pb, pb2, pc2, psc, ps0, psh, o1, o2, pfa, pfa3, pfz, h1, h2};
    for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) OK(aclrtFreeHost(pins[i]));
    void *devs[] = {da, db, db2, dc1, dc2, one, zero, half, dal, dz, r1, r2};
    for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) OK(aclrtFree(devs[i]));
    free(ha), free(hb), free(hb2), free(hc2), free(ref), free(bound), free(ref2), free(bound2);
    OK(aclrtDestroyStream(s));
}

/* ---- four threads, a stream each, the same shapes ---- */
typedef struct worker {
    aclrtContext ctx;
    int id, failures;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    enum { M = 33, N = 7, K = 257, ROUNDS = 8 };
    if (aclrtSetCurrentContext(w->ctx) != ACL_SUCCESS) {
        w->failures++;
        return NULL;
    }
    aclrtStream s = NULL;
    if (aclrtCreateStream(&s) != ACL_SUCCESS) {
        w->failures++;
        return NULL;
    }
    void *ha = rand_fill(ACL_INT8, M * K), *hb = rand_fill(ACL_INT8, K * N);
    for (int i = 0; i < M * K; i++) ((int8_t *)ha)[i] = (int8_t)((i * 7 + w->id * 13) % 255 - 127);
    for (int i = 0; i < K * N; i++) ((int8_t *)hb)[i] = (int8_t)((i * 5 + w->id) % 255 - 127);
    int32_t sc[2] = {w->id + 1, 0};
    void *da = NULL, *db = NULL, *dc = NULL, *dsc = NULL;
    aclrtMalloc(&da, M * K, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&db, K * N, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dc, M * N * 4 * ROUNDS, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dsc, 8, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(da, M * K, ha, M * K, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(db, K * N, hb, K * N, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(dsc, 8, sc, 8, ACL_MEMCPY_HOST_TO_DEVICE);
    for (int r = 0; r < ROUNDS; r++)
        if (aclblasS8gemm(TN, TN, TN, M, N, K, dsc, da, -1, db, -1, (int32_t *)dsc + 1, (int32_t *)dc + r * M * N, -1,
                          HP, s) != ACL_SUCCESS)
            w->failures++;
    if (aclrtSynchronizeStream(s) != ACL_SUCCESS) w->failures++;
    int32_t *out = malloc(M * N * 4 * ROUNDS);
    aclrtMemcpy(out, M * N * 4 * ROUNDS, dc, M * N * 4 * ROUNDS, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int32_t acc = 0;
                for (int p = 0; p < K; p++) acc += ((int8_t *)ha)[i * K + p] * ((int8_t *)hb)[p * N + j];
                if (out[r * M * N + i * N + j] != acc * (w->id + 1)) w->failures++;
            }
    free(out), free(ha), free(hb);
    aclrtFree(da), aclrtFree(db), aclrtFree(dc), aclrtFree(dsc);
    aclrtDestroyStream(s);
    return NULL;
}

static void threads(void)
{
    worker w[4];
    pthread_t t[4];
    aclrtContext ctx = NULL;
    OK(aclrtGetCurrentContext(&ctx));
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){.ctx = ctx, .id = i, .failures = 0};
        CHECK(pthread_create(&t[i], NULL, worker_main, &w[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_INT(w[i].failures, 0);
    }
}

/* A program shaped like CANN's GEMM sample: blocking copies, the call on a
 * created stream, synchronize, copy back. */
static void sample_flow(void)
{
    enum { S = 16 };
    OK(aclopSetModelDir("op_models"));
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    void *ha = rand_fill(ACL_FLOAT16, S * S), *hb = rand_fill(ACL_FLOAT16, S * S), *hc = rand_fill(ACL_FLOAT16, S * S);
    void *da = to_dev(ha, S * S * 2), *db = to_dev(hb, S * S * 2), *dc = to_dev(hc, S * S * 2);
    void *dal = dev_scalar(ACL_FLOAT16, 2.0), *dbe = dev_scalar(ACL_FLOAT16, 1.0);
    OK(aclblasGemmEx(TN, TN, TN, S, S, S, dal, da, -1, ACL_FLOAT16, db, -1, ACL_FLOAT16, dbe, dc, -1, ACL_FLOAT16, HP,
                     s));
    OK(aclrtSynchronizeStream(s));
    void *out = from_dev(dc, S * S * 2);
    double ref[S * S], bound[S * S];
    ref_gemm(S, S, S, 0, 0, ha, hb, ACL_FLOAT16, hc, ACL_FLOAT16, 2.0, 1.0, ref, bound);
    cmp_out("sample flow", out, ACL_FLOAT16, ref, bound, S * S);
    void *devs[] = {da, db, dc, dal, dbe};
    for (int i = 0; i < 5; i++) OK(aclrtFree(devs[i]));
    free(ha), free(hb), free(hc), free(out);
    OK(aclrtDestroyStream(s));
}

int main(void)
{
    cb_setup();
    ordering();
    threads();
    sample_flow();
    cb_teardown();
    TEST_DONE();
}
