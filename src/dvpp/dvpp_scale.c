/* Bilinear scaling of 8-bit planes of 1, 2 or 4 interleaved channels, with
 * OpenCV's INTER_LINEAR geometry and rounding: the sample of output pixel x
 * is at (x + 0.5) * sw / dw - 0.5 (clamped to the picture), both weights
 * are 11-bit fixed point (INTER_RESIZE_COEF_BITS) and the result is rounded
 * once, (sum + 2^21) >> 22, like OpenCV's reference path (its SIMD path
 * truncates the vertical products to 16 bits first, so it can be 1 level
 * lower). Interleaved chroma pairs and RGBA pixels are scaled as they are,
 * with no split into planes.
 *
 * For each output row, the two source rows are blended over the used
 * columns into a 32-bit row (a loop the compiler vectorises), then each
 * output sample blends two neighbours of that row with the precomputed
 * column offsets and weights. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "dvpp/dvpp_priv.h"

#define COEF_BITS 11
#define COEF_ONE (1 << COEF_BITS)

/* Source index and weight of the right/lower neighbour for output i. */
static void coef(int i, double scale, int len, int *at, int *w1)
{
    float f = (float)((i + 0.5) * scale - 0.5);
    int s = (int)floorf(f);
    f -= (float)s;
    if (s < 0) s = 0, f = 0;
    if (s >= len - 1) s = len - 1, f = 0;
    *at = s;
    *w1 = (int)lrintf(f * COEF_ONE);
}

/* Vertical blend of n bytes of two rows. */
static inline void blend_rows(const uint8_t *restrict a, const uint8_t *restrict b, int n, int w0, int w1,
                              int32_t *restrict row)
{
    for (int i = 0; i < n; i++) row[i] = a[i] * w0 + b[i] * w1;
}

/* Horizontal pass of one row of cn-channel pixels; xo: element offset of
 * the left neighbour, xr: of the right one (the same at the right edge). */
static inline void blend_cols(const int32_t *restrict row, const int *restrict xo, const int *restrict xr,
                              const int16_t *restrict cw, int dw, int cn, uint8_t *restrict dst)
{
    for (int x = 0; x < dw; x++) {
        int l = xo[x], r = xr[x], w1 = cw[x], w0 = COEF_ONE - w1;
        for (int c = 0; c < cn; c++)
            dst[x * cn + c] = (uint8_t)((row[l + c] * w0 + row[r + c] * w1 + (1 << (2 * COEF_BITS - 1))) >>
                                        (2 * COEF_BITS));
    }
}

/* Both passes over the output rows; sy: vertical step; first: the first
 * source column used, used: the elements of a blended row. */
typedef struct {
    const uint8_t *src;
    uint8_t *dst;
    int ss, sh, ds, dw, dh, cn, first, used;
    double sy;
    int32_t *row;
    const int *xo, *xr;
    const int16_t *cw;
    const int32_t *wp; /* (w0, w1) per output column */
} job_t;

static inline void rows_cn(const job_t *j, int cn)
{
    for (int y = 0; y < j->dh; y++) {
        int at, w1;
        coef(y, j->sy, j->sh, &at, &w1);
        const uint8_t *a = j->src + (size_t)at * j->ss + (size_t)j->first * cn;
        const uint8_t *b = at + 1 < j->sh ? a + j->ss : a;
        blend_rows(a, b, j->used, COEF_ONE - w1, w1, j->row);
        blend_cols(j->row, j->xo, j->xr, j->cw, j->dw, cn, j->dst + (size_t)y * j->ds);
    }
}

static void rows_any(const job_t *j)
{
    if (j->cn == 1) rows_cn(j, 1);
    else if (j->cn == 2) rows_cn(j, 2);
    else rows_cn(j, 4);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
/* AVX2: the vertical blend as 16-bit (a, b) pairs times (w0, w1) with
 * vpmaddwd; the horizontal one gathers both neighbours as one 64-bit pair
 * (the row has cn zero elements of padding, read with weight 0 at the
 * right edge). Same arithmetic as the portable loops, exactly. */
#define AVX2 __attribute__((target("avx2")))

AVX2 static void blend_rows_avx2(const uint8_t *a, const uint8_t *b, int n, int w0, int w1, int32_t *row)
{
    const __m256i w = _mm256_set1_epi32(w0 | (w1 << 16));
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i va = _mm_loadu_si128((const __m128i *)(a + i)), vb = _mm_loadu_si128((const __m128i *)(b + i));
        __m256i lo = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(va, vb));
        __m256i hi = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(va, vb));
        _mm256_storeu_si256((__m256i *)(row + i), _mm256_madd_epi16(lo, w));
        _mm256_storeu_si256((__m256i *)(row + i + 8), _mm256_madd_epi16(hi, w));
    }
    for (; i < n; i++) row[i] = a[i] * w0 + b[i] * w1;
}

/* Outputs 8 at a time for one channel; returns how many were written. */
AVX2 static int cols1_avx2(const int32_t *row, const int *xo, const int32_t *wp, int dw, uint8_t *dst)
{
    const __m256i rnd = _mm256_set1_epi32(1 << (2 * COEF_BITS - 1));
    const long long *base = (const long long *)(const void *)row;
    int x = 0;
    for (; x + 8 <= dw; x += 8) {
        __m128i i0 = _mm_loadu_si128((const __m128i *)(xo + x)), i1 = _mm_loadu_si128((const __m128i *)(xo + x + 4));
        __m256i p0 = _mm256_mullo_epi32(_mm256_i32gather_epi64(base, i0, 4),
                                        _mm256_loadu_si256((const __m256i *)(wp + 2 * x)));
        __m256i p1 = _mm256_mullo_epi32(_mm256_i32gather_epi64(base, i1, 4),
                                        _mm256_loadu_si256((const __m256i *)(wp + 2 * x + 8)));
        /* hadd leaves outputs 0 1 4 5 | 2 3 6 7 */
        __m256i s = _mm256_permute4x64_epi64(_mm256_hadd_epi32(p0, p1), _MM_SHUFFLE(3, 1, 2, 0));
        s = _mm256_srai_epi32(_mm256_add_epi32(s, rnd), 2 * COEF_BITS);
        __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        _mm_storel_epi64((__m128i *)(dst + x), _mm_packus_epi16(w16, w16));
    }
    return x;
}

/* Interleaved pairs, 4 output pairs at a time; returns the pairs written. */
AVX2 static int cols2_avx2(const int32_t *row, const int *xo, const int32_t *wp, int dw, uint8_t *dst)
{
    const __m256i rnd = _mm256_set1_epi32(1 << (2 * COEF_BITS - 1));
    const long long *l = (const long long *)(const void *)row, *r = (const long long *)(const void *)(row + 2);
    int x = 0;
    for (; x + 4 <= dw; x += 4) {
        __m128i i = _mm_loadu_si128((const __m128i *)(xo + x));
        __m256i w = _mm256_loadu_si256((const __m256i *)(wp + 2 * x)); /* w0 w1 per pixel */
        __m256i s = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_i32gather_epi64(l, i, 4), _mm256_shuffle_epi32(w, 0xA0)),
                                     _mm256_mullo_epi32(_mm256_i32gather_epi64(r, i, 4), _mm256_shuffle_epi32(w, 0xF5)));
        s = _mm256_srai_epi32(_mm256_add_epi32(s, rnd), 2 * COEF_BITS);
        __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        _mm_storel_epi64((__m128i *)(dst + 2 * x), _mm_packus_epi16(w16, w16));
    }
    return x;
}

AVX2 static void rows_avx2(const job_t *j)
{
    for (int y = 0; y < j->dh; y++) {
        int at, w1, x = 0;
        coef(y, j->sy, j->sh, &at, &w1);
        const uint8_t *a = j->src + (size_t)at * j->ss + (size_t)j->first * j->cn;
        const uint8_t *b = at + 1 < j->sh ? a + j->ss : a;
        uint8_t *d = j->dst + (size_t)y * j->ds;
        blend_rows_avx2(a, b, j->used, COEF_ONE - w1, w1, j->row);
        if (j->cn == 1) x = cols1_avx2(j->row, j->xo, j->wp, j->dw, d);
        if (j->cn == 2) x = cols2_avx2(j->row, j->xo, j->wp, j->dw, d);
        blend_cols(j->row, j->xo + x, j->xr + x, j->cw + x, j->dw - x, j->cn, d + x * j->cn);
    }
}

/* Horizontal pass first, for 1 or 2 channels when every 4 output elements
 * read within 16 source bytes (shrinking up to ~4.6x for luma, ~6x for
 * pairs): vpshufb places the two neighbours of each output element as 16-bit
 * pairs, vpmaddwd weighs them; the rows are kept for the next output row,
 * then blended vertically. Same sums as the other passes, rounded once. */
typedef struct {
    int n, chunks, safe; /* elements of a row, 4-element chunks, chunks loadable as 16 bytes */
    int *base;           /* first source byte of each chunk */
    uint8_t *mask;       /* 16 per chunk */
    int16_t *wt;         /* 8 per chunk */
    int *l, *r;          /* scalar tail: the neighbours of each element */
} hplan_t;

/* Builds the plan in mem; 0 when some chunk spans more than 16 bytes. */
static int hplan_init(const job_t *j, int avail, hplan_t *h)
{
    for (int e = 0; e < h->n; e++) {
        int x = e / j->cn, c = e % j->cn;
        h->l[e] = j->xo[x] + c, h->r[e] = j->xr[x] + c;
    }
    h->safe = 0;
    for (int k = 0; k < h->chunks; k++) {
        int b = h->l[4 * k];
        h->base[k] = b;
        for (int i = 0; i < 4; i++) {
            int e = 4 * k + i, in = e < h->n;
            uint8_t *m = h->mask + 16 * k + 4 * i;
            if (in && h->r[e] - b > 15) return 0;
            m[0] = (uint8_t)(in ? h->l[e] - b : 0), m[1] = 0x80, m[2] = (uint8_t)(in ? h->r[e] - b : 0), m[3] = 0x80;
            h->wt[8 * k + 2 * i] = (int16_t)(in ? COEF_ONE - j->cw[e / j->cn] : 0);
            h->wt[8 * k + 2 * i + 1] = (int16_t)(in ? j->cw[e / j->cn] : 0);
        }
        if (b + 16 <= avail && h->safe == k) h->safe = k + 1;
    }
    return 1;
}

AVX2 static void hrow_avx2(const hplan_t *h, const uint8_t *src, const int16_t *cw1, int cn, int32_t *out)
{
    int k = 0;
    for (; k + 2 <= h->safe; k += 2) {
        __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(src + h->base[k]))),
                                            _mm_loadu_si128((const __m128i *)(src + h->base[k + 1])), 1);
        __m256i m = _mm256_loadu_si256((const __m256i *)(h->mask + 16 * k));
        __m256i w = _mm256_loadu_si256((const __m256i *)(h->wt + 8 * k));
        _mm256_storeu_si256((__m256i *)(out + 4 * k), _mm256_madd_epi16(_mm256_shuffle_epi8(v, m), w));
    }
    for (int e = 4 * k; e < h->n; e++) {
        int w1 = cw1[e / cn];
        out[e] = src[h->l[e]] * (COEF_ONE - w1) + src[h->r[e]] * w1;
    }
}

AVX2 static void vrow_avx2(const int32_t *a, const int32_t *b, int n, int w0, int w1, uint8_t *d)
{
    /* a * w0 + b * w1 as (a << 11) + (b - a) * w1: one multiply */
    const __m256i rnd = _mm256_set1_epi32(1 << (2 * COEF_BITS - 1)), v1 = _mm256_set1_epi32(w1);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i va = _mm256_loadu_si256((const __m256i *)(a + i)), vb = _mm256_loadu_si256((const __m256i *)(b + i));
        __m256i s = _mm256_add_epi32(_mm256_slli_epi32(va, COEF_BITS), _mm256_mullo_epi32(_mm256_sub_epi32(vb, va), v1));
        s = _mm256_srai_epi32(_mm256_add_epi32(s, rnd), 2 * COEF_BITS);
        __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        _mm_storel_epi64((__m128i *)(d + i), _mm_packus_epi16(w16, w16));
    }
    for (; i < n; i++) d[i] = (uint8_t)((a[i] * w0 + b[i] * w1 + (1 << (2 * COEF_BITS - 1))) >> (2 * COEF_BITS));
}

/* 1: done; 0: not applicable; -1: out of memory. */
AVX2 static int hfirst_avx2(const job_t *j, int avail)
{
    hplan_t h;
    h.n = j->dw * j->cn;
    h.chunks = (h.n + 3) / 4;
    size_t c = (size_t)h.chunks;
    char *mem = malloc(c * (16 + 16 + sizeof(int)) + (size_t)h.n * 2 * sizeof(int) + 2 * c * 4 * sizeof(int32_t));
    if (!mem) return -1;
    int32_t *rows = (int32_t *)(void *)mem;
    h.wt = (int16_t *)(rows + 8 * c);
    h.mask = (uint8_t *)(h.wt + 8 * c);
    h.base = (int *)(void *)(h.mask + 16 * c);
    h.l = h.base + c, h.r = h.l + h.n;
    if (!hplan_init(j, avail, &h)) {
        free(mem);
        return 0;
    }
    int32_t *buf[2] = {rows, rows + 4 * c};
    int tag[2] = {-1, -1};
    for (int y = 0; y < j->dh; y++) {
        int at, w1;
        coef(y, j->sy, j->sh, &at, &w1);
        int want[2] = {at, at + 1 < j->sh ? at + 1 : at};
        int32_t *use[2];
        for (int t = 0; t < 2; t++) {
            int slot = tag[0] == want[t] ? 0 : tag[1] == want[t] ? 1 : -1;
            if (slot < 0) {
                slot = t == 0 ? (tag[1] == want[1] ? 0 : 1) : (use[0] == buf[0] ? 1 : 0);
                hrow_avx2(&h, j->src + (size_t)want[t] * j->ss + (size_t)j->first * j->cn, j->cw, j->cn, buf[slot]);
                tag[slot] = want[t];
            }
            use[t] = buf[slot];
        }
        vrow_avx2(use[0], use[1], h.n, COEF_ONE - w1, w1, j->dst + (size_t)y * j->ds);
    }
    free(mem);
    return 1;
}

static int run_rows(const job_t *j, int avail)
{
    if (!__builtin_cpu_supports("avx2")) {
        rows_any(j);
        return 0;
    }
    if (j->cn <= 2) {
        int r = hfirst_avx2(j, avail);
        if (r) return r < 0 ? -1 : 0;
    }
    rows_avx2(j);
    return 0;
}
#else
static int run_rows(const job_t *j, int avail)
{
    (void)avail;
    rows_any(j);
    return 0;
}
#endif

int dv_scale_bilinear(const uint8_t *src, int ss, int sw, int sh, uint8_t *dst, int ds, int dw, int dh, int cn)
{
    /* the 32-bit row over the columns used (and 4 zero elements of
     * padding), then the column tables */
    double sx = (double)sw / dw, sy = (double)sh / dh;
    int first, last, w1;
    coef(0, sx, sw, &first, &w1);
    coef(dw - 1, sx, sw, &last, &w1);
    if (last + 1 < sw) last++;
    int used = (last - first + 1) * cn;
    size_t rown = (size_t)used + 4;
    char *mem = malloc(sizeof(int32_t) * (rown + 2 * (size_t)dw) + (size_t)dw * (2 * sizeof(int) + sizeof(int16_t)));
    if (!mem) return -1;
    int32_t *row = (int32_t *)(void *)mem, *wp = row + rown;
    memset(row + used, 0, 4 * sizeof(int32_t));
    int *xo = (int *)(wp + 2 * (size_t)dw), *xr = xo + dw;
    int16_t *cw = (int16_t *)(xr + dw);
    for (int x = 0; x < dw; x++) {
        int at;
        coef(x, sx, sw, &at, &w1);
        xo[x] = (at - first) * cn;
        xr[x] = (at + 1 < sw ? at + 1 - first : at - first) * cn;
        cw[x] = (int16_t)w1;
        wp[2 * x] = COEF_ONE - w1, wp[2 * x + 1] = w1;
    }
    job_t j = {src, dst, ss, sh, ds, dw, dh, cn, first, used, sy, row, xo, xr, cw, wp};
    /* bytes readable from the first column used on each source row */
    int rc = run_rows(&j, (sw - first) * cn);
    free(mem);
    return rc;
}
