/* Direct int8 depthwise 3x3 convolution (stride 1 or 2, one pixel of
 * padding) over channels-last uint8 tensors with AVX-512 VNNI.
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
 * reading the quadruples of its three columns. The unpacks leave the
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

/* per 64-channel block: weights [3 kw][4 k][16 dwords], bias [4][16] int32,
 * scales [4][16] float */
#define QDW_WB 768
#define QDW_BLOCK (QDW_WB + 256 + 256)

int dn_qdw_disabled(void)
{
    const char *e = getenv("OPENACL_NO_QDW");   /* read per build: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
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

size_t dn_qdw_packed_bytes(int64_t C) { return (size_t)blocks(C) * QDW_BLOCK; }

/* channel of dword `pos` of register k in block b */
static int64_t chan_of(int64_t b, int k, int pos) { return 64 * b + 16 * (pos / 4) + 4 * k + pos % 4; }

void dn_qdw_pack(const int8_t *w, const int32_t *bias, const float *oscale, int64_t nsc, int64_t C,
                 int32_t xzp, void *dst)
{
    memset(dst, 0, dn_qdw_packed_bytes(C));
    for (int64_t b = 0; b < blocks(C); b++) {
        char *blk = (char *)dst + b * QDW_BLOCK;
        int8_t *wq = (int8_t *)blk;
        int32_t *bq = (int32_t *)(blk + QDW_WB);
        float *sq = (float *)(blk + QDW_WB + 256);
        for (int k = 0; k < 4; k++)
            for (int pos = 0; pos < 16; pos++) {
                int64_t c = chan_of(b, k, pos);
                if (c >= C) continue;
                int32_t sw = 0;
                for (int t = 0; t < 9; t++) sw += w[c * 9 + t];
                for (int kw = 0; kw < 3; kw++)
                    for (int kh = 0; kh < 3; kh++) wq[((kw * 4 + k) * 16 + pos) * 4 + kh] = w[c * 9 + kh * 3 + kw];
                bq[k * 16 + pos] = (bias ? bias[c] : 0) - xzp * sw;
                sq[k * 16 + pos] = oscale[nsc > 1 ? c : 0];
            }
    }
}

static size_t row_bytes(const dn_qdw_geo *g) { return dn_align((size_t)(g->W + 2) * (size_t)blocks(g->C) * 256); }

size_t dn_qdw_scratch_bytes(const dn_qdw_geo *g, int threads)
{
    return row_bytes(g) * (size_t)(threads > 1 ? threads : 1);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define QDW_TGT __attribute__((target("avx512f,avx512bw,avx512vnni")))

static __mmask64 cmask(int64_t left) { return left >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1; }

/* The quadruples of output row oh: t[(w + 1) * blocks + b][k] for input
 * columns w = -1 .. W (the padding columns hold the zero point). */
QDW_TGT static void qdw_quads(const dn_qdw_geo *g, const uint8_t *x, int64_t oh, __m512i *t)
{
    int64_t nb = blocks(g->C);
    const uint8_t *row[3];
    for (int kh = 0; kh < 3; kh++) {
        int64_t ih = oh * g->S - 1 + kh;
        row[kh] = ih >= 0 && ih < g->H ? x + ih * g->W * g->C : NULL;
    }
    const __m512i zp = _mm512_set1_epi8((char)g->xzp), z = _mm512_setzero_si512();
    const __m512i pad = _mm512_set1_epi32(g->xzp * 0x010101);
    for (int64_t b = 0; b < nb; b++)
        for (int k = 0; k < 4; k++) {
            _mm512_storeu_si512(t + b * 4 + k, pad);
            _mm512_storeu_si512(t + ((g->W + 1) * nb + b) * 4 + k, pad);
        }
    for (int64_t w = 0; w < g->W; w++)
        for (int64_t b = 0; b < nb; b++) {
            __mmask64 m = cmask(g->C - 64 * b);
            size_t o = (size_t)(w * g->C + 64 * b);
            __m512i r0 = row[0] ? _mm512_maskz_loadu_epi8(m, row[0] + o) : zp;
            __m512i r1 = row[1] ? _mm512_maskz_loadu_epi8(m, row[1] + o) : zp;
            __m512i r2 = row[2] ? _mm512_maskz_loadu_epi8(m, row[2] + o) : zp;
            __m512i lo = _mm512_unpacklo_epi8(r0, r1), hi = _mm512_unpackhi_epi8(r0, r1);
            __m512i l2 = _mm512_unpacklo_epi8(r2, z), h2 = _mm512_unpackhi_epi8(r2, z);
            __m512i *d = t + ((w + 1) * nb + b) * 4;
            _mm512_storeu_si512(d, _mm512_unpacklo_epi16(lo, l2));
            _mm512_storeu_si512(d + 1, _mm512_unpackhi_epi16(lo, l2));
            _mm512_storeu_si512(d + 2, _mm512_unpacklo_epi16(hi, h2));
            _mm512_storeu_si512(d + 3, _mm512_unpackhi_epi16(hi, h2));
        }
}

/* The requantisation's constants for one block: the scales, y_zp (added
 * before rounding: for the clamp chains inside the same fma as the scale),
 * the clamp bounds shifted by y_zp, and whether each bound does more than
 * the saturation to 8 bits after it. */
typedef struct qdw_rq {
    __m512 sc[4], vz, lo, hi, vi;
    int use_lo, use_hi;
} qdw_rq;

/* Four accumulators (one 64-channel block) to 64 output bytes in order. */
QDW_TGT static inline __m512i qdw_requant(const dn_qdw_geo *g, const qdw_rq *c, const __m512i *acc)
{
    __m512i q[4];
    for (int k = 0; k < 4; k++) {
        __m512 a = _mm512_cvtepi32_ps(acc[k]);
        if (g->silu) {
            q[k] = dn_silu_q16(_mm512_mul_ps(a, c->sc[k]), c->vi, c->vz, g->silu_div);
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

QDW_TGT static void qdw_row(const dn_qdw_geo *g, const __m512i *t, const char *packed, uint8_t *y)
{
    int64_t nb = blocks(g->C);
    float qmin = g->s8 ? -128.f : 0.f, qmax = g->s8 ? 127.f : 255.f, z = (float)g->yzp;
    qdw_rq c = { .vz = _mm512_set1_ps(z), .lo = _mm512_set1_ps(g->lo + z), .hi = _mm512_set1_ps(g->hi + z),
                 .vi = _mm512_set1_ps(g->inv_ys), .use_lo = g->lo + z > qmin - 0.5f,
                 .use_hi = g->hi + z < qmax + 0.5f };
    for (int64_t b = 0; b < nb; b++) {
        const char *blk = packed + b * QDW_BLOCK;
        const __m512i *wq = (const __m512i *)blk;
        const int32_t *bq = (const int32_t *)(blk + QDW_WB);
        const float *sq = (const float *)(blk + QDW_WB + 256);
        __m512i wr[12];
        for (int i = 0; i < 12; i++) wr[i] = _mm512_loadu_si512(wq + i);
        for (int k = 0; k < 4; k++) c.sc[k] = _mm512_loadu_ps(sq + 16 * k);
        __mmask64 m = cmask(g->C - 64 * b);
        for (int64_t ow = 0; ow < g->OW; ow++) {
            __m512i acc[4];
            for (int k = 0; k < 4; k++) acc[k] = _mm512_loadu_si512(bq + 16 * k);
            for (int kw = 0; kw < 3; kw++) {
                const __m512i *q = t + ((ow * g->S + kw) * nb + b) * 4;
                for (int k = 0; k < 4; k++)
                    acc[k] = _mm512_dpbusd_epi32(acc[k], _mm512_loadu_si512(q + k), wr[kw * 4 + k]);
            }
            _mm512_mask_storeu_epi8(y + ow * g->C + 64 * b, m, qdw_requant(g, &c, acc));
        }
    }
}

void dn_qdw_run(const dn_qdw_geo *g, const uint8_t *x, const void *packed, void *y, void *scratch,
                int threads)
{
    int64_t rows = g->N * g->OH;
    int nt = threads > 1 && rows > 1 ? threads : 1;
    size_t rb = row_bytes(g);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int ti = omp_get_thread_num(), tn = omp_get_num_threads();
        __m512i *t = (__m512i *)((char *)scratch + (size_t)ti * rb);
        int64_t r0 = rows * ti / tn, r1 = rows * (ti + 1) / tn;
        for (int64_t r = r0; r < r1; r++) {
            int64_t n = r / g->OH, oh = r % g->OH;
            qdw_quads(g, x + n * g->H * g->W * g->C, oh, t);
            qdw_row(g, t, packed, (uint8_t *)y + (n * g->OH + oh) * g->OW * g->C);
        }
    }
}
#endif
