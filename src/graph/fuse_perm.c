/* Channels-first transposes after a matrix product (ConvNeXt's block:
 * Linear -> Permute(0,3,1,2) -> layer-scale Mul -> residual Add). A
 * per-channel constant scale after the transpose is folded into the
 * product's weight columns and bias (new constants), and the residual add
 * becomes the product's NN_PO_ADD post-op, reading the residual through a
 * new Transpose to channels-last; the transpose after the product then
 * writes the block's output. Once the layout pass keeps the residual stream
 * channels-last, both transposes hold their input's bytes unchanged and copy
 * nothing (kernels/ref/shape_transpose.c), so the block runs no Mul, no Add
 * and no transpose of its own. A pass of its own, after the fusion pass
 * (which gives the product its bias) and before the layout pass, because it
 * adds nodes. OPENACL_NO_PERM_FOLD=1 turns it off. */
#include "graph/passes.h"
#include "graph/fuse_priv.h"
#include "core/core.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int perm_eq(const g_node *n, const int64_t *want)
{
    const int64_t *p;
    if (g_attr_ints(n, "perm", &p) != 4) return 0;
    for (int i = 0; i < 4; i++) if (p[i] != want[i]) return 0;
    return 1;
}
static const int64_t k_nchw[4] = { 0, 3, 1, 2 }, k_nhwc[4] = { 0, 2, 3, 1 };

/* The values of a constant that scales axis 1 of a 4-D [N, C, H, W] tensor
 * per channel ([C,1,1], [1,C,1,1]) or as a whole (one value), into v[C]. */
static int chan_scale(const g_tensor *k, int64_t C, float *v)
{
    if (!k || k->dtype != G_F32 || k->shape.rank > 4) return 0;
    int64_t cnt = g_shape_numel(&k->shape);
    const float *d = k->data;
    int r = k->shape.rank;
    if (cnt == 1) {
        for (int64_t c = 0; c < C; c++) v[c] = d[0];
        return 1;
    }
    if (cnt != C || r < 3 || k->shape.d[r - 3] != C) return 0;
    for (int i = 0; i < r; i++)
        if (i != r - 3 && k->shape.d[i] != 1) return 0;
    memcpy(v, d, (size_t)C * sizeof *v);
    return 1;
}

/* Scales the columns of product mi's weight [K, C] and its bias by v. 1
 * when done, 0 when its weight or bias is not a float32 constant, < 0 an
 * error. */
static int scale_columns(g_graph *g, int mi, int64_t C, const float *v)
{
    const g_node *m = &g->nodes[mi];
    const g_tensor *w = fz_cst(g, m->in[1]);
    int bt = fz_in_t(m, 2);
    const g_tensor *b = bt >= 0 ? fz_cst(g, bt) : NULL;
    if (!w || w->dtype != G_F32 || w->shape.rank != 2 || w->shape.d[1] != C) return 0;
    if (bt >= 0 && (!b || b->dtype != G_F32 || b->shape.rank < 1 || g_shape_numel(&b->shape) != C ||
                    b->shape.d[b->shape.rank - 1] != C))
        return 0;
    int64_t K = w->shape.d[0];
    float *nw = malloc((size_t)(K * C) * sizeof *nw), *nb = malloc((size_t)C * sizeof *nb);
    if (!nw || !nb) { free(nw); free(nb); return -fz_oom(); }
    const float *W = w->data;
    for (int64_t k = 0; k < K; k++)
        for (int64_t c = 0; c < C; c++) nw[k * C + c] = W[k * C + c] * v[c];
    g_shape ws = w->shape, bs = { .rank = 1, .d = { C } };
    if (b) for (int64_t c = 0; c < C; c++) nb[c] = ((const float *)b->data)[c] * v[c];
    int wt = fz_const_f32(g, m->name, "scaled_w", &ws, nw);
    int nbt = b && wt >= 0 ? fz_const_f32(g, m->name, "scaled_b", &bs, nb) : -1;
    free(nw);
    free(nb);
    if (wt < 0 || (b && nbt < 0)) return -fz_oom();
    g->nodes[mi].in[1] = wt;
    if (b) g->nodes[mi].in[2] = nbt;
    return 1;
}

/* The residual o added after the transpose: a new Transpose o -> channels
 * last becomes product mi's addend (input 3). 1 when done, < 0 an error. */
static int add_residual(fz *f, int mi, int xi, int ci, int o, nn_post *p)
{
    g_graph *g = f->g;
    char name[300];
    const char *base = g->t[o].name ? g->t[o].name : "t";
    for (int k = 0;; k++) {
        snprintf(name, sizeof name, "%s/_oa_nhwc_perm%d", base, k);
        if (g_tensor_find(g, name) < 0) break;
    }
    int ot = g_tensor_add(g, name);
    if (ot < 0) return -fz_oom();
    const g_shape *os = &g->t[o].shape;
    g->t[ot].dtype = g->t[o].dtype;
    g->t[ot].shape = (g_shape){ .rank = 4, .d = { os->d[0], os->d[2], os->d[3], os->d[1] } };
    snprintf(name, sizeof name, "%s/_oa_to_nhwc", g->nodes[ci].name ? g->nodes[ci].name : "add");
    int in[1] = { o }, out[1] = { ot };
    int opset = g->nodes[xi].opset;
    int ti = g_node_add(g, "Transpose", "", name, 1, in, 1, out);
    if (ti < 0) return -fz_oom();
    g->nodes[ti].opset = opset;
    int rc = fz_set_attr_ints(&g->nodes[ti], "perm", k_nhwc, 4);
    if (rc) return -rc;
    g_node *m = &g->nodes[mi];
    if (m->n_in <= NN_ADD_INPUT) {
        int *grown = realloc(m->in, (NN_ADD_INPUT + 1) * sizeof *grown);
        if (!grown) return -fz_oom();
        for (int i = m->n_in; i <= NN_ADD_INPUT; i++) grown[i] = -1;
        m->in = grown;
        m->n_in = NN_ADD_INPUT + 1;
    }
    m->in[NN_ADD_INPUT] = ot;
    p->kind[p->n] = NN_PO_ADD;
    p->a[p->n] = p->b[p->n] = 0.f;
    p->n++;
    p->has_add = 1;
    return 1;
}

/* MatMul mi -> Transpose(0,3,1,2) -> [Mul by a channel constant] ->
 * [Add of a same-shape activation]. Returns the nodes absorbed, < 0 an
 * error. */
static int fold_one(fz *f, int mi)
{
    g_graph *g = f->g;
    const g_node *m = &g->nodes[mi];
    if (!fz_is_op(m, "MatMul") || m->n_in < 2 || m->n_out != 1 || m->out[0] < 0) return 0;
    int t = m->out[0], slot;
    const g_tensor *tt = &g->t[t];
    if (tt->dtype != G_F32 || tt->shape.rank != 4 || !g_shape_known(&tt->shape)) return 0;
    int xi = fz_single_use(f, t, &slot);
    if (xi < 0 || !fz_is_op(&g->nodes[xi], "Transpose") || !perm_eq(&g->nodes[xi], k_nchw)) return 0;
    nn_post p;
    if (nn_post_parse(m, &p)) return 0;
    int64_t C = tt->shape.d[3];
    float *v = malloc((size_t)C * sizeof *v);
    if (!v) return -fz_oom();
    int absorbed = 0, rc = 0;
    for (;;) {
        int u = g->nodes[xi].out[0];
        int ci = u >= 0 ? fz_single_use(f, u, &slot) : -1;
        if (ci < 0) break;
        const g_node *c = &g->nodes[ci];
        if (c->n_in != 2 || c->n_out != 1 || c->out[0] < 0 || g->t[c->out[0]].dtype != G_F32 ||
            !g_shape_eq(&g->t[c->out[0]].shape, &g->t[u].shape))
            break;
        int o = c->in[1 - slot];
        if (fz_is_op(c, "Mul") && p.n == 0 && !p.has_add && chan_scale(fz_cst(g, o), C, v)) {
            if ((rc = scale_columns(g, mi, C, v)) <= 0) break;
        } else if (fz_is_op(c, "Add") && !p.has_add && p.n < NN_MAX_PO && o >= 0 && o != u &&
                   !fz_cst(g, o) && g->t[o].dtype == G_F32 && g_shape_eq(&g->t[o].shape, &g->t[u].shape) &&
                   fz_in_t(&g->nodes[mi], NN_ADD_INPUT) < 0) {
            if ((rc = add_residual(f, mi, xi, ci, o, &p)) <= 0) break;
        } else {
            break;
        }
        f->dead[ci] = 1;
        g->nodes[xi].out[0] = g->nodes[ci].out[0];
        absorbed++;
    }
    free(v);
    if (rc < 0) return rc;
    if (!absorbed) return 0;
    g_node *mm = &g->nodes[mi];
    if (p.has_add && (rc = fz_write_post(mm, &p))) return -rc;
    fz_unbind(mm);
    fz_unbind(&g->nodes[xi]);
    return absorbed;
}

int graph_pass_perm_fold(g_graph *g)
{
    if (!g || !g->n_nodes) return 0;
    const char *off = getenv("OPENACL_NO_PERM_FOLD");
    if (off && *off && strcmp(off, "0")) return 0;
    int n0 = g->n_nodes;
    /* each original node adds at most one Transpose */
    fz f = { .g = g, .dead = calloc((size_t)n0 * 2 + 1, 1) };
    if (!f.dead) return fz_oom();
    g_cover_snap snap = { 0 };
    int rc = graph_cover_snap(g, &snap);
    for (int i = 0; i < n0 && !rc; i++) {
        if (f.dead[i]) continue;
        int r = fold_one(&f, i);
        if (r < 0) rc = -r;
        else f.nfused += r;
    }
    if (!rc && f.nfused) {
        acl_log(1, "perm fold pass: %d scale and residual nodes folded into matrix products", f.nfused);
        rc = graph_remove_nodes_snap(g, f.dead, &snap);
    }
    graph_cover_snap_free(&snap);
    free(f.dead);
    return rc;
}
