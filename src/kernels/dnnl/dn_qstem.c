/* Direct int8 stem convolution (3 uint8 input channels, 3x3 or 7x7, stride
 * 2, K/2 pixels of padding) from a channels-first input to a channels-last
 * output with AVX-512 VNNI.
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
 * ResNet's 7x7 stem (3 -> 64 channels, 224x224 -> 112x112, 118 M
 * multiply-adds) is the same loop over 147 taps: per kernel row K planes
 * from (K + 1) / 2 loads (the even and odd bytes of a row shifted by
 * kw - K/2), 37 quadruples (a zero 148th plane), 37 vpdpbusd per 16
 * channels and pixel. oneDNN ran it with jit_int8 at about half the
 * VNNI peak (0.60-0.65 ms at one thread).
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

/* quadruples of taps: 27 and a zero one (3x3), 147 and a zero one (7x7) */
static int nq_of(int64_t K) { return (int)((3 * K * K + 3) / 4); }

int dn_qstem_disabled(void)
{
    const char *e = getenv("OPENACL_NO_QSTEM");   /* read per build: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
}

/* Up to 64 output channels keep their accumulators and most weights in
 * registers (MobileNetV2 32, EfficientNet-B0 32, ResNet 64). */
int dn_qstem_takes(int64_t M, int64_t S, int64_t K)
{
    return (K == 3 || K == 7) && S == 2 && M >= 16 && M <= 64 && M % 16 == 0;
}

/* [NQ][M / 16][64 bytes] weights, then bias [M] int32 and scales [M] float */
size_t dn_qstem_packed_bytes(int64_t M, int64_t K) { return (size_t)M * (nq_of(K) * 4 + 8); }

void dn_qstem_pack(const int8_t *w, const int32_t *bias, const float *oscale, int64_t nsc, int64_t M, int64_t K,
                   int32_t xzp, void *dst)
{
    int64_t R = M / 16, T = 3 * K * K;
    int8_t *wq = dst;
    int32_t *bq = (int32_t *)((char *)dst + nq_of(K) * M * 4);
    float *sq = (float *)(bq + M);
    memset(dst, 0, dn_qstem_packed_bytes(M, K));
    for (int64_t m = 0; m < M; m++) {
        int32_t sw = 0;
        for (int64_t t = 0; t < T; t++) {
            sw += w[m * T + t];
            wq[((t / 4) * R + m / 16) * 64 + (m % 16) * 4 + t % 4] = w[m * T + t];
        }
        bq[m] = nn_acc32(bias ? bias[m] : 0, -(xzp * sw));   /* wraps as the int32 sums do */
        sq[m] = oscale[nsc > 1 ? m : 0];
    }
}

/* output pixels of a row rounded up to whole 64-pixel blocks */
static int64_t owp_of(const dn_qdw_geo *g) { return (g->OW + 63) & ~(int64_t)63; }
/* Per thread: a ring of QS_RING input rows' planes ([3][K] planes each),
 * a plane of the zero point (rows outside the image), one of zeros (the
 * taps after the kernel's), then the quadruples. The K rows an output row
 * reads are consecutive, and the next output row's start two further, so
 * eight slots keep every row until its last reader is done. */
#define QS_RING 8
static size_t planes_bytes(const dn_qdw_geo *g)
{
    return dn_align((size_t)((QS_RING * 3 * g->K + 2) * owp_of(g)));
}
static size_t thread_bytes(const dn_qdw_geo *g) { return planes_bytes(g) + (size_t)(nq_of(g->K) * 4 * owp_of(g)); }

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

/* The 3 K planes of input row ih, [c][kw] at pl: plane (c, kw) holds, per
 * output pixel ow, input byte (c, ih, 2 ow - K/2 + kw), the zero point
 * outside the image. */
QS_TGT static void qstem_planes(const dn_qdw_geo *g, const uint8_t *xn, int64_t ih, uint8_t *pl)
{
    int64_t owp = owp_of(g), W = g->W, K = g->K, P = K / 2;
    const __m512i zp = _mm512_set1_epi8((char)g->xzp);
    for (int c = 0; c < 3; c++) {
        uint8_t *p0 = pl + c * K * owp;
        const uint8_t *r = xn + (c * g->H + ih) * W;
        for (int64_t j = 0; 32 * j < owp; j++)   /* whole blocks: qstem_quads reads them */
            for (int64_t kw = 0; kw < K; kw += 2) {
                /* columns o + i, o = 2 (32 j) + kw - P, for kernel columns
                 * kw (even i) and kw + 1 (odd i): none left of the image */
                int64_t o = 64 * j + kw - P;
                __mmask64 m = lmask(W - o) & (o < 0 ? ~lmask(-o) : ~(__mmask64)0);
                __m512i v = _mm512_mask_loadu_epi8(zp, m, r + o);
                _mm256_storeu_si256((__m256i *)(p0 + kw * owp + 32 * j), _mm512_cvtepi16_epi8(v));
                if (kw + 1 < K)
                    _mm256_storeu_si256((__m256i *)(p0 + (kw + 1) * owp + 32 * j),
                                        _mm512_cvtepi16_epi8(_mm512_srli_epi16(v, 8)));
            }
    }
}

/* Output row oh's tap planes in pp[(c * K + kh) * K + kw] (input byte (c,
 * 2 oh - K/2 + kh, 2 ow - K/2 + kw) per output pixel ow), then the zero
 * taps: input rows from the ring (each built once, by its first reader),
 * the zero point plane outside the image. */
QS_TGT static void qstem_taps(const dn_qdw_geo *g, const uint8_t *xn, int64_t oh, uint8_t *pl, int64_t *slot_ih,
                              const uint8_t **pp)
{
    int64_t owp = owp_of(g), K = g->K;
    const uint8_t *zpp = pl + QS_RING * 3 * K * owp, *zero = zpp + owp;
    for (int64_t kh = 0; kh < K; kh++) {
        int64_t ih = 2 * oh - K / 2 + kh, sl = ih & (QS_RING - 1);
        uint8_t *rp = pl + sl * 3 * K * owp;
        int in = ih >= 0 && ih < g->H;
        if (in && slot_ih[sl] != ih) {
            qstem_planes(g, xn, ih, rp);
            slot_ih[sl] = ih;
        }
        for (int c = 0; c < 3; c++)
            for (int64_t kw = 0; kw < K; kw++) pp[(c * K + kh) * K + kw] = in ? rp + (c * K + kw) * owp : zpp;
    }
    for (int64_t t = 3 * K * K; t < 4 * nq_of(K); t++) pp[t] = zero;
}

/* Quadruples of planes 4q .. 4q + 3 per 64-pixel block b at t[(b * NQ + q)
 * * 4 + k]: pixel 64 b + 16 L + 4 k + j in dword 4 L + j of register k. */
QS_TGT static void qstem_quads(const dn_qdw_geo *g, const uint8_t *const *pp, __m512i *t)
{
    int NQ = nq_of(g->K);
    for (int64_t b = 0; 64 * b < g->OW; b++)
        for (int q = 0; q < NQ; q++) {
            const uint8_t *const *p = pp + 4 * q;
            __m512i r0 = _mm512_loadu_si512(p[0] + 64 * b), r1 = _mm512_loadu_si512(p[1] + 64 * b);
            __m512i r2 = _mm512_loadu_si512(p[2] + 64 * b), r3 = _mm512_loadu_si512(p[3] + 64 * b);
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
    dn_silu_qk(&c->kc, 1.0f / g->inv_ys, g->yzp, g->silu_fold);
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
            /* the step as dn_qdw.c's (OPENACL_SILU_FOLD) */
            v[r] = dn_silu_qstep(_mm512_mul_ps(a, c->sc[r]), &c->kc, c->vi, c->vz, g->silu_fold, g->silu_div);
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

/* acc + the products of x's unsigned and w's signed byte quadruples, in
 * place: with the intrinsic GCC copied each of the 16 accumulators of the
 * 7x7 loop to a fresh register and back per quadruple (twice the vpdpbusd
 * count in moves, and spills) */
QS_TGT static inline __attribute__((always_inline)) __m512i dpbusd(__m512i acc, __m512i x, __m512i w)
{
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "vm"(w));
    return acc;
}

/* One output row's pixels from its NQ quadruples, NP neighbours at a time
 * (NP times the independent vpdpbusd chains, each weight register read
 * once for them): R registers of 16 output channels each (NQ, NP and R
 * constant where inlined). */
QS_TGT static inline __attribute__((always_inline)) void
qstem_row(const dn_qdw_geo *g, const qstem_rq *c, const __m512i *t, const __m512i *wq, const int32_t *bq,
          int NQ, int NP, int R, uint8_t *y)
{
    int64_t M = 16 * R;
    for (int64_t b = 0; 64 * b < g->OW; b++)
        for (int k = 0; k < 4; k++)
            for (int pos = 0; pos < 16; pos += NP) {
                int64_t ow = 64 * b + 16 * (pos / 4) + 4 * k + pos % 4;
                if (ow >= g->OW) continue;
                const int32_t *xq = (const int32_t *)(t + b * NQ * 4 + k) + pos;
                __m512i a[4][4];
#pragma GCC unroll 4
                for (int p = 0; p < NP; p++)
#pragma GCC unroll 4
                    for (int r = 0; r < R; r++) a[p][r] = _mm512_loadu_si512(bq + 16 * r);
                for (int q = 0; q < NQ; q++) {
                    __m512i x[4];
#pragma GCC unroll 4
                    for (int p = 0; p < NP; p++) x[p] = _mm512_set1_epi32(xq[q * 64 + p]);
#pragma GCC unroll 4
                    for (int r = 0; r < R; r++) {
                        __m512i wr = _mm512_loadu_si512(wq + q * R + r);
#pragma GCC unroll 4
                        for (int p = 0; p < NP; p++) a[p][r] = dpbusd(a[p][r], x[p], wr);
                    }
                }
#pragma GCC unroll 4
                for (int p = 0; p < NP; p++)
                    if (ow + p < g->OW) qstem_store(g, c, a[p], R, y + (ow + p) * M);
            }
}

/* qstem_row for 64 channels, four pixels a step, its 16 accumulators named
 * one by one: GCC kept qstem_row's array of them in registers but copied
 * every one to a fresh register and back per quadruple (as many moves as
 * products, and spills), which cost the 7x7 loop a fifth of its time. */
#define QS_DP4(a, x)                                                                    \
    do {                                                                                \
        a##0 = dpbusd(a##0, x, w0); a##1 = dpbusd(a##1, x, w1);                         \
        a##2 = dpbusd(a##2, x, w2); a##3 = dpbusd(a##3, x, w3);                         \
    } while (0)
QS_TGT static void qstem_row64(const dn_qdw_geo *g, const qstem_rq *c, const __m512i *t, const __m512i *wq,
                               const int32_t *bq, int NQ, uint8_t *y)
{
    const __m512i b0 = _mm512_loadu_si512(bq), b1 = _mm512_loadu_si512(bq + 16);
    const __m512i b2 = _mm512_loadu_si512(bq + 32), b3 = _mm512_loadu_si512(bq + 48);
    for (int64_t b = 0; 64 * b < g->OW; b++)
        for (int k = 0; k < 4; k++)
            for (int pos = 0; pos < 16; pos += 4) {
                int64_t ow = 64 * b + 16 * (pos / 4) + 4 * k;
                if (ow >= g->OW) continue;
                const int32_t *xq = (const int32_t *)(t + b * NQ * 4 + k) + pos;
                __m512i a0 = b0, a1 = b1, a2 = b2, a3 = b3, e0 = b0, e1 = b1, e2 = b2, e3 = b3;
                __m512i f0 = b0, f1 = b1, f2 = b2, f3 = b3, h0 = b0, h1 = b1, h2 = b2, h3 = b3;
                const __m512i *wp = wq;
                for (int q = 0; q < NQ; q++, wp += 4) {
                    __m512i w0 = _mm512_loadu_si512(wp), w1 = _mm512_loadu_si512(wp + 1);
                    __m512i w2 = _mm512_loadu_si512(wp + 2), w3 = _mm512_loadu_si512(wp + 3);
                    QS_DP4(a, _mm512_set1_epi32(xq[q * 64]));
                    QS_DP4(e, _mm512_set1_epi32(xq[q * 64 + 1]));
                    QS_DP4(f, _mm512_set1_epi32(xq[q * 64 + 2]));
                    QS_DP4(h, _mm512_set1_epi32(xq[q * 64 + 3]));
                }
                __m512i v[4][4] = { { a0, a1, a2, a3 }, { e0, e1, e2, e3 }, { f0, f1, f2, f3 }, { h0, h1, h2, h3 } };
                for (int p = 0; p < 4; p++)
                    if (ow + p < g->OW) qstem_store(g, c, v[p], 4, y + (ow + p) * 64);
            }
}
#undef QS_DP4

QS_TGT static void qstem_row_any(const dn_qdw_geo *g, const qstem_rq *c, const __m512i *t, const void *packed,
                                 uint8_t *y)
{
    int R = (int)(g->C / 16);
    const __m512i *wq = packed;
    const int32_t *bq = (const int32_t *)((const char *)packed + nq_of(g->K) * g->C * 4);
    if (g->K == 7) {   /* one copy per kernel size and register count */
        switch (R) {
        case 1: qstem_row(g, c, t, wq, bq, 37, 4, 1, y); break;
        case 2: qstem_row(g, c, t, wq, bq, 37, 4, 2, y); break;
        case 3: qstem_row(g, c, t, wq, bq, 37, 4, 3, y); break;
        default: qstem_row64(g, c, t, wq, bq, 37, y); break;
        }
        return;
    }
    switch (R) {
    case 1: qstem_row(g, c, t, wq, bq, 7, 2, 1, y); break;
    case 2: qstem_row(g, c, t, wq, bq, 7, 2, 2, y); break;
    case 3: qstem_row(g, c, t, wq, bq, 7, 2, 3, y); break;
    default: qstem_row(g, c, t, wq, bq, 7, 2, 4, y); break;
    }
}

void dn_qstem_run(const dn_qdw_geo *g, const uint8_t *x, const void *packed, void *y, void *scratch,
                  int threads)
{
    int64_t rows = g->N * g->OH;
    int nt = threads > 1 && rows > 1 ? threads : 1;
    size_t tb = thread_bytes(g);
    const float *sq = (const float *)((const char *)packed + nq_of(g->K) * g->C * 4 + g->C * 4);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int ti = omp_get_thread_num(), tn = omp_get_num_threads();
        uint8_t *pl = (uint8_t *)scratch + (size_t)ti * tb;
        __m512i *t = (__m512i *)(pl + planes_bytes(g));
        int64_t r0 = rows * ti / tn, r1 = rows * (ti + 1) / tn;
        qstem_rq c;
        qstem_rq_init(g, sq, (int)(g->C / 16), &c);
        uint8_t *zpp = pl + QS_RING * 3 * g->K * owp_of(g);
        memset(zpp, (int)(uint8_t)g->xzp, (size_t)owp_of(g));   /* rows outside the image */
        memset(zpp + owp_of(g), 0, (size_t)owp_of(g));           /* the zero taps */
        int64_t slot_ih[QS_RING], n_at = -1;
        const uint8_t *pp[4 * 37];   /* 4 nq_of(7) taps at most */
        for (int64_t r = r0; r < r1; r++) {
            int64_t n = r / g->OH, oh = r % g->OH;
            if (n != n_at)   /* a new image: the ring holds none of its rows */
                for (int i = 0; i < QS_RING; i++) slot_ih[i] = -1;
            n_at = n;
            qstem_taps(g, x + n * 3 * g->H * g->W, oh, pl, slot_ih, pp);
            qstem_quads(g, pp, t);
            qstem_row_any(g, &c, t, packed, (uint8_t *)y + (n * g->OH + oh) * g->OW * g->C);
        }
    }
}
#endif
