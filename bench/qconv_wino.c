/* qconv_wino: oneDNN's int8 Winograd F(2x2,3x3) convolution against the
 * direct int8 primitive the models run, on one 3x3 stride-1 layer:
 *   qconv_wino C M H W [TURNS [SPREAD]]
 * (channels in and out, input plane, padding 1, batch 1; u8 source, s8
 * weights, s32 bias, per-channel output scales, ReLU, u8 destination, all
 * channels-last as kernels/dnnl/dn_qconv.c builds them). The source is
 * max(0, N(0, SPREAD)) rounded (default 48: half zeros, like a ReLU's
 * output), the weights N(0, 40) clipped to s8, the bias N(0, 2000); each
 * channel's output scale maps 4 standard deviations of its exact sum to 255
 * (a calibrated layer's range). Prints the implementation oneDNN picked for
 * each, their time (minimum and median of TURNS interleaved runs, default
 * 50; process CPU time and wall time, so set OMP_NUM_THREADS; at 2 threads
 * the process clock missed the other thread's time on runs this short, so
 * read the wall time there, on a quiet host), and the
 * Winograd output against the direct one, which is exact up to the final
 * rounding: the share of bytes equal, within one step, and the worst step.
 * QWINO_DATA=P reads a real layer instead: P.x (u8 source, NHWC), P.w (s8
 * weights, OIHW), P.b (s32 bias), P.sc (f32 output scale per channel,
 * x_scale * w_scale / y_scale), as bench/qconv_wino_dump.py writes them
 * from a QDQ model's 3x3 stride-1 Conv -> Relu layers.
 * Exit status 2 on bad arguments, 1 when oneDNN fails or has no Winograd
 * primitive for the shape. */
#include <oneapi/dnnl/dnnl.h>
#include "dnnl_bench.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TURNS 1000

typedef struct conv {
    dnnl_primitive_t p;
    dnnl_memory_t x, w, b, y, sp;
    char impl[128];
    double cpu[MAX_TURNS], wall[MAX_TURNS];
} conv;

static dnnl_engine_t g_eng;
static dnnl_stream_t g_strm;

/* Box-Muller normal, mean 0 and standard deviation 1 */
static double gauss(void)
{
    double u = (rand() + 1.0) / (RAND_MAX + 2.0), v = (rand() + 1.0) / (RAND_MAX + 2.0);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}


/* The convolution with algorithm alg; dst type dt (u8 with scales sc and a
 * ReLU, or s32 with neither for the exact sums); its weights reordered from
 * the user's s8 (or, where oneDNN takes no s8 source, f32) ones. */
static int conv_make(conv *c, dnnl_alg_kind_t alg, dnnl_data_type_t dt, const float *sc, int64_t C,
                     int64_t M, int64_t H, int64_t W, dnnl_memory_t wu8, dnnl_memory_t wf32, dnnl_memory_t bias,
                     int zp)
{
    dnnl_memory_desc_t x_md, w_md, b_md, y_md;
    dnnl_dims_t xd = { 1, C, H, W }, wd = { M, C, 3, 3 }, yd = { 1, M, H, W }, bd = { M };
    dnnl_dims_t st = { 1, 1 }, pad = { 1, 1 };
    dnnl_memory_desc_init_by_tag(&x_md, 4, xd, dnnl_u8, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&y_md, 4, yd, dt, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&w_md, 4, wd, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&b_md, 1, bd, dnnl_s32, dnnl_x);
    dnnl_convolution_desc_t cd;
    if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, alg, &x_md, &w_md, &b_md, &y_md, st,
                                           pad, pad) != dnnl_success)
        return -1;
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t po;
    dnnl_primitive_attr_create(&attr);
    dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    if (sc) {
        dnnl_primitive_attr_set_output_scales(attr, M, 1 << 1, sc);
        dnnl_post_ops_create(&po);
        dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f);
        dnnl_primitive_attr_set_post_ops(attr, po);
        dnnl_post_ops_destroy(po);
    }
    static const int32_t rt = DNNL_RUNTIME_S32_VAL;
    if (zp) dnnl_primitive_attr_set_zero_points(attr, zp, 1, 0, &rt);
    dnnl_primitive_desc_t pd;
    dnnl_status_t s = dnnl_primitive_desc_create(&pd, &cd, attr, g_eng, NULL);
    dnnl_primitive_attr_destroy(attr);
    if (s != dnnl_success) return -1;
    int bad = bd_make(pd, g_eng, &x_md, &y_md, &c->p, &c->x, &c->y, &c->w, &c->sp, c->impl, sizeof c->impl);
    if (bad) return -1;
    c->b = bias;
    if (bd_reorder(g_eng, g_strm, wu8, c->w) && bd_reorder(g_eng, g_strm, wf32, c->w)) {
        fprintf(stderr, "no weight reorder into %s's format\n", c->impl);
        return -1;
    }
    return 0;
}

static int conv_run(conv *c)
{
    return bd_exec(c->p, g_strm, c->x, c->w, c->b, c->y, c->sp);
}

/* n bytes of file prefix.ext into dst; 0 or -1 */
static int load(const char *prefix, const char *ext, void *dst, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s.%s", prefix, ext);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t got = fread(dst, 1, n, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    return got == n && !more ? 0 : -1;
}

static void stats(double *v, int n, double *mn, double *med)
{
    qsort(v, n, sizeof *v, bd_cmp_d);
    *mn = v[0];
    *med = v[n / 2];
}

static dnnl_memory_t mem_new(int nd, const dnnl_dims_t d, dnnl_data_type_t dt, dnnl_format_tag_t tag)
{
    dnnl_memory_desc_t md;
    dnnl_memory_t m = NULL;
    dnnl_memory_desc_init_by_tag(&md, nd, d, dt, tag);
    if (dnnl_memory_create(&m, &md, g_eng, DNNL_MEMORY_ALLOCATE) != dnnl_success) return NULL;
    return m;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: qconv_wino C M H W [TURNS [SPREAD]]\n");
        return 2;
    }
    int64_t C = atoll(argv[1]), M = atoll(argv[2]), H = atoll(argv[3]), W = atoll(argv[4]);
    int turns = argc > 5 ? atoi(argv[5]) : 50;
    double spread = argc > 6 ? atof(argv[6]) : 48.0;
    if (C < 1 || M < 1 || H < 1 || W < 1 || turns < 1 || turns > MAX_TURNS || !(spread > 0)) return 2;
    if (dnnl_engine_create(&g_eng, dnnl_cpu, 0) || dnnl_stream_create(&g_strm, g_eng, dnnl_stream_default_flags))
        return 1;
    srand(1);
    dnnl_dims_t wd = { M, C, 3, 3 }, bd = { M };
    dnnl_memory_t wu8 = mem_new(4, wd, dnnl_s8, dnnl_oihw), wf = mem_new(4, wd, dnnl_f32, dnnl_oihw);
    dnnl_memory_t bias = mem_new(1, bd, dnnl_s32, dnnl_x);
    if (!wu8 || !wf || !bias) return 1;
    int8_t *w8 = bd_handle(wu8);
    float *w32 = bd_handle(wf);
    for (int64_t i = 0; i < M * C * 9; i++) {
        double v = round(gauss() * 40.0);
        w8[i] = (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
        w32[i] = w8[i];
    }
    int32_t *b = bd_handle(bias);
    for (int64_t m = 0; m < M; m++) b[m] = (int32_t)round(gauss() * 2000.0);
    const char *data = getenv("QWINO_DATA");
    float *sc = malloc(sizeof(float) * M);
    if (!sc) return 1;
    if (data && (load(data, "w", w8, (size_t)(M * C * 9)) || load(data, "b", b, sizeof(int32_t) * M) ||
                 load(data, "sc", sc, sizeof(float) * M))) {
        fprintf(stderr, "%s.{x,w,b,sc} do not hold a %lldx%lld %lldx%lld layer\n", data, (long long)C,
                (long long)M, (long long)H, (long long)W);
        return 2;
    }
    for (int64_t i = 0; data && i < M * C * 9; i++) w32[i] = w8[i];
    conv ex = { 0 }, dir = { 0 }, win = { 0 };
    if (conv_make(&ex, dnnl_convolution_direct, dnnl_s32, NULL, C, M, H, W, wu8, wf, bias, 0)) return 1;
    size_t nx = (size_t)(C * H * W), ny = (size_t)(M * H * W);
    uint8_t *x = bd_handle(ex.x);
    for (size_t i = 0; i < nx; i++) {
        double v = round(gauss() * spread);
        x[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    if (data && load(data, "x", x, nx)) return 2;
    if (conv_run(&ex)) return 1;
    const int32_t *acc = bd_handle(ex.y);
    for (int64_t m = 0; !data && m < M; m++) {
        double s = 0, s2 = 0;
        for (int64_t p = 0; p < H * W; p++) {
            double v = acc[p * M + m];
            s += v;
            s2 += v * v;
        }
        double mean = s / (H * W), sd = sqrt(fmax(s2 / (H * W) - mean * mean, 1.0));
        sc[m] = (float)(255.0 / (4.0 * sd));
    }
    if (conv_make(&dir, dnnl_convolution_direct, dnnl_u8, sc, C, M, H, W, wu8, wf, bias, 0)) return 1;
    if (conv_make(&win, dnnl_convolution_winograd, dnnl_u8, sc, C, M, H, W, wu8, wf, bias, 0)) {
        printf("%lldx%lld %lldx%lld: no int8 Winograd primitive\n", (long long)C, (long long)M, (long long)H,
               (long long)W);
        return 1;
    }
    /* what else the Winograd primitive takes: zero points (the models' u8
     * activations after a ReLU have none, others do) */
    for (int k = 0; k < 2; k++) {
        conv z = { 0 };
        int arg = k ? DNNL_ARG_DST : DNNL_ARG_SRC;
        printf("  winograd with a %s zero point: %s\n", k ? "destination" : "source",
               conv_make(&z, dnnl_convolution_winograd, dnnl_u8, sc, C, M, H, W, wu8, wf, bias, arg) ? "refused"
                                                                                                      : z.impl);
    }
    memcpy(bd_handle(dir.x), x, nx);
    memcpy(bd_handle(win.x), x, nx);
    for (int t = -3; t < turns; t++)
        for (int k = 0; k < 2; k++) {
            conv *c = k ? &win : &dir;
            double c0 = bd_now_ms(CLOCK_PROCESS_CPUTIME_ID), w0 = bd_now_ms(CLOCK_MONOTONIC);
            if (conv_run(c)) return 1;
            if (t < 0) continue;
            c->cpu[t] = bd_now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
            c->wall[t] = bd_now_ms(CLOCK_MONOTONIC) - w0;
        }
    const uint8_t *yd = bd_handle(dir.y), *yw = bd_handle(win.y);
    size_t eq = 0, one = 0, nz = 0, nz_one = 0;
    int worst = 0;
    double sq = 0, sig = 0;
    for (size_t i = 0; i < ny; i++) {
        int d = abs((int)yd[i] - (int)yw[i]);
        eq += d == 0;
        one += d <= 1;
        sq += (double)d * d;
        sig += (double)yd[i] * yd[i];
        if (yd[i] || yw[i]) {
            nz++;
            nz_one += d <= 1;
        }
        if (d > worst) worst = d;
    }
    double macs = (double)C * M * 9 * H * W;
    printf("%lldx%lld %lldx%lld (%.0f M MACs): direct %s, winograd %s\n", (long long)C, (long long)M, (long long)H,
           (long long)W, macs / 1e6, dir.impl, win.impl);
    const char *nm[2] = { "direct", "winograd" };
    double med[2];
    for (int k = 0; k < 2; k++) {
        conv *c = k ? &win : &dir;
        double cmn, cmed, wmn;
        stats(c->cpu, turns, &cmn, &cmed);
        stats(c->wall, turns, &wmn, &med[k]);
        printf("  %-8s cpu min %.4f med %.4f ms, wall min %.4f med %.4f ms, %.0f GMAC/s (wall med)\n", nm[k], cmn,
               cmed, wmn, med[k], macs / med[k] / 1e6);
    }
    printf("  speed-up (wall med) %.2fx; winograd vs direct: equal %.2f %%, within 1 step %.2f %% (of the outputs"
           " either makes nonzero, %.1f %% of all: %.2f %%), worst %d steps, rms %.2f steps (direct's rms %.1f)\n",
           med[0] / med[1], 100.0 * eq / ny, 100.0 * one / ny, 100.0 * nz / ny, 100.0 * nz_one / (nz ? nz : 1), worst,
           sqrt(sq / ny), sqrt(sig / ny));
    return 0;
}
