/* dvpp_scale: the bilinear scaler's SIMD passes (AVX2 where the processor
 * has it: horizontal-first with byte shuffles, or vertical-first with
 * gathers) against its portable loops, which compute each sample straight
 * from the formula. Random sizes (shrinking and enlarging, 1 to 400
 * pixels), strides with padding, 1, 2 and 4 channels: every byte must be
 * equal. The source is compiled in, so the portable path runs here even on
 * an AVX2 machine. */
#include <stdio.h>
#include <stdlib.h>

#include "dvpp/dvpp_scale.c"

/* The portable path alone, with the tables dv_scale_bilinear builds. */
static void portable(const uint8_t *s, int ss, int sw, int sh, uint8_t *d, int ds, int dw, int dh, int cn)
{
    double sx = (double)sw / dw;
    int first, last, w1;
    coef(0, sx, sw, &first, &w1);
    coef(dw - 1, sx, sw, &last, &w1);
    if (last + 1 < sw) last++;
    int used = (last - first + 1) * cn;
    int32_t *row = malloc(sizeof(int32_t) * (size_t)used);
    int *xo = malloc(sizeof(int) * (size_t)dw), *xr = malloc(sizeof(int) * (size_t)dw);
    int16_t *cw = malloc(sizeof(int16_t) * (size_t)dw);
    if (!row || !xo || !xr || !cw) abort();
    for (int x = 0; x < dw; x++) {
        int at;
        coef(x, sx, sw, &at, &w1);
        xo[x] = (at - first) * cn;
        xr[x] = (at + 1 < sw ? at + 1 - first : at - first) * cn;
        cw[x] = (int16_t)w1;
    }
    job_t j = {s, d, ss, sh, ds, dw, dh, cn, first, used, (double)sh / dh, row, xo, xr, cw, NULL};
    rows_any(&j);
    free(row), free(xo), free(xr), free(cw);
}

int main(void)
{
    srand(20);
    long long bad = 0, n = 0;
    for (int t = 0; t < 900; t++) {
        int cn = (int[]){1, 2, 4}[t % 3];
        int big = t % 10 == 0 ? 400 : 120;
        int sw = 1 + rand() % big, sh = 1 + rand() % 90, dw = 1 + rand() % big, dh = 1 + rand() % 90;
        int ss = sw * cn + rand() % 7, ds = dw * cn + rand() % 5;
        uint8_t *s = malloc((size_t)ss * sh), *a = calloc((size_t)ds * dh, 1), *b = calloc((size_t)ds * dh, 1);
        if (!s || !a || !b) abort();
        for (int i = 0; i < ss * sh; i++) s[i] = (uint8_t)rand();
        if (dv_scale_bilinear(s, ss, sw, sh, a, ds, dw, dh, cn)) abort();
        portable(s, ss, sw, sh, b, ds, dw, dh, cn);
        for (int y = 0; y < dh; y++)
            for (int i = 0; i < dw * cn; i++, n++)
                if (a[(size_t)y * ds + i] != b[(size_t)y * ds + i]) {
                    if (!bad)
                        fprintf(stderr, "%dx%d -> %dx%d, %d channels: first difference at row %d\n", sw, sh, dw, dh, cn,
                                y);
                    bad++;
                }
        free(s), free(a), free(b);
    }
    printf("dvpp_scale: %lld of %lld samples differ between the dispatched and the portable passes\n", bad, n);
    return bad != 0;
}
