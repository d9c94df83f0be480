/* dn_silu_f32 (kernels/dnnl/dn_silu.c), the fast pass behind convolutions
 * whose fused chain ends in SiLU: every value from -100 to 100 in fine
 * steps, the extremes and an odd length (vector tail), against x/(1+e^-x)
 * in double, on one and two threads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dn_silu_f32(float *y, size_t n, int threads);

int main(void)
{
    int failures = 0;
    const size_t n = 200001 + 7;
    float *y = malloc(n * sizeof *y), *x = malloc(n * sizeof *x);
    for (int threads = 1; threads <= 2; threads++) {
        for (size_t i = 0; i < n; i++) x[i] = y[i] = -100.0f + 200.0f * (float)i / (float)(n - 8);
        x[n - 1] = y[n - 1] = 1e30f;
        x[n - 2] = y[n - 2] = -1e30f;
        x[n - 3] = y[n - 3] = 0.0f;
        dn_silu_f32(y, n, threads);
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double want = (double)x[i] / (1.0 + exp(-(double)x[i]));
            /* below e^-87 the result is a denormal-sized -0: absolute slack */
            double err = fabs((double)y[i] - want), tol = 1e-6 * fabs(want) + 1e-35;
            if (!(err <= tol) && failures < 5) {
                printf("FAIL threads %d: silu(%g) = %g, expected %g\n", threads, x[i], y[i], want);
                failures++;
            }
            if (fabs(want) > 1e-35 && err / fabs(want) > worst) worst = err / fabs(want);
        }
        printf("threads %d: worst relative error %.3g\n", threads, worst);
    }
    free(x);
    free(y);
    return failures ? 1 : 0;
}
