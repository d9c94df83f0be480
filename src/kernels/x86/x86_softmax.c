/* Softmax and LogSoftmax of float32 rows with AVX-512: the reference's state
 * and driver (kernels/ref/softmax.h), this file only the loop over whole
 * rows (the last axis), 16 values a step with a masked tail, so short rows
 * (Swin's 49-wide attention rows, an OCR recogniser's 40) need no padded
 * copy and no scalar remainder. The same steps as the reference: the row's
 * maximum, exp(x - max) with arguments below SM_TINY_ARG counting as 0, then
 * for Softmax each term times 1 / sum, 0 where the probability would be
 * subnormal, for LogSoftmax x - (max + log sum). exp is the reference's
 * (ew_common.h): 2^k by the exponent bits times a degree-7 Taylor series on
 * |r| <= ln2/2; with arguments in [-87, 0] 2^k stays a normal number. */
#include "kernels/ref/softmax.h"
#include "kernels/x86/x86_common.h"
#include <float.h>
#include <math.h>

#ifdef X86_SIMD
#define SMX_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

/* exp(d) for d in [SM_TINY_ARG, 0] */
SMX_TARGET static inline __m512 exp_neg(__m512 d)
{
    const __m512 shift = _mm512_set1_ps(12582912.0f);
    __m512 t = _mm512_fmadd_ps(d, _mm512_set1_ps(1.44269504088896341f), shift);
    __m512i k = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_set1_epi32(0x4b400000));
    __m512 kf = _mm512_sub_ps(t, shift);
    __m512 r = _mm512_fnmadd_ps(kf, _mm512_set1_ps(0.693145751953125f), d);
    r = _mm512_fnmadd_ps(kf, _mm512_set1_ps(1.428606765330187e-06f), r);
    __m512 p = _mm512_set1_ps(1.0f / 5040);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    __m512 scale = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k, _mm512_set1_epi32(127)), 23));
    return _mm512_mul_ps(p, scale);
}

SMX_TARGET static inline __mmask16 tail_mask(int64_t left)
{
    return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
}

/* exp(x - m) with the reference's floor: 0 below SM_TINY_ARG; a NaN
 * difference (a NaN value, or a row all -inf) stays NaN, as in the
 * reference (max(lo, d) returns its second operand when one is NaN) */
SMX_TARGET static inline __m512 term(__m512 v, __m512 m)
{
    const __m512 lo = _mm512_set1_ps(SM_TINY_ARG);
    __m512 d = _mm512_sub_ps(v, m);
    __mmask16 keep = _mm512_cmp_ps_mask(d, lo, _CMP_NLT_UQ);
    return _mm512_maskz_mov_ps(keep, exp_neg(_mm512_max_ps(lo, d)));
}

SMX_TARGET static void row(int kind, const float *x, float *y, int64_t R)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    __m512 mv = ninf;
    for (int64_t i = 0; i < R; i += 16)
        mv = _mm512_max_ps(_mm512_mask_loadu_ps(ninf, tail_mask(R - i), x + i), mv);
    const float mx = _mm512_reduce_max_ps(mv);
    const __m512 m = _mm512_set1_ps(mx);
    __m512 sv = _mm512_setzero_ps();
    for (int64_t i = 0; i < R; i += 16) {
        __mmask16 k = tail_mask(R - i);
        __m512 e = _mm512_maskz_mov_ps(k, term(_mm512_maskz_loadu_ps(k, x + i), m));
        sv = _mm512_add_ps(sv, e);
        if (kind == SM_SOFT) _mm512_mask_storeu_ps(y + i, k, e);
    }
    float s = _mm512_reduce_add_ps(sv);
    if (kind == SM_SOFT) {
        const __m512 inv = _mm512_set1_ps(1.0f / s), tiny = _mm512_set1_ps(2.0f * FLT_MIN * s);
        for (int64_t i = 0; i < R; i += 16) {
            __mmask16 k = tail_mask(R - i);
            __m512 e = _mm512_maskz_loadu_ps(k, y + i);
            __mmask16 big = _mm512_cmp_ps_mask(e, tiny, _CMP_NLT_UQ);
            _mm512_mask_storeu_ps(y + i, k, _mm512_maskz_mul_ps(big, e, inv));
        }
    } else {
        const __m512 sh = _mm512_set1_ps(mx + logf(s));
        for (int64_t i = 0; i < R; i += 16) {
            __mmask16 k = tail_mask(R - i);
            _mm512_mask_storeu_ps(y + i, k, _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), sh));
        }
    }
}

static void rows_avx512(int kind, const float *x, float *y, int64_t n, int64_t R)
{
    for (int64_t o = 0; o < n; o++) row(kind, x + o * R, y + o * R, R);
}

static int smx_init(g_graph *g, g_node *n, void **state)
{
    *state = NULL;
    if (!x86_has_avx512()) return K_DECLINE;
    int r = softmax_init(g, n, state);
    if (r) return r;
    ((sm_state *)*state)->rows = rows_avx512;
    return 0;
}

#define SMX_OP(var, name)                                                                                   \
    static const k_op var = {                                                                               \
        .op_type = name, .domain = "", .since = 1, .until = 0, .impl = "avx512", .priority = 10,            \
        .init = smx_init, .infer = softmax_infer, .run = softmax_run, .fini = softmax_fini,                  \
    };                                                                                                      \
    K_REGISTER(var);
SMX_OP(k_softmax_avx512, "Softmax")
SMX_OP(k_logsoftmax_avx512, "LogSoftmax")
#endif
