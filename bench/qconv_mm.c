/* qconv_mm: one int8 1x1 layer (or a 3x3 one, padding 1, through a gathered
 * im2col source) as oneDNN's convolution primitive and as its int8 matmul
 * (M = pixels, K = input channels x taps, N = output channels):
 *   qconv_mm C M H W [KSIZE [POST [TURNS]]]
 * KSIZE 1 or 3 (default 1); POST 0: per-channel output scales only, 1: the
 * chain of a folded ResNet residual as kernels/dnnl/dn_common.c builds it
 * (clip, round, sum with scale and zero point, linear, relu), 2: that chain
 * without the relu, 3: without relu and clip, 4: no post-op in oneDNN (its u8
 * output rounds and saturates to the intermediate grid) and the residual
 * added by a separate AVX-512 pass over the output, timed with it (the
 * matmul column then times the chain of 1 again). u8 source, s8 weights, s32
 * bias, u8 destination, channels-last; both read the same data. Prints the
 * implementation oneDNN picked for each and their times (min and median of
 * TURNS interleaved runs, default 100; wall clock, so set OMP_NUM_THREADS),
 * the 3x3 matmul's including its gather, and whether the outputs agree.
 * QCONV_MM_EVICT=1 reads 8 MiB of other data before each run (untimed), so
 * that the weights come from L3 as in a model run, not from L2.
 * Exit status 2 on bad arguments, 1 when oneDNN fails. */
#include <oneapi/dnnl/dnnl.h>
#include "dnnl_bench.h"
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TURNS 2000

static dnnl_engine_t g_eng;
static dnnl_stream_t g_strm;


static dnnl_primitive_attr_t make_attr(int64_t M, const float *sc, int post)
{
    dnnl_primitive_attr_t attr;
    dnnl_primitive_attr_create(&attr);
    dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    dnnl_primitive_attr_set_output_scales(attr, M, 1 << 1, sc);
    if (post) {
        dnnl_post_ops_t po;
        dnnl_post_ops_create(&po);
        if (post < 3) dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_clip_v2, -127.f, 128.f);
        dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_round, 0.f, 0.f);
        dnnl_post_ops_append_sum_v3(po, 0.58f, 125, dnnl_data_type_undef);
        dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_linear, 1.23f, 0.f);
        if (post == 1) dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_relu, 0.f, 0.f);
        dnnl_primitive_attr_set_post_ops(attr, po);
        dnnl_post_ops_destroy(po);
    }
    return attr;
}

typedef struct prim {
    dnnl_primitive_t p;
    dnnl_memory_t x, w, b, y, sp;
    char impl[128];
    double t[MAX_TURNS];
} prim;

static int finish(prim *c, dnnl_primitive_desc_t pd, dnnl_memory_t wuser, const dnnl_memory_desc_t *xmd,
                  const dnnl_memory_desc_t *ymd, dnnl_memory_t bias)
{
    int bad = bd_make(pd, g_eng, xmd, ymd, &c->p, &c->x, &c->y, &c->w, &c->sp, c->impl, sizeof c->impl);
    c->b = bias;
    return bad || bd_reorder(g_eng, g_strm, wuser, c->w) ? -1 : 0;
}

static int run(prim *c)
{
    return bd_exec(c->p, g_strm, c->x, c->w, c->b, c->y, c->sp);
}

/* y = sat(round(a (q - zq) + b (r - zr))) over n bytes (n a multiple of 16) */
__attribute__((target("avx512f,avx512bw"))) static void add_pass(const uint8_t *q, const uint8_t *r, uint8_t *y,
                                                                 size_t n, float a, float b, float c)
{
    const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b), vc = _mm512_set1_ps(c);
    for (size_t i = 0; i < n; i += 16) {
        __m512 fq = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(q + i))));
        __m512 fr = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(r + i))));
        __m512 v = _mm512_fmadd_ps(fq, va, _mm512_fmadd_ps(fr, vb, vc));
        __m512i iv = _mm512_max_epi32(_mm512_cvtps_epi32(v), _mm512_setzero_si512());
        _mm_storeu_si128((__m128i *)(y + i), _mm512_cvtusepi32_epi8(iv));
    }
}

/* channels-last x [H][W][C] into rows [H*W][9*C] (tap-major, zeros outside) */
static void gather3(const uint8_t *x, uint8_t *g, int64_t C, int64_t H, int64_t W)
{
    for (int64_t i = 0; i < H; i++)
        for (int64_t j = 0; j < W; j++) {
            uint8_t *row = g + (i * W + j) * 9 * C;
            for (int t = 0; t < 9; t++) {
                int64_t y = i + t / 3 - 1, xx = j + t % 3 - 1;
                if (y < 0 || y >= H || xx < 0 || xx >= W) memset(row + t * C, 0, (size_t)C);
                else memcpy(row + t * C, x + (y * W + xx) * C, (size_t)C);
            }
        }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: qconv_mm C M H W [KSIZE [POST [TURNS]]]\n");
        return 2;
    }
    int64_t C = atoll(argv[1]), M = atoll(argv[2]), H = atoll(argv[3]), W = atoll(argv[4]);
    int ks = argc > 5 ? atoi(argv[5]) : 1, post = argc > 6 ? atoi(argv[6]) : 0;
    int turns = argc > 7 ? atoi(argv[7]) : 100;
    if (C < 1 || M < 1 || H < 1 || W < 1 || (ks != 1 && ks != 3) || post < 0 || post > 4 || turns < 1 ||
        turns > MAX_TURNS)
        return 2;
    if (dnnl_engine_create(&g_eng, dnnl_cpu, 0) || dnnl_stream_create(&g_strm, g_eng, dnnl_stream_default_flags))
        return 1;
    srand(1);
    int64_t K = C * ks * ks, P = H * W;
    /* user weights: conv [M][C][k][k] (oihw) and matmul [K][M] (tap-major rows) */
    dnnl_memory_desc_t wcu, wmu, bmd, xc, yc, xm, ym, wany_c, wany_m, bm_md;
    dnnl_dims_t wcd = { M, C, ks, ks }, wmd = { K, M }, bd = { M }, xd = { 1, C, H, W }, yd = { 1, M, H, W };
    dnnl_dims_t xmd_d = { P, K }, ymd_d = { P, M }, bmd_d = { 1, M };
    dnnl_memory_desc_init_by_tag(&wcu, 4, wcd, dnnl_s8, dnnl_oihw);
    dnnl_memory_desc_init_by_tag(&wmu, 2, wmd, dnnl_s8, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&bmd, 1, bd, dnnl_s32, dnnl_x);
    dnnl_memory_desc_init_by_tag(&bm_md, 2, bmd_d, dnnl_s32, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&xc, 4, xd, dnnl_u8, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&yc, 4, yd, dnnl_u8, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&xm, 2, xmd_d, dnnl_u8, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&ym, 2, ymd_d, dnnl_u8, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&wany_c, 4, wcd, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&wany_m, 2, wmd, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_t wc, wm, bias, biasm;
    if (dnnl_memory_create(&wc, &wcu, g_eng, DNNL_MEMORY_ALLOCATE) ||
        dnnl_memory_create(&wm, &wmu, g_eng, DNNL_MEMORY_ALLOCATE) ||
        dnnl_memory_create(&bias, &bmd, g_eng, DNNL_MEMORY_ALLOCATE) ||
        dnnl_memory_create(&biasm, &bm_md, g_eng, DNNL_MEMORY_ALLOCATE))
        return 1;
    int8_t *w8 = bd_handle(wc), *wk = bd_handle(wm);
    for (int64_t o = 0; o < M; o++)
        for (int64_t c = 0; c < C; c++)
            for (int t = 0; t < ks * ks; t++) {
                int8_t v = (int8_t)(rand() % 255 - 127);
                w8[(o * C + c) * ks * ks + t] = v;
                wk[(t * C + c) * M + o] = v;
            }
    int32_t *b = bd_handle(bias), *b2 = bd_handle(biasm);
    for (int64_t o = 0; o < M; o++) b[o] = b2[o] = rand() % 20001 - 10000;
    float *sc = malloc(sizeof(float) * M);
    for (int64_t o = 0; o < M; o++) sc[o] = (float)(1.0 / (40.0 * sqrt((double)K) * 60.0) * (0.8 + (o % 7) * 0.05));
    dnnl_convolution_desc_t cd;
    dnnl_dims_t st = { 1, 1 }, pad = { ks / 2, ks / 2 };
    dnnl_matmul_desc_t md;
    prim cv = { 0 }, mm = { 0 };
    dnnl_primitive_desc_t pd;
    dnnl_primitive_attr_t attr = make_attr(M, sc, post == 4 ? 0 : post);
    if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &xc, &wany_c, &bmd,
                                           &yc, st, pad, pad) ||
        dnnl_primitive_desc_create(&pd, &cd, attr, g_eng, NULL) || finish(&cv, pd, wc, &xc, &yc, bias)) {
        fprintf(stderr, "convolution failed\n");
        return 1;
    }
    if (post == 4) {
        dnnl_primitive_attr_destroy(attr);
        attr = make_attr(M, sc, 1);
    }
    if (dnnl_matmul_desc_init(&md, &xm, &wany_m, &bm_md, &ym) || dnnl_primitive_desc_create(&pd, &md, attr, g_eng, NULL) ||
        finish(&mm, pd, wm, &xm, &ym, biasm)) {
        fprintf(stderr, "matmul failed\n");
        return 1;
    }
    dnnl_primitive_attr_destroy(attr);
    uint8_t *x = bd_handle(cv.x), *res = malloc((size_t)(P * M)), *yo = malloc((size_t)(P * M));
    for (int64_t i = 0; i < P * C; i++) x[i] = (uint8_t)(rand() % 3 ? rand() % 200 : 0);
    for (int64_t i = 0; i < P * M; i++) res[i] = (uint8_t)(rand() % 256);
    if (ks == 1) memcpy(bd_handle(mm.x), x, (size_t)(P * C));
    const char *ev = getenv("QCONV_MM_EVICT");
    size_t nev = ev && !strcmp(ev, "1") ? (size_t)8 << 20 : 0;
    volatile uint8_t *evb = nev ? calloc(nev, 1) : NULL;
    unsigned evsum = 0;
    for (int t = -5; t < turns; t++)
        for (int k = 0; k < 2; k++) {
            prim *c = k ? &mm : &cv;
            if (post) memcpy(bd_handle(c->y), res, (size_t)(P * M));
            for (size_t i = 0; evb && i < nev; i += 64) evsum += evb[i];
            double t0 = bd_now_ms(CLOCK_MONOTONIC);
            if (k && ks == 3) gather3(x, bd_handle(mm.x), C, H, W);
            if (run(c)) return 1;
            if (!k && post == 4) add_pass(bd_handle(c->y), res, yo, (size_t)(P * M), 1.23f, 0.58f * 1.23f, -200.f);
            if (t >= 0) c->t[t] = bd_now_ms(CLOCK_MONOTONIC) - t0;
        }
    size_t diff = 0;
    const uint8_t *y0 = bd_handle(cv.y), *y1 = bd_handle(mm.y);
    for (int64_t i = 0; i < P * M; i++) diff += y0[i] != y1[i];
    double macs = (double)P * K * M;
    printf("%lldx%lld %lldx%lld k%d post %d (%.1f M MACs): conv %s, matmul %s\n", (long long)C, (long long)M,
           (long long)H, (long long)W, ks, post, macs / 1e6, cv.impl, mm.impl);
    for (int k = 0; k < 2; k++) {
        prim *c = k ? &mm : &cv;
        qsort(c->t, turns, sizeof(double), bd_cmp_d);
        printf("  %-6s min %.4f med %.4f ms, %.0f GMAC/s (med)\n", k ? "matmul" : "conv", c->t[0], c->t[turns / 2],
               macs / c->t[turns / 2] / 1e6);
    }
    printf("  conv / matmul (med) %.3f; outputs differing: %zu of %lld%s\n", cv.t[turns / 2] / mm.t[turns / 2], diff,
           (long long)(P * M), evb ? (evsum ? " (evicted)" : " (evicted, 8 MiB read)") : "");
    return 0;
}
