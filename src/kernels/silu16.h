/* x * sigmoid(x) on 16 float lanes (AVX-512), shared by the SiLU pass
 * after convolutions (kernels/dnnl/dn_silu.c) and the squeeze-excite block
 * (kernels/ref/nn_se.c). Include only where __x86_64__ and GCC-compatible
 * compilers are known; callers check the CPU for avx512f. */
#ifndef OPENACL_SILU16_H
#define OPENACL_SILU16_H
#include <cpuid.h>
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

/* 1 + e^-x on 16 lanes, ~1e-7 relative: e^-z = 2^k e^-r' with z = x
 * clamped so 2^k stays finite, k = round(-z log2 e), r' = z + k ln2; the
 * polynomial is e^r at r = -r' (signs alternate) */
__attribute__((target("avx512f")))
static inline __m512 one_plus_exp_neg16(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 z = _mm512_max_ps(_mm512_min_ps(x, _mm512_set1_ps(88.0f)), _mm512_set1_ps(-88.0f));
    __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(z, _mm512_set1_ps(-1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fmadd_ps(k, _mm512_set1_ps(0.693145751953125f), z);
    r = _mm512_fmadd_ps(k, _mm512_set1_ps(1.428606765330187e-06f), r);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(-0.008290314115583897f), r, _mm512_set1_ps(0.04189793020486832f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(-0.1666763573884964f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.4999915063381195f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(-0.9999997019767761f));
    p = _mm512_fmadd_ps(p, r, one);
    return _mm512_add_ps(one, _mm512_scalef_ps(p, k));
}

/* x * sigmoid(x) on 16 lanes, ~3e-7 relative: 17 instructions (the
 * reciprocal by rcp14 and one Newton step) */
__attribute__((target("avx512f")))
static inline __m512 silu16(__m512 x)
{
    __m512 d = one_plus_exp_neg16(x);
    __m512 rc = _mm512_rcp14_ps(d);
    return _mm512_mul_ps(_mm512_mul_ps(x, rc), _mm512_fnmadd_ps(d, rc, _mm512_set1_ps(2.0f)));
}

/* sigmoid(x) on 16 lanes, ~3e-7 relative */
__attribute__((target("avx512f")))
static inline __m512 sigmoid16(__m512 x)
{
    __m512 d = one_plus_exp_neg16(x);
    __m512 rc = _mm512_rcp14_ps(d);
    return _mm512_mul_ps(rc, _mm512_fnmadd_ps(d, rc, _mm512_set1_ps(2.0f)));
}

/* 1 + 2^t on 16 lanes for the bf16-grade forms: t = -x log2 e, clamped
 * from below so 2^k stays finite (above, 2^t may overflow to infinity and
 * the quotient to 0, the limit); 2^f by a degree-3 polynomial on [-1/2, 1/2]
 * (~1e-4 relative) */
__attribute__((target("avx512f")))
static inline __m512 one_plus_exp_neg16_fast(__m512 x)
{
    __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(-1.44269504088896341f));
    t = _mm512_max_ps(t, _mm512_set1_ps(-126.0f));
    __m512 k = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 f = _mm512_sub_ps(t, k);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(0.05500892549753189f), f, _mm512_set1_ps(0.2422109842300415f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(0.6932829022407532f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
    return _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_scalef_ps(p, k));
}

/* bf16-grade: 11 instructions, < 2e-4 relative. Below -88 2^t overflows to
 * infinity and the reciprocal to 0 (result -0, as the limit; -inf gives NaN,
 * as x/(1+e^-x) does); t is clamped only from below, so silu(+inf) = +inf. */
__attribute__((target("avx512f")))
static inline __m512 silu16_fast(__m512 x)
{
    return _mm512_mul_ps(x, _mm512_rcp14_ps(one_plus_exp_neg16_fast(x)));
}

/* The same two with a true division instead of the reciprocal estimate
 * (and, for silu16, its Newton step). Which is faster depends on the
 * divider. On AMD Zen 5 (family 1Ah, the machine the benchmarks run on)
 * the division forms take 24 % (precise) and 8-21 % (bf16-grade) less time
 * per value. On Zen 4 (family 19h, whose 512-bit division is two 256-bit
 * halves) the precise form still gains (EfficientNet-B0 fp32 0.976x the
 * time) but the bf16-grade one, where the division replaces a single
 * rcp14, loses (EfficientNet-B0 int8 1.026x / 1.019x at 1 / 2 threads). On
 * Intel's AVX-512 cores a 512-bit division is several times the cost of
 * rcp14. Both are more exact than the reciprocal forms. */
__attribute__((target("avx512f")))
static inline __m512 silu16_div(__m512 x)
{
    return _mm512_div_ps(x, one_plus_exp_neg16(x));
}

__attribute__((target("avx512f")))
static inline __m512 silu16_fast_div(__m512 x)
{
    return _mm512_div_ps(x, one_plus_exp_neg16_fast(x));
}

/* The processor family of CPUID leaf 1 (base plus extended family). */
static inline unsigned silu16_cpu_family(void)
{
    unsigned a = 0, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    unsigned base = (a >> 8) & 0xf;
    return base == 0xf ? base + ((a >> 20) & 0xff) : base;
}

/* Whether the SiLU loops should use the division forms, for the precise
 * forms (fast 0) or the bf16-grade ones (fast 1): OPENACL_SILU_DIV "1" or
 * "0" when set, else on AMD processors, for the bf16-grade forms from Zen 5
 * (family 1Ah) on. Callers ask once per model load and keep the answer
 * (A/B runs set the variable per load). */
static inline int silu16_prefer_div(int fast)
{
    const char *e = getenv("OPENACL_SILU_DIV");
    if (e && *e) return strcmp(e, "0") != 0;
    if (!__builtin_cpu_is("amd")) return 0;
    return !fast || silu16_cpu_family() >= 0x1a;
}

#endif
