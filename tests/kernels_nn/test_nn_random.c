/* Every oneDNN NN kernel against the reference kernel on random
 * configurations: shapes, groups, strides, dilations, pads and auto_pad,
 * bias, fused post-ops, activation layouts. Outputs are compared in logical
 * order with per-op tolerances; every buffer has guard bytes behind it and
 * each kernel runs twice to catch state kept between runs.
 * usage: knn_random [iterations-per-op] [seed] */
#include "knn_util.h"
#include "graph/precision.h"
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_gemv.h"
#include "kernels/dnnl/dn_stem.h"

static int iters = 150;

typedef struct cfg_io {
    g_graph *g;
    int node;
    int n_in;
    k_tensor in[4];
    float *logical[4];   /* NCHW copies of the inputs */
    int borrowed[4];     /* in[i].data belongs to the graph (a constant) */
} cfg_io;

static void io_free(cfg_io *c)
{
    for (int i = 0; i < 4; i++) {
        free(c->logical[i]);
        if (!c->borrowed[i] && c->in[i].data != c->logical[i]) free(c->in[i].data);
    }
    g_graph_free(c->g);
}

static void io_borrow(cfg_io *c, int i, int t)
{
    c->in[i].data = c->g->t[t].data;
    c->borrowed[i] = 1;
}

/* Sets input i (logical data x) in the given layout. */
static void io_set(cfg_io *c, int i, float *x, g_shape s, int layout)
{
    c->logical[i] = x;
    c->in[i].dtype = G_F32;
    c->in[i].shape = s;
    c->in[i].layout = layout;
    c->in[i].data = layout == G_LAYOUT_PLAIN ? x : to_layout(x, &s, layout);
    c->in[i].nbytes = (size_t)g_shape_numel(&s) * 4;
}

static void po_desc(const g_node *n, char *buf, size_t len)
{
    nn_post p;
    buf[0] = 0;
    if (nn_post_parse(n, &p) || !p.n) return;
    size_t o = 0;
    for (int i = 0; i < p.n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : " post:", nn_po_name(p.kind[i]));
}

/* A chain with Round is discontinuous: an accumulation order that differs
 * in the last bit (Winograd, another blocking) moves a value lying on a
 * .5 boundary to the other integer. Such a flip is a whole rounding step
 * (times what follows), so the elements over tolerance are counted and a
 * few per thousand are allowed; any other chain allows none. */
static int round_flips_ok(const g_node *n, const float *a, const float *b, size_t cnt,
                          double atol, double rtol)
{
    nn_post p;
    int has_round = 0;
    if (nn_post_parse(n, &p)) return 0;
    for (int i = 0; i < p.n; i++) has_round |= p.kind[i] == NN_PO_ROUND;
    if (!has_round) return 0;
    size_t over = 0;
    for (size_t i = 0; i < cnt; i++)
        if (cmp_f32(a + i, b + i, 1, atol, rtol, NULL) > 1.0) over++;
    return over <= cnt / 1000 + 1;
}

/* Runs ref and dnnl on the node and compares output 0. Returns 1 when
 * compared, 0 when the configuration was refused by the reference. */
static int compare_impls(cfg_io *c, const char *what, double atol, double rtol)
{
    g_node *n = &c->g->nodes[c->node];
    const k_op *ref = find_impl(n, "ref"), *dn = NULL;
    CHECK(ref != NULL, "%s: reference kernel missing", what);
    if (!ref) return 0;
    k_tensor yr[2], yd[2];
    int rr = drive(ref, c->g, c->node, c->in, yr, 0);
    if (rr) {
        for (int j = 0; j < n->n_out; j++) free(yr[j].data);
        CHECK(rr != -100, "%s: reference overran a buffer", what);
        return 0;
    }
    /* the fast implementations in the engine's order: the first that takes it */
    const k_op *ops[8];
    int nops = k_find(n->op_type, n->domain, n->opset, ops, 8), rd = K_DECLINE;
    for (int k = 0; k < nops && rd == K_DECLINE; k++) {
        if (!strcmp(ops[k]->impl, "ref")) continue;
        dn = ops[k];
        rd = drive(dn, c->g, c->node, c->in, yd, 1);
    }
    CHECK(nops > 1, "%s: no fast kernel registered", what);
    int done = 0;
    if (rd == K_DECLINE) {
        done = 2;
    } else {
        CHECK(rd == 0, "%s: dnnl kernel failed: %d (%s)", what, rd,
              rd == -100 ? "guard overrun" : rd == -101 ? "second run differs" : "error");
        CHECK(g_shape_eq(&yr[0].shape, &yd[0].shape), "%s: output shapes differ", what);
        if (rd == 0 && g_shape_eq(&yr[0].shape, &yd[0].shape)) {
            float *a = from_layout(yd[0].data, &yd[0].shape, yd[0].layout);
            float *b = from_layout(yr[0].data, &yr[0].shape, yr[0].layout);
            size_t at = 0, cnt = (size_t)g_shape_numel(&yr[0].shape);
            double e = cmp_f32(a, b, cnt, atol, rtol, &at);
            if (e > 1.0 && round_flips_ok(n, a, b, cnt, atol, rtol)) e = 0.0;
            char pd[128];
            po_desc(n, pd, sizeof pd);
            CHECK(e <= 1.0, "%s%s: mismatch %.3g x tolerance at %zu: dnnl %g ref %g", what, pd, e,
                  at, cnt ? a[at] : 0.f, cnt ? b[at] : 0.f);
            free(a);
            free(b);
            done = 1;
        }
    }
    for (int j = 0; j < n->n_out; j++) { free(yr[j].data); if (rd != K_DECLINE) free(yd[j].data); }
    return done;
}

static void add_post_ops(g_node *n, int allow_add, int *has_add)
{
    int cnt = rndi(0, 3);
    int64_t k[4];
    float a[4], b[4];
    int m = 0;
    *has_add = 0;
    for (int i = 0; i < cnt; i++) {
        int kind = rndi(1, NN_PO_COUNT - 1);
        if (kind == NN_PO_ADD && (!allow_add || *has_add)) kind = NN_PO_RELU;
        if (kind == NN_PO_ADD) *has_add = 1;
        k[m] = kind;
        a[m] = 0.f; b[m] = 0.f;
        if (kind == NN_PO_RELU && rnd() % 2) a[m] = 0.1f;
        if (kind == NN_PO_CLIP) { a[m] = -0.5f; b[m] = 0.7f; }
        if (kind == NN_PO_HSIGMOID) { a[m] = 0.2f; b[m] = 0.5f; }
        if (kind == NN_PO_SILU) a[m] = 1.f;
        if (kind == NN_PO_ELU) a[m] = 0.8f;
        if (kind == NN_PO_LINEAR) { a[m] = 1.5f; b[m] = -0.25f; }
        m++;
    }
    if (!m) return;
    attr_ints(n, "_oa_post_ops", k, m);
    attr_floats(n, "_oa_post_alpha", a, m);
    attr_floats(n, "_oa_post_beta", b, m);
}

static long long planned_bytes(const k_op *op, g_graph *g, int ni, const k_tensor *in);

/* Winograd is an implementation of its own on its configurations: bound
 * before the oneDNN Conv, which OPENACL_WINOGRAD=0 hands the layer to.
 * Returns 1 when it planned the Winograd algorithm, whose weights have a
 * format of their own: the packed sizes differ (oneDNN may refuse it for
 * some post-op chains, and has it only with AVX-512; the caller checks some
 * layers took it). */
static int check_wino(cfg_io *c, const char *what)
{
    const k_op *wk = accepting_impl(c->g, c->node, "dnnl");
    long long pw = wk ? planned_bytes(wk, c->g, c->node, c->in) : -1;
    setenv("OPENACL_WINOGRAD", "0", 1);
    const k_op *dk = accepting_impl(c->g, c->node, "dnnl");
    long long pd = dk ? planned_bytes(dk, c->g, c->node, c->in) : -1;
    unsetenv("OPENACL_WINOGRAD");
    CHECK(wk && dk && wk != dk && wk->priority > dk->priority, "%s: OPENACL_WINOGRAD=0 did not hand the "
          "layer from the Winograd implementation to the oneDNN Conv", what);
    CHECK(pw > 0 && pd > 0, "%s: planning failed (%lld, %lld packed bytes)", what, pw, pd);
    return pw > 0 && pd > 0 && pw != pd;
}

static void test_conv(int transposed)
{
    int compared = 0, refused = 0, wino_planned = 0, small_planned = 0;
    for (int it = 0; it < iters; it++) {
        cfg_io c;
        memset(&c, 0, sizeof c);
        c.g = g_graph_new();
        c.g->opset = 17;
        int rank = rndi(0, 7) == 0 ? 3 : (rndi(0, 7) == 0 ? 5 : 4), nsp = rank - 2;
        int64_t N = rndi(1, 2), G = 1, cg, mg;
        int gk = rndi(0, 9);
        if (gk < 6) { G = 1; cg = rndi(1, 9); mg = rndi(1, 9); }
        else if (gk < 8) { G = rndi(2, 3); cg = rndi(1, 4); mg = rndi(1, 4); }
        else { G = rndi(2, 17); cg = 1; mg = rndi(1, 2); }   /* depthwise (multiplier 1-2) */
        int64_t C = G * cg, M = G * mg;
        int64_t xs[5] = { N, C }, ws[5], k[3], s[3], d[3], pads[6];
        /* transposed up-sampling (kernel == stride, no pads): its own fast path */
        int upsample = transposed && rank == 4 && rndi(0, 2) == 0;
        if (upsample) { G = 1; C = cg = rndi(1, 20); M = mg = rndi(1, 20); xs[1] = C; }
        /* 3x3 stride 1 on multiples of 16 channels, enough of them (C x M
         * / (C + M) >= 24, dn_conv.c): the Winograd path; one in three with
         * 16-32 channels, too few, which it must leave to the direct kernel;
         * half the others on 7x7 to 16x16 planes with 96-128 channels (C x
         * M / (C + M) >= 48), F(2x2,3x3)'s from 9x9 (7x7 and 8x8 stay direct) */
        int wino = !transposed && rank == 4 && rndi(0, 5) == 0;
        int wino_few = wino && rndi(0, 2) == 0;
        int wino_small = wino && !wino_few && rndi(0, 1) == 0;
        if (wino) {
            G = 1;
            C = cg = 16 * (wino_few ? rndi(1, 2) : wino_small ? rndi(6, 8) : rndi(3, 4));
            M = mg = 16 * (wino_few ? rndi(1, 2) : wino_small ? rndi(6, 8) : rndi(3, 4));
            xs[1] = C;
        }
        for (int i = 0; i < nsp; i++) {
            k[i] = rndi(0, 5) == 0 ? rndi(4, 7) : rndi(1, 3);
            s[i] = rndi(1, 3);
            d[i] = rndi(0, 4) == 0 ? 2 : 1;
            xs[2 + i] = rndi(1, nsp == 3 ? 7 : 14);
            int64_t ext = (k[i] - 1) * d[i] + 1;
            pads[i] = rndi(0, (int)(ext - 1 < 2 ? ext - 1 : 2));
            pads[nsp + i] = rndi(0, (int)(ext - 1 < 2 ? ext - 1 : 2));
            if (upsample) { k[i] = s[i] = rndi(1, 3); d[i] = 1; pads[i] = pads[nsp + i] = 0; }
            if (wino) {
                k[i] = 3; s[i] = 1; d[i] = 1; pads[i] = pads[nsp + i] = 1;
                xs[2 + i] = wino_small ? rndi(7, 16) : rndi(28, 34);
            }
        }
        if (!transposed) { ws[0] = M; ws[1] = cg; }
        else { ws[0] = C; ws[1] = mg; }
        for (int i = 0; i < nsp; i++) ws[2 + i] = k[i];
        g_shape xsh = shp(rank, xs), wsh = shp(rank, ws);
        int64_t wn = g_shape_numel(&wsh);
        float *w = rand_buf((size_t)wn), *b = rand_buf((size_t)M);
        int has_bias = rnd() % 2;
        int tx = tadd(c.g, "x", G_TK_INPUT, G_F32, xsh, NULL);
        int tw = tadd(c.g, "w", G_TK_CONST, G_F32, wsh, w);
        int64_t bd[1] = { M };
        int tb = has_bias ? tadd(c.g, "b", G_TK_CONST, G_F32, shp(1, bd), b) : -1;
        int ta = tadd(c.g, "add", G_TK_INPUT, G_F32, shp(0, NULL), NULL);
        int ty = tadd(c.g, "y", G_TK_ACT, G_F32, shp(0, NULL), NULL);
        int ins[4] = { tx, tw, tb, ta }, outs[1] = { ty };
        c.node = g_node_add(c.g, transposed ? "ConvTranspose" : "Conv", "", "conv", 4, ins, 1, outs);
        g_node *n = &c.g->nodes[c.node];
        n->opset = 17;
        int ap = wino ? 0 : rndi(0, 9);
        if (ap < 6) {
            attr_ints(n, "pads", pads, 2 * nsp);
        } else if (ap == 6) attr_str(n, "auto_pad", "SAME_UPPER");
        else if (ap == 7) attr_str(n, "auto_pad", "SAME_LOWER");
        else if (ap == 8) attr_str(n, "auto_pad", "VALID");
        attr_ints(n, "strides", s, nsp);
        attr_ints(n, "dilations", d, nsp);
        if (rnd() % 2) attr_ints(n, "kernel_shape", k, nsp);
        if (G > 1) attr_int(n, "group", G);
        if (upsample && ap >= 6) { /* keep the explicit zero pads */ }
        if (transposed) {
            int64_t op[3];
            for (int i = 0; i < nsp; i++) {
                int64_t lim = s[i] > d[i] ? s[i] : d[i];
                op[i] = rndi(0, (int)(lim - 1));
            }
            if (rnd() % 2 && !upsample) attr_ints(n, "output_padding", op, nsp);
            if (rndi(0, 5) == 0 && !upsample) {
                int64_t os[3];
                for (int i = 0; i < nsp; i++) os[i] = xs[2 + i] * s[i] - rndi(0, 1);
                attr_ints(n, "output_shape", os, nsp);
            }
        }
        int has_add;
        add_post_ops(n, 1, &has_add);
        int xl = rank == 4 && rnd() % 2 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
        int yl = rank == 4 && rnd() % 2 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
        int al = rank == 4 && rnd() % 2 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
        if (yl == G_LAYOUT_NHWC) attr_int(n, "_oa_layout", G_LAYOUT_NHWC);
        if (!has_add) n->in[3] = -1;
        if (!has_bias) n->in[2] = -1;
        io_set(&c, 0, rand_buf((size_t)g_shape_numel(&xsh)), xsh, xl);
        io_set(&c, 1, w, wsh, G_LAYOUT_PLAIN);
        io_borrow(&c, 1, tw);
        if (has_bias) { io_set(&c, 2, b, shp(1, bd), G_LAYOUT_PLAIN); io_borrow(&c, 2, tb); }
        else { c.logical[2] = b; c.in[2].dtype = G_UNDEF; }
        if (has_add) {
            /* the addend has the output's shape */
            nn_win wv;
            g_shape ys;
            int ok = !nn_win_parse(n, transposed ? NN_CONVT : NN_CONV, &wv) &&
                     !nn_conv_infer_shape(n, &wv, transposed, c.in, &ys) && g_shape_known(&ys);
            if (!ok) { refused++; io_free(&c); continue; }
            io_set(&c, 3, rand_buf((size_t)g_shape_numel(&ys)), ys, al);
        }
        char what[256];
        snprintf(what, sizeof what, "%s #%d rank %d N %lld C %lld M %lld G %lld x %s y %s%s%s "
                 "k %lld,%lld s %lld,%lld d %lld,%lld in %lld,%lld pads %lld,%lld,%lld,%lld ap %d bias %d",
                 transposed ? "ConvTranspose" : "Conv", it, rank, (long long)N, (long long)C,
                 (long long)M, (long long)G, xl ? "nhwc" : "nchw", yl ? "nhwc" : "nchw",
                 has_add ? " +add " : "", has_add ? (al ? "nhwc" : "nchw") : "",
                 (long long)k[0], (long long)k[nsp > 1], (long long)s[0], (long long)s[nsp > 1],
                 (long long)d[0], (long long)d[nsp > 1], (long long)xs[2], (long long)xs[1 + nsp],
                 (long long)pads[0], (long long)pads[nsp > 1], (long long)pads[nsp],
                 (long long)pads[2 * nsp - 1], ap, has_bias);
        /* Winograd (dn_winograd, on by default) on its configurations: 7x7
         * output tiles and more, enough channels; the others run with it
         * off, as a user can ask */
        int small_direct = wino_small && (xs[2] < 9 || xs[3] < 9);   /* F(2x2,3x3) starts at 9x9 */
        if (wino && !wino_few && !small_direct) {
            int p = check_wino(&c, what);
            wino_planned += p;
            small_planned += p && wino_small;
        }
        if (wino_few || small_direct) {
            const k_op *k = accepting_impl(c.g, c.node, "dnnl");
            CHECK(k && k->priority < 15, "%s: too few channels or too small a plane for Winograd, yet its "
                  "implementation took the layer", what);
        }
        if (!wino && rnd() % 2) setenv("OPENACL_WINOGRAD", "0", 1);
        int r = compare_impls(&c, what, 2e-4, 1e-3);
        unsetenv("OPENACL_WINOGRAD");
        if (r == 1) compared++;
        else if (r == 0) refused++;
        io_free(&c);
    }
    printf("%s: %d compared, %d configurations refused by the reference, %d planned by Winograd "
           "(%d on planes under 7x7 tiles)\n", transposed ? "ConvTranspose" : "Conv", compared, refused,
           wino_planned, small_planned);
    CHECK(transposed || !dn_has_avx512() || wino_planned > 0, "no convolution was planned by Winograd");
    CHECK(transposed || !dn_has_avx512() || small_planned > 0,
          "no convolution on a plane under 7x7 tiles was planned by Winograd");
    CHECK(compared > iters / 3, "too few %s configurations compared", transposed ? "ConvTranspose" : "Conv");
}

/* 1x1 convolution with a fused depthwise 3x3 step (inputs 4/5). */
static void test_conv_dw(void)
{
    int compared = 0;
    for (int it = 0; it < iters / 4 + 1; it++) {
        cfg_io c;
        memset(&c, 0, sizeof c);
        c.g = g_graph_new();
        c.g->opset = 17;
        int64_t C = 16 * rndi(1, 2), M = 16 * rndi(1, 3), H = rndi(2, 30), W = rndi(2, 30);
        int64_t xd[4] = { rndi(1, 2), C, H, W }, wd[4] = { M, C, 1, 1 }, bd[1] = { M };
        int64_t dwd[4] = { M, 1, 3, 3 };
        g_shape xs = shp(4, xd), ws = shp(4, wd), bs = shp(1, bd), dws = shp(4, dwd);
        float *w = rand_buf((size_t)(M * C)), *b = rand_buf((size_t)M), *dw = rand_buf((size_t)M * 9);
        float *db = rand_buf((size_t)M);
        int has_db = rnd() % 4 != 0;
        int tx = tadd(c.g, "x", G_TK_INPUT, G_F32, xs, NULL);
        int tw = tadd(c.g, "w", G_TK_CONST, G_F32, ws, w);
        int tb = tadd(c.g, "b", G_TK_CONST, G_F32, bs, b);
        int tdw = tadd(c.g, "dw", G_TK_CONST, G_F32, dws, dw);
        int tdb = tadd(c.g, "db", G_TK_CONST, G_F32, bs, db);
        int ty = tadd(c.g, "y", G_TK_ACT, G_F32, shp(0, NULL), NULL);
        int ins[6] = { tx, tw, tb, -1, tdw, has_db ? tdb : -1 }, outs[1] = { ty };
        c.node = g_node_add(c.g, "Conv", "", "conv_dw", 6, ins, 1, outs);
        g_node *n = &c.g->nodes[c.node];
        int64_t stride = rndi(1, 2);
        attr_int(n, "_oa_dw_stride", stride);
        int64_t k1[1] = { NN_PO_CLIP };
        float lo[1] = { 0.f }, hi[1] = { 6.f };
        if (rnd() % 2) { attr_ints(n, "_oa_post_ops", k1, 1); attr_floats(n, "_oa_post_alpha", lo, 1); attr_floats(n, "_oa_post_beta", hi, 1); }
        if (rnd() % 2) { attr_ints(n, "_oa_dw_post_ops", k1, 1); attr_floats(n, "_oa_dw_post_alpha", lo, 1); attr_floats(n, "_oa_dw_post_beta", hi, 1); }
        int xl = rnd() % 2, yl = rnd() % 2;
        if (yl) attr_int(n, "_oa_layout", G_LAYOUT_NHWC);
        io_set(&c, 0, rand_buf((size_t)g_shape_numel(&xs)), xs, xl);
        io_set(&c, 1, w, ws, G_LAYOUT_PLAIN);
        io_borrow(&c, 1, tw);
        io_set(&c, 2, b, bs, G_LAYOUT_PLAIN);
        io_borrow(&c, 2, tb);
        c.logical[3] = NULL;
        c.in[3].dtype = G_UNDEF;
        /* inputs 4/5 live outside the 4-slot io arrays */
        k_tensor in6[6];
        memcpy(in6, c.in, sizeof c.in);
        in6[4] = (k_tensor){ .dtype = G_F32, .shape = dws, .data = c.g->t[tdw].data };
        in6[5] = (k_tensor){ .dtype = has_db ? G_F32 : G_UNDEF, .shape = bs,
                             .data = has_db ? c.g->t[tdb].data : NULL };
        const k_op *ref = find_impl(n, "ref"), *dn = accepting_impl(c.g, c.node, "dnnl");
        k_tensor yr[1], yd[1];
        int rr = drive(ref, c.g, c.node, in6, yr, 0), rd = drive(dn, c.g, c.node, in6, yd, 1);
        char what[160];
        snprintf(what, sizeof what, "Conv+dw #%d C %lld M %lld %lldx%lld stride %lld x %s y %s",
                 it, (long long)C, (long long)M, (long long)H, (long long)W, (long long)stride,
                 xl ? "nhwc" : "nchw", yl ? "nhwc" : "nchw");
        CHECK(rr == 0 && rd == 0, "%s: runs failed (ref %d, dnnl %d)", what, rr, rd);
        if (rr == 0 && rd == 0) {
            float *a = from_layout(yd[0].data, &yd[0].shape, yd[0].layout);
            float *e = from_layout(yr[0].data, &yr[0].shape, yr[0].layout);
            size_t at = 0, cnt = (size_t)g_shape_numel(&yr[0].shape);
            double err = cmp_f32(a, e, cnt, 2e-4, 1e-3, &at);
            CHECK(err <= 1, "%s: mismatch %.3g x tolerance at %zu (%g vs %g)", what, err, at, a[at], e[at]);
            free(a);
            free(e);
            compared++;
        }
        if (rr == 0) free(yr[0].data);
        if (rd == 0) free(yd[0].data);
        free(dw);
        free(db);
        io_free(&c);
    }
    printf("Conv+depthwise: %d compared\n", compared);
}

static void test_pool(void)
{
    static const char *ops[] = { "MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool" };
    int compared = 0, refused = 0;
    for (int it = 0; it < iters; it++) {
        cfg_io c;
        memset(&c, 0, sizeof c);
        c.g = g_graph_new();
        c.g->opset = 17;
        int op = rndi(0, 3), global = op >= 2;
        int rank = rndi(0, 7) == 0 ? 3 : (rndi(0, 7) == 0 ? 5 : 4), nsp = rank - 2;
        /* some with 64 channels and more: the channels-last MaxPool loop's
         * 64-wide blocks (dn_maxpool.c), then its 16-wide and masked tails */
        int64_t xs[5] = { rndi(1, 2), rndi(0, 3) ? rndi(1, 20) : rndi(60, 150) }, k[3], s[3], d[3], pads[6];
        for (int i = 0; i < nsp; i++) {
            k[i] = rndi(1, 4);
            s[i] = rndi(1, 3);
            d[i] = rndi(0, 4) == 0 ? 2 : 1;
            xs[2 + i] = rndi(1, nsp == 3 ? 8 : 16);
            pads[i] = rndi(0, (int)(k[i] - 1 < 2 ? k[i] - 1 : 2));
            pads[nsp + i] = rndi(0, (int)(k[i] - 1 < 2 ? k[i] - 1 : 2));
        }
        g_shape xsh = shp(rank, xs);
        int tx = tadd(c.g, "x", G_TK_INPUT, G_F32, xsh, NULL);
        int ty = tadd(c.g, "y", G_TK_ACT, G_F32, shp(0, NULL), NULL);
        int ins[1] = { tx }, outs[1] = { ty };
        c.node = g_node_add(c.g, ops[op], "", "pool", 1, ins, 1, outs);
        g_node *n = &c.g->nodes[c.node];
        n->opset = 19;
        if (!global) {
            attr_ints(n, "kernel_shape", k, nsp);
            attr_ints(n, "strides", s, nsp);
            if (op == 0 || rnd() % 2) attr_ints(n, "dilations", d, nsp);
            int ap = rndi(0, 9);
            if (ap < 6) attr_ints(n, "pads", pads, 2 * nsp);
            else if (ap == 6) attr_str(n, "auto_pad", "SAME_UPPER");
            else if (ap == 7) attr_str(n, "auto_pad", "SAME_LOWER");
            else if (ap == 8) attr_str(n, "auto_pad", "VALID");
            if (rnd() % 3 == 0) attr_int(n, "ceil_mode", 1);
            if (op == 1 && rnd() % 2) attr_int(n, "count_include_pad", 1);
        }
        int xl = rank == 4 && rnd() % 2 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
        int yl = rank == 4 && !global && rnd() % 2 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
        if (yl) attr_int(n, "_oa_layout", G_LAYOUT_NHWC);
        io_set(&c, 0, rand_buf((size_t)g_shape_numel(&xsh)), xsh, xl);
        char what[160];
        snprintf(what, sizeof what, "%s #%d rank %d C %lld x %s y %s", ops[op], it, rank,
                 (long long)xs[1], xl ? "nhwc" : "nchw", yl ? "nhwc" : "nchw");
        int r = compare_impls(&c, what, 1e-5, 1e-5);
        if (r == 1) compared++;
        else if (r == 0) refused++;
        io_free(&c);
    }
    printf("pools: %d compared, %d refused by the reference\n", compared, refused);
    CHECK(compared > iters / 2, "too few pool configurations compared");
}

/* MaxPool over an int8 model's uint8 / int8 tensors: oneDNN's primitive or,
 * between channels-last tensors, dn_maxpool.c's byte loop, against the
 * reference, byte for byte (a maximum is exact). Channels around the loop's
 * 64-wide registers and its masked tail; windows past the padding. */
static void test_pool8(void)
{
    int compared = 0, fast = 0;
    for (int it = 0; it < iters; it++) {
        g_graph *g = g_graph_new();
        g->opset = 17;
        int dt = rnd() % 2 ? G_U8 : G_I8;
        int64_t xs[4] = { rndi(1, 2), rndi(0, 2) ? rndi(1, 150) : 64 * rndi(1, 3) }, k[2], st[2], pads[4];
        for (int i = 0; i < 2; i++) {
            k[i] = rndi(1, 4);
            xs[2 + i] = rndi((int)k[i], 16);
            st[i] = rndi(1, 3);
            pads[i] = rndi(0, (int)(k[i] - 1 < 2 ? k[i] - 1 : 2));
            pads[2 + i] = rndi(0, (int)(k[i] - 1 < 2 ? k[i] - 1 : 2));
        }
        g_shape xsh = shp(4, xs);
        int tx = tadd(g, "x", G_TK_INPUT, dt, xsh, NULL);
        int ty = tadd(g, "y", G_TK_ACT, dt, shp(0, NULL), NULL);
        int ins[1] = { tx }, outs[1] = { ty };
        int ni = g_node_add(g, "MaxPool", "", "pool", 1, ins, 1, outs);
        g_node *n = &g->nodes[ni];
        n->opset = 19;
        attr_ints(n, "kernel_shape", k, 2);
        attr_ints(n, "strides", st, 2);
        attr_ints(n, "pads", pads, 4);
        if (rnd() % 3 == 0) attr_int(n, "ceil_mode", 1);
        int xl = rnd() % 4 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN, yl = rnd() % 4 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
        if (yl) attr_int(n, "_oa_layout", G_LAYOUT_NHWC);
        size_t cnt = (size_t)g_shape_numel(&xsh);
        uint8_t *x = malloc(cnt + 1);
        for (size_t i = 0; i < cnt; i++) x[i] = (uint8_t)rnd();
        k_tensor in[1] = { { .dtype = dt, .shape = xsh, .layout = xl, .data = x, .nbytes = cnt } };
        k_tensor yr[1], yd[1];
        const k_op *ref = find_impl(n, "ref"), *dn = find_impl(n, "dnnl");
        int rr = ref ? drive(ref, g, ni, in, yr, 0) : -1;
        int rd = dn ? drive(dn, g, ni, in, yd, 1) : -1;
        char what[128];
        snprintf(what, sizeof what, "MaxPool %s #%d C %lld x %s y %s k %lldx%lld s %lldx%lld", dt == G_U8 ? "u8" : "i8",
                 it, (long long)xs[1], xl ? "nhwc" : "nchw", yl ? "nhwc" : "nchw", (long long)k[0],
                 (long long)k[1], (long long)st[0], (long long)st[1]);
        CHECK(rr == 0 && rd == 0, "%s: ref %d dnnl %d", what, rr, rd);
        if (rr == 0 && rd == 0) {
            CHECK(g_shape_eq(&yr[0].shape, &yd[0].shape), "%s: output shapes differ", what);
            size_t ny = (size_t)g_shape_numel(&yr[0].shape);
            uint8_t *a = malloc(ny + 1), *b = malloc(ny + 1);
            nn_reorder_bytes(yd[0].data, yd[0].layout, a, G_LAYOUT_PLAIN, &yd[0].shape, 1);
            nn_reorder_bytes(yr[0].data, yr[0].layout, b, G_LAYOUT_PLAIN, &yr[0].shape, 1);
            size_t at = 0;
            while (at < ny && a[at] == b[at]) at++;
            CHECK(at == ny, "%s: byte %zu: dnnl %d ref %d", what, at, at < ny ? a[at] : 0, at < ny ? b[at] : 0);
            compared++;
            fast += xl == G_LAYOUT_NHWC && yl == G_LAYOUT_NHWC;   /* dn_pool.c's rule on an AVX-512 CPU */
            free(a);
            free(b);
        }
        if (rr == 0) free(yr[0].data);
        if (rd == 0) free(yd[0].data);
        free(x);
        g_graph_free(g);
    }
    printf("8-bit pools: %d compared, %d channels-last both sides (the byte loop)\n", compared, fast);
    CHECK(compared == iters, "8-bit pools: %d of %d compared", compared, iters);
}

/* A MatMul / Gemm node "mm" on c->g with random A, B and C of the given
 * shapes (B and C constants or graph inputs), a random fused post-op list
 * (*has_add: it holds an add; the addend input is set by the caller). */
static g_node *mm_node(cfg_io *c, int gemm, g_shape as, g_shape bs, g_shape cs, int b_const, int has_c,
                       int c_const, int ta, int tb, float alpha, float beta, int *has_add)
{
    float *a = rand_buf((size_t)g_shape_numel(&as)), *b = rand_buf((size_t)g_shape_numel(&bs));
    float *cc = rand_buf((size_t)(g_shape_numel(&cs) > 0 ? g_shape_numel(&cs) : 1));
    int t_a = tadd(c->g, "a", G_TK_INPUT, G_F32, as, NULL);
    int t_b = tadd(c->g, "b", b_const ? G_TK_CONST : G_TK_INPUT, G_F32, bs, b);
    int t_c = has_c ? tadd(c->g, "c", c_const ? G_TK_CONST : G_TK_INPUT, G_F32, cs, cc) : -1;
    int t_d = tadd(c->g, "d", G_TK_INPUT, G_F32, shp(0, NULL), NULL);
    int t_y = tadd(c->g, "y", G_TK_ACT, G_F32, shp(0, NULL), NULL);
    int ins[4] = { t_a, t_b, t_c, t_d }, outs[1] = { t_y };
    c->node = g_node_add(c->g, gemm ? "Gemm" : "MatMul", "", "mm", 4, ins, 1, outs);
    g_node *n = &c->g->nodes[c->node];
    n->opset = 13;
    if (gemm) {
        if (ta) attr_int(n, "transA", 1);
        if (tb) attr_int(n, "transB", 1);
        if (alpha != 1.f) attr_float(n, "alpha", alpha);
        if (beta != 1.f) attr_float(n, "beta", beta);
    }
    add_post_ops(n, 1, has_add);
    if (!*has_add) n->in[3] = -1;
    io_set(c, 0, a, as, G_LAYOUT_PLAIN);
    io_set(c, 1, b, bs, G_LAYOUT_PLAIN);
    if (b_const) io_borrow(c, 1, t_b);
    if (has_c) { io_set(c, 2, cc, cs, G_LAYOUT_PLAIN); if (c_const) io_borrow(c, 2, t_c); }
    else { c->logical[2] = cc; c->in[2].dtype = G_UNDEF; }
    return n;
}

static void test_matmul(int gemm)
{
    int compared = 0, declined = 0;
    for (int it = 0; it < iters; it++) {
        cfg_io c;
        memset(&c, 0, sizeof c);
        c.g = g_graph_new();
        c.g->opset = 17;
        int64_t M = rndi(1, 33), K = rndi(1, 40), N = rndi(1, 33);
        g_shape as, bs, cs = shp(0, NULL);
        int ta = 0, tb = 0, has_c = 0, c_const = 0, b_const = rnd() % 3 != 0;
        float alpha = 1.f, beta = 1.f;
        if (gemm) {
            ta = rnd() % 2; tb = rnd() % 2;
            int64_t ad[2] = { ta ? K : M, ta ? M : K }, bd[2] = { tb ? N : K, tb ? K : N };
            as = shp(2, ad); bs = shp(2, bd);
            if (rnd() % 2) alpha = 0.5f;
            if (rnd() % 2) beta = rnd() % 2 ? 2.f : 0.f;
            has_c = rnd() % 4 != 0;
            int ck = rndi(0, 4);
            int64_t c2[2] = { M, N }, c1[1] = { N }, cm[2] = { M, 1 };
            cs = ck == 0 ? shp(2, c2) : ck == 1 ? shp(1, c1) : ck == 2 ? shp(2, cm) : ck == 3 ? shp(0, NULL) : shp(2, c2);
            c_const = rnd() % 3 != 0;
        } else {
            int ar = rndi(1, 4), br = rndi(1, 4);
            int64_t ad[4], bd[4];
            int64_t batch[2] = { rndi(1, 3), rndi(1, 3) };
            for (int i = 0; i < ar - 2; i++) ad[i] = rnd() % 4 == 0 ? 1 : batch[i + (4 - ar) - 2 < 0 ? 0 : i + (4 - ar) - 2];
            for (int i = 0; i < br - 2; i++) bd[i] = rnd() % 4 == 0 ? 1 : batch[i + (4 - br) - 2 < 0 ? 0 : i + (4 - br) - 2];
            if (ar == 1) ad[0] = K; else { ad[ar - 2] = M; ad[ar - 1] = K; }
            if (br == 1) bd[0] = K; else { bd[br - 2] = K; bd[br - 1] = N; }
            as = shp(ar, ad); bs = shp(br, bd);
            has_c = rnd() % 3 == 0;    /* fused bias */
            int64_t c1[1] = { N };
            cs = shp(1, c1);
            c_const = 1;
        }
        int has_add;
        g_node *n = mm_node(&c, gemm, as, bs, cs, b_const, has_c, c_const, ta, tb, alpha, beta, &has_add);
        if (has_add) {
            g_shape ys;
            int64_t m_, k_, n_;
            int r = gemm ? nn_gemm_shape(n, ta, tb, &as, &bs, NULL, &ys, &m_, &k_, &n_)
                         : nn_matmul_shape(n, &as, &bs, &ys, &m_, &k_, &n_);
            if (r) { io_free(&c); continue; }
            io_set(&c, 3, rand_buf((size_t)g_shape_numel(&ys)), ys, G_LAYOUT_PLAIN);
        }
        char what[200], sa[64], sb[64];
        snprintf(what, sizeof what, "%s #%d A %s B %s tA %d tB %d alpha %g beta %g C %d%s%s",
                 gemm ? "Gemm" : "MatMul", it, g_shape_str(&as, sa, sizeof sa),
                 g_shape_str(&bs, sb, sizeof sb), ta, tb, alpha, beta, has_c,
                 c_const ? "c" : "", b_const ? " Bconst" : "");
        int r = compare_impls(&c, what, 2e-4, 1e-3);
        if (r == 1) compared++;
        if (r == 2) declined++;
        io_free(&c);
    }
    printf("%s: %d compared, %d declined by dnnl\n", gemm ? "Gemm" : "MatMul", compared, declined);
    CHECK(compared > iters / 2, "too few %s configurations compared", gemm ? "Gemm" : "MatMul");
}

/* Plans node ni with op (init, infer, plan) and returns its packed bytes,
 * or -1 when it declines or fails. */
static long long planned_bytes(const k_op *op, g_graph *g, int ni, const k_tensor *in)
{
    g_node *n = &g->nodes[ni];
    void *st = NULL;
    k_tensor out[2];
    memset(out, 0, sizeof out);
    out[0].shape.rank = -1;
    size_t pb = 0, sb = 0;
    int r = op->init(g, n, &st);
    if (!r && op->infer) r = op->infer(n, st, in, out);
    if (!r) r = op->plan(n, st, in, out, &pb, &sb);
    if (op->fini) op->fini(st);
    return r ? -1 : (long long)pb;
}

/* One-row products with a constant B (dn_gemv.c behind the dnnl MatMul /
 * Gemm kernel): fp32 against the reference over panel widths (N around
 * multiples of 16 and 64), odd and even K (short, and long enough for the
 * panels read as several runs of rows), transposes, every form of C and
 * fused post-ops, the packed size proving the streamed form was chosen; a
 * state packed for one row then run with several (the rows run one at a
 * time); bf16 against oneDNN's own bf16 product (OPENACL_NO_GEMV=1). */
static void test_gemv(void)
{
    const k_op *ref = NULL, *dn = NULL;
    int compared = 0, multi = 0, bf = 0;
    int use = dn_gemv_supported(0);
    if (!use) { printf("gemv: no AVX-512 here (or oneDNN capped below it), skipped\n"); return; }
    for (int it = 0; it < iters; it++) {
        cfg_io c;
        memset(&c, 0, sizeof c);
        c.g = g_graph_new();
        c.g->opset = 17;
        int gemm = rnd() % 2, ta = gemm && rnd() % 2, tb = gemm && rnd() % 2;
        int64_t K = rnd() % 3 ? rndi(1, 80) : rndi(80, 1100);   /* >= 256: several streams */
        int64_t N = rnd() % 2 ? 16 * rndi(1, 9) + rndi(-1, 1) : rndi(1, 300);
        if (N < 1) N = 1;
        g_shape as, bs, cs = shp(0, NULL);
        int64_t ad[3] = { 1, 1, K }, bd[2] = { tb ? N : K, tb ? K : N };
        int ar = gemm ? 2 : rndi(1, 3);
        int64_t at2[2] = { K, 1 };
        as = gemm && ta ? shp(2, at2) : shp(ar, ad + 3 - ar);
        bs = shp(2, bd);
        int ck = gemm ? rndi(0, 3) : rndi(0, 1);   /* none, [N], [1,N], scalar */
        int64_t c1[1] = { N }, c2[2] = { 1, N };
        if (ck == 1) cs = shp(1, c1);
        if (ck == 2) cs = shp(2, c2);
        float alpha = gemm && rnd() % 2 ? 0.5f : 1.f, beta = gemm && rnd() % 2 ? 2.f : 1.f;
        int has_add;
        g_node *n = mm_node(&c, gemm, as, bs, cs, 1, ck != 0, 1, ta, tb, alpha, beta, &has_add);
        g_shape ys;
        int64_t m_, k_, n_;
        if (gemm ? nn_gemm_shape(n, ta, tb, &as, &bs, NULL, &ys, &m_, &k_, &n_)
                 : nn_matmul_shape(n, &as, &bs, &ys, &m_, &k_, &n_)) { io_free(&c); continue; }
        if (has_add) io_set(&c, 3, rand_buf((size_t)g_shape_numel(&ys)), ys, G_LAYOUT_PLAIN);
        char what[200], sa[64], sb[64];
        snprintf(what, sizeof what, "gemv %s #%d A %s B %s tA %d tB %d alpha %g beta %g C kind %d",
                 gemm ? "Gemm" : "MatMul", it, g_shape_str(&as, sa, sizeof sa),
                 g_shape_str(&bs, sb, sizeof sb), ta, tb, alpha, beta, ck);
        ref = find_impl(n, "ref");
        dn = accepting_impl(c.g, c.node, "dnnl");
        CHECK(ref && dn, "%s: kernels missing", what);
        if (!ref || !dn) { io_free(&c); continue; }
        long long pb = planned_bytes(dn, c.g, c.node, c.in);
        long long want = (long long)dn_align(dn_gemv_packed_bytes(K, N, 0)) +
                         (ck ? (long long)g_shape_numel(&cs) * 4 : 0);
        CHECK(pb == want, "%s: packed %lld bytes, the streamed form packs %lld", what, pb, want);
        if (compare_impls(&c, what, 2e-4, 1e-3) == 1) compared++;

        /* the same state, later run with 3 rows (transposed A: gathered) */
        if (gemm && !has_add && it % 3 == 0) {
            void *st = NULL;
            k_tensor y1[2], y3[2], yr[2];
            memset(y1, 0, sizeof y1);
            y1[0].shape.rank = -1;
            size_t p1 = 0, s1 = 0;
            int r = dn->init(c.g, n, &st);
            if (!r) r = dn->infer(n, st, c.in, y1);
            if (!r) r = dn->plan(n, st, c.in, y1, &p1, &s1);
            void *pk = galloc(p1), *sc = s1 ? galloc(s1) : NULL;
            if (!r) r = dn->pack(n, st, c.in, y1, pk);
            y1[0].nbytes = k_nbytes(&y1[0]);
            y1[0].data = galloc(y1[0].nbytes);
            k_ctx ctx = { .threads = omp_get_max_threads(), .scratch = sc, .scratch_bytes = s1 };
            if (!r) r = dn->run(n, st, c.in, y1, &ctx);
            k_tensor in3[4];
            memcpy(in3, c.in, sizeof in3);
            int64_t a3d[2] = { ta ? K : 3, ta ? 3 : K };
            in3[0].shape = shp(2, a3d);
            in3[0].data = rand_buf((size_t)(3 * K));
            in3[0].nbytes = (size_t)(3 * K) * 4;
            memset(y3, 0, sizeof y3);
            y3[0].shape.rank = -1;
            if (!r) r = dn->infer(n, st, in3, y3);
            y3[0].nbytes = k_nbytes(&y3[0]);
            y3[0].data = galloc(y3[0].nbytes);
            if (!r) r = dn->run(n, st, in3, y3, &ctx);
            CHECK(r == 0, "%s: 3 rows on a one-row state: %d", what, r);
            int rr = drive(ref, c.g, c.node, in3, yr, 0);
            CHECK(rr == 0, "%s: reference on 3 rows: %d", what, rr);
            if (!r && !rr) {
                size_t at = 0;
                double e = cmp_f32(y3[0].data, yr[0].data, (size_t)(3 * N), 2e-4, 1e-3, &at);
                CHECK(e <= 1.0, "%s: 3 rows on a one-row state: %.3g x tolerance at %zu", what, e, at);
                CHECK(guard_ok(y3[0].data, y3[0].nbytes), "%s: 3 rows overran the output", what);
                multi++;
            }
            if (!rr) free(yr[0].data);
            dn->fini(st);
            free(in3[0].data);
            free(y1[0].data);
            free(y3[0].data);
            free(pk);
            free(sc);
        }
        io_free(&c);
    }
    /* bf16: large enough to compute in bf16 (DN_BF16_MIN_FLOPS) */
    for (int it = 0; dn_has_bf16() && dn_gemv_supported(1) && it < 6; it++) {
        cfg_io c;
        memset(&c, 0, sizeof c);
        c.g = g_graph_new();
        c.g->opset = 17;
        int64_t K = rndi(1100, 1300) | (it & 1), N = rndi(1000, 1100);
        int64_t ad[2] = { 1, K }, bd[2] = { K, N }, cd[1] = { N };
        float *a = rand_buf((size_t)K), *b = rand_buf((size_t)(K * N)), *cc = rand_buf((size_t)N);
        int t_a = tadd(c.g, "a", G_TK_INPUT, G_F32, shp(2, ad), NULL);
        int t_b = tadd(c.g, "b", G_TK_CONST, G_F32, shp(2, bd), b);
        int t_c = tadd(c.g, "c", G_TK_CONST, G_F32, shp(1, cd), cc);
        int t_y = tadd(c.g, "y", G_TK_ACT, G_F32, shp(0, NULL), NULL);
        int ins[3] = { t_a, t_b, t_c }, outs[1] = { t_y };
        c.node = g_node_add(c.g, "Gemm", "", "fc", 3, ins, 1, outs);
        g_node *n = &c.g->nodes[c.node];
        n->opset = 13;
        attr_int(n, G_ATTR_BF16, 1);
        io_set(&c, 0, a, shp(2, ad), G_LAYOUT_PLAIN);
        io_set(&c, 1, b, shp(2, bd), G_LAYOUT_PLAIN);
        io_borrow(&c, 1, t_b);
        io_set(&c, 2, cc, shp(1, cd), G_LAYOUT_PLAIN);
        io_borrow(&c, 2, t_c);
        dn = accepting_impl(c.g, c.node, "dnnl");
        ref = find_impl(n, "ref");
        long long pb = dn ? planned_bytes(dn, c.g, c.node, c.in) : -1;
        long long want = (long long)dn_align(dn_gemv_packed_bytes(K, N, 1)) + N * 4;
        CHECK(pb == want, "gemv bf16 K %lld N %lld: packed %lld bytes, the streamed bf16 form packs %lld",
              (long long)K, (long long)N, pb, want);
        k_tensor yg[2], yo[2], yr[2];
        int r1 = dn ? drive(dn, c.g, c.node, c.in, yg, 1) : -1;
        /* the streamed form is an implementation of its own: OPENACL_NO_GEMV
         * makes it decline, and oneDNN's product takes the node */
        setenv("OPENACL_NO_GEMV", "1", 1);
        const k_op *alt = accepting_impl(c.g, c.node, "dnnl");
        int r2 = alt && alt != dn ? drive(alt, c.g, c.node, c.in, yo, 1) : -1;
        unsetenv("OPENACL_NO_GEMV");
        int r3 = drive(ref, c.g, c.node, c.in, yr, 0);
        CHECK(!r1 && !r2 && !r3, "gemv bf16: runs %d %d %d", r1, r2, r3);
        if (!r1 && !r2 && !r3) {
            size_t at = 0;
            double e = cmp_f32(yg[0].data, yo[0].data, (size_t)N, 1e-3, 1e-4, &at);
            CHECK(e <= 1.0, "gemv bf16 K %lld N %lld: %.3g x tolerance against oneDNN bf16 at %zu",
                  (long long)K, (long long)N, e, at);
            e = cmp_f32(yg[0].data, yr[0].data, (size_t)N, 0.25, 0.0, &at);
            CHECK(e <= 1.0, "gemv bf16 K %lld N %lld: %.3g x bf16 tolerance against fp32 at %zu",
                  (long long)K, (long long)N, e, at);
            bf++;
        }
        if (!r1) free(yg[0].data);
        if (!r2) free(yo[0].data);
        if (!r3) free(yr[0].data);
        io_free(&c);
    }
    printf("gemv: %d compared, %d run with 3 rows after one, %d bf16\n", compared, multi, bf);
    CHECK(compared > iters / 2, "too few one-row products compared");
}

static float bf16_widen(uint16_t v)
{
    uint32_t u = (uint32_t)v << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Convolutions with few input channels (dn_stem.c behind the dnnl Conv
 * kernel): against the reference over channel counts around multiples of
 * 16 (the masked last group) and up to 5 groups of 16 (tiles of 1-4
 * groups), kernels 1-7, strides 1-3, asymmetric pads, planes wide enough
 * for whole tiles, both layouts in and out, bias, post-op chains (those
 * without a vector form stay with oneDNN: the packed size tells which
 * path ran), and bf16 outputs (G_ATTR_BF16_OUT) at bf16 tolerance. Every
 * fourth case is a 3-wide stride-2 row with at most 32 channels on a wide
 * plane (the shared-tap tiles), whose float32 output must also be the bits
 * of the per-tap loop (OPENACL_STEM_SHARED_TAPS=0). */
static void test_stem(void)
{
    int compared = 0, direct = 0, bf = 0, shared = 0;
    if (!dn_stem_supported()) { printf("stem: no AVX-512 here (or oneDNN capped below it), skipped\n"); return; }
    for (int it = 0; it < iters; it++) {
        cfg_io c;
        memset(&c, 0, sizeof c);
        c.g = g_graph_new();
        c.g->opset = 17;
        int64_t N = rndi(1, 2), C = rndi(1, DN_STEM_MAX_C);
        int mk = rndi(0, 3);
        int64_t M = mk == 0 ? rndi(1, 20) : mk == 1 ? 16 * rndi(1, 5) + rndi(-1, 1) : mk == 2 ? 32 : 64;
        int64_t k[2], st[2], pads[4], xs[4] = { N, C, 0, 0 };
        for (int i = 0; i < 2; i++) {
            k[i] = rndi(0, 3) == 0 ? 7 : rndi(1, 5);
            st[i] = rndi(1, 3);
            pads[i] = rndi(0, (int)(k[i] - 1 < 3 ? k[i] - 1 : 3));
            pads[2 + i] = rndi(0, (int)(k[i] - 1 < 3 ? k[i] - 1 : 3));
            xs[2 + i] = rndi((int)k[i], rndi(0, 3) == 0 ? 120 : 30);
        }
        int s2k3 = it % 4 == 0;
        if (s2k3) {
            static const int64_t ms[5] = { 16, 24, 32, 13, 29 };
            M = ms[rndi(0, 4)];
            k[1] = 3;
            st[1] = 2;
            pads[1] = rndi(0, 2);
            pads[3] = rndi(0, 2);
            xs[3] = rndi(23, 121);
        }
        int64_t ws[4] = { M, C, k[0], k[1] }, bd[1] = { M };
        g_shape xsh = shp(4, xs), wsh = shp(4, ws);
        float *w = rand_buf((size_t)g_shape_numel(&wsh)), *b = rand_buf((size_t)M);
        int has_bias = rnd() % 2, bf16_out = dn_has_bf16() && rndi(0, 3) == 0;
        int tx = tadd(c.g, "x", G_TK_INPUT, G_F32, xsh, NULL);
        int tw = tadd(c.g, "w", G_TK_CONST, G_F32, wsh, w);
        int tb = has_bias ? tadd(c.g, "b", G_TK_CONST, G_F32, shp(1, bd), b) : -1;
        int ty = tadd(c.g, "y", G_TK_ACT, G_F32, shp(0, NULL), NULL);
        int ins[3] = { tx, tw, tb }, outs[1] = { ty };
        c.node = g_node_add(c.g, "Conv", "", "stem", has_bias ? 3 : 2, ins, 1, outs);
        g_node *n = &c.g->nodes[c.node];
        n->opset = 17;
        attr_ints(n, "pads", pads, 4);
        attr_ints(n, "strides", st, 2);
        if (rnd() % 2) attr_ints(n, "kernel_shape", k, 2);
        int has_add;
        add_post_ops(n, 0, &has_add);
        nn_post po;
        nn_post_parse(n, &po);
        int xl = rnd() % 2 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN, yl = rnd() % 2 ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
        if (yl == G_LAYOUT_NHWC) attr_int(n, "_oa_layout", G_LAYOUT_NHWC);
        int use = dn_stem_post_ok(&po);
        if (bf16_out && use) attr_int(n, G_ATTR_BF16_OUT, 1);
        io_set(&c, 0, rand_buf((size_t)g_shape_numel(&xsh)), xsh, xl);
        io_set(&c, 1, w, wsh, G_LAYOUT_PLAIN);
        io_borrow(&c, 1, tw);
        if (has_bias) { io_set(&c, 2, b, shp(1, bd), G_LAYOUT_PLAIN); io_borrow(&c, 2, tb); }
        else { c.logical[2] = b; c.in[2].dtype = G_UNDEF; }
        char what[256], pd[128];
        po_desc(n, pd, sizeof pd);
        snprintf(what, sizeof what, "stem #%d N %lld C %lld M %lld x %s [%lld,%lld] y %s%s k %lld,%lld s %lld,%lld "
                 "pads %lld,%lld,%lld,%lld bias %d", it, (long long)N, (long long)C, (long long)M,
                 xl ? "nhwc" : "nchw", (long long)xs[2], (long long)xs[3], yl ? "nhwc" : "nchw",
                 bf16_out && use ? " bf16" : "", (long long)k[0], (long long)k[1], (long long)st[0],
                 (long long)st[1], (long long)pads[0], (long long)pads[1], (long long)pads[2], (long long)pads[3],
                 has_bias);
        const k_op *dn = accepting_impl(c.g, c.node, "dnnl"), *ref = find_impl(n, "ref");
        CHECK(dn && ref, "%s: kernels missing", what);
        if (!dn || !ref) { io_free(&c); continue; }
        long long pbytes = planned_bytes(dn, c.g, c.node, c.in);
        long long want = (long long)dn_align(dn_stem_packed_bytes(C, M, k[0], k[1])) +
                         (has_bias ? dn_stem_mpad(M) * 4 : 0);
        CHECK(!use || pbytes == want, "%s: packed %lld bytes, the direct loop packs %lld", what, pbytes, want);
        if (use) {
            /* the direct loop is an implementation of its own: OPENACL_NO_STEM
             * makes it decline, and the oneDNN Conv takes the layer */
            setenv("OPENACL_NO_STEM", "1", 1);
            const k_op *alt = accepting_impl(c.g, c.node, "dnnl");
            unsetenv("OPENACL_NO_STEM");
            CHECK(alt && alt != dn && alt->priority < dn->priority, "%s: OPENACL_NO_STEM did not hand the layer "
                  "to the oneDNN Conv", what);
        }
        direct += use;
        if (s2k3 && use && !bf16_out) {
            k_tensor ys[2], yt[2];
            int r1 = drive(dn, c.g, c.node, c.in, ys, 0);
            setenv("OPENACL_STEM_SHARED_TAPS", "0", 1);
            int r2 = drive(dn, c.g, c.node, c.in, yt, 0);
            unsetenv("OPENACL_STEM_SHARED_TAPS");
            CHECK(r1 == 0 && r2 == 0, "%s: runs %d %d", what, r1, r2);
            if (!r1 && !r2) {
                CHECK(ys[0].nbytes == yt[0].nbytes && !memcmp(ys[0].data, yt[0].data, ys[0].nbytes),
                      "%s: shared-tap tiles differ from the per-tap loop", what);
                shared++;
            }
            if (!r1) free(ys[0].data);
            if (!r2) free(yt[0].data);
        }
        if (!(bf16_out && use)) {
            if (compare_impls(&c, what, 2e-4, 1e-3) == 1) compared++;
            io_free(&c);
            continue;
        }
        k_tensor yd[2], yr[2];
        int rd = drive(dn, c.g, c.node, c.in, yd, 1), rr = drive(ref, c.g, c.node, c.in, yr, 0);
        CHECK(rd == 0 && rr == 0, "%s: runs %d %d", what, rd, rr);
        if (!rd && !rr) {
            CHECK(yd[0].dtype == G_BF16, "%s: output not bf16", what);
            size_t cnt = (size_t)g_shape_numel(&yd[0].shape), at = 0;
            float *wide = malloc(cnt * sizeof(float) + 1);
            for (size_t i = 0; i < cnt; i++) wide[i] = bf16_widen(((const uint16_t *)yd[0].data)[i]);
            float *a = from_layout(wide, &yd[0].shape, yd[0].layout);
            float *e = from_layout(yr[0].data, &yr[0].shape, yr[0].layout);
            double err = cmp_f32(a, e, cnt, 1e-3, 8e-3, &at);
            CHECK(err <= 1.0, "%s%s: %.3g x bf16 tolerance at %zu: %g against %g", what, pd, err, at, a[at], e[at]);
            free(wide); free(a); free(e);
            bf++;
        }
        if (!rd) free(yd[0].data);
        if (!rr) free(yr[0].data);
        io_free(&c);
    }
    printf("stem: %d compared in float32, %d bf16; %d took the direct loop, %d of them also against the "
           "per-tap loop bit for bit\n", compared, bf, direct, shared);
    CHECK(shared > iters / 20, "too few shared-tap convolutions compared");
    CHECK(compared + bf > iters / 2, "too few few-channel convolutions compared");
    CHECK(direct > iters / 2, "too few few-channel convolutions took the direct loop");
}

static void test_lrn_reorder(void)
{
    int compared = 0;
    for (int it = 0; it < iters / 3 + 1; it++) {
        for (int kind = 0; kind < 2; kind++) {
            cfg_io c;
            memset(&c, 0, sizeof c);
            c.g = g_graph_new();
            c.g->opset = 17;
            int64_t xs[4] = { rndi(1, 2), rndi(1, 24), rndi(1, 9), rndi(1, 9) };
            g_shape xsh = shp(4, xs);
            int tx = tadd(c.g, "x", G_TK_INPUT, G_F32, xsh, NULL);
            int ty = tadd(c.g, "y", G_TK_ACT, G_F32, shp(0, NULL), NULL);
            int ins[1] = { tx }, outs[1] = { ty };
            c.node = g_node_add(c.g, kind ? "Reorder" : "LRN", kind ? "openacl" : "", "n", 1, ins, 1, outs);
            g_node *n = &c.g->nodes[c.node];
            int xl = rnd() % 2;
            if (!kind) {
                attr_int(n, "size", 2 * rndi(0, 3) + 1);
                attr_float(n, "alpha", 0.002f);
                attr_float(n, "beta", 0.6f);
                attr_float(n, "bias", 1.5f);
            } else {
                attr_int(n, "_oa_layout", !xl);
            }
            io_set(&c, 0, rand_buf((size_t)g_shape_numel(&xsh)), xsh, xl);
            char what[96];
            snprintf(what, sizeof what, "%s #%d x %s", kind ? "Reorder" : "LRN", it, xl ? "nhwc" : "nchw");
            if (compare_impls(&c, what, 1e-5, 1e-4) == 1) compared++;
            io_free(&c);
        }
    }
    printf("LRN/Reorder: %d compared\n", compared);
}

int main(int argc, char **argv)
{
    if (argc > 1) iters = atoi(argv[1]);
    if (argc > 2) knn_rng = strtoull(argv[2], NULL, 0) | 1;
    if (k_force_ref()) { /* this test compares the fast kernels with ref: none to compare */
        printf("skipped: OPENACL_FORCE_REF hides the fast kernels this test compares\n");
        return 77;
    }
    test_conv(0);
    test_conv(1);
    test_conv_dw();
    test_pool();
    test_pool8();
    test_matmul(0);
    test_matmul(1);
    test_gemv();
    test_stem();
    test_lrn_reorder();
    if (oa_failures) { printf("%d failures\n", oa_failures); return 1; }
    printf("all passed\n");
    return 0;
}
