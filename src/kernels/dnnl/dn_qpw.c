/* Direct int8 1x1 convolution over channels-last uint8 tensors with
 * AVX-512 VNNI: a tile of output pixels times all output channels in
 * registers, the reduction over the input channels inner.
 *
 * oneDNN 2.6's brgconv_1x1 runs MobileNetV2's and EfficientNet-B0's
 * few-channel layers over large planes (16 -> 96 at 112x112, 24 -> 144 at
 * 56x56, the 96 -> 24 / 144 -> 24 projections) at a quarter to two fifths
 * of the VNNI peak: with K = 16 or 24 there are only four to six vpdpbusd
 * per 16 outputs, and its per-block overheads and requantisation weigh as
 * much. Here one pixel's M outputs are NR = M / 16 (rounded up)
 * accumulators; a tile of PT pixels (PT x NR <= 24) keeps them all in
 * registers, and per quadruple of input channels the NR weight registers
 * are loaded once and meet a 32-bit broadcast of each pixel's quadruple
 * (a load-port uop, no shuffle; a tile shape's indices all constants, or
 * GCC keeps the accumulators on the stack). The requantisation follows
 * dn_qdw.c's float order but for the zero point, oneDNN's: the int32 sum, its bias
 * first, times the output scale, the clamp, plus y_zp (dn_qdw.c adds it in
 * the fma, which may round a tie the other way), round half to even,
 * saturate; or the SiLU step of dn_silu.c on the sum times the scale; or
 * a folded residual's chain as oneDNN's post-ops run it (qpw_rq_add).
 * Whole 64-channel groups narrow by two packs, which is why their weights
 * are packed with the channels 64g + 16L + 4k + j in lane L, dword j of
 * the group's register k; the 17-32 channels past them (96, 24, 32
 * outputs) by the same packs over two pixels and a qword permutation, and
 * 1-16 channels (144, 80, 16) over four pixels and a dword permutation
 * (chan_of gives both orders).
 *
 * The input zero point: the products run on the stored bytes and the
 * packed bias carries bias - x_zp * sum(w) per channel. Threads take
 * contiguous bands of pixels. */
#include "kernels/dnnl/dn_qpw.h"
#include "core/par.h"
#include "kernels/dnnl/dn_qdw.h"
#include <stdlib.h>
#include <string.h>

#define QPW_MAXR 12   /* output registers of a pixel in one tile (M <= 192; more: chunks, qpw_band) */

int dn_qpw_disabled(void)
{
    const char *e = getenv("OPENACL_NO_QPW");   /* read per build: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
}

static int64_t nreg(int64_t M) { return (M + 15) / 16; }

/* bench/qpw_bench, 1 thread, medians, oneDNN -> this loop (same bytes):
 * expansions 16 -> 96 at 112x112 0.231 -> 0.114 ms, 24 -> 144 at 56x56
 * 0.097 -> 0.052, 32 -> 192 at 28x28 0.037 -> 0.021, in chunks 40 -> 240
 * at 28x28 0.050 -> 0.034, 64 -> 384 at 14x14 0.025 -> 0.020, 80 -> 480
 * 0.035 -> 0.029, 96 -> 576 0.046 -> 0.041, ResNet-50's 64 -> 256 at
 * 56x56 0.255 -> 0.212; projections 96 -> 24 at 56x56 0.041 -> 0.031,
 * 144 -> 24 0.054 -> 0.044, 32 -> 16 at 112x112 0.048 -> 0.039, 144 -> 32
 * at 28x28 0.0135 -> 0.0111, 192 -> 64 at 14x14 0.0087 -> 0.0071. Less
 * with a longer reduction against many outputs (112 -> 672 0.058 -> 0.056,
 * 384 -> 96 at 14x14 0.0224 -> 0.0199), a loss from 160 -> 960 at 7x7
 * (0.027 -> 0.028; 192 -> 1152 0.037 -> 0.040) and where ten or more
 * output registers leave a tile of two pixels against a long reduction
 * (576 -> 160 at 7x7 0.014 -> 0.024). In a model the SiLU layers gain
 * more, their SiLU in registers instead of a float32 pass after oneDNN:
 * EfficientNet-B0's 112 -> 672 at 14x14 0.105 -> 0.095 ms at 1 thread (CPU
 * time, an AMD Zen 4 host), the model at 2 threads 0.968-0.973x. So: up to
 * 192 input channels and 16 to 128 outputs, or up to 128 inputs and 1024
 * outputs; the whole 64-channel groups' count M / 64 as the registers' NR /
 * 4 (qpw_tile). */
int dn_qpw_takes(int64_t C, int64_t M)
{
    return C % 4 == 0 && C >= 4 && C <= 192 && M % 8 == 0 && M >= 16 && (M % 64 == 0 || M % 64 <= 48) &&
           (M <= 128 || (C <= 128 && M <= 1024));
}

/* With the residual chain, bench/qpw_bench POST 2: 192 -> 32 at 28x28
 * 0.0192 -> 0.0172 ms, 144 -> 24 at 56x56 0.067 -> 0.056; but in the
 * models the latter was level (MobileNetV2, 0.080 ms either way) or slower
 * (EfficientNet-B0, 0.073 -> 0.078): 32 outputs only. */
int dn_qpw_takes_add(int64_t C, int64_t M)
{
    return dn_qpw_takes(C, M) && M == 32;
}

static size_t w_bytes(int64_t C, int64_t M) { return (size_t)(C / 4) * (size_t)nreg(M) * 64; }

size_t dn_qpw_packed_bytes(int64_t C, int64_t M) { return w_bytes(C, M) + (size_t)nreg(M) * 128; }

/* channel of dword pos of output register r (whole 64-channel groups in
 * the packs' order, the rest in order); M or more: none */
static int64_t chan_of(int64_t r, int pos, int64_t M)
{
    if (r < M / 64 * 4) return 64 * (r / 4) + 16 * (pos / 4) + 4 * (r % 4) + pos % 4;
    int64_t rr = r - M / 64 * 4;
    if (M % 64 > 16 && rr < 2) return M / 64 * 64 + 8 * (pos / 4) + 4 * rr + pos % 4;   /* qpw_rem32 */
    return 16 * r + pos;   /* qpw_rem16: in order */
}

void dn_qpw_pack(const int8_t *w, const int32_t *bias, const float *oscale, int64_t nsc, int64_t C, int64_t M,
                 int32_t xzp, void *dst)
{
    int64_t nr = nreg(M);
    memset(dst, 0, dn_qpw_packed_bytes(C, M));
    int8_t *wq = dst;
    int32_t *bq = (int32_t *)((char *)dst + w_bytes(C, M));
    float *sq = (float *)(bq + nr * 16);
    for (int64_t r = 0; r < nr; r++)
        for (int pos = 0; pos < 16; pos++) {
            int64_t m = chan_of(r, pos, M);
            if (m >= M) continue;
            int32_t sw = 0;
            for (int64_t c = 0; c < C; c++) {
                sw += w[m * C + c];
                wq[((c / 4 * nr + r) * 16 + pos) * 4 + c % 4] = w[m * C + c];
            }
            /* wraps as the int32 sums do */
            bq[r * 16 + pos] = (int32_t)((uint32_t)(bias ? bias[m] : 0) - (uint32_t)xzp * (uint32_t)sw);
            sq[r * 16 + pos] = oscale[nsc > 1 ? m : 0];
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define QPW_TGT __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")))

/* The tiles rely on full unrolling and forced inlining so that their
 * accumulators stay in registers. Under a sanitizer that costs minutes of
 * compile time per build (the fuzzers' clang with ASan and UBSan: more than
 * 14 minutes for this file, 1 s without), so there the loops stay loops and
 * the helpers plain static functions: the same arithmetic, the same bytes,
 * only slower. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define QPW_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define QPW_SANITIZED 1
#endif
#ifdef QPW_SANITIZED
#define QPW_INLINE static inline
#define QPW_UNROLL(n)
#else
#define QPW_PRAGMA(x) _Pragma(#x)
#define QPW_INLINE __attribute__((always_inline)) static inline
#define QPW_UNROLL(n) QPW_PRAGMA(GCC unroll n)
#endif

/* the requantisation's constants (as dn_qdw.c's qdw_rq) */
typedef struct qpw_rq {
    __m512 vz, lo, hi, vi, clo, chi, ssc, rzp, lin;
    dn_silu_k kc;
    int use_lo, use_hi;
    const float *sc;
    __m512i zero;
} qpw_rq;

QPW_TGT static void qpw_rq_init(const dn_qpw_geo *g, const float *sc, qpw_rq *c)
{
    float qmin = g->s8 ? -128.f : 0.f, qmax = g->s8 ? 127.f : 255.f, z = (float)g->yzp;
    c->vz = _mm512_set1_ps(z);
    c->lo = _mm512_set1_ps(g->lo);
    c->hi = _mm512_set1_ps(g->hi);
    c->vi = _mm512_set1_ps(g->inv_ys);
    dn_silu_qk(&c->kc, 1.0f / g->inv_ys, g->yzp, g->silu_fold);
    c->use_lo = g->keep_clamps ? g->lo + z > qmin - 0.5f : !(g->lo + z < qmin + 0.5f);
    c->use_hi = g->keep_clamps ? g->hi + z < qmax + 0.5f : !(g->hi + z > qmax - 0.5f);
    c->sc = sc;
    c->zero = _mm512_setzero_si512();
    c->clo = _mm512_set1_ps(g->clo);
    c->chi = _mm512_set1_ps(g->chi);
    c->ssc = _mm512_set1_ps(g->ssc);
    c->rzp = _mm512_set1_ps((float)g->rzp);
    c->lin = _mm512_set1_ps(g->lin);
}

/* one accumulator to 16 int32 output values (not yet saturated) */
QPW_TGT QPW_INLINE __m512i qpw_rq1(const dn_qpw_geo *g, const qpw_rq *c,
                                                                       __m512i acc, int64_t r)
{
    __m512 a = _mm512_cvtepi32_ps(acc), s = _mm512_loadu_ps(c->sc + 16 * r);
    if (g->silu) {
        return dn_silu_qstep(_mm512_mul_ps(a, s), &c->kc, c->vi, c->vz, g->silu_fold, g->silu_div);
    }
    __m512 v = _mm512_mul_ps(a, s);   /* oneDNN's order: the scale, the clamp, then y_zp */
    if (c->use_lo) v = _mm512_max_ps(v, c->lo);
    if (c->use_hi) v = _mm512_min_ps(v, c->hi);
    v = _mm512_add_ps(v, c->vz);
    return _mm512_cvtps_epi32(v);
}

/* the same with the residual chain (g->add): rv, the residual's 16 values
 * as int32 in the accumulator's channel order; oneDNN's post-ops in its
 * order: scale, clip, round, sum (rv - r_zp) * sum_scale in one fma, linear,
 * y_zp */
QPW_TGT QPW_INLINE __m512i qpw_rq_add(const qpw_rq *c, __m512i acc, int64_t r,
                                                                         __m512i rv)
{
    __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_loadu_ps(c->sc + 16 * r));
    v = _mm512_min_ps(_mm512_max_ps(v, c->clo), c->chi);
    v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm512_fmadd_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(rv), c->rzp), c->ssc, v);
    v = _mm512_add_ps(_mm512_mul_ps(v, c->lin), c->vz);
    return _mm512_cvtps_epi32(v);
}

/* a pixel's residual bytes rp (17-32 channels) as the two registers of
 * qpw_rem32's order: lane L, dword j of register k is channel 8L + 4k + j */
QPW_TGT QPW_INLINE void qpw_res32(const dn_qpw_geo *g, const uint8_t *rp,
                                                                     __mmask32 m, __m512i *rv)
{
    __m256i raw = _mm256_maskz_loadu_epi8(m, rp);
    __m128i lo = _mm256_castsi256_si128(raw), hi = _mm256_extracti128_si256(raw, 1);
    __m512i a = g->s8 ? _mm512_cvtepi8_epi32(lo) : _mm512_cvtepu8_epi32(lo);
    __m512i b = g->s8 ? _mm512_cvtepi8_epi32(hi) : _mm512_cvtepu8_epi32(hi);
    const __m512i i0 = _mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
    rv[0] = _mm512_permutex2var_epi32(a, i0, b);
    rv[1] = _mm512_permutex2var_epi32(a, _mm512_add_epi32(i0, _mm512_set1_epi32(4)), b);
}

/* one pixel's NR accumulators to its M output bytes at y (whole groups:
 * NR / 4 = M / 64, a constant with NR, so that the indices are too) */
QPW_TGT QPW_INLINE void qpw_store(const dn_qpw_geo *g, const qpw_rq *c,
                                                                     const __m512i *acc, int nr, uint8_t *y)
{
    int ng = nr / 4;
QPW_UNROLL(3)
    for (int k = 0; k < ng; k++) {
        const __m512i *a = acc + 4 * k;
        __m512i q0 = qpw_rq1(g, c, a[0], 4 * k), q1 = qpw_rq1(g, c, a[1], 4 * k + 1);
        __m512i q2 = qpw_rq1(g, c, a[2], 4 * k + 2), q3 = qpw_rq1(g, c, a[3], 4 * k + 3);
        __m512i w01 = _mm512_packs_epi32(q0, q1), w23 = _mm512_packs_epi32(q2, q3);
        _mm512_storeu_si512(y + 64 * k, g->s8 ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23));
    }
}

/* The 17 to 32 channels past the whole groups (registers r, r + 1 of a
 * pixel, a and b; c and d of the next one, or a and b again where y1 is
 * NULL) to bytes by the packs of the whole groups and one qword
 * permutation: lane L holds each pixel's 8L .. 8L + 7 (chan_of). */
QPW_TGT QPW_INLINE void qpw_rem32(const dn_qpw_geo *g, const qpw_rq *c,
                                                                     const __m512i *a, const __m512i *b, int r,
                                                                     uint8_t *y0, uint8_t *y1, const uint8_t *r0,
                                                                     const uint8_t *r1, int ADD)
{
    __mmask32 m = g->M % 64 >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << g->M % 64) - 1;
    __m512i q0, q1, q2, q3;
    if (ADD) {   /* the residual chain: g->M is 17 to 32 (dn_qpw_takes_add), r 0 */
        __m512i rv[2];
        qpw_res32(g, r0, m, rv);
        q0 = qpw_rq_add(c, a[0], r, rv[0]);
        q1 = qpw_rq_add(c, a[1], r + 1, rv[1]);
        if (b) qpw_res32(g, r1, m, rv);
        q2 = b ? qpw_rq_add(c, b[0], r, rv[0]) : q0;
        q3 = b ? qpw_rq_add(c, b[1], r + 1, rv[1]) : q1;
    } else {
        q0 = qpw_rq1(g, c, a[0], r);
        q1 = qpw_rq1(g, c, a[1], r + 1);
        q2 = b ? qpw_rq1(g, c, b[0], r) : q0;
        q3 = b ? qpw_rq1(g, c, b[1], r + 1) : q1;
    }
    __m512i w01 = _mm512_packs_epi32(q0, q1), w23 = _mm512_packs_epi32(q2, q3);
    __m512i v = g->s8 ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23);
    v = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), v);
    _mm256_mask_storeu_epi8(y0 + 16 * r, m, _mm512_castsi512_si256(v));
    if (y1) _mm256_mask_storeu_epi8(y1 + 16 * r, m, _mm512_extracti64x4_epi64(v, 1));
}

/* The 1 to 16 channels past the whole groups (register r) of up to four
 * pixels (acc[0], acc[NR], ...; n of them) by the same packs and one dword
 * permutation: pixel i's 16 bytes in lane i. */
QPW_TGT QPW_INLINE void qpw_rem16(const dn_qpw_geo *g, const qpw_rq *c,
                                                                     const __m512i *acc, int NR, int r, int n,
                                                                     uint8_t *y)
{
    __m512i q[4];
    q[0] = qpw_rq1(g, c, acc[0], r);
    for (int i = 1; i < 4; i++) q[i] = i < n ? qpw_rq1(g, c, acc[i * NR], r) : q[0];
    __m512i w01 = _mm512_packs_epi32(q[0], q[1]), w23 = _mm512_packs_epi32(q[2], q[3]);
    __m512i v = g->s8 ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23);
    v = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), v);
    int left = (int)(g->M % 64 > 32 ? g->M % 64 - 32 : g->M % 64);
    __mmask16 m = left == 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
    _mm_mask_storeu_epi8(y + 16 * r, m, _mm512_castsi512_si128(v));
    if (n > 1) _mm_mask_storeu_epi8(y + g->M + 16 * r, m, _mm512_extracti32x4_epi32(v, 1));
    if (n > 2) _mm_mask_storeu_epi8(y + 2 * g->M + 16 * r, m, _mm512_extracti32x4_epi32(v, 2));
    if (n > 3) _mm_mask_storeu_epi8(y + 3 * g->M + 16 * r, m, _mm512_extracti32x4_epi32(v, 3));
}

/* PT pixels from x (rows of C bytes) to y (rows of M bytes), NR output
 * registers (of NT a pixel: the weights' stride; y, wq, bq and c's scales
 * at the chunk's first): NR is a constant where inlined, so that the
 * accumulators stay in registers */
QPW_TGT QPW_INLINE void qpw_tile(const dn_qpw_geo *g, const qpw_rq *c,
                                                                    const uint8_t *x, const __m512i *wq,
                                                                    const int32_t *bq, uint8_t *y, const uint8_t *rs,
                                                                    int PT, int NR, int ADD, int64_t NT)
{
    __m512i acc[24];
QPW_UNROLL(24)
    for (int p = 0; p < PT; p++)
QPW_UNROLL(12)
        for (int r = 0; r < NR; r++) acc[p * NR + r] = _mm512_loadu_si512(bq + 16 * r);
    int64_t nq = g->C / 4;
    for (int64_t q = 0; q < nq; q++) {
        __m512i w[QPW_MAXR];
QPW_UNROLL(12)
        for (int r = 0; r < NR; r++) w[r] = _mm512_loadu_si512(wq + q * NT + r);
QPW_UNROLL(24)
        for (int p = 0; p < PT; p++) {
            int32_t v;
            memcpy(&v, x + p * g->C + 4 * q, 4);
            __m512i b = _mm512_set1_epi32(v);
QPW_UNROLL(12)
            for (int r = 0; r < NR; r++) acc[p * NR + r] = _mm512_dpbusd_epi32(acc[p * NR + r], b, w[r]);
        }
    }
QPW_UNROLL(24)
    for (int p = 0; p < PT; p++) qpw_store(g, c, acc + p * NR, NR, y + p * g->M);
    if (NR % 4 == 1) {
QPW_UNROLL(6)
        for (int p = 0; p < PT; p += 4)
            qpw_rem16(g, c, acc + p * NR + NR - 1, NR, NR - 1, PT - p < 4 ? PT - p : 4, y + p * g->M);
    } else if (NR % 4 == 2) {
QPW_UNROLL(12)
        for (int p = 0; p < PT; p += 2) {
            const __m512i *a = acc + p * NR + NR - 2, *b = p + 1 < PT ? a + NR : NULL;
            qpw_rem32(g, c, a, b, NR - 2, y + p * g->M, b ? y + (p + 1) * g->M : NULL, ADD ? rs + p * g->M : NULL,
                      ADD && b ? rs + (p + 1) * g->M : NULL, ADD);
        }
    } else if (NR % 4 == 3) {
QPW_UNROLL(12)
        for (int p = 0; p < PT; p += 2) {
            const __m512i *a = acc + p * NR + NR - 3, *b = p + 1 < PT ? a + NR : NULL;
            qpw_rem32(g, c, a, b, NR - 3, y + p * g->M, b ? y + (p + 1) * g->M : NULL, NULL, NULL, 0);
        }
QPW_UNROLL(6)
        for (int p = 0; p < PT; p += 4)
            qpw_rem16(g, c, acc + p * NR + NR - 1, NR, NR - 1, PT - p < 4 ? PT - p : 4, y + p * g->M);
    }
}

/* pixels p .. p1 - 1, PT at a time, the rest one by one, with the chunk's
 * qc, qw, qb, qy */
#define QPW_BAND_(NR, PT, ADD)                                                                         \
    do {                                                                                               \
        for (; p + (PT) <= p1; p += (PT))                                                              \
            qpw_tile(g, qc, x + p * g->C, qw, qb, qy + p * g->M, ADD ? res + p * g->M : NULL, PT, NR, ADD, nt); \
        for (; p < p1; p++)                                                                            \
            qpw_tile(g, qc, x + p * g->C, qw, qb, qy + p * g->M, ADD ? res + p * g->M : NULL, 1, NR, ADD, nt);  \
    } while (0)
#define QPW_BAND(NR, PT) QPW_BAND_(NR, PT, 0)

/* More than QPW_MAXR output registers a pixel (EfficientNet-B0's 240 to
 * 1152 outputs): chunks of 8 (two whole groups), each over the whole band
 * of pixels, which stays in L1 / L2 while each chunk's weights stay in L1;
 * the last chunk takes the rest. */
#define QPW_CHUNK 8

QPW_TGT static void qpw_band(const dn_qpw_geo *g, const uint8_t *x, const void *packed, uint8_t *y,
                             const uint8_t *res, int64_t p0, int64_t p1)
{
    const __m512i *wq = packed;
    const int32_t *bq = (const int32_t *)((const char *)packed + w_bytes(g->C, g->M));
    qpw_rq c;
    int64_t nt = nreg(g->M);
    qpw_rq_init(g, (const float *)(bq + nt * 16), &c);
    for (int64_t r0 = 0; r0 < nt; r0 += nt > QPW_MAXR ? QPW_CHUNK : nt) {
        int64_t nr = nt <= QPW_MAXR ? nt : nt - r0 < QPW_CHUNK ? nt - r0 : QPW_CHUNK;
        qpw_rq cc = c;
        cc.sc = c.sc + 16 * r0;
        const qpw_rq *qc = &cc;
        const __m512i *qw = wq + r0;
        const int32_t *qb = bq + 16 * r0;
        uint8_t *qy = y + 16 * r0;
        int64_t p = p0;
        switch (nr) {
        case 1: QPW_BAND(1, 12); break;
        case 2: if (res) QPW_BAND_(2, 8, 1); else QPW_BAND(2, 10); break;
        case 3: QPW_BAND(3, 8); break;
        case 4: QPW_BAND(4, 6); break;
        case 5: QPW_BAND(5, 4); break;
        case 6: if (g->silu) QPW_BAND(6, 2); else QPW_BAND(6, 4); break;
        case 7: if (g->silu) QPW_BAND(7, 2); else QPW_BAND(7, 3); break;
        case 8: QPW_BAND(8, 2); break;
        case 9: QPW_BAND(9, 2); break;
        case 10: QPW_BAND(10, 2); break;
        case 11: QPW_BAND(11, 2); break;
        default: QPW_BAND(12, 2); break;
        }
    }
}

void dn_qpw_run(const dn_qpw_geo *g, const uint8_t *x, const void *packed, void *y, const void *res, int threads)
{
    int nt = threads > 1 && g->P >= 64 ? threads : 1;
    OA_PAR_REGION(nt, {
        int ti = omp_get_thread_num(), tn = omp_get_num_threads();
        int64_t p0 = g->P * ti / tn, p1 = g->P * (ti + 1) / tn;
        qpw_band(g, x, packed, (uint8_t *)y, g->add ? (const uint8_t *)res : NULL, p0, p1);
    });
}
#endif
