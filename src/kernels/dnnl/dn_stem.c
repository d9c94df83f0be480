/* Direct convolution for few input channels (C <= 4, group 1, 2-D, no
 * dilation): the first layer of image models.
 *
 * oneDNN 2.6 runs such a layer through its channels-last brgemm kernel,
 * whose reduction over C x KW values per kernel row is too short to keep
 * the FMA units busy, after reordering the plain NCHW model input; the
 * fused SiLU of EfficientNet's stem is then one more pass over the output.
 * Here each output row is computed in tiles of T pixels x up to 64
 * channels held in registers (T = 12 for up to 32 channels, 6 for 64): per
 * kernel tap, the tap's weights for the tile's channels (one load per 16
 * channels) and one broadcast input value per pixel feed T x (channels /
 * 16) multiply-adds (for a 3-wide kernel row at stride 2 and up to 32
 * channels, one broadcast serves the two taps that read the same column:
 * tile_s2k3). The input is read where it lies (plain or
 * channels-last) into per-row padded copies: for each output row the C x KH
 * input rows it needs, zeros outside the input, so every tile runs the same
 * loop with no bounds checks (a row's last partial tile is shifted left to
 * end at the row's end). The bias starts the sums; the post-op chain runs
 * over each finished row while it is in cache, one tight loop per
 * activation (EfficientNet's SiLU in registers per tile cost three times as
 * much). Float32 channels-last outputs are written in place; bfloat16 ones
 * (the input of a bf16 convolution, which would otherwise convert it) and
 * plain-layout ones go through a per-thread row buffer that is converted or
 * transposed at the end of the row. Threads take contiguous runs of output
 * rows (rows_owned), then help with the others'. Measured on the 3 -> 32,
 * 3x3 stride-2 stem at 224x224 (1 thread, caches warm): 0.13 ms without
 * activation against 0.17 ms for oneDNN with its input reorder.
 *
 * Packed weights: [C][KH][KW][Mp], Mp = M rounded up to 16 with zeros, so
 * every 16-channel load is whole; the bias is [Mp] as well. */
#include "kernels/dnnl/dn_stem.h"
#include "core/par.h"
#include "kernels/dnnl/dn_common.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include "kernels/silu16.h"
#define STEM_X86 1
#endif

int dn_stem_disabled(void)
{
    const char *e = getenv("OPENACL_NO_STEM");   /* read per load: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
}

int dn_stem_shared_taps(void)
{
    const char *e = getenv("OPENACL_STEM_SHARED_TAPS");
    return !(e && !strcmp(e, "0"));
}

int dn_stem_dyn_rows(void)
{
    const char *e = getenv("OPENACL_STEM_DYN_ROWS");
    return e && *e && strcmp(e, "0") != 0;
}

int dn_stem_supported(void)
{
#ifdef STEM_X86
    return dn_has_avx512();
#else
    return 0;
#endif
}

int dn_stem_post_ok(const nn_post *p)
{
    if (p->has_add) return 0;
    for (int i = 0; i < p->n; i++) {
        switch (p->kind[i]) {
        case NN_PO_RELU: case NN_PO_CLIP: case NN_PO_SIGMOID: case NN_PO_HSIGMOID:
        case NN_PO_HSWISH: case NN_PO_LINEAR:
            break;
        case NN_PO_SILU:
            if (p->a[i] != 1.0f) return 0;
            break;
        default:
            return 0;
        }
    }
    return 1;
}

int64_t dn_stem_mpad(int64_t M) { return (M + 15) & ~(int64_t)15; }

size_t dn_stem_packed_bytes(int64_t C, int64_t M, int64_t KH, int64_t KW)
{
    return (size_t)(C * KH * KW * dn_stem_mpad(M)) * sizeof(float);
}

void dn_stem_pack(const float *w, int64_t C, int64_t M, int64_t KH, int64_t KW, float *dst)
{
    int64_t mp = dn_stem_mpad(M), taps = KH * KW;
    memset(dst, 0, dn_stem_packed_bytes(C, M, KH, KW));
    for (int64_t m = 0; m < M; m++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t t = 0; t < taps; t++)
                dst[(c * taps + t) * mp + m] = w[(m * C + c) * taps + t];
}

/* a row buffer [OW][Mp] per thread when the tile cannot go straight out */
static int needs_row(const dn_stem_geo *g) { return g->out_bf16 || !g->out_nhwc; }

/* floats in a padded input row: every column a tile reads (the shifted
 * last tile included), whole 16-float groups */
static int64_t wpad_of(const dn_stem_geo *g)
{
    int64_t a = (g->OW - 1) * g->SW + g->KW, b = g->PL + g->W;
    return ((a > b ? a : b) + 15) & ~(int64_t)15;
}

/* per-thread scratch: the padded input rows, then the row buffer */
static size_t pad_bytes(const dn_stem_geo *g) { return dn_align((size_t)(g->C * g->KH * wpad_of(g)) * sizeof(float)); }
static size_t row_bytes(const dn_stem_geo *g)
{
    return needs_row(g) ? dn_align((size_t)(g->OW * dn_stem_mpad(g->M)) * sizeof(float)) : 0;
}

size_t dn_stem_scratch_bytes(const dn_stem_geo *g, int threads)
{
    return (size_t)(threads < 1 ? 1 : threads) * (pad_bytes(g) + row_bytes(g));
}

#ifdef STEM_X86
/* one finished row [OW][Mp] into the output row oh of image n */
static void row_out(const dn_stem_geo *g, const float *row, void *y, int64_t n, int64_t oh);

#define STEM_TGT __attribute__((target("avx512f")))
#define STEM_INLINE static inline __attribute__((always_inline)) STEM_TGT

/* The post-op chain over n values of a finished row (in L1/L2), one kind
 * at a time, each kind its own loop (a switch inside the loop costs the
 * SiLU three times its arithmetic). */
#define POST_LOOP(EXPR)                                                          \
    do {                                                                         \
        size_t at = 0;                                                           \
        for (; at + 16 <= n; at += 16) {                                         \
            __m512 v = _mm512_loadu_ps(y + at);                                  \
            _mm512_storeu_ps(y + at, (EXPR));                                    \
        }                                                                        \
        if (at < n) {                                                            \
            __m512 v = _mm512_maskz_loadu_ps(tk, y + at);                        \
            _mm512_mask_storeu_ps(y + at, tk, (EXPR));                           \
        }                                                                        \
    } while (0)

STEM_INLINE __m512 hswish16(__m512 v)
{
    __m512 h = _mm512_fmadd_ps(v, _mm512_set1_ps(1.0f / 6.0f), _mm512_set1_ps(0.5f));
    return _mm512_mul_ps(v, _mm512_min_ps(_mm512_max_ps(h, _mm512_setzero_ps()), _mm512_set1_ps(1.0f)));
}

STEM_TGT static void post_row(const nn_post *p, float *y, size_t n, int bf16_grade, int div)
{
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
    const __mmask16 tk = (__mmask16)((1u << (n & 15)) - 1u);
    for (int i = 0; i < p->n; i++) {
        const __m512 a = _mm512_set1_ps(p->a[i]), b = _mm512_set1_ps(p->b[i]);
        switch (p->kind[i]) {
        case NN_PO_RELU:
            if (p->a[i] != 0.0f) POST_LOOP(_mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, a));
            else POST_LOOP(_mm512_max_ps(v, zero));
            break;
        case NN_PO_CLIP: POST_LOOP(_mm512_min_ps(_mm512_max_ps(v, a), b)); break;
        case NN_PO_SIGMOID: POST_LOOP(sigmoid16(v)); break;
        case NN_PO_HSIGMOID: POST_LOOP(_mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(a, v, b), zero), one)); break;
        case NN_PO_HSWISH: POST_LOOP(hswish16(v)); break;
        case NN_PO_SILU:
            if (bf16_grade && div) POST_LOOP(silu16_fast_div(v));
            else if (bf16_grade) POST_LOOP(silu16_fast(v));
            else if (div) POST_LOOP(silu16_div(v));
            else POST_LOOP(silu16(v));
            break;
        case NN_PO_LINEAR: POST_LOOP(_mm512_fmadd_ps(a, v, b)); break;
        default: break;   /* dn_stem_post_ok admits nothing else */
        }
    }
}
#undef POST_LOOP

typedef struct stem_job {
    const dn_stem_geo *g;
    const float *wp, *bias;
    const nn_post *po;
    int64_t mp, nchunk;   /* padded channels, 16-channel chunks */
    int64_t wpad;         /* floats in one padded input row */
    size_t pad_bytes, row_bytes;   /* per-thread scratch parts */
    __mmask16 tail;       /* lanes of the last chunk that exist */
} stem_job;

/* T pixels from column ow0 x NCG chunks from chunk j0, reading the row's
 * padded input rows `pad` ([C][KH][wpad], zeros outside the input); raw
 * sums plus bias stored at dst (pixel stride dps floats), the last real
 * chunk masked when `masked`. */
STEM_INLINE void tile(const stem_job *jb, const float *pad, int64_t ow0, int64_t j0, const int T, const int NCG,
                      float *dst, int64_t dps, int masked)
{
    const dn_stem_geo *g = jb->g;
    __m512 acc[12][4];
#pragma GCC unroll 4
    for (int j = 0; j < NCG; j++) {
        __m512 b0 = jb->bias ? _mm512_loadu_ps(jb->bias + (j0 + j) * 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
        for (int t = 0; t < T; t++) acc[t][j] = b0;
    }
    const int64_t sw = g->SW, taps = g->C * g->KH;
    const float *xr = pad + ow0 * sw, *wr = jb->wp + j0 * 16;
    for (int64_t r = 0; r < taps; r++, xr += jb->wpad) {
        for (int64_t kw = 0; kw < g->KW; kw++, wr += jb->mp) {
            __m512 w[4];
#pragma GCC unroll 4
            for (int j = 0; j < NCG; j++) w[j] = _mm512_loadu_ps(wr + 16 * j);
#pragma GCC unroll 12
            for (int t = 0; t < T; t++) {
                __m512 xv = _mm512_set1_ps(xr[t * sw + kw]);
#pragma GCC unroll 4
                for (int j = 0; j < NCG; j++) acc[t][j] = _mm512_fmadd_ps(xv, w[j], acc[t][j]);
            }
        }
    }
#pragma GCC unroll 12
    for (int t = 0; t < T; t++) {
#pragma GCC unroll 4
        for (int j = 0; j < NCG; j++) {
            float *p = dst + t * dps + 16 * j;
            if (masked && j == NCG - 1) _mm512_mask_storeu_ps(p, jb->tail, acc[t][j]);
            else _mm512_storeu_ps(p, acc[t][j]);
        }
    }
}

/* tile() for a 3-wide kernel row at stride 2 and at most 2 chunks (the
 * 3 -> 16, 24 or 32 stems of MobileNet, MNASNet, EfficientNet, RegNet): the
 * input value at column 2t + 2 is tap 2 of pixel t and tap 0 of pixel t + 1,
 * so a row of T pixels broadcasts 2T + 1 values instead of 3T, the
 * broadcasts being what limits the loop with one chunk (13 loads per 12
 * multiply-adds). Each pixel's sums take the same terms in the same order
 * as tile()'s, so the results are the same bits. */
STEM_INLINE void tile_s2k3(const stem_job *jb, const float *pad, int64_t ow0, int64_t j0, const int T,
                           const int NCG, float *dst, int64_t dps, int masked)
{
    const dn_stem_geo *g = jb->g;
    __m512 acc[12][2];
#pragma GCC unroll 2
    for (int j = 0; j < NCG; j++) {
        __m512 b0 = jb->bias ? _mm512_loadu_ps(jb->bias + (j0 + j) * 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
        for (int t = 0; t < T; t++) acc[t][j] = b0;
    }
    const int64_t taps = g->C * g->KH;
    const float *xr = pad + ow0 * 2, *wr = jb->wp + j0 * 16;
    for (int64_t r = 0; r < taps; r++, xr += jb->wpad, wr += 3 * jb->mp) {
        __m512 w0[2], w1[2], w2[2];
#pragma GCC unroll 2
        for (int j = 0; j < NCG; j++) {
            w0[j] = _mm512_loadu_ps(wr + 16 * j);
            w1[j] = _mm512_loadu_ps(wr + jb->mp + 16 * j);
            w2[j] = _mm512_loadu_ps(wr + 2 * jb->mp + 16 * j);
        }
        /* column 0: tap 0 of pixel 0 */
        __m512 xv = _mm512_set1_ps(xr[0]);
#pragma GCC unroll 2
        for (int j = 0; j < NCG; j++) acc[0][j] = _mm512_fmadd_ps(xv, w0[j], acc[0][j]);
#pragma GCC unroll 12
        for (int t = 0; t < T; t++) {
            /* column 2t + 1: tap 1 of pixel t */
            xv = _mm512_set1_ps(xr[2 * t + 1]);
#pragma GCC unroll 2
            for (int j = 0; j < NCG; j++) acc[t][j] = _mm512_fmadd_ps(xv, w1[j], acc[t][j]);
            /* column 2t + 2: tap 2 of pixel t, tap 0 of pixel t + 1 */
            xv = _mm512_set1_ps(xr[2 * t + 2]);
#pragma GCC unroll 2
            for (int j = 0; j < NCG; j++) {
                acc[t][j] = _mm512_fmadd_ps(xv, w2[j], acc[t][j]);
                if (t + 1 < T) acc[t + 1][j] = _mm512_fmadd_ps(xv, w0[j], acc[t + 1][j]);
            }
        }
    }
#pragma GCC unroll 12
    for (int t = 0; t < T; t++) {
#pragma GCC unroll 2
        for (int j = 0; j < NCG; j++) {
            float *p = dst + t * dps + 16 * j;
            if (masked && j == NCG - 1) _mm512_mask_storeu_ps(p, jb->tail, acc[t][j]);
            else _mm512_storeu_ps(p, acc[t][j]);
        }
    }
}

/* Pixels per tile for a chunk group: 24 accumulators at most (8 of the 32
 * registers stay for weights and the broadcast). */
#define T_FOR(ncg) ((ncg) <= 2 ? 12 : (ncg) == 3 ? 8 : 6)
/* Whole tiles over the row; a last partial tile is shifted left to end at
 * the row's end (recomputing a few pixels with the same result) when the
 * row holds a whole tile, else single pixels. */
#define TILES_WITH(TILE, NCG)                                                                            \
    do {                                                                                                 \
        const int T_ = T_FOR(NCG);                                                                       \
        int64_t ow = 0;                                                                                  \
        for (; ow + T_ <= OW; ow += T_) TILE(jb, pad, ow, j0, T_, NCG, drow + ow * dps, dps, masked);    \
        if (ow < OW && OW >= T_) TILE(jb, pad, OW - T_, j0, T_, NCG, drow + (OW - T_) * dps, dps, masked); \
        else for (; ow < OW; ow++) tile(jb, pad, ow, j0, 1, NCG, drow + ow * dps, dps, masked);           \
    } while (0)
#define TILES(NCG) TILES_WITH(tile, NCG)

STEM_TGT static void tiles_ncg(const stem_job *jb, const float *pad, int64_t OW, int64_t j0, int ncg, float *drow,
                               int64_t dps, int masked)
{
    const dn_stem_geo *g = jb->g;
    if (g->shared_taps && g->SW == 2 && g->KW == 3 && ncg <= 2) {
        if (ncg == 1) TILES_WITH(tile_s2k3, 1);
        else TILES_WITH(tile_s2k3, 2);
        return;
    }
    switch (ncg) {
    case 1: TILES(1); break;
    case 2: TILES(2); break;
    case 3: TILES(3); break;
    default: TILES(4); break;
    }
}

/* The padded input rows of output row oh: [C][KH][wpad], input column iw
 * at PL + iw, zeros for rows and columns outside the input. */
STEM_TGT static void pad_rows(const stem_job *jb, const float *xn, int64_t oh, float *pad)
{
    const dn_stem_geo *g = jb->g;
    for (int64_t c = 0; c < g->C; c++)
        for (int64_t kh = 0; kh < g->KH; kh++) {
            float *d = pad + (c * g->KH + kh) * jb->wpad;
            int64_t ih = oh * g->SH - g->PT + kh;
            /* (an empty input, H or W 0 with pads around it, has only zeros) */
            if (ih < 0 || ih >= g->H || g->W == 0) { memset(d, 0, (size_t)jb->wpad * sizeof(float)); continue; }
            memset(d, 0, (size_t)g->PL * sizeof(float));
            const float *s = xn + c * g->xs_c + ih * g->xs_h;
            if (g->xs_w == 1) memcpy(d + g->PL, s, (size_t)g->W * sizeof(float));
            else for (int64_t iw = 0; iw < g->W; iw++) d[g->PL + iw] = s[iw * g->xs_w];
            memset(d + g->PL + g->W, 0, (size_t)(jb->wpad - g->PL - g->W) * sizeof(float));
        }
}

/* rows [r0, r1) of the flattened (n, oh) range; scr: this thread's part */
STEM_TGT static void rows_run(const stem_job *jb, const float *x, void *y, char *scr, int64_t r0, int64_t r1)
{
    const dn_stem_geo *g = jb->g;
    const int direct = !needs_row(g);
    const int64_t dps = direct ? g->M : jb->mp;   /* floats between pixels at the destination */
    /* direct stores stop at M: the last chunk masked when M is not whole */
    const int masked = direct && (g->M & 15);
    float *pad = (float *)scr, *rowbuf = (float *)(scr + jb->pad_bytes);
    for (int64_t r = r0; r < r1; r++) {
        int64_t n = r / g->OH, oh = r % g->OH;
        pad_rows(jb, g->H && g->W ? x + n * g->xs_n : NULL, oh, pad);
        float *drow = direct ? (float *)y + (n * g->OH + oh) * g->OW * g->M : rowbuf;
        for (int64_t j0 = 0; j0 < jb->nchunk; j0 += 4) {
            int ncg = jb->nchunk - j0 < 4 ? (int)(jb->nchunk - j0) : 4;
            tiles_ncg(jb, pad, g->OW, j0, ncg, drow + j0 * 16, dps, masked && j0 + ncg == jb->nchunk);
        }
        post_row(jb->po, drow, (size_t)(g->OW * dps), g->out_bf16, g->silu_div);
        if (!direct) row_out(g, rowbuf, y, n, oh);
    }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
static void row_bf16_nhwc(const float *row, uint16_t *dst, int64_t OW, int64_t M, int64_t mp)
{
    for (int64_t p = 0; p < OW; p++) {
        const float *s = row + p * mp;
        uint16_t *d = dst + p * M;
        int64_t m = 0;
        for (; m + 16 <= M; m += 16)
            _mm256_storeu_si256((__m256i *)(d + m), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(s + m)));
        if (m < M) {
            __mmask16 k = (__mmask16)((1u << (M - m)) - 1u);
            _mm256_mask_storeu_epi16(d + m, k, (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(s + m)));
        }
    }
}

static void row_out(const dn_stem_geo *g, const float *row, void *y, int64_t n, int64_t oh)
{
    int64_t mp = dn_stem_mpad(g->M), OW = g->OW, M = g->M;
    if (g->out_nhwc) {   /* bf16, channels-last */
        uint16_t *d = (uint16_t *)y + (n * g->OH + oh) * OW * M;
        if (__builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl")) {
            row_bf16_nhwc(row, d, OW, M, mp);
            return;
        }
        for (int64_t p = 0; p < OW; p++)
            for (int64_t m = 0; m < M; m++) d[p * M + m] = nn_f2bf(row[p * mp + m]);
        return;
    }
    /* plain [N, M, OH, OW] */
    for (int64_t m = 0; m < M; m++) {
        size_t at = (size_t)(((n * M + m) * g->OH + oh) * OW);
        if (g->out_bf16) {
            uint16_t *d = (uint16_t *)y + at;
            for (int64_t p = 0; p < OW; p++) d[p] = nn_f2bf(row[p * mp + m]);
        } else {
            float *d = (float *)y + at;
            for (int64_t p = 0; p < OW; p++) d[p] = row[p * mp + m];
        }
    }
}
#endif

#define STEM_OWN_MAX 64

#ifdef STEM_X86
/* Thread t owns the contiguous output rows [rows t / n, rows (t + 1) / n),
 * the rows the next layer's static split (oneDNN's, or a banded layer's)
 * reads on the same core, and computes them a chunk at a time; a thread
 * done with its own rows takes chunks of the others' (the cores of a
 * virtual machine can run at quite different speeds at the same moment).
 * Every thread walks all the ranges, so a smaller team still covers them. */
static void rows_owned(const stem_job *jb, const float *x, void *y, void *scratch, size_t per, int64_t rows,
                       int64_t chunk, int threads)
{
    int64_t nxt[STEM_OWN_MAX];
    for (int t = 0; t < threads; t++) nxt[t] = rows * t / threads;
    OA_PAR_REGION(threads, {
        int t = omp_get_thread_num();
        char *scr_t = (char *)scratch + (size_t)t * per;
        for (int k = 0; k < threads; k++) {
            int u = (t + k) % threads;
            int64_t end = rows * (u + 1) / threads;
            for (;;) {
                int64_t r0 = __atomic_fetch_add(&nxt[u], chunk, __ATOMIC_RELAXED);
                if (r0 >= end) break;
                rows_run(jb, x, y, scr_t, r0, r0 + chunk < end ? r0 + chunk : end);
            }
        }
    });
}
#endif

void dn_stem_run(const dn_stem_geo *g, const float *x, const float *wp, const float *bias, const nn_post *po,
                 void *y, void *scratch, int threads)
{
#ifdef STEM_X86
    stem_job jb = { .g = g, .wp = wp, .bias = bias, .po = po, .mp = dn_stem_mpad(g->M), .wpad = wpad_of(g),
                    .pad_bytes = pad_bytes(g), .row_bytes = row_bytes(g) };
    jb.nchunk = jb.mp / 16;
    jb.tail = (g->M & 15) ? (__mmask16)((1u << (g->M & 15)) - 1u) : (__mmask16)0xffff;
    int64_t rows = g->N * g->OH;
    if (rows <= 0 || g->OW <= 0 || g->M <= 0) return;   /* an empty output */
    size_t per = jb.pad_bytes + jb.row_bytes;
    /* a few rows per thread at least: small layers stay on the caller */
    if (threads < 1 || rows < 4 * (int64_t)threads || rows * g->OW * jb.mp * g->C * g->KH * g->KW < (1 << 18))
        threads = 1;
    if (threads == 1) {
        rows_run(&jb, x, y, scratch, 0, rows);
        return;
    }
    /* rows handed out a few at a time: the cores of a virtual machine can
     * run at quite different speeds at the same moment (ResNet-50's first
     * layer at 2 threads, halves split statically: 0.79 and 0.96 ms on the
     * two threads, whichever half each took) */
    int64_t next = 0, chunk = rows / (8 * (int64_t)threads);
    if (chunk < 1) chunk = 1;
    if (!g->dyn_rows && threads <= STEM_OWN_MAX) {
        rows_owned(&jb, x, y, scratch, per, rows, chunk, threads);
        return;
    }
    OA_PAR_REGION(threads, {
        char *scr_t = (char *)scratch + (size_t)omp_get_thread_num() * per;
        for (;;) {
            int64_t r0 = __atomic_fetch_add(&next, chunk, __ATOMIC_RELAXED);
            if (r0 >= rows) break;
            rows_run(&jb, x, y, scr_t, r0, r0 + chunk < rows ? r0 + chunk : rows);
        }
    });
#else
    (void)g; (void)x; (void)wp; (void)bias; (void)po; (void)y; (void)scratch; (void)threads;
#endif
}
