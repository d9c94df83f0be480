/* Float32 2-D MaxPool over channels-last activations by an AVX-512 loop:
 * the oneDNN pool's path (dn_pool.c) for source and destination both NHWC.
 * oneDNN 2.6's channels-last max pooling takes 1.5-2x ONNX Runtime's time on
 * the large early pools of image models (SqueezeNet's 96-channel 109x109 ->
 * 54x54 with ceil_mode: 0.41 ms against ORT's 0.26 at 1 thread), where a
 * plain loop over each output pixel's window, 64 channels at a time, runs at
 * the speed the input streams in. OPENACL_NO_FAST_MAXPOOL=1 turns it off. */
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

/* x [N, H, W, C] -> y [N, OH, OW, C] for window w (2 spatial dims, no
 * dilation), rows of the output spread over nthr threads. */
void dn_maxpool_nhwc_f32(const nn_win *w, int64_t N, int64_t C, const float *x, float *y, int nthr)
{
    const int64_t H = w->in[0], W = w->in[1], OH = w->out[0], OW = w->out[1];
    const int64_t rows = N * OH;
    OA_PAR_FOR(nthr, for (int64_t r = 0; r < rows; r++) {
        int64_t n = r / OH, oh = r % OH;
        int64_t h0 = oh * w->s[0] - w->pb[0], h1 = h0 + w->k[0];
        if (h0 < 0) h0 = 0;
        if (h1 > H) h1 = H;
        const float *xn = x + n * H * W * C;
        float *yr = y + r * OW * C;
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t w0 = ow * w->s[1] - w->pb[1], w1 = w0 + w->k[1];
            if (w0 < 0) w0 = 0;
            if (w1 > W) w1 = W;
            pixel(xn, W * C, C, h0, h1, w0, w1, yr + ow * C);
        }
    });
}
