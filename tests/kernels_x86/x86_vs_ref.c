/* The hand-written x86 vector kernels (kernels/x86, impl "avx512") against
 * the reference implementations of the same ops, on one-node graphs with
 * seeded data: QLinearAdd (with and without a Relu/Clip chain) and the int8
 * pass's QLinearMul forms (same shape, channel scaling) and
 * QLinearGlobalAveragePool in the plain and the channels-last layout, QBias, per-tensor QuantizeLinear / DequantizeLinear
 * (uint8 and int8, values on rounding ties, NaN, out of range), odd lengths
 * (vector tails), one and two threads. Integer results must be the
 * reference's byte for byte: the vector loops compute the same float32 steps
 * in the same order. SqueezeExcite, whose vector sums and sigmoid round
 * differently, is compared within 1e-5. Guard bytes after each output catch
 * writes past the end. Exit 77 where the CPU lacks AVX-512 (every x86
 * implementation declines there). */
#include "graph/ir.h"
#include "kernels/kernel.h"
#include "kernels/post.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64
#define MAX_IN 8

static int failures;
static uint32_t rng = 2024u;

static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)(next() & 0xffff) / 65535.0f; }

/* one input of the node under test: a constant (data copied into the graph)
 * or a runtime input; dt G_UNDEF: omitted */
typedef struct spec {
    int dt;
    g_shape sh;
    const void *data;
    int cnst;
    int layout;
} spec;

static g_shape shp(int rank, int64_t a, int64_t b, int64_t c, int64_t d)
{
    g_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    int64_t v[4] = { a, b, c, d };
    for (int i = 0; i < rank; i++) s.d[i] = v[i];
    return s;
}

static size_t nbytes(const spec *s)
{
    return s->sh.rank < 0 ? 0 : (size_t)g_shape_numel(&s->sh) * g_dtype_size(s->dt);
}

static void add_ints(g_node *n, const char *name, int cnt, const int64_t *v, const float *fa, const float *fb)
{
    /* _oa_post_ops with its alpha and beta lists */
    n->attr = realloc(n->attr, (size_t)(n->n_attr + 3) * sizeof *n->attr);
    g_attr *a = &n->attr[n->n_attr];
    memset(a, 0, 3 * sizeof *a);
    a[0].name = strdup(name);
    a[0].type = G_AT_INTS;
    a[0].n = cnt;
    a[0].ints = malloc((size_t)cnt * sizeof(int64_t));
    memcpy(a[0].ints, v, (size_t)cnt * sizeof(int64_t));
    const char *fn[2] = { "_oa_post_alpha", "_oa_post_beta" };
    const float *fv[2] = { fa, fb };
    for (int k = 0; k < 2; k++) {
        a[1 + k].name = strdup(fn[k]);
        a[1 + k].type = G_AT_FLOATS;
        a[1 + k].n = cnt;
        a[1 + k].floats = malloc((size_t)cnt * sizeof(float));
        memcpy(a[1 + k].floats, fv[k], (size_t)cnt * sizeof(float));
    }
    n->n_attr += 3;
}

static g_graph *one_node(const char *op, const char *dom, int opset, int n_in, const spec *in)
{
    g_graph *g = g_graph_new();
    int idx[MAX_IN], out;
    char name[16];
    for (int i = 0; i < n_in; i++) {
        if (in[i].dt == G_UNDEF) { idx[i] = -1; continue; }
        snprintf(name, sizeof name, "in%d", i);
        idx[i] = g_tensor_add(g, name);
        g_tensor *t = &g->t[idx[i]];
        t->dtype = in[i].dt;
        t->shape = in[i].sh;
        t->kind = in[i].cnst ? G_TK_CONST : G_TK_INPUT;
        if (in[i].cnst) {
            t->data = malloc(nbytes(&in[i]) ? nbytes(&in[i]) : 1);
            memcpy(t->data, in[i].data, nbytes(&in[i]));
        }
    }
    out = g_tensor_add(g, "out");
    g_node_add(g, op, dom, "node", n_in, idx, 1, &out);
    g->nodes[0].opset = opset;
    return g;
}

static const k_op *find_impl(const char *op, const char *dom, int opset, const char *impl)
{
    const k_op *ops[32];
    int n = k_find(op, dom, opset, ops, 32);
    for (int i = 0; i < n; i++)
        if (!strcmp(ops[i]->impl, impl)) return ops[i];
    return NULL;
}

/* Runs implementation op on g's node over in (data as given); *y is the
 * output (malloc'd with GUARD bytes of 0xa5 after it), *ny its bytes.
 * Returns K_DECLINE, an error, or 0. */
static int run_impl(const k_op *op, g_graph *g, const spec *in, int n_in, int threads, unsigned char **y,
                    size_t *ny, k_tensor *outd)
{
    g_node *n = &g->nodes[0];
    void *st = NULL;
    int r = op->init(g, n, &st);
    if (r) return r;
    n->op = op;
    n->state = st;
    k_tensor kin[MAX_IN], kout[1];
    memset(kin, 0, sizeof kin);
    memset(kout, 0, sizeof kout);
    for (int i = 0; i < n_in; i++) {
        kin[i].dtype = in[i].dt;
        kin[i].shape = in[i].sh;
        kin[i].data = (void *)in[i].data;
        kin[i].nbytes = nbytes(&in[i]);
        kin[i].layout = in[i].layout;
        if (in[i].dt == G_UNDEF) kin[i].shape.rank = -1;
    }
    if ((r = op->infer(n, st, kin, kout))) goto done;
    size_t packed = 0, scratch = 0;
    if (op->plan && (r = op->plan(n, st, kin, kout, &packed, &scratch))) goto done;
    void *pk = packed ? k_alloc64(packed) : NULL, *scr = scratch ? k_alloc64(scratch) : NULL;
    if (op->pack && packed) r = op->pack(n, st, kin, kout, pk);
    *ny = (size_t)g_shape_numel(&kout[0].shape) * g_dtype_size(kout[0].dtype);
    *y = malloc(*ny + GUARD);
    memset(*y, 0xa5, *ny + GUARD);
    kout[0].data = *y;
    kout[0].nbytes = *ny;
    k_ctx ctx = { .threads = threads, .scratch = scr, .scratch_bytes = scratch };
    if (!r) r = op->run(n, st, kin, kout, &ctx);
    *outd = kout[0];
    free(pk);
    free(scr);
done:
    if (op->fini) op->fini(st);
    n->op = NULL;
    n->state = NULL;
    return r;
}

/* both implementations on the same node and data; tol < 0: bytes equal */
static void compare(const char *what, const char *op, const char *dom, int opset, const char *fast_impl,
                    const char *ref_impl, g_graph *g, const spec *in, int n_in, int threads, double tol)
{
    const k_op *fast = find_impl(op, dom, opset, fast_impl), *ref = find_impl(op, dom, opset, ref_impl);
    if (!fast || !ref) {
        printf("FAIL %s: no '%s' or no '%s' %s\n", what, fast_impl, ref_impl, op);
        failures++;
        return;
    }
    unsigned char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    k_tensor oa, ob;
    int ra = run_impl(fast, g, in, n_in, threads, &a, &na, &oa);
    int rb = run_impl(ref, g, in, n_in, threads, &b, &nb, &ob);
    if (ra || rb || na != nb || oa.dtype != ob.dtype || oa.layout != ob.layout) {
        printf("FAIL %s: %s rc %d (%zu bytes, layout %d), %s rc %d (%zu bytes, layout %d)\n", what, fast_impl,
               ra, na, oa.layout, ref_impl, rb, nb, ob.layout);
        failures++;
        goto out;
    }
    for (size_t i = 0; i < GUARD; i++)
        if (a[na + i] != 0xa5 || b[nb + i] != 0xa5) {
            printf("FAIL %s: a write past the output's end\n", what);
            failures++;
            goto out;
        }
    size_t bad = 0, first = 0;
    double worst = 0;
    if (tol < 0) {
        for (size_t i = 0; i < na; i++)
            if (a[i] != b[i] && !bad++) first = i;
    } else {
        const float *fa = (const float *)a, *fb = (const float *)b;
        for (size_t i = 0; i < na / 4; i++) {
            double d = fabs((double)fa[i] - fb[i]) / (1.0 + fabs((double)fb[i]));
            if (d > worst) worst = d;
            if (d > tol && !bad++) first = i;
        }
    }
    if (bad) {
        if (tol < 0)
            printf("FAIL %s: %zu bytes differ (first at %zu: %u, the reference %u)\n", what, bad, first, a[first],
                   b[first]);
        else
            printf("FAIL %s: %zu values differ (first at %zu: %.9g, the reference %.9g; worst relative %.3g)\n",
                   what, bad, first, ((const float *)a)[first], ((const float *)b)[first], worst);
        failures++;
    } else {
        printf("ok   %s (%zu bytes%s)\n", what, na, tol < 0 ? ", bit-exact" : "");
    }
out:
    free(a);
    free(b);
}

static void *u8_rand(size_t n, int lo, int hi)
{
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(lo + (int)(next() % (uint32_t)(hi - lo + 1)));
    return p;
}

/* QLinearAdd / QLinearMul (com.microsoft): a [N,C,H,W] u8 in `layout`
 * (channels-last: b too when it has a's shape), b [N,C,H,W] or [N,C,1,1] */
static void check_bin(const char *op, int64_t N, int64_t C, int64_t H, int64_t W, int chan, int nhwc, int chain,
                      int threads)
{
    static const float sa = 0.031f, sb = 0.047f, sy = 0.06f;
    static const uint8_t za = 100, zb = 20, zy = 128;
    int mul = !strcmp(op, "QLinearMul");
    float ys = mul ? 0.11f : sy;
    g_shape as = shp(4, N, C, H, W), bs = chan ? shp(4, N, C, 1, 1) : as, s1 = shp(0, 0, 0, 0, 0);
    size_t na = (size_t)(N * C * H * W), nb = chan ? (size_t)(N * C) : na;
    void *A = u8_rand(na, 0, 255), *Bv = u8_rand(nb, 0, 255);
    int lay = nhwc ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    spec in[8] = {
        { G_U8, as, A, 0, lay }, { G_F32, s1, &sa, 1, 0 }, { G_U8, s1, &za, 1, 0 },
        { G_U8, bs, Bv, 0, chan ? G_LAYOUT_PLAIN : lay }, { G_F32, s1, &sb, 1, 0 }, { G_U8, s1, &zb, 1, 0 },
        { G_F32, s1, &ys, 1, 0 }, { G_U8, s1, &zy, 1, 0 },
    };
    g_graph *g = one_node(op, "com.microsoft", 1, 8, in);
    if (chain) {
        /* Relu then Clip(-1, 2.5): the chain the kernels fold into bounds */
        int64_t k[2] = { NN_PO_RELU, NN_PO_CLIP };
        float al[2] = { 0.f, -1.f }, be[2] = { 0.f, 2.5f };
        add_ints(&g->nodes[0], "_oa_post_ops", 2, k, al, be);
    }
    char what[160];
    snprintf(what, sizeof what, "%s %lldx%lldx%lldx%lld%s %s%s, %d thread%s", op, (long long)N, (long long)C,
             (long long)H, (long long)W, chan ? " by [N,C,1,1]" : "", nhwc ? "channels-last" : "plain",
             chain ? " relu+clip" : "", threads, threads > 1 ? "s" : "");
    compare(what, op, "com.microsoft", 1, "avx512", mul ? "ref_layout" : "ref", g, in, 8, threads, -1);
    g_graph_free(g);
    free(A);
    free(Bv);
}

/* QLinearGlobalAveragePool (com.microsoft) of a u8 [N,C,H,W] in `layout`:
 * channel counts around the vector's 64 and planes past the 256 rows the
 * channels-last loop sums in 16-bit lanes */
static void check_gap(int64_t N, int64_t C, int64_t H, int64_t W, int nhwc, int threads)
{
    static const float sx = 0.043f, sy = 0.021f;
    static const uint8_t zx = 37, zy = 111;
    size_t nx = (size_t)(N * C * H * W);
    void *X = u8_rand(nx, 0, 255);
    uint8_t *b = X;
    for (size_t i = 0; i < nx; i += 7) b[i] = 255;   /* long runs near the 16-bit lanes' bound */
    g_shape s1 = shp(0, 0, 0, 0, 0);
    spec in[5] = {
        { G_U8, shp(4, N, C, H, W), X, 0, nhwc ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN },
        { G_F32, s1, &sx, 1, 0 }, { G_U8, s1, &zx, 1, 0 }, { G_F32, s1, &sy, 1, 0 }, { G_U8, s1, &zy, 1, 0 },
    };
    g_graph *g = one_node("QLinearGlobalAveragePool", "com.microsoft", 1, 5, in);
    char what[128];
    snprintf(what, sizeof what, "QLinearGlobalAveragePool %lldx%lldx%lldx%lld %s, %d thread%s", (long long)N,
             (long long)C, (long long)H, (long long)W, nhwc ? "channels-last" : "plain", threads,
             threads > 1 ? "s" : "");
    compare(what, "QLinearGlobalAveragePool", "com.microsoft", 1, "avx512", "ref", g, in, 5, threads, -1);
    g_graph_free(g);
    free(X);
}

/* per-tensor QuantizeLinear (float32 -> u8/i8) or DequantizeLinear */
static void check_qdq(int quant, int s8, int64_t n, int threads)
{
    const float sc = 0.0371f;
    const uint8_t zu = 117;
    const int8_t zs = -9;
    float *x = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        int k = (int)(next() % 300) - 150;
        switch (i % 5) {
        case 0: x[i] = ((float)k + 0.5f) * sc; break;                    /* a tie of x / scale */
        case 1: x[i] = frand(-6.f, 6.f); break;
        case 2: x[i] = (float)k * sc; break;
        case 3: x[i] = i % 7 == 3 ? NAN : frand(-1e3f, 1e3f); break;    /* NaN, saturation */
        default: x[i] = nextafterf(((float)k + 0.5f) * sc, 0.f); break;  /* just off a tie */
        }
    }
    void *q = u8_rand((size_t)n, 0, 255);
    g_shape xs = shp(2, 3, n / 3, 0, 0), s1 = shp(0, 0, 0, 0, 0);
    spec in[3] = {
        quant ? (spec){ G_F32, xs, x, 0, 0 } : (spec){ s8 ? G_I8 : G_U8, xs, q, 0, 0 },
        { G_F32, s1, &sc, 1, 0 },
        s8 ? (spec){ G_I8, s1, &zs, 1, 0 } : (spec){ G_U8, s1, &zu, 1, 0 },
    };
    const char *op = quant ? "QuantizeLinear" : "DequantizeLinear";
    g_graph *g = one_node(op, "", 13, 3, in);
    char what[128];
    snprintf(what, sizeof what, "%s %s, %lld values, %d thread%s", op, s8 ? "int8" : "uint8", (long long)n,
             threads, threads > 1 ? "s" : "");
    compare(what, op, "", 13, "avx512", "ref", g, in, 3, threads, -1);
    g_graph_free(g);
    free(x);
    free(q);
}

/* openacl.QBias over rows of N columns, bias only (the vector rows) */
static void check_qbias(int64_t rows, int64_t N, int threads)
{
    const float sx = 0.052f, sy = 0.041f;
    const uint8_t zx = 131, zy = 97;
    float *bias = malloc((size_t)N * sizeof(float));
    for (int64_t i = 0; i < N; i++) bias[i] = frand(-3.f, 3.f);
    void *x = u8_rand((size_t)(rows * N), 0, 255);
    g_shape s1 = shp(0, 0, 0, 0, 0);
    spec in[6] = {
        { G_U8, shp(2, rows, N, 0, 0), x, 0, 0 }, { G_F32, s1, &sx, 1, 0 }, { G_U8, s1, &zx, 1, 0 },
        { G_F32, shp(1, N, 0, 0, 0), bias, 1, 0 }, { G_F32, s1, &sy, 1, 0 }, { G_U8, s1, &zy, 1, 0 },
    };
    g_graph *g = one_node("QBias", "openacl", 1, 6, in);
    char what[96];
    snprintf(what, sizeof what, "QBias %lldx%lld, %d thread%s", (long long)rows, (long long)N, threads,
             threads > 1 ? "s" : "");
    compare(what, "QBias", "openacl", 1, "avx512", "ref", g, in, 6, threads, -1);
    g_graph_free(g);
    free(bias);
    free(x);
}

/* openacl.SqueezeExcite on float32, SiLU then Sigmoid as EfficientNet has it */
static void check_se(int64_t N, int64_t C, int64_t R, int64_t H, int64_t W, int nhwc, int threads)
{
    size_t nx = (size_t)(N * C * H * W);
    float *x = malloc(nx * sizeof(float)), *w1 = malloc((size_t)(R * C) * sizeof(float));
    float *w2 = malloc((size_t)(R * C) * sizeof(float)), *b1 = malloc((size_t)R * sizeof(float));
    float *b2 = malloc((size_t)C * sizeof(float));
    for (size_t i = 0; i < nx; i++) x[i] = frand(-3.f, 3.f);
    for (int64_t i = 0; i < R * C; i++) { w1[i] = frand(-0.3f, 0.3f); w2[i] = frand(-0.3f, 0.3f); }
    for (int64_t i = 0; i < R; i++) b1[i] = frand(-0.5f, 0.5f);
    for (int64_t i = 0; i < C; i++) b2[i] = frand(-0.5f, 0.5f);
    spec in[5] = {
        { G_F32, shp(4, N, C, H, W), x, 0, nhwc ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN },
        { G_F32, shp(4, R, C, 1, 1), w1, 1, 0 }, { G_F32, shp(1, R, 0, 0, 0), b1, 1, 0 },
        { G_F32, shp(4, C, R, 1, 1), w2, 1, 0 }, { G_F32, shp(1, C, 0, 0, 0), b2, 1, 0 },
    };
    g_graph *g = one_node("SqueezeExcite", "openacl", 1, 5, in);
    g_node *n = &g->nodes[0];
    int64_t k1[1] = { NN_PO_SILU }, k2[1] = { NN_PO_SIGMOID };
    float one[1] = { 1.f }, zero[1] = { 0.f };
    add_ints(n, "_oa_post_ops", 1, k2, zero, zero);
    /* the squeeze step's list: the same attributes under the _oa_se_ names */
    add_ints(n, "_oa_se_post_ops", 1, k1, one, zero);
    free(n->attr[4].name);
    n->attr[4].name = strdup("_oa_se_post_alpha");
    free(n->attr[5].name);
    n->attr[5].name = strdup("_oa_se_post_beta");
    char what[128];
    snprintf(what, sizeof what, "SqueezeExcite %lldx%lldx%lldx%lld R %lld %s, %d thread%s", (long long)N,
             (long long)C, (long long)H, (long long)W, (long long)R, nhwc ? "channels-last" : "plain", threads,
             threads > 1 ? "s" : "");
    compare(what, "SqueezeExcite", "openacl", 1, "avx512", "ref", g, in, 5, threads, 1e-5);
    g_graph_free(g);
    free(x); free(w1); free(w2); free(b1); free(b2);
}

int main(void)
{
    float sc = 0.1f;
    uint8_t z = 0;
    g_shape s1 = shp(0, 0, 0, 0, 0);
    spec probe[3] = { { G_F32, shp(1, 16, 0, 0, 0), NULL, 0, 0 }, { G_F32, s1, &sc, 1, 0 }, { G_U8, s1, &z, 1, 0 } };
    g_graph *g = one_node("QuantizeLinear", "", 13, 3, probe);
    const k_op *q = find_impl("QuantizeLinear", "", 13, "avx512");
    void *st = NULL;
    int r = q ? q->init(g, &g->nodes[0], &st) : K_DECLINE;
    if (!r && q->fini) q->fini(st);
    g_graph_free(g);
    if (r == K_DECLINE) {
        printf("SKIP: no AVX-512 F/BW/VL on this CPU (the x86 implementations decline)\n");
        return 77;
    }
    for (int t = 1; t <= 2; t++) {
        for (int nhwc = 0; nhwc <= 1; nhwc++) {
            check_bin("QLinearAdd", 1, 37, 41, 45, 0, nhwc, 0, t);
            check_bin("QLinearAdd", 2, 19, 7, 9, 0, nhwc, 1, t);
            check_bin("QLinearMul", 1, 37, 41, 45, 0, nhwc, 0, t);
            check_bin("QLinearMul", 2, 45, 13, 11, 1, nhwc, 0, t);
            check_bin("QLinearMul", 1, 96, 29, 27, 1, nhwc, 0, t);
            check_se(2, 40, 10, 9, 7, nhwc, t);
            check_gap(2, 37, 9, 7, nhwc, t);
            check_gap(1, 672, 14, 14, nhwc, t);
            check_gap(1, 200, 23, 31, nhwc, t);
            check_gap(3, 64, 1, 1, nhwc, t);
            check_gap(2, 32, 23, 25, nhwc, t);   /* 32 channels: two pixels a load, an odd pixel last */
            check_gap(1, 32, 40, 40, nhwc, t);   /* over 256 pixels per 16-bit flush */
            check_gap(1, 144, 17, 19, nhwc, t);  /* a last step of 16 channels: one half */
        }
        check_qdq(1, 0, 3 * 33335, t);
        check_qdq(1, 1, 3 * 1001, t);
        check_qdq(1, 0, 3 * 21, t);   /* under one 64-value step: the tails alone */
        check_qdq(1, 1, 3 * 43, t);
        check_qdq(0, 0, 3 * 33335, t);
        check_qdq(0, 1, 3 * 1001, t);
        check_qbias(97, 77, t);
        check_qbias(300, 768, t);
    }
    printf(failures ? "%d failure(s)\n" : "all equal\n", failures);
    return failures ? 1 : 0;
}
