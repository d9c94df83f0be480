/* Fusion and layout passes end to end on small conv nets (make_nets.py):
 * each model runs (a) unfused on the reference kernels, (b) fused on the
 * reference kernels, (c) fused, channels-last, on the oneDNN kernels, and
 * the outputs must agree. The optimised graph is also inspected: the
 * absorbed ops are gone and consecutive convolutions exchange NHWC
 * tensors without reorders; squeeze-excite blocks became one node each;
 * ConvNeXt blocks keep no Mul or Add and their transposes copy nothing.
 * usage: knn_graph <dir with resnet_tiny.onnx, mbnet_tiny.onnx, se_tiny.onnx, shuffle_tiny.onnx, pool_tiny.onnx,
 *                   dense_tiny.onnx, cnx_tiny.onnx> */
#include "engine/eng_priv.h"
#include "graph/passes.h"
#include "onnx/onnx_import.h"
#include "knn_util.h"

int dn_has_bf16(void);   /* kernels/dnnl/dn_common.c */

static void *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    *len = (size_t)n;
    return b;
}

#define MAXO 4

/* From kernels/dnnl/dn_pool.c: whether a bound pool fell back to the
 * reference loops (1), runs oneDNN (0), or is no built oneDNN pool (-1). */
int dn_pool_fallback(const g_node *n);

/* Loads and runs the model once on a fixed random input; outputs (plain
 * float32) are returned in outs[]. */
static int g_precision;   /* enum eng_precision for run_model */

static int run_model(const void *buf, size_t len, int threads, float **outs, size_t *cnt, int *nout)
{
    eng_model *m = NULL;
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    o.precision = g_precision;
    int rc = eng_load(buf, len, &o, &m);
    if (rc) return rc;
    const eng_io *xi = eng_input(m, 0);
    size_t xn = xi->nbytes / sizeof(float);
    uint64_t save = knn_rng;
    knn_rng = 12345;
    float *x = rand_buf(xn);
    knn_rng = save;
    k_tensor in = { .dtype = G_F32, .shape = xi->shape, .data = x, .nbytes = xi->nbytes };
    k_tensor out[MAXO];
    *nout = eng_num_outputs(m);
    for (int i = 0; i < *nout && i < MAXO; i++) {
        const eng_io *oi = eng_output(m, i);
        memset(&out[i], 0, sizeof out[i]);
        out[i].dtype = G_F32;
        out[i].nbytes = oi->nbytes;
        out[i].data = galloc(oi->nbytes);
        cnt[i] = oi->nbytes / sizeof(float);
    }
    rc = eng_run(m, NULL, &in, 1, out, *nout, NULL, NULL);
    /* a second run must give the same answer */
    if (!rc) {
        for (int i = 0; i < *nout; i++) {
            outs[i] = malloc(out[i].nbytes + 1);
            memcpy(outs[i], out[i].data, out[i].nbytes);
        }
        rc = eng_run(m, NULL, &in, 1, out, *nout, NULL, NULL);
        for (int i = 0; i < *nout && !rc; i++) {
            CHECK(!memcmp(outs[i], out[i].data, out[i].nbytes), "output %d differs on a second run", i);
            CHECK(guard_ok(out[i].data, out[i].nbytes), "output %d overrun", i);
        }
    }
    for (int i = 0; i < *nout; i++) free(out[i].data);
    free(x);
    eng_free(m);
    return rc;
}

static void inspect(const void *buf, size_t len, const char *model)
{
    g_graph *g = NULL;
    int rc = onnx_import(buf, len, NULL, &g);
    if (!rc) rc = graph_optimize(g);
    CHECK(!rc, "%s: import/optimise failed: %d", model, rc);
    if (rc) { g_graph_free(g); return; }
    int conv = 0, reorder = 0, leftover = 0, nhwc_links = 0, plain_links = 0, se = 0, shuf = 0, moves = 0;
    int bn_relu = 0, pads = 0, dense = !strcmp(model, "dense_tiny.onnx");
    int cnx = !strcmp(model, "cnx_tiny.onnx"), perms = 0, free_perms = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        if (!strcmp(n->op_type, "Conv")) conv++;
        if (!strcmp(n->op_type, "Reorder")) reorder++;
        if (!strcmp(n->op_type, "SqueezeExcite")) se++;
        if (!strcmp(n->op_type, "ChannelShuffle")) shuf++;
        if (!strcmp(n->op_type, "Pad")) pads++;
        /* dense_tiny's BatchNormalization has no convolution to fold into:
         * it takes the Relu after it and the Concat before it (one
         * openacl.ConcatNorm carrying the Relu) */
        if (dense && !strcmp(n->op_type, "ConcatNorm") && g_node_attr(n, "_oa_post_ops")) {
            bn_relu++;
            continue;
        }
        if (dense && !strcmp(n->op_type, "Concat")) leftover++;   /* folded into the ConcatNorm */
        if (!strcmp(n->op_type, "Transpose") || !strcmp(n->op_type, "Slice") || !strcmp(n->op_type, "Reshape"))
            moves++;
        if (!strcmp(n->op_type, "Transpose")) {
            /* free: the output holds the input's bytes (layouts and perm agree) */
            const int64_t *p;
            int pc = g_attr_ints(n, "perm", &p), li = g->t[n->in[0]].layout, lo = g->t[n->out[0]].layout;
            int to_nhwc = pc == 4 && p[0] == 0 && p[1] == 2 && p[2] == 3 && p[3] == 1;
            int to_nchw = pc == 4 && p[0] == 0 && p[1] == 3 && p[2] == 1 && p[3] == 2;
            perms++;
            free_perms += (to_nhwc && li == G_LAYOUT_NHWC && lo == G_LAYOUT_PLAIN) ||
                          (to_nchw && li == G_LAYOUT_PLAIN && lo == G_LAYOUT_NHWC);
        }
        static const char *const gone[] = { "BatchNormalization", "Relu", "Clip", "HardSwish",
                                            "Sigmoid", "LeakyRelu", "HardSigmoid", "Add", "Mul", "Div",
                                            "Erf" };
        for (size_t k = 0; k < sizeof gone / sizeof gone[0]; k++)
            if (!strcmp(n->op_type, gone[k])) {
                leftover++;
                fprintf(stderr, "%s: %s '%s' was not fused\n", model, n->op_type, n->name);
            }
        /* conv -> conv edges */
        if (strcmp(n->op_type, "Conv")) continue;
        int t = n->in[0];
        if (g->t[t].producer >= 0 && !strcmp(g->nodes[g->t[t].producer].op_type, "Conv")) {
            if (g->t[t].layout == G_LAYOUT_NHWC) nhwc_links++;
            else plain_links++;
        }
    }
    printf("%s: %d nodes after optimisation, %d Conv, %d Reorder, conv->conv links %d NHWC / %d plain\n",
           model, g->n_nodes, conv, reorder, nhwc_links, plain_links);
    CHECK(leftover == 0, "%s: %d ops left unfused", model, leftover);
    CHECK(reorder <= 1, "%s: %d reorders", model, reorder);
    CHECK(cnx || (nhwc_links > 0 && plain_links <= 1), "%s: conv links %d NHWC, %d plain", model, nhwc_links,
          plain_links);
    if (cnx) {
        /* 3 blocks: after each depthwise conv, before each residual, and the
         * residual read channels-last; all free but the transpose back whose
         * output is a graph output, the one reading that (plain) output, and
         * the last block's transpose back (its reader, a Concat, leads to no
         * window op) */
        printf("%s: %d Transpose nodes, %d free\n", model, perms, free_perms);
        CHECK(perms == 9 && free_perms == 6, "%s: %d Transpose nodes (want 9), %d free (want 6)", model, perms,
              free_perms);
    }
    for (int i = 0; i < g->n_outputs; i++)
        CHECK(g->t[g->outputs[i]].layout == G_LAYOUT_PLAIN, "%s: output %d not plain", model, i);
    if (!strcmp(model, "se_tiny.onnx")) {
        printf("%s: %d SqueezeExcite nodes\n", model, se);
        CHECK(se == 3, "%s: %d SqueezeExcite nodes, want 3", model, se);
    }
    if (dense) {
        printf("%s: %d ConcatNorm with a fused Relu, %d Pad left\n", model, bn_relu, pads);
        CHECK(bn_relu == 1 && pads == 0, "%s: %d ConcatNorm+Relu (want 1), %d Pad (want 0)", model,
              bn_relu, pads);
    }
    if (!strcmp(model, "shuffle_tiny.onnx")) {
        printf("%s: %d ChannelShuffle nodes, %d Reshape/Transpose/Slice left\n", model, shuf, moves);
        CHECK(shuf == 5 && moves == 0, "%s: %d ChannelShuffle nodes (want 5), %d Reshape/Transpose/Slice",
              model, shuf, moves);
    }
    g_graph_free(g);
}

/* bf16 runs at 2 threads and 1 (env_1t, when given, set to 2 for the
 * latter) against the float32 reference ref: within bf16 error, and not the
 * float32 result fp32 bit for bit. */
static void check_bf16(const void *buf, size_t len, const char *file, int n1, size_t *cnt, const float *ref,
                       const float *fp32, const char *env_1t)
{
    float *b[MAXO] = {0}, *b1[MAXO] = {0};
    int nb = 0, nb1 = 0;
    g_precision = ENG_PRECISION_BF16;
    int rc = run_model(buf, len, 0, b, cnt, &nb);
    CHECK(!rc && nb == n1, "%s: bf16 run failed: %d", file, rc);
    if (env_1t) setenv(env_1t, "2", 1);
    rc = run_model(buf, len, 1, b1, cnt, &nb1);
    if (env_1t) unsetenv(env_1t);
    CHECK(!rc && nb1 == n1, "%s: bf16 run with 1 thread failed: %d", file, rc);
    g_precision = 0;
    if (b[0] && b1[0]) {
        size_t at = 0;
        double e = cmp_f32(b[0], ref, cnt[0], 5e-2, 5e-2, &at);
        double e1 = cmp_f32(b1[0], ref, cnt[0], 5e-2, 5e-2, &at);
        printf("%s bf16: %.3g / %.3g (1 thread%s%s) x bf16 tolerance\n", file, e, e1, env_1t ? ", " : "",
               env_1t ? env_1t : "");
        CHECK(e <= 1 && e1 <= 1, "%s: bf16 differs from float32 beyond bf16 error: %.3g / %.3g x tol", file, e, e1);
        CHECK(!fp32 || memcmp(b[0], fp32, cnt[0] * sizeof(float)), "%s: bf16 run gave the float32 result bit for bit",
              file);
    }
    for (int i = 0; i < MAXO; i++) { free(b[i]); free(b1[i]); }
}

static void check_model(const char *dir, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    void *buf = read_all(path, &len);
    CHECK(buf, "cannot read %s", path);
    if (!buf) return;
    float *ref[MAXO] = {0}, *fref[MAXO] = {0}, *fast[MAXO] = {0}, *fast1[MAXO] = {0};
    size_t cnt[MAXO];
    int n1 = 0, n2 = 0, n3 = 0, n4 = 0;

    setenv("OPENACL_NO_FUSE", "1", 1);
    setenv("OPENACL_NO_LAYOUT", "1", 1);
    k_set_force_ref(1);
    int rc = run_model(buf, len, 0, ref, cnt, &n1);
    CHECK(!rc, "%s: unfused reference run failed: %d", file, rc);
    unsetenv("OPENACL_NO_FUSE");
    unsetenv("OPENACL_NO_LAYOUT");
    rc = run_model(buf, len, 0, fref, cnt, &n2);
    CHECK(!rc, "%s: fused reference run failed: %d", file, rc);
    k_set_force_ref(0);
    rc = run_model(buf, len, 0, fast, cnt, &n3);
    CHECK(!rc, "%s: oneDNN run failed: %d", file, rc);
    rc = run_model(buf, len, 1, fast1, cnt, &n4);
    CHECK(!rc, "%s: oneDNN run with 1 thread failed: %d", file, rc);
    if (n1 == n2 && n2 == n3 && n3 == n4 && ref[0] && fref[0] && fast[0] && fast1[0]) {
        for (int i = 0; i < n1; i++) {
            size_t at = 0;
            double e1 = cmp_f32(fref[i], ref[i], cnt[i], 1e-4, 1e-3, &at);
            CHECK(e1 <= 1, "%s output %d: fused reference differs from unfused: %.3g x tol at %zu "
                  "(%g vs %g)", file, i, e1, at, fref[i][at], ref[i][at]);
            double e2 = cmp_f32(fast[i], ref[i], cnt[i], 1e-4, 1e-3, &at);
            CHECK(e2 <= 1, "%s output %d: oneDNN differs from reference: %.3g x tol at %zu "
                  "(%g vs %g)", file, i, e2, at, fast[i][at], ref[i][at]);
            double e3 = cmp_f32(fast1[i], ref[i], cnt[i], 1e-4, 1e-3, &at);
            CHECK(e3 <= 1, "%s output %d: oneDNN (1 thread) differs from reference: %.3g x tol", file,
                  i, e3);
            printf("%s output %d (%zu values): fused-ref %.3g, dnnl %.3g, dnnl-1t %.3g x tolerance\n",
                   file, i, cnt[i], e1, e2, e3);
        }
    } else {
        CHECK(0, "%s: runs disagree on output count or failed", file);
    }
    if (!strcmp(file, "se_tiny.onnx") && dn_has_bf16() && ref[0])
        /* the squeeze-excite node writes bf16 activations and keeps its
         * products' weights in bf16 (2 threads), and also reads bf16 ones
         * (1 thread, OPENACL_BF16_SE=2: the depthwise outputs in bf16) */
        check_bf16(buf, len, file, n1, cnt, ref[0], fast[0], "OPENACL_BF16_SE");
    if (!strcmp(file, "shuffle_tiny.onnx") && dn_has_bf16() && ref[0]) {
        /* the shuffles between bf16 convolutions move bf16 (all but the
         * last, whose output is the graph's) */
        check_bf16(buf, len, file, n1, cnt, ref[0], fast[0], NULL);
        eng_opts o = { .threads = 1, .precision = ENG_PRECISION_BF16 };
        eng_model *m = NULL;
        rc = eng_load(buf, len, &o, &m);
        CHECK(!rc, "%s: bf16 load failed: %d", file, rc);
        int bf = 0;
        for (int i = 0; !rc && i < m->prog->g->n_nodes; i++) {
            const g_node *n = &m->prog->g->nodes[i];
            if (!strcmp(n->op_type, "ChannelShuffle") && m->prog->g->t[n->out[0]].dtype == G_BF16) bf++;
        }
        printf("%s bf16: %d ChannelShuffle nodes move bf16\n", file, bf);
        CHECK(rc || bf == 4, "%s: %d ChannelShuffle nodes move bf16, want 4", file, bf);
        if (!rc) eng_free(m);
    }
    if (!strcmp(file, "pool_tiny.onnx")) {
        /* both pools leave trailing input to no window (floor mode): oneDNN
         * must still run them (the negative right padding made it decline) */
        eng_opts o = { .threads = 1 };
        eng_model *m = NULL;
        rc = eng_load(buf, len, &o, &m);
        CHECK(!rc, "%s: load failed: %d", file, rc);
        int pools = 0, onednn = 0;
        for (int i = 0; !rc && i < m->prog->g->n_nodes; i++) {
            int f = dn_pool_fallback(&m->prog->g->nodes[i]);
            if (f >= 0) pools++;
            if (f == 0) onednn++;
        }
        printf("%s: %d of %d pools run oneDNN\n", file, onednn, pools);
        CHECK(rc || (pools == 2 && onednn == 2), "%s: %d of %d pools run oneDNN, want 2 of 2", file, onednn, pools);
        if (!rc) eng_free(m);
    }
    for (int i = 0; i < MAXO; i++) { free(ref[i]); free(fref[i]); free(fast[i]); free(fast1[i]); }
    inspect(buf, len, file);
    free(buf);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    check_model(dir, "resnet_tiny.onnx");
    check_model(dir, "mbnet_tiny.onnx");
    check_model(dir, "se_tiny.onnx");
    check_model(dir, "shuffle_tiny.onnx");
    check_model(dir, "pool_tiny.onnx");
    check_model(dir, "dense_tiny.onnx");
    check_model(dir, "cnx_tiny.onnx");
    if (oa_failures) { printf("%d failures\n", oa_failures); return 1; }
    printf("all passed\n");
    return 0;
}
