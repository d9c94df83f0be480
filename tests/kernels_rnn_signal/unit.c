/* White-box checks of the "x" kernels through the registry (no engine):
 * the opset 1-6 broadcast rules (axis placement, suffix alignment, scalars,
 * PRelu per channel) and their refusals, loss corner cases, window and mel
 * closed forms, and the training optimisers' update rules. Each check
 * compares with values computed here by the spec's formula. */
#include "../common/oa_check.h"
#include "kernels/kernel.h"
#include "core/core.h"
#include "acl/acl.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- a one-node graph driven through the registry ---- */
typedef struct one {
    g_graph *g;
    g_node *n;
    const k_op *op;
    void *st;
    k_tensor in[8], out[4];
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
static void attr_f(one *o, const char *name, float v) { add_attr(o, name, G_AT_FLOAT)->f = v; }
static void attr_s(one *o, const char *name, const char *v)
{
    g_attr *a = add_attr(o, name, G_AT_STRING);
    a->s = strdup(v);
    a->slen = strlen(v);
}

/* dts[i] = G_UNDEF leaves input i omitted */
static void mk(one *o, const char *op, const char *domain, int opset, int nin, const int *dts,
               int nout)
{
    memset(o, 0, sizeof *o);
    o->g = g_graph_new();
    o->g->opset = opset;
    int ins[8], outs[4];
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
    g_node_add(o->g, op, domain, "unit_node", nin, ins, nout, outs);
    o->n = &o->g->nodes[0];
    o->n->opset = opset;
}

/* pick the kernel and init; returns init's code */
static int start(one *o)
{
    const k_op *ops[8];
    int n = k_find(o->n->op_type, o->n->domain, o->n->opset, ops, 8), rc = K_DECLINE;
    for (int i = 0; i < n && rc == K_DECLINE; i++) {
        o->st = NULL;
        rc = ops[i]->init(o->g, o->n, &o->st);
        if (rc == 0) o->op = ops[i];
    }
    return rc;
}

static void set_in(one *o, int i, int dt, int rank, const int64_t *d, void *data)
{
    o->in[i].dtype = dt;
    o->in[i].shape.rank = rank;
    for (int k = 0; k < rank; k++) o->in[i].shape.d[k] = d[k];
    o->in[i].data = data;
    o->in[i].nbytes = k_nbytes(&o->in[i]);
    o->in[i].layout = G_LAYOUT_PLAIN;
}

/* infer, allocate outputs, run */
static int go(one *o)
{
    int rc = o->op->infer(o->n, o->st, o->in, o->out);
    if (rc) return rc;
    for (int i = 0; i < o->n->n_out; i++) {
        o->out[i].nbytes = k_nbytes(&o->out[i]);
        o->out[i].data = calloc(1, o->out[i].nbytes + 1);
    }
    k_ctx ctx = { 1, NULL, 0 };
    return o->op->run(o->n, o->st, o->in, o->out, &ctx);
}

static void done(one *o)
{
    if (o->op && o->op->fini) o->op->fini(o->st);
    for (int i = 0; i < 4; i++) free(o->out[i].data);
    g_graph_free(o->g);
    memset(o, 0, sizeof *o);
}

static int msg_has(const char *what)
{
    const char *m = aclGetRecentErrMsg();
    return m && strstr(m, what);
}

/* ---- legacy broadcast ---- */

/* A [2,3,4] with B laid at `axis` (-1: attribute absent) under broadcast=1 */
static void legacy_add_case(int64_t axis, int rb, const int64_t *bd, int bnum)
{
    static float A[24], B[12];
    for (int i = 0; i < 24; i++) A[i] = (float)i;
    for (int i = 0; i < bnum; i++) B[i] = 100.f * (float)(i + 1);
    one o;
    int dts[2] = { G_F32, G_F32 };
    mk(&o, "Add", "", 6, 2, dts, 1);
    attr_i(&o, "broadcast", 1);
    if (axis >= 0) attr_i(&o, "axis", axis);
    CHECK(start(&o) == 0, "legacy Add init");
    int64_t ad[3] = { 2, 3, 4 };
    set_in(&o, 0, G_F32, 3, ad, A);
    set_in(&o, 1, G_F32, rb, bd, B);
    int rc = go(&o);
    CHECK(rc == 0, "legacy Add axis %lld rank %d: rc %d", (long long)axis, rb, rc);
    if (!rc) {
        CHECK(o.out[0].shape.rank == 3 && o.out[0].shape.d[2] == 4, "output shape");
        int start_ax = axis >= 0 ? (int)axis : 3 - rb;
        const float *Y = o.out[0].data;
        for (int i = 0; i < 24; i++) {
            int c[3] = { i / 12, (i / 4) % 3, i % 4 };
            int bi = 0;
            for (int k = 0; k < rb; k++) {
                int64_t dim = bd[k];
                bi = (int)(bi * dim + (dim == 1 ? 0 : c[start_ax + k]));
            }
            float want = A[i] + (rb == 0 ? B[0] : B[bi]);
            CHECK(Y[i] == want, "axis %lld: y[%d] = %g, want %g", (long long)axis, i, Y[i], want);
        }
    }
    done(&o);
}

static void test_legacy(void)
{
    int64_t b3[1] = { 3 }, b2[1] = { 2 }, b34[2] = { 3, 4 }, b4[1] = { 4 }, b31[2] = { 3, 1 };
    legacy_add_case(1, 1, b3, 3);     /* B [3] at axis 1: per middle index */
    legacy_add_case(0, 1, b2, 2);     /* B [2] at axis 0: per outer index */
    legacy_add_case(-1, 2, b34, 12);  /* suffix-aligned */
    legacy_add_case(-1, 1, b4, 4);
    legacy_add_case(1, 2, b31, 3);    /* size-1 dim inside B */
    legacy_add_case(1, 0, NULL, 1);   /* scalar */

    /* broadcast=0 with different shapes is refused */
    float A[6] = {0}, B[3] = {0};
    int64_t ad[2] = { 2, 3 }, bd[1] = { 3 };
    one o;
    int dts[2] = { G_F32, G_F32 };
    mk(&o, "Mul", "", 6, 2, dts, 1);
    CHECK(start(&o) == 0, "legacy Mul init");
    set_in(&o, 0, G_F32, 2, ad, A);
    set_in(&o, 1, G_F32, 1, bd, B);
    CHECK(go(&o) == ACL_ERROR_INVALID_PARAM && msg_has("broadcast=0"),
          "broadcast=0 with shapes [2,3] and [3] must be refused");
    done(&o);

    /* B that does not fit at the axis */
    mk(&o, "Sub", "", 6, 2, dts, 1);
    attr_i(&o, "broadcast", 1);
    attr_i(&o, "axis", 0);
    CHECK(start(&o) == 0, "legacy Sub init");
    set_in(&o, 0, G_F32, 2, ad, A);
    set_in(&o, 1, G_F32, 1, bd, B);
    CHECK(go(&o) == ACL_ERROR_INVALID_PARAM && msg_has("axis 0"), "B [3] at axis 0 of [2,3]");
    done(&o);

    /* a bad broadcast value is refused at init */
    mk(&o, "Div", "", 6, 2, dts, 1);
    attr_i(&o, "broadcast", 2);
    CHECK(start(&o) == ACL_ERROR_INVALID_PARAM && msg_has("broadcast=2"), "broadcast=2");
    done(&o);

    /* PRelu-6: one slope per channel (dim 1) */
    float X[24], S[3] = { 0.5f, -2.f, 3.f };
    for (int i = 0; i < 24; i++) X[i] = (float)(i - 12);
    int64_t xd[3] = { 2, 3, 4 }, sd[1] = { 3 };
    mk(&o, "PRelu", "", 6, 2, dts, 1);
    CHECK(start(&o) == 0, "legacy PRelu init");
    set_in(&o, 0, G_F32, 3, xd, X);
    set_in(&o, 1, G_F32, 1, sd, S);
    CHECK(go(&o) == 0, "legacy PRelu run");
    if (o.out[0].data) {
        const float *Y = o.out[0].data;
        for (int i = 0; i < 24; i++) {
            float want = X[i] < 0 ? X[i] * S[(i / 4) % 3] : X[i];
            CHECK(Y[i] == want, "prelu y[%d] = %g, want %g", i, Y[i], want);
        }
    }
    done(&o);
    /* slope of another size is refused */
    int64_t sd2[1] = { 2 };
    mk(&o, "PRelu", "", 6, 2, dts, 1);
    CHECK(start(&o) == 0, "legacy PRelu init");
    set_in(&o, 0, G_F32, 3, xd, X);
    set_in(&o, 1, G_F32, 1, sd2, S);
    CHECK(go(&o) == ACL_ERROR_INVALID_PARAM && msg_has("slope"), "slope [2] on [2,3,4]");
    done(&o);
}

/* ---- losses ---- */

static void test_loss(void)
{
    /* target outside [0, C) that is not ignore_index: an error, not a read
     * out of bounds */
    float X[6] = { 1, 2, 3, 4, 5, 6 };
    int64_t T[2] = { 0, 3 };
    int64_t xd[2] = { 2, 3 }, td[1] = { 2 };
    one o;
    int dts[2] = { G_F32, G_I64 };
    mk(&o, "NegativeLogLikelihoodLoss", "", 13, 2, dts, 1);
    attr_s(&o, "reduction", "sum");
    CHECK(start(&o) == 0, "nll init");
    set_in(&o, 0, G_F32, 2, xd, X);
    set_in(&o, 1, G_I64, 1, td, T);
    CHECK(go(&o) == ACL_ERROR_INVALID_PARAM && msg_has("outside"), "target 3 of 3 classes");
    done(&o);
    /* all targets ignored, mean: 0/0 */
    T[1] = -1;
    T[0] = -1;
    mk(&o, "NegativeLogLikelihoodLoss", "", 13, 2, dts, 1);
    attr_i(&o, "ignore_index", -1);
    CHECK(start(&o) == 0, "nll init");
    set_in(&o, 0, G_F32, 2, xd, X);
    set_in(&o, 1, G_I64, 1, td, T);
    CHECK(go(&o) == 0 && isnan(*(float *)o.out[0].data), "mean over no targets is NaN");
    done(&o);
    /* an unknown reduction is refused at load */
    mk(&o, "SoftmaxCrossEntropyLoss", "", 13, 2, dts, 1);
    attr_s(&o, "reduction", "max");
    CHECK(start(&o) == ACL_ERROR_FEATURE_UNSUPPORTED && msg_has("reduction='max'"), "reduction=max");
    done(&o);
}

/* ---- training optimisers ---- */

/* One step on X = {x0, x1} with gradient G and accumulators A (and B for
 * Adam); checks the new values against `want` (X_new, A_new[, B_new]). */
static void opt_case(const char *op, int64_t T, void (*attrs)(one *), const float *want)
{
    static float R = 0.1f, X[2] = { 1.f, -2.f }, G[2] = { -1.f, 0.5f }, A[2] = { 2.f, 0.25f },
                 B[2] = { 0.5f, 3.f };
    int64_t Tv = T;
    int adam = !strcmp(op, "Adam");
    int nin = adam ? 6 : 5, nout = adam ? 3 : 2;
    int dts[6] = { G_F32, G_I64, G_F32, G_F32, G_F32, G_F32 };
    one o;
    mk(&o, op, "ai.onnx.preview.training", 1, nin, dts, nout);
    attrs(&o);
    int rc = start(&o);
    CHECK(rc == 0, "%s init: %d", op, rc);
    if (rc) { done(&o); return; }
    int64_t d2[1] = { 2 };
    set_in(&o, 0, G_F32, 0, NULL, &R);
    set_in(&o, 1, G_I64, 0, NULL, &Tv);
    set_in(&o, 2, G_F32, 1, d2, X);
    set_in(&o, 3, G_F32, 1, d2, G);
    set_in(&o, 4, G_F32, 1, d2, A);
    if (adam) set_in(&o, 5, G_F32, 1, d2, B);
    CHECK(go(&o) == 0, "%s run", op);
    for (int k = 0; k < nout; k++)
        for (int i = 0; i < 2 && o.out[k].data; i++) {
            float got = ((float *)o.out[k].data)[i], w = want[k * 2 + i];
            CHECK(fabsf(got - w) <= 1e-5f * (1.f + fabsf(w)), "%s T=%lld output %d[%d] = %.7g, want %.7g",
                  op, (long long)T, k, i, got, w);
        }
    done(&o);
}

static void adagrad_attrs(one *o)
{
    attr_f(o, "decay_factor", 0.5f);
    attr_f(o, "epsilon", 1e-3f);
    attr_f(o, "norm_coefficient", 0.01f);
}
static void momentum_std_attrs(one *o)
{
    attr_f(o, "alpha", 0.9f);
    attr_f(o, "beta", 0.5f);
    attr_f(o, "norm_coefficient", 0.02f);
    attr_s(o, "mode", "standard");
}
static void momentum_nes_attrs(one *o)
{
    attr_f(o, "alpha", 0.9f);
    attr_f(o, "beta", 0.5f);
    attr_f(o, "norm_coefficient", 0.f);
    attr_s(o, "mode", "nesterov");
}
static void adam_attrs(one *o)
{
    attr_f(o, "alpha", 0.8f);
    attr_f(o, "beta", 0.7f);
    attr_f(o, "epsilon", 1e-4f);
    attr_f(o, "norm_coefficient", 0.05f);
    attr_f(o, "norm_coefficient_post", 0.1f);
}
static void no_attrs(one *o) { (void)o; }

static void test_train(void)
{
    const double X[2] = { 1, -2 }, G[2] = { -1, 0.5 }, A[2] = { 2, 0.25 }, B[2] = { 0.5, 3 }, R = 0.1;
    float w[6];
    /* Adagrad, T = 3: r = R / (1 + T decay) */
    for (int i = 0; i < 2; i++) {
        double g = G[i] + 0.01 * X[i], h = A[i] + g * g, r = R / (1 + 3 * 0.5);
        w[i] = (float)(X[i] - r * g / (sqrt(h) + 1e-3));
        w[2 + i] = (float)h;
    }
    opt_case("Adagrad", 3, adagrad_attrs, w);
    /* Momentum: beta applies from T > 0; the first step takes G whole */
    for (int T = 0; T < 2; T++) {
        for (int i = 0; i < 2; i++) {
            double g = G[i] + 0.02 * X[i], v = 0.9 * A[i] + (T > 0 ? 0.5 : 1.0) * g;
            w[i] = (float)(X[i] - R * v);
            w[2 + i] = (float)v;
        }
        opt_case("Momentum", T, momentum_std_attrs, w);
    }
    for (int i = 0; i < 2; i++) {
        double v = 0.9 * A[i] + 0.5 * G[i];
        w[i] = (float)(X[i] - R * (G[i] + 0.9 * v));
        w[2 + i] = (float)v;
    }
    opt_case("Momentum", 5, momentum_nes_attrs, w);
    /* Adam, T = 2: bias-corrected rate, post-update decay */
    for (int i = 0; i < 2; i++) {
        double g = G[i] + 0.05 * X[i], v = 0.8 * A[i] + 0.2 * g, h = 0.7 * B[i] + 0.3 * g * g;
        double r = R * sqrt(1 - 0.7 * 0.7) / (1 - 0.8 * 0.8);
        w[i] = (float)(0.9 * (X[i] - r * v / (sqrt(h) + 1e-4)));
        w[2 + i] = (float)v;
        w[4 + i] = (float)h;
    }
    opt_case("Adam", 2, adam_attrs, w);
    /* Momentum's attributes are required */
    one o;
    int dts[5] = { G_F32, G_I64, G_F32, G_F32, G_F32 };
    mk(&o, "Momentum", "ai.onnx.preview.training", 1, 5, dts, 2);
    CHECK(start(&o) == ACL_ERROR_INVALID_PARAM && msg_has("alpha"), "Momentum without alpha");
    done(&o);
    (void)no_attrs;
}

int main(void)
{
    test_legacy();
    test_loss();
    test_train();
    if (oa_failures) {
        printf("%d check(s) failed\n", oa_failures);
        return 1;
    }
    printf("kernels_x unit: all checks passed\n");
    return 0;
}
