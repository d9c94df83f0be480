/* Fusion pass: folds what the heavy nodes (Conv, ConvTranspose, MatMul,
 * Gemm) can absorb into them, so it costs no separate pass over memory:
 *   - BatchNormalization, Mul/Div by a per-channel or scalar constant and
 *     Add/Sub of a per-channel constant after a Conv: folded into its
 *     weights and bias (new constants; shared ones are never changed);
 *   - a constant bias Add after MatMul/Gemm: their bias (input 2 / C);
 *   - activations (Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid,
 *     HardSwish, Elu, Gelu, x*sigmoid(x), hard-swish and exact GELU spelled
 *     out in elementary ops) and scalar affine steps: the
 *     _oa_post_ops list (see kernels/post.h);
 *   - a residual Add of a same-shape tensor: NN_PO_ADD reading input 3;
 *   - a depthwise 3x3 convolution after a 1x1 one (MobileNet's expand +
 *     depthwise pair) when oneDNN runs the pair as one primitive: the
 *     expanded tensor then never leaves the cache (nn_dw).
 * A node is only extended through a tensor nobody else reads and that is
 * not a graph output. Fused nodes are unbound so the pipeline binds and
 * infers them again; absorbed nodes are removed. */
#include "graph/passes.h"
#include "graph/errs.h"
#include "core/core.h"
#include "kernels/post.h"
#include "graph/precision.h"
#include "graph/fuse_priv.h"
#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { H_CONV, H_CONVT, H_MATMUL, H_GEMM };


int fz_is_op(const g_node *n, const char *op)
{
    return !strcmp(n->op_type, op) && (!n->domain[0] || !strcmp(n->domain, "ai.onnx"));
}

static int heavy_kind(const g_node *n)
{
    if (fz_is_op(n, "Conv")) return H_CONV;
    if (fz_is_op(n, "ConvTranspose")) return H_CONVT;
    if (fz_is_op(n, "MatMul")) return H_MATMUL;
    /* the int8 products (graph/qmatmul.c) take a MatMul's bias and post-ops */
    if ((!strcmp(n->op_type, "DynQMatMul") || !strcmp(n->op_type, "QMatMul")) &&
        !strcmp(n->domain, "openacl"))
        return H_MATMUL;
    if (fz_is_op(n, "Gemm")) return H_GEMM;
    return -1;
}

int fz_in_t(const g_node *n, int i) { return i < n->n_in ? n->in[i] : -1; }

const g_tensor *fz_cst(const g_graph *g, int t)
{
    if (t < 0 || g->t[t].kind != G_TK_CONST || !g->t[t].data) return NULL;
    return &g->t[t];
}

/* The one consumer (node, slot) of tensor t among live nodes, or -1 when
 * it has none, several, or is a graph output. */
int fz_single_use(const fz *f, int t, int *slot)
{
    const g_graph *g = f->g;
    if (g->t[t].is_output) return -1;
    int who = -1, cnt = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (f->dead[i]) continue;
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] == t) { who = i; *slot = j; cnt++; }
    }
    return cnt == 1 ? who : -1;
}

/* Live consumers of t (node indices, one entry per slot); returns the count. */
int fz_uses(const fz *f, int t, int *who, int max)
{
    const g_graph *g = f->g;
    int cnt = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (f->dead[i]) continue;
        const g_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] == t) { if (cnt < max) who[cnt] = i; cnt++; }
    }
    return cnt;
}

int fz_oom(void) { return acl_fail(ACL_ERROR_BAD_ALLOC, "fusion pass: out of memory"); }

/* ---- attributes ---- */

static g_attr *attr_slot(g_node *n, const char *name)
{
    for (int i = 0; i < n->n_attr; i++)
        if (!strcmp(n->attr[i].name, name)) { g_attr_clear(&n->attr[i]); return &n->attr[i]; }
    g_attr *a = realloc(n->attr, (size_t)(n->n_attr + 1) * sizeof *a);
    if (!a) return NULL;
    n->attr = a;
    memset(&a[n->n_attr], 0, sizeof *a);
    return &a[n->n_attr++];
}

int fz_set_attr_ints(g_node *n, const char *name, const int64_t *v, int cnt)
{
    g_attr *a = attr_slot(n, name);
    if (!a) return fz_oom();
    a->name = malloc(strlen(name) + 1);
    a->ints = malloc((size_t)(cnt ? cnt : 1) * sizeof(int64_t));
    if (!a->name || !a->ints) return fz_oom();
    strcpy(a->name, name);
    a->type = G_AT_INTS;
    a->n = cnt;
    memcpy(a->ints, v, (size_t)cnt * sizeof(int64_t));
    return 0;
}

int fz_set_attr_int(g_node *n, const char *name, int64_t v)
{
    g_attr *a = attr_slot(n, name);
    if (!a || !(a->name = strdup(name))) return fz_oom();
    a->type = G_AT_INT;
    a->i = v;
    return 0;
}

static int set_attr_floats(g_node *n, const char *name, const float *v, int cnt)
{
    g_attr *a = attr_slot(n, name);
    if (!a) return fz_oom();
    a->name = malloc(strlen(name) + 1);
    a->floats = malloc((size_t)(cnt ? cnt : 1) * sizeof(float));
    if (!a->name || !a->floats) return fz_oom();
    strcpy(a->name, name);
    a->type = G_AT_FLOATS;
    a->n = cnt;
    memcpy(a->floats, v, (size_t)cnt * sizeof(float));
    return 0;
}

static int set_attr_float(g_node *n, const char *name, float v)
{
    g_attr *a = attr_slot(n, name);
    if (!a) return fz_oom();
    a->name = malloc(strlen(name) + 1);
    if (!a->name) return fz_oom();
    strcpy(a->name, name);
    a->type = G_AT_FLOAT;
    a->f = v;
    return 0;
}

/* The post-op list p as the attributes <prefix>_ops/_alpha/_beta. */
int fz_write_post_as(g_node *n, const char *prefix, const nn_post *p)
{
    int64_t k[NN_MAX_PO];
    float a[NN_MAX_PO], b[NN_MAX_PO];
    char name[64];
    for (int i = 0; i < p->n; i++) { k[i] = p->kind[i]; a[i] = p->a[i]; b[i] = p->b[i]; }
    snprintf(name, sizeof name, "%s_ops", prefix);
    int r = fz_set_attr_ints(n, name, k, p->n);
    snprintf(name, sizeof name, "%s_alpha", prefix);
    if (!r) r = set_attr_floats(n, name, a, p->n);
    snprintf(name, sizeof name, "%s_beta", prefix);
    if (!r) r = set_attr_floats(n, name, b, p->n);
    return r;
}

int fz_write_post(g_node *n, const nn_post *p) { return fz_write_post_as(n, "_oa_post", p); }

/* ---- graph edits ---- */

void fz_unbind(g_node *n)
{
    if (n->op && n->op->fini && n->state) n->op->fini(n->state);
    n->op = NULL;
    n->state = NULL;
}

/* Makes n have at least cnt input slots (new ones omitted). */
static int grow_inputs(g_node *n, int cnt)
{
    if (n->n_in >= cnt) return 0;
    int *in = realloc(n->in, (size_t)cnt * sizeof *in);
    if (!in) return fz_oom();
    for (int i = n->n_in; i < cnt; i++) in[i] = -1;
    n->in = in;
    n->n_in = cnt;
    return 0;
}

/* A new float32 constant named after base and what (copy of data, or zeros).
 * Returns its index, -1 when out of memory. */
int fz_const_f32(g_graph *g, const char *base, const char *what, const g_shape *s, const float *data)
{
    char name[256];
    for (int k = 0;; k++) {
        snprintf(name, sizeof name, "%s/_oa_%s%s%d", base, what, k ? "_" : "", k);
        if (g_tensor_find(g, name) < 0) break;
    }
    size_t cnt = (size_t)g_shape_numel(s);
    float *d = malloc(cnt ? cnt * sizeof(float) : 4);
    if (!d) return -1;
    if (data) memcpy(d, data, cnt * sizeof(float));
    else memset(d, 0, cnt * sizeof(float));
    int t = g_tensor_add(g, name);
    if (t < 0) { free(d); return -1; }
    g_tensor *x = &g->t[t];
    x->kind = G_TK_CONST;
    x->dtype = G_F32;
    x->shape = *s;
    x->data = d;
    x->nbytes = cnt * sizeof(float);
    return t;
}

static int new_const(fz *f, const char *base, const char *what, const g_shape *s, const float *data)
{
    return fz_const_f32(f->g, base, what, s, data);
}

/* Input slot i of node ni as a float32 constant this node may modify: a
 * private copy unless nothing else reads it. NULL on failure. */
static float *own_const(fz *f, int ni, int slot, const char *what)
{
    g_graph *g = f->g;
    g_node *n = &g->nodes[ni];
    int t = n->in[slot];
    int who[2];
    if (!g->t[t].is_output && fz_uses(f, t, who, 2) == 1) return g->t[t].data;
    g_shape s = g->t[t].shape;
    int c = new_const(f, n->name, what, &s, g->t[t].data);
    if (c < 0) return NULL;
    g->nodes[ni].in[slot] = c;   /* g->nodes is stable: only tensors were added */
    return g->t[c].data;
}

/* Heavy node's bias vector (Conv/ConvTranspose input 2), created as zeros
 * when absent. M = output channels. */
static float *conv_bias(fz *f, int ni, int64_t M)
{
    g_node *n = &f->g->nodes[ni];
    if (grow_inputs(n, 3)) return NULL;
    if (n->in[2] < 0) {
        g_shape s = { .rank = 1, .d = { M } };
        int c = new_const(f, n->name, "bias", &s, NULL);
        if (c < 0) return NULL;
        f->g->nodes[ni].in[2] = c;
        return f->g->t[c].data;
    }
    return own_const(f, ni, 2, "bias");
}

/* ---- per-channel constants ---- */

/* Whether constant c broadcast against an output of rank r is a per-channel
 * vector over axis `axis` (or a scalar). Fills v[M] with its values. */
static int per_channel(const g_tensor *c, int r, int axis, int64_t M, float *v)
{
    if (c->dtype != G_F32) return 0;
    const g_shape *s = &c->shape;
    int64_t cnt = g_shape_numel(s);
    if (s->rank > r) return 0;   /* would broadcast the output to a higher rank */
    if (cnt == 1) {
        for (int64_t i = 0; i < M; i++) v[i] = ((const float *)c->data)[0];
        return 1;
    }
    if (cnt != M) return 0;
    /* right-aligned: the dim that lands on `axis` holds M, every other is 1 */
    int pos = axis - (r - s->rank);
    if (pos < 0) return 0;
    for (int i = 0; i < s->rank; i++)
        if (i != pos && s->d[i] != 1) return 0;
    if (s->d[pos] != M) return 0;
    memcpy(v, c->data, (size_t)M * sizeof(float));
    return 1;
}

/* Scales output channel oc of a Conv/ConvTranspose weight by k[oc]. */
static void scale_weights(float *w, const g_shape *ws, int transposed, int64_t group, const float *k)
{
    int64_t K = 1;
    for (int i = 2; i < ws->rank; i++) K *= ws->d[i];
    if (!transposed) {
        int64_t M = ws->d[0], per = ws->d[1] * K;
        for (int64_t oc = 0; oc < M; oc++)
            for (int64_t i = 0; i < per; i++) w[oc * per + i] *= k[oc];
    } else {
        int64_t C = ws->d[0], mg = ws->d[1], cg = C / group;
        for (int64_t ic = 0; ic < C; ic++) {
            int64_t g0 = ic / cg;
            for (int64_t m = 0; m < mg; m++)
                for (int64_t i = 0; i < K; i++) w[(ic * mg + m) * K + i] *= k[g0 * mg + m];
        }
    }
}

/* Per-output-channel affine step y*k + c folded into a Conv/ConvTranspose
 * (k may be NULL: no scaling). */
static int fold_affine(fz *f, int ni, int kind, int64_t M, const float *k, const float *c)
{
    g_graph *g = f->g;
    g_node *n = &g->nodes[ni];
    if (k) {
        g_shape ws = g->t[n->in[1]].shape;
        float *w = own_const(f, ni, 1, "w");
        if (!w) return fz_oom();
        scale_weights(w, &ws, kind == H_CONVT, g_attr_int(&g->nodes[ni], "group", 1), k);
    }
    int has_b = fz_in_t(&g->nodes[ni], 2) >= 0;
    if (has_b || c) {
        float *b = conv_bias(f, ni, M);
        if (!b) return fz_oom();
        for (int64_t i = 0; i < M; i++) {
            float v = has_b && k ? b[i] * k[i] : b[i];
            b[i] = v + (c ? c[i] : 0.f);
        }
    }
    return 0;
}

/* Output channels of a Conv/ConvTranspose node (-1 if unknown). */
static int64_t conv_out_channels(const g_graph *g, const g_node *n, int kind)
{
    const g_tensor *w = &g->t[n->in[1]];
    if (w->shape.rank < 3) return -1;
    if (kind == H_CONV) return w->shape.d[0];
    return w->shape.d[1] * g_attr_int(n, "group", 1);
}

static int scalar_const(const g_graph *g, int t, float *v)
{
    const g_tensor *c = fz_cst(g, t);
    if (!c || g_shape_numel(&c->shape) != 1) return 0;
    if (c->dtype == G_F32) *v = ((const float *)c->data)[0];
    else if (c->dtype == G_F64) *v = (float)((const double *)c->data)[0];
    else return 0;
    return 1;
}

/* Appends one post-op unless oneDNN would mishandle the chain. */
static int push_post(nn_post *p, int kind, float a, float b)
{
    if (kind == NN_PO_LINEAR && p->n > 0 && p->kind[p->n - 1] == NN_PO_LINEAR) {
        /* a2*(a1*x + b1) + b2 */
        nn_post q = *p;
        q.b[q.n - 1] = a * q.b[q.n - 1] + b;
        q.a[q.n - 1] = a * q.a[q.n - 1];
        if (nn_post_conflict(&q)) return 0;
        *p = q;
        return 1;
    }
    if (p->n >= NN_MAX_PO) return 0;
    nn_post q = *p;
    q.kind[q.n] = kind; q.a[q.n] = a; q.b[q.n] = b; q.n++;
    if (kind == NN_PO_ADD) { if (q.has_add) return 0; q.has_add = 1; }
    if (nn_post_conflict(&q)) return 0;
    *p = q;
    return 1;
}

/* ---- one fusion step: absorbs the consumer c of node ni's output ---- */

static int activation(const fz *f, const g_node *c, int *kind, float *a, float *b)
{
    const g_graph *g = f->g;
    *a = 0.f; *b = 0.f;
    if (fz_is_op(c, "Relu")) { *kind = NN_PO_RELU; return 1; }
    if (fz_is_op(c, "LeakyRelu")) { *kind = NN_PO_RELU; *a = g_attr_float(c, "alpha", 0.01f); return 1; }
    if (fz_is_op(c, "Sigmoid")) { *kind = NN_PO_SIGMOID; return 1; }
    if (fz_is_op(c, "Tanh")) { *kind = NN_PO_TANH; return 1; }
    if (fz_is_op(c, "HardSwish")) { *kind = NN_PO_HSWISH; return 1; }
    if (fz_is_op(c, "Elu")) { *kind = NN_PO_ELU; *a = g_attr_float(c, "alpha", 1.f); return 1; }
    if (fz_is_op(c, "HardSigmoid")) {
        *kind = NN_PO_HSIGMOID;
        *a = g_attr_float(c, "alpha", 0.2f);
        *b = g_attr_float(c, "beta", 0.5f);
        return 1;
    }
    if (fz_is_op(c, "Gelu")) {
        const char *ap = g_attr_str(c, "approximate", "none");
        *kind = !strcmp(ap, "tanh") ? NN_PO_GELU_TANH : NN_PO_GELU_ERF;
        return 1;
    }
    if (!strcmp(c->op_type, "Gelu") && !strcmp(c->domain, "com.microsoft")) { *kind = NN_PO_GELU_ERF; return 1; }
    if (fz_is_op(c, "Clip")) {
        float lo = -INFINITY, hi = INFINITY;
        if (c->opset < 11) {
            lo = g_attr_float(c, "min", -INFINITY);
            hi = g_attr_float(c, "max", INFINITY);
        } else {
            if (fz_in_t(c, 1) >= 0 && !scalar_const(g, c->in[1], &lo)) return 0;
            if (fz_in_t(c, 2) >= 0 && !scalar_const(g, c->in[2], &hi)) return 0;
        }
        if (lo == 0.f && isinf(hi) && hi > 0) { *kind = NN_PO_RELU; return 1; }
        if (isinf(lo)) lo = -3.4e38f;
        if (isinf(hi)) hi = 3.4e38f;
        *kind = NN_PO_CLIP; *a = lo; *b = hi;
        return 1;
    }
    return 0;
}

/* The other input of a two-input node c whose slot `slot` is t. */
static int other_in(const g_node *c, int slot)
{
    if (c->n_in != 2) return -1;
    return c->in[1 - slot];
}

/* x * sigmoid(x): t feeds exactly a Sigmoid and the Mul of both. On a
 * match the two are marked dead and *out gets the Mul's output. */
static int try_silu(fz *f, int t, nn_post *p, int *out)
{
    g_graph *g = f->g;
    int who[3];
    if (fz_uses(f, t, who, 3) != 2) return 0;
    int si = fz_is_op(&g->nodes[who[0]], "Sigmoid") ? who[0] : who[1];
    int mi = si == who[0] ? who[1] : who[0];
    const g_node *s = &g->nodes[si], *m = &g->nodes[mi];
    if (!fz_is_op(s, "Sigmoid") || !fz_is_op(m, "Mul") || m->n_in != 2 || s->n_out != 1) return 0;
    int so = s->out[0], ms = 0;
    if (fz_single_use(f, so, &ms) != mi) return 0;
    if (!((m->in[0] == t && m->in[1] == so) || (m->in[1] == t && m->in[0] == so))) return 0;
    if (!push_post(p, NN_PO_SILU, 1.f, 0.f)) return 0;
    f->dead[si] = f->dead[mi] = 1;
    *out = m->out[0];
    return 1;
}

/* x * relu6(x + 3) / 6 spelled out (Add 3, Clip 0..6, Mul by x, Div by 6 or
 * Mul by 1/6), as exporters write HardSwish for old opsets. */
static int try_hswish(fz *f, int t, nn_post *p, int *out)
{
    g_graph *g = f->g;
    int who[3];
    if (fz_uses(f, t, who, 3) != 2) return 0;
    for (int pick = 0; pick < 2; pick++) {
        int ai = who[pick], mi = who[1 - pick], slot;
        const g_node *a = &g->nodes[ai], *m = &g->nodes[mi];
        float v, lo = -1.f, hi = -1.f;
        if (!fz_is_op(a, "Add") || a->n_in != 2 || !fz_is_op(m, "Mul") || m->n_in != 2) continue;
        if (!scalar_const(g, a->in[0] == t ? a->in[1] : a->in[0], &v) || v != 3.f) continue;
        int ci = fz_single_use(f, a->out[0], &slot);
        if (ci < 0 || slot != 0) continue;
        const g_node *c = &g->nodes[ci];
        if (!fz_is_op(c, "Clip") || c->n_out != 1) continue;
        if (c->opset < 11) {
            lo = g_attr_float(c, "min", -1.f);
            hi = g_attr_float(c, "max", -1.f);
        } else if (c->n_in < 3 || !scalar_const(g, c->in[1], &lo) || !scalar_const(g, c->in[2], &hi)) {
            continue;
        }
        if (lo != 0.f || hi != 6.f) continue;
        if (fz_single_use(f, c->out[0], &slot) != mi) continue;
        if (!((m->in[0] == t && m->in[1] == c->out[0]) || (m->in[1] == t && m->in[0] == c->out[0])))
            continue;
        int di = fz_single_use(f, m->out[0], &slot);
        if (di < 0) continue;
        const g_node *d = &g->nodes[di];
        if (!((fz_is_op(d, "Div") && slot == 0 && scalar_const(g, d->in[1], &v) && v == 6.f) ||
              (fz_is_op(d, "Mul") && d->n_in == 2 && scalar_const(g, d->in[1 - slot], &v) &&
               fabsf(v - 1.f / 6.f) < 1e-7f)))
            continue;
        if (g->t[d->out[0]].shape.rank > g->t[t].shape.rank) continue;
        if (!push_post(p, NN_PO_HSWISH, 0.f, 0.f)) return 0;
        f->dead[ai] = f->dead[ci] = f->dead[mi] = f->dead[di] = 1;
        *out = d->out[0];
        return 1;
    }
    return 0;
}

/* x * 0.5 * (1 + erf(x / sqrt(2))) spelled out (exact GELU as exporters
 * write it): Div by sqrt(2) (or Mul by 1/sqrt(2)), Erf, Add 1, Mul by x,
 * Mul by 0.5 (either order of the last two). */
static int try_gelu(fz *f, int t, nn_post *p, int *out)
{
    g_graph *g = f->g;
    int who[3];
    if (fz_uses(f, t, who, 3) != 2) return 0;
    for (int pick = 0; pick < 2; pick++) {
        int di = who[pick], mi = who[1 - pick], slot;
        const g_node *d = &g->nodes[di], *m = &g->nodes[mi];
        float v;
        if (!fz_is_op(m, "Mul") || m->n_in != 2 || d->n_in != 2) continue;
        int scaled = (fz_is_op(d, "Div") && d->in[0] == t && scalar_const(g, d->in[1], &v) &&
                      fabsf(v - 1.41421356f) < 1e-4f) ||
                     (fz_is_op(d, "Mul") && scalar_const(g, d->in[0] == t ? d->in[1] : d->in[0], &v) &&
                      fabsf(v - 0.70710678f) < 1e-5f);
        if (!scaled) continue;
        int ei = fz_single_use(f, d->out[0], &slot);
        if (ei < 0 || !fz_is_op(&g->nodes[ei], "Erf")) continue;
        int ai = fz_single_use(f, g->nodes[ei].out[0], &slot);
        if (ai < 0) continue;
        const g_node *a = &g->nodes[ai];
        if (!fz_is_op(a, "Add") || a->n_in != 2 || !scalar_const(g, a->in[1 - slot], &v) || v != 1.f)
            continue;
        if (fz_single_use(f, a->out[0], &slot) != mi) continue;
        if (!((m->in[0] == t && m->in[1] == a->out[0]) || (m->in[1] == t && m->in[0] == a->out[0])))
            continue;
        int hi = fz_single_use(f, m->out[0], &slot);
        if (hi < 0) continue;
        const g_node *h = &g->nodes[hi];
        if (!fz_is_op(h, "Mul") || h->n_in != 2 || !scalar_const(g, h->in[1 - slot], &v) || v != 0.5f)
            continue;
        if (g->t[h->out[0]].shape.rank > g->t[t].shape.rank) continue;
        if (!push_post(p, NN_PO_GELU_ERF, 0.f, 0.f)) return 0;
        f->dead[di] = f->dead[ei] = f->dead[ai] = f->dead[mi] = f->dead[hi] = 1;
        *out = h->out[0];
        return 1;
    }
    return 0;
}

/* A constant bias over the last dim (k) added to MatMul/Gemm node ni's
 * output t: becomes its bias (input 2, summed with one it has). 1 when
 * done, 0 when not applicable, < 0 an error. */
static int fold_mm_bias(fz *f, int ni, int kind, const g_tensor *k, int t)
{
    g_graph *g = f->g;
    int rc;
    int64_t N = g->t[t].shape.rank >= 1 ? g->t[t].shape.d[g->t[t].shape.rank - 1] : -1;
    if (!(k && k->dtype == G_F32 && N > 0 && g_shape_numel(&k->shape) == N &&
          k->shape.rank >= 1 && k->shape.rank <= g->t[t].shape.rank &&
          k->shape.d[k->shape.rank - 1] == N))
        return 0;
    if ((rc = grow_inputs(&g->nodes[ni], 3))) return -rc;
    g_node *n = &g->nodes[ni];
    int bt = fz_in_t(n, 2);
    float beta = kind == H_GEMM ? g_attr_float(n, "beta", 1.f) : 1.f;
    const g_tensor *old = fz_cst(g, bt);
    if (!(bt < 0 || (old && old->dtype == G_F32 && g_shape_numel(&old->shape) == N &&
                     old->shape.d[old->shape.rank - 1] == N)))
        return 0;
    g_shape s = { .rank = 1, .d = { N } };
    float *nb = malloc((size_t)N * sizeof(float));
    if (!nb) return -fz_oom();
    for (int64_t i = 0; i < N; i++)
        nb[i] = ((const float *)k->data)[i] + (old ? beta * ((const float *)old->data)[i] : 0.f);
    int ct = new_const(f, n->name, "bias", &s, nb);
    free(nb);
    if (ct < 0) return -fz_oom();
    g->nodes[ni].in[2] = ct;
    if (kind == H_GEMM && (rc = set_attr_float(&g->nodes[ni], "beta", 1.f))) return -rc;
    return 1;
}

static int fuse_step(fz *f, int ni, int kind, nn_post *p, int64_t M)
{
    g_graph *g = f->g;
    g_node *n = &g->nodes[ni];
    int t = n->out[0], slot = 0;
    int ci = fz_single_use(f, t, &slot);
    if (ci < 0) {
        int out2 = -1;
        if (fz_uses(f, t, (int[3]){0}, 3) != 2 || g->t[t].is_output) return 0;
        if (!try_silu(f, t, p, &out2) && !try_hswish(f, t, p, &out2) && !try_gelu(f, t, p, &out2))
            return 0;
        g->nodes[ni].out[0] = out2;
        return 1;
    }
    g_node *c = &g->nodes[ci];
    int r = g->t[t].shape.rank;
    if (g->t[t].dtype != G_F32 || c->n_out < 1) return 0;
    for (int j = 1; j < c->n_out; j++) {   /* extra outputs (BN in training) must be unused */
        int who[1];
        if (c->out[j] >= 0 && (g->t[c->out[j]].is_output || fz_uses(f, c->out[j], who, 1))) return 0;
    }
    int is_conv = kind == H_CONV || kind == H_CONVT;
    float *v = NULL;
    int done = 0, rc = 0;

    if (is_conv && M > 0 && (v = malloc((size_t)M * 2 * sizeof(float)))) {
        float *v2 = v + M;
        if (fz_is_op(c, "BatchNormalization") && slot == 0 && p->n == 0 &&
            g_attr_int(c, "training_mode", 0) == 0 && g_attr_int(c, "spatial", 1) == 1) {
            const g_tensor *sc = fz_cst(g, fz_in_t(c, 1)), *bb = fz_cst(g, fz_in_t(c, 2));
            const g_tensor *mu = fz_cst(g, fz_in_t(c, 3)), *var = fz_cst(g, fz_in_t(c, 4));
            float eps = g_attr_float(c, "epsilon", 1e-5f);
            if (sc && bb && mu && var && sc->dtype == G_F32 && bb->dtype == G_F32 &&
                mu->dtype == G_F32 && var->dtype == G_F32 && g_shape_numel(&sc->shape) == M &&
                g_shape_numel(&bb->shape) == M && g_shape_numel(&mu->shape) == M &&
                g_shape_numel(&var->shape) == M) {
                const float *S = sc->data, *B = bb->data, *MU = mu->data, *VAR = var->data;
                for (int64_t i = 0; i < M; i++) {
                    v[i] = S[i] / sqrtf(VAR[i] + eps);
                    v2[i] = B[i] - MU[i] * v[i];
                }
                rc = fold_affine(f, ni, kind, M, v, v2);
                done = 1;
            }
        } else if ((fz_is_op(c, "Mul") || fz_is_op(c, "Div")) && p->n == 0 && fz_in_t(c, 1 - slot) >= 0 &&
                   (fz_is_op(c, "Mul") || slot == 0)) {
            const g_tensor *k = fz_cst(g, other_in(c, slot));
            if (k && per_channel(k, r, 1, M, v)) {
                if (fz_is_op(c, "Div")) for (int64_t i = 0; i < M; i++) v[i] = 1.f / v[i];
                rc = fold_affine(f, ni, kind, M, v, NULL);
                done = 1;
            }
        } else if ((fz_is_op(c, "Add") || (fz_is_op(c, "Sub") && slot == 0)) && p->n == 0 &&
                   other_in(c, slot) >= 0) {
            const g_tensor *k = fz_cst(g, other_in(c, slot));
            if (k && per_channel(k, r, 1, M, v)) {
                if (fz_is_op(c, "Sub")) for (int64_t i = 0; i < M; i++) v[i] = -v[i];
                rc = fold_affine(f, ni, kind, M, NULL, v);
                done = 1;
            }
        }
    }
    free(v);
    if (rc) return rc > 0 ? -rc : rc;

    if (!done && (kind == H_MATMUL || kind == H_GEMM) && fz_is_op(c, "Add") && p->n == 0 &&
        other_in(c, slot) >= 0) {
        if ((done = fold_mm_bias(f, ni, kind, fz_cst(g, other_in(c, slot)), t)) < 0) return done;
        n = &g->nodes[ni];
    }
    if (!done && (fz_is_op(c, "Add") || fz_is_op(c, "Sum")) && c->n_in == 2) {
        /* residual add of a same-shape activation */
        int o = other_in(c, slot);
        if (o >= 0 && o != t && !fz_cst(g, o) && g->t[o].dtype == G_F32 &&
            g_shape_known(&g->t[o].shape) && g_shape_eq(&g->t[o].shape, &g->t[t].shape) &&
            fz_in_t(n, NN_ADD_INPUT) < 0 && push_post(p, NN_PO_ADD, 0.f, 0.f)) {
            if ((rc = grow_inputs(n, NN_ADD_INPUT + 1))) return -rc;
            g->nodes[ni].in[NN_ADD_INPUT] = o;
            done = 1;
        }
    }
    if (!done && c->n_in >= 1 && c->in[0] == t && slot == 0) {
        int ak;
        float a, b;
        if (activation(f, c, &ak, &a, &b) && push_post(p, ak, a, b)) done = 1;
    }
    if (!done && (!is_conv || p->n > 0) && (fz_is_op(c, "Mul") || fz_is_op(c, "Div") || fz_is_op(c, "Add") ||
                                           (fz_is_op(c, "Sub") && slot == 0))) {
        /* scalar affine step: after a MatMul/Gemm (attention scaling), or
         * after a convolution's activation (PP-OCR's learnable affine) */
        float s;
        int o = other_in(c, slot);
        if (o >= 0 && scalar_const(g, o, &s)) {
            float a = 1.f, b = 0.f;
            if (fz_is_op(c, "Mul")) a = s;
            else if (fz_is_op(c, "Div")) { if (slot != 0 || s == 0.f) return 0; a = 1.f / s; }
            else if (fz_is_op(c, "Add")) b = s;
            else b = -s;
            /* a scalar constant of higher rank would broadcast the output up */
            if (g->t[o].shape.rank <= g->t[t].shape.rank && push_post(p, NN_PO_LINEAR, a, b)) done = 1;
        }
    }
    if (!done) return 0;
    f->dead[ci] = 1;
    g->nodes[ni].out[0] = c->out[0];
    return 1;
}

int fz_ints_all(const g_node *n, const char *name, int64_t v, int cnt)
{
    const int64_t *a;
    int c = g_attr_ints(n, name, &a);
    if (c < 0) return 1;   /* absent: the default */
    if (c != cnt) return 0;
    for (int i = 0; i < c; i++) if (a[i] != v) return 0;
    return 1;
}

/* Folds a depthwise 3x3 Conv (pads 1, stride 1 or 2) into the 1x1 Conv that
 * alone feeds it. Returns 1 when done, 0 when not applicable, < 0 error. */
static int fuse_dw(fz *f, int ai)
{
    g_graph *g = f->g;
    g_node *a = &g->nodes[ai];
    if (!fz_is_op(a, "Conv") || a->n_out != 1 || a->n_in < 2) return 0;
    if (graph_node_bf16(a)) return 0;   /* the fused depthwise step is float32 only */
    if (g_node_attr(a, "_oa_dw_stride") || fz_in_t(a, NN_ADD_INPUT) >= 0) return 0;
    const g_tensor *aw = fz_cst(g, a->in[1]);
    int t = a->out[0], slot;
    if (!aw || aw->dtype != G_F32 || aw->shape.rank != 4 || aw->shape.d[2] != 1 || aw->shape.d[3] != 1)
        return 0;
    if (g->t[t].dtype != G_F32 || g->t[t].shape.rank != 4 || !g_shape_known(&g->t[t].shape)) return 0;
    if (g_attr_int(a, "group", 1) != 1 || !fz_ints_all(a, "strides", 1, 2) || !fz_ints_all(a, "pads", 0, 4))
        return 0;
    if (strcmp(g_attr_str(a, "auto_pad", "NOTSET"), "NOTSET")) return 0;
    if (fz_in_t(a, 2) >= 0 && !fz_cst(g, a->in[2])) return 0;
    int bi = fz_single_use(f, t, &slot);
    if (bi < 0 || slot != 0) return 0;
    g_node *b = &g->nodes[bi];
    int64_t M = g->t[t].shape.d[1];
    const g_tensor *bw = fz_is_op(b, "Conv") && b->n_out == 1 && b->n_in >= 2 ? fz_cst(g, b->in[1]) : NULL;
    if (!bw || bw->dtype != G_F32 || bw->shape.rank != 4 || bw->shape.d[0] != M ||
        bw->shape.d[1] != 1 || bw->shape.d[2] != 3 || bw->shape.d[3] != 3)
        return 0;
    if (g_attr_int(b, "group", 1) != M || !fz_ints_all(b, "dilations", 1, 2) ||
        g_node_attr(b, "_oa_dw_stride") || fz_in_t(b, NN_ADD_INPUT) >= 0)
        return 0;
    if (fz_in_t(b, 2) >= 0 && (!fz_cst(g, b->in[2]) || g->t[b->in[2]].dtype != G_F32)) return 0;
    const int64_t *st;
    int sc = g_attr_ints(b, "strides", &st);
    int64_t stride = sc < 0 ? 1 : (sc == 2 && st[0] == st[1] ? st[0] : 0);
    if (stride != 1 && stride != 2) return 0;
    const char *ap = g_attr_str(b, "auto_pad", "NOTSET");
    int pads_ok = !strcmp(ap, "NOTSET") ? fz_ints_all(b, "pads", 1, 4) && g_node_attr(b, "pads")
                                        : (stride == 1 && strncmp(ap, "SAME", 4) == 0);
    if (!pads_ok) return 0;
    nn_post pa;
    nn_dw d;
    memset(&d, 0, sizeof d);
    if (nn_post_parse(a, &pa) || nn_post_parse(b, &d.po) || pa.has_add || d.po.has_add) return 0;
    /* a SiLU on the expanded tensor runs faster as the separate pass the
     * unfused convolution gets (the backend's SiLU pass) than inside oneDNN's fused
     * kernel (EfficientNet-B0's first expand + depthwise pair: 1.49 -> 1.17 ms) */
    for (int i = 0; i < pa.n; i++)
        if (pa.kind[i] == NN_PO_SILU) return 0;
    d.on = 1;
    d.stride = stride;
    d.has_bias = 1;
    const g_tensor *x = &g->t[a->in[0]];
    if (x->shape.rank != 4 || !g_shape_known(&x->shape)) return 0;
    /* only where an implementation runs the pair as one fast kernel */
    k_dw_fusion q = { x->shape.d[1], M, x->shape.d[2], x->shape.d[3], &pa, &d };
    if (!k_fuse_dw(a, &q)) return 0;
    /* graft: inputs 4/5, the depthwise attributes, the consumer's output */
    int rc = grow_inputs(a, NN_DW_B + 1);
    if (rc) return -rc;
    a = &g->nodes[ai];
    b = &g->nodes[bi];
    int wt = b->in[1], bt = fz_in_t(b, 2);
    if (bt < 0) {
        g_shape bs = { .rank = 1, .d = { M } };
        if ((bt = new_const(f, b->name, "bias", &bs, NULL)) < 0) return -fz_oom();
    }
    a = &g->nodes[ai];
    b = &g->nodes[bi];
    a->in[NN_DW_W] = wt;
    a->in[NN_DW_B] = bt;
    int64_t sv = stride;
    int64_t k[NN_MAX_PO];
    float al[NN_MAX_PO], be[NN_MAX_PO];
    for (int i = 0; i < d.po.n; i++) { k[i] = d.po.kind[i]; al[i] = d.po.a[i]; be[i] = d.po.b[i]; }
    g_attr *at = attr_slot(a, "_oa_dw_stride");
    if (!at || !(at->name = malloc(sizeof "_oa_dw_stride"))) return -fz_oom();
    strcpy(at->name, "_oa_dw_stride");
    at->type = G_AT_INT;
    at->i = sv;
    if (d.po.n && ((rc = fz_set_attr_ints(a, "_oa_dw_post_ops", k, d.po.n)) ||
                   (rc = set_attr_floats(a, "_oa_dw_post_alpha", al, d.po.n)) ||
                   (rc = set_attr_floats(a, "_oa_dw_post_beta", be, d.po.n))))
        return -rc;
    a->out[0] = b->out[0];
    f->dead[bi] = 1;
    fz_unbind(a);
    return 1;
}

/* Runs fn over every live node (fn: nodes absorbed / `per`, or < 0 an
 * error), unless environment variable off_env turns the round off. */
static int each_node(fz *f, int (*fn)(fz *, int), int per, const char *off_env)
{
    const char *off = off_env ? getenv(off_env) : NULL;
    if (off && *off && strcmp(off, "0")) return 0;
    for (int i = 0; i < f->g->n_nodes; i++) {
        if (f->dead[i]) continue;
        int r = fn(f, i);
        if (r < 0) return -r;
        f->nfused += per * r;
    }
    return 0;
}

int graph_pass_fuse(g_graph *g)
{
    if (!g || !g->n_nodes) return 0;
    const char *off = getenv("OPENACL_NO_FUSE");   /* debugging and tests: pass disabled */
    if (off && *off && strcmp(off, "0")) return 0;
    fz f = { .g = g };
    g_cover_snap snap = { 0 };
    f.dead = calloc((size_t)g->n_nodes, 1);
    if (!f.dead) return fz_oom();
    int rc = graph_cover_snap(g, &snap);
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        if (f.dead[i]) continue;
        g_node *n = &g->nodes[i];
        int kind = heavy_kind(n);
        if (kind < 0 || n->n_out < 1 || n->out[0] < 0 || n->n_in < 2) continue;
        if (g->t[n->out[0]].dtype != G_F32 || !g_shape_known(&g->t[n->out[0]].shape)) continue;
        int64_t M = -1;
        if (kind == H_CONV || kind == H_CONVT) {
            if (!fz_cst(g, n->in[1]) || g->t[n->in[1]].dtype != G_F32) continue;
            if (fz_in_t(n, 2) >= 0 && !fz_cst(g, n->in[2])) continue;
            M = conv_out_channels(g, n, kind);
        }
        nn_post p;
        if (nn_post_parse(n, &p)) continue;   /* already fused and malformed: leave it */
        int before = p.n, steps = 0, s;
        while ((s = fuse_step(&f, i, kind, &p, M)) == 1) steps++;
        if (s < 0) { rc = -s; break; }
        if (!steps) continue;
        n = &g->nodes[i];
        if (p.n != before && (rc = fz_write_post(n, &p))) break;
        fz_unbind(n);
        f.nfused += steps;
    }
    /* second round: depthwise steps into the 1x1 convolutions before them,
     * now that both carry their own activations */
    if (!rc) rc = each_node(&f, fuse_dw, 1, NULL);
    /* third round: squeeze-excite blocks (4 nodes into 1), their products
     * now carrying their activations */
    if (!rc) rc = each_node(&f, fz_fuse_se, 3, "OPENACL_NO_SE_FUSE");
    /* channel shuffles (no convolution involved) */
    if (!rc) rc = each_node(&f, fz_fuse_shuffle, 1, "OPENACL_NO_SHUFFLE_FUSE");
    /* pool pads and BatchNormalization activations (no heavy node) */
    if (!rc) rc = each_node(&f, fz_fuse_pad_pool, 1, "OPENACL_NO_PAD_POOL_FUSE");
    if (!rc) rc = each_node(&f, fz_fuse_bn_relu, 1, "OPENACL_NO_BN_RELU_FUSE");
    if (!rc) rc = each_node(&f, fz_fuse_concat_norm, 1, "OPENACL_NO_CONCAT_NORM");
    if (!rc) rc = each_node(&f, fz_pool_first, 1, "OPENACL_NO_POOL_FIRST");
    if (!rc) rc = each_node(&f, fz_fuse_norm_pool, 1, "OPENACL_NO_NORM_POOL");
    if (!rc) rc = each_node(&f, fz_softmax_unflatten, 1, "OPENACL_NO_SOFTMAX_UNFLATTEN");
    if (!rc && f.nfused) {
        acl_log(1, "fusion pass: %d nodes absorbed into convolutions, matrix products and shuffles", f.nfused);
        rc = graph_remove_nodes_snap(g, f.dead, &snap);
    }
    graph_cover_snap_free(&snap);
    free(f.dead);
    return rc;
}
