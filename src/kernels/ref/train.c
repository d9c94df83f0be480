/* The optimiser steps of the ai.onnx.preview.training domain (opset 1):
 * Adagrad, Momentum (standard and Nesterov) and Adam. Inputs are the
 * learning rate R and step count T (scalars), then n tensors X, n gradients
 * G and the n (Adagrad, Momentum) or 2n (Adam) accumulators; outputs are the
 * n new tensors followed by the new accumulators. Elementwise, in double. */
#include "kernels/ref/ew_common.h"
#include <stdlib.h>

enum { OPT_ADAGRAD, OPT_MOMENTUM, OPT_ADAM };

typedef struct opt_state {
    int kind, nacc;           /* accumulators per tensor: 1 or 2 */
    int nesterov;
    double decay, eps, norm, norm_post, alpha, beta;
} opt_state;

static int opt_attr_req(const g_node *n, const char *name, double *v)
{
    const g_attr *a = g_node_attr(n, name);
    if (!a) return ew_fail(n, EW_EINVAL, "required attribute %s is missing", name);
    *v = a->type == G_AT_INT ? (double)a->i : (double)a->f;
    return 0;
}

static int opt_init(g_graph *g, g_node *n, void **state)
{
    int kind = !strcmp(n->op_type, "Adagrad") ? OPT_ADAGRAD : !strcmp(n->op_type, "Momentum")
             ? OPT_MOMENTUM : !strcmp(n->op_type, "Adam") ? OPT_ADAM : -1;
    if (kind < 0) return K_DECLINE;
    opt_state s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.nacc = kind == OPT_ADAM ? 2 : 1;
    int per = 2 + s.nacc;
    int cnt = (n->n_in - 2) / per;
    if (n->n_in < 2 + per || (n->n_in - 2) % per)
        return ew_fail(n, EW_EINVAL, "got %d inputs; expected R, T and %d groups of n tensors",
                       n->n_in, per);
    if (n->n_out != cnt * (1 + s.nacc))
        return ew_fail(n, EW_EINVAL, "got %d outputs for %d tensors, expected %d", n->n_out, cnt,
                       cnt * (1 + s.nacc));
    int rc = ew_check_type(n, 0, ew_gdtype(g, n, 0), EW_M(G_F32) | EW_M(G_F64));
    if (!rc) rc = ew_check_type(n, 1, ew_gdtype(g, n, 1), EW_M(G_I64));
    for (int i = 2; i < n->n_in && !rc; i++) {
        if (n->in[i] < 0) return ew_fail(n, EW_EINVAL, "input %d is missing", i);
        rc = ew_check_type(n, i, ew_gdtype(g, n, i), EW_M(G_F32) | EW_M(G_F64));
    }
    if (rc) return rc;
    switch (kind) {
    case OPT_ADAGRAD:
        s.decay = g_attr_float(n, "decay_factor", 0.f);
        s.eps = g_attr_float(n, "epsilon", 1e-6f);
        s.norm = g_attr_float(n, "norm_coefficient", 0.f);
        break;
    case OPT_MOMENTUM: {
        if ((rc = opt_attr_req(n, "alpha", &s.alpha)) || (rc = opt_attr_req(n, "beta", &s.beta)) ||
            (rc = opt_attr_req(n, "norm_coefficient", &s.norm)))
            return rc;
        const char *mode = g_attr_str(n, "mode", NULL);
        if (!mode) return ew_fail(n, EW_EINVAL, "required attribute mode is missing");
        if (!strcmp(mode, "nesterov")) s.nesterov = 1;
        else if (strcmp(mode, "standard"))
            return ew_fail(n, EW_EINVAL, "mode='%s' (expected standard or nesterov)", mode);
        break;
    }
    default:
        s.alpha = g_attr_float(n, "alpha", 0.9f);
        s.beta = g_attr_float(n, "beta", 0.999f);
        s.eps = g_attr_float(n, "epsilon", 1e-6f);
        s.norm = g_attr_float(n, "norm_coefficient", 0.f);
        s.norm_post = g_attr_float(n, "norm_coefficient_post", 0.f);
        break;
    }
    opt_state *p = malloc(sizeof *p);
    if (!p) return ew_fail(n, EW_ENOMEM, "out of memory");
    *p = s;
    *state = p;
    return 0;
}

static int opt_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    opt_state *s = state;
    int cnt = (n->n_in - 2) / (2 + s->nacc);
    char a[96], b[96];
    for (int t = 0; t < cnt; t++)
        for (int k = 1; k < 2 + s->nacc; k++) {
            const k_tensor *x = &in[2 + t], *o = &in[2 + k * cnt + t];
            if (x->dtype != o->dtype || (g_shape_known(&x->shape) && g_shape_known(&o->shape) &&
                                         !g_shape_eq(&x->shape, &o->shape)))
                return ew_fail(n, EW_EINVAL, "input %d (%s %s) does not match tensor %d (%s %s)",
                               2 + k * cnt + t, g_dtype_name(o->dtype), g_shape_str(&o->shape, b, sizeof b),
                               t, g_dtype_name(x->dtype), g_shape_str(&x->shape, a, sizeof a));
        }
    for (int k = 0; k < 1 + s->nacc; k++)
        for (int t = 0; t < cnt; t++) {
            /* X_new from X, V_new from V, H_new from H */
            const k_tensor *src = &in[2 + (k == 0 ? 0 : k + 1) * cnt + t];
            out[k * cnt + t].dtype = src->dtype;
            out[k * cnt + t].shape = src->shape;
            out[k * cnt + t].layout = G_LAYOUT_PLAIN;
        }
    return 0;
}

static int opt_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    opt_state *s = state;
    (void)ctx;
    int cnt = (n->n_in - 2) / (2 + s->nacc), ok = 0;
    double R = ew_scalar(&in[0], &ok);
    if (!ok) return ew_fail(n, EW_EINVAL, "learning rate R is empty");
    if (g_shape_numel(&in[1].shape) != 1) return ew_fail(n, EW_EINVAL, "step count T is not a scalar");
    int64_t T = ew_ldi(in[1].data, in[1].dtype, 0);
    double r = R;
    if (s->kind == OPT_ADAGRAD) r = R / (1.0 + (double)T * s->decay);
    if (s->kind == OPT_ADAM && T > 0)
        r = R * sqrt(1.0 - pow(s->beta, (double)T)) / (1.0 - pow(s->alpha, (double)T));
    double mbeta = T > 0 ? s->beta : 1.0;     /* Momentum: the first step takes G whole */
    for (int t = 0; t < cnt; t++) {
        const k_tensor *X = &in[2 + t], *G = &in[2 + cnt + t], *A = &in[2 + 2 * cnt + t];
        const k_tensor *B = s->nacc > 1 ? &in[2 + 3 * cnt + t] : NULL;
        int dt = X->dtype;
        int64_t ne = g_shape_numel(&X->shape);
        void *Xn = out[t].data, *An = out[cnt + t].data, *Bn = B ? out[2 * cnt + t].data : NULL;
        for (int64_t i = 0; i < ne; i++) {
            size_t e = (size_t)i;
            double x = ew_ld(X->data, dt, e), g = ew_ld(G->data, dt, e) + s->norm * x;
            double a = ew_ld(A->data, dt, e), xn, an, bn = 0.0;
            switch (s->kind) {
            case OPT_ADAGRAD:
                an = a + g * g;
                xn = x - r * g / (sqrt(an) + s->eps);
                break;
            case OPT_MOMENTUM:
                an = s->alpha * a + mbeta * g;
                xn = s->nesterov ? x - R * (g + s->alpha * an) : x - R * an;
                break;
            default:
                an = s->alpha * a + (1.0 - s->alpha) * g;
                bn = s->beta * ew_ld(B->data, dt, e) + (1.0 - s->beta) * g * g;
                xn = (1.0 - s->norm_post) * (x - r * an / (sqrt(bn) + s->eps));
                break;
            }
            ew_st(Xn, dt, e, xn);
            ew_st(An, dt, e, an);
            if (Bn) ew_st(Bn, dt, e, bn);
        }
    }
    return 0;
}

#define OPT_OP(var, name)                                                                     \
    static const k_op var = { name, "ai.onnx.preview.training", 1, 0, "ref", 0, opt_init,      \
                              opt_infer, NULL, NULL, opt_run, ew_fini_free, NULL };           \
    K_REGISTER(var);
OPT_OP(k_adagrad, "Adagrad")
OPT_OP(k_momentum, "Momentum")
OPT_OP(k_adam, "Adam")
