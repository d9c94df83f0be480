/* The int8 matrix-product pass: ONNX Runtime's dynamic int8 form of a
 * product with a constant weight (what `openacl-quant --dynamic` and ORT's
 * quantize_dynamic write)
 *     DynamicQuantizeLinear(x) -> (x_u8, x_scale, x_zp)
 *     MatMulInteger(x_u8, W_s8 constant, x_zp [, zero w_zp]) -> Cast(float)
 *     -> Mul(by Mul(x_scale, w_scale constant))
 * becomes one node, openacl.DynQMatMul(x, W, -, -, w_scale), that quantises
 * x itself per run (the op: kernels/ref/nn_dynqmm.c). Its inputs follow a
 * fused MatMul's (bias at 2, residual addend at 3), so the fusion pass after
 * this one gives it the bias Add and activation chain that follow it as it
 * does a MatMul. A chain that does not match exactly stays as it is and
 * runs op by op. The DynamicQuantizeLinear and scale Mul go when nothing
 * else reads them. ONNX Runtime's fused com.microsoft DynamicQuantizeMatMul
 * with a constant int8 weight becomes the same node.
 *
 * Before constant folding (which would turn DequantizeLinear(W) into float
 * weights), graph_pass_qdq_matmul folds a QDQ model's products
 *     MatMul(DequantizeLinear(X_u8, x_scale, x_zp), DequantizeLinear(W_s8 constant, w_scale))
 *     Gemm(the same, transA 0, alpha 1, transB either, C a float constant or
 *          DequantizeLinear(int32 constant, scale) of one value per column)
 * into openacl.QMatMul(X_u8, W [K,N], bias, -, w_scale, x_scale, x_zp): an
 * int8 product on the quantised activation, float out, that the fusion pass
 * extends the same way (kernels/ref/nn_dynqmm.c). ONNX Runtime's
 * com.microsoft QGemm over a uint8 A and a constant int8 B becomes the same
 * node (its int32 C scaled into the float bias, a quantised output through
 * inputs 7 and 8, as graph_pass_qmatmul_out writes them). Weights symmetric
 * (zero points 0), per tensor or per output column; activations per tensor.
 *
 * After fusion, graph_pass_qmatmul_out folds the QuantizeLinear (uint8, per
 * tensor) that alone reads such a product's output (its bias and activation
 * chain now inside) into it: the product then writes uint8 (inputs 7 and 8
 * y_scale, y_zero_point), so activations stay int8 between int8 products.
 * OPENACL_NO_QMATMUL=1 turns all three passes off. */
#include "graph/passes.h"
#include "graph/qdq_util.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_op(const g_node *n, const char *op)
{
    return !strcmp(n->op_type, op) && (!n->domain[0] || !strcmp(n->domain, "ai.onnx"));
}

static const g_tensor *cst(const g_graph *g, int t)
{
    if (t < 0 || g->t[t].kind != G_TK_CONST || !g->t[t].data) return NULL;
    return &g->t[t];
}

/* The one consumer of t (its index, slot in *slot), or -1 when t has none,
 * several or is a graph output. */
static int single_use(const g_graph *g, int t, int *slot)
{
    if (g->t[t].is_output) return -1;
    int who = -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            if (g->nodes[i].in[j] == t) {
                if (who >= 0) return -1;
                who = i;
                *slot = j;
            }
    return who;
}

static int all_zero(const g_tensor *t)
{
    const unsigned char *p = t->data;
    for (size_t i = 0; i < t->nbytes; i++) if (p[i]) return 0;
    return 1;
}

/* w_scale: a float constant of 1 or N values over the last dim. */
static int wscale_ok(const g_tensor *s, int64_t N)
{
    if (!s || s->dtype != G_F32) return 0;
    int64_t cnt = g_shape_numel(&s->shape);
    if (cnt == 1) return 1;
    if (cnt != N || s->shape.rank < 1) return 0;
    return s->shape.d[s->shape.rank - 1] == N;
}

/* Matches the chain ending at Mul node mi; on success fills the node
 * indices (MatMulInteger, Cast) and the tensors x, W, w_scale. */
static int match(const g_graph *g, int mi, int *ii, int *ci, int *xt, int *wt, int *st)
{
    const g_node *mul = &g->nodes[mi];
    if (!is_op(mul, "Mul") || mul->n_in != 2 || mul->n_out != 1 || mul->out[0] < 0) return 0;
    for (int side = 0; side < 2; side++) {
        int cast_t = mul->in[side], sc_t = mul->in[1 - side], slot;
        if (cast_t < 0 || sc_t < 0 || g->t[cast_t].producer < 0 || g->t[sc_t].producer < 0) continue;
        const g_node *cast = &g->nodes[g->t[cast_t].producer];
        if (!is_op(cast, "Cast") || g_attr_int(cast, "to", 0) != G_F32 || cast->n_in != 1 ||
            cast->in[0] < 0 || single_use(g, cast_t, &slot) != mi)
            continue;
        int mmi_t = cast->in[0];
        if (g->t[mmi_t].producer < 0 || single_use(g, mmi_t, &slot) != g->t[cast_t].producer) continue;
        const g_node *mmi = &g->nodes[g->t[mmi_t].producer];
        if (!is_op(mmi, "MatMulInteger") || mmi->n_in < 3 || mmi->in[0] < 0 || mmi->in[2] < 0) continue;
        const g_tensor *w = cst(g, mmi->in[1]);
        if (!w || w->dtype != G_I8 || w->shape.rank != 2) continue;
        if (mmi->n_in > 3 && mmi->in[3] >= 0) {
            const g_tensor *wz = cst(g, mmi->in[3]);
            if (!wz || !all_zero(wz)) continue;
        }
        /* x_u8 and x_zp from one DynamicQuantizeLinear, of a float x */
        int qt = mmi->in[0];
        if (g->t[qt].producer < 0) continue;
        const g_node *dql = &g->nodes[g->t[qt].producer];
        if (!is_op(dql, "DynamicQuantizeLinear") || dql->n_out < 3 || dql->out[0] != qt ||
            dql->out[2] != mmi->in[2] || dql->in[0] < 0 || g->t[dql->in[0]].dtype != G_F32)
            continue;
        /* the scale: Mul(x_scale, w_scale) either way round */
        const g_node *sm = &g->nodes[g->t[sc_t].producer];
        if (!is_op(sm, "Mul") || sm->n_in != 2 || sm->in[0] < 0 || sm->in[1] < 0) continue;
        int k = sm->in[0] == dql->out[1] ? 1 : sm->in[1] == dql->out[1] ? 0 : -1;
        if (k < 0 || !wscale_ok(cst(g, sm->in[k]), w->shape.d[1])) continue;
        /* the Mul must not broadcast the product to another shape */
        if (!g_shape_known(&g->t[mul->out[0]].shape) ||
            !g_shape_eq(&g->t[mul->out[0]].shape, &g->t[mmi_t].shape))
            continue;
        *ii = g->t[mmi_t].producer;
        *ci = g->t[cast_t].producer;
        *xt = dql->in[0];
        *wt = mmi->in[1];
        *st = sm->in[k];
        return 1;
    }
    return 0;
}

/* com.microsoft DynamicQuantizeMatMul(A, B int8 constant 2-D, b_scale
 * constant, [zero b_zero_point], [bias constant]): the DynQMatMul inputs. */
static int match_fused(const g_graph *g, int i, int in[5])
{
    const g_node *n = &g->nodes[i];
    if (strcmp(n->op_type, "DynamicQuantizeMatMul") || strcmp(n->domain, "com.microsoft") || n->n_in < 3 ||
        n->n_out != 1 || n->in[0] < 0 || g->t[n->in[0]].dtype != G_F32)
        return 0;
    const g_tensor *w = cst(g, n->in[1]), *bz = n->n_in > 3 ? cst(g, n->in[3]) : NULL;
    if (!w || w->dtype != G_I8 || w->shape.rank != 2 || !wscale_ok(cst(g, n->in[2]), w->shape.d[1])) return 0;
    if (n->n_in > 3 && n->in[3] >= 0 && (!bz || !all_zero(bz))) return 0;
    int bt = n->n_in > 4 ? n->in[4] : -1;
    if (bt >= 0 && (!cst(g, bt) || g->t[bt].dtype != G_F32 || g_shape_numel(&g->t[bt].shape) != w->shape.d[1]))
        return 0;
    int v[5] = { n->in[0], n->in[1], bt, -1, n->in[2] };
    memcpy(in, v, sizeof v);
    return 1;
}

/* The Mul node mi becomes openacl.DynQMatMul(x, W, -, -, w_scale). */
static int rewrite(g_node *mul, int xt, int wt, int st, int bt)
{
    int in[5] = { xt, wt, bt, -1, st };
    return qdq_retype(mul, "int8 matmul", "DynQMatMul", "openacl", in, 5, 1);
}

int graph_pass_qmatmul(g_graph *g)
{
    if (!g || !g->n_nodes) return 0;
    int rc = g_graph_link(g);
    if (rc) return rc;
    unsigned char *dead = calloc((size_t)g->n_nodes, 1);
    if (!dead) return acl_fail(ACL_ERROR_BAD_ALLOC, "int8 matmul pass: out of memory");
    g_cover_snap snap = { 0 };
    rc = graph_cover_snap(g, &snap);
    int done = 0;
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        int ii, ci, xt, wt, st, f[5];
        if (dead[i]) continue;
        if (match_fused(g, i, f)) {
            if ((rc = rewrite(&g->nodes[i], f[0], f[1], f[4], f[2]))) break;
            done++;
            continue;
        }
        if (!match(g, i, &ii, &ci, &xt, &wt, &st)) continue;
        if ((rc = rewrite(&g->nodes[i], xt, wt, st, -1))) break;
        dead[ii] = dead[ci] = 1;
        done++;
    }
    if (!rc && done) {
        acl_log(1, "int8 matmul pass: %d dynamic int8 products as openacl.DynQMatMul", done);
        rc = graph_remove_nodes_snap(g, dead, &snap);
        /* the quantisers and scale products nothing reads any more */
        if (!rc) rc = graph_dce(g);
    }
    graph_cover_snap_free(&snap);
    free(dead);
    return rc;
}

/* ---- QDQ products (before folding) ---- */

static const g_node *producer(const g_graph *g, int t)
{
    return t >= 0 && g->t[t].producer >= 0 ? &g->nodes[g->t[t].producer] : NULL;
}

/* A per-tensor DequantizeLinear of a uint8 activation: its x, scale, zp. */
static int dq_act(const g_graph *g, int t, int *xq, int *xs, int *xz)
{
    const g_node *d = producer(g, t);
    if (!d || !is_op(d, "DequantizeLinear") || d->n_in < 3 || d->in[0] < 0 || cst(g, d->in[0]) ||
        g_attr_int(d, "block_size", 0))
        return 0;
    const g_tensor *s = cst(g, d->in[1]), *z = cst(g, d->in[2]);
    if (!s || s->dtype != G_F32 || g_shape_numel(&s->shape) != 1 || !z || z->dtype != G_U8 ||
        g_shape_numel(&z->shape) != 1)
        return 0;
    *xq = d->in[0]; *xs = d->in[1]; *xz = d->in[2];
    return 1;
}

/* A DequantizeLinear of a constant int8 2-D weight, symmetric, per tensor
 * or per slice along `axis` (the output channels): its W and scale. */
static int dq_weight(const g_graph *g, int t, int axis, int *wq, int *ws)
{
    const g_node *d = producer(g, t);
    if (!d || !is_op(d, "DequantizeLinear") || d->n_in < 2 || g_attr_int(d, "block_size", 0)) return 0;
    const g_tensor *w = cst(g, d->in[0]), *s = cst(g, d->in[1]);
    if (!w || w->dtype != G_I8 || w->shape.rank != 2 || !s || s->dtype != G_F32) return 0;
    if (d->n_in > 2 && d->in[2] >= 0 && (!cst(g, d->in[2]) || !all_zero(cst(g, d->in[2])))) return 0;
    int64_t cnt = g_shape_numel(&s->shape), a = g_attr_int(d, "axis", 1);
    if (a < 0) a += 2;
    if (cnt != 1 && !(s->shape.rank == 1 && a == axis && cnt == w->shape.d[axis])) return 0;
    *wq = d->in[0]; *ws = d->in[1];
    return 1;
}

/* A new constant tensor (data owned by the graph from now on); -1 on OOM. */
static int add_const(g_graph *g, const char *base, const char *what, int dtype, const g_shape *sh,
                     void *data, size_t nbytes)
{
    char name[256];
    for (int k = 0;; k++) {
        snprintf(name, sizeof name, "%s/_oa_%s%d", base, what, k);
        if (g_tensor_find(g, name) < 0) break;
    }
    int t = g_tensor_add(g, name);
    if (t < 0) return -1;
    g_tensor *x = &g->t[t];
    x->kind = G_TK_CONST;
    x->dtype = dtype;
    x->shape = *sh;
    x->data = data;
    x->nbytes = nbytes;
    return t;
}

/* Gemm's B stored [N, K] (transB 1): the [K, N] copy a product reads. */
static int transpose_w(g_graph *g, const char *base, int wt)
{
    int64_t N = g->t[wt].shape.d[0], K = g->t[wt].shape.d[1];
    int8_t *d = malloc((size_t)(K * N) + 1);
    if (!d) return -1;
    const int8_t *w = g->t[wt].data;
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) d[k * N + j] = w[j * K + k];
    g_shape sh = { .rank = 2, .d = { K, N } };
    int t = add_const(g, base, "wT", G_I8, &sh, d, (size_t)(K * N));
    if (t < 0) free(d);
    return t;
}

/* Gemm's C as a float bias of N values times beta: a float constant or a
 * DequantizeLinear of an int32 constant. -2: not applicable, -1: OOM. */
static int gemm_bias(g_graph *g, const g_node *n, int64_t N)
{
    int ct = n->n_in > 2 ? n->in[2] : -1;
    if (ct < 0) return -3;   /* none */
    const g_tensor *c = cst(g, ct), *sc = NULL, *z = NULL;
    const g_node *d = c ? NULL : producer(g, ct);
    if (d && is_op(d, "DequantizeLinear") && d->n_in >= 2 && !g_attr_int(d, "block_size", 0)) {
        c = cst(g, d->in[0]);
        sc = cst(g, d->in[1]);
        z = d->n_in > 2 && d->in[2] >= 0 ? cst(g, d->in[2]) : NULL;
        if (!c || c->dtype != G_I32 || !sc || sc->dtype != G_F32 ||
            (g_shape_numel(&sc->shape) != 1 && g_shape_numel(&sc->shape) != N) ||
            (d->n_in > 2 && d->in[2] >= 0 && (!z || !all_zero(z))))
            return -2;
    } else if (!c || c->dtype != G_F32) {
        return -2;
    }
    if (g_shape_numel(&c->shape) != N || c->shape.rank < 1 || c->shape.d[c->shape.rank - 1] != N) return -2;
    float beta = g_attr_float(n, "beta", 1.f), *b = malloc((size_t)N * sizeof(float) + 1);
    if (!b) return -1;
    for (int64_t j = 0; j < N; j++) {
        int64_t k = sc && g_shape_numel(&sc->shape) > 1 ? j : 0;
        float v = sc ? (float)((const int32_t *)c->data)[j] * ((const float *)sc->data)[k]
                     : ((const float *)c->data)[j];
        b[j] = v * beta;
    }
    g_shape sh = { .rank = 1, .d = { N } };
    int t = add_const(g, n->name, "qbias", G_F32, &sh, b, (size_t)N * sizeof(float));
    if (t < 0) free(b);
    return t;
}

/* MatMul or Gemm node i over DequantizeLinear inputs: the QMatMul inputs
 * (in[7]), 1 when it applies, 0 when not, < 0 an error. */
static int qdq_inputs(g_graph *g, int i, int in[7])
{
    const g_node *n = &g->nodes[i];
    int gemm = is_op(n, "Gemm");
    if (!(gemm || is_op(n, "MatMul")) || n->n_in < 2 || n->n_out != 1) return 0;
    int tb = gemm ? (int)g_attr_int(n, "transB", 0) : 0;
    if (gemm && (g_attr_int(n, "transA", 0) || g_attr_float(n, "alpha", 1.f) != 1.f)) return 0;
    int xq, xs, xz, wq, ws;
    if (!dq_act(g, n->in[0], &xq, &xs, &xz) || !dq_weight(g, n->in[1], tb ? 0 : 1, &wq, &ws)) return 0;
    int64_t N = g->t[wq].shape.d[tb ? 0 : 1];
    int bt = -3;
    if (gemm && (bt = gemm_bias(g, n, N)) == -2) return 0;
    if (bt == -1) return -1;
    if (tb && (wq = transpose_w(g, g->nodes[i].name, wq)) < 0) return -1;
    int v[7] = { xq, wq, bt >= 0 ? bt : -1, -1, ws, xs, xz };
    memcpy(in, v, sizeof v);
    return 1;
}

/* A constant float vector of N values v[j] = k * a[j or 0] * (b ? b[j or 0] : 1)
 * (nb: b's count); -1 on OOM. */
static int scaled_vec(g_graph *g, const char *base, const char *what, int64_t N, float k,
                      const g_tensor *a, int64_t na, const float *b, int64_t nb, int a_i32)
{
    float *v = malloc((size_t)N * sizeof(float) + 1);
    if (!v) return -1;
    for (int64_t j = 0; j < N; j++) {
        float x = a_i32 ? (float)((const int32_t *)a->data)[na > 1 ? j : 0]
                        : ((const float *)a->data)[na > 1 ? j : 0];
        v[j] = b ? x * (k * b[nb > 1 ? j : 0]) : x * k;
    }
    g_shape sh = { .rank = 1, .d = { N } };
    int t = add_const(g, base, what, G_F32, &sh, v, (size_t)N * sizeof(float));
    if (t < 0) free(v);
    return t;
}

/* com.microsoft QGemm with a uint8 A, a constant int8 B (zero points 0),
 * transA 0, C an int32 constant of 1 or N values, a uint8 output or a float
 * one: the openacl.QMatMul inputs (in[9]); 1 done, 0 not applicable, -1 OOM. */
static int qgemm_inputs(g_graph *g, int i, int in[9])
{
    const g_node *n = &g->nodes[i];
    if (strcmp(n->op_type, "QGemm") || strcmp(n->domain, "com.microsoft") || n->n_in < 5 ||
        n->n_out != 1 || g_attr_int(n, "transA", 0))
        return 0;
    int tb = (int)g_attr_int(n, "transB", 0);
    float alpha = g_attr_float(n, "alpha", 1.f);
    const g_tensor *as = cst(g, n->in[1]), *az = cst(g, n->in[2]), *w = cst(g, n->in[3]), *bs = cst(g, n->in[4]);
    if (!as || as->dtype != G_F32 || g_shape_numel(&as->shape) != 1 || !az || az->dtype != G_U8 ||
        g_shape_numel(&az->shape) != 1 || !w || w->dtype != G_I8 || w->shape.rank != 2 || !bs ||
        bs->dtype != G_F32 || n->in[0] < 0 || cst(g, n->in[0]))
        return 0;
    int64_t N = w->shape.d[tb ? 0 : 1], nbs = g_shape_numel(&bs->shape);
    int bzt = n->n_in > 5 ? n->in[5] : -1;
    if ((nbs != 1 && nbs != N) || (bzt >= 0 && (!cst(g, bzt) || !all_zero(cst(g, bzt)))))
        return 0;
    int ct = n->n_in > 6 ? n->in[6] : -1, yst = n->n_in > 7 ? n->in[7] : -1, yzt = n->n_in > 8 ? n->in[8] : -1;
    const g_tensor *c = cst(g, ct), *ys = cst(g, yst), *yz = cst(g, yzt);
    int64_t nc = c ? g_shape_numel(&c->shape) : 0;
    if (ct >= 0 && (!c || c->dtype != G_I32 || (nc != 1 && nc != N) || c->shape.rank > 2)) return 0;
    if (yst >= 0 && (!ys || ys->dtype != G_F32 || g_shape_numel(&ys->shape) != 1 || !yz || yz->dtype != G_U8 ||
                     g_shape_numel(&yz->shape) != 1))
        return 0;
    float a_s = *(const float *)as->data;
    /* bias: C in units of a_scale * b_scale[n], times alpha; w_scale: alpha * b_scale */
    int bt = ct >= 0 ? scaled_vec(g, n->name, "qbias", N, alpha * a_s, c, nc, bs->data, nbs, 1) : -1;
    if (ct >= 0 && bt < 0) return -1;
    n = &g->nodes[i];
    int wst = n->in[4];
    if (alpha != 1.f) {
        const g_tensor *b2 = cst(g, n->in[4]);
        if ((wst = scaled_vec(g, n->name, "qws", nbs, alpha, b2, nbs, NULL, 1, 0)) < 0) return -1;
        n = &g->nodes[i];
    }
    int wq = n->in[3];
    if (tb && (wq = transpose_w(g, g->nodes[i].name, wq)) < 0) return -1;
    n = &g->nodes[i];
    int v[9] = { n->in[0], wq, bt, -1, wst, n->in[1], n->in[2], yst, yst >= 0 ? yzt : -1 };
    memcpy(in, v, sizeof v);
    return 1;
}

int graph_pass_qdq_matmul(g_graph *g)
{
    if (!g || !g->n_nodes) return 0;
    int rc = g_graph_link(g), done = 0;
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        int in[9], r = qdq_inputs(g, i, in), cnt = 7;
        if (!r) { r = qgemm_inputs(g, i, in); cnt = 9; }
        if (r < 0) rc = acl_fail(ACL_ERROR_BAD_ALLOC, "int8 matmul pass: out of memory");
        if (r <= 0) continue;
        if ((rc = qdq_retype(&g->nodes[i], "int8 matmul", "QMatMul", "openacl", in, cnt, 1))) break;
        done++;
    }
    if (!rc && done) {
        acl_log(1, "int8 matmul pass: %d QDQ products as openacl.QMatMul", done);
        rc = graph_dce(g);   /* the weights' and biases' DequantizeLinear */
    }
    return rc;
}

/* ---- the QuantizeLinear behind an int8 product (after fusion) ---- */

/* A QuantizeLinear to uint8, per tensor, reading only t: its node index
 * (scale and zero point constants), or -1. */
static int quantizer_of(const g_graph *g, int t)
{
    int slot = -1, ci = single_use(g, t, &slot);
    if (ci < 0 || slot != 0) return -1;
    const g_node *q = &g->nodes[ci];
    if (!is_op(q, "QuantizeLinear") || q->n_in < 2 || q->n_out != 1 || q->out[0] < 0 ||
        g_attr_int(q, "block_size", 0) ||
        g_node_attr(q, "output_dtype"))
        return -1;
    const g_tensor *s = cst(g, q->in[1]), *z = q->n_in > 2 && q->in[2] >= 0 ? cst(g, q->in[2]) : NULL;
    if (!s || s->dtype != G_F32 || g_shape_numel(&s->shape) != 1) return -1;
    if (q->n_in > 2 && q->in[2] >= 0 && (!z || z->dtype != G_U8 || g_shape_numel(&z->shape) != 1)) return -1;
    if (!(q->n_in > 2 && q->in[2] >= 0) && g->t[q->out[0]].dtype != G_U8) return -1;
    return ci;
}

int graph_pass_qmatmul_out(g_graph *g)
{
    if (!g || !g->n_nodes) return 0;
    int rc = g_graph_link(g), done = 0;
    unsigned char *dead = calloc((size_t)g->n_nodes + 1, 1);
    if (!dead) return acl_fail(ACL_ERROR_BAD_ALLOC, "int8 matmul pass: out of memory");
    g_cover_snap snap = { 0 };
    if (!rc) rc = graph_cover_snap(g, &snap);
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        g_node *n = &g->nodes[i];
        if (strcmp(n->domain, "openacl") || (strcmp(n->op_type, "QMatMul") && strcmp(n->op_type, "DynQMatMul")) ||
            n->n_out != 1 || n->out[0] < 0 || (n->n_in > 7 && n->in[7] >= 0))
            continue;
        int qi = quantizer_of(g, n->out[0]);
        if (qi < 0 || dead[qi]) continue;
        int *in = realloc(n->in, 9 * sizeof *in);
        if (!in) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "int8 matmul pass: out of memory"); break; }
        for (int j = n->n_in; j < 9; j++) in[j] = -1;
        n->in = in;
        n->n_in = 9;
        const g_node *q = &g->nodes[qi];
        in[7] = q->in[1];
        in[8] = q->n_in > 2 ? q->in[2] : -1;
        n->out[0] = q->out[0];
        if (n->op && n->op->fini && n->state) n->op->fini(n->state);
        n->op = NULL;
        n->state = NULL;
        dead[qi] = 1;
        done++;
    }
    if (!rc && done) {
        acl_log(1, "int8 matmul pass: %d QuantizeLinear folded into int8 products", done);
        rc = graph_remove_nodes_snap(g, dead, &snap);
    }
    graph_cover_snap_free(&snap);
    free(dead);
    return rc;
}

/* ---- the float step between two quantised tensors after a product ----
 * ONNX Runtime's quantiser quantises a MatMul's output before its bias, so
 * a QDQ encoder carries, behind each product,
 *     DequantizeLinear(x_u8) -> Add(bias[N]) [-> GELU spelled out:
 *     Mul(Mul(a, Add(Erf(Div(a, c)), 1)), 0.5)] -> QuantizeLinear(uint8)
 * per column a function of one byte: graph_pass_qbias makes it
 * openacl.QBias(x, x_scale, x_zp, bias, y_scale, y_zp [, c]) (c present:
 * the GELU), which the kernel runs as a per-column table of 256 entries
 * computed in float32 as the nodes would (kernels/ref/nn_qbias.c). */

static int scalar_is(const g_graph *g, int t, float v)
{
    const g_tensor *c = cst(g, t);
    return c && c->dtype == G_F32 && g_shape_numel(&c->shape) == 1 && *(const float *)c->data == v;
}

/* The other input of a two-input node whose input `t` is known: its index or -1. */
static int other_in(const g_node *n, int t)
{
    if (n->n_in != 2) return -1;
    return n->in[0] == t ? n->in[1] : n->in[1] == t ? n->in[0] : -1;
}

/* Mul(Mul(a, Add(Erf(Div(a, c)), 1)), 0.5) ending in tensor t: a and the
 * Div's constant c; the five nodes in nodes[]. */
static int gelu_of(const g_graph *g, int t, int *a, int *c, int nodes[5])
{
    const g_node *m2 = producer(g, t);
    if (!m2 || !is_op(m2, "Mul") || m2->n_in != 2) return 0;
    int h = scalar_is(g, m2->in[1], 0.5f) ? m2->in[0] : scalar_is(g, m2->in[0], 0.5f) ? m2->in[1] : -1;
    const g_node *m1 = h >= 0 ? producer(g, h) : NULL;
    if (!m1 || !is_op(m1, "Mul") || m1->n_in != 2) return 0;
    for (int k = 0; k < 2; k++) {
        int x = m1->in[k], e = m1->in[1 - k];
        const g_node *ad = producer(g, e);
        if (!ad || !is_op(ad, "Add") || ad->n_in != 2) continue;
        int ef = scalar_is(g, ad->in[1], 1.0f) ? ad->in[0] : scalar_is(g, ad->in[0], 1.0f) ? ad->in[1] : -1;
        const g_node *er = ef >= 0 ? producer(g, ef) : NULL;
        if (!er || !is_op(er, "Erf") || er->n_in != 1) continue;
        const g_node *dv = producer(g, er->in[0]);
        if (!dv || !is_op(dv, "Div") || dv->n_in != 2 || dv->in[0] != x) continue;
        const g_tensor *ct = cst(g, dv->in[1]);
        if (!ct || ct->dtype != G_F32 || g_shape_numel(&ct->shape) != 1) continue;
        *a = x;
        *c = dv->in[1];
        nodes[0] = g->t[t].producer; nodes[1] = g->t[h].producer; nodes[2] = g->t[e].producer;
        nodes[3] = g->t[ef].producer; nodes[4] = g->t[er->in[0]].producer;
        return 1;
    }
    return 0;
}

/* Whether every consumer of tensor t is one of nodes[0..cnt) (and t is no graph output). */
static int only_read_by(const g_graph *g, int t, const int *nodes, int cnt)
{
    if (g->t[t].is_output) return 0;
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            if (g->nodes[i].in[j] == t) {
                int ok = 0;
                for (int k = 0; k < cnt; k++) ok |= nodes[k] == i;
                if (!ok) return 0;
            }
    return 1;
}

/* QuantizeLinear node qi reading the pattern: the new inputs (7) and the
 * nodes that go (up to 7: Add, DQ, GELU's five). */
static int qbias_match(const g_graph *g, int qi, int in[7], int dead[7], int *nd)
{
    const g_node *q = &g->nodes[qi];
    if (!is_op(q, "QuantizeLinear") || q->n_in < 3 || q->n_out != 1 || q->out[0] < 0 ||
        g->t[q->out[0]].dtype != G_U8 || g_attr_int(q, "block_size", 0) || g_node_attr(q, "output_dtype"))
        return 0;
    const g_tensor *ys = cst(g, q->in[1]), *yz = cst(g, q->in[2]);
    if (!ys || ys->dtype != G_F32 || g_shape_numel(&ys->shape) != 1 || !yz || yz->dtype != G_U8 ||
        g_shape_numel(&yz->shape) != 1)
        return 0;
    int t = q->in[0], a = t, c = -1, gn[5];
    *nd = 0;
    if (gelu_of(g, t, &a, &c, gn)) {
        for (int k = 0; k < 5; k++) dead[(*nd)++] = gn[k];
        /* the intermediates read only inside the GELU */
        const g_node *m1 = &g->nodes[gn[1]];
        int chk[] = { m1->out[0], g->nodes[gn[2]].out[0], g->nodes[gn[3]].out[0], g->nodes[gn[4]].out[0] };
        for (int k = 0; k < 4; k++)
            if (!only_read_by(g, chk[k], gn, 5)) return 0;
        if (!only_read_by(g, a, gn, 5) || !only_read_by(g, t, &qi, 1)) return 0;
    } else if (!only_read_by(g, t, &qi, 1)) {
        return 0;
    }
    const g_node *ad = producer(g, a);
    if (!ad || !is_op(ad, "Add") || ad->n_in != 2) return 0;
    int xq, xs, xz, bt = -1;
    for (int k = 0; k < 2 && bt < 0; k++)
        if (cst(g, ad->in[k]) && dq_act(g, ad->in[1 - k], &xq, &xs, &xz)) bt = ad->in[k];
    if (bt < 0) return 0;
    const g_tensor *b = cst(g, bt);
    const g_shape *xsh = &g->t[xq].shape;
    if (b->dtype != G_F32 || b->shape.rank != 1 || xsh->rank < 1 || xsh->d[xsh->rank - 1] != b->shape.d[0] ||
        g->t[xq].dtype != G_U8)
        return 0;
    int dqt = other_in(ad, bt);
    dead[(*nd)++] = g->t[a].producer;
    if (only_read_by(g, dqt, &dead[*nd - 1], 1)) dead[(*nd)++] = g->t[dqt].producer;
    in[0] = xq; in[1] = xs; in[2] = xz; in[3] = bt; in[4] = q->in[1]; in[5] = q->in[2]; in[6] = c;
    return 1;
}

int graph_pass_qbias(g_graph *g)
{
    const char *off = getenv("OPENACL_NO_QBIAS");
    if (!g || !g->n_nodes || (off && *off && strcmp(off, "0"))) return 0;
    int rc = g_graph_link(g), done = 0;
    unsigned char *dead = calloc((size_t)g->n_nodes + 1, 1);
    if (!dead) return acl_fail(ACL_ERROR_BAD_ALLOC, "int8 bias pass: out of memory");
    g_cover_snap snap = { 0 };
    if (!rc) rc = graph_cover_snap(g, &snap);
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        int in[7], dn[7], nd, skip = 0;
        if (dead[i] || !qbias_match(g, i, in, dn, &nd)) continue;
        for (int k = 0; k < nd; k++) skip |= dead[dn[k]];
        if (skip) continue;
        int cnt = in[6] >= 0 ? 7 : 6;
        if ((rc = qdq_retype(&g->nodes[i], "int8 bias", "QBias", "openacl", in, cnt, 1))) break;
        for (int k = 0; k < nd; k++) dead[dn[k]] = 1;
        done++;
    }
    if (!rc && done) {
        acl_log(1, "int8 bias pass: %d bias (and GELU) steps between quantised tensors as openacl.QBias", done);
        rc = graph_remove_nodes_snap(g, dead, &snap);
    }
    graph_cover_snap_free(&snap);
    free(dead);
    return rc;
}
