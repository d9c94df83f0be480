/* White-box checks of the reference elementwise family that node tests cannot
 * express: accuracy of the vectorised float math against libm, float16 and
 * bfloat16 conversions (exhaustive / against the compiler's _Float16),
 * NHWC inputs to broadcasting ops and BatchNormalization, identical results
 * for 1 and several threads, in-place runs, K_NEED_DATA, and the refusals
 * (error code and a message naming the node). */
#include "../common/oa_check.h"
#include "kernels/ref/ew_common.h"
#include "kernels/x86/x86_common.h"
#include "acl/acl.h"
#include <float.h>
#include <stdio.h>
#include <stdlib.h>


/* ---- a one-node graph driven through the registry ---- */
typedef struct one {
    g_graph *g;
    g_node *n;
    const k_op *op;
    void *st;
    k_tensor in[6], out[3];
    int rc_init;
} one;

static g_attr *add_attr(one *o, const char *name, int type)
{
    g_node *n = &o->g->nodes[0];
    n->attr = realloc(n->attr, (size_t)(n->n_attr + 1) * sizeof *n->attr);
    g_attr *a = &n->attr[n->n_attr++];
    memset(a, 0, sizeof *a);
    a->name = strdup(name);
    a->type = type;
    return a;
}
static void attr_i(one *o, const char *name, int64_t v) { add_attr(o, name, G_AT_INT)->i = v; }
static void attr_ints(one *o, const char *name, int n, const int64_t *v)
{
    g_attr *a = add_attr(o, name, G_AT_INTS);
    a->n = n;
    a->ints = malloc((size_t)n * sizeof *v);
    memcpy(a->ints, v, (size_t)n * sizeof *v);
}
static void attr_s(one *o, const char *name, const char *v)
{
    g_attr *a = add_attr(o, name, G_AT_STRING);
    a->s = strdup(v);
    a->slen = strlen(v);
}

/* dts[i] = G_UNDEF leaves input i omitted */
static void mk(one *o, const char *op, int opset, int nin, const int *dts, int nout)
{
    memset(o, 0, sizeof *o);
    o->g = g_graph_new();
    o->g->opset = opset;
    int ins[6], outs[3];
    char nm[16];
    for (int i = 0; i < nin; i++) {
        if (dts[i] == G_UNDEF) { ins[i] = -1; continue; }
        snprintf(nm, sizeof nm, "x%d", i);
        ins[i] = g_tensor_add(o->g, nm);
        o->g->t[ins[i]].dtype = dts[i];
        o->g->t[ins[i]].kind = G_TK_INPUT;
    }
    for (int i = 0; i < nout; i++) {
        snprintf(nm, sizeof nm, "y%d", i);
        outs[i] = g_tensor_add(o->g, nm);
    }
    g_node_add(o->g, op, "", "unit_node", nin, ins, nout, outs);
    o->n = &o->g->nodes[0];
}

/* pick the kernel and init; returns init's code */
static int start(one *o)
{
    const k_op *ops[8];
    int n = k_find(o->n->op_type, "", o->n->opset, ops, 8), rc = K_DECLINE;
    for (int i = 0; i < n && rc == K_DECLINE; i++) {
        o->st = NULL;
        rc = ops[i]->init(o->g, o->n, &o->st);
        if (rc == 0) o->op = ops[i];
    }
    o->rc_init = rc;
    return rc;
}

static void set_in(one *o, int i, int dt, const g_shape *s, void *data, int layout)
{
    o->in[i].dtype = dt;
    o->in[i].shape = *s;
    o->in[i].data = data;
    o->in[i].nbytes = k_nbytes(&o->in[i]);
    o->in[i].layout = layout;
}

/* infer, allocate outputs (unless given), run */
static int go(one *o, int threads)
{
    int rc = o->op->infer(o->n, o->st, o->in, o->out);
    if (rc) return rc;
    for (int i = 0; i < o->n->n_out; i++) {
        o->out[i].nbytes = k_nbytes(&o->out[i]);
        if (!o->out[i].data) o->out[i].data = calloc(1, o->out[i].nbytes + 1);
    }
    k_ctx ctx = { threads, NULL, 0 };
    return o->op->run(o->n, o->st, o->in, o->out, &ctx);
}

static void done(one *o, int free_outs)
{
    if (o->op && o->op->fini) o->op->fini(o->st);
    if (free_outs)
        for (int i = 0; i < 3; i++) free(o->out[i].data);
    g_graph_free(o->g);
}

static g_shape shp(int r, ...)
{
    g_shape s;
    memset(&s, 0, sizeof s);
    s.rank = r;
    va_list ap;
    va_start(ap, r);
    for (int i = 0; i < r; i++) s.d[i] = va_arg(ap, int);
    va_end(ap);
    return s;
}

static float *frand(size_t n, float lo, float hi, unsigned seed)
{
    float *p = malloc(n * sizeof *p + 4);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = lo + (hi - lo) * (float)(seed >> 8) / 16777216.0f;
    }
    return p;
}

/* ---- 1. float math accuracy ---- */
static double relerr(double got, double want)
{
    if (want == 0.0) return fabs(got);
    return fabs(got - want) / fabs(want);
}

static void test_math(void)
{
    double e_exp = 0, e_log = 0, e_tanh = 0, e_sig = 0, a_erf = 0, e_sp = 0;
    for (int i = 0; i <= 400000; i++) {
        float x = -87.0f + 175.0f * (float)i / 400000.0f;
        e_exp = fmax(e_exp, relerr(ew_expf(x), exp((double)x)));
        float t = -9.0f + 18.0f * (float)i / 400000.0f;
        e_tanh = fmax(e_tanh, relerr(ew_tanhf(t), tanh((double)t)));
        e_sig = fmax(e_sig, relerr(ew_sigmoidf(t * 4), 1.0 / (1.0 + exp(-(double)t * 4))));
        float u = -4.0f + 8.0f * (float)i / 400000.0f;
        a_erf = fmax(a_erf, fabs(ew_erff(u) - erf((double)u)));
        e_sp = fmax(e_sp, relerr(ew_log1pf_pos(ew_expf(-fabsf(t * 2))), log1p(exp(-fabs((double)t * 2)))));
    }
    for (int i = 0; i < 600000; i++) {
        float x = (float)pow(10.0, -44.0 + 82.0 * i / 600000.0);
        double want = log((double)x);
        e_log = fmax(e_log, fabs(want) < 1e-3 ? fabs(ew_logf(x) - want) : relerr(ew_logf(x), want));
    }
    printf("math: exp %.2e log %.2e tanh %.2e sigmoid %.2e erf(abs) %.2e log1p(exp) %.2e\n", e_exp, e_log,
           e_tanh, e_sig, a_erf, e_sp);
    CHECK(e_exp < 3e-7, "exp max rel error %g", e_exp);
    CHECK(e_log < 3e-7, "log max error %g", e_log);
    CHECK(e_tanh < 6e-7, "tanh max rel error %g", e_tanh);
    CHECK(e_sig < 6e-7, "sigmoid max rel error %g", e_sig);
    CHECK(a_erf < 4e-7, "erf max abs error %g", a_erf);
    CHECK(e_sp < 1e-6, "log1p(exp) max rel error %g", e_sp);
    CHECK(ew_expf(-INFINITY) == 0.0f && ew_expf(INFINITY) == INFINITY && isnan(ew_expf(NAN)), "exp specials");
    CHECK(ew_expf(89.0f) == INFINITY && ew_expf(-110.0f) == 0.0f, "exp overflow/underflow");
    CHECK(ew_logf(0.0f) == -INFINITY && isnan(ew_logf(-1.0f)) && ew_logf(INFINITY) == INFINITY, "log specials");
    CHECK(ew_tanhf(INFINITY) == 1.0f && ew_tanhf(-INFINITY) == -1.0f && isnan(ew_tanhf(NAN)), "tanh specials");
    CHECK(ew_erff(INFINITY) == 1.0f && ew_erff(-INFINITY) == -1.0f, "erf specials");
    CHECK(ew_sigmoidf(-INFINITY) == 0.0f && ew_sigmoidf(INFINITY) == 1.0f, "sigmoid specials");
}

/* ---- 2. conversions ---- */
static void test_half(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = ew_h2f((uint16_t)h);
        _Float16 ref;
        uint16_t hb = (uint16_t)h;
        memcpy(&ref, &hb, 2);
        if (!(f == (float)ref || (isnan(f) && isnan((float)ref)))) bad++;
        uint16_t back = ew_f2h(f);
        if (!isnan(f) && back != h) bad++;
    }
    CHECK(bad == 0, "half->float->half mismatches: %d", bad);
    bad = 0;
    unsigned seed = 7;
    for (int i = 0; i < 2000000; i++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t u = seed ^ (seed << 13);
        float f;
        memcpy(&f, &u, 4);
        if (isnan(f)) continue;
        _Float16 r = (_Float16)f;
        uint16_t rb;
        memcpy(&rb, &r, 2);
        if (ew_f2h(f) != rb) bad++;
    }
    for (int i = -200000; i <= 200000; i++) {   /* dense near the subnormal / normal edge */
        float f = (float)i * 0x1p-30f;
        _Float16 r = (_Float16)f;
        uint16_t rb;
        memcpy(&rb, &r, 2);
        if (ew_f2h(f) != rb) bad++;
    }
    CHECK(bad == 0, "float->half rounding mismatches vs _Float16: %d", bad);
    CHECK(ew_f2bf(1.0f) == 0x3f80 && ew_f2bf(-2.0f) == 0xc000, "bf16 basics");
    CHECK(ew_f2bf(ew_bits2f(0x3f808000u)) == 0x3f80 && ew_f2bf(ew_bits2f(0x3f818000u)) == 0x3f82, "bf16 ties to even");
    CHECK((ew_f2bf(NAN) & 0x7fff) > 0x7f80, "bf16 NaN stays NaN");
    CHECK(ew_bf2f(0x4049) == ew_bits2f(0x40490000u), "bf16 to float");
}

/* ---- 3. NHWC broadcasting against a naive loop ---- */
static void test_nhwc(void)
{
    const int N = 2, C = 5, H = 3, W = 4;
    int dt2[2] = { G_F32, G_F32 };
    float *x = frand((size_t)N * C * H * W, -2, 2, 1), *x2 = frand((size_t)N * C * H * W, -2, 2, 2);
    float *b = frand((size_t)C, -2, 2, 3);
    g_shape s4 = shp(4, N, C, H, W), sb = shp(4, 1, C, 1, 1), s3 = shp(3, C, 1, 1);
    /* x NHWC + bias [1,C,1,1] plain; x NHWC * x2 plain; x plain - [C,1,1] */
    for (int v = 0; v < 3; v++) {
        one o;
        mk(&o, v == 1 ? "Mul" : v == 2 ? "Sub" : "Add", 17, 2, dt2, 1);
        CHECK(start(&o) == 0, "init");
        CHECK(o.op->accepts_layout && o.op->accepts_layout(o.n, o.st, 0, G_LAYOUT_NHWC), "binary accepts NHWC");
        set_in(&o, 0, G_F32, &s4, x, v == 2 ? G_LAYOUT_PLAIN : G_LAYOUT_NHWC);
        if (v == 0) set_in(&o, 1, G_F32, &sb, b, G_LAYOUT_PLAIN);
        else if (v == 1) set_in(&o, 1, G_F32, &s4, x2, G_LAYOUT_PLAIN);
        else set_in(&o, 1, G_F32, &s3, b, G_LAYOUT_PLAIN);
        CHECK(go(&o, 2) == 0, "run");
        int want_layout = v == 2 ? G_LAYOUT_PLAIN : G_LAYOUT_NHWC;
        CHECK(o.out[0].layout == want_layout, "variant %d output layout %d", v, o.out[0].layout);
        const float *y = o.out[0].data;
        int bad = 0;
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++)
                for (int h = 0; h < H; h++)
                    for (int w = 0; w < W; w++) {
                        int plain = ((n * C + c) * H + h) * W + w, nhwc = ((n * H + h) * W + w) * C + c;
                        int xi = v == 2 ? plain : nhwc, yi = want_layout == G_LAYOUT_NHWC ? nhwc : plain;
                        float want = v == 0 ? x[xi] + b[c] : v == 1 ? x[xi] * x2[plain] : x[xi] - b[c];
                        if (y[yi] != want) bad++;
                    }
        CHECK(bad == 0, "NHWC variant %d: %d wrong values", v, bad);
        done(&o, 1);
    }
    /* unary keeps the layout */
    one u;
    int dt1[1] = { G_F32 };
    mk(&u, "Relu", 14, 1, dt1, 1);
    CHECK(start(&u) == 0, "relu init");
    set_in(&u, 0, G_F32, &s4, x, G_LAYOUT_NHWC);
    CHECK(go(&u, 1) == 0 && u.out[0].layout == G_LAYOUT_NHWC, "relu keeps NHWC");
    done(&u, 1);
    /* BatchNormalization NHWC == plain, relaid */
    int dt5[5] = { G_F32, G_F32, G_F32, G_F32, G_F32 };
    float *sc = frand(C, 0.5f, 2, 4), *bi = frand(C, -1, 1, 5), *mu = frand(C, -1, 1, 6), *va = frand(C, 0.5f, 2, 7);
    float *xn = malloc(sizeof(float) * N * C * H * W);
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int p = 0; p < H * W; p++) xn[(n * H * W + p) * C + c] = x[(n * C + c) * H * W + p];
    float *res[2];
    for (int v = 0; v < 2; v++) {
        one o;
        mk(&o, "BatchNormalization", 15, 5, dt5, 1);
        CHECK(start(&o) == 0, "bn init");
        g_shape sc1 = shp(1, C);
        set_in(&o, 0, G_F32, &s4, v ? xn : x, v ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN);
        set_in(&o, 1, G_F32, &sc1, sc, 0);
        set_in(&o, 2, G_F32, &sc1, bi, 0);
        set_in(&o, 3, G_F32, &sc1, mu, 0);
        set_in(&o, 4, G_F32, &sc1, va, 0);
        CHECK(go(&o, 2) == 0, "bn run");
        CHECK(o.out[0].layout == (v ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN), "bn layout");
        res[v] = o.out[0].data;
        o.out[0].data = NULL;
        done(&o, 1);
    }
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int p = 0; p < H * W; p++)
                if (fabsf(res[0][(n * C + c) * H * W + p] - res[1][(n * H * W + p) * C + c]) > 1e-6f) bad++;
    CHECK(bad == 0, "BatchNormalization NHWC differs from plain at %d values", bad);
    free(res[0]); free(res[1]); free(xn); free(sc); free(bi); free(mu); free(va);
    free(x); free(x2); free(b);
}

/* ---- 4. threads give the same bits; in-place runs ---- */
static void *run_copy(const char *op, int opset, int nin, const int *dts, g_shape *shapes, void **data, int threads,
                      int inplace, const char *an, int64_t av)
{
    one o;
    mk(&o, op, opset, nin, dts, 1);
    if (an) attr_i(&o, an, av);
    if (!strcmp(op, "ReduceMean")) {
        int64_t ax = 1;
        attr_ints(&o, "axes", 1, &ax);
    }
    if (start(&o)) return NULL;
    for (int i = 0; i < nin; i++) set_in(&o, i, dts[i], &shapes[i], data[i], 0);
    void *keep = NULL;
    if (inplace) {
        size_t nb = o.in[0].nbytes;
        keep = malloc(nb);
        memcpy(keep, data[0], nb);
        o.in[0].data = keep;
        o.out[0].data = keep;
    }
    if (go(&o, threads)) { done(&o, !inplace); free(keep); return NULL; }
    void *r = o.out[0].data;
    o.out[0].data = NULL;
    done(&o, 1);
    return r;
}

static void test_threads(void)
{
    struct { const char *op; int opset, nin; g_shape s[2]; const char *an; int64_t av; } cases[] = {
        { "Add", 14, 2, { { 2, { 256, 1024 } }, { 1, { 1024 } } }, NULL, 0 },
        { "Mul", 14, 2, { { 4, { 1, 32, 64, 64 } }, { 3, { 32, 1, 1 } } }, NULL, 0 },
        { "Sub", 14, 2, { { 2, { 1, 300000 } }, { 2, { 1, 300000 } } }, NULL, 0 },   /* one row: chunks */
        { "Div", 14, 2, { { 2, { 3, 200000 } }, { 1, { 200000 } } }, NULL, 0 },
        { "Sigmoid", 13, 1, { { 2, { 300, 777 } } }, NULL, 0 },
        { "Gelu", 20, 1, { { 2, { 300, 777 } } }, NULL, 0 },
        { "Softmax", 13, 1, { { 2, { 512, 1000 } } }, NULL, 0 },
        { "Softmax", 13, 1, { { 3, { 4, 500, 300 } } }, "axis", 1 },
        { "LogSoftmax", 13, 1, { { 2, { 512, 1000 } } }, NULL, 0 },
        { "ReduceMean", 13, 1, { { 3, { 64, 128, 300 } } }, "keepdims", 0 },
        { "CumSum", 14, 2, { { 2, { 300, 1000 } }, { 0, { 0 } } }, NULL, 0 },
        { "LayerNormalization", 17, 2, { { 2, { 512, 768 } }, { 1, { 768 } } }, NULL, 0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int dts[2] = { G_F32, !strcmp(cases[k].op, "CumSum") ? G_I64 : G_F32 };
        void *data[2];
        int64_t ax = 1;
        data[0] = frand((size_t)g_shape_numel(&cases[k].s[0]), -3, 3, 11 + (unsigned)k);
        data[1] = dts[1] == G_I64 ? (void *)&ax : frand((size_t)g_shape_numel(&cases[k].s[1]) + 1, 0.5f, 2, 5);
        size_t nb = (size_t)g_shape_numel(&cases[k].s[0]) * 4;
        if (!strcmp(cases[k].op, "ReduceMean")) nb = 64 * 300 * 4;
        void *r1 = run_copy(cases[k].op, cases[k].opset, cases[k].nin, dts, cases[k].s, data, 1, 0, cases[k].an, cases[k].av);
        void *r4 = run_copy(cases[k].op, cases[k].opset, cases[k].nin, dts, cases[k].s, data, 4, 0, cases[k].an, cases[k].av);
        CHECK(r1 && r4 && !memcmp(r1, r4, nb), "%s: 1 and 4 threads differ", cases[k].op);
        if (strcmp(cases[k].op, "ReduceMean")) {
            void *ri = run_copy(cases[k].op, cases[k].opset, cases[k].nin, dts, cases[k].s, data, 4, 1, cases[k].an, cases[k].av);
            CHECK(ri && r1 && !memcmp(r1, ri, nb), "%s: in-place result differs", cases[k].op);
            free(ri);
        }
        free(r1); free(r4); free(data[0]);
        if (dts[1] != G_I64) free(data[1]);
    }
}

/* ---- 4b. Softmax of masked rows (Swin's shifted windows add -100): the
 * probabilities of the masked entries are written as 0, never as subnormals
 * (every operation on one is a microcode assist on x86), and the rest still
 * match the double-precision formula. Both the row path (last axis) and the
 * column path (axis 1 of [2, R, I]). ---- */
static void test_softmax_masked(void)
{
    const int R = 49, I = 3;
    float *x = malloc(sizeof(float) * 2 * R * I);
    for (int k = 0; k < 2 * R * I; k++) x[k] = (float)((k * 37) % 11) * 0.3f - ((k / 7) % 3 == 1 ? 100.0f : 0.0f);
    x[5] = -250.0f;   /* exp underflows to exactly 0 even in double */
    x[6] = -95.5f;    /* offset -95.5 from the row's max: a subnormal in float */
    int dt[1] = { G_F32 };
    for (int path = 0; path < 2; path++) {
        g_shape s = path == 0 ? shp(2, 2 * I, R) : shp(3, 2, R, I);
        void *d[1] = { x };
        float *y = run_copy("Softmax", 13, 1, dt, &s, d, 1, 0, "axis", path == 0 ? -1 : 1);
        CHECK(y != NULL, "Softmax masked rows ran (path %d)", path);
        if (!y) continue;
        int sub = 0, bad = 0;
        double worst = 0;
        for (int o = 0; o < 2 * I; o++) {
            /* the o-th softmax group: stride 1 (rows) or I (columns of [2, R, I]) */
            int64_t base = path == 0 ? (int64_t)o * R : (int64_t)(o / I) * R * I + o % I;
            int64_t st = path == 0 ? 1 : I;
            double m = -1e30, sum = 0, got = 0;
            for (int r = 0; r < R; r++) m = x[base + r * st] > m ? x[base + r * st] : m;
            for (int r = 0; r < R; r++) sum += exp((double)x[base + r * st] - m);
            for (int r = 0; r < R; r++) {
                float v = y[base + r * st];
                double want = exp((double)x[base + r * st] - m) / sum;
                if (v != 0.0f && fabsf(v) < FLT_MIN) sub++;
                double e = fabs((double)v - want);
                if (e > 1e-6 * want + 2e-38) bad++;
                if (e > worst) worst = e;
                got += v;
            }
            if (fabs(got - 1.0) > 1e-5) bad++;
        }
        CHECK(sub == 0, "Softmax path %d wrote %d subnormal probabilities", path, sub);
        CHECK(bad == 0, "Softmax path %d: %d values off the formula (worst %.3g)", path, bad, worst);
        free(y);
    }
    free(x);
}

/* ---- 4c. Softmax and LogSoftmax rows of every length class (under, at and
 * past whole 16-value vectors: the x86 loop's masked tails), with masked
 * entries, a fully masked row and 2 threads, by the implementation the
 * engine binds (x86_softmax.c on AVX-512) against the double-precision
 * formula and against the reference kernel. ---- */
static float *softmax_rows(const char *op, const float *x, int rows, int R, int threads, const char **impl)
{
    one o;
    int dt[1] = { G_F32 };
    mk(&o, op, 13, 1, dt, 1);
    attr_i(&o, "axis", -1);
    if (start(&o)) return NULL;
    *impl = o.op->impl;
    g_shape s = shp(2, rows, R);
    set_in(&o, 0, G_F32, &s, (void *)x, 0);
    float *y = go(&o, threads) ? NULL : o.out[0].data;
    if (y) o.out[0].data = NULL;
    done(&o, 1);
    return y;
}

static int softmax_row_bad(int logsm, const float *x, const float *y, int R, double *worst)
{
    double m = -INFINITY, sum = 0;
    int bad = 0;
    for (int r = 0; r < R; r++) m = x[r] > m ? x[r] : m;
    for (int r = 0; r < R; r++) sum += exp((double)x[r] - m);
    for (int r = 0; r < R; r++) {
        double want = logsm ? (double)x[r] - m - log(sum) : exp((double)x[r] - m) / sum;
        /* float sums over long rows: the bound grows with R */
        double rel = 1e-6 * (1.0 + R / 1000.0);
        double e = fabs((double)y[r] - want), tol = logsm ? 2 * rel * (1 + fabs(want)) : rel * want + 2e-38;
        if (!(e <= tol)) bad++;
        if (e > *worst) *worst = e;
    }
    return bad;
}

static void test_softmax_rows(void)
{
    static const int lens[] = { 1, 2, 15, 16, 17, 40, 49, 63, 64, 65, 100, 128, 1000, 6625 };
    const int rows = 7;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int R = lens[li];
        float *x = frand((size_t)rows * R, -6.0f, 6.0f, 77u + (unsigned)R);
        for (int r = 0; r < R; r++) {
            if (r % 5 == 2) x[R + r] -= 100.0f;   /* row 1: Swin's shifted-window mask */
            x[2 * R + r] = -INFINITY;            /* row 2: fully masked: NaN, as exp(-inf - -inf) */
        }
        x[3 * R] = 80.0f;   /* row 3: one dominant value */
        for (int k = 0; k < 2; k++) {
            const char *op = k ? "LogSoftmax" : "Softmax", *impl = "?", *ref_impl = "?";
            float *y = softmax_rows(op, x, rows, R, 2, &impl);
            int forced = k_force_ref();
            k_set_force_ref(1);
            float *yr = softmax_rows(op, x, rows, R, 1, &ref_impl);
            k_set_force_ref(forced);
            CHECK(y && yr, "%s rows of %d ran", op, R);
            if (!y || !yr) { free(y); free(yr); continue; }
            int bad = 0, off_ref = 0;
            double worst = 0;
            for (int o = 0; o < rows; o++) {
                if (o == 2) {
                    for (int r = 0; r < R; r++) bad += !isnan(y[2 * R + r]);
                    continue;
                }
                bad += softmax_row_bad(k, x + o * R, y + o * R, R, &worst);
            }
            /* the reference sums serially where it is not vectorised (the
             * sanitizer builds): the same bound as against the formula */
            double rel = 1e-6 * (1.0 + R / 1000.0);
            for (size_t i = 0; i < (size_t)rows * R; i++) {
                double d = fabs((double)y[i] - yr[i]), t = rel * fabs((double)yr[i]) + (k ? rel : 2e-38);
                if (!(d <= t) && !(isnan(y[i]) && isnan(yr[i]))) off_ref++;
            }
            CHECK(bad == 0, "%s (%s) rows of %d: %d values off the formula (worst %.3g)", op, impl, R, bad, worst);
            CHECK(off_ref == 0, "%s (%s) rows of %d: %d values differ from the reference's", op, impl, R, off_ref);
            CHECK(!x86_has_avx512() || forced || !strcmp(impl, "avx512"), "%s rows bound to %s, not the AVX-512 loop",
                  op, impl);
            free(y);
            free(yr);
        }
        free(x);
    }
}

/* ---- 5. refusals, K_NEED_DATA, empty tensors ---- */
static void expect_refusal(const char *op, int opset, int nin, const int *dts, int nout, const char *an,
                           const char *sv, int64_t iv, int code, const char *what)
{
    one o;
    mk(&o, op, opset, nin, dts, nout);
    if (an && sv) attr_s(&o, an, sv);
    else if (an) attr_i(&o, an, iv);
    aclGetRecentErrMsg();
    int rc = start(&o);
    const char *msg = aclGetRecentErrMsg();
    CHECK(rc == code, "%s: %s gave %d, expected %d", op, what, rc, code);
    CHECK(msg && strstr(msg, "unit_node") && strstr(msg, op), "%s: %s message '%s' lacks node/op", op, what, msg ? msg : "");
    if (rc == 0) done(&o, 0);
    else g_graph_free(o.g);
}

static void test_refusals(void)
{
    int f1[1] = { G_F32 }, i1[1] = { G_I32 }, f2[2] = { G_F32, G_F32 }, fi[2] = { G_F32, G_I32 };
    int f5[5] = { G_F32, G_F32, G_F32, G_F32, G_F32 }, s1[1] = { G_STR };
    int u2[2] = { G_U8, G_U8 }, dr[3] = { G_F32, G_F32, G_BOOL };
    expect_refusal("BatchNormalization", 15, 5, f5, 1, "training_mode", NULL, 1, ACL_ERROR_FEATURE_UNSUPPORTED, "training_mode=1");
    expect_refusal("BatchNormalization", 9, 5, f5, 3, NULL, NULL, 0, ACL_ERROR_FEATURE_UNSUPPORTED, "training outputs");
    expect_refusal("Mod", 13, 2, f2, 1, "fmod", NULL, 0, ACL_ERROR_INVALID_PARAM, "fmod=0 on floats");
    expect_refusal("Gelu", 20, 1, f1, 1, "approximate", "fast", 0, ACL_ERROR_FEATURE_UNSUPPORTED, "approximate=fast");
    expect_refusal("BitShift", 11, 2, u2, 1, "direction", "UP", 0, ACL_ERROR_INVALID_PARAM, "direction=UP");
    expect_refusal("Exp", 13, 1, i1, 1, NULL, NULL, 0, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "int32 input");
    expect_refusal("Add", 14, 2, fi, 1, NULL, NULL, 0, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "mixed dtypes");
    expect_refusal("Identity", 16, 1, s1, 1, NULL, NULL, 0, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "string tensor");
    expect_refusal("LayerNormalization", 17, 2, f2, 1, "stash_type", NULL, 11, ACL_ERROR_FEATURE_UNSUPPORTED, "stash_type=11");
    expect_refusal("LpNormalization", 1, 1, f1, 1, "p", NULL, 3, ACL_ERROR_FEATURE_UNSUPPORTED, "p=3");
    expect_refusal("GroupNormalization", 18, 3, f5, 1, NULL, NULL, 0, ACL_ERROR_INVALID_PARAM, "missing num_groups");
    expect_refusal("Softmax", 13, 1, i1, 1, NULL, NULL, 0, ACL_ERROR_UNSUPPORTED_DATA_TYPE, "int32 softmax");
    /* Dropout with a constant training_mode=true */
    {
        one o;
        mk(&o, "Dropout", 13, 3, dr, 1);
        g_tensor *tm = &o.g->t[o.n->in[2]];
        tm->kind = G_TK_CONST;
        tm->shape.rank = 0;
        tm->data = malloc(1);
        *(uint8_t *)tm->data = 1;
        tm->nbytes = 1;
        g_tensor *tr = &o.g->t[o.n->in[1]];
        tr->kind = G_TK_CONST;
        tr->shape.rank = 0;
        tr->data = malloc(4);
        *(float *)tr->data = 0.25f;
        tr->nbytes = 4;
        CHECK(start(&o) == ACL_ERROR_FEATURE_UNSUPPORTED, "Dropout training_mode=true refused");
        g_graph_free(o.g);
    }
    /* ... and a run-time training_mode=true */
    {
        one o;
        mk(&o, "Dropout", 13, 3, dr, 1);
        CHECK(start(&o) == 0, "Dropout init");
        float x[4] = { 1, 2, 3, 4 }, ratio = 0.5f;
        uint8_t t = 1;
        g_shape s = shp(1, 4), sc = shp(0);
        set_in(&o, 0, G_F32, &s, x, 0);
        set_in(&o, 1, G_F32, &sc, &ratio, 0);
        set_in(&o, 2, G_BOOL, &sc, &t, 0);
        CHECK(go(&o, 1) == ACL_ERROR_FEATURE_UNSUPPORTED, "Dropout run-time training refused");
        done(&o, 1);
    }
    /* ReduceSum axes input not known at load: K_NEED_DATA */
    {
        int dts[2] = { G_F32, G_I64 };
        one o;
        mk(&o, "ReduceSum", 13, 2, dts, 1);
        CHECK(start(&o) == 0, "ReduceSum init");
        g_shape s = shp(2, 3, 4), sa = shp(1, 1);
        set_in(&o, 0, G_F32, &s, NULL, 0);
        set_in(&o, 1, G_I64, &sa, NULL, 0);
        CHECK(o.op->infer(o.n, o.st, o.in, o.out) == K_NEED_DATA, "ReduceSum without axes data: K_NEED_DATA");
        int64_t ax = 5;
        o.in[1].data = &ax;
        CHECK(o.op->infer(o.n, o.st, o.in, o.out) == ACL_ERROR_INVALID_PARAM, "axis 5 of rank 2 refused");
        done(&o, 0);
    }
    /* empty tensors pass through without touching data */
    {
        one o;
        mk(&o, "Add", 14, 2, f2, 1);
        CHECK(start(&o) == 0, "Add init");
        g_shape a = shp(2, 0, 3), b = shp(1, 3);
        float bv[3] = { 1, 2, 3 };
        set_in(&o, 0, G_F32, &a, NULL, 0);
        set_in(&o, 1, G_F32, &b, bv, 0);
        CHECK(go(&o, 2) == 0 && o.out[0].shape.rank == 2 && o.out[0].shape.d[0] == 0, "empty Add");
        done(&o, 1);
    }
    /* shapes that do not broadcast */
    {
        one o;
        mk(&o, "Mul", 14, 2, f2, 1);
        CHECK(start(&o) == 0, "Mul init");
        g_shape a = shp(2, 2, 3), b = shp(1, 4);
        set_in(&o, 0, G_F32, &a, NULL, 0);
        set_in(&o, 1, G_F32, &b, NULL, 0);
        CHECK(o.op->infer(o.n, o.st, o.in, o.out) == ACL_ERROR_INVALID_PARAM, "[2,3]*[4] refused");
        done(&o, 0);
    }
}

int main(void)
{
    test_math();
    test_half();
    test_nhwc();
    test_threads();
    test_softmax_masked();
    test_softmax_rows();
    test_refusals();
    if (oa_failures) printf("%d check(s) failed\n", oa_failures);
    else printf("all checks passed\n");
    return oa_failures ? 1 : 0;
}
