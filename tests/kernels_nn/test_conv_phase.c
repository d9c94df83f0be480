/* Dilated 3x3 convolutions run by the Winograd implementation as a batch of
 * phase planes (kernels/dnnl/dn_conv_phase.h), against the reference kernel:
 * dilations 2 to 12, batch 1 and 2, both activation layouts in and out,
 * bias and post-op chains, planes whose sides are no multiple of the
 * dilation (the phases' last rows and columns past the tensor). Each layer
 * that suits the phases must be taken by the Winograd implementation (its
 * packed weights have the Winograd format, so their size differs from the
 * direct kernel's) and handed to the direct kernel under
 * OPENACL_WINO_DILATED=0; layers that do not suit (too few output tiles
 * in the whole batch, other pads, unequal dilations, a fused residual add)
 * must stay on the direct kernel. Every output is compared with the
 * reference kernel's, under both switches.
 * usage: knn_conv_phase */
#include "knn_util.h"
#include "kernels/dnnl/dn_common.h"

typedef struct pcase {
    int64_t N, C, M, H, W, dh, dw, pad;
    int xl, yl, bias, post, add;   /* post: 0 none, 1 Relu, 2 Clip then Linear */
    int phase;   /* 1: runs as phases; 0: the Winograd implementation declines it;
                    -1: it takes the layer, but oneDNN's Winograd kernel refuses the chain
                    and the direct one runs (the packed weights have the direct format) */
} pcase;

static const pcase CASES[] = {
    { 1, 96, 96, 28, 28, 2, 2, 2, 1, 1, 1, 1, 0, 1 },     /* 14x14 phases */
    { 2, 96, 96, 27, 27, 3, 3, 3, 0, 1, 0, 0, 0, 1 },     /* plain in, batch 2, 9x9 phases */
    { 1, 48, 48, 52, 52, 2, 2, 2, 1, 0, 1, 1, 0, 1 },     /* 26x26 phases, plain out */
    { 1, 48, 48, 52, 52, 2, 2, 2, 1, 1, 0, 2, 0, -1 },    /* a chain F(4x4,3x3) refuses: direct */
    { 1, 96, 112, 40, 44, 4, 4, 4, 1, 1, 1, 1, 0, 1 },    /* 10x11 phases, 7 output blocks */
    { 1, 96, 96, 36, 36, 4, 4, 4, 0, 0, 1, 0, 0, 1 },     /* plain both ways */
    { 1, 96, 96, 29, 30, 2, 2, 2, 1, 1, 1, 1, 0, 1 },     /* 29 rows: the phases' last row past them */
    { 2, 48, 48, 19, 20, 3, 3, 3, 0, 1, 1, 0, 0, 1 },     /* neither side a multiple of 3: 7x7 phases */
    { 1, 64, 48, 40, 40, 12, 12, 12, 1, 1, 1, 1, 0, 0 },  /* ASPP-like: 144 phases of 4x4, too small */
    { 1, 96, 96, 40, 40, 8, 8, 8, 1, 1, 1, 1, 0, 0 },     /* 64 phases of 5x5: too little gain */
    { 1, 96, 96, 20, 20, 2, 2, 2, 1, 1, 1, 1, 0, 0 },     /* 4 planes of 10x10: 36 tiles, too few */
    { 1, 96, 96, 28, 28, 2, 2, 1, 1, 1, 1, 0, 0, 0 },     /* pads 1 at dilation 2 */
    { 1, 96, 96, 24, 24, 2, 3, 2, 1, 1, 0, 0, 0, 0 },     /* dilations 2 and 3 */
    { 1, 96, 96, 28, 28, 2, 2, 2, 1, 1, 1, 0, 1, 0 },     /* fused residual add */
};

static long long packed_size(const k_op *op, g_graph *g, int ni, const k_tensor *in)
{
    g_node *n = &g->nodes[ni];
    void *st = NULL;
    if (op->init(g, n, &st)) return -1;
    k_tensor out[1];
    memset(out, 0, sizeof out);
    out[0].shape.rank = -1;
    size_t pb = 0, sb = 0;
    int r = op->infer(n, st, in, out);
    if (!r) r = op->plan(n, st, in, out, &pb, &sb);
    if (op->fini) op->fini(st);
    return r ? -1 : (long long)pb;
}

static void set_post(g_node *n, int post)
{
    if (post == 1) {
        int64_t k[1] = { NN_PO_RELU };
        float a[1] = { 0.f }, b[1] = { 0.f };
        attr_ints(n, "_oa_post_ops", k, 1);
        attr_floats(n, "_oa_post_alpha", a, 1);
        attr_floats(n, "_oa_post_beta", b, 1);
    } else if (post == 2) {
        int64_t k[2] = { NN_PO_CLIP, NN_PO_LINEAR };
        float a[2] = { -0.5f, 1.5f }, b[2] = { 0.7f, -0.25f };
        attr_ints(n, "_oa_post_ops", k, 2);
        attr_floats(n, "_oa_post_alpha", a, 2);
        attr_floats(n, "_oa_post_beta", b, 2);
    }
}

/* Runs the implementation the engine would bind and the reference on the
 * inputs; returns the binding's priority (-1 on failure). */
static int compare(g_graph *g, int ni, const k_tensor *in, const char *what, const char *mode)
{
    const k_op *ref = find_impl(&g->nodes[ni], "ref"), *fast = accepting_impl(g, ni, "dnnl");
    CHECK(ref && fast, "%s (%s): no implementation", what, mode);
    if (!ref || !fast) return -1;
    k_tensor yr[1], yf[1];
    int rr = drive(ref, g, ni, in, yr, 0), rf = drive(fast, g, ni, in, yf, 1);
    CHECK(rr == 0 && rf == 0, "%s (%s): runs failed (ref %d, dnnl %d)", what, mode, rr, rf);
    if (rr == 0 && rf == 0) {
        float *a = from_layout(yf[0].data, &yf[0].shape, yf[0].layout);
        float *e = from_layout(yr[0].data, &yr[0].shape, yr[0].layout);
        size_t at = 0, cnt = (size_t)g_shape_numel(&yr[0].shape);
        double err = cmp_f32(a, e, cnt, 2e-4, 1e-3, &at);
        CHECK(err <= 1, "%s (%s): mismatch %.3g x tolerance at %zu (%g vs %g)", what, mode, err, at, a[at], e[at]);
        free(a);
        free(e);
    }
    if (rr == 0) free(yr[0].data);
    if (rf == 0) free(yf[0].data);
    return fast->priority;
}

static void run_case(int ci, const pcase *p)
{
    g_graph *g = g_graph_new();
    g->opset = 17;
    int64_t xd[4] = { p->N, p->C, p->H, p->W }, wd[4] = { p->M, p->C, 3, 3 }, bd[1] = { p->M };
    int64_t yd[4] = { p->N, p->M, p->H + 2 * p->pad - 2 * p->dh, p->W + 2 * p->pad - 2 * p->dw };
    g_shape xs = shp(4, xd), ws = shp(4, wd), bs = shp(1, bd), ys = shp(4, yd);
    float *x = rand_buf((size_t)g_shape_numel(&xs)), *w = rand_buf((size_t)g_shape_numel(&ws));
    float *b = rand_buf((size_t)p->M), *a = rand_buf((size_t)g_shape_numel(&ys));
    int tx = tadd(g, "x", G_TK_INPUT, G_F32, xs, NULL), tw = tadd(g, "w", G_TK_CONST, G_F32, ws, w);
    int tb = p->bias ? tadd(g, "b", G_TK_CONST, G_F32, bs, b) : -1;
    int ta = p->add ? tadd(g, "a", G_TK_INPUT, G_F32, ys, NULL) : -1;
    int ty = tadd(g, "y", G_TK_ACT, G_F32, shp(0, NULL), NULL);
    int ins[4] = { tx, tw, tb, ta }, outs[1] = { ty };
    int ni = g_node_add(g, "Conv", "", "conv", 4, ins, 1, outs);
    g_node *n = &g->nodes[ni];
    n->opset = 17;
    int64_t dil[2] = { p->dh, p->dw }, pads[4] = { p->pad, p->pad, p->pad, p->pad }, k[2] = { 3, 3 };
    attr_ints(n, "dilations", dil, 2);
    attr_ints(n, "pads", pads, 4);
    attr_ints(n, "kernel_shape", k, 2);
    set_post(n, p->post);
    if (p->add) {
        int64_t ka[1] = { NN_PO_ADD };
        float z[1] = { 0.f };
        attr_ints(n, "_oa_post_ops", ka, 1);
        attr_floats(n, "_oa_post_alpha", z, 1);
        attr_floats(n, "_oa_post_beta", z, 1);
    }
    if (p->yl) attr_int(n, "_oa_layout", G_LAYOUT_NHWC);
    int xl = p->xl ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    k_tensor in[4];
    memset(in, 0, sizeof in);
    in[0] = (k_tensor){ .dtype = G_F32, .shape = xs, .layout = xl,
                        .data = xl == G_LAYOUT_PLAIN ? x : to_layout(x, &xs, xl),
                        .nbytes = (size_t)g_shape_numel(&xs) * 4 };
    in[1] = (k_tensor){ .dtype = G_F32, .shape = ws, .data = g->t[tw].data, .nbytes = (size_t)g_shape_numel(&ws) * 4 };
    if (p->bias) in[2] = (k_tensor){ .dtype = G_F32, .shape = bs, .data = g->t[tb].data, .nbytes = (size_t)p->M * 4 };
    if (p->add) in[3] = (k_tensor){ .dtype = G_F32, .shape = ys, .data = a, .nbytes = (size_t)g_shape_numel(&ys) * 4 };
    char what[160];
    snprintf(what, sizeof what, "case %d: N %lld C %lld M %lld %lldx%lld dil %lld,%lld pads %lld x %s y %s", ci,
             (long long)p->N, (long long)p->C, (long long)p->M, (long long)p->H, (long long)p->W,
             (long long)p->dh, (long long)p->dw, (long long)p->pad, p->xl ? "nhwc" : "nchw",
             p->yl ? "nhwc" : "nchw");
    long long pk_on = packed_size(accepting_impl(g, ni, "dnnl"), g, ni, in);
    int pri_on = compare(g, ni, in, what, "phases");
    setenv("OPENACL_WINO_DILATED", "0", 1);
    long long pk_off = packed_size(accepting_impl(g, ni, "dnnl"), g, ni, in);
    int pri_off = compare(g, ni, in, what, "OPENACL_WINO_DILATED=0");
    unsetenv("OPENACL_WINO_DILATED");
    CHECK(pri_off >= 0 && pri_off < 15, "%s: under OPENACL_WINO_DILATED=0 the Winograd implementation kept it", what);
    if (p->phase == 1 && dn_has_avx512()) {
        CHECK(pri_on == 15 && pk_on > 0 && pk_off > 0 && pk_on != pk_off,
              "%s: not run as Winograd phases (priority %d, packed %lld vs %lld direct)", what, pri_on, pk_on, pk_off);
    } else {
        CHECK(pk_on > 0 && pk_on == pk_off, "%s: packed %lld bytes, not the direct kernel's %lld", what, pk_on, pk_off);
        CHECK(p->phase || pri_on < 15, "%s: taken by the Winograd implementation (priority %d)", what, pri_on);
    }
    if (in[0].data != x) free(in[0].data);
    free(x);
    free(w);
    free(b);
    free(a);
    g_graph_free(g);
    printf("%s: %s\n", what, p->phase == 1 && dn_has_avx512() ? "phases" : "direct");
}

int main(void)
{
    if (!dn_engine()) {
        printf("SKIP: no oneDNN engine\n");
        return 77;
    }
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) run_case((int)i, &CASES[i]);
    return OA_CHECK_EXIT("knn_conv_phase");
}
