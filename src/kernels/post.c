/* Parsers of the post-op contract (kernels/post.h): the attributes the fusion
 * pass writes, read the same way by every implementation. */
#include "kernels/post.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdlib.h>
#include <string.h>

static const char *const po_names[NN_PO_COUNT] = {
    "none", "relu", "clip", "sigmoid", "tanh", "hardsigmoid", "hardswish", "gelu_erf",
    "gelu_tanh", "silu", "elu", "add", "linear", "round"
};

const char *nn_po_name(int kind)
{
    return kind >= 0 && kind < NN_PO_COUNT ? po_names[kind] : "unknown";
}

static int post_parse(const g_node *n, const char *kinds, const char *alphas, const char *betas,
                      nn_post *p)
{
    memset(p, 0, sizeof *p);
    const int64_t *k;
    const float *a = NULL, *b = NULL;
    int c = g_attr_ints(n, kinds, &k);
    if (c <= 0) return 0;
    int ca = g_attr_floats(n, alphas, &a);
    int cb = g_attr_floats(n, betas, &b);
    if (c > NN_MAX_PO || (ca >= 0 && ca != c) || (cb >= 0 && cb != c))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused post-op list %s has %d "
                        "kinds, %d alphas, %d betas (at most %d, counts must agree)", n->name,
                        n->op_type, kinds, c, ca, cb, NN_MAX_PO);
    for (int i = 0; i < c; i++) {
        if (k[i] <= NN_PO_NONE || k[i] >= NN_PO_COUNT)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused post-op %d of %s has "
                            "unknown kind %lld", n->name, n->op_type, i, kinds, (long long)k[i]);
        p->kind[i] = (int)k[i];
        p->a[i] = ca > 0 ? a[i] : 0.f;
        p->b[i] = cb > 0 ? b[i] : 0.f;
        if (k[i] == NN_PO_ADD) {
            if (p->has_add)
                return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): more than one fused "
                                "add", n->name, n->op_type);
            p->has_add = 1;
        }
    }
    p->n = c;
    return 0;
}

int nn_post_parse(const g_node *n, nn_post *p)
{
    int r = post_parse(n, "_oa_post_ops", "_oa_post_alpha", "_oa_post_beta", p);
    if (!r && p->has_add && (n->n_in <= NN_ADD_INPUT || n->in[NN_ADD_INPUT] < 0))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused add without input %d",
                        n->name, n->op_type, NN_ADD_INPUT);
    return r;
}

int nn_se_post_parse(const g_node *n, nn_post *p)
{
    int r = post_parse(n, "_oa_se_post_ops", "_oa_se_post_alpha", "_oa_se_post_beta", p);
    if (!r && p->has_add)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): the squeeze step's post-op "
                        "list cannot add", n->name, n->op_type);
    return r;
}

int nn_dw_parse(const g_node *n, nn_dw *d)
{
    memset(d, 0, sizeof *d);
    int64_t st = g_attr_int(n, "_oa_dw_stride", 0);
    if (!st) return 0;
    if ((st != 1 && st != 2) || n->n_in <= NN_DW_W || n->in[NN_DW_W] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused depthwise step with "
                        "stride %lld and %d inputs", n->name, n->op_type, (long long)st, n->n_in);
    int r = post_parse(n, "_oa_dw_post_ops", "_oa_dw_post_alpha", "_oa_dw_post_beta", &d->po);
    if (r) return r;
    if (d->po.has_add)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused depthwise step cannot add",
                        n->name, n->op_type);
    d->on = 1;
    d->stride = st;
    d->has_bias = n->n_in > NN_DW_B && n->in[NN_DW_B] >= 0;
    return 0;
}

int nn_post_conflict(const nn_post *p)
{
    /* (algorithm, alpha, beta) as oneDNN sees them; algorithms numbered by
     * the nn_po kind that maps to them, clip and linear shared with
     * HardSigmoid's expansion */
    int alg[2 * NN_MAX_PO];
    float pa[2 * NN_MAX_PO], pb[2 * NN_MAX_PO];
    int m = 0;
    for (int i = 0; i < p->n; i++) {
        int k = p->kind[i];
        if (k == NN_PO_ADD) continue;
        if (k == NN_PO_HSIGMOID) {
            alg[m] = NN_PO_LINEAR; pa[m] = p->a[i]; pb[m] = p->b[i]; m++;
            alg[m] = NN_PO_CLIP; pa[m] = 0.f; pb[m] = 1.f; m++;
            continue;
        }
        alg[m] = k; pa[m] = p->a[i]; pb[m] = p->b[i]; m++;
    }
    for (int i = 0; i < m; i++)
        for (int j = i + 1; j < m; j++)
            if (alg[i] == alg[j] && (pa[i] != pa[j] || pb[i] != pb[j])) return 1;
    return 0;
}
