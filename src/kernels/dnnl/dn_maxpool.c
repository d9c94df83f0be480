/* Float32 and 8-bit 2-D MaxPool over channels-last activations by an
 * AVX-512 loop: the oneDNN pool's path (dn_pool.c) for source and
 * destination both NHWC.
 * oneDNN 2.6's channels-last max pooling takes 1.5-2x ONNX Runtime's time on
 * the large early pools of image models (SqueezeNet's 96-channel 109x109 ->
 * 54x54 with ceil_mode: 0.41 ms against ORT's 0.26 at 1 thread), where a
 * plain loop over each output pixel's window, 64 channels at a time, runs at
 * the speed the input streams in. On an int8 model's uint8 tensors oneDNN's
 * kernel (jit_int) takes 2-3.5x the loop's time (int8 ResNet-50's pool after
 * the stem: 0.074-0.115 against 0.032 ms). OPENACL_NO_FAST_MAXPOOL=1 turns it
 * off. */
#include "kernels/dnnl/dn_common.h"
#include "core/par.h"
#include <float.h>
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

int dn_maxpool_fast(void)
{
    const char *e = getenv("OPENACL_NO_FAST_MAXPOOL");
    return !(e && strcmp(e, "0")) && dn_has_avx512();
}

/* One output pixel: the window rows [h0, h1) and columns [w0, w1) of the
 * input rows starting at x (row pitch rs floats, C channels a pixel). An
 * empty window gives -FLT_MAX, as the reference loops (and ORT) do. */
__attribute__((target("avx512f"))) static void pixel(const float *x, int64_t rs, int64_t C, int64_t h0,
                                                     int64_t h1, int64_t w0, int64_t w1, float *y)
{
    int64_t c = 0;
    const __m512 lo = _mm512_set1_ps(-FLT_MAX);
    for (; c + 64 <= C; c += 64) {
        __m512 a0 = lo, a1 = lo, a2 = lo, a3 = lo;
        for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++) {
                const float *p = x + h * rs + w * C + c;
                a0 = _mm512_max_ps(a0, _mm512_loadu_ps(p));
                a1 = _mm512_max_ps(a1, _mm512_loadu_ps(p + 16));
                a2 = _mm512_max_ps(a2, _mm512_loadu_ps(p + 32));
                a3 = _mm512_max_ps(a3, _mm512_loadu_ps(p + 48));
            }
        _mm512_storeu_ps(y + c, a0);
        _mm512_storeu_ps(y + c + 16, a1);
        _mm512_storeu_ps(y + c + 32, a2);
        _mm512_storeu_ps(y + c + 48, a3);
    }
    for (; c < C; c += 16) {
        __mmask16 m = C - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (C - c)) - 1);
        __m512 a = lo;
        for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++)
                a = _mm512_max_ps(a, _mm512_maskz_loadu_ps(m, x + h * rs + w * C + c));
        _mm512_mask_storeu_ps(y + c, m, a);
    }
}

/* One output pixel of an 8-bit tensor (the MaxPools between an int8
 * model's uint8 or int8 activations): the maximum of the stored bytes is the
 * stored byte of the maximum, one scale and zero point holding on both
 * sides. An empty window gives the type's lowest value, as the reference
 * loops (and ORT) do. 64 channels a register. */
__attribute__((target("avx512f,avx512bw"))) static void pixel8(const uint8_t *x, int64_t rs, int64_t C,
                                                                int64_t h0, int64_t h1, int64_t w0,
                                                                int64_t w1, int sgn, uint8_t *y)
{
    const __m512i lo = _mm512_set1_epi8(sgn ? (char)-128 : 0);
    for (int64_t c = 0; c < C; c += 64) {
        __mmask64 m = C - c >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (C - c)) - 1);
        __m512i a = lo;
        for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++) {
                __m512i v = _mm512_maskz_loadu_epi8(m, x + h * rs + w * C + c);
                a = sgn ? _mm512_max_epi8(a, v) : _mm512_max_epu8(a, v);
            }
        _mm512_mask_storeu_epi8(y + c, m, a);
    }
}

/* x [N, H, W, C] -> y [N, OH, OW, C] for window w (2 spatial dims, no
 * dilation), es bytes a value (4: float32; 1: uint8, or int8 with sgn),
 * rows of the output spread over nthr threads. */
static void max_walk(const nn_win *w, int64_t N, int64_t C, const void *x, void *y, size_t es, int sgn, int nthr)
{
    const int64_t H = w->in[0], W = w->in[1], OH = w->out[0], OW = w->out[1];
    const int64_t rows = N * OH;
    OA_PAR_FOR(nthr, for (int64_t r = 0; r < rows; r++) {
        int64_t n = r / OH, oh = r % OH;
        int64_t h0 = oh * w->s[0] - w->pb[0], h1 = h0 + w->k[0];
        if (h0 < 0) h0 = 0;
        if (h1 > H) h1 = H;
        const char *xn = (const char *)x + (size_t)(n * H * W * C) * es;
        char *yr = (char *)y + (size_t)(r * OW * C) * es;
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t w0 = ow * w->s[1] - w->pb[1], w1 = w0 + w->k[1];
            if (w0 < 0) w0 = 0;
            if (w1 > W) w1 = W;
            char *yp = yr + (size_t)(ow * C) * es;
            if (es == 4) pixel((const float *)xn, W * C, C, h0, h1, w0, w1, (float *)yp);
            else pixel8((const uint8_t *)xn, W * C, C, h0, h1, w0, w1, sgn, (uint8_t *)yp);
        }
    });
}

void dn_maxpool_nhwc_f32(const nn_win *w, int64_t N, int64_t C, const float *x, float *y, int nthr)
{
    max_walk(w, N, C, x, y, sizeof(float), 0, nthr);
}

void dn_maxpool_nhwc_8(const nn_win *w, int64_t N, int64_t C, const void *x, void *y, int sgn, int nthr)
{
    max_walk(w, N, C, x, y, 1, sgn, nthr);
}

/* ---- AveragePool: the same walk, summing ---- */

int dn_avgpool_fast(void)
{
    const char *e = getenv("OPENACL_NO_FAST_AVGPOOL");
    return !(e && strcmp(e, "0")) && dn_has_avx512();
}

/* One output pixel's window sum times inv (1 / the divisor). */
__attribute__((target("avx512f"))) static void pixel_avg(const float *x, int64_t rs, int64_t C, int64_t h0,
                                                         int64_t h1, int64_t w0, int64_t w1, float inv, float *y)
{
    int64_t c = 0;
    const __m512 z = _mm512_setzero_ps(), f = _mm512_set1_ps(inv);
    for (; c + 64 <= C; c += 64) {
        __m512 a0 = z, a1 = z, a2 = z, a3 = z;
        for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++) {
                const float *p = x + h * rs + w * C + c;
                a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p));
                a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + 16));
                a2 = _mm512_add_ps(a2, _mm512_loadu_ps(p + 32));
                a3 = _mm512_add_ps(a3, _mm512_loadu_ps(p + 48));
            }
        _mm512_storeu_ps(y + c, _mm512_mul_ps(a0, f));
        _mm512_storeu_ps(y + c + 16, _mm512_mul_ps(a1, f));
        _mm512_storeu_ps(y + c + 32, _mm512_mul_ps(a2, f));
        _mm512_storeu_ps(y + c + 48, _mm512_mul_ps(a3, f));
    }
    for (; c < C; c += 16) {
        __mmask16 m = C - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (C - c)) - 1);
        __m512 a = z;
        for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++)
                a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(m, x + h * rs + w * C + c));
        _mm512_mask_storeu_ps(y + c, m, _mm512_mul_ps(a, f));
    }
}

/* The divisor of ONNX's AveragePool (the reference's, kernels/ref/nn_pool.c)
 * along one dim for the window [b, b + k): the positions inside the padded
 * extent [-pb, in + pe) with count_include_pad, else inside [0, in). */
static int64_t avg_count(int64_t b, int64_t k, int64_t in, int64_t pb, int64_t pe, int include_pad)
{
    int64_t lo = include_pad ? -pb : 0, hi = include_pad ? in + pe : in;
    int64_t s = b > lo ? b : lo, e = b + k < hi ? b + k : hi;
    return e > s ? e - s : 0;
}

void dn_avgpool_nhwc_f32(const nn_win *w, int64_t N, int64_t C, const float *x, float *y, int include_pad,
                         int nthr)
{
    const int64_t H = w->in[0], W = w->in[1], OH = w->out[0], OW = w->out[1];
    const int64_t rows = N * OH;
    OA_PAR_FOR(nthr, for (int64_t r = 0; r < rows; r++) {
        int64_t n = r / OH, oh = r % OH;
        int64_t b0 = oh * w->s[0] - w->pb[0], h0 = b0 < 0 ? 0 : b0, h1 = b0 + w->k[0] < H ? b0 + w->k[0] : H;
        int64_t ch = avg_count(b0, w->k[0], H, w->pb[0], w->pe[0], include_pad);
        const float *xn = x + n * H * W * C;
        float *yr = y + r * OW * C;
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t b1 = ow * w->s[1] - w->pb[1], w0 = b1 < 0 ? 0 : b1, w1 = b1 + w->k[1] < W ? b1 + w->k[1] : W;
            int64_t cnt = ch * avg_count(b1, w->k[1], W, w->pb[1], w->pe[1], include_pad);
            /* an empty window gives 0, as the reference does */
            pixel_avg(xn, W * C, C, h0, h1, w0, w1, cnt ? 1.0f / (float)cnt : 0.0f, yr + ow * C);
        }
    });
}
