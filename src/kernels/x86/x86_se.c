/* openacl.SqueezeExcite with AVX-512 loops ("avx512"): the reference's
 * state, packing and parallel region (kernels/ref/nn_se.c, nn_se.h) with
 * these loops for the four steps. bf16 activations, and weights packed as
 * bf16 where the node computes in bf16, need AVX512-BF16. The sums, dot
 * products and the sigmoid / SiLU (kernels/silu16.h) are the vector forms:
 * they round differently from the reference's sequential float32 sums
 * (float32 results within 1e-5 relative, tests/kernels_x86; with weights
 * packed as bf16, within bf16's precision). */
#include "kernels/ref/nn_se.h"
#include "kernels/x86/x86_common.h"
#include <string.h>

#ifdef X86_SIMD
#include "kernels/silu16.h"

static inline float ld(const void *x, int xb, size_t i)
{
    return xb ? nn_bf2f(((const uint16_t *)x)[i]) : ((const float *)x)[i];
}

#define SE_TGT __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

SE_TGT static inline __m512 ld16(const void *x, int xb, size_t i)
{
    if (xb)
        return _mm512_castsi512_ps(_mm512_slli_epi32(
            _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)((const uint16_t *)x + i))), 16));
    return _mm512_loadu_ps((const float *)x + i);
}

SE_TGT static inline __m512 ld16m(const void *x, int xb, size_t i, __mmask16 k)
{
    if (xb)
        return _mm512_castsi512_ps(_mm512_slli_epi32(
            _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, (const uint16_t *)x + i)), 16));
    return _mm512_maskz_loadu_ps(k, (const float *)x + i);
}

static inline __mmask16 lanes(int64_t left)
{
    return left >= 16 ? (__mmask16)0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
}

/* channel sums m[c0..c1) of a channels-last image (P rows of C): 128
 * channels at a time in eight registers */
SE_TGT static void sums_nhwc_v(const void *x, int xb, int64_t P, int64_t C, int64_t c0, int64_t c1, float *m)
{
    size_t es = xb ? 2 : 4;
    for (int64_t c = c0; c < c1; c += 128) {
        __mmask16 k[8];
        for (int j = 0; j < 8; j++) k[j] = lanes(c1 - c - 16 * j);
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        const char *px = (const char *)x + (size_t)c * es;
        if (c1 - c >= 128) {
            for (int64_t p = 0; p < P; p++, px += (size_t)C * es) {
                a0 = _mm512_add_ps(a0, ld16(px, xb, 0));
                a1 = _mm512_add_ps(a1, ld16(px, xb, 16));
                a2 = _mm512_add_ps(a2, ld16(px, xb, 32));
                a3 = _mm512_add_ps(a3, ld16(px, xb, 48));
                a4 = _mm512_add_ps(a4, ld16(px, xb, 64));
                a5 = _mm512_add_ps(a5, ld16(px, xb, 80));
                a6 = _mm512_add_ps(a6, ld16(px, xb, 96));
                a7 = _mm512_add_ps(a7, ld16(px, xb, 112));
            }
        } else if (c1 - c > 64) {
            for (int64_t p = 0; p < P; p++, px += (size_t)C * es) {
                a0 = _mm512_add_ps(a0, ld16(px, xb, 0));
                a1 = _mm512_add_ps(a1, ld16(px, xb, 16));
                a2 = _mm512_add_ps(a2, ld16(px, xb, 32));
                a3 = _mm512_add_ps(a3, ld16(px, xb, 48));
                a4 = _mm512_add_ps(a4, ld16m(px, xb, 64, k[4]));
                a5 = _mm512_add_ps(a5, ld16m(px, xb, 80, k[5]));
                a6 = _mm512_add_ps(a6, ld16m(px, xb, 96, k[6]));
                a7 = _mm512_add_ps(a7, ld16m(px, xb, 112, k[7]));
            }
        } else {
            for (int64_t p = 0; p < P; p++, px += (size_t)C * es) {
                a0 = _mm512_add_ps(a0, ld16m(px, xb, 0, k[0]));
                a1 = _mm512_add_ps(a1, ld16m(px, xb, 16, k[1]));
                a2 = _mm512_add_ps(a2, ld16m(px, xb, 32, k[2]));
                a3 = _mm512_add_ps(a3, ld16m(px, xb, 48, k[3]));
            }
        }
        __m512 a[8] = { a0, a1, a2, a3, a4, a5, a6, a7 };
        for (int j = 0; j < 8; j++) _mm512_mask_storeu_ps(m + c + 16 * j, k[j], a[j]);
    }
}

/* sigmoid and SiLU (the activations of EfficientNet's block) by the
 * vector forms, others by nn_post_apply */
SE_TGT static void post_v(const nn_post *p, float *y, size_t len)
{
    if (p->n == 1 && (p->kind[0] == NN_PO_SIGMOID || (p->kind[0] == NN_PO_SILU && p->a[0] == 1.0f))) {
        int sig = p->kind[0] == NN_PO_SIGMOID;
        for (size_t i = 0; i < len; i += 16) {
            __mmask16 k = lanes((int64_t)(len - i));
            __m512 v = _mm512_maskz_loadu_ps(k, y + i);
            _mm512_mask_storeu_ps(y + i, k, sig ? sigmoid16(v) : silu16(v));
        }
        return;
    }
    nn_post_apply(p, y, len, NULL);
}

SE_TGT static float total_v(const void *x, int xb, size_t len)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        a0 = _mm512_add_ps(a0, ld16(x, xb, i));
        a1 = _mm512_add_ps(a1, ld16(x, xb, i + 16));
    }
    for (; i + 16 <= len; i += 16) a0 = _mm512_add_ps(a0, ld16(x, xb, i));
    float a = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
    for (; i < len; i++) a += ld(x, xb, i);
    return a;
}

/* h[r] = b[r] + W[r,:] . m for r in [r0, r1); W float32 or bf16 (wb) */
SE_TGT static void squeeze_v(const void *w, int wb, const float *b, const float *m, int64_t C,
                             int64_t r0, int64_t r1, float *h)
{
    for (int64_t r = r0; r < r1; r++) {
        size_t o = (size_t)(r * C);
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
        int64_t i = 0;
        for (; i + 32 <= C; i += 32) {
            a0 = _mm512_fmadd_ps(ld16(w, wb, o + (size_t)i), _mm512_loadu_ps(m + i), a0);
            a1 = _mm512_fmadd_ps(ld16(w, wb, o + (size_t)i + 16), _mm512_loadu_ps(m + i + 16), a1);
        }
        for (; i < C; i += 16) {
            __mmask16 k = lanes(C - i);
            a0 = _mm512_fmadd_ps(ld16m(w, wb, o + (size_t)i, k), _mm512_maskz_loadu_ps(k, m + i), a0);
        }
        h[r] = b[r] + _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
    }
}

/* sv[c] = b[c] + sum_r Wt[r, c] h[r] for c in [c0, c1); Wt float32 or bf16,
 * read row after row (one stream for the prefetcher) */
SE_TGT static void excite_v(const void *wt, int wb, const float *b, const float *h, int64_t R, int64_t C,
                            int64_t c0, int64_t c1, float *sv)
{
    memcpy(sv + c0, b + c0, (size_t)(c1 - c0) * sizeof(float));
    for (int64_t r = 0; r < R; r++) {
        __m512 v = _mm512_set1_ps(h[r]);
        size_t o = (size_t)(r * C);
        int64_t c = c0;
        for (; c + 16 <= c1; c += 16)
            _mm512_storeu_ps(sv + c, _mm512_fmadd_ps(ld16(wt, wb, o + (size_t)c), v, _mm512_loadu_ps(sv + c)));
        if (c < c1) {
            __mmask16 k = lanes(c1 - c);
            _mm512_mask_storeu_ps(sv + c, k, _mm512_fmadd_ps(ld16m(wt, wb, o + (size_t)c, k), v,
                                                             _mm512_maskz_loadu_ps(k, sv + c)));
        }
    }
}

SE_TGT static inline void st16m(void *y, int yb, size_t i, __m512 v, __mmask16 k)
{
    if (yb) _mm256_mask_storeu_epi16((uint16_t *)y + i, k, (__m256i)_mm512_cvtneps_pbh(v));
    else _mm512_mask_storeu_ps((float *)y + i, k, v);
}

/* rows [q0, q1) of `len` values, `rpi` rows per image whose scales start
 * at s + image * stride: channels-last (per_elem: row times s[0..len)) or
 * plain (row r of an image times s[r]) */
SE_TGT static void scale_rows_v(const void *x, int xb, void *y, int yb, const float *s, size_t stride,
                                int per_elem, int64_t rpi, int64_t len, int64_t q0, int64_t q1)
{
    int64_t full = len & ~(int64_t)15, b = q0 / rpi, r = q0 % rpi;
    __mmask16 kt = lanes(len - full);
    for (int64_t q = q0; q < q1; q++) {
        size_t o = (size_t)(q * len);
        const float *sr = s + (size_t)b * stride + (per_elem ? 0 : r);
        __m512 one = _mm512_set1_ps(sr[0]);
        for (int64_t i = 0; i < full; i += 16) {
            __m512 v = _mm512_mul_ps(ld16(x, xb, o + (size_t)i), per_elem ? _mm512_loadu_ps(sr + i) : one);
            if (yb) _mm256_storeu_si256((__m256i *)((uint16_t *)y + o + i), (__m256i)_mm512_cvtneps_pbh(v));
            else _mm512_storeu_ps((float *)y + o + i, v);
        }
        if (kt) {
            __m512 v = _mm512_mul_ps(ld16m(x, xb, o + (size_t)full, kt),
                                     per_elem ? _mm512_maskz_loadu_ps(kt, sr + full) : one);
            st16m(y, yb, o + (size_t)full, v, kt);
        }
        if (++r == rpi) { r = 0; b++; }
    }
}

static void sums_v(const void *x, int xb, int64_t P, int64_t C, float *m) { sums_nhwc_v(x, xb, P, C, 0, C, m); }

static const nn_se_loops se_loops_avx512 = { sums_v, total_v, squeeze_v, excite_v, post_v, scale_rows_v };

static int se_init(g_graph *g, g_node *n, void **state)
{
    *state = NULL;
    if (!x86_has_avx512() || n->n_in < 1 || n->in[0] < 0) return K_DECLINE;
    int bf16 = g->t[n->in[0]].dtype == G_BF16 || g_attr_int(n, G_ATTR_BF16_OUT, 0) != 0;
    if (bf16 && !x86_has_avx512_bf16()) return K_DECLINE;
    /* bf16 weights where the convolutions compute in bf16 (the CPU as the
     * oneDNN backend sees it, which ONEDNN_MAX_CPU_ISA may narrow) */
    int wbf16 = graph_node_bf16(n) && x86_has_avx512_bf16() && k_cpu_bf16();
    return nn_se_init(g, n, state, &se_loops_avx512, wbf16);
}

static const k_op k_se_avx512 = {
    .op_type = "SqueezeExcite", .domain = "openacl", .since = 1, .until = 0, .impl = "avx512",
    .priority = 10, .init = se_init, .infer = nn_se_infer, .plan = nn_se_plan, .pack = nn_se_pack,
    .run = nn_se_run, .fini = nn_se_fini, .accepts_layout = nn_se_accepts, .packed_inputs = NN_SE_PACKED,
    .adopt = nn_se_adopt, .reads_bf16 = nn_se_reads_bf16,
};
K_REGISTER(k_se_avx512);
#endif
