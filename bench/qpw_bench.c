/* qpw_bench: one int8 1x1 layer as oneDNN's convolution primitive (as
 * kernels/dnnl/dn_qconv.c builds it: u8 channels-last source with a runtime
 * zero point, per-channel output scales, s32 bias, destination zero point,
 * an optional clip post-op in output steps) and as kernels/dnnl/dn_qpw.c's
 * VNNI loop, on the same bytes:
 *   qpw_bench C M H W [CLIP [TURNS [THREADS]]]
 * M up to 2048, whole 64-channel groups and at most 48 more (dn_qpw_takes'
 * form). CLIP 1: a clip to [0, 40] output steps (0: none); 2: a folded residual
 * as kernels/dnnl/dn_qconv_zp.c's dn_qsum_chain gives it (clip, round,
 * sum with scale and zero point, linear), the residual copied into
 * oneDNN's destination before each run (untimed). Prints the
 * implementation oneDNN picked, both times (min and median of TURNS
 * interleaved runs, default 200; wall clock), their ratio and how many
 * output bytes differ (and by at most how much). THREADS (default 1) sets
 * both oneDNN's OpenMP threads and the loop's. Exit status 2 on bad
 * arguments, 1 when oneDNN fails, 3 when an output byte differs, 77 on a
 * CPU without AVX-512 VNNI. */
#include <oneapi/dnnl/dnnl.h>
#include "dnnl_bench.h"
#include "kernels/dnnl/dn_qpw.h"
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TURNS 5000

static double ta[MAX_TURNS], tb[MAX_TURNS];

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: qpw_bench C M H W [CLIP [TURNS [THREADS]]]\n");
        return 2;
    }
    int64_t C = atoll(argv[1]), M = atoll(argv[2]), H = atoll(argv[3]), W = atoll(argv[4]);
    int clip = argc > 5 ? atoi(argv[5]) : 0, turns = argc > 6 ? atoi(argv[6]) : 200;
    int thr = argc > 7 ? atoi(argv[7]) : 1;
    if (C < 4 || C % 4 || M < 8 || M % 8 || M > 2048 || (M % 64 && M % 64 > 48) ||
        (clip == 2 && (M <= 16 || M > 32)) || H < 1 || W < 1 || turns < 1 || turns > MAX_TURNS || thr < 1)
        return 2;
    if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl") ||
        !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vnni")) {
        printf("qpw_bench: this CPU has no AVX-512 VNNI (skipped)\n");
        return 77;
    }
    omp_set_num_threads(thr);
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) || dnnl_stream_create(&strm, eng, dnnl_stream_default_flags)) return 1;
    srand(1);
    int64_t P = H * W;
    int32_t xzp = 7, yzp = 3;
    dnnl_memory_desc_t wu, bmd, xmd, ymd, wany, zmd;
    dnnl_dims_t wd = { M, C, 1, 1 }, bd = { M }, xd = { 1, C, H, W }, yd = { 1, M, H, W }, zd = { 1 };
    dnnl_memory_desc_init_by_tag(&wu, 4, wd, dnnl_s8, dnnl_oihw);
    dnnl_memory_desc_init_by_tag(&bmd, 1, bd, dnnl_s32, dnnl_x);
    dnnl_memory_desc_init_by_tag(&xmd, 4, xd, dnnl_u8, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&ymd, 4, yd, dnnl_u8, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&wany, 4, wd, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&zmd, 1, zd, dnnl_s32, dnnl_x);
    dnnl_memory_t wm, bias, xz, yz;
    if (dnnl_memory_create(&wm, &wu, eng, DNNL_MEMORY_ALLOCATE) ||
        dnnl_memory_create(&bias, &bmd, eng, DNNL_MEMORY_ALLOCATE) ||
        dnnl_memory_create(&xz, &zmd, eng, DNNL_MEMORY_ALLOCATE) ||
        dnnl_memory_create(&yz, &zmd, eng, DNNL_MEMORY_ALLOCATE))
        return 1;
    *(int32_t *)bd_handle(xz) = xzp;
    *(int32_t *)bd_handle(yz) = yzp;
    int8_t *w8 = bd_handle(wm);
    for (int64_t i = 0; i < M * C; i++) w8[i] = (int8_t)(rand() % 255 - 127);
    int32_t *b = bd_handle(bias);
    for (int64_t o = 0; o < M; o++) b[o] = rand() % 20001 - 10000;
    float *sc = malloc(sizeof(float) * (size_t)M);
    for (int64_t o = 0; o < M; o++) sc[o] = (float)(1.0 / (40.0 * sqrt((double)C) * 60.0) * (0.8 + (o % 7) * 0.05));
    dnnl_primitive_attr_t attr;
    static const int32_t rt = DNNL_RUNTIME_S32_VAL;
    dnnl_primitive_attr_create(&attr);
    dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    dnnl_primitive_attr_set_output_scales(attr, M, 1 << 1, sc);
    dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &rt);
    dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0, &rt);
    const float clo = -60.f, chi = 70.f, ssc = 0.58f, lin = 1.23f;
    const int32_t rzp = 125;
    if (clip) {
        dnnl_post_ops_t po;
        dnnl_post_ops_create(&po);
        dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_clip_v2, clip == 2 ? clo : 0.f, clip == 2 ? chi : 40.f);
        if (clip == 2) {
            dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_round, 0.f, 0.f);
            dnnl_post_ops_append_sum_v3(po, ssc, rzp, dnnl_data_type_undef);
            dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_linear, lin, 0.f);
        }
        dnnl_primitive_attr_set_post_ops(attr, po);
        dnnl_post_ops_destroy(po);
    }
    dnnl_convolution_desc_t cd;
    dnnl_dims_t st = { 1, 1 }, pad = { 0, 0 };
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t conv;
    dnnl_memory_t x, y, w, sp;
    char impl[128];
    if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &xmd, &wany, &bmd,
                                           &ymd, st, pad, pad) ||
        dnnl_primitive_desc_create(&pd, &cd, attr, eng, NULL) ||
        bd_make(pd, eng, &xmd, &ymd, &conv, &x, &y, &w, &sp, impl, sizeof impl) || bd_reorder(eng, strm, wm, w)) {
        fprintf(stderr, "convolution failed\n");
        return 1;
    }
    uint8_t *xb = bd_handle(x), *y2 = aligned_alloc(64, (size_t)(P * M + 64)), *res = malloc((size_t)(P * M));
    for (int64_t i = 0; i < P * C; i++) xb[i] = (uint8_t)(rand() % 3 ? rand() % 200 : 0);
    for (int64_t i = 0; i < P * M; i++) res[i] = (uint8_t)(rand() % 256);
    void *pk = aligned_alloc(64, (dn_qpw_packed_bytes(C, M) + 63) / 64 * 64);
    dn_qpw_pack(w8, b, sc, M, C, M, xzp, pk);
    dn_qpw_geo g = { .P = P, .C = C, .M = M, .xzp = xzp, .yzp = yzp, .lo = clip == 1 ? 0.f : -INFINITY,
                     .hi = clip == 1 ? 40.f : INFINITY, .inv_ys = 1.f, .add = clip == 2, .clo = clo, .chi = chi,
                     .ssc = ssc, .rzp = rzp, .lin = lin };
    dnnl_exec_arg_t a[7] = { { DNNL_ARG_SRC, x }, { DNNL_ARG_WEIGHTS, w }, { DNNL_ARG_BIAS, bias },
                             { DNNL_ARG_DST, y }, { DNNL_ARG_SCRATCHPAD, sp },
                             { DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, xz },
                             { DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, yz } };
    for (int t = -10; t < turns; t++) {
        if (clip == 2) memcpy(bd_handle(y), res, (size_t)(P * M));
        double t0 = bd_now_ms(CLOCK_MONOTONIC);
        if (dnnl_primitive_execute(conv, strm, 7, a) != dnnl_success) return 1;
        dnnl_stream_wait(strm);
        double t1 = bd_now_ms(CLOCK_MONOTONIC);
        dn_qpw_run(&g, xb, pk, y2, res, thr);
        double t2 = bd_now_ms(CLOCK_MONOTONIC);
        if (t >= 0) { ta[t] = t1 - t0; tb[t] = t2 - t1; }
    }
    const uint8_t *y1 = bd_handle(y);
    size_t diff = 0;
    int maxd = 0;
    for (int64_t i = 0; i < P * M; i++) {
        int d = abs((int)y1[i] - (int)y2[i]);
        diff += d != 0;
        if (d > maxd) maxd = d;
    }
    qsort(ta, (size_t)turns, sizeof(double), bd_cmp_d);
    qsort(tb, (size_t)turns, sizeof(double), bd_cmp_d);
    double macs = (double)P * C * M;
    printf("%lld->%lld %lldx%lld clip %d, %d thr (%.1f M MACs): oneDNN %s\n", (long long)C, (long long)M,
           (long long)H, (long long)W, clip, thr, macs / 1e6, impl);
    printf("  oneDNN min %.4f med %.4f ms (%.0f GMAC/s); qpw min %.4f med %.4f ms (%.0f GMAC/s); "
           "oneDNN / qpw (med) %.2f; differing %zu of %lld (max %d)\n",
           ta[0], ta[turns / 2], macs / ta[turns / 2] / 1e6, tb[0], tb[turns / 2], macs / tb[turns / 2] / 1e6,
           ta[turns / 2] / tb[turns / 2], diff, (long long)(P * M), maxd);
    return diff ? 3 : 0;
}
