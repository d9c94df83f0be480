/* Matrix-vector products with a constant matrix: y[N] = x[K] . B[K, N]
 * (the classifier Gemm of every batch-1 image model, M = 1 MatMuls).
 *
 * Such a product reads each weight once and does one multiply-add with it,
 * so its speed is the speed of streaming B. oneDNN's matmul with M = 1
 * walks its blocked weight layout in an order the hardware prefetcher
 * follows poorly: with B evicted from the caches by the rest of the
 * network (the case inside a model run) it reads MobileNetV2's 5 MB
 * classifier at ~10 GB/s where a plain sequential read runs at ~17 GB/s
 * here. This packing makes the whole of B one sequential stream:
 *
 *   panels of 64 columns [K][64] (16-column panels for what remains,
 *   N rounded up to 16, zero-filled), one after the other;
 *   bf16: pairs of rows interleaved, [K/2][64][2] (the operand order of
 *   vdpbf16ps), K rounded up to even.
 *
 * A thread takes a contiguous run of panels; each panel's loop keeps 8
 * (fp32) or 4 (bf16) accumulators over one forward pass through its bytes,
 * except a 64-column fp32 panel of at least GV_STREAMS_MIN_K rows, which
 * is read as GV_STREAMS runs of rows at once (panel64_f32_streams).
 * x is rounded to bf16 (nearest even) for the bf16 form, as oneDNN does
 * when it converts a bf16 product's activation operand. */
#include "core/par.h"
#include "kernels/dnnl/dn_gemv.h"
#include "kernels/dnnl/dn_common.h"
#include <omp.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GV_X86 1
#endif

/* fp32 64-column panels of at least this many rows are read as
 * GV_STREAMS runs at once (panel64_f32_streams) */
#define GV_STREAMS 4
#define GV_STREAMS_MIN_K 256

static int64_t npad16(int64_t N) { return (N + 15) & ~(int64_t)15; }

int dn_gemv_supported(int bf16)
{
#ifdef GV_X86
    if (!dn_has_avx512()) return 0;
    return !bf16 || (dn_has_bf16() && __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw"));
#else
    (void)bf16;
    return 0;
#endif
}

size_t dn_gemv_packed_bytes(int64_t K, int64_t N, int bf16)
{
    int64_t rows = bf16 ? (K + 1) & ~(int64_t)1 : K;
    return (size_t)rows * (size_t)npad16(N) * (bf16 ? 2 : 4);
}

size_t dn_gemv_scratch_bytes(int64_t K, int bf16)
{
    /* the bf16 pairs of x, padded to whole 64-byte lines */
    return bf16 ? (((size_t)(K + 1) / 2 * 4 + 63) & ~(size_t)63) : 0;
}

/* bfloat16 of f, rounded to nearest even (NaN kept quiet) */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* Panel j covers columns [c0, c0 + w): w = 64 while 64 columns remain of
 * the padded width, then 16. */
static int64_t panel_width(int64_t c0, int64_t np) { return np - c0 >= 64 ? 64 : 16; }

void dn_gemv_pack(const float *b, int tb, int64_t K, int64_t N, float alpha, int bf16, void *dst)
{
    int64_t np = npad16(N), rows = bf16 ? (K + 1) & ~(int64_t)1 : K;
    float *pf = dst;
    uint16_t *ph = dst;
    size_t at = 0;
    for (int64_t c0 = 0; c0 < np;) {
        int64_t w = panel_width(c0, np);
        for (int64_t k = 0; k < rows; k++)
            for (int64_t j = 0; j < w; j++) {
                int64_t c = c0 + j;
                float v = 0.f;
                if (k < K && c < N) v = alpha * (tb ? b[c * K + k] : b[k * N + c]);
                if (bf16)   /* [k/2][j][k&1] inside the panel */
                    ph[at + (size_t)(k >> 1) * (size_t)w * 2 + (size_t)j * 2 + (size_t)(k & 1)] = to_bf16(v);
                else
                    pf[at + (size_t)k * (size_t)w + (size_t)j] = v;
            }
        at += (size_t)rows * (size_t)w;
        c0 += w;
    }
}

#ifdef GV_X86
/* Rows ahead of each stream that a software prefetch asks for (16 rows of
 * a 64-column panel: 16 KiB). */
#define GV_PF_ROWS 16

/* A 64-column panel read as GV_STREAMS runs of rows at once, each with its
 * own accumulators, each run prefetched GV_PF_ROWS rows ahead: one
 * sequential stream leaves a core's memory bandwidth to its hardware
 * prefetcher, which keeps too few lines in flight (151 MB of AlexNet's first
 * classifier layer: ~13 GB/s as one stream, ~16 as four). The four partial
 * sums are added at the end. */
__attribute__((target("avx512f")))
static void panel64_f32_streams(const float *x, const float *w, int64_t K, float *acc)
{
    int64_t q = K / GV_STREAMS;
    __m512 a[GV_STREAMS][4];
    for (int s = 0; s < GV_STREAMS; s++)
        for (int j = 0; j < 4; j++) a[s][j] = _mm512_setzero_ps();
    for (int64_t i = 0; i < q; i++) {
        for (int s = 0; s < GV_STREAMS; s++) {
            int64_t r = s * q + i;
            const float *p = w + r * 64;
            if (i + GV_PF_ROWS < q) {
                const char *f = (const char *)(p + GV_PF_ROWS * 64);
                _mm_prefetch(f, _MM_HINT_T0);
                _mm_prefetch(f + 64, _MM_HINT_T0);
                _mm_prefetch(f + 128, _MM_HINT_T0);
                _mm_prefetch(f + 192, _MM_HINT_T0);
            }
            __m512 u = _mm512_set1_ps(x[r]);
            a[s][0] = _mm512_fmadd_ps(u, _mm512_loadu_ps(p), a[s][0]);
            a[s][1] = _mm512_fmadd_ps(u, _mm512_loadu_ps(p + 16), a[s][1]);
            a[s][2] = _mm512_fmadd_ps(u, _mm512_loadu_ps(p + 32), a[s][2]);
            a[s][3] = _mm512_fmadd_ps(u, _mm512_loadu_ps(p + 48), a[s][3]);
        }
    }
    /* the rows K leaves over after GV_STREAMS equal runs */
    for (int64_t r = q * GV_STREAMS; r < K; r++) {
        __m512 u = _mm512_set1_ps(x[r]);
        const float *p = w + r * 64;
        for (int j = 0; j < 4; j++) a[0][j] = _mm512_fmadd_ps(u, _mm512_loadu_ps(p + 16 * j), a[0][j]);
    }
    for (int j = 0; j < 4; j++) {
        __m512 t = a[0][j];
        for (int s = 1; s < GV_STREAMS; s++) t = _mm512_add_ps(t, a[s][j]);
        _mm512_storeu_ps(acc + 16 * j, t);
    }
}

__attribute__((target("avx512f")))
static void panel_f32(const float *x, const float *w, int64_t K, int64_t wd, float *acc, int streams)
{
    if (wd == 64 && streams && K >= GV_STREAMS_MIN_K) {
        panel64_f32_streams(x, w, K, acc);
        return;
    }
    if (wd == 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        int64_t k = 0;
        for (; k + 1 < K; k += 2, w += 128) {
            __m512 u = _mm512_set1_ps(x[k]), v = _mm512_set1_ps(x[k + 1]);
            a0 = _mm512_fmadd_ps(u, _mm512_loadu_ps(w), a0);
            a1 = _mm512_fmadd_ps(u, _mm512_loadu_ps(w + 16), a1);
            a2 = _mm512_fmadd_ps(u, _mm512_loadu_ps(w + 32), a2);
            a3 = _mm512_fmadd_ps(u, _mm512_loadu_ps(w + 48), a3);
            b0 = _mm512_fmadd_ps(v, _mm512_loadu_ps(w + 64), b0);
            b1 = _mm512_fmadd_ps(v, _mm512_loadu_ps(w + 80), b1);
            b2 = _mm512_fmadd_ps(v, _mm512_loadu_ps(w + 96), b2);
            b3 = _mm512_fmadd_ps(v, _mm512_loadu_ps(w + 112), b3);
        }
        if (k < K) {
            __m512 u = _mm512_set1_ps(x[k]);
            a0 = _mm512_fmadd_ps(u, _mm512_loadu_ps(w), a0);
            a1 = _mm512_fmadd_ps(u, _mm512_loadu_ps(w + 16), a1);
            a2 = _mm512_fmadd_ps(u, _mm512_loadu_ps(w + 32), a2);
            a3 = _mm512_fmadd_ps(u, _mm512_loadu_ps(w + 48), a3);
        }
        _mm512_storeu_ps(acc, _mm512_add_ps(a0, b0));
        _mm512_storeu_ps(acc + 16, _mm512_add_ps(a1, b1));
        _mm512_storeu_ps(acc + 32, _mm512_add_ps(a2, b2));
        _mm512_storeu_ps(acc + 48, _mm512_add_ps(a3, b3));
        return;
    }
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    int64_t k = 0;
    for (; k + 3 < K; k += 4, w += 64) {
        a0 = _mm512_fmadd_ps(_mm512_set1_ps(x[k]), _mm512_loadu_ps(w), a0);
        a1 = _mm512_fmadd_ps(_mm512_set1_ps(x[k + 1]), _mm512_loadu_ps(w + 16), a1);
        a2 = _mm512_fmadd_ps(_mm512_set1_ps(x[k + 2]), _mm512_loadu_ps(w + 32), a2);
        a3 = _mm512_fmadd_ps(_mm512_set1_ps(x[k + 3]), _mm512_loadu_ps(w + 48), a3);
    }
    for (; k < K; k++, w += 16) a0 = _mm512_fmadd_ps(_mm512_set1_ps(x[k]), _mm512_loadu_ps(w), a0);
    _mm512_storeu_ps(acc, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

__attribute__((target("avx512f,avx512bw,avx512bf16")))
static void panel_bf16(const uint32_t *xp, const uint16_t *w, int64_t K2, int64_t wd, float *acc)
{
    if (wd == 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int64_t k = 0; k < K2; k++, w += 128) {
            __m512bh u = (__m512bh)_mm512_set1_epi32((int)xp[k]);
            a0 = _mm512_dpbf16_ps(a0, u, (__m512bh)_mm512_loadu_si512(w));
            a1 = _mm512_dpbf16_ps(a1, u, (__m512bh)_mm512_loadu_si512(w + 32));
            a2 = _mm512_dpbf16_ps(a2, u, (__m512bh)_mm512_loadu_si512(w + 64));
            a3 = _mm512_dpbf16_ps(a3, u, (__m512bh)_mm512_loadu_si512(w + 96));
        }
        _mm512_storeu_ps(acc, a0);
        _mm512_storeu_ps(acc + 16, a1);
        _mm512_storeu_ps(acc + 32, a2);
        _mm512_storeu_ps(acc + 48, a3);
        return;
    }
    __m512 a0 = _mm512_setzero_ps(), a1 = a0;
    int64_t k = 0;
    for (; k + 1 < K2; k += 2, w += 64) {
        a0 = _mm512_dpbf16_ps(a0, (__m512bh)_mm512_set1_epi32((int)xp[k]), (__m512bh)_mm512_loadu_si512(w));
        a1 = _mm512_dpbf16_ps(a1, (__m512bh)_mm512_set1_epi32((int)xp[k + 1]),
                              (__m512bh)_mm512_loadu_si512(w + 32));
    }
    if (k < K2) a0 = _mm512_dpbf16_ps(a0, (__m512bh)_mm512_set1_epi32((int)xp[k]), (__m512bh)_mm512_loadu_si512(w));
    _mm512_storeu_ps(acc, _mm512_add_ps(a0, a1));
}
#endif

void dn_gemv_run(const float *x, const void *packed, int64_t K, int64_t N, int bf16, const float *bias,
                 int64_t bias_n, float *y, void *scratch, int threads, int streams)
{
#ifdef GV_X86
    int64_t np = npad16(N), K2 = (K + 1) / 2, rows = bf16 ? 2 * K2 : K;
    uint32_t *xp = scratch;
    if (bf16) {
        uint16_t *h = scratch;
        for (int64_t k = 0; k < K; k++) h[k] = to_bf16(x[k]);
        if (K & 1) h[K] = 0;
    }
    int64_t units = np / 16;
    if (threads > (int)units) threads = (int)units;
    if (threads < 1) threads = 1;
    OA_PAR_REGION(threads, {
        int T = omp_get_num_threads(), t = omp_get_thread_num();
        /* this thread's columns: panels whose first 16-column unit falls in
         * its share of the units */
        int64_t u0 = units * t / T, u1 = units * (t + 1) / T;
        int64_t c0 = 0;
        size_t at = 0;
        float acc[64];
        while (c0 < np && c0 / 16 < u1) {
            int64_t wd = panel_width(c0, np);
            if (c0 / 16 >= u0) {
                if (bf16)
                    panel_bf16(xp, (const uint16_t *)packed + at, K2, wd, acc);
                else
                    panel_f32(x, (const float *)packed + at, K, wd, acc, streams);
                int64_t m = N - c0 < wd ? N - c0 : wd;
                for (int64_t j = 0; j < m; j++)
                    y[c0 + j] = acc[j] + (bias ? bias[bias_n == 1 ? 0 : c0 + j] : 0.f);
            }
            at += (size_t)rows * (size_t)wd;
            c0 += wd;
        }
    });
#else
    (void)x; (void)packed; (void)K; (void)N; (void)bf16; (void)bias; (void)bias_n; (void)y;
    (void)scratch; (void)threads; (void)streams;
#endif
}
