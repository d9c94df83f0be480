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
 * (a load-port uop, no shuffle). The requantisation follows dn_qdw.c's
 * (and so oneDNN's) float order: the int32 sum, its bias first, times the
 * output scale plus y_zp in one fma, the clamp, round half to even,
 * saturate; or the SiLU step of dn_silu.c on the sum times the scale.
 * Whole 64-channel groups narrow by two packs, which is why their weights
 * are packed with the channels 64g + 16L + 4k + j in lane L, dword j of
 * the group's register k; 32 more (96 outputs) by the same packs over two
 * pixels and a qword permutation; other rests one register at a time.
 *
 * The input zero point: the products run on the stored bytes and the
 * packed bias carries bias - x_zp * sum(w) per channel. Threads take
 * contiguous bands of pixels. */
#include "kernels/dnnl/dn_qpw.h"
#include "core/par.h"
#include "kernels/dnnl/dn_qdw.h"
#include <stdlib.h>
#include <string.h>

#define QPW_MAXR 12   /* output registers per pixel: M <= 192 */

int dn_qpw_disabled(void)
{
    const char *e = getenv("OPENACL_NO_QPW");   /* read per build: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
}

static int64_t nreg(int64_t M) { return (M + 15) / 16; }

/* bench/qpw_bench, 1 thread, oneDNN -> this loop (medians, same bytes):
 * 16 -> 96 at 112x112 0.222 -> 0.121 ms, 24 -> 144 at 56x56 0.097 ->
 * 0.053, 32 -> 192 at 28x28 0.043 -> 0.033; but the projections gain
 * nothing (96 -> 24 at 56x56 0.041 both, 144 -> 24 0.085 -> 0.089) or lose
 * (32 -> 16 at 112x112 0.046 -> 0.050, 144 -> 32 at 28x28 0.018 -> 0.021):
 * few output registers per pixel against a long reduction is where
 * oneDNN's blocking is near its peak. So expansions only: K <= 32, and 64
 * to 192 output channels (more leave no room for a tile of pixels). */
int dn_qpw_takes(int64_t C, int64_t M)
{
    return C % 4 == 0 && C >= 4 && C <= 32 && M % 16 == 0 && M >= 64 && M <= 16 * QPW_MAXR;
}

static size_t w_bytes(int64_t C, int64_t M) { return (size_t)(C / 4) * (size_t)nreg(M) * 64; }

size_t dn_qpw_packed_bytes(int64_t C, int64_t M) { return w_bytes(C, M) + (size_t)nreg(M) * 128; }

/* channel of dword pos of output register r (whole 64-channel groups in
 * the packs' order, the rest in order); M or more: none */
static int64_t chan_of(int64_t r, int pos, int64_t M)
{
    if (r < M / 64 * 4) return 64 * (r / 4) + 16 * (pos / 4) + 4 * (r % 4) + pos % 4;
    if (M % 64 == 32) return M / 64 * 64 + 8 * (pos / 4) + 4 * (r % 4) + pos % 4;   /* qpw_rem32 */
    return 16 * r + pos;
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
#define QPW_TGT __attribute__((target("avx512f,avx512bw,avx512dq,avx512vnni")))

/* the requantisation's constants (as dn_qdw.c's qdw_rq) */
typedef struct qpw_rq {
    __m512 vz, lo, hi, vi;
    dn_silu_k kc;
    int use_lo, use_hi;
    const float *sc;
    __m512i zero;
} qpw_rq;

QPW_TGT static void qpw_rq_init(const dn_qpw_geo *g, const float *sc, qpw_rq *c)
{
    float qmin = g->s8 ? -128.f : 0.f, qmax = g->s8 ? 127.f : 255.f, z = (float)g->yzp;
    c->vz = _mm512_set1_ps(z);
    c->lo = _mm512_set1_ps(g->lo + z);
    c->hi = _mm512_set1_ps(g->hi + z);
    c->vi = _mm512_set1_ps(g->inv_ys);
    dn_silu_qk(&c->kc, 1.0f / g->inv_ys, g->yzp);
    c->use_lo = g->keep_clamps ? g->lo + z > qmin - 0.5f : !(g->lo + z < qmin + 0.5f);
    c->use_hi = g->keep_clamps ? g->hi + z < qmax + 0.5f : !(g->hi + z > qmax - 0.5f);
    c->sc = sc;
    c->zero = _mm512_setzero_si512();
}

/* one accumulator to 16 int32 output values (not yet saturated) */
QPW_TGT __attribute__((always_inline)) static inline __m512i qpw_rq1(const dn_qpw_geo *g, const qpw_rq *c,
                                                                       __m512i acc, int64_t r)
{
    __m512 a = _mm512_cvtepi32_ps(acc), s = _mm512_loadu_ps(c->sc + 16 * r);
    if (g->silu) {
        __m512 x = _mm512_mul_ps(a, s);
        return g->silu_fold ? dn_silu_q16k(x, &c->kc, g->silu_div) : dn_silu_q16(x, c->vi, c->vz, g->silu_div);
    }
    __m512 v = _mm512_fmadd_ps(a, s, c->vz);
    if (c->use_lo) v = _mm512_max_ps(v, c->lo);
    if (c->use_hi) v = _mm512_min_ps(v, c->hi);
    return _mm512_cvtps_epi32(v);
}

/* one pixel's NR accumulators to its M output bytes at y (whole groups:
 * NR / 4 = M / 64, a constant with NR, so that the indices are too) */
QPW_TGT __attribute__((always_inline)) static inline void qpw_store(const dn_qpw_geo *g, const qpw_rq *c,
                                                                     const __m512i *acc, int nr, uint8_t *y)
{
    int ng = nr / 4;
#pragma GCC unroll 3
    for (int k = 0; k < ng; k++) {
        const __m512i *a = acc + 4 * k;
        __m512i q0 = qpw_rq1(g, c, a[0], 4 * k), q1 = qpw_rq1(g, c, a[1], 4 * k + 1);
        __m512i q2 = qpw_rq1(g, c, a[2], 4 * k + 2), q3 = qpw_rq1(g, c, a[3], 4 * k + 3);
        __m512i w01 = _mm512_packs_epi32(q0, q1), w23 = _mm512_packs_epi32(q2, q3);
        _mm512_storeu_si512(y + 64 * k, g->s8 ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23));
    }
    int rend = nr % 4 == 2 ? 4 * ng : nr;   /* 32 channels more: qpw_rem32 */
#pragma GCC unroll 3
    for (int r = 4 * ng; r < rend; r++) {
        int64_t left = g->M - 16 * r;
        __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
        __m512i q = qpw_rq1(g, c, acc[r], r);
        if (g->s8) _mm512_mask_cvtsepi32_storeu_epi8(y + 16 * r, m, q);
        else _mm512_mask_cvtusepi32_storeu_epi8(y + 16 * r, m, _mm512_max_epi32(q, c->zero));
    }
}

/* The 32 channels past the whole groups (M % 64 = 32: registers r, r + 1
 * of a pixel, a and b; c and d of the next one, or a and b again where
 * y1 is NULL) to bytes by the packs of the whole groups and one qword
 * permutation: lane L holds each pixel's 8L .. 8L + 7 (chan_of). */
QPW_TGT __attribute__((always_inline)) static inline void qpw_rem32(const dn_qpw_geo *g, const qpw_rq *c,
                                                                     const __m512i *a, const __m512i *b, int r,
                                                                     uint8_t *y0, uint8_t *y1)
{
    __m512i q0 = qpw_rq1(g, c, a[0], r), q1 = qpw_rq1(g, c, a[1], r + 1);
    __m512i q2 = b ? qpw_rq1(g, c, b[0], r) : q0, q3 = b ? qpw_rq1(g, c, b[1], r + 1) : q1;
    __m512i w01 = _mm512_packs_epi32(q0, q1), w23 = _mm512_packs_epi32(q2, q3);
    __m512i v = g->s8 ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23);
    v = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), v);
    _mm256_storeu_si256((__m256i *)(y0 + 16 * r), _mm512_castsi512_si256(v));
    if (y1) _mm256_storeu_si256((__m256i *)(y1 + 16 * r), _mm512_extracti64x4_epi64(v, 1));
}

/* PT pixels from x (rows of C bytes) to y (rows of M bytes): NR is a
 * constant where inlined, so that the accumulators stay in registers */
QPW_TGT __attribute__((always_inline)) static inline void qpw_tile(const dn_qpw_geo *g, const qpw_rq *c,
                                                                    const uint8_t *x, const __m512i *wq,
                                                                    const int32_t *bq, uint8_t *y, int PT, int NR)
{
    __m512i acc[24];
#pragma GCC unroll 24
    for (int p = 0; p < PT; p++)
#pragma GCC unroll 12
        for (int r = 0; r < NR; r++) acc[p * NR + r] = _mm512_loadu_si512(bq + 16 * r);
    int64_t nq = g->C / 4;
    for (int64_t q = 0; q < nq; q++) {
        __m512i w[QPW_MAXR];
#pragma GCC unroll 12
        for (int r = 0; r < NR; r++) w[r] = _mm512_loadu_si512(wq + q * NR + r);
#pragma GCC unroll 24
        for (int p = 0; p < PT; p++) {
            int32_t v;
            memcpy(&v, x + p * g->C + 4 * q, 4);
            __m512i b = _mm512_set1_epi32(v);
#pragma GCC unroll 12
            for (int r = 0; r < NR; r++) acc[p * NR + r] = _mm512_dpbusd_epi32(acc[p * NR + r], b, w[r]);
        }
    }
#pragma GCC unroll 24
    for (int p = 0; p < PT; p++) qpw_store(g, c, acc + p * NR, NR, y + p * g->M);
    if (NR % 4 != 2) return;
#pragma GCC unroll 12
    for (int p = 0; p < PT; p += 2) {
        const __m512i *a = acc + p * NR + NR - 2, *b = p + 1 < PT ? a + NR : NULL;
        qpw_rem32(g, c, a, b, NR - 2, y + p * g->M, b ? y + (p + 1) * g->M : NULL);
    }
}

/* pixels p0 .. p1 - 1, PT at a time, the rest one by one */
#define QPW_BAND(NR, PT)                                                                          \
    do {                                                                                          \
        for (; p + (PT) <= p1; p += (PT)) qpw_tile(g, &c, x + p * g->C, wq, bq, y + p * g->M, PT, NR); \
        for (; p < p1; p++) qpw_tile(g, &c, x + p * g->C, wq, bq, y + p * g->M, 1, NR);          \
    } while (0)

QPW_TGT static void qpw_band(const dn_qpw_geo *g, const uint8_t *x, const void *packed, uint8_t *y, int64_t p0,
                             int64_t p1)
{
    const __m512i *wq = packed;
    const int32_t *bq = (const int32_t *)((const char *)packed + w_bytes(g->C, g->M));
    qpw_rq c;
    qpw_rq_init(g, (const float *)(bq + nreg(g->M) * 16), &c);
    int64_t p = p0;
    switch (nreg(g->M)) {
    case 1: QPW_BAND(1, 16); break;
    case 2: QPW_BAND(2, 12); break;
    case 3: QPW_BAND(3, 8); break;
    case 4: QPW_BAND(4, 6); break;
    case 5: QPW_BAND(5, 4); break;
    case 6: if (g->silu) QPW_BAND(6, 2); else QPW_BAND(6, 4); break;
    case 7: QPW_BAND(7, 3); break;
    case 8: QPW_BAND(8, 3); break;
    case 9: QPW_BAND(9, 2); break;
    case 10: QPW_BAND(10, 2); break;
    case 11: QPW_BAND(11, 2); break;
    default: QPW_BAND(12, 2); break;
    }
}

void dn_qpw_run(const dn_qpw_geo *g, const uint8_t *x, const void *packed, void *y, int threads)
{
    int nt = threads > 1 && g->P >= 64 ? threads : 1;
    OA_PAR_REGION(nt, {
        int ti = omp_get_thread_num(), tn = omp_get_num_threads();
        int64_t p0 = g->P * ti / tn, p1 = g->P * (ti + 1) / tn;
        qpw_band(g, x, packed, (uint8_t *)y, p0, p1);
    });
}
#endif
