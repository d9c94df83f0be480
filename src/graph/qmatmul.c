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
 * else reads them. OPENACL_NO_QMATMUL=1 turns the pass off. */
#include "graph/passes.h"
#include "core/core.h"
#include "acl/acl_base.h"
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

/* The Mul node mi becomes openacl.DynQMatMul(x, W, -, -, w_scale). */
static int rewrite(g_node *mul, int xt, int wt, int st)
{
    int *in = realloc(mul->in, 5 * sizeof *in);
    char *o = strdup("DynQMatMul"), *d = strdup("openacl");
    if (in) mul->in = in;
    if (!in || !o || !d) {
        free(o); free(d);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "int8 matmul pass: out of memory");
    }
    in[0] = xt; in[1] = wt; in[2] = -1; in[3] = -1; in[4] = st;
    mul->n_in = 5;
    free(mul->op_type);
    free(mul->domain);
    mul->op_type = o;
    mul->domain = d;
    mul->opset = 1;
    for (int i = 0; i < mul->n_attr; i++) g_attr_clear(&mul->attr[i]);
    mul->n_attr = 0;
    if (mul->op && mul->op->fini && mul->state) mul->op->fini(mul->state);
    mul->op = NULL;
    mul->state = NULL;
    return 0;
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
        int ii, ci, xt, wt, st;
        if (dead[i] || !match(g, i, &ii, &ci, &xt, &wt, &st)) continue;
        if ((rc = rewrite(&g->nodes[i], xt, wt, st))) break;
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
