/* Direct int8 depthwise 3x3 convolution (stride 1 or 2, one pixel of
 * padding; 5x5 with two at stride 1) over channels-last uint8 tensors with
 * AVX-512 VNNI.
 *
 * oneDNN 2.6 computes these layers (MobileNetV2's and EfficientNet-B0's
 * 3x3 depthwise convolutions) at about one and a half cycles per 16
 * channels and tap: a depthwise product has no reduction over contiguous
 * channels for vpdpbusd's groups of four bytes, so it widens and multiplies
 * tap by tap. Here the reduction runs over the three kernel rows instead:
 * for each output row, the three input rows it reads are interleaved once
 * into quadruples (row 0, row 1, row 2, 0) per pixel and channel, two
 * byte and two word unpacks per 64 channels and pixel, and every output
 * pixel is then three vpdpbusd per 16 channels, one per kernel column,
 * reading the quadruples of its three columns (a 5x5 kernel: rows 0-3 and
 * row 4 as two sets of quadruples, ten vpdpbusd). The unpacks leave the
 * channels of a 64-channel block spread over four registers (channels
 * 16L + 4k + j in lane L, dword j of register k); the weights, bias and
 * scales are packed in the same order, and the two packs that narrow the
 * four results to bytes put the channels back in order.
 *
 * The input zero point: padding is the zero point (a real zero), so the
 * products run on the stored bytes and the packed bias carries
 * bias - x_zp * sum(w) per channel. Requantisation as dn_qconv.c's oneDNN
 * path: the int32 sum times the output scale plus y_zp (one fma), clamped
 * for Relu/Clip where the bound is inside the 8-bit range, or SiLU and
 * 1/y_scale (dn_silu_q16), rounded half to even, saturated. Threads take contiguous runs of output rows, each with its
 * own row of quadruples. */
#include "kernels/dnnl/dn_qdw.h"
#include "kernels/dnnl/dn_common.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static int s2_mode(int64_t C, int64_t S, int K);
/* Quadruple sets per column: kernel rows 0-3, and row 4 of a 5x5 kernel. */
static int nq_of(int K) { return K > 4 ? 2 : 1; }
/* per 64-channel block (or channel phase): weights [sets][K kw][4 k][16
 * dwords], then bias [4][16] int32 and scales [4][16] float, then the
 * weights again one quadruple row down (kernel row kh in row kh + 1: the
 * next output row's: qdw_px_rows) */
static size_t wb_of(int K) { return (size_t)nq_of(K) * (size_t)K * 256; }
static size_t wp_off(int K) { return wb_of(K) + 512; }
static size_t blk_bytes(int K) { return 2 * wb_of(K) + 512; }

int dn_qdw_disabled(void)
{
    const char *e = getenv("OPENACL_NO_QDW");   /* read per build: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
}

/* OPENACL_QDW_S2=0: the stride-2 layers of qdw_s2_row (s2_mode) go where
 * they went before that loop: oneDNN, or for whole 64-channel blocks the
 * blocked loop (DN_QDW_NO_S2; the packing is the same). */
int dn_qdw_off(int64_t C, int64_t S, int K)
{
    return dn_qdw_disabled() || ((dn_qdw_opts() & DN_QDW_NO_S2) && s2_mode(C, S, K) && C % 64 != 0);
}

int dn_qdw_pairs(void)
{
    const char *e = getenv("OPENACL_QDW_PAIRS");   /* read per build: mdl_bench --ab */
    return !(e && !strcmp(e, "0"));
}

int dn_qdw_opts(void)
{
    const char *e = getenv("OPENACL_QCONV_KEEP_CLAMPS");   /* read per build: mdl_bench --ab */
    const char *p = getenv("OPENACL_QDW_PHASES"), *s2 = getenv("OPENACL_QDW_S2"), *tb = getenv("OPENACL_QDW_TBUF");
    return (e && *e && strcmp(e, "0") != 0 ? DN_QDW_KEEP_CLAMPS : 0) | (p && !strcmp(p, "0") ? DN_QDW_CHUNK_ORDER : 0) |
           (s2 && !strcmp(s2, "0") ? DN_QDW_NO_S2 : 0) | (tb && !strcmp(tb, "0") ? DN_QDW_PLANNED_SCRATCH : 0);
}

int dn_qdw_one_px(void)
{
    const char *e = getenv("OPENACL_QDW_PAIR");   /* read per build: mdl_bench --ab */
    return e && !strcmp(e, "0");
}

int dn_qdw_whole_rows(void)
{
    const char *e = getenv("OPENACL_QDW_ROWBLK");   /* read per build: mdl_bench --ab */
    return e && !strcmp(e, "0");
}

int dn_qdw_supported(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int has = -1;
    if (has < 0) {
        dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
        has = dn_has_avx512() && __builtin_cpu_supports("avx512vnni") &&
              (isa == dnnl_cpu_isa_avx512_core_vnni || isa == dnnl_cpu_isa_avx512_core_bf16 ||
               isa == dnnl_cpu_isa_avx512_core_amx);
    }
    return has;
#else
    return 0;
#endif
}

static int64_t blocks(int64_t C) { return (C + 63) / 64; }

/* Stride-1 layers whose channels are a multiple of 16 but not of 64 run on
 * the row as a flat run of bytes (qdw_flat_row): no idle lanes. */
static int flat_mode(int64_t C, int64_t S, int K) { return K == 3 && S == 1 && C % 64 != 0 && C % 16 == 0; }

/* Stride-2 3x3 layers of 64 channels or more, a multiple of 16: qdw_s2_row,
 * flat rows of even and odd input columns. Those of whole 64-channel
 * blocks (MobileNetV2's 192 and 576) the blocked loop took before, packed
 * alike (one channel phase per block); of the rest, those whose blocks
 * would leave a tenth of the lanes idle or more (MobileNetV2's 96 and 144,
 * EfficientNet-B0's 96), which oneDNN kept; 240 channels stay blocked. */
static int s2_mode(int64_t C, int64_t S, int K)
{
    return K == 3 && S == 2 && C >= 64 && C % 16 == 0 && (C % 64 == 0 || 10 * C < 9 * 64 * ((C + 63) / 64));
}

/* 64-byte chunks of a flat row before the channel pattern repeats:
 * C / gcd(C, 64) */
static int64_t phases(int64_t C)
{
    int64_t a = C, b = 64;
    while (b) { int64_t t = a % b; a = b; b = t; }
    return C / a;
}

/* MobileNetV2 int8, 1 thread, oneDNN -> this loop: 112x112x32 0.107 ->
 * 0.077 ms and 56x56x144 0.120 -> 0.104 (flat rows); 28x28x192 0.041 ->
 * 0.025, 14x14x384 0.022 -> 0.015 (blocks). EfficientNet-B0's 5x5 SiLU
 * layers: 7x7x1152 0.061 -> 0.049, 14x14x672 0.112 -> 0.107, but the
 * stride-2 14x14x672 -> 7x7 0.031 -> 0.037 (two quadruple sets per input
 * column for half as many outputs): 5x5 only at stride 1. */
int dn_qdw_takes(int64_t C, int64_t S, int K)
{
    if (K == 5 && S != 1) return 0;
    return flat_mode(C, S, K) || s2_mode(C, S, K) || 10 * C >= 9 * 64 * blocks(C);
}

static int64_t nblk(int64_t C, int64_t S, int K)
{
    return flat_mode(C, S, K) || s2_mode(C, S, K) ? phases(C) : blocks(C);
}

size_t dn_qdw_packed_bytes(int64_t C, int64_t S, int K) { return (size_t)nblk(C, S, K) * blk_bytes(K); }

/* channel of dword `pos` of register k in block b (in the flat form, of the
 * chunks of phase b) */
static int64_t chan_of(int64_t b, int k, int pos, int64_t C, int flat)
{
    int64_t c = 64 * b + 16 * (pos / 4) + 4 * k + pos % 4;
    return flat ? c % C : c;
}

void dn_qdw_pack(const int8_t *w, const int32_t *bias, const float *oscale, int64_t nsc, int64_t C, int64_t S,
                 int K, int32_t xzp, void *dst)
{
    int flat = flat_mode(C, S, K) || s2_mode(C, S, K), KK = K * K;
    memset(dst, 0, dn_qdw_packed_bytes(C, S, K));
    for (int64_t b = 0; b < nblk(C, S, K); b++) {
        char *blk = (char *)dst + b * blk_bytes(K);
        int8_t *wq = (int8_t *)blk, *wp = (int8_t *)blk + wp_off(K);
        int32_t *bq = (int32_t *)(blk + wb_of(K));
        float *sq = (float *)(blk + wb_of(K) + 256);
        for (int k = 0; k < 4; k++)
            for (int pos = 0; pos < 16; pos++) {
                int64_t c = chan_of(b, k, pos, C, flat);
                if (c >= C) continue;
                int32_t sw = 0;
                for (int t = 0; t < KK; t++) sw += w[c * KK + t];
                for (int kh = 0; kh < K; kh++)
                    for (int kw = 0; kw < K; kw++) {
                        int8_t v = w[c * KK + kh * K + kw];
                        wq[((((kh / 4) * K + kw) * 4 + k) * 16 + pos) * 4 + kh % 4] = v;
                        wp[(((((kh + 1) / 4) * K + kw) * 4 + k) * 16 + pos) * 4 + (kh + 1) % 4] = v;
                    }
                bq[k * 16 + pos] = nn_acc32(bias ? bias[c] : 0, -(xzp * sw));   /* wraps as the int32 sums do */
                sq[k * 16 + pos] = oscale[nsc > 1 ? c : 0];
            }
    }
}

/* the quadruples of one output row: per column and block (W + 2 columns),
 * or per 64-byte chunk of the flat row with C / 64 + 1 padding chunks on
 * either side */
static size_t row_bytes(const dn_qdw_geo *g)
{
    /* qdw_s2_row: the odd columns' quadruples, a row of zero points */
    if (s2_mode(g->C, g->S, g->K) && !(g->opts & DN_QDW_NO_S2))
        return dn_align((size_t)((g->OW * g->C + 63) / 64 + g->C / 64 + 1) * 256 + (size_t)(g->W * g->C) + 128);
    if (flat_mode(g->C, g->S, g->K)) return dn_align((size_t)((g->W * g->C + 63) / 64 + 2 * (g->C / 64 + 1)) * 256);
    return dn_align((size_t)(g->W + g->K - 1) * (size_t)(blocks(g->C) * nq_of(g->K)) * 256);
}

size_t dn_qdw_worker_bytes(const dn_qdw_geo *g) { return row_bytes(g); }

size_t dn_qdw_scratch_bytes(const dn_qdw_geo *g, int threads)
{
    return row_bytes(g) * (size_t)(threads > 1 ? threads : 1);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define QDW_TGT __attribute__((target("avx512f,avx512bw,avx512dq,avx512vnni")))

static __mmask64 cmask(int64_t left)
{
    return left >= 64 ? ~(__mmask64)0 : left <= 0 ? 0 : ((__mmask64)1 << left) - 1;
}

/* The rows' 64 bytes at offset o (those outside m, and padding rows: the
 * zero point; rows past nr: zero) as four registers of quadruples (row 0,
 * row 1, row 2, row 3) at d. */
QDW_TGT static inline void qdw_quad(const uint8_t *const *row, int nr, size_t o, __mmask64 m, __m512i zp,
                                    __m512i *d)
{
    __m512i r[4];
    for (int i = 0; i < 4; i++)
        r[i] = i >= nr ? _mm512_setzero_si512() : row[i] ? _mm512_mask_loadu_epi8(zp, m, row[i] + o) : zp;
    __m512i lo = _mm512_unpacklo_epi8(r[0], r[1]), hi = _mm512_unpackhi_epi8(r[0], r[1]);
    __m512i l2 = _mm512_unpacklo_epi8(r[2], r[3]), h2 = _mm512_unpackhi_epi8(r[2], r[3]);
    _mm512_storeu_si512(d, _mm512_unpacklo_epi16(lo, l2));
    _mm512_storeu_si512(d + 1, _mm512_unpackhi_epi16(lo, l2));
    _mm512_storeu_si512(d + 2, _mm512_unpacklo_epi16(hi, h2));
    _mm512_storeu_si512(d + 3, _mm512_unpackhi_epi16(hi, h2));
}

/* The input rows output row oh reads (NULL: padding), and with pair the
 * one below them, which output row oh + 1 reads too (stride 1). */
static void qdw_rows(const dn_qdw_geo *g, const uint8_t *x, int64_t oh, int pair, const uint8_t **row)
{
    for (int kh = 0; kh < g->K + pair; kh++) {
        int64_t ih = oh * g->S - g->K / 2 + kh;
        row[kh] = ih >= 0 && ih < g->H ? x + ih * g->W * g->C : NULL;
    }
}

/* The quadruples of output row oh (with pair: and of the input row below
 * its K, for row oh + 1) for blocks b0 .. b1 - 1 (nb of them):
 * t[((w + K/2) * sets + q) * nb + b - b0][k] for input columns w = -K/2 ..
 * W - 1 + K/2 (the padding columns hold the zero point; the bytes of rows
 * past K + pair meet zero weights). */
QDW_TGT static void qdw_quads(const dn_qdw_geo *g, const uint8_t *x, int64_t oh, int pair, int64_t b0, int64_t b1,
                              __m512i *t)
{
    int64_t nb = b1 - b0, nq = nq_of(g->K), P = g->K / 2, nw = nb * nq * 4;
    const uint8_t *row[8];
    qdw_rows(g, x, oh, pair, row);
    const __m512i zp = _mm512_set1_epi8((char)g->xzp);
    const __m512i pad = _mm512_set1_epi32((int32_t)((uint32_t)g->xzp * 0x01010101u));
    for (int64_t i = 0; i < P * nw; i++) {
        _mm512_storeu_si512(t + i, pad);
        _mm512_storeu_si512(t + (g->W + P) * nw + i, pad);
    }
    for (int64_t w = 0; w < g->W; w++)
        for (int q = 0; q < nq; q++)
            for (int64_t b = b0; b < b1; b++) {
                __mmask64 m = cmask(g->C - 64 * b);
                size_t o = (size_t)(w * g->C + 64 * b);
                int nr = g->K + pair - 4 * q < 4 ? g->K + pair - 4 * q : 4;
                qdw_quad(row + 4 * q, nr, o, m, zp, t + (((w + P) * nq + q) * nb + b - b0) * 4);
            }
}

/* The requantisation's constants for one block: the scales, y_zp (added
 * before rounding: for the clamp chains inside the same fma as the scale),
 * the clamp bounds shifted by y_zp, and whether each bound does more than
 * the saturation to 8 bits after it. */
typedef struct qdw_rq {
    __m512 sc[4], vz, lo, hi, vi;
    dn_silu_k kc;
    int use_lo, use_hi;
} qdw_rq;

QDW_TGT static void qdw_rq_init(const dn_qdw_geo *g, qdw_rq *c)
{
    float qmin = g->s8 ? -128.f : 0.f, qmax = g->s8 ? 127.f : 255.f, z = (float)g->yzp;
    c->vz = _mm512_set1_ps(z);
    c->lo = _mm512_set1_ps(g->lo + z);
    c->hi = _mm512_set1_ps(g->hi + z);
    c->vi = _mm512_set1_ps(g->inv_ys);
    dn_silu_qk(&c->kc, 1.0f / g->inv_ys, g->yzp, g->silu_fold);
    /* a bound within half a step of the range's end rounds to that end, as
     * every value past it does: the saturation clamps there (as
     * dn_qpost_drop_saturated's rule; Relu6 at zero point 0 keeps no max) */
    c->use_lo = (g->opts & DN_QDW_KEEP_CLAMPS) ? g->lo + z > qmin - 0.5f : !(g->lo + z < qmin + 0.5f);
    c->use_hi = (g->opts & DN_QDW_KEEP_CLAMPS) ? g->hi + z < qmax + 0.5f : !(g->hi + z > qmax - 0.5f);
}

/* Four accumulators (one 64-channel block) to 64 output bytes in order. */
QDW_TGT static inline __m512i qdw_requant(const dn_qdw_geo *g, const qdw_rq *c, const __m512i *acc)
{
    __m512i q[4];
    for (int k = 0; k < 4; k++) {
        __m512 a = _mm512_cvtepi32_ps(acc[k]);
        if (g->silu) {
            q[k] = dn_silu_qstep(_mm512_mul_ps(a, c->sc[k]), &c->kc, c->vi, c->vz, g->silu_fold, g->silu_div);
            continue;
        }
        __m512 v = _mm512_fmadd_ps(a, c->sc[k], c->vz);
        if (c->use_lo) v = _mm512_max_ps(v, c->lo);
        if (c->use_hi) v = _mm512_min_ps(v, c->hi);
        q[k] = _mm512_cvtps_epi32(v);
    }
    __m512i w01 = _mm512_packs_epi32(q[0], q[1]), w23 = _mm512_packs_epi32(q[2], q[3]);
    return g->s8 ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23);
}

/* The int32 sums of output pixel ow's block b into acc (its bias first). */
QDW_TGT static inline void qdw_px(const dn_qdw_geo *g, const __m512i *t, const __m512i *wq, const __m512i *wr,
                                  const int32_t *bq, int64_t nb, int64_t nq, int64_t b, int64_t ow, __m512i *acc)
{
    for (int k = 0; k < 4; k++) acc[k] = _mm512_loadu_si512(bq + 16 * k);
    if (g->K == 3) {
        for (int kw = 0; kw < 3; kw++) {
            const __m512i *q = t + ((ow * g->S + kw) * nb + b) * 4;
            for (int k = 0; k < 4; k++) acc[k] = _mm512_dpbusd_epi32(acc[k], _mm512_loadu_si512(q + k), wr[kw * 4 + k]);
        }
        return;
    }
    for (int kw = 0; kw < g->K; kw++)
        for (int qs = 0; qs < nq; qs++) {
            const __m512i *q = t + (((ow * g->S + kw) * nq + qs) * nb + b) * 4;
            const __m512i *wk = wq + (qs * g->K + kw) * 4;
            for (int k = 0; k < 4; k++)
                acc[k] = _mm512_dpbusd_epi32(acc[k], _mm512_loadu_si512(q + k), _mm512_loadu_si512(wk + k));
        }
}

/* Output pixels ow and ow + 1 of block b at once: eight independent sums
 * (four chains of K or 2K dependent vpdpbusd each are too few to hide
 * their latency), a 5x5 kernel's weights loaded once for both. */
QDW_TGT static inline void qdw_px2(const dn_qdw_geo *g, const __m512i *t, const __m512i *wq, const __m512i *wr,
                                   const int32_t *bq, int64_t nb, int64_t nq, int64_t b, int64_t ow, __m512i *a0,
                                   __m512i *a1)
{
    for (int k = 0; k < 4; k++) a0[k] = a1[k] = _mm512_loadu_si512(bq + 16 * k);
    int64_t step = g->S * nq * nb * 4;   /* one output pixel further in t */
    for (int kw = 0; kw < g->K; kw++)
        for (int qs = 0; qs < nq; qs++) {
            const __m512i *q = t + (((ow * g->S + kw) * nq + qs) * nb + b) * 4;
            for (int k = 0; k < 4; k++) {
                __m512i w = g->K == 3 ? wr[kw * 4 + k] : _mm512_loadu_si512(wq + (qs * g->K + kw) * 4 + k);
                a0[k] = _mm512_dpbusd_epi32(a0[k], _mm512_loadu_si512(q + k), w);
                a1[k] = _mm512_dpbusd_epi32(a1[k], _mm512_loadu_si512(q + step + k), w);
            }
        }
}

/* Output pixel ow of block b for output rows oh and oh + 1 (a pair): the
 * same quadruple loads meet the weights (row 0 of the pair, the twelve
 * registers wr for 3x3) and the weights one kernel row down (wp, row 1). */
QDW_TGT static inline void qdw_px_rows(const dn_qdw_geo *g, const __m512i *t, const __m512i *wq, const __m512i *wp,
                                       const __m512i *wr, const int32_t *bq, int64_t nb, int64_t nq, int64_t b,
                                       int64_t ow, __m512i *acc, __m512i *ac2)
{
    for (int k = 0; k < 4; k++) acc[k] = ac2[k] = _mm512_loadu_si512(bq + 16 * k);
    if (g->K == 3) {
        for (int kw = 0; kw < 3; kw++) {
            const __m512i *q = t + ((ow * g->S + kw) * nb + b) * 4;
            for (int k = 0; k < 4; k++) {
                __m512i v = _mm512_loadu_si512(q + k);
                acc[k] = _mm512_dpbusd_epi32(acc[k], v, wr[kw * 4 + k]);
                ac2[k] = _mm512_dpbusd_epi32(ac2[k], v, _mm512_loadu_si512(wp + kw * 4 + k));
            }
        }
        return;
    }
    for (int kw = 0; kw < g->K; kw++)
        for (int qs = 0; qs < nq; qs++) {
            const __m512i *q = t + (((ow * g->S + kw) * nq + qs) * nb + b) * 4;
            const __m512i *wk = wq + (qs * g->K + kw) * 4, *wk2 = wp + (qs * g->K + kw) * 4;
            for (int k = 0; k < 4; k++) {
                __m512i v = _mm512_loadu_si512(q + k);
                acc[k] = _mm512_dpbusd_epi32(acc[k], v, _mm512_loadu_si512(wk + k));
                ac2[k] = _mm512_dpbusd_epi32(ac2[k], v, _mm512_loadu_si512(wk2 + k));
            }
        }
}

/* One output row (and with y2 the row below it, from quadruples that hold
 * one input row more) for blocks b0 .. b1 - 1, block by block: 3x3 kernels
 * keep their twelve weight registers, 5x5 ones (forty) read them from L1.
 * A row pair has eight independent sums per pixel already; a lone row
 * takes two output pixels a step unless g->one_px (OPENACL_QDW_PAIR=0). */
QDW_TGT static void qdw_row(const dn_qdw_geo *g, const __m512i *t, const char *packed, uint8_t *y, uint8_t *y2,
                            int64_t b0, int64_t b1)
{
    int64_t nb = b1 - b0, nq = nq_of(g->K);
    qdw_rq c;
    qdw_rq_init(g, &c);
    for (int64_t b = b0; b < b1; b++) {
        const char *blk = packed + b * blk_bytes(g->K);
        const __m512i *wq = (const __m512i *)blk, *wp = (const __m512i *)(blk + wp_off(g->K));
        const int32_t *bq = (const int32_t *)(blk + wb_of(g->K));
        const float *sq = (const float *)(blk + wb_of(g->K) + 256);
        __m512i wr[12];
        for (int i = 0; i < 12; i++) wr[i] = _mm512_loadu_si512(wq + i);
        for (int k = 0; k < 4; k++) c.sc[k] = _mm512_loadu_ps(sq + 16 * k);
        __mmask64 m = cmask(g->C - 64 * b);
        int64_t ow = 0;
        for (; y2 && ow < g->OW; ow++) {
            __m512i acc[4], ac2[4];
            qdw_px_rows(g, t, wq, wp, wr, bq, nb, nq, b - b0, ow, acc, ac2);
            _mm512_mask_storeu_epi8(y + ow * g->C + 64 * b, m, qdw_requant(g, &c, acc));
            _mm512_mask_storeu_epi8(y2 + ow * g->C + 64 * b, m, qdw_requant(g, &c, ac2));
        }
        for (; !g->one_px && ow + 2 <= g->OW; ow += 2) {
            __m512i a0[4], a1[4];
            qdw_px2(g, t, wq, wr, bq, nb, nq, b - b0, ow, a0, a1);
            _mm512_mask_storeu_epi8(y + ow * g->C + 64 * b, m, qdw_requant(g, &c, a0));
            _mm512_mask_storeu_epi8(y + (ow + 1) * g->C + 64 * b, m, qdw_requant(g, &c, a1));
        }
        for (; ow < g->OW; ow++) {
            __m512i acc[4];
            qdw_px(g, t, wq, wr, bq, nb, nq, b - b0, ow, acc);
            _mm512_mask_storeu_epi8(y + ow * g->C + 64 * b, m, qdw_requant(g, &c, acc));
        }
    }
}

/* Output chunk j of a flat stride-1 row (and with pair of the row below)
 * from the row's quadruples t: weights w (w2: one row down), the phase's
 * bias and scales at blk. */
QDW_TGT static inline __attribute__((always_inline)) void
qdw_flat_chunk(const dn_qdw_geo *g, qdw_rq *c, const __m512i *t, int64_t j, int64_t pad, int64_t A, int64_t L,
               __m512i ilo, __m512i ihi, const __m512i *w, const __m512i *w2, const char *blk, uint8_t *y,
               uint8_t *y2, int pair)
{
    const int32_t *bq = (const int32_t *)(blk + wb_of(3));
    const float *sq = (const float *)(blk + wb_of(3) + 256);
    const __m512i *mid = t + (pad + j) * 4, *l0 = t + (pad + j - A - 1) * 4, *r0 = t + (pad + j + A) * 4;
    __m512i acc[4], ac2[4];
    for (int k = 0; k < 4; k++) {
        __m512i lft = _mm512_permutex2var_epi64(_mm512_loadu_si512(l0 + k), ilo, _mm512_loadu_si512(l0 + 4 + k));
        __m512i rgt = _mm512_permutex2var_epi64(_mm512_loadu_si512(r0 + k), ihi, _mm512_loadu_si512(r0 + 4 + k));
        __m512i mv = _mm512_loadu_si512(mid + k);
        __m512i a = _mm512_loadu_si512(bq + 16 * k);
        c->sc[k] = _mm512_loadu_ps(sq + 16 * k);
        if (pair) {
            __m512i a2 = _mm512_dpbusd_epi32(a, lft, _mm512_loadu_si512(w2 + k));
            a2 = _mm512_dpbusd_epi32(a2, mv, _mm512_loadu_si512(w2 + 4 + k));
            ac2[k] = _mm512_dpbusd_epi32(a2, rgt, _mm512_loadu_si512(w2 + 8 + k));
        }
        a = _mm512_dpbusd_epi32(a, lft, _mm512_loadu_si512(w + k));
        a = _mm512_dpbusd_epi32(a, mv, _mm512_loadu_si512(w + 4 + k));
        acc[k] = _mm512_dpbusd_epi32(a, rgt, _mm512_loadu_si512(w + 8 + k));
    }
    _mm512_mask_storeu_epi8(y + 64 * j, cmask(L - 64 * j), qdw_requant(g, c, acc));
    if (pair) _mm512_mask_storeu_epi8(y2 + 64 * j, cmask(L - 64 * j), qdw_requant(g, c, ac2));
}

/* A stride-1 row as a flat run of W * C bytes in 64-byte chunks: the
 * quadruples of every chunk once, then for each output chunk the kernel's
 * middle column at the same offset and its left and right columns C bytes
 * before and after, which, C being a multiple of 16, are whole 128-bit
 * lanes away: one two-source qword permutation per register. The weights
 * follow the chunks' channel phases (C / gcd(C, 64) of them). With pair,
 * the row below (y2) from the same loads with the weights one row down. */
QDW_TGT static inline __attribute__((always_inline)) void
qdw_flat_row_t(const dn_qdw_geo *g, const uint8_t *x, int64_t oh, __m512i *t, const char *packed, uint8_t *y,
               uint8_t *y2, int pair, int silu)
{
    int64_t L = g->W * g->C, nch = (L + 63) / 64, A = g->C / 64, B = (g->C / 16) % 4, ph = phases(g->C);
    int64_t pad = A + 1;
    const uint8_t *row[8];
    qdw_rows(g, x, oh, pair, row);
    const __m512i zp = _mm512_set1_epi8((char)g->xzp);
    const __m512i pz = _mm512_set1_epi32((int32_t)((uint32_t)g->xzp * 0x01010101u));
    for (int64_t j = 0; j < pad; j++)
        for (int k = 0; k < 4; k++) {
            _mm512_storeu_si512(t + j * 4 + k, pz);
            _mm512_storeu_si512(t + (pad + nch + j) * 4 + k, pz);
        }
    for (int64_t j = 0; j < nch; j++)
        qdw_quad(row, 3 + pair, (size_t)(64 * j), cmask(L - 64 * j), zp, t + (pad + j) * 4);
    const __m512i ilo = _mm512_add_epi64(_mm512_set1_epi64(8 - 2 * B), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    const __m512i ihi = _mm512_add_epi64(_mm512_set1_epi64(2 * B), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    qdw_rq c;
    qdw_rq_init(g, &c);
    dn_qdw_geo gs = *g;
    gs.silu = silu;   /* a constant for qdw_requant */
    if (g->opts & DN_QDW_CHUNK_ORDER) {   /* chunk by chunk, the weights read for each */
        for (int64_t j = 0; j < nch; j++) {
            const char *blk = packed + (j % ph) * blk_bytes(3);
            qdw_flat_chunk(&gs, &c, t, j, pad, A, L, ilo, ihi, (const __m512i *)blk,
                           (const __m512i *)(blk + wp_off(3)), blk, y, y2, pair);
        }
        return;
    }
    /* phase by phase, its weights (both sets with pair) in registers */
    for (int64_t pj = 0; pj < ph && pj < nch; pj++) {
        const char *blk = packed + pj * blk_bytes(3);
        __m512i w[12], w2[12];
        for (int i = 0; i < 12; i++) {
            w[i] = _mm512_loadu_si512((const __m512i *)blk + i);
            w2[i] = pair ? _mm512_loadu_si512((const __m512i *)(blk + wp_off(3)) + i) : w[i];
        }
        for (int64_t j = pj; j < nch; j += ph)
            qdw_flat_chunk(&gs, &c, t, j, pad, A, L, ilo, ihi, w, w2, blk, y, y2, pair);
    }
}

QDW_TGT static void qdw_flat_row(const dn_qdw_geo *g, const uint8_t *x, int64_t oh, __m512i *t,
                                 const char *packed, uint8_t *y, uint8_t *y2)
{
    if (g->silu) {
        if (y2) qdw_flat_row_t(g, x, oh, t, packed, y, y2, 1, 1);
        else qdw_flat_row_t(g, x, oh, t, packed, y, NULL, 0, 1);
    } else {
        if (y2) qdw_flat_row_t(g, x, oh, t, packed, y, y2, 1, 0);
        else qdw_flat_row_t(g, x, oh, t, packed, y, NULL, 0, 0);
    }
}

/* 64 bytes of the even (odd: +C) columns of one input row laid out as a
 * flat run of OW columns, from byte e0 = 64j on: at most two columns
 * (C > 64), pixel p0 = e0 / C (its bytes: lo) and the next, at input
 * offsets off = e0 + p0 C and off + C. valid: the bytes within the run
 * (the odd columns of an odd-width row end one short: padding); bytes
 * past it are the zero point. */
QDW_TGT static inline __m512i qdw_s2_load(const uint8_t *a0, int64_t C, __mmask64 lo, __mmask64 valid, __m512i zp)
{
    if (valid == ~(__mmask64)0)
        return _mm512_or_si512(_mm512_maskz_loadu_epi8(lo, a0), _mm512_maskz_loadu_epi8(~lo, a0 + C));
    return _mm512_mask_loadu_epi8(_mm512_mask_loadu_epi8(zp, lo & valid, a0), ~lo & valid, a0 + C);
}

/* Four registers of quadruples (rows r[0], r[1], r[2], zero), as qdw_quad's. */
QDW_TGT static inline void qdw_quad3(const __m512i *r, __m512i *d)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i lo = _mm512_unpacklo_epi8(r[0], r[1]), hi = _mm512_unpackhi_epi8(r[0], r[1]);
    __m512i l2 = _mm512_unpacklo_epi8(r[2], z), h2 = _mm512_unpackhi_epi8(r[2], z);
    d[0] = _mm512_unpacklo_epi16(lo, l2);
    d[1] = _mm512_unpackhi_epi16(lo, l2);
    d[2] = _mm512_unpacklo_epi16(hi, h2);
    d[3] = _mm512_unpackhi_epi16(hi, h2);
}

/* A stride-2 row as flat runs (s2_mode): output pixel ow reads input
 * columns 2ow - 1, 2ow and 2ow + 1, that is odd column ow - 1, even column
 * ow and odd column ow. Read as flat runs of even and of odd columns
 * (qdw_s2_load: one load per 64 bytes and row inside a column, two
 * masked ones across a column's end), both are laid out as the output row
 * is: per 64-byte output chunk the middle taps read the even quadruples
 * at the same offset (kept in registers), the right ones the odd
 * quadruples there, and the left ones the odd quadruples C bytes before
 * (stored for that; one two-source qword permutation, as qdw_flat_row's
 * left column). Every input column's quadruples are built once for one
 * output pixel; the blocked loop built both columns' for half as many
 * outputs, with a quarter of its lanes idle at 96 or 144 channels. Weights
 * by channel phase, as the flat stride-1 form; padding rows read a row of
 * zero points after the quadruples. */
/* Even (odd: C further) rows' 64 bytes at byte e0 of the flat run: one
 * load inside a column, two masked ones across a column's end (cut: the
 * bytes left in column e0 / C) or at the run's end (lv: its valid bytes). */
QDW_TGT static inline void qdw_s2_rows3(const uint8_t *const *row, int64_t off, int64_t C, int64_t e0, int64_t cut,
                                        int64_t lv, __m512i zp, __m512i *r)
{
    if (cut >= 64 && lv - e0 >= 64) {
        for (int i = 0; i < 3; i++) r[i] = _mm512_loadu_si512(row[i] + off);
        return;
    }
    __mmask64 lo = cmask(cut), v = cmask(lv - e0);
    for (int i = 0; i < 3; i++) r[i] = qdw_s2_load(row[i] + off, C, lo, v, zp);
}

QDW_TGT static inline __attribute__((always_inline)) void
qdw_s2_row_t(const dn_qdw_geo *g, const uint8_t *x, int64_t oh, __m512i *t, const char *packed, uint8_t *y,
             int silu)
{
    int64_t C = g->C, L = g->OW * C, nch = (L + 63) / 64, A = C / 64, B = (C / 16) % 4, ph = phases(C);
    int64_t pad = A + 1, lo_valid = (g->W / 2) * C, pstep = 64 * ph / C;   /* columns a phase's step */
    const uint8_t *row[4];
    uint8_t *zrow = (uint8_t *)(t + (pad + nch) * 4);
    qdw_rows(g, x, oh, 0, row);
    const __m512i zp = _mm512_set1_epi8((char)g->xzp);
    const __m512i pz = _mm512_set1_epi32((int32_t)((uint32_t)g->xzp * 0x01010101u));
    if (!row[0] || !row[2])
        for (int64_t o = 0; o < g->W * C + 64; o += 64) _mm512_storeu_si512(zrow + o, zp);
    for (int r = 0; r < 3; r++)
        if (!row[r]) row[r] = zrow;
    for (int64_t j = 0; j < pad * 4; j++) _mm512_storeu_si512(t + j, pz);
    /* the odd columns' quadruples first: the left taps read them C bytes back */
    for (int64_t j = 0, p0 = 0; j < nch; j++) {
        int64_t e0 = 64 * j;
        if ((p0 + 1) * C <= e0) p0++;   /* C > 64: one column further at most */
        __m512i ro[3];
        qdw_s2_rows3(row, e0 + p0 * C + C, C, e0, (p0 + 1) * C - e0, lo_valid, zp, ro);
        qdw_quad3(ro, t + (pad + j) * 4);
    }
    const __m512i ilo = _mm512_add_epi64(_mm512_set1_epi64(8 - 2 * B), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    qdw_rq c;
    qdw_rq_init(g, &c);
    dn_qdw_geo gs = *g;
    gs.silu = silu;   /* a constant for qdw_requant */
    /* then phase by phase, its weights, bias and scales held in registers */
    for (int64_t pj = 0; pj < ph && pj < nch; pj++) {
        const char *blk = packed + pj * blk_bytes(3);
        const int32_t *bq = (const int32_t *)(blk + wb_of(3));
        const float *sq = (const float *)(blk + wb_of(3) + 256);
        __m512i w[12], b0[4];
        for (int i = 0; i < 12; i++) w[i] = _mm512_loadu_si512((const __m512i *)blk + i);
        for (int k = 0; k < 4; k++) {
            b0[k] = _mm512_loadu_si512(bq + 16 * k);
            c.sc[k] = _mm512_loadu_ps(sq + 16 * k);
        }
        int64_t p0 = 64 * pj / C, cut = (p0 + 1) * C - 64 * pj;
        for (int64_t j = pj; j < nch; j += ph, p0 += pstep) {
            int64_t e0 = 64 * j;
            __m512i re[3], qe[4], acc[4];
            qdw_s2_rows3(row, e0 + p0 * C, C, e0, cut, L, zp, re);
            qdw_quad3(re, qe);
            const __m512i *l0 = t + (pad + j - A - 1) * 4, *qo = t + (pad + j) * 4;
            for (int k = 0; k < 4; k++) {
                __m512i lft = _mm512_permutex2var_epi64(_mm512_loadu_si512(l0 + k), ilo,
                                                        _mm512_loadu_si512(l0 + 4 + k));
                __m512i s0 = _mm512_dpbusd_epi32(b0[k], lft, w[k]);
                s0 = _mm512_dpbusd_epi32(s0, qe[k], w[4 + k]);
                acc[k] = _mm512_dpbusd_epi32(s0, _mm512_loadu_si512(qo + k), w[8 + k]);
            }
            __m512i out = qdw_requant(&gs, &c, acc);
            if (L - e0 >= 64) _mm512_storeu_si512(y + e0, out);
            else _mm512_mask_storeu_epi8(y + e0, cmask(L - e0), out);
        }
    }
}

QDW_TGT static void qdw_s2_row(const dn_qdw_geo *g, const uint8_t *x, int64_t oh, __m512i *t, const char *packed,
                               uint8_t *y)
{
    if (g->silu) qdw_s2_row_t(g, x, oh, t, packed, y, 1);
    else qdw_s2_row_t(g, x, oh, t, packed, y, 0);
}

/* Blocks per pass over an output row: all of them, or one where the
 * row's quadruples of every block would not stay in L1 (over 32 KiB: the
 * 5x5 layers' two sets per column, and wide stride-2 rows), so that each
 * block's are read from L1 while they are fresh (g->whole_rows,
 * OPENACL_QDW_ROWBLK=0: always all). EfficientNet-B0 at 1 thread, per-node
 * minima: 28x28x240 5x5 0.105 -> 0.097 ms, 14x14x672 0.075 -> 0.068,
 * 14x14x480 0.057 -> 0.050, 7x7x1152 0.036 -> 0.032. */
static int64_t qdw_row_step(const dn_qdw_geo *g)
{
    int64_t nb = blocks(g->C);
    size_t all = (size_t)(g->W + g->K - 1) * (size_t)(nb * nq_of(g->K)) * 256;
    return g->whole_rows || all <= 32 * 1024 ? nb : 1;
}

/* qdw_thread_rows: the second thread's row quadruples, a few to some tens
 * of KiB rewritten per output row, lay in the node's planned scratch after
 * the first thread's, memory that other nodes' data and the first thread's
 * larger areas of other nodes use: its first pass over them, each node,
 * read them in from the other core. So the workers take theirs from
 * g->wscr, the node's own area that only they write. Timed inside the parallel region
 * (MobileNetV2 int8, 2 threads, medians of 330 calls), the second thread
 * took 10.8 us of a 14x14x384 layer that takes 12.1 at one thread (the
 * first 7.7), 14.9 us of 28x28x192 (12.3) and 30.3 of 112x112x32 (26.6);
 * in a buffer of its own 6.6-7.3, 11.2-11.4 and 25.2-25.5, the layers
 * 8.1-8.2, 12.5-12.9 and 26.6-27.2 us instead of 11.8-12.1, 16.1-16.3 and
 * 31.0-31.7 (that buffer was one per thread, shared by the nodes; the
 * node's own area allocated at its build gives the model the same gain:
 * MobileNetV2 int8 at 2 threads 0.974-0.981x against the planned scratch,
 * 0.969-0.976x with the per-thread one). The first
 * thread keeps the planned area: it is the caller, the one that also runs
 * the single-thread nodes on that memory. */
void dn_qdw_run(const dn_qdw_geo *g, const uint8_t *x, const void *packed, void *y, void *scratch,
                int threads)
{
    int64_t rows = g->N * g->OH;
    int nt = threads > 1 && rows > 1 ? threads : 1;
    size_t rb = row_bytes(g);
    int flat = flat_mode(g->C, g->S, g->K), s2 = s2_mode(g->C, g->S, g->K) && !(g->opts & DN_QDW_NO_S2);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int ti = omp_get_thread_num(), tn = omp_get_num_threads();
        __m512i *t = (__m512i *)((char *)scratch + (size_t)ti * rb);
        /* the workers' quadruples in the node's own area (qdw_thread_rows) */
        if (ti > 0 && g->wscr) t = (__m512i *)((char *)g->wscr + (size_t)(ti - 1) * rb);
        int64_t r0 = rows * ti / tn, r1 = rows * (ti + 1) / tn;
        for (int64_t r = r0; r < r1; r++) {
            int64_t n = r / g->OH, oh = r % g->OH;
            const uint8_t *xn = x + n * g->H * g->W * g->C;
            uint8_t *yr = (uint8_t *)y + (n * g->OH + oh) * g->OW * g->C;
            /* two rows of one image at stride 1: the second one's quadruples
             * are the first one's with one input row more */
            int pair = g->pairs && g->S == 1 && r + 1 < r1 && oh + 1 < g->OH;
            uint8_t *y2 = pair ? yr + g->OW * g->C : NULL;
            if (s2) {
                qdw_s2_row(g, xn, oh, t, packed, yr);
            } else if (flat) {
                qdw_flat_row(g, xn, oh, t, packed, yr, y2);
            } else {
                int64_t nb = blocks(g->C), step = qdw_row_step(g);
                for (int64_t b = 0; b < nb; b += step) {
                    qdw_quads(g, xn, oh, pair, b, b + step, t);
                    qdw_row(g, t, packed, yr, y2, b, b + step);
                }
            }
            r += pair;
        }
    }
}
#endif
