/* dn_silu_f32_fast (kernels/dnnl/dn_silu.c), the bf16-grade SiLU pass over
 * float32 outputs of convolutions computed in bfloat16: every value from -100
 * to 100 in fine steps, the extremes, infinities and a vector tail, against
 * x/(1+e^-x) in double (2e-4 relative, a tenth of a bf16 ulp's worth of
 * slack above the pass's own error), on one and two threads, in the
 * reciprocal and the division forms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dn_silu_f32_fast(float *y, size_t n, int threads, int div);

int main(void)
{
    int failures = 0;
    const size_t n = 300001 + 9;
    float *y = malloc(n * sizeof *y), *x = malloc(n * sizeof *x);
    if (!y || !x) return 1;
    for (int run = 0; run < 4; run++) {
        int threads = 1 + (run & 1), div = run >> 1;
        for (size_t i = 0; i < n; i++) x[i] = y[i] = -100.0f + 200.0f * (float)i / (float)(n - 10);
        /* specials inside the vector body, not only in the scalar tail */
        x[17] = y[17] = INFINITY;
        x[18] = y[18] = -INFINITY;
        x[19] = y[19] = 1e30f;
        x[20] = y[20] = 0.0f;
        x[n - 1] = y[n - 1] = 3.0f;
        dn_silu_f32_fast(y, n, threads, div);
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double xv = x[i], want = isinf(xv) ? (xv > 0 ? xv : 0.0) : xv / (1.0 + exp(-xv));
            double err = isinf(want) ? (y[i] == want ? 0 : 1) : fabs((double)y[i] - want);
            if (xv == -INFINITY && (y[i] != y[i] || y[i] == 0.0f)) err = 0;   /* NaN as -inf/(1+inf), or the limit 0 */
            /* values under e^-87 are denormal-sized: absolute slack */
            if (!(err <= 2e-4 * fabs(want) + 1e-30) && failures < 5) {
                printf("FAIL threads %d div %d: silu(%g) = %g, expected %g\n", threads, div, xv, y[i], want);
                failures++;
            }
            if (!isinf(want) && fabs(want) > 1e-30 && err / fabs(want) > worst) worst = err / fabs(want);
        }
        printf("threads %d, division form %d: worst relative error %.3g\n", threads, div, worst);
    }
    free(x);
    free(y);
    return failures ? 1 : 0;
}
