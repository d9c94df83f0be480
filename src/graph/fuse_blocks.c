/* The fusion pass's block rewrites (see fuse.c for the pass): a
 * squeeze-excite block (GlobalAveragePool -> 1x1 Conv -> 1x1 Conv -> Mul)
 * becomes one openacl.SqueezeExcite node, ShuffleNet's channel shuffle
 * (Concat -> Reshape -> Transpose -> Reshape -> Slices) one
 * openacl.ChannelShuffle node. */
#include "graph/fuse_priv.h"
#include "graph/passes.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdlib.h>
#include <string.h>

/* ---- squeeze-excite ---- */

/* Node n turns into openacl operator `op`, its attributes dropped. */
static int become(g_node *n, const char *op)
{
    char *o = strdup(op), *d = strdup("openacl");
    if (!o || !d) { free(o); free(d); return fz_oom(); }
    free(n->op_type);
    free(n->domain);
    n->op_type = o;
    n->domain = d;
    n->opset = 1;
    for (int i = 0; i < n->n_attr; i++) g_attr_clear(&n->attr[i]);
    n->n_attr = 0;
    return 0;
}

/* The live node writing tensor t (fused nodes take over their absorbed
 * consumers' outputs, so the tensor's producer field may be stale). */
static int producer_of(const fz *f, int t)
{
    const g_graph *g = f->g;
    for (int i = 0; i < g->n_nodes; i++) {
        if (f->dead[i]) continue;
        for (int j = 0; j < g->nodes[i].n_out; j++)
            if (g->nodes[i].out[j] == t) return i;
    }
    return -1;
}

/* Whether Conv node c is a plain product of its [N, cin, 1, 1] input fit
 * for openacl.SqueezeExcite: float32 constant weights [M, cin, 1, 1] and
 * bias, group 1, no padding, unit strides and dilations, and nothing fused
 * but activations. *m = M. */
static int se_conv(const fz *f, const g_node *c, int64_t cin, int64_t *m, nn_post *p)
{
    const g_graph *g = f->g;
    if (!fz_is_op(c, "Conv") || c->n_out != 1 || c->n_in < 2 || c->n_in > 3) return 0;
    const g_tensor *w = fz_cst(g, c->in[1]);
    if (!w || w->dtype != G_F32 || w->shape.rank != 4 || w->shape.d[1] != cin ||
        w->shape.d[2] != 1 || w->shape.d[3] != 1)
        return 0;
    const g_tensor *b = fz_in_t(c, 2) >= 0 ? fz_cst(g, c->in[2]) : NULL;
    if (fz_in_t(c, 2) >= 0 && (!b || b->dtype != G_F32 || b->shape.rank != 1 || b->shape.d[0] != w->shape.d[0]))
        return 0;
    if (g_attr_int(c, "group", 1) != 1 || !fz_ints_all(c, "strides", 1, 2) || !fz_ints_all(c, "pads", 0, 4) ||
        !fz_ints_all(c, "dilations", 1, 2) || g_node_attr(c, "_oa_dw_stride"))
        return 0;
    if (nn_post_parse(c, p) || p->has_add) return 0;
    *m = w->shape.d[0];
    return 1;
}

/* GlobalAveragePool(x) -> Conv 1x1 -> Conv 1x1 -> Mul(x, .) as one
 * openacl.SqueezeExcite node (its kernels answer k_op.reads_bf16), which the Mul node
 * becomes. Returns 1 when done, 0 when not applicable, < 0 error. */
int fz_fuse_se(fz *f, int mi)
{
    g_graph *g = f->g;
    g_node *mul = &g->nodes[mi];
    if (!fz_is_op(mul, "Mul") || mul->n_in != 2 || mul->n_out != 1 || mul->in[0] < 0 || mul->in[1] < 0)
        return 0;
    for (int k = 0; k < 2; k++) {
        int xt = mul->in[k], st = mul->in[1 - k], slot;
        const g_tensor *x = &g->t[xt], *sv = &g->t[st];
        if (x->dtype != G_F32 || x->kind == G_TK_CONST || x->shape.rank != 4 || !g_shape_known(&x->shape))
            continue;
        int64_t N = x->shape.d[0], C = x->shape.d[1], R, M;
        if (sv->shape.rank != 4 || sv->shape.d[0] != N || sv->shape.d[1] != C || sv->shape.d[2] != 1 ||
            sv->shape.d[3] != 1 || fz_single_use(f, st, &slot) != mi)
            continue;
        int c2 = producer_of(f, st);
        if (c2 < 0 || g->nodes[c2].n_in < 1) continue;
        int ht = g->nodes[c2].in[0];
        int c1 = ht >= 0 && fz_single_use(f, ht, &slot) == c2 && slot == 0 ? producer_of(f, ht) : -1;
        if (c1 < 0 || g->nodes[c1].n_in < 1) continue;
        int gt = g->nodes[c1].in[0];
        int gp = gt >= 0 && fz_single_use(f, gt, &slot) == c1 && slot == 0 ? producer_of(f, gt) : -1;
        if (gp < 0) continue;
        const g_node *pool = &g->nodes[gp];
        if (!fz_is_op(pool, "GlobalAveragePool") || pool->n_in != 1 || pool->in[0] != xt || pool->n_out != 1)
            continue;
        nn_post p1, p2;
        if (!se_conv(f, &g->nodes[c1], C, &R, &p1) || !se_conv(f, &g->nodes[c2], R, &M, &p2) || M != C)
            continue;
        /* the Mul becomes the block: inputs x, W1, b1, W2, b2 */
        int *in = realloc(mul->in, 5 * sizeof *in);
        if (!in) return -fz_oom();
        mul->in = in;
        mul->n_in = 5;
        in[0] = xt;
        in[1] = g->nodes[c1].in[1];
        in[2] = fz_in_t(&g->nodes[c1], 2);
        in[3] = g->nodes[c2].in[1];
        in[4] = fz_in_t(&g->nodes[c2], 2);
        int rc = become(mul, "SqueezeExcite");
        if (!rc && p1.n) rc = fz_write_post_as(mul, "_oa_se_post", &p1);
        if (!rc && p2.n) rc = fz_write_post(mul, &p2);
        /* bf16-marked products: the block may keep its weights in bf16 */
        if (!rc && graph_node_bf16(&g->nodes[c1]) && graph_node_bf16(&g->nodes[c2]))
            rc = fz_set_attr_int(mul, G_ATTR_BF16, 1);
        if (rc) return -rc;
        f->dead[gp] = f->dead[c1] = f->dead[c2] = 1;
        fz_unbind(mul);
        return 1;
    }
    return 0;
}

/* ---- channel shuffle ---- */

/* The single int64/int32 value of constant tensor t with one element. */
static int const_int1(const g_graph *g, int t, int64_t *v)
{
    const g_tensor *c = fz_cst(g, t);
    if (!c || g_shape_numel(&c->shape) != 1) return 0;
    if (c->dtype == G_I64) *v = *(const int64_t *)c->data;
    else if (c->dtype == G_I32) *v = *(const int32_t *)c->data;
    else return 0;
    return 1;
}

/* Slice node s of the [N, C, H, W] tensor along channels only, step 1,
 * constant bounds (opset 10 and later): its range of channels. */
static int channel_slice(const g_graph *g, const g_node *s, int64_t C, int64_t *a, int64_t *b)
{
    if (!fz_is_op(s, "Slice") || s->opset < 10 || s->n_in < 3 || s->n_out != 1 || s->out[0] < 0) return 0;
    int64_t st, en, ax = 0, step = 1;
    if (!const_int1(g, s->in[1], &st) || !const_int1(g, s->in[2], &en)) return 0;
    if (fz_in_t(s, 3) >= 0 && !const_int1(g, s->in[3], &ax)) return 0;
    if (fz_in_t(s, 4) >= 0 && !const_int1(g, s->in[4], &step)) return 0;
    if ((ax != 1 && ax != -3) || step != 1) return 0;
    if (st < 0) st += C;
    if (en < 0) en += C;
    st = st < 0 ? 0 : st > C ? C : st;
    en = en < 0 ? 0 : en > C ? C : en;
    if (en <= st) return 0;
    *a = st;
    *b = en;
    return 1;
}

/* [Concat along channels ->] Reshape [N, g, C/g, H, W] -> Transpose
 * (0, 2, 1, 3, 4) -> Reshape [N, C, H, W] [-> Slices along channels] as one
 * openacl.ChannelShuffle node (a kernel of its own), which the last
 * Reshape becomes: one pass instead of three, and a layout the
 * convolutions around it can keep. Returns 1 when done, 0 when not
 * applicable, < 0 error. */
int fz_fuse_shuffle(fz *f, int ri)
{
    g_graph *g = f->g;
    g_node *r2 = &g->nodes[ri];
    if (!fz_is_op(r2, "Reshape") || r2->n_in < 1 || r2->n_out != 1 || r2->in[0] < 0 || r2->out[0] < 0) return 0;
    int slot, yt = r2->out[0], tt = r2->in[0];
    const g_shape *ys = &g->t[yt].shape;
    if (ys->rank != 4 || !g_shape_known(ys)) return 0;
    int ti = fz_single_use(f, tt, &slot) == ri ? producer_of(f, tt) : -1;
    if (ti < 0) return 0;
    const g_node *tr = &g->nodes[ti];
    const g_attr *perm = g_node_attr(tr, "perm");
    static const int64_t want[5] = { 0, 2, 1, 3, 4 };
    if (!fz_is_op(tr, "Transpose") || tr->n_in != 1 || tr->in[0] < 0 || !perm || perm->type != G_AT_INTS ||
        perm->n != 5 || memcmp(perm->ints, want, sizeof want))
        return 0;
    int ut = tr->in[0];
    int r1i = fz_single_use(f, ut, &slot) == ti ? producer_of(f, ut) : -1;
    if (r1i < 0) return 0;
    const g_node *r1 = &g->nodes[r1i];
    if (!fz_is_op(r1, "Reshape") || r1->n_in < 1 || r1->in[0] < 0) return 0;
    int xt = r1->in[0];
    const g_shape *xs = &g->t[xt].shape, *us = &g->t[ut].shape;
    if (!g_shape_eq(xs, ys) || us->rank != 5 || !g_shape_known(us)) return 0;
    int64_t N = xs->d[0], C = xs->d[1], H = xs->d[2], W = xs->d[3], grp = us->d[1];
    if (us->d[0] != N || grp < 1 || us->d[1] * us->d[2] != C || us->d[3] != H || us->d[4] != W) return 0;
    /* the parts: a single-use channel Concat's inputs, else x itself */
    int ci = fz_single_use(f, xt, &slot) == r1i ? producer_of(f, xt) : -1;
    const g_node *cat = ci >= 0 ? &g->nodes[ci] : NULL;
    if (cat && (!fz_is_op(cat, "Concat") || (g_attr_int(cat, "axis", 1) != 1 && g_attr_int(cat, "axis", 1) != -3) ||
                cat->n_in < 1 || cat->n_in > 64))
        cat = NULL;
    for (int i = 0; cat && i < cat->n_in; i++)
        if (cat->in[i] < 0 || g->t[cat->in[i]].shape.rank != 4) cat = NULL;
    /* the outputs: the Slices when every reader of y is one, else y */
    enum { MAXU = 16 };
    int who[MAXU], nu = fz_uses(f, yt, who, MAXU), fold = nu >= 1 && nu <= MAXU && !g->t[yt].is_output;
    int64_t rng[2 * MAXU];
    for (int k = 0; fold && k < nu; k++)
        fold = g->nodes[who[k]].in[0] == yt && channel_slice(g, &g->nodes[who[k]], C, &rng[2 * k], &rng[2 * k + 1]);
    for (int k = 0; fold && k < nu; k++)
        for (int m = 0; m < k; m++) fold &= who[m] != who[k];
    int nout = fold ? nu : 1;
    if (!fold) { rng[0] = 0; rng[1] = C; }
    int *in = malloc((size_t)(cat ? cat->n_in : 1) * sizeof *in), *out = malloc((size_t)nout * sizeof *out);
    if (!in || !out) { free(in); free(out); return -fz_oom(); }
    int nin = cat ? cat->n_in : 1;
    for (int i = 0; i < nin; i++) in[i] = cat ? cat->in[i] : xt;
    for (int k = 0; k < nout; k++) out[k] = fold ? g->nodes[who[k]].out[0] : yt;
    free(r2->in);
    free(r2->out);
    r2->in = in;
    r2->n_in = nin;
    r2->out = out;
    r2->n_out = nout;
    int rc = become(r2, "ChannelShuffle");
    if (!rc) rc = fz_set_attr_ints(r2, "ranges", rng, 2 * nout);
    if (!rc) rc = fz_set_attr_int(r2, "groups", grp);
    if (rc) return -rc;
    f->dead[ti] = f->dead[r1i] = 1;
    if (cat) f->dead[ci] = 1;
    for (int k = 0; fold && k < nu; k++) f->dead[who[k]] = 1;
    fz_unbind(r2);
    return 1 + (cat != NULL) + (fold ? nu : 0);
}
