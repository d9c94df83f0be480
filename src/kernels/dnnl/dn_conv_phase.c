/* Dilated 3x3 layers as a batch of undilated phase planes (dn_conv_phase.h). */
#include "kernels/dnnl/dn_conv_phase.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

int dn_wino_dilated_off(void)
{
    const char *e = getenv("OPENACL_WINO_DILATED");
    return e && !strcmp(e, "0");
}

int dn_phase_factor(const nn_win *w, const g_shape *xs)
{
    if (dn_wino_dilated_off() || w->nsp != 2 || xs->rank != 4) return 0;
    int64_t d = w->d[0];
    if (d < 2 || d > 64) return 0;
    for (int i = 0; i < 2; i++)
        if (w->k[i] != 3 || w->s[i] != 1 || w->d[i] != d || w->pb[i] != d || w->pe[i] != d ||
            xs->d[2 + i] % d || xs->d[2 + i] < d)
            return 0;
    return (int)d;
}

/* Offsets of element (n, c, h, w) of an [N, C, H, W] tensor: channels-last
 * or plain. */
typedef struct { int64_t n, c, h, w; } strides4;

static strides4 user_strides(int nhwc, int64_t C, int64_t H, int64_t W)
{
    strides4 s;
    if (nhwc) { s.c = 1; s.w = C; s.h = W * C; }
    else      { s.w = 1; s.h = W; s.c = H * W; }
    s.n = C * H * W;
    return s;
}

/* Copies one image row h of the user tensor (all channels, all columns) to
 * its place in the blocked phase batch (to_b: src is the user tensor, dst
 * the batch) or back (src the batch, dst the user tensor). */
static void phase_row(const float *src, float *dst, const strides4 *u, int64_t n, int64_t h, int64_t C, int64_t H,
                      int64_t W, int d, int to_b)
{
    int64_t ph = H / d, pw = W / d, r = h % d, a = h / d, cb_n = C / 16;
    int64_t plane = ph * pw * 16;
    for (int64_t x = 0; x < W; x++) {
        int64_t q = x % d, b = x / d, bat = (n * d + r) * d + q;
        int64_t bo = bat * cb_n * plane + (a * pw + b) * 16, uo = n * u->n + h * u->h + x * u->w;
        for (int64_t cb = 0; cb < cb_n; cb++, bo += plane, uo += 16 * u->c) {
            if (u->c == 1) {
                memcpy(dst + (to_b ? bo : uo), src + (to_b ? uo : bo), 16 * sizeof(float));
                continue;
            }
            for (int64_t k = 0; k < 16; k++) {
                if (to_b) dst[bo + k] = src[uo + k * u->c];
                else dst[uo + k * u->c] = src[bo + k];
            }
        }
    }
}

void dn_phase_gather(const float *x, int nhwc, float *xb, int64_t N, int64_t C, int64_t H, int64_t W, int d,
                     int nthr)
{
    strides4 u = user_strides(nhwc, C, H, W);
    int64_t rows = N * H;
#pragma omp parallel for num_threads(nthr) schedule(static) if (nthr > 1 && rows * W * C >= 65536)
    for (int64_t i = 0; i < rows; i++) phase_row(x, xb, &u, i / H, i % H, C, H, W, d, 1);
}

void dn_phase_scatter(const float *yb, float *y, int nhwc, int64_t N, int64_t M, int64_t H, int64_t W, int d,
                      int nthr)
{
    strides4 u = user_strides(nhwc, M, H, W);
    int64_t rows = N * H;
#pragma omp parallel for num_threads(nthr) schedule(static) if (nthr > 1 && rows * W * M >= 65536)
    for (int64_t i = 0; i < rows; i++) phase_row(yb, y, &u, i / H, i % H, M, H, W, d, 0);
}
