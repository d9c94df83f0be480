/* Dilated 3x3 layers as a batch of undilated phase planes (dn_conv_phase.h). */
#include "kernels/dnnl/dn_conv_phase.h"
#include "core/par.h"
#include "kernels/dnnl/dn_common.h"
#include <stdlib.h>
#include <string.h>

/* Phase planes of fewer pixels a side, or a predicted gain in products
 * (axis_gain, both axes) under this, stay direct. Measured at 1 thread
 * (256 -> 256 channels unless said, Winograd over phases against the direct
 * kernel): planes of 20 (FCN-ResNet50's dilation 2 on 40x40) 2.6x faster, 11
 * 2.0x, 10 (its dilation 4) 1.9x, 9 1.3x, 7 1.6x, 6 1.3x, but 5 (dilation 8
 * on 40x40, predicted gain 1.17) 0.9x; on planes of 4 (DeepLabV3's ASPP at
 * dilation 12 on 40x40) 1.33x for 256 -> 256, 1.05x for 2048 -> 256 and
 * 0.79x for 2048 -> 64, so those stay direct too. */
#define DN_PHASE_MIN 6
#define DN_PHASE_GAIN 1.6

int dn_wino_dilated_off(void)
{
    const char *e = getenv("OPENACL_WINO_DILATED");
    return e && !strcmp(e, "0");
}

int dn_phase_factor(const nn_win *w, const g_shape *xs)
{
    if (w->nsp != 2 || xs->rank != 4) return 0;
    int64_t d = w->d[0];
    if (d < 2 || d > 64) return 0;
    for (int i = 0; i < 2; i++)
        if (w->k[i] != 3 || w->s[i] != 1 || w->d[i] != d || w->pb[i] != d || w->pe[i] != d || xs->d[2 + i] < 1)
            return 0;
    return (int)d;
}

/* Along one axis of n pixels at dilation d: the direct kernel's products
 * per output (3 taps, less those in the padding, which it skips) over
 * F(4x4,3x3)'s (6 per 4 outputs, on phase planes of p pixels rounded up to
 * whole tiles). */
static double axis_gain(int64_t n, int d)
{
    int64_t p = (n + d - 1) / d, inside = n + 2 * (n > d ? n - d : 0);
    return ((double)inside / (double)n) / (1.5 * (double)((p + 3) / 4 * 4) / (double)p);
}

int dn_phase_kind(int64_t C, int64_t M, int64_t N, int64_t OH, int64_t OW, int d)
{
    int64_t ph = (OH + d - 1) / d, pw = (OW + d - 1) / d;
    int64_t tiles = N * d * d * ((ph + 3) / 4) * ((pw + 3) / 4);
    if (ph < DN_PHASE_MIN || pw < DN_PHASE_MIN || axis_gain(OH, d) * axis_gain(OW, d) < DN_PHASE_GAIN) return 0;
    return tiles >= 49 && C * M >= 24 * (C + M) ? DN_WINO_4X3 : 0;
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
    int64_t ph = (H + d - 1) / d, pw = (W + d - 1) / d, r = h % d, a = h / d, cb_n = C / 16;
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

/* Zeros what lies past the tensor in the blocked phase batch: the last row
 * of the phases whose last row d (ph - 1) + r is at or past H, the last
 * column likewise (the layer's zero padding there). */
static void phase_pad(float *xb, int64_t N, int64_t C, int64_t H, int64_t W, int d)
{
    int64_t ph = (H + d - 1) / d, pw = (W + d - 1) / d, cb_n = C / 16, plane = ph * pw * 16;
    for (int64_t b = 0; b < N * d * d; b++) {
        int row = d * (ph - 1) + (b / d) % d >= H, col = d * (pw - 1) + b % d >= W;
        for (int64_t cb = 0; cb < cb_n && (row || col); cb++) {
            float *p = xb + (b * cb_n + cb) * plane;
            if (row) memset(p + (ph - 1) * pw * 16, 0, (size_t)pw * 16 * sizeof(float));
            for (int64_t a = 0; a < ph && col; a++) memset(p + (a * pw + pw - 1) * 16, 0, 16 * sizeof(float));
        }
    }
}

void dn_phase_gather(const float *x, int nhwc, float *xb, int64_t N, int64_t C, int64_t H, int64_t W, int d,
                     int nthr)
{
    strides4 u = user_strides(nhwc, C, H, W);
    int64_t rows = N * H;
    if (H % d || W % d) phase_pad(xb, N, C, H, W, d);
    OA_PAR_FOR(rows * W * C >= 65536 ? nthr : 1,
               for (int64_t i = 0; i < rows; i++) phase_row(x, xb, &u, i / H, i % H, C, H, W, d, 1););
}

void dn_phase_scatter(const float *yb, float *y, int nhwc, int64_t N, int64_t M, int64_t H, int64_t W, int d,
                      int nthr)
{
    strides4 u = user_strides(nhwc, M, H, W);
    int64_t rows = N * H;
    OA_PAR_FOR(rows * W * M >= 65536 ? nthr : 1,
               for (int64_t i = 0; i < rows; i++) phase_row(yb, y, &u, i / H, i % H, M, H, W, d, 0););
}
