/* x * sigmoid(x) in place, for convolutions whose fused chain ends in SiLU
 * (EfficientNet, YOLO-style nets). oneDNN 2.6's swish post-op costs about
 * twice what this pass does on AVX-512. The pass is bound by arithmetic,
 * not memory (a 7x7x1152 output in L2 costs as much per value as a
 * 112x112x96 one from L3), so every instruction counts:
 *  - float32: exp by a degree-5 minimax polynomial on [-ln2/2, ln2/2] with
 *    2^k scaling, the reciprocal by rcp14 and one Newton step (~3e-7
 *    relative);
 *  - bf16-grade (bfloat16 outputs, and float32 outputs of convolutions that
 *    computed in bfloat16): 2^f by a degree-3 polynomial on [-1/2, 1/2],
 *    rcp14 alone (< 2e-4 relative), bfloat16 stores by vcvtneps2bf16; 11
 *    instructions against 17. */
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_qdw.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include "kernels/silu16.h"
#define DN_SILU_AVX512 1
#endif

static inline float bf16_widen(uint16_t v)
{
    union { uint32_t u; float f; } c = { .u = (uint32_t)v << 16 };
    return c.f;
}

static inline uint16_t bf16_round(float f)
{
    union { uint32_t u; float f; } c = { .f = f };
    if (f != f) return (uint16_t)((c.u >> 16) | 0x40u);   /* quiet NaN */
    return (uint16_t)((c.u + 0x7fffu + ((c.u >> 16) & 1u)) >> 16);
}

static void silu_scalar(float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float x = y[i];
        y[i] = x / (1.0f + expf(-x));
    }
}

static void silu_bf16_scalar(uint16_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float x = bf16_widen(y[i]);
        y[i] = bf16_round(x / (1.0f + expf(-x)));
    }
}

#ifdef DN_SILU_AVX512
#define SILU_LOOP_F32(NAME, F)                                                                       \
    __attribute__((target("avx512f"))) static void NAME(float *y, size_t n)                          \
    {                                                                                                \
        size_t i = 0;                                                                                \
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, F(_mm512_loadu_ps(y + i)));             \
        silu_scalar(y + i, n - i);                                                                   \
    }
SILU_LOOP_F32(silu_avx512, silu16)
SILU_LOOP_F32(silu_div_avx512, silu16_div)
SILU_LOOP_F32(silu_fast_avx512, silu16_fast)
SILU_LOOP_F32(silu_fast_div_avx512, silu16_fast_div)

/* bf16 in and out, 32 values a step: one 512-bit load holds them in pairs,
 * the even ones widened by a shift, the odd ones by a mask (no shuffles);
 * both halves rounded to nearest even by one two-source conversion, whose
 * word order [even | odd] one permute interleaves again. 16-value steps
 * and scalars for what remains. Against widening 16 values at a time this
 * takes ~20 % less time per value. */
#define SILU_LOOP_BF16(NAME, F)                                                                      \
    __attribute__((target("avx512f,avx512bw,avx512bf16"))) static void NAME(uint16_t *y, size_t n)   \
    {                                                                                                \
        static const short ilv[32] = { 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,          \
                                       8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31 }; \
        const __m512i perm = _mm512_loadu_si512((const void *)ilv);                                  \
        const __m512i odd = _mm512_set1_epi32((int)0xffff0000u);                                     \
        size_t i = 0;                                                                                \
        for (; i + 32 <= n; i += 32) {                                                               \
            __m512i w = _mm512_loadu_si512((const void *)(y + i));                                   \
            __m512 ev = F(_mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));                            \
            __m512 od = F(_mm512_castsi512_ps(_mm512_and_si512(w, odd)));                            \
            __m512i pk = (__m512i)_mm512_cvtne2ps_pbh(od, ev);                                       \
            _mm512_storeu_si512((void *)(y + i), _mm512_permutexvar_epi16(perm, pk));                \
        }                                                                                            \
        for (; i + 16 <= n; i += 16) {                                                               \
            __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(y + i)));         \
            __m512 v = F(_mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));                             \
            _mm256_storeu_si256((__m256i *)(y + i), (__m256i)_mm512_cvtneps_pbh(v));                 \
        }                                                                                            \
        silu_bf16_scalar(y + i, n - i);                                                              \
    }
SILU_LOOP_BF16(silu_bf16_avx512, silu16_fast)
SILU_LOOP_BF16(silu_bf16_div_avx512, silu16_fast_div)
#endif

enum { CPU_PLAIN, CPU_AVX512, CPU_AVX512_BF16 };

static int cpu_level(void)
{
    static int level = -1;
    if (level < 0) {
#ifdef DN_SILU_AVX512
        level = !__builtin_cpu_supports("avx512f") ? CPU_PLAIN :
                __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") ? CPU_AVX512_BF16 :
                CPU_AVX512;
#else
        level = CPU_PLAIN;
#endif
    }
    return level;
}

enum { PASS_F32, PASS_F32_FAST, PASS_BF16 };

static void silu_range(void *y, size_t a, size_t b, int pass, int div, int level)
{
    if (pass == PASS_BF16) {
        uint16_t *h = (uint16_t *)y + a;
#ifdef DN_SILU_AVX512
        if (level == CPU_AVX512_BF16) {
            if (div) silu_bf16_div_avx512(h, b - a);
            else silu_bf16_avx512(h, b - a);
            return;
        }
#endif
        silu_bf16_scalar(h, b - a);
        return;
    }
    float *f = (float *)y + a;
#ifdef DN_SILU_AVX512
    if (level >= CPU_AVX512) {
        if (pass == PASS_F32_FAST) (div ? silu_fast_div_avx512 : silu_fast_avx512)(f, b - a);
        else (div ? silu_div_avx512 : silu_avx512)(f, b - a);
        return;
    }
#endif
    (void)level;
    (void)div;
    silu_scalar(f, b - a);
}

static void silu_run(void *y, size_t n, int threads, int pass, int div)
{
    int level = cpu_level();
    if (threads < 1 || n < ((size_t)1 << 15)) threads = 1;
    if (threads == 1) { silu_range(y, 0, n, pass, div, level); return; }
#pragma omp parallel num_threads(threads)
    {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        /* chunks on 32-value boundaries (the bf16 loop's step) */
        size_t blocks = (n + 31) / 32, b0 = blocks * (size_t)t / (size_t)nt, b1 = blocks * (size_t)(t + 1) / (size_t)nt;
        size_t a = b0 * 32, b = b1 * 32 < n ? b1 * 32 : n;
        if (a < b) silu_range(y, a, b, pass, div, level);
    }
}

/* OPENACL_SILU_FOLD as a form (read per load: mdl_bench --ab): "0"
 * DN_SILU_PLAIN, "1" DN_SILU_FOLD_K, else -1 (unset: the default) */
static int silu_fold_env(void)
{
    const char *e = getenv("OPENACL_SILU_FOLD");
    return !e ? -1 : !strcmp(e, "0") ? DN_SILU_PLAIN : !strcmp(e, "1") ? DN_SILU_FOLD_K : -1;
}

int dn_silu_form(float *sc, int64_t n)
{
    int fold = silu_fold_env();
#ifdef DN_SILU_AVX512
    if (!__builtin_cpu_supports("avx512dq")) fold = DN_SILU_PLAIN;   /* vreduceps */
#else
    fold = DN_SILU_PLAIN;
#endif
    if (fold < 0) fold = DN_SILU_FOLD_T;
    for (int64_t c = 0; fold == DN_SILU_FOLD_T && c < n; c++) sc[c] *= -1.44269504088896341f;
    return fold;
}

int dn_silu_fold_set(void) { return silu_fold_env() >= 0; }

int dn_silu_div(int fast)
{
#ifdef DN_SILU_AVX512
    return silu16_prefer_div(fast);
#else
    (void)fast;
    return 0;
#endif
}

void dn_silu_f32(float *y, size_t n, int threads, int div) { silu_run(y, n, threads, PASS_F32, div); }
void dn_silu_f32_fast(float *y, size_t n, int threads, int div) { silu_run(y, n, threads, PASS_F32_FAST, div); }
void dn_silu_bf16(uint16_t *y, size_t n, int threads, int div) { silu_run(y, n, threads, PASS_BF16, div); }

/* SiLU chains: oneDNN 2.6's swish post-op inside the int8 kernels costs
 * several times the integer product on the expand and depthwise layers of
 * EfficientNet-style nets (their reduction depth is small), so those
 * convolutions write the real values (float32, output scales x_scale *
 * w_scale[c]) and this pass applies x * sigmoid(x) and quantises:
 * saturate(round(v / y_scale) + y_zp), ties to even as QuantizeLinear. The
 * pass is bound by arithmetic (about a cycle a value), so it takes the
 * bf16-grade sigmoid (< 2e-4 relative: under 0.06 of a quantisation step at
 * 255 steps). */
static void silu_q_scalar(const float *f, void *dst, size_t n, float inv, int32_t zp, int s8, int tin)
{
    int lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
    for (size_t i = 0; i < n; i++) {
        float x = tin ? f[i] * -0.693147180559945309f : f[i], v = nearbyintf(x / (1.0f + expf(-x)) * inv) + (float)zp;
        int q = v < (float)lo ? lo : v > (float)hi ? hi : (int)v;
        if (s8) ((int8_t *)dst)[i] = (int8_t)q;
        else ((uint8_t *)dst)[i] = (uint8_t)q;
    }
}

#ifdef DN_SILU_AVX512
#define SQ_TGT __attribute__((target("avx512f,avx512bw,avx512dq")))

/* 64 values a step saturated to bytes by two packs and one dword
 * permutation (four 16-lane narrowing conversions take two uops each on
 * the shuffle port); the packs saturate as the conversions do (signed
 * int32 -> int16 -> uint8 / int8), so the bytes are the same. FOLD: the
 * step with y_scale folded in (dn_silu_q16k), else dn_silu_q16. */
#define SILU_Q16(v, DIV, FOLD) dn_silu_qstep((v), &kc, vi, vz, FOLD, DIV)
#define SILU_Q_LOOP(NAME, DIV, FOLD)                                                                 \
    SQ_TGT static void NAME(const float *f, void *dst, size_t n, float inv, int32_t zp, int s8, int pack) \
    {                                                                                                \
        const __m512 vi = _mm512_set1_ps(inv), vz = _mm512_set1_ps((float)zp);                       \
        const __m512i perm = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15); \
        const __m512i z0 = _mm512_setzero_si512();                                                   \
        dn_silu_k kc;                                                                                \
        dn_silu_qk(&kc, 1.0f / inv, zp, FOLD);                                                       \
        size_t i = 0;                                                                                \
        for (; pack && i + 64 <= n; i += 64) {                                                       \
            __m512i q0 = SILU_Q16(_mm512_loadu_ps(f + i), DIV, FOLD);                                \
            __m512i q1 = SILU_Q16(_mm512_loadu_ps(f + i + 16), DIV, FOLD);                           \
            __m512i q2 = SILU_Q16(_mm512_loadu_ps(f + i + 32), DIV, FOLD);                           \
            __m512i q3 = SILU_Q16(_mm512_loadu_ps(f + i + 48), DIV, FOLD);                           \
            __m512i w01 = _mm512_packs_epi32(q0, q1), w23 = _mm512_packs_epi32(q2, q3);              \
            __m512i b = s8 ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23);           \
            _mm512_storeu_si512((char *)dst + i, _mm512_permutexvar_epi32(perm, b));                 \
        }                                                                                            \
        for (; i + 16 <= n; i += 16) {                                                               \
            __m512i q = SILU_Q16(_mm512_loadu_ps(f + i), DIV, FOLD);                                 \
            if (s8) _mm_storeu_si128((__m128i *)((int8_t *)dst + i), _mm512_cvtsepi32_epi8(q));      \
            else _mm_storeu_si128((__m128i *)((uint8_t *)dst + i), _mm512_cvtusepi32_epi8(_mm512_max_epi32(q, z0))); \
        }                                                                                            \
        silu_q_scalar(f + i, (char *)dst + i, n - i, inv, zp, s8, FOLD == DN_SILU_FOLD_T);          \
    }
SILU_Q_LOOP(silu_q_avx512, 0, 0)
SILU_Q_LOOP(silu_q_div_avx512, 1, 0)
SILU_Q_LOOP(silu_qk_avx512, 0, 1)
SILU_Q_LOOP(silu_qk_div_avx512, 1, 1)
SILU_Q_LOOP(silu_qt_avx512, 0, 2)
SILU_Q_LOOP(silu_qt_div_avx512, 1, 2)
#endif

static void silu_q_range(const float *f, void *dst, size_t n, float inv, int32_t zp, int s8, int div, int pack,
                         int fold)
{
#ifdef DN_SILU_AVX512
    if (dn_has_avx512()) {
        if (fold == DN_SILU_FOLD_T) (div ? silu_qt_div_avx512 : silu_qt_avx512)(f, dst, n, inv, zp, s8, pack);
        else if (fold) (div ? silu_qk_div_avx512 : silu_qk_avx512)(f, dst, n, inv, zp, s8, pack);
        else (div ? silu_q_div_avx512 : silu_q_avx512)(f, dst, n, inv, zp, s8, pack);
        return;
    }
#endif
    silu_q_scalar(f, dst, n, inv, zp, s8, fold == DN_SILU_FOLD_T);
}

void dn_silu_q(const float *f, void *dst, size_t n, float inv, int32_t zp, int s8, int div, int pack, int fold,
               int threads)
{
    if (threads < 1 || n < ((size_t)1 << 14)) threads = 1;
    if (threads == 1) { silu_q_range(f, dst, n, inv, zp, s8, div, pack, fold); return; }
#pragma omp parallel num_threads(threads)
    {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        size_t blocks = (n + 15) / 16, b0 = blocks * (size_t)t / (size_t)nt, b1 = blocks * (size_t)(t + 1) / (size_t)nt;
        size_t a = b0 * 16, b = b1 * 16 < n ? b1 * 16 : n;
        if (a < b) silu_q_range(f + a, (char *)dst + a, b - a, inv, zp, s8, div, pack, fold);
    }
}
