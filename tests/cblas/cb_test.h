/* Shared pieces of the cblas tests: device buffers filled from host data, a
 * plain C reference product (double accumulation, int32 wrapping like
 * numpy) and the tolerance rule. Uses tests/rt/rt_test.h's CHECK macros. */
#ifndef OPENACL_CB_TEST_H
#define OPENACL_CB_TEST_H
#include <math.h>
#include <stdint.h>

#include "acl/ops/acl_cblas.h"
#include "rt_test.h"

static uint32_t g_seed = 12345u;
static inline uint32_t rnd(void)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed >> 8;
}

static inline size_t dt_size(aclDataType t) { return aclDataTypeSize(t); }

/* n random elements of type t: fp16 in [-1, 1], int8 over its whole range,
 * fp32 in [-2, 2], int32 in [-1000, 1000]. */
static inline void *rand_fill(aclDataType t, size_t n)
{
    void *p = malloc(n * dt_size(t) + 1);
    for (size_t i = 0; i < n; i++) {
        switch (t) {
        case ACL_FLOAT16: ((aclFloat16 *)p)[i] = aclFloatToFloat16((float)((int)(rnd() % 2049) - 1024) / 1024.0f); break;
        case ACL_INT8: ((int8_t *)p)[i] = (int8_t)(int)(rnd() % 256 - 128); break;
        case ACL_FLOAT: ((float *)p)[i] = (float)((int)(rnd() % 4001) - 2000) / 1000.0f; break;
        case ACL_INT32: ((int32_t *)p)[i] = (int32_t)(rnd() % 2001) - 1000; break;
        default: break;
        }
    }
    return p;
}

static inline double get_d(const void *p, aclDataType t, size_t i)
{
    switch (t) {
    case ACL_FLOAT16: return aclFloat16ToFloat(((const aclFloat16 *)p)[i]);
    case ACL_INT8: return ((const int8_t *)p)[i];
    case ACL_FLOAT: return ((const float *)p)[i];
    case ACL_INT32: return ((const int32_t *)p)[i];
    default: return 0;
    }
}

/* Device copy of host data (freed with aclrtFree). */
static inline void *to_dev(const void *host, size_t bytes)
{
    void *d = NULL;
    OK(aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    if (d && host) OK(aclrtMemcpy(d, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    return d;
}

static inline void *from_dev(const void *dev, size_t bytes)
{
    void *h = malloc(bytes);
    OK(aclrtMemcpy(h, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    return h;
}

/* ref = alpha * op(A) op(B) + beta * C0 for row-major buffers; returns in
 * *ref (double) and *bound the error allowed for the computed type. */
static inline void ref_gemm(int m, int n, int k, int ta, int tb, const void *a, const void *b, aclDataType tab,
                     const void *c0, aclDataType tc, double alpha, double beta, double *ref, double *bound)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0, sa = 0;
            int64_t si = 0;
            for (int p = 0; p < k; p++) {
                double x = get_d(a, tab, ta ? (size_t)p * m + i : (size_t)i * k + p);
                double y = get_d(b, tab, tb ? (size_t)j * k + p : (size_t)p * n + j);
                s += x * y;
                sa += fabs(x * y);
                si += (int64_t)x * (int64_t)y;
            }
            size_t o = (size_t)i * n + j;
            double c = get_d(c0, tc, o);
            if (tc == ACL_INT32) {
                uint32_t v = (uint32_t)(int32_t)alpha * (uint32_t)si + (uint32_t)(int32_t)beta * (uint32_t)(int32_t)c;
                ref[o] = (int32_t)v;
                bound[o] = 0;
                continue;
            }
            ref[o] = alpha * s + (beta != 0 ? beta * c : 0);
            /* fp32 accumulation over k terms, then the scale and the sum */
            double mag = fabs(alpha) * sa + (beta != 0 ? fabs(beta * c) : 0);
            bound[o] = mag * 1e-6 * (k + 4) / 4 + 1e-30;
            if (tc == ACL_FLOAT16) bound[o] += fabs(ref[o]) * (1.0 / 2048) + 6.0e-8; /* one fp16 rounding */
        }
}

/* Compares C (type tc) with the reference; returns the largest error seen
 * relative to the allowed bound, prints the first mismatch. */
static inline double cmp_out(const char *what, const void *c, aclDataType tc, const double *ref, const double *bound,
                      size_t count)
{
    double worst = 0;
    int printed = 0;
    for (size_t i = 0; i < count; i++) {
        double got = get_d(c, tc, i), err = fabs(got - ref[i]);
        if (!(err <= bound[i])) {
            if (!printed++)
                fprintf(stderr, "%s: element %zu: got %.9g, expected %.9g (allowed error %.3g)\n", what, i, got,
                        ref[i], bound[i]);
            g_failures++;
        }
        if (bound[i] > 0 && err / bound[i] > worst) worst = err / bound[i];
    }
    return worst;
}

/* One device scalar of type t holding v. */
static inline void *dev_scalar(aclDataType t, double v)
{
    unsigned char h[4] = {0};
    if (t == ACL_FLOAT16) {
        aclFloat16 x = aclFloatToFloat16((float)v);
        memcpy(h, &x, 2);
    } else if (t == ACL_FLOAT) {
        float x = (float)v;
        memcpy(h, &x, 4);
    } else {
        int32_t x = (int32_t)v;
        memcpy(h, &x, 4);
    }
    return to_dev(h, dt_size(t));
}

static inline void cb_setup(void)
{
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
}

static inline void cb_teardown(void)
{
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
}
#endif
