/* bfloat16 execution (eng_opts.precision / OPENACL_PRECISION): the marked
 * convolutions and matrix products of a small net compute in bf16 (weights
 * packed as bf16: the weight area shrinks), the layer reading the graph
 * input stays f32, the activation between the two 1x1 convolutions is
 * stored as bf16, products too small to gain (the Gemm) compute in f32,
 * and the result agrees with the f32 run within bf16's rounding. On a CPU without native bf16 the model must run as f32
 * unchanged. Model from make_models.py (argv[1] folder). */
#include "../common/oa_check.h"
#include "engine/eng_priv.h"
#include "graph/precision.h"
#include "kernels/ref/nn_common.h"
#include "acl/acl.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dn_has_bf16(void);


static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static int run(const void *buf, size_t len, int precision, const float *x, float *y, size_t *wbytes,
               int *marked, int *bf16_acts)
{
    eng_opts o = { .threads = 1, .precision = precision };
    eng_model *m = NULL;
    int rc = eng_load(buf, len, &o, &m);
    CHECK(rc == 0, "load (precision %d): %s", precision, rc ? aclGetRecentErrMsg() : "");
    if (rc) return rc;
    *wbytes = eng_weight_size(m);
    *marked = *bf16_acts = 0;
    for (int i = 0; i < m->prog->g->n_nodes; i++) *marked += graph_node_bf16(&m->prog->g->nodes[i]);
    for (int t = 0; t < m->prog->g->n_t; t++) *bf16_acts += m->prog->g->t[t].dtype == G_BF16;
    k_tensor in = { .dtype = G_F32, .shape = { .rank = 4, .d = { 1, 16, 32, 32 } }, .data = (void *)x,
                    .nbytes = 16 * 32 * 32 * 4 };
    k_tensor out = { .data = y, .nbytes = 10 * 4 };
    rc = eng_run(m, NULL, &in, 1, &out, 1, NULL, NULL);
    CHECK(rc == 0, "run (precision %d): %s", precision, rc ? aclGetRecentErrMsg() : "");
    eng_free(m);
    return rc;
}

/* The files of one generated case: NAME.onnx, its input NAME_x.bin and
 * numpy's float64 result NAME_y.bin (each NULL when missing). */
static void read_case(const char *dir, const char *name, void **model, size_t *len, float **x, size_t *xl,
                      float **ref, size_t *yl)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.onnx", dir, name);
    *model = read_file(path, len);
    snprintf(path, sizeof path, "%s/%s_x.bin", dir, name);
    *x = read_file(path, xl);
    snprintf(path, sizeof path, "%s/%s_y.bin", dir, name);
    *ref = read_file(path, yl);
}

/* bf16_res.onnx: the residual addend `a` lends its storage to the bf16
 * convolution that adds it (sum post-op, granted by the memory plan), so
 * that convolution reads the addend from, and writes its result over, the
 * same buffer. Both precisions against numpy's float64 result, twice each
 * (the buffer holds the output after a run; the next run recomputes a). */
static void residual_block(const char *dir)
{
    size_t len = 0, xl = 0, yl = 0;
    void *buf;
    float *x, *ref;
    read_case(dir, "bf16_res", &buf, &len, &x, &xl, &ref, &yl);
    const size_t ny = 16 * 28 * 28;
    CHECK(buf && x && ref && xl == 64 * 28 * 28 * 4 && yl == ny * 4, "bf16_res files in %s", dir);
    float *y = malloc(ny * sizeof *y);
    double amax = 0;
    for (size_t i = 0; ref && i < ny; i++) amax = fmax(amax, fabs(ref[i]));
    for (int prec = ENG_PRECISION_FP32; buf && x && ref && y && prec <= ENG_PRECISION_BF16; prec++) {
        eng_opts o = { .threads = 1, .precision = prec };
        eng_model *m = NULL;
        int rc = eng_load(buf, len, &o, &m);
        CHECK(rc == 0, "bf16_res load (precision %d): %s", prec, rc ? aclGetRecentErrMsg() : "");
        if (rc) continue;
        int ta = g_tensor_find(m->prog->g, "a"), shared = 0;
        for (int i = 0; ta >= 0 && i < m->prog->g->n_nodes; i++) {
            const g_node *n = &m->prog->g->nodes[i];
            if (n->n_in > NN_ADD_INPUT && n->in[NN_ADD_INPUT] == ta && n->out[0] >= 0)
                shared = m->prog->g->t[n->out[0]].mem_offset == m->prog->g->t[ta].mem_offset;
        }
        if (prec == ENG_PRECISION_BF16 && dn_has_bf16())
            CHECK(shared, "bf16: the residual conv's output does not take over the addend's storage");
        for (int rep = 0; rep < 2; rep++) {
            k_tensor in = { .dtype = G_F32, .shape = { .rank = 4, .d = { 1, 64, 28, 28 } }, .data = x,
                            .nbytes = xl };
            k_tensor out = { .data = y, .nbytes = ny * 4 };
            memset(y, 0, ny * 4);
            rc = eng_run(m, NULL, &in, 1, &out, 1, NULL, NULL);
            CHECK(rc == 0, "bf16_res run (precision %d): %s", prec, rc ? aclGetRecentErrMsg() : "");
            double d = 0;
            for (size_t i = 0; i < ny; i++) d = fmax(d, fabs(y[i] - ref[i]));
            double tol = prec == ENG_PRECISION_BF16 ? 0.03 * amax : 1e-4 * amax;
            CHECK(d <= tol, "bf16_res precision %d run %d: max error %g (max |y| %g, in place %d)", prec, rep, d,
                  amax, shared);
            if (rep == 1) printf("bf16_res precision %d: max error %.3g of %.3g, addend storage shared %d\n", prec, d,
                                 amax, shared);
        }
        eng_free(m);
    }
    free(y);
    free(buf);
    free(x);
    free(ref);
}

/* bf16_res2.onnx: a residual stream stored as bf16 (s0 -> s1 -> s2, each
 * residual convolution adding the previous one and writing over it), with
 * OPENACL_BF16_RESIDUAL=0 the stream in float32; both against numpy's
 * float64 result. */
static void residual_stream(const char *dir)
{
    size_t len = 0, xl = 0, yl = 0;
    void *buf;
    float *x, *ref;
    read_case(dir, "bf16_res2", &buf, &len, &x, &xl, &ref, &yl);
    const size_t ny = 8 * 20 * 20;
    CHECK(buf && x && ref && xl == 32 * 20 * 20 * 4 && yl == ny * 4, "bf16_res2 files in %s", dir);
    float *y = malloc(ny * sizeof *y);
    double amax = 0;
    for (size_t i = 0; ref && i < ny; i++) amax = fmax(amax, fabs(ref[i]));
    for (int stream_f32 = 0; buf && x && ref && y && stream_f32 < 2; stream_f32++) {
        if (stream_f32) setenv("OPENACL_BF16_RESIDUAL", "0", 1);
        eng_opts o = { .threads = 1, .precision = ENG_PRECISION_BF16 };
        eng_model *m = NULL;
        int rc = eng_load(buf, len, &o, &m);
        unsetenv("OPENACL_BF16_RESIDUAL");
        CHECK(rc == 0, "bf16_res2 load: %s", rc ? aclGetRecentErrMsg() : "");
        if (rc) continue;
        int bf16_stream = 0, shared = 0;
        const char *names[3] = { "s0", "s1", "s2" };
        for (int k = 0; k < 3; k++) {
            int t = g_tensor_find(m->prog->g, names[k]);
            CHECK(t >= 0, "tensor %s not found", names[k]);
            if (t >= 0) bf16_stream += m->prog->g->t[t].dtype == G_BF16;
            /* the convolution adding s_k writes over it */
            for (int i = 0; t >= 0 && i < m->prog->g->n_nodes; i++) {
                const g_node *n = &m->prog->g->nodes[i];
                if (n->n_in > NN_ADD_INPUT && n->in[NN_ADD_INPUT] == t && n->out[0] >= 0)
                    shared += m->prog->g->t[n->out[0]].mem_offset == m->prog->g->t[t].mem_offset;
            }
        }
        /* (a float32 stream: s0 too, its residual reader taking float32) */
        int want = dn_has_bf16() && !stream_f32 ? 3 : 0;
        CHECK(bf16_stream == want, "bf16 stream tensors: %d, expected %d (OPENACL_BF16_RESIDUAL=%d)", bf16_stream,
              want, !stream_f32);
        CHECK(shared == 2, "residual convolutions writing over their addend: %d of 2", shared);
        for (int rep = 0; rep < 2; rep++) {
            k_tensor in = { .dtype = G_F32, .shape = { .rank = 4, .d = { 1, 32, 20, 20 } }, .data = x, .nbytes = xl };
            k_tensor out = { .data = y, .nbytes = ny * 4 };
            memset(y, 0, ny * 4);
            rc = eng_run(m, NULL, &in, 1, &out, 1, NULL, NULL);
            CHECK(rc == 0, "bf16_res2 run: %s", rc ? aclGetRecentErrMsg() : "");
            double d = 0;
            for (size_t i = 0; i < ny; i++) d = fmax(d, fabs(y[i] - ref[i]));
            CHECK(d <= 0.03 * amax && (d > 0) == (dn_has_bf16() != 0), "bf16_res2 run %d: max error %g (max |y| %g)",
                  rep, d, amax);
            if (rep == 1)
                printf("bf16_res2 (stream %s): max error %.3g of %.3g, bf16 stream tensors %d, in place %d\n",
                       stream_f32 ? "float32" : "bf16", d, amax, bf16_stream, shared);
        }
        eng_free(m);
    }
    free(y);
    free(buf);
    free(x);
    free(ref);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: bf16_test DIR\n"); return 2; }
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/bf16_net.onnx", argv[1]);
    void *buf = read_file(path, &len);
    if (!buf) { fprintf(stderr, "cannot read %s\n", path); return 2; }
    static float x[16 * 32 * 32];
    for (int i = 0; i < 16 * 32 * 32; i++) x[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
    float y32[10], y16[10], yenv[10];
    size_t w32 = 0, w16 = 0, wenv = 0;
    int m32 = 0, m16 = 0, menv = 0, a32 = 0, a16 = 0, aenv = 0;
    unsetenv("OPENACL_PRECISION");
    run(buf, len, ENG_PRECISION_DEFAULT, x, y32, &w32, &m32, &a32);
    run(buf, len, ENG_PRECISION_BF16, x, y16, &w16, &m16, &a16);
    setenv("OPENACL_PRECISION", "bf16", 1);
    run(buf, len, ENG_PRECISION_DEFAULT, x, yenv, &wenv, &menv, &aenv);
    CHECK(m32 == 0 && a32 == 0, "f32 load marked %d nodes, %d bf16 tensors", m32, a32);
    /* the 3x3 conv reads the input (stays f32); the 1x1 convs and Gemm are marked */
    CHECK(m16 == 3 && menv == 3, "marked nodes: %d (opts), %d (env), expected 3", m16, menv);
    /* conv2 -> conv3 only: one bf16 activation where the CPU has bf16 */
    CHECK(a16 == (dn_has_bf16() ? 1 : 0), "bf16 activations: %d", a16);
    double amax = 0, dmax = 0;
    for (int i = 0; i < 10; i++) {
        amax = fmax(amax, fabs(y32[i]));
        dmax = fmax(dmax, fabs(y16[i] - y32[i]));
        CHECK(y16[i] == yenv[i], "env and option runs differ at %d: %g vs %g", i, y16[i], yenv[i]);
    }
    CHECK(amax > 0.01, "degenerate reference (max |y| %g)", amax);
    CHECK(dmax <= 0.02 * amax, "bf16 differs from f32 by %g (max |y| %g)", dmax, amax);
    if (dn_has_bf16()) {
        /* the two 1x1 (64x64) weights at 2 bytes instead of 4; the Gemm
         * (10x64, 1280 FLOPs) stays f32 */
        CHECK(w16 < w32 && w32 - w16 >= 2 * 64 * 64 * 2 - 256 && w32 - w16 < (2 * 64 * 64 + 10 * 64) * 2,
              "weights f32 %zu, bf16 %zu", w32, w16);
        CHECK(dmax > 0, "bf16 run identical to f32: bf16 not used?");
    } else {
        CHECK(w16 == w32 && dmax == 0, "no native bf16: expected the f32 result (weights %zu/%zu, diff %g)",
              w32, w16, dmax);
    }
    free(buf);
    printf("bf16_test: %d checks, %d failures (native bf16: %d, max diff %.3g of %.3g)\n", oa_checks, oa_failures,
           dn_has_bf16(), dmax, amax);
    residual_block(argv[1]);
    residual_stream(argv[1]);
    printf("bf16_test: %d checks, %d failures after the residual blocks\n", oa_checks, oa_failures);
    return oa_failures ? 1 : 0;
}
