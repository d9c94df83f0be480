/* Direct int8 stem convolution (3 uint8 input channels, 3x3, stride 2, one
 * pixel of padding) from a channels-first input to a channels-last output
 * with AVX-512 VNNI.
 *
 * oneDNN 2.6 runs MobileNetV2's first layer (3 -> 32 channels, 224x224 ->
 * 112x112) with its older jit_int8 kernel after reordering the quantised
 * image to channels-last: 0.15 ms of a 2.2 ms run at one thread. Its 27
 * taps are too few for a reduction over input channels in vpdpbusd's
 * groups of four bytes. Here the reduction runs over the taps instead:
 * per output row, the 27 taps (channel, kernel row, kernel column) are laid
 * out as planes of one byte per output pixel, straight from the
 * channels-first rows (the even bytes of a row are kernel column 1, the odd
 * ones column 2, the odd ones one pixel earlier column 0: one vpmovwb
 * each), a 28th plane of zeros completes seven quadruples of planes, which
 * two byte and two word unpacks interleave as dn_qdw.c does (pixel 16L +
 * 4k + j of a 64-pixel block in lane L, dword j of register k). Each output
 * pixel is then seven broadcast quadruples times the packed weights of 16
 * output channels per register: 7 vpdpbusd per 16 channels, 64 multiply-adds
 * each with no idle lane, against 27 taps.
 *
 * Zero points, requantisation and the chain (Relu / Clip bounds or SiLU) as
 * dn_qdw.c: padding is the input zero point, the packed bias carries
 * bias - x_zp * sum(w), a clamp runs only where it does more than the
 * saturation to 8 bits after the one rounding. Threads take contiguous
 * runs of output rows, each with its own planes and quadruples. */
#include "kernels/dnnl/dn_qstem.h"
#include "kernels/dnnl/dn_common.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { NQ = 7 };   /* quadruples of taps: 27 and a zero one */

int dn_qstem_disabled(void)
{
    const char *e = getenv("OPENACL_NO_QSTEM");   /* read per build: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
}

/* Up to 64 output channels keep their accumulators and most weights in
 * registers (MobileNetV2 32, EfficientNet-B0 32). */
int dn_qstem_takes(int64_t M, int64_t S) { return S == 2 && M >= 16 && M <= 64 && M % 16 == 0; }

/* [NQ][M / 16][64 bytes] weights, then bias [M] int32 and scales [M] float */
size_t dn_qstem_packed_bytes(int64_t M) { return (size_t)M * (NQ * 4 + 8); }

void dn_qstem_pack(const int8_t *w, const int32_t *bias, const float *oscale, int64_t nsc, int64_t M,
                   int32_t xzp, void *dst)
{
    int64_t R = M / 16;
    int8_t *wq = dst;
    int32_t *bq = (int32_t *)((char *)dst + NQ * M * 4);
    float *sq = (float *)(bq + M);
    memset(dst, 0, dn_qstem_packed_bytes(M));
    for (int64_t m = 0; m < M; m++) {
        int32_t sw = 0;
        for (int t = 0; t < 27; t++) {
            sw += w[m * 27 + t];
            wq[((t / 4) * R + m / 16) * 64 + (m % 16) * 4 + t % 4] = w[m * 27 + t];
        }
        bq[m] = nn_acc32(bias ? bias[m] : 0, -(xzp * sw));   /* wraps as the int32 sums do */
        sq[m] = oscale[nsc > 1 ? m : 0];
    }
}

/* output pixels of a row rounded up to whole 64-pixel blocks */
static int64_t owp_of(const dn_qdw_geo *g) { return (g->OW + 63) & ~(int64_t)63; }
static size_t planes_bytes(const dn_qdw_geo *g) { return dn_align((size_t)(4 * NQ * owp_of(g))); }
static size_t thread_bytes(const dn_qdw_geo *g) { return planes_bytes(g) + (size_t)(NQ * 4 * owp_of(g)); }

size_t dn_qstem_scratch_bytes(const dn_qdw_geo *g, int threads)
{
    return thread_bytes(g) * (size_t)(threads > 1 ? threads : 1);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define QS_TGT __attribute__((target("avx512f,avx512bw,avx512dq,avx512vnni")))

static __mmask64 lmask(int64_t left)
{
    return left >= 64 ? ~(__mmask64)0 : left <= 0 ? 0 : ((__mmask64)1 << left) - 1;
}

/* The 27 tap planes of output row oh: plane (c * 3 + kh) * 3 + kw holds,
 * per output pixel ow, input byte (c, 2 oh - 1 + kh, 2 ow - 1 + kw), the
 * zero point outside the image. */
QS_TGT static void qstem_planes(const dn_qdw_geo *g, const uint8_t *xn, int64_t oh, uint8_t *pl)
{
    int64_t owp = owp_of(g), W = g->W;
    const __m512i zp = _mm512_set1_epi8((char)g->xzp);
    for (int c = 0; c < 3; c++)
        for (int kh = 0; kh < 3; kh++) {
            int64_t ih = 2 * oh - 1 + kh;
            uint8_t *p0 = pl + (c * 3 + kh) * 3 * owp;
            if (ih < 0 || ih >= g->H) {
                memset(p0, (int)(uint8_t)g->xzp, (size_t)(3 * owp));
                continue;
            }
            const uint8_t *r = xn + (c * g->H + ih) * W;
            for (int64_t j = 0; 32 * j < owp; j++) {   /* whole blocks: qstem_quads reads them */
                int64_t b = 64 * j;   /* input column of output pixel 32 j */
                /* column b - 1 + i for kernel column 0: none left of the image */
                __mmask64 ml = lmask(W - b + 1) & (b ? ~(__mmask64)0 : ~(__mmask64)1);
                __m512i v = _mm512_mask_loadu_epi8(zp, lmask(W - b), r + b);
                __m512i vl = _mm512_mask_loadu_epi8(zp, ml, r + b - 1);
                _mm256_storeu_si256((__m256i *)(p0 + 32 * j), _mm512_cvtepi16_epi8(vl));
                _mm256_storeu_si256((__m256i *)(p0 + owp + 32 * j), _mm512_cvtepi16_epi8(v));
                _mm256_storeu_si256((__m256i *)(p0 + 2 * owp + 32 * j),
                                    _mm512_cvtepi16_epi8(_mm512_srli_epi16(v, 8)));
            }
        }
}

/* Quadruples of planes 4q .. 4q + 3 per 64-pixel block b at t[(b * NQ + q)
 * * 4 + k]: pixel 64 b + 16 L + 4 k + j in dword 4 L + j of register k. */
QS_TGT static void qstem_quads(const dn_qdw_geo *g, const uint8_t *pl, __m512i *t)
{
    int64_t owp = owp_of(g);
    for (int64_t b = 0; 64 * b < g->OW; b++)
        for (int q = 0; q < NQ; q++) {
            const uint8_t *p = pl + 4 * q * owp + 64 * b;
            __m512i r0 = _mm512_loadu_si512(p), r1 = _mm512_loadu_si512(p + owp);
            __m512i r2 = _mm512_loadu_si512(p + 2 * owp), r3 = _mm512_loadu_si512(p + 3 * owp);
            __m512i lo = _mm512_unpacklo_epi8(r0, r1), hi = _mm512_unpackhi_epi8(r0, r1);
            __m512i l2 = _mm512_unpacklo_epi8(r2, r3), h2 = _mm512_unpackhi_epi8(r2, r3);
            __m512i *d = t + (b * NQ + q) * 4;
            _mm512_storeu_si512(d, _mm512_unpacklo_epi16(lo, l2));
            _mm512_storeu_si512(d + 1, _mm512_unpackhi_epi16(lo, l2));
            _mm512_storeu_si512(d + 2, _mm512_unpacklo_epi16(hi, h2));
            _mm512_storeu_si512(d + 3, _mm512_unpackhi_epi16(hi, h2));
        }
}

/* The requantisation's constants: scales per 16 channels, y_zp, the clamp
 * bounds (in steps plus y_zp) and whether each does more than the
 * saturation to 8 bits after it (dn_qdw.c's rule), the SiLU's 1/y_scale. */
typedef struct qstem_rq {
    __m512 sc[4], vz, lo, hi, vi;
    dn_silu_k kc;
    int use_lo, use_hi;
} qstem_rq;

QS_TGT static void qstem_rq_init(const dn_qdw_geo *g, const float *sq, int R, qstem_rq *c)
{
    float qmin = g->s8 ? -128.f : 0.f, qmax = g->s8 ? 127.f : 255.f, z = (float)g->yzp;
    for (int r = 0; r < R; r++) c->sc[r] = _mm512_loadu_ps(sq + 16 * r);
    c->vz = _mm512_set1_ps(z);
    c->lo = _mm512_set1_ps(g->lo + z);
    c->hi = _mm512_set1_ps(g->hi + z);
    c->vi = _mm512_set1_ps(g->inv_ys);
    /* dn_qdw.c's rule: a bound within half a step of the range's end is the
     * saturation's (OPENACL_QCONV_KEEP_CLAMPS=1 keeps the clamp there) */
    int keep = g->opts & DN_QDW_KEEP_CLAMPS;
    c->use_lo = keep ? g->lo + z > qmin - 0.5f : !(g->lo + z < qmin + 0.5f);
    c->use_hi = keep ? g->hi + z < qmax + 0.5f : !(g->hi + z > qmax - 0.5f);
    dn_silu_qk(&c->kc, 1.0f / g->inv_ys, g->yzp);
}

/* Pixel ow's R registers of accumulators to bytes at y + ow * 16 R, each
 * value rounded once and saturated: 32 and 64 channels by packs (per
 * 128-bit lane) and one dword permutation back to channel order, others
 * by saturating narrowing stores. */
QS_TGT static inline __attribute__((always_inline)) void
qstem_store(const dn_qdw_geo *g, const qstem_rq *c, const __m512i *acc, int R, uint8_t *y)
{
    __m512i v[4];
    for (int r = 0; r < R; r++) {
        __m512 a = _mm512_cvtepi32_ps(acc[r]);
        if (g->silu) {
            __m512 x = _mm512_mul_ps(a, c->sc[r]);   /* the folded step as dn_qdw.c's (OPENACL_SILU_FOLD) */
            v[r] = g->silu_fold ? dn_silu_q16k(x, &c->kc, g->silu_div) : dn_silu_q16(x, c->vi, c->vz, g->silu_div);
            continue;
        }
        __m512 f = _mm512_fmadd_ps(a, c->sc[r], c->vz);
        if (c->use_lo) f = _mm512_max_ps(f, c->lo);
        if (c->use_hi) f = _mm512_min_ps(f, c->hi);
        v[r] = _mm512_cvtps_epi32(f);
    }
    if (R == 2 || R == 4) {
        __m512i w0 = _mm512_packs_epi32(v[0], v[1]), w1 = R == 4 ? _mm512_packs_epi32(v[2], v[3]) : w0;
        __m512i b = g->s8 ? _mm512_packs_epi16(w0, w1) : _mm512_packus_epi16(w0, w1);
        /* lane L holds channels 4L.. of v[0], v[1], v[2], v[3] in its dwords */
        b = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), b);
        if (R == 4) _mm512_storeu_si512(y, b);
        else _mm256_storeu_si256((__m256i *)y, _mm512_castsi512_si256(b));
        return;
    }
    for (int r = 0; r < R; r++) {
        __m128i q = g->s8 ? _mm512_cvtsepi32_epi8(v[r])
                          : _mm512_cvtusepi32_epi8(_mm512_max_epi32(v[r], _mm512_setzero_si512()));
        _mm_storeu_si128((__m128i *)(y + 16 * r), q);
    }
}

/* One output row's pixels from its quadruples, two neighbours at a time
 * (twice the independent vpdpbusd chains): R registers of 16 output
 * channels each (R constant where inlined). */
QS_TGT static inline __attribute__((always_inline)) void
qstem_row(const dn_qdw_geo *g, const qstem_rq *c, const __m512i *t, const __m512i *wq, const int32_t *bq,
          int R, uint8_t *y)
{
    int64_t M = 16 * R;
    for (int64_t b = 0; 64 * b < g->OW; b++)
        for (int k = 0; k < 4; k++)
            for (int pos = 0; pos < 16; pos += 2) {
                int64_t ow = 64 * b + 16 * (pos / 4) + 4 * k + pos % 4;
                if (ow >= g->OW) continue;
                const int32_t *xq = (const int32_t *)(t + b * NQ * 4 + k) + pos;
                __m512i a0[4], a1[4];
                for (int r = 0; r < R; r++) a0[r] = a1[r] = _mm512_loadu_si512(bq + 16 * r);
                for (int q = 0; q < NQ; q++) {
                    __m512i x0 = _mm512_set1_epi32(xq[q * 64]), x1 = _mm512_set1_epi32(xq[q * 64 + 1]);
                    for (int r = 0; r < R; r++) {
                        __m512i wr = _mm512_loadu_si512(wq + q * R + r);
                        a0[r] = _mm512_dpbusd_epi32(a0[r], x0, wr);
                        a1[r] = _mm512_dpbusd_epi32(a1[r], x1, wr);
                    }
                }
                qstem_store(g, c, a0, R, y + ow * M);
                if (ow + 1 < g->OW) qstem_store(g, c, a1, R, y + (ow + 1) * M);
            }
}

QS_TGT static void qstem_row_any(const dn_qdw_geo *g, const qstem_rq *c, const __m512i *t, const void *packed,
                                 uint8_t *y)
{
    int R = (int)(g->C / 16);
    const __m512i *wq = packed;
    const int32_t *bq = (const int32_t *)((const char *)packed + NQ * g->C * 4);
    switch (R) {   /* one copy per register count */
    case 1: qstem_row(g, c, t, wq, bq, 1, y); break;
    case 2: qstem_row(g, c, t, wq, bq, 2, y); break;
    case 3: qstem_row(g, c, t, wq, bq, 3, y); break;
    default: qstem_row(g, c, t, wq, bq, 4, y); break;
    }
}

void dn_qstem_run(const dn_qdw_geo *g, const uint8_t *x, const void *packed, void *y, void *scratch,
                  int threads)
{
    int64_t rows = g->N * g->OH;
    int nt = threads > 1 && rows > 1 ? threads : 1;
    size_t tb = thread_bytes(g);
    const float *sq = (const float *)((const char *)packed + NQ * g->C * 4 + g->C * 4);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int ti = omp_get_thread_num(), tn = omp_get_num_threads();
        uint8_t *pl = (uint8_t *)scratch + (size_t)ti * tb;
        __m512i *t = (__m512i *)(pl + planes_bytes(g));
        int64_t r0 = rows * ti / tn, r1 = rows * (ti + 1) / tn;
        qstem_rq c;
        qstem_rq_init(g, sq, (int)(g->C / 16), &c);
        memset(pl + 27 * owp_of(g), 0, (size_t)owp_of(g));   /* the zero tap */
        for (int64_t r = r0; r < r1; r++) {
            int64_t n = r / g->OH, oh = r % g->OH;
            qstem_planes(g, x + n * 3 * g->H * g->W, oh, pl);
            qstem_quads(g, pl, t);
            qstem_row_any(g, &c, t, packed, (uint8_t *)y + (n * g->OH + oh) * g->OW * g->C);
        }
    }
}
#endif
