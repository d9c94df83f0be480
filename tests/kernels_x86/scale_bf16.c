/* The squeeze-excite kernels of kernels/x86/x86_scale.c against plain C:
 * the channel scale Mul (bf16 or float32 activation in, bf16 or float32 out,
 * scale per image or shared, activation as either Mul input) and the bf16
 * GlobalAveragePool, in the plain and the channels-last layout, odd channel
 * counts (vector tails), one and two threads. The Mul must match the
 * reference bit for bit (one float multiply, round to nearest even); the
 * pool within float summation error of a double mean. Guard values after
 * each output catch writes past the end. */
#include "graph/ir.h"
#include "graph/precision.h"
#include "kernels/kernel.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64

/* x86_scale.c's own entry (also pulls its object, and so its registered
 * kernels, out of the static library) */
int x86_scale_bound(const g_node *n);

static int failures;

static float bf2f(uint16_t h)
{
    union { uint32_t u; float f; } c = { .u = (uint32_t)h << 16 };
    return c.f;
}

static uint16_t f2bf(float f)
{
    union { uint32_t u; float f; } c = { .f = f };
    return (uint16_t)((c.u + 0x7fffu + ((c.u >> 16) & 1u)) >> 16);
}

static uint32_t rng = 12345u;
static float frand(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)((rng >> 8) & 0xffff) / 65536.0f * 8.0f - 4.0f;
}

static const k_op *find_impl(const char *op, const char *impl)
{
    const k_op *ops[32];
    int n = k_find(op, "", 13, ops, 32);
    for (int i = 0; i < n; i++)
        if (!strcmp(ops[i]->impl, impl)) return ops[i];
    return NULL;
}

/* a graph with one node `op` over inputs of the given dtypes/shapes */
static g_graph *one_node(const char *op, int n_in, const int *dt, const g_shape *sh, int out_bf16)
{
    g_graph *g = g_graph_new();
    int in[2], out;
    char name[8];
    for (int i = 0; i < n_in; i++) {
        snprintf(name, sizeof name, "in%d", i);
        in[i] = g_tensor_add(g, name);
        g->t[in[i]].dtype = dt[i];
        g->t[in[i]].shape = sh[i];
        g->t[in[i]].kind = G_TK_INPUT;
    }
    out = g_tensor_add(g, "out");
    g_node_add(g, op, "", "node", n_in, in, 1, &out);
    if (out_bf16) {
        g_node *n = &g->nodes[0];
        n->attr = calloc(1, sizeof *n->attr);
        n->attr->name = strdup(G_ATTR_BF16_OUT);
        n->attr->type = G_AT_INT;
        n->attr->i = 1;
        n->n_attr = 1;
    }
    return g;
}

static g_shape shape4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    g_shape s;
    memset(&s, 0, sizeof s);
    s.rank = 4;
    s.d[0] = a; s.d[1] = b; s.d[2] = c; s.d[3] = d;
    return s;
}

/* index of logical (b, c, p) in a buffer of the given layout */
static size_t at(int nhwc, int64_t C, int64_t P, int64_t b, int64_t c, int64_t p)
{
    return (size_t)(nhwc ? (b * P + p) * C + c : (b * C + c) * P + p);
}

static void check_mul(int64_t N, int64_t C, int64_t H, int64_t W, int xb, int yb, int nhwc,
                      int per_image, int x_second, int threads)
{
    const k_op *op = find_impl("Mul", "avx512");
    if (!op) { printf("FAIL: no avx512 Mul kernel\n"); failures++; return; }
    int64_t P = H * W, total = N * C * P, SN = per_image ? N : 1;
    int xdt = xb ? G_BF16 : G_F32;
    int dt[2] = { x_second ? G_F32 : xdt, x_second ? xdt : G_F32 };
    g_shape sh[2] = { x_second ? shape4(SN, C, 1, 1) : shape4(N, C, H, W),
                      x_second ? shape4(N, C, H, W) : shape4(SN, C, 1, 1) };
    g_graph *g = one_node("Mul", 2, dt, sh, yb);
    g_node *n = &g->nodes[0];
    void *state = NULL;
    char what[160];
    snprintf(what, sizeof what, "Mul N%lld C%lld %lldx%lld x %s y %s %s scale%s%s threads %d",
             (long long)N, (long long)C, (long long)H, (long long)W, xb ? "bf16" : "f32",
             yb ? "bf16" : "f32", nhwc ? "nhwc" : "plain", per_image ? " per image" : "",
             x_second ? " (x second)" : "", threads);
    int rc = op->init(g, n, &state);
    if (!xb && !yb) {
        /* float32 in and out belongs to the general kernel */
        if (rc != K_DECLINE) { printf("FAIL %s: init %d, expected a decline\n", what, rc); failures++; }
        if (!rc && op->fini) op->fini(state);
        g_graph_free(g);
        return;
    }
    if (rc) { printf("FAIL %s: init %d\n", what, rc); failures++; g_graph_free(g); return; }
    n->op = op;
    if (!x86_scale_bound(n)) { printf("FAIL %s: x86_scale_bound says no\n", what); failures++; }
    int xi = x_second ? 1 : 0;
    if (!op->accepts_layout(n, state, xi, nhwc ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN)) {
        printf("FAIL %s: layout refused\n", what);
        failures++;
    }

    size_t xs = xb ? 2 : 4, ys = yb ? 2 : 4;
    void *x = malloc((size_t)total * xs);
    float *s = malloc((size_t)(SN * C) * sizeof *s);
    unsigned char *y = malloc((size_t)total * ys + GUARD);
    for (int64_t i = 0; i < total; i++) {
        float v = frand();
        if (xb) ((uint16_t *)x)[i] = f2bf(v);
        else ((float *)x)[i] = v;
    }
    for (int64_t i = 0; i < SN * C; i++) s[i] = frand() * 0.37f;
    memset(y, 0xa5, (size_t)total * ys + GUARD);

    k_tensor in[2], out;
    memset(in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in[xi].dtype = xdt; in[xi].shape = shape4(N, C, H, W); in[xi].data = x;
    in[xi].nbytes = (size_t)total * xs; in[xi].layout = nhwc ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    in[1 - xi].dtype = G_F32; in[1 - xi].shape = shape4(SN, C, 1, 1); in[1 - xi].data = s;
    in[1 - xi].nbytes = (size_t)(SN * C) * 4; in[1 - xi].layout = G_LAYOUT_PLAIN;
    if ((rc = op->infer(n, state, in, &out))) {
        printf("FAIL %s: infer %d\n", what, rc); failures++;
        goto done;
    }
    if (out.dtype != (yb ? G_BF16 : G_F32) || !g_shape_eq(&out.shape, &in[xi].shape) ||
        (out.layout != in[xi].layout && P > 1)) {
        /* (with one pixel both layouts are the same bytes, and two float32
         * [N, C, 1, 1] inputs leave the kernel free to take either as x) */
        printf("FAIL %s: inferred dtype %d layout %d\n", what, out.dtype, out.layout); failures++;
        goto done;
    }
    out.data = y;
    out.nbytes = (size_t)total * ys;
    k_ctx ctx = { .threads = threads };
    if ((rc = op->run(n, state, in, &out, &ctx))) { printf("FAIL %s: run %d\n", what, rc); failures++; goto done; }
    int bad = 0;
    for (int64_t b = 0; b < N && bad < 3; b++)
        for (int64_t c = 0; c < C && bad < 3; c++)
            for (int64_t p = 0; p < P && bad < 3; p++) {
                size_t i = at(nhwc, C, P, b, c, p);
                float xv = xb ? bf2f(((uint16_t *)x)[i]) : ((float *)x)[i];
                float want = xv * s[(per_image ? b : 0) * C + c];
                float got = yb ? bf2f(((uint16_t *)y)[i]) : ((float *)y)[i];
                if (yb) want = bf2f(f2bf(want));
                if (memcmp(&got, &want, sizeof got)) {
                    printf("FAIL %s: at b%lld c%lld p%lld got %.9g want %.9g\n", what, (long long)b,
                           (long long)c, (long long)p, got, want);
                    bad++;
                }
            }
    for (size_t i = 0; i < GUARD; i++)
        if (y[(size_t)total * ys + i] != 0xa5) { printf("FAIL %s: wrote past the end\n", what); bad++; break; }
    failures += bad;
done:
    if (op->fini) op->fini(state);
    g_graph_free(g);
    free(x);
    free(s);
    free(y);
}

static void check_gap(int64_t N, int64_t C, int64_t H, int64_t W, int nhwc)
{
    const k_op *op = find_impl("GlobalAveragePool", "bf16");
    if (!op) { printf("FAIL: no bf16 GlobalAveragePool kernel\n"); failures++; return; }
    int64_t P = H * W, total = N * C * P;
    int dt = G_BF16;
    g_shape sh = shape4(N, C, H, W);
    g_graph *g = one_node("GlobalAveragePool", 1, &dt, &sh, 0);
    g_node *n = &g->nodes[0];
    void *state = NULL;
    char what[96];
    snprintf(what, sizeof what, "GlobalAveragePool N%lld C%lld %lldx%lld %s", (long long)N, (long long)C,
             (long long)H, (long long)W, nhwc ? "nhwc" : "plain");
    int rc = op->init(g, n, &state);
    if (rc) { printf("FAIL %s: init %d\n", what, rc); failures++; g_graph_free(g); return; }
    uint16_t *x = malloc((size_t)total * 2);
    float *y = malloc((size_t)(N * C) * sizeof *y + GUARD);
    for (int64_t i = 0; i < total; i++) x[i] = f2bf(frand() + 1.5f);
    memset(y, 0xa5, (size_t)(N * C) * sizeof *y + GUARD);
    k_tensor in, out;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in.dtype = G_BF16; in.shape = sh; in.data = x; in.nbytes = (size_t)total * 2;
    in.layout = nhwc ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    if ((rc = op->infer(n, state, &in, &out)) || out.dtype != G_F32 || out.shape.d[2] != 1 ||
        out.shape.d[3] != 1 || out.shape.d[1] != C) {
        printf("FAIL %s: infer %d\n", what, rc); failures++;
        goto done;
    }
    out.data = y;
    out.nbytes = (size_t)(N * C) * sizeof *y;
    k_ctx ctx = { .threads = 1 };
    if ((rc = op->run(n, state, &in, &out, &ctx))) { printf("FAIL %s: run %d\n", what, rc); failures++; goto done; }
    int bad = 0;
    for (int64_t b = 0; b < N && bad < 3; b++)
        for (int64_t c = 0; c < C && bad < 3; c++) {
            double sum = 0, mag = 0;
            for (int64_t p = 0; p < P; p++) {
                double v = bf2f(x[at(nhwc, C, P, b, c, p)]);
                sum += v;
                mag += fabs(v);
            }
            double want = sum / (double)P, got = y[b * C + c];
            if (!(fabs(got - want) <= 1e-6 * mag / (double)P * (double)(P < 64 ? 64 : P) / 8.0 + 1e-7)) {
                printf("FAIL %s: b%lld c%lld got %.9g want %.9g\n", what, (long long)b, (long long)c, got, want);
                bad++;
            }
        }
    unsigned char *gy = (unsigned char *)(y + N * C);
    for (size_t i = 0; i < GUARD; i++)
        if (gy[i] != 0xa5) { printf("FAIL %s: wrote past the end\n", what); bad++; break; }
    failures += bad;
done:
    if (op->fini) op->fini(state);
    g_graph_free(g);
    free(x);
    free(y);
}

int main(void)
{
    if (k_force_ref()) {
        printf("skipped: OPENACL_FORCE_REF hides the avx512 kernels this test checks\n");
        return 77;
    }
    /* channel counts: below one vector, odd with a tail, exact vectors;
     * sizes: small (one thread always) and over the 64 Ki-value threshold
     * where two threads split the rows */
    static const int64_t dims[][4] = {
        { 1, 5, 3, 3 }, { 1, 37, 7, 5 }, { 2, 48, 4, 4 }, { 2, 37, 30, 30 }, { 1, 1, 1, 1 }, { 3, 19, 1, 1 },
    };
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int xb = 0; xb <= 1; xb++)
            for (int yb = 0; yb <= 1; yb++)
                for (int nhwc = 0; nhwc <= 1; nhwc++)
                    for (int v = 0; v < 4; v++)
                        for (int threads = 1; threads <= 2; threads++)
                            check_mul(dims[d][0], dims[d][1], dims[d][2], dims[d][3], xb, yb, nhwc, v & 1,
                                      (v >> 1) & 1, threads);
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int nhwc = 0; nhwc <= 1; nhwc++) check_gap(dims[d][0], dims[d][1], dims[d][2], dims[d][3], nhwc);
    /* the pool declines float32 input (the general kernel serves it) */
    {
        const k_op *op = find_impl("GlobalAveragePool", "bf16");
        int dt = G_F32;
        g_shape sh = shape4(1, 8, 2, 2);
        g_graph *g = one_node("GlobalAveragePool", 1, &dt, &sh, 0);
        void *state = NULL;
        if (op && op->init(g, &g->nodes[0], &state) != K_DECLINE) {
            printf("FAIL: bf16 GlobalAveragePool took a float32 input\n");
            failures++;
        }
        g_graph_free(g);
    }
    printf("%s (%d failures)\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}
