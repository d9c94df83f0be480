/* dn_silu_f32 (kernels/dnnl/dn_silu.c), the fast pass behind convolutions
 * whose fused chain ends in SiLU: every value from -100 to 100 in fine
 * steps, the extremes and an odd length (vector tail), against x/(1+e^-x)
 * in double, on one and two threads; and the bfloat16 variant over every
 * bf16 value in [-100, 100] (and a length ending in 16-value and scalar
 * tails); each in the reciprocal and the division forms. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dn_silu_f32(float *y, size_t n, int threads, int div);
void dn_silu_bf16(uint16_t *y, size_t n, int threads, int div);

static float bf16_to_f(uint16_t v)
{
    uint32_t u = (uint32_t)v << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

int main(void)
{
    int failures = 0;
    const size_t n = 200001 + 7;
    float *y = malloc(n * sizeof *y), *x = malloc(n * sizeof *x);
    for (int run = 0; run < 4; run++) {
        int threads = 1 + (run & 1), div = run >> 1;
        for (size_t i = 0; i < n; i++) x[i] = y[i] = -100.0f + 200.0f * (float)i / (float)(n - 8);
        x[n - 1] = y[n - 1] = 1e30f;
        x[n - 2] = y[n - 2] = -1e30f;
        x[n - 3] = y[n - 3] = 0.0f;
        dn_silu_f32(y, n, threads, div);
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double want = (double)x[i] / (1.0 + exp(-(double)x[i]));
            /* below e^-87 the result is a denormal-sized -0: absolute slack */
            double err = fabs((double)y[i] - want), tol = 1e-6 * fabs(want) + 1e-35;
            if (!(err <= tol) && failures < 5) {
                printf("FAIL threads %d div %d: silu(%g) = %g, expected %g\n", threads, div, x[i], y[i], want);
                failures++;
            }
            if (fabs(want) > 1e-35 && err / fabs(want) > worst) worst = err / fabs(want);
        }
        printf("threads %d, division form %d: worst relative error %.3g\n", threads, div, worst);
    }
    /* bfloat16: every finite bf16 value in [-100, 100]; within one bf16 ulp
     * of the exact result (rounding to nearest even of a 3e-7-close value) */
    uint16_t *h = malloc(65536 * sizeof *h), *h0 = malloc(65536 * sizeof *h0);
    size_t m = 0;
    for (uint32_t v = 0; v < 65536; v++) {
        float f = bf16_to_f((uint16_t)v);
        if (f == f && fabsf(f) <= 100.0f) h0[m++] = (uint16_t)v;
    }
    for (int run = 0; run < 8; run++) {
        /* the whole set, and a length that leaves 16-value and scalar tails
         * after the 32-value steps (27 = 16 + 11) */
        int threads = 1 + (run & 1), div = (run >> 1) & 1;
        size_t len = run >> 2 ? m - (m % 32) - 32 + 27 : m;
        memcpy(h, h0, m * sizeof *h);
        dn_silu_bf16(h, len, threads, div);
        for (size_t i = len; i < m; i++)
            if (h[i] != h0[i] && failures < 10) {
                printf("FAIL bf16 threads %d div %d: value %zu past the length %zu changed\n", threads, div, i, len);
                failures++;
            }
        for (size_t i = 0; i < len; i++) {
            double xv = bf16_to_f(h0[i]), want = xv / (1.0 + exp(-xv)), got = bf16_to_f(h[i]);
            if (!(fabs(got - want) <= fabs(want) * (1.0 / 128) + 1e-35) && failures < 10) {
                printf("FAIL bf16 threads %d div %d: silu(%g) = %g, expected %g\n", threads, div, xv, got, want);
                failures++;
            }
        }
    }
    printf("bf16: %zu values checked\n", m);
    free(h);
    free(h0);
    free(x);
    free(y);
    return failures ? 1 : 0;
}
