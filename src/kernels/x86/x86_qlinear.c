/* QLinearAdd, the int8 pass's QLinearMul forms and QLinearGlobalAveragePool
 * (com.microsoft) with AVX-512 / AVX2 inner loops: the driver is the reference's
 * (kernels/ref/nn_qlinear.c, through nn_qlinear.h), only the uint8 loops
 * differ. They compute the reference's float32 steps in its order (no fused
 * multiply-add: this folder builds with -ffp-contract=off; rounding half to
 * even by the conversion's or roundps' default mode, which is rintf's), so
 * their bytes are the reference's (tests/kernels_x86). The channel scaling
 * row is 16 lanes wide; the same-shape product and sum are 8-lane AVX2
 * loops, which the AVX-512 CPUs this implementation runs on execute as
 * they are. */
#include "kernels/ref/nn_qlinear.h"
#include "kernels/x86/x86_common.h"
#include <stdlib.h>
#include <string.h>

#ifdef X86_SIMD
/* 8 floats rounded half to even, clamped to [lo, hi] (within 0..255), to bytes */
__attribute__((target("avx2"))) static inline void st8_u8(uint8_t *y, __m256 v, __m256 lo, __m256 hi)
{
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    __m256i q = _mm256_cvtps_epi32(v);
    __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    _mm_storel_epi64((__m128i *)y, _mm_packus_epi16(w, w));
}

__attribute__((target("avx2"))) static inline __m256 ld8_f(const uint8_t *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

__attribute__((target("avx2"))) static void qmul_row_avx2(const uint8_t *a, uint8_t *y, int64_t n,
                                                          const float *f, int fstep, float za, float zc)
{
    /* f[0] only when the row has one factor: with one per value, f may
     * point just past the factors when no value is left (n == 0) */
    __m256 vz = _mm256_set1_ps(za), vc = _mm256_set1_ps(zc), f0 = _mm256_set1_ps(fstep ? 0.f : f[0]);
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_set1_ps(255.f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 fv = fstep ? _mm256_loadu_ps(f + i) : f0;
        __m256 v = _mm256_mul_ps(_mm256_sub_ps(ld8_f(a + i), vz), fv);
        v = _mm256_add_ps(_mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vc);
        st8_u8(y + i, v, lo, hi);
    }
    nn_ql_rows_c.mul_row(a + i, y + i, n - i, fstep ? f + i : f, fstep, za, zc);
}

/* (a - za) * f rounded half to even (the conversion's default mode), plus
 * zc, as int32, for the 16 values at a + i */
__attribute__((target("avx512f"))) static inline __m512i qmul16(const uint8_t *a, const float *f, int fstep,
                                                               __m512 f0, __m512 vz, __m512i vc, int64_t i)
{
    __m512 fv = fstep ? _mm512_loadu_ps(f + i) : f0;
    __m512 x = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(a + i))));
    return _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_sub_ps(x, vz), fv)), vc);
}

/* 64 values a step saturated to 0..255 by two packs (signed int32 ->
 * int16 -> uint8, as the clamp) and a dword permutation, then 16 a step by
 * the narrowing conversion (two shuffle uops per 16 values); the squeeze-
 * excite scaling's rows are 96 to 1152 channels */
__attribute__((target("avx512f,avx512bw"))) static void qmul_row_avx512(const uint8_t *a, uint8_t *y, int64_t n,
                                                                       const float *f, int fstep, float za, float zc)
{
    __m512 vz = _mm512_set1_ps(za), f0 = _mm512_set1_ps(fstep ? 0.f : f[0]);
    __m512i vc = _mm512_set1_epi32((int32_t)zc), z0 = _mm512_setzero_si512();
    const __m512i perm = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i w01 = _mm512_packs_epi32(qmul16(a, f, fstep, f0, vz, vc, i), qmul16(a, f, fstep, f0, vz, vc, i + 16));
        __m512i w23 = _mm512_packs_epi32(qmul16(a, f, fstep, f0, vz, vc, i + 32), qmul16(a, f, fstep, f0, vz, vc, i + 48));
        _mm512_storeu_si512(y + i, _mm512_permutexvar_epi32(perm, _mm512_packus_epi16(w01, w23)));
    }
    for (; i + 16 <= n; i += 16) {
        __m512i q = qmul16(a, f, fstep, f0, vz, vc, i);
        _mm_storeu_si128((__m128i *)(y + i), _mm512_cvtusepi32_epi8(_mm512_max_epi32(q, z0)));
    }
    qmul_row_avx2(a + i, y + i, n - i, fstep ? f + i : f, fstep, za, zc);
}

__attribute__((target("avx2"))) static void qmul_u8_avx2(const uint8_t *a, const uint8_t *b, uint8_t *y,
                                                         int64_t n, float za, float zb, float k, float zc)
{
    __m256 va = _mm256_set1_ps(za), vb = _mm256_set1_ps(zb), vk = _mm256_set1_ps(k), vc = _mm256_set1_ps(zc);
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_set1_ps(255.f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(ld8_f(a + i), va), _mm256_sub_ps(ld8_f(b + i), vb)), vk);
        v = _mm256_add_ps(_mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vc);
        st8_u8(y + i, v, lo, hi);
    }
    nn_ql_rows_c.mul_u8(a + i, b + i, y + i, n - i, za, zb, k, zc);
}

__attribute__((target("avx2"))) static void qadd_u8_avx2(const uint8_t *a, const uint8_t *b, uint8_t *y,
                                                         int64_t n, float ra, float rb, float off,
                                                         float lo, float hi)
{
    __m256 va = _mm256_set1_ps(ra), vb = _mm256_set1_ps(rb), vo = _mm256_set1_ps(off);
    __m256 vl = _mm256_set1_ps(lo), vh = _mm256_set1_ps(hi);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ld8_f(a + i), va), _mm256_mul_ps(ld8_f(b + i), vb)), vo);
        st8_u8(y + i, v, vl, vh);
    }
    nn_ql_rows_c.add_u8(a + i, b + i, y + i, n - i, ra, rb, off, lo, hi);
}

#define GAP_TGT __attribute__((target("avx512f,avx512bw,avx512vl")))

/* 32 channels-last channels: two pixels per 64-byte load, one in each
 * accumulator's 16-bit lanes (128 rows of at most 255 each before the
 * 32-bit sums), summed at the end; the same integer sums. */
GAP_TGT static void gap_sum_nhwc32(const uint8_t *x, int64_t plane, int64_t *sum)
{
    __m512i s0 = _mm512_setzero_si512(), s1 = s0;
    for (int64_t p0 = 0; p0 < plane; p0 += 256) {
        int64_t p1 = plane - p0 < 256 ? plane : p0 + 256, p = p0;
        __m512i a0 = _mm512_setzero_si512(), a1 = a0;
        for (; p + 2 <= p1; p += 2) {
            __m512i v = _mm512_loadu_si512(x + p * 32);
            a0 = _mm512_add_epi16(a0, _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v)));
            a1 = _mm512_add_epi16(a1, _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(v, 1)));
        }
        if (p < p1) a0 = _mm512_add_epi16(a0, _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(x + p * 32))));
        s0 = _mm512_add_epi32(s0, _mm512_add_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(a0)),
                                                   _mm512_cvtepu16_epi32(_mm512_castsi512_si256(a1))));
        s1 = _mm512_add_epi32(s1, _mm512_add_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(a0, 1)),
                                                   _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(a1, 1))));
    }
    uint32_t t[32];
    _mm512_storeu_si512(t, s0);
    _mm512_storeu_si512(t + 16, s1);
    for (int c = 0; c < 32; c++) sum[c] = t[c];
}

/* Channels-last sums, 64 channels a step: each row's bytes widened to
 * 16-bit lanes and added there (256 rows of at most 255 fit), then into
 * 32-bit sums every 256 rows; integer sums, so exactly the reference's.
 * A last step of 32 channels or fewer takes one half (the other was a
 * masked load of nothing and its widening: EfficientNet-B0's 96 and 144
 * channels); 32 channels in all: gap_sum_nhwc32 (OPENACL_GAP_PAIRS=0: as
 * before, both halves always, a pixel a step). */
GAP_TGT static void gap_sum_nhwc(const uint8_t *x, int64_t C, int64_t plane, int64_t *sum, int pairs)
{
    if (pairs && C == 32) { gap_sum_nhwc32(x, plane, sum); return; }
    for (int64_t c0 = 0; c0 < C; c0 += 64) {
        int64_t left = C - c0;
        int half = pairs && left <= 32;
        __mmask32 m0 = left >= 32 ? ~(__mmask32)0 : (__mmask32)((1u << left) - 1);
        __mmask32 m1 = left >= 64 ? ~(__mmask32)0 : left <= 32 ? 0 : (__mmask32)((1u << (left - 32)) - 1);
        __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
        for (int64_t p0 = 0; p0 < plane; p0 += 256) {
            int64_t p1 = plane - p0 < 256 ? plane : p0 + 256;
            __m512i a0 = _mm512_setzero_si512(), a1 = a0;
            const uint8_t *row = x + p0 * C + c0;
            if (half)
                for (int64_t p = p0; p < p1; p++, row += C)
                    a0 = _mm512_add_epi16(a0, _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m0, row)));
            else
                for (int64_t p = p0; p < p1; p++, row += C) {
                    a0 = _mm512_add_epi16(a0, _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m0, row)));
                    a1 = _mm512_add_epi16(a1, _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m1, row + 32)));
                }
            s0 = _mm512_add_epi32(s0, _mm512_cvtepu16_epi32(_mm512_castsi512_si256(a0)));
            s1 = _mm512_add_epi32(s1, _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(a0, 1)));
            s2 = _mm512_add_epi32(s2, _mm512_cvtepu16_epi32(_mm512_castsi512_si256(a1)));
            s3 = _mm512_add_epi32(s3, _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(a1, 1)));
        }
        uint32_t t[64];
        _mm512_storeu_si512(t, s0);
        _mm512_storeu_si512(t + 16, s1);
        _mm512_storeu_si512(t + 32, s2);
        _mm512_storeu_si512(t + 48, s3);
        for (int64_t c = 0; c < (left < 64 ? left : 64); c++) sum[c0 + c] = t[c];
    }
}

/* Plain planes: vpsadbw sums eight bytes into each 64-bit lane. */
GAP_TGT static void gap_sum_planes(const uint8_t *x, int64_t C, int64_t plane, int64_t *sum)
{
    const __m512i z = _mm512_setzero_si512();
    for (int64_t c = 0; c < C; c++) {
        const uint8_t *p = x + c * plane;
        __m512i acc = z;
        int64_t i = 0;
        for (; i + 64 <= plane; i += 64) acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_loadu_si512(p + i), z));
        if (i < plane) {
            __mmask64 m = (__mmask64)(~0ull >> (64 - (plane - i)));
            acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(m, p + i), z));
        }
        sum[c] = _mm512_reduce_add_epi64(acc);
    }
}

static void gap_sum_avx512(const uint8_t *x, int64_t C, int64_t plane, int nhwc, int64_t *sum)
{
    if (nhwc) gap_sum_nhwc(x, C, plane, sum, 1);
    else gap_sum_planes(x, C, plane, sum);
}

static void gap_sum_avx512_px(const uint8_t *x, int64_t C, int64_t plane, int nhwc, int64_t *sum)
{
    if (nhwc) gap_sum_nhwc(x, C, plane, sum, 0);
    else gap_sum_planes(x, C, plane, sum);
}

static const nn_ql_rows ql_rows_avx512 = { qmul_row_avx512, qmul_u8_avx2, qadd_u8_avx2, gap_sum_avx512 };
/* OPENACL_GAP_PAIRS=0 (read per load): channels-last sums a pixel a step, both halves */
static const nn_ql_rows ql_rows_avx512_px = { qmul_row_avx512, qmul_u8_avx2, qadd_u8_avx2, gap_sum_avx512_px };

static int qadd_init(g_graph *g, g_node *n, void **st)
{
    *st = NULL;
    return x86_has_avx512() ? nn_qladd_init(g, n, st, &ql_rows_avx512) : K_DECLINE;
}

static int qmul_init(g_graph *g, g_node *n, void **st)
{
    *st = NULL;
    return x86_has_avx512() ? nn_qlmul_init(g, n, st, &ql_rows_avx512) : K_DECLINE;
}

/* before the reference QLinearAdd (0) and the layout QLinearMul (5) */
static const k_op k_qladd_avx512 = { .op_type = "QLinearAdd", .domain = "com.microsoft", .since = 1,
    .until = 0, .impl = "avx512", .priority = 10, .init = qadd_init, .infer = nn_qladd_infer,
    .run = nn_qladd_run, .fini = nn_ql_fini, .accepts_layout = nn_qladd_accepts };
K_REGISTER(k_qladd_avx512);
static const k_op k_qlmul_avx512 = { .op_type = "QLinearMul", .domain = "com.microsoft", .since = 1,
    .until = 0, .impl = "avx512", .priority = 10, .init = qmul_init, .infer = nn_qladd_infer,
    .plan = nn_qlmul_plan, .run = nn_qladd_run, .fini = nn_ql_fini, .accepts_layout = nn_qladd_accepts };
K_REGISTER(k_qlmul_avx512);

static int qgap_init(g_graph *g, g_node *n, void **st)
{
    *st = NULL;
    const char *e = getenv("OPENACL_GAP_PAIRS");   /* read per load: mdl_bench --ab */
    const nn_ql_rows *rows = e && !strcmp(e, "0") ? &ql_rows_avx512_px : &ql_rows_avx512;
    return x86_has_avx512() ? nn_qgap_init(g, n, st, rows) : K_DECLINE;
}

/* before the reference (0): the same requantisation, vector channel sums */
static const k_op k_qlgap_avx512 = { .op_type = "QLinearGlobalAveragePool", .domain = "com.microsoft",
    .since = 1, .until = 0, .impl = "avx512", .priority = 10, .init = qgap_init, .infer = nn_qgap_infer,
    .plan = nn_qgap_plan, .run = nn_qgap_run, .fini = nn_ql_fini, .accepts_layout = nn_qgap_accepts };
K_REGISTER(k_qlgap_avx512);
#endif
