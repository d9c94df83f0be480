/* Bilinear scaling of 8-bit planes of 1, 2 or 4 interleaved channels, with
 * OpenCV's INTER_LINEAR geometry and rounding: the sample of output pixel x
 * is at (x + 0.5) * sw / dw - 0.5 (clamped to the picture), both weights
 * are 11-bit fixed point (INTER_RESIZE_COEF_BITS) and the result is rounded
 * once, (sum + 2^21) >> 22, like OpenCV's reference path (its SIMD path
 * truncates the vertical products to 16 bits first, so it can be 1 level
 * lower). Interleaved chroma pairs and RGBA pixels are scaled as they are,
 * with no split into planes.
 *
 * For each output row, the two source rows are blended over the used
 * columns into a 32-bit row (a loop the compiler vectorises), then each
 * output sample blends two neighbours of that row with the precomputed
 * column offsets and weights. */
#include <math.h>
#include <stdlib.h>

#include "dvpp/dvpp_priv.h"

#define COEF_BITS 11
#define COEF_ONE (1 << COEF_BITS)

/* Source index and weight of the right/lower neighbour for output i. */
static void coef(int i, double scale, int len, int *at, int *w1)
{
    float f = (float)((i + 0.5) * scale - 0.5);
    int s = (int)floorf(f);
    f -= (float)s;
    if (s < 0) s = 0, f = 0;
    if (s >= len - 1) s = len - 1, f = 0;
    *at = s;
    *w1 = (int)lrintf(f * COEF_ONE);
}

/* Vertical blend of n bytes of two rows. */
static inline void blend_rows(const uint8_t *restrict a, const uint8_t *restrict b, int n, int w0, int w1,
                              int32_t *restrict row)
{
    for (int i = 0; i < n; i++) row[i] = a[i] * w0 + b[i] * w1;
}

/* Horizontal pass of one row of cn-channel pixels; xo: element offset of
 * the left neighbour, xr: of the right one (the same at the right edge). */
static inline void blend_cols(const int32_t *restrict row, const int *restrict xo, const int *restrict xr,
                              const int16_t *restrict cw, int dw, int cn, uint8_t *restrict dst)
{
    for (int x = 0; x < dw; x++) {
        int l = xo[x], r = xr[x], w1 = cw[x], w0 = COEF_ONE - w1;
        for (int c = 0; c < cn; c++)
            dst[x * cn + c] = (uint8_t)((row[l + c] * w0 + row[r + c] * w1 + (1 << (2 * COEF_BITS - 1))) >>
                                        (2 * COEF_BITS));
    }
}

/* Both passes over the output rows; sy: vertical step; first: the first
 * source column used, used: the elements of a blended row. */
typedef struct {
    const uint8_t *src;
    uint8_t *dst;
    int ss, sh, ds, dw, dh, cn, first, used;
    double sy;
    int32_t *row;
    const int *xo, *xr;
    const int16_t *cw;
} job_t;

static inline void rows_cn(const job_t *j, int cn)
{
    for (int y = 0; y < j->dh; y++) {
        int at, w1;
        coef(y, j->sy, j->sh, &at, &w1);
        const uint8_t *a = j->src + (size_t)at * j->ss + (size_t)j->first * cn;
        const uint8_t *b = at + 1 < j->sh ? a + j->ss : a;
        blend_rows(a, b, j->used, COEF_ONE - w1, w1, j->row);
        blend_cols(j->row, j->xo, j->xr, j->cw, j->dw, cn, j->dst + (size_t)y * j->ds);
    }
}

static void rows_any(const job_t *j)
{
    if (j->cn == 1) rows_cn(j, 1);
    else if (j->cn == 2) rows_cn(j, 2);
    else rows_cn(j, 4);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
/* The same code built for AVX2 (32-bit multiplies 8 at a time, gathers),
 * taken when the processor has it. */
__attribute__((target("avx2"))) static void rows_avx2(const job_t *j)
{
    if (j->cn == 1) rows_cn(j, 1);
    else if (j->cn == 2) rows_cn(j, 2);
    else rows_cn(j, 4);
}
static void run_rows(const job_t *j)
{
    if (__builtin_cpu_supports("avx2"))
        rows_avx2(j);
    else
        rows_any(j);
}
#else
static void run_rows(const job_t *j) { rows_any(j); }
#endif

int dv_scale_bilinear(const uint8_t *src, int ss, int sw, int sh, uint8_t *dst, int ds, int dw, int dh, int cn)
{
    /* column tables, then the 32-bit row over the columns used */
    size_t tab = (size_t)dw * (2 * sizeof(int) + sizeof(int16_t));
    double sx = (double)sw / dw, sy = (double)sh / dh;
    int first, last, w1;
    coef(0, sx, sw, &first, &w1);
    coef(dw - 1, sx, sw, &last, &w1);
    if (last + 1 < sw) last++;
    int used = (last - first + 1) * cn;
    char *mem = malloc(tab + (size_t)used * sizeof(int32_t) + 16);
    if (!mem) return -1;
    int32_t *row = (int32_t *)mem;
    int *xo = (int *)(mem + (size_t)used * sizeof(int32_t)), *xr = xo + dw;
    int16_t *cw = (int16_t *)(xr + dw);
    for (int x = 0; x < dw; x++) {
        int at;
        coef(x, sx, sw, &at, &w1);
        xo[x] = (at - first) * cn;
        xr[x] = (at + 1 < sw ? at + 1 - first : at - first) * cn;
        cw[x] = (int16_t)w1;
    }
    job_t j = {src, dst, ss, sh, ds, dw, dh, cn, first, used, sy, row, xo, xr, cw};
    run_rows(&j);
    free(mem);
    return 0;
}
