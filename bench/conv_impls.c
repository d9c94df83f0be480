/* conv_impls: every oneDNN implementation of one float32 convolution, timed
 * side by side, to see which one a shape wants before changing the rule in
 * kernels/dnnl/dn_conv.c (issue 23's per-layer comparisons):
 *   conv_impls C M H W KH KW SH SW PH PW G [TURNS]
 * (channels in and out, input plane, kernel, stride, symmetric padding,
 * groups; batch 1, a fused ReLU as the models have). Each implementation
 * oneDNN lists (its reference loops left out), direct and Winograd, on
 * the channels-last layout and on the 16-channel blocked one, is built
 * with random data; the candidates then run in turns, TURNS times (default
 * 30), and each one's minimum is printed in ms: the convolution, and for
 * the blocked layout also the reorders from and to channels-last that the
 * models pay around it. Times are the process's CPU time (the host may be
 * shared: time waiting for a core drops out), so set OMP_NUM_THREADS=1 for
 * the figures of one thread's work. Exit status 2 on bad arguments, 1 when
 * oneDNN fails. */
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CAND 32

typedef struct cand {
    char name[96];
    int blocked;
    dnnl_primitive_t conv, re_x, re_y;
    dnnl_memory_t x, w, b, y, sp, xu, yu;
    double conv_ms, re_ms;
} cand;

static dnnl_engine_t g_eng;
static dnnl_stream_t g_strm;

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A memory object of md filled with values in [-1, 1] (no subnormals). */
static int mem_rand(dnnl_memory_t *m, const dnnl_memory_desc_t *md)
{
    void *h = NULL;
    if (dnnl_memory_create(m, md, g_eng, DNNL_MEMORY_ALLOCATE) != dnnl_success ||
        dnnl_memory_get_data_handle(*m, &h) != dnnl_success)
        return -1;
    float *f = h;
    for (size_t i = 0, n = dnnl_memory_desc_get_size(md) / sizeof(float); i < n; i++)
        f[i] = (float)(rand() % 2001 - 1000) / 1000.0f;
    return 0;
}

static int reorder(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to, dnnl_primitive_t *p)
{
    dnnl_primitive_desc_t pd;
    if (dnnl_reorder_primitive_desc_create(&pd, from, g_eng, to, g_eng, NULL) != dnnl_success) return -1;
    dnnl_status_t st = dnnl_primitive_create(p, pd);
    dnnl_primitive_desc_destroy(pd);
    return st == dnnl_success ? 0 : -1;
}

/* The candidate pd is, with its memory objects and reorders. */
static int cand_make(cand *c, dnnl_primitive_desc_t pd, int blocked, const dnnl_memory_desc_t *x,
                     const dnnl_memory_desc_t *y, const dnnl_memory_desc_t *xu, const dnnl_memory_desc_t *yu,
                     const dnnl_memory_desc_t *b)
{
    const char *impl = "?";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s/%s", blocked ? "nChw16c" : "nhwc", impl);
    c->blocked = blocked;
    c->conv_ms = c->re_ms = 1e30;
    const dnnl_memory_desc_t *sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (mem_rand(&c->x, x) || mem_rand(&c->w, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0)) ||
        mem_rand(&c->b, b) || mem_rand(&c->y, y) || (dnnl_memory_desc_get_size(sp) && mem_rand(&c->sp, sp)) ||
        dnnl_primitive_create(&c->conv, pd) != dnnl_success)
        return -1;
    if (blocked && (mem_rand(&c->xu, xu) || mem_rand(&c->yu, yu) || reorder(xu, x, &c->re_x) || reorder(y, yu, &c->re_y)))
        return -1;
    return 0;
}

static void cand_free(cand *c)
{
    dnnl_primitive_t *p[] = { &c->conv, &c->re_x, &c->re_y };
    dnnl_memory_t *m[] = { &c->x, &c->w, &c->b, &c->y, &c->sp, &c->xu, &c->yu };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        if (*p[i]) dnnl_primitive_destroy(*p[i]);
    for (size_t i = 0; i < sizeof m / sizeof *m; i++)
        if (*m[i]) dnnl_memory_destroy(*m[i]);
}

/* One turn of c: the convolution, then (blocked) the two reorders. */
static int cand_turn(cand *c)
{
    dnnl_exec_arg_t a[5] = { { DNNL_ARG_SRC, c->x }, { DNNL_ARG_WEIGHTS, c->w }, { DNNL_ARG_BIAS, c->b },
                             { DNNL_ARG_DST, c->y }, { DNNL_ARG_SCRATCHPAD, c->sp } };
    double t = cpu_ms();
    if (dnnl_primitive_execute(c->conv, g_strm, c->sp ? 5 : 4, a) != dnnl_success ||
        dnnl_stream_wait(g_strm) != dnnl_success)
        return -1;
    double d = cpu_ms() - t;
    if (d < c->conv_ms) c->conv_ms = d;
    if (!c->blocked) return 0;
    dnnl_exec_arg_t rx[2] = { { DNNL_ARG_FROM, c->xu }, { DNNL_ARG_TO, c->x } };
    dnnl_exec_arg_t ry[2] = { { DNNL_ARG_FROM, c->y }, { DNNL_ARG_TO, c->yu } };
    t = cpu_ms();
    if (dnnl_primitive_execute(c->re_x, g_strm, 2, rx) != dnnl_success ||
        dnnl_primitive_execute(c->re_y, g_strm, 2, ry) != dnnl_success || dnnl_stream_wait(g_strm) != dnnl_success)
        return -1;
    d = cpu_ms() - t;
    if (d < c->re_ms) c->re_ms = d;
    return 0;
}

/* Every non-reference implementation of the problem on one layout and
 * algorithm, appended to cs. */
static int enumerate(const long *a, int blocked, dnnl_alg_kind_t alg, cand *cs, int *nc)
{
    long C = a[0], M = a[1], H = a[2], W = a[3], kh = a[4], kw = a[5], sh = a[6], sw = a[7], ph = a[8], pw = a[9];
    long G = a[10], OH = (H + 2 * ph - kh) / sh + 1, OW = (W + 2 * pw - kw) / sw + 1;
    dnnl_memory_desc_t x, y, xu, yu, w, b;
    dnnl_dims_t xd = { 1, C, H, W }, yd = { 1, M, OH, OW }, bd = { M };
    dnnl_dims_t wg = { G, M / G, C / G, kh, kw }, wd = { M, C, kh, kw };
    dnnl_dims_t s = { sh, sw }, dil = { 0, 0 }, p = { ph, pw };
    dnnl_format_tag_t tag = blocked ? dnnl_nChw16c : dnnl_nhwc;
    dnnl_memory_desc_init_by_tag(&x, 4, xd, dnnl_f32, tag);
    dnnl_memory_desc_init_by_tag(&y, 4, yd, dnnl_f32, tag);
    dnnl_memory_desc_init_by_tag(&xu, 4, xd, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&yu, 4, yd, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&w, G > 1 ? 5 : 4, G > 1 ? wg : wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&b, 1, bd, dnnl_f32, dnnl_x);
    dnnl_convolution_desc_t cd;
    if (dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, alg, &x, &w, &b, &y, s, dil, p, p) !=
        dnnl_success)
        return 0;   /* not this algorithm for this shape */
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_desc_iterator_t it = NULL;
    int rc = 0;
    if (dnnl_primitive_attr_create(&attr) != dnnl_success || dnnl_post_ops_create(&po) != dnnl_success ||
        dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0) != dnnl_success ||
        dnnl_primitive_attr_set_post_ops(attr, po) != dnnl_success ||
        dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) != dnnl_success)
        rc = -1;
    else if (dnnl_primitive_desc_iterator_create(&it, &cd, attr, g_eng, NULL) == dnnl_success) {
        do {
            dnnl_primitive_desc_t pd = dnnl_primitive_desc_iterator_fetch(it);
            if (!pd) break;
            const char *impl = "";
            dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
            if (!strstr(impl, "ref") && *nc < MAX_CAND && (rc = cand_make(&cs[(*nc)++], pd, blocked, &x, &y, &xu, &yu, &b)))
                fprintf(stderr, "conv_impls: %s could not be set up\n", impl);
            dnnl_primitive_desc_destroy(pd);
        } while (!rc && dnnl_primitive_desc_iterator_next(it) == dnnl_success);
        dnnl_primitive_desc_iterator_destroy(it);
    }
    if (po) dnnl_post_ops_destroy(po);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return rc;
}

int main(int argc, char **argv)
{
    long a[11];
    int ok = argc == 12 || argc == 13;
    for (int i = 0; ok && i < 11; i++) {
        char *end;
        a[i] = strtol(argv[i + 1], &end, 10);
        ok = *end == 0 && a[i] >= (i >= 8 && i < 10 ? 0 : 1);
    }
    int turns = argc == 13 ? atoi(argv[12]) : 30;
    if (!ok || turns < 1 || a[0] % a[10] || a[1] % a[10] || a[2] + 2 * a[8] < a[4] || a[3] + 2 * a[9] < a[5]) {
        fprintf(stderr, "usage: conv_impls C M H W KH KW SH SW PH PW G [TURNS] (G divides C and M, "
                        "the kernel fits the padded plane)\n");
        return 2;
    }
    if (dnnl_engine_create(&g_eng, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&g_strm, g_eng, dnnl_stream_default_flags) != dnnl_success) {
        fprintf(stderr, "conv_impls: no oneDNN CPU engine\n");
        return 1;
    }
    static cand cs[MAX_CAND];
    int nc = 0, rc = 0;
    for (int blocked = 0; blocked < 2 && !rc; blocked++) {
        rc = enumerate(a, blocked, dnnl_convolution_direct, cs, &nc);
        if (!rc) rc = enumerate(a, blocked, dnnl_convolution_winograd, cs, &nc);
    }
    for (int t = 0; t < turns && !rc; t++)
        for (int i = 0; i < nc && !rc; i++) rc = cand_turn(&cs[i]);
    if (!rc) {
        printf("C%ld M%ld %ldx%ld k%ldx%ld s%ldx%ld p%ldx%ld g%ld, minimum of %d turns (ms):\n", a[0], a[1], a[2],
               a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], turns);
        for (int i = 0; i < nc; i++) {
            printf("  %-44s %8.3f", cs[i].name, cs[i].conv_ms);
            if (cs[i].blocked)
                printf("  + reorders %.3f = %.3f", cs[i].re_ms, cs[i].conv_ms + cs[i].re_ms);
            printf("\n");
        }
    }
    for (int i = 0; i < nc; i++) cand_free(&cs[i]);
    dnnl_stream_destroy(g_strm);
    dnnl_engine_destroy(g_eng);
    if (rc) fprintf(stderr, "conv_impls: a oneDNN call failed\n");
    return rc ? 1 : 0;
}
