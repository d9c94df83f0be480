/* Matching helpers for the QDQ folding passes (see qdq_util.h). They only
 * read the graph, except qdq_const_add. */
#include "graph/qdq_util.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int qdq_is_op(const g_node *n, const char *op)
{
    return !strcmp(n->op_type, op) && (!n->domain[0] || !strcmp(n->domain, "ai.onnx"));
}

static const g_tensor *cst(const g_graph *g, int t)
{
    if (t < 0 || g->t[t].kind != G_TK_CONST || !g->t[t].data) return NULL;
    return &g->t[t];
}

int qdq_param_of(const g_graph *g, int ni, int want_q, qdq_param *p)
{
    if (ni < 0) return 0;
    const g_node *n = &g->nodes[ni];
    if (!qdq_is_op(n, want_q ? "QuantizeLinear" : "DequantizeLinear")) return 0;
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out != 1 || n->out[0] < 0) return 0;
    if (g_attr_int(n, "block_size", 0) != 0) return 0;
    if (want_q && g_attr_int(n, "saturate", 1) != 1) return 0;
    const g_tensor *s = cst(g, n->in[1]);
    if (!s || s->dtype != G_F32) return 0;
    int64_t cnt = g_shape_numel(&s->shape);
    if (cnt < 1 || s->shape.rank > 1) return 0;
    memset(p, 0, sizeof *p);
    p->node = ni;
    p->x = n->in[0];
    p->y = n->out[0];
    p->scale = n->in[1];
    p->zp = n->n_in > 2 ? n->in[2] : -1;
    p->count = cnt;
    p->axis = g_attr_int(n, "axis", 1);
    const g_tensor *z = p->zp >= 0 ? cst(g, p->zp) : NULL;
    if (p->zp >= 0 && (!z || g_shape_numel(&z->shape) != cnt)) return 0;
    if (want_q) {
        p->qtype = z ? z->dtype : G_U8;
        if (g->t[p->x].dtype != G_F32 && g->t[p->x].dtype != G_UNDEF) return 0;
    } else {
        p->qtype = g->t[p->x].dtype;
        if (z && z->dtype != p->qtype) return 0;
        if (g->t[p->y].dtype != G_F32 && g->t[p->y].dtype != G_UNDEF) return 0;
    }
    if (p->qtype != G_U8 && p->qtype != G_I8 && p->qtype != G_I32) return 0;
    for (int64_t i = 0; i < cnt; i++) {
        float v = ((const float *)s->data)[i];
        if (!(v > 0.f) || isinf(v)) return 0;   /* a zero, negative or NaN scale stays float */
    }
    return 1;
}

int qdq_dq_of(const g_graph *g, int t, qdq_param *p)
{
    if (t < 0 || g->t[t].producer < 0) return 0;
    return qdq_param_of(g, g->t[t].producer, 0, p);
}

float qdq_scale(const g_graph *g, const qdq_param *p, int64_t i)
{
    return ((const float *)g->t[p->scale].data)[p->count > 1 ? i : 0];
}

int32_t qdq_zp(const g_graph *g, const qdq_param *p, int64_t i)
{
    if (p->zp < 0) return 0;
    const g_tensor *z = &g->t[p->zp];
    size_t k = (size_t)(p->count > 1 ? i : 0);
    switch (z->dtype) {
    case G_U8: return ((const uint8_t *)z->data)[k];
    case G_I8: return ((const int8_t *)z->data)[k];
    case G_I32: return ((const int32_t *)z->data)[k];
    default: return 0;
    }
}

int qdq_same(const g_graph *g, const qdq_param *a, const qdq_param *b)
{
    return a->count == 1 && b->count == 1 && a->qtype == b->qtype &&
           qdq_scale(g, a, 0) == qdq_scale(g, b, 0) && qdq_zp(g, a, 0) == qdq_zp(g, b, 0);
}

int qdq_readers(const g_graph *g, const unsigned char *dead, int t, int *who, int *slot, int max)
{
    int cnt = g->t[t].is_output ? 1 : 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (dead && dead[i]) continue;
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] == t) {
                if (cnt < max) { who[cnt] = i; slot[cnt] = j; }
                cnt++;
            }
    }
    if (g->t[t].is_output && max > 0) { who[0] = -1; slot[0] = -1; }
    return cnt;
}

static int scalar_f(const g_graph *g, int t, float *v)
{
    const g_tensor *c = cst(g, t);
    if (!c || g_shape_numel(&c->shape) != 1) return 0;
    if (c->dtype == G_F32) *v = ((const float *)c->data)[0];
    else if (c->dtype == G_F64) *v = (float)((const double *)c->data)[0];
    else return 0;
    return 1;
}

static int push(nn_post *p, int kind, float a, float b)
{
    if (p->n >= NN_MAX_PO) return 0;
    nn_post q = *p;
    q.kind[q.n] = kind; q.a[q.n] = a; q.b[q.n] = b; q.n++;
    if (nn_post_conflict(&q)) return 0;
    *p = q;
    return 1;
}

/* One elementwise activation node: its post-op, or 0. */
static int act_of(const g_graph *g, const g_node *c, int *kind, float *a, float *b)
{
    *a = 0.f; *b = 0.f;
    if (c->n_out != 1 || c->n_in < 1) return 0;
    if (qdq_is_op(c, "Relu")) { *kind = NN_PO_RELU; return 1; }
    if (qdq_is_op(c, "LeakyRelu")) { *kind = NN_PO_RELU; *a = g_attr_float(c, "alpha", 0.01f); return 1; }
    if (qdq_is_op(c, "Sigmoid")) { *kind = NN_PO_SIGMOID; return 1; }
    if (qdq_is_op(c, "Tanh")) { *kind = NN_PO_TANH; return 1; }
    if (qdq_is_op(c, "HardSwish")) { *kind = NN_PO_HSWISH; return 1; }
    if (qdq_is_op(c, "HardSigmoid")) {
        *kind = NN_PO_HSIGMOID;
        *a = g_attr_float(c, "alpha", 0.2f);
        *b = g_attr_float(c, "beta", 0.5f);
        return 1;
    }
    if (qdq_is_op(c, "Clip")) {
        float lo = -INFINITY, hi = INFINITY;
        if (c->opset < 11) {
            lo = g_attr_float(c, "min", -INFINITY);
            hi = g_attr_float(c, "max", INFINITY);
        } else {
            if (c->n_in > 1 && c->in[1] >= 0 && !scalar_f(g, c->in[1], &lo)) return 0;
            if (c->n_in > 2 && c->in[2] >= 0 && !scalar_f(g, c->in[2], &hi)) return 0;
        }
        if (lo == 0.f && isinf(hi) && hi > 0) { *kind = NN_PO_RELU; return 1; }
        if (isinf(lo)) lo = -3.4e38f;
        if (isinf(hi)) hi = 3.4e38f;
        *kind = NN_PO_CLIP; *a = lo; *b = hi;
        return 1;
    }
    return 0;
}

int qdq_chain(const g_graph *g, const unsigned char *dead, int t, nn_post *p, int *chain, int *nchain,
              int max)
{
    for (;;) {
        int who[3], slot[3];
        int k = qdq_readers(g, dead, t, who, slot, 3);
        if (k == 1 && who[0] >= 0 && *nchain < max) {
            const g_node *c = &g->nodes[who[0]];
            int kind;
            float a, b;
            if (slot[0] != 0 || !act_of(g, c, &kind, &a, &b) || !push(p, kind, a, b)) return t;
            chain[(*nchain)++] = who[0];
            t = c->out[0];
            continue;
        }
        /* x * Sigmoid(x) */
        if (k != 2 || who[0] < 0 || who[1] < 0 || *nchain + 2 > max) return t;
        int si = qdq_is_op(&g->nodes[who[0]], "Sigmoid") ? who[0] : who[1];
        int mi = si == who[0] ? who[1] : who[0];
        const g_node *s = &g->nodes[si], *m = &g->nodes[mi];
        if (!qdq_is_op(s, "Sigmoid") || !qdq_is_op(m, "Mul") || m->n_in != 2 || s->n_out != 1) return t;
        int w2[2], s2[2];
        if (qdq_readers(g, dead, s->out[0], w2, s2, 2) != 1 || w2[0] != mi) return t;
        if (!((m->in[0] == t && m->in[1] == s->out[0]) || (m->in[1] == t && m->in[0] == s->out[0])))
            return t;
        if (!push(p, NN_PO_SILU, 1.f, 0.f)) return t;
        chain[(*nchain)++] = si;
        chain[(*nchain)++] = mi;
        t = m->out[0];
    }
}

int qdq_const_add(g_graph *g, const char *base, const char *suffix, int dtype, const g_shape *s,
                  const void *data)
{
    char name[320];
    for (int k = 0;; k++) {
        snprintf(name, sizeof name, "%s/_oa_%s%d", base ? base : "t", suffix, k);
        if (g_tensor_find(g, name) < 0) break;
    }
    size_t nb = (size_t)g_shape_numel(s) * g_dtype_size(dtype);
    void *d = malloc(nb ? nb : 1);
    if (!d) return -1;
    int t = g_tensor_add(g, name);
    if (t < 0) { free(d); return -1; }
    memcpy(d, data, nb);
    g_tensor *x = &g->t[t];
    x->kind = G_TK_CONST;
    x->dtype = dtype;
    x->shape = *s;
    x->data = d;
    x->nbytes = nb;
    x->producer = -1;
    return t;
}

int qdq_retype(g_node *n, const char *pass, const char *op, const char *domain, const int *in, int n_in,
               int drop_attrs)
{
    char *o = strdup(op), *d = strdup(domain);
    int *ins = malloc((size_t)(n_in > 0 ? n_in : 1) * sizeof *ins);
    if (!o || !d || !ins) {
        free(o); free(d); free(ins);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s pass: out of memory retyping node '%s' to %s", pass,
                        n->name ? n->name : "", op);
    }
    if (n->op && n->op->fini && n->state) n->op->fini(n->state);
    n->op = NULL;
    n->state = NULL;
    free(n->op_type); free(n->domain); free(n->in);
    n->op_type = o;
    n->domain = d;
    n->in = ins;
    memcpy(ins, in, (size_t)n_in * sizeof *ins);
    n->n_in = n_in;
    if (*domain) n->opset = 1;
    if (drop_attrs) {
        for (int i = 0; i < n->n_attr; i++) g_attr_clear(&n->attr[i]);
        n->n_attr = 0;
    }
    return 0;
}
