/* Reference NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12+):
 * scores [N, C, d1..dk], integer targets [N, d1..dk], optional class weights
 * [C], ignore_index, reduction none / sum / mean (mean divides by the summed
 * weights of the targets not ignored). SoftmaxCrossEntropyLoss first takes
 * log-softmax over C and can also return it. Every float type is computed in
 * double (one pass over C per position), rounded once on store. */
#include "kernels/ref/ew_common.h"
#include <stdlib.h>

enum { RED_NONE, RED_SUM, RED_MEAN };

typedef struct loss_state {
    int sce;                  /* SoftmaxCrossEntropyLoss */
    int red;
    int has_ii;
    int64_t ii;               /* ignore_index */
    int dt, dtt;              /* scores / target dtypes */
} loss_state;

static int loss_init(g_graph *g, g_node *n, void **state)
{
    int sce = !strcmp(n->op_type, "SoftmaxCrossEntropyLoss");
    if (!sce && strcmp(n->op_type, "NegativeLogLikelihoodLoss")) return K_DECLINE;
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0)
        return ew_fail(n, EW_EINVAL, "needs the scores and target inputs");
    const char *r = g_attr_str(n, "reduction", "mean");
    int red = !strcmp(r, "none") ? RED_NONE : !strcmp(r, "sum") ? RED_SUM
            : !strcmp(r, "mean") ? RED_MEAN : -1;
    if (red < 0) return ew_fail(n, EW_EUNSUP, "reduction='%s' (expected none, sum or mean)", r);
    int dt = ew_gdtype(g, n, 0), dtt = ew_gdtype(g, n, 1);
    int rc = ew_check_type(n, 0, dt, EW_MFLT);
    if (!rc) rc = ew_check_type(n, 1, dtt, EW_M(G_I32) | EW_M(G_I64));
    if (!rc && n->n_in > 2 && n->in[2] >= 0 && ew_gdtype(g, n, 2) != dt)
        rc = ew_fail(n, EW_ETYPE, "weight is %s but the scores are %s (must match)",
                     g_dtype_name(ew_gdtype(g, n, 2)), g_dtype_name(dt));
    if (rc) return rc;
    loss_state *s = calloc(1, sizeof *s);
    if (!s) return ew_fail(n, EW_ENOMEM, "out of memory");
    s->sce = sce;
    s->red = red;
    s->has_ii = g_node_attr(n, "ignore_index") != NULL;
    s->ii = g_attr_int(n, "ignore_index", 0);
    s->dt = dt;
    s->dtt = dtt;
    *state = s;
    return 0;
}

static int loss_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    loss_state *s = state;
    const g_shape *x = &in[0].shape, *t = &in[1].shape;
    char a[96], b[96];
    if (x->rank >= 0 && x->rank < 2)
        return ew_fail(n, EW_EINVAL, "scores %s must have rank >= 2 ([N, C, ...])",
                       g_shape_str(x, a, sizeof a));
    if (x->rank >= 0 && t->rank >= 0) {
        int ok = t->rank == x->rank - 1;
        for (int i = 0; ok && i < t->rank; i++) {
            int64_t dx = x->d[i == 0 ? 0 : i + 1], dtg = t->d[i];
            if (dx >= 0 && dtg >= 0 && dx != dtg) ok = 0;
        }
        if (!ok)
            return ew_fail(n, EW_EINVAL, "target %s does not match scores %s (expected [N, d1..dk])",
                           g_shape_str(t, b, sizeof b), g_shape_str(x, a, sizeof a));
    }
    if (ew_has(n, in, 2) && x->rank >= 2) {
        const g_shape *w = &in[2].shape;
        if (w->rank >= 0 && (w->rank != 1 || (w->d[0] >= 0 && x->d[1] >= 0 && w->d[0] != x->d[1])))
            return ew_fail(n, EW_EINVAL, "weight %s does not match the %lld classes",
                           g_shape_str(w, b, sizeof b), (long long)x->d[1]);
    }
    out[0].dtype = s->dt;
    if (s->red == RED_NONE) {
        out[0].shape = *t;
        if (t->rank < 0 && x->rank >= 2) {
            out[0].shape.rank = x->rank - 1;
            out[0].shape.d[0] = x->d[0];
            for (int i = 2; i < x->rank; i++) out[0].shape.d[i - 1] = x->d[i];
        }
    } else {
        out[0].shape.rank = 0;
    }
    out[0].layout = G_LAYOUT_PLAIN;
    if (n->n_out > 1) {
        if (!s->sce) return ew_fail(n, EW_EINVAL, "has %d outputs, expected 1", n->n_out);
        out[1].dtype = s->dt;
        out[1].shape = *x;
        out[1].layout = G_LAYOUT_PLAIN;
    }
    return 0;
}

static int loss_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                    const k_ctx *ctx)
{
    loss_state *s = state;
    (void)ctx;
    const g_shape *x = &in[0].shape;
    int64_t N = x->d[0], C = x->d[1], D = 1;
    for (int i = 2; i < x->rank; i++) D *= x->d[i];
    const void *X = in[0].data, *T = in[1].data;
    const void *W = ew_has(n, in, 2) ? in[2].data : NULL;
    void *Y = out[0].data;
    void *LP = (s->sce && ew_want(n, 1)) ? out[1].data : NULL;
    int dt = s->dt;
    double sum = 0.0, wsum = 0.0;
    for (int64_t i = 0; i < N; i++) {
        for (int64_t d = 0; d < D; d++) {
            size_t base = (size_t)(i * C * D + d);       /* scores[i, 0, d] */
            size_t ti = (size_t)(i * D + d);
            double lse = 0.0;
            if (s->sce) {
                double m = -INFINITY, e = 0.0;
                for (int64_t c = 0; c < C; c++) {
                    double v = ew_ld(X, dt, base + (size_t)(c * D));
                    if (v > m) m = v;
                }
                for (int64_t c = 0; c < C; c++) e += exp(ew_ld(X, dt, base + (size_t)(c * D)) - m);
                lse = m + log(e);
                if (LP)
                    for (int64_t c = 0; c < C; c++) {
                        size_t k = base + (size_t)(c * D);
                        ew_st(LP, dt, k, ew_ld(X, dt, k) - lse);
                    }
            }
            int64_t t = ew_ldi(T, s->dtt, ti);
            double l = 0.0, w = 0.0;
            if (!(s->has_ii && t == s->ii)) {
                if (t < 0 || t >= C)
                    return ew_fail(n, EW_EINVAL, "target[%lld] = %lld is outside [0, %lld) and is "
                                   "not ignore_index", (long long)ti, (long long)t, (long long)C);
                w = W ? ew_ld(W, dt, (size_t)t) : 1.0;
                double xv = ew_ld(X, dt, base + (size_t)(t * D)) - lse;
                l = -xv * w;
            }
            if (s->red == RED_NONE) ew_st(Y, dt, ti, l);
            sum += l;
            wsum += w;
        }
    }
    if (s->red == RED_SUM) ew_st(Y, dt, 0, sum);
    else if (s->red == RED_MEAN) ew_st(Y, dt, 0, sum / wsum);
    return 0;
}

static const k_op k_nllloss = { "NegativeLogLikelihoodLoss", "", 12, 0, "ref", 0, loss_init,
                                loss_infer, NULL, NULL, loss_run, ew_fini_free, NULL };
K_REGISTER(k_nllloss);
static const k_op k_sceloss = { "SoftmaxCrossEntropyLoss", "", 12, 0, "ref", 0, loss_init,
                                loss_infer, NULL, NULL, loss_run, ew_fini_free, NULL };
K_REGISTER(k_sceloss);
