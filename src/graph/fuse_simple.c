/* Small rewrites of the fusion pass around no heavy node's kernel:
 *   - a zero constant Pad of the spatial dims before an AveragePool becomes
 *     the pool's own pads with count_include_pad=1 (torch exports
 *     avg_pool2d(padding=1) that way: Inception-v3's Mixed blocks), so no
 *     padded copy is written and the pool keeps the channels-last layout;
 *   - a Relu after an inference BatchNormalization that no convolution
 *     absorbed (DenseNet's pre-activation BN -> ReLU -> Conv) becomes the
 *     BatchNormalization's post-op: one pass over the concatenated
 *     features instead of two;
 *   - a channel Concat read only by such a BatchNormalization becomes one
 *     openacl.ConcatNorm that normalises the parts into their slices;
 *   - a strided AveragePool after a plain 1x1 Conv goes before it, so the
 *     convolution runs on the pooled plane, and an unpadded AveragePool
 *     after a ConcatNorm becomes part of it.
 * Each returns 1 when done, 0 when not applicable, < 0 an error. */
#include "graph/fuse_priv.h"
#include <stdlib.h>
#include <string.h>

static int producer(const fz *f, int t)
{
    for (int i = 0; i < f->g->n_nodes; i++) {
        if (f->dead[i]) continue;
        const g_node *n = &f->g->nodes[i];
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] == t) return i;
    }
    return -1;
}

/* A constant float tensor whose every element is zero (absent: zero). */
static int zero_const(const g_graph *g, const g_node *n, int slot)
{
    int t = fz_in_t(n, slot);
    if (t < 0) return 1;
    const g_tensor *c = fz_cst(g, t);
    if (!c || c->dtype != G_F32) return 0;
    const float *v = c->data;
    for (int64_t i = 0; i < g_shape_numel(&c->shape); i++)
        if (v[i] != 0.0f) return 0;
    return 1;
}

/* The Pad's pads as 2*r int64 (begins then ends), 0 when not a constant
 * zero pad of a 4-D tensor's spatial dims only. */
static int spatial_pads(const g_graph *g, const g_node *pad, int64_t out[8])
{
    const g_attr *mode = g_node_attr(pad, "mode");
    if (mode && (mode->type != G_AT_STRING || strcmp(mode->s, "constant"))) return 0;
    if (pad->n_in < 1 || pad->in[0] < 0 || g->t[pad->in[0]].shape.rank != 4) return 0;
    if (pad->opset >= 11) {
        if (pad->n_in > 3 || !zero_const(g, pad, 2)) return 0;
        const g_tensor *p = fz_cst(g, fz_in_t(pad, 1));
        if (!p || p->dtype != G_I64 || g_shape_numel(&p->shape) != 8) return 0;
        memcpy(out, p->data, 8 * sizeof(int64_t));
    } else {
        const g_attr *p = g_node_attr(pad, "pads"), *val = g_node_attr(pad, "value");
        if (!p || p->type != G_AT_INTS || p->n != 8 || (val && val->f != 0.0f)) return 0;
        memcpy(out, p->ints, 8 * sizeof(int64_t));
    }
    for (int i = 0; i < 8; i++)
        if (out[i] < 0 || ((i % 4) < 2 && out[i] != 0)) return 0;
    return 1;
}

int fz_fuse_pad_pool(fz *f, int pi)
{
    g_graph *g = f->g;
    const g_node *pool = &g->nodes[pi];
    if (!fz_is_op(pool, "AveragePool") || pool->n_in < 1 || pool->in[0] < 0) return 0;
    const g_attr *ap = g_node_attr(pool, "auto_pad");
    if (ap && ap->type == G_AT_STRING && strcmp(ap->s, "NOTSET")) return 0;
    if (!fz_ints_all(pool, "pads", 0, 4) || !fz_ints_all(pool, "dilations", 1, 2)) return 0;
    int slot, t = pool->in[0];
    if (fz_single_use(f, t, &slot) != pi) return 0;
    int di = producer(f, t);
    if (di < 0 || !fz_is_op(&g->nodes[di], "Pad") || g->nodes[di].n_out != 1) return 0;
    int64_t pads[8];
    if (!spatial_pads(g, &g->nodes[di], pads) || g->t[g->nodes[di].in[0]].dtype != G_F32) return 0;
    int64_t pp[4] = { pads[2], pads[3], pads[6], pads[7] };
    g_node *pw = &g->nodes[pi];
    int rc = fz_set_attr_ints(pw, "pads", pp, 4);
    if (!rc) rc = fz_set_attr_int(pw, "count_include_pad", 1);
    if (rc) return -rc;
    pw->in[0] = g->nodes[di].in[0];
    f->dead[di] = 1;
    fz_unbind(pw);
    return 1;
}

int fz_fuse_bn_relu(fz *f, int bi)
{
    g_graph *g = f->g;
    const g_node *bn = &g->nodes[bi];
    if (!fz_is_op(bn, "BatchNormalization") || bn->n_out < 1 || bn->out[0] < 0) return 0;
    if (g_attr_int(bn, "training_mode", 0) != 0 || g_node_attr(bn, "_oa_post_ops")) return 0;
    for (int j = 1; j < bn->n_out; j++)
        if (bn->out[j] >= 0) return 0;
    int slot, t = bn->out[0];
    if (g->t[t].dtype != G_F32) return 0;
    int ri = fz_single_use(f, t, &slot);
    if (ri < 0 || !fz_is_op(&g->nodes[ri], "Relu") || g->nodes[ri].n_out != 1 || g->nodes[ri].out[0] < 0)
        return 0;
    nn_post p = { .n = 1, .kind = { NN_PO_RELU } };
    g_node *bw = &g->nodes[bi];
    int rc = fz_write_post(bw, &p);
    if (rc) return -rc;
    bw->out[0] = g->nodes[ri].out[0];
    f->dead[ri] = 1;
    fz_unbind(bw);
    return 1;
}

/* A channel Concat read only by an inference BatchNormalization (a Relu
 * already folded in or not) becomes one openacl.ConcatNorm: the parts are
 * normalised straight into their slices (kernels/ref/nn_catnorm.c) instead
 * of copied and then normalised in a second pass over the whole tensor.
 * DenseNet concatenates every earlier feature map before each layer's BN. */
int fz_fuse_concat_norm(fz *f, int bi)
{
    g_graph *g = f->g;
    const g_node *bn = &g->nodes[bi];
    if (!fz_is_op(bn, "BatchNormalization") || bn->n_in != 5 || bn->n_out < 1 || bn->out[0] < 0) return 0;
    if (g_attr_int(bn, "training_mode", 0) != 0 || bn->opset < 9) return 0;
    for (int j = 1; j < bn->n_out; j++)
        if (bn->out[j] >= 0) return 0;
    nn_post p;
    if (nn_post_parse(bn, &p) || p.n > 1 || (p.n == 1 && (p.kind[0] != NN_PO_RELU || p.a[0] != 0.0f))) return 0;
    int slot, x = bn->in[0];
    if (x < 0 || fz_single_use(f, x, &slot) != bi || slot != 0) return 0;
    const g_tensor *xt = &g->t[x];
    if (xt->dtype != G_F32 || xt->shape.rank < 2 || !g_shape_known(&xt->shape)) return 0;
    int ci = producer(f, x);
    if (ci < 0 || !fz_is_op(&g->nodes[ci], "Concat") || g->nodes[ci].n_out != 1) return 0;
    const g_node *cat = &g->nodes[ci];
    int64_t ax = g_attr_int(cat, "axis", 1);
    if (ax < 0) ax += xt->shape.rank;
    if (ax != 1 || cat->n_in < 1) return 0;
    for (int k = 0; k < cat->n_in; k++)
        if (cat->in[k] < 0 || g->t[cat->in[k]].dtype != G_F32 || g->t[cat->in[k]].shape.rank != xt->shape.rank)
            return 0;
    for (int k = 1; k < 5; k++) {
        const g_tensor *c = fz_cst(g, bn->in[k]);
        if (!c || c->dtype != G_F32 || g_shape_numel(&c->shape) != xt->shape.d[1]) return 0;
    }
    int nin = 4 + cat->n_in;
    int *in = malloc((size_t)nin * sizeof *in);
    char *o = strdup("ConcatNorm"), *d = strdup("openacl");
    if (!in || !o || !d) { free(in); free(o); free(d); return -fz_oom(); }
    g_node *bw = &g->nodes[bi];
    for (int k = 0; k < 4; k++) in[k] = bw->in[k + 1];
    memcpy(in + 4, cat->in, (size_t)cat->n_in * sizeof *in);
    free(bw->in);
    free(bw->op_type);
    free(bw->domain);
    bw->in = in;
    bw->n_in = nin;
    bw->op_type = o;
    bw->domain = d;
    bw->opset = 1;
    f->dead[ci] = 1;
    fz_unbind(bw);
    return 1;
}

/* auto_pad absent, NOTSET or VALID: the pads attribute says it all */
static int explicit_pads(const g_node *n)
{
    const g_attr *ap = g_node_attr(n, "auto_pad");
    return !ap || (ap->type == G_AT_STRING && (!strcmp(ap->s, "NOTSET") || !strcmp(ap->s, "VALID")));
}

/* A 1x1 stride-1 unpadded Conv with no fused step (its output a linear map
 * of each input pixel, plus the bias), read only by a 2-D AveragePool
 * without padding, ceil mode or dilation that strides: the pool goes first,
 * so the convolution runs on the pooled plane (a quarter of the pixels
 * under a 2x2 stride-2 pool). Exact in real arithmetic: every window
 * averages k0 x k1 real pixels, and the average of W x + b is W avg(x) + b.
 * DenseNet's transitions: BN -> ReLU -> 1x1 Conv (C -> C/2) -> 2x2 AvgPool. */
int fz_pool_first(fz *f, int ci)
{
    g_graph *g = f->g;
    const g_node *c = &g->nodes[ci];
    if (!fz_is_op(c, "Conv") || c->n_in < 2 || c->n_in > 3 || c->n_out != 1 || c->in[0] < 0 || c->out[0] < 0)
        return 0;
    for (int a = 0; a < c->n_attr; a++)
        if (!strncmp(c->attr[a].name, "_oa_", 4)) return 0;   /* a fused activation, addend or step */
    const g_tensor *w = fz_cst(g, c->in[1]), *x = &g->t[c->in[0]];
    if (!w || w->shape.rank != 4 || w->shape.d[2] != 1 || w->shape.d[3] != 1 || x->shape.rank != 4 ||
        x->dtype != G_F32 || !explicit_pads(c) || !fz_ints_all(c, "strides", 1, 2) || !fz_ints_all(c, "pads", 0, 4))
        return 0;
    if (fz_in_t(c, 2) >= 0 && !fz_cst(g, c->in[2])) return 0;
    int slot, y = c->out[0], pi = fz_single_use(f, y, &slot);
    if (pi < 0 || slot != 0) return 0;
    const g_node *p = &g->nodes[pi];
    const int64_t *k, *s;
    if (!fz_is_op(p, "AveragePool") || p->n_out != 1 || p->out[0] < 0 || g_attr_ints(p, "kernel_shape", &k) != 2 ||
        !explicit_pads(p) || !fz_ints_all(p, "pads", 0, 4) || !fz_ints_all(p, "dilations", 1, 2) ||
        g_attr_int(p, "ceil_mode", 0) != 0)
        return 0;
    int ns = g_attr_ints(p, "strides", &s);
    if (ns >= 0 && ns != 2) return 0;
    if (ns < 0 || s[0] * s[1] < 2) return 0;   /* (absent strides are 1) nothing to save */
    /* pool: x -> y (the tensor between them, now the pooled input);
     * conv: y -> the pool's output */
    g_node *cw = &g->nodes[ci], *pw = &g->nodes[pi];
    int out = pw->out[0];
    pw->in[0] = cw->in[0];
    pw->out[0] = y;
    cw->in[0] = y;
    cw->out[0] = out;
    fz_unbind(cw);
    fz_unbind(pw);
    return 1;
}

/* An openacl.ConcatNorm whose only reader is a 2-D AveragePool without
 * padding, ceil mode or dilation takes the pool in (_oa_pool_kernel,
 * _oa_pool_strides): it writes each window's average of normalised values,
 * and the full normalised plane is never stored (DenseNet's transitions,
 * once the pool went before their 1x1 Conv). */
int fz_fuse_norm_pool(fz *f, int ni)
{
    g_graph *g = f->g;
    const g_node *nm = &g->nodes[ni];
    if (strcmp(nm->op_type, "ConcatNorm") || strcmp(nm->domain, "openacl") || nm->n_out != 1 || nm->out[0] < 0 ||
        g_node_attr(nm, "_oa_pool_kernel") || g->t[nm->out[0]].shape.rank != 4)
        return 0;
    int slot, pi = fz_single_use(f, nm->out[0], &slot);
    if (pi < 0 || slot != 0) return 0;
    const g_node *p = &g->nodes[pi];
    const int64_t *k, *s;
    int ns;
    if (!fz_is_op(p, "AveragePool") || p->n_out != 1 || p->out[0] < 0 || g_attr_ints(p, "kernel_shape", &k) != 2 ||
        !explicit_pads(p) || !fz_ints_all(p, "pads", 0, 4) || !fz_ints_all(p, "dilations", 1, 2) ||
        g_attr_int(p, "ceil_mode", 0) != 0 || ((ns = g_attr_ints(p, "strides", &s)) >= 0 && ns != 2) ||
        k[0] < 1 || k[1] < 1 || k[0] > 64 || k[1] > 64)
        return 0;
    int64_t kk[2] = { k[0], k[1] }, ss[2] = { ns < 0 ? 1 : s[0], ns < 0 ? 1 : s[1] };
    if (ss[0] < 1 || ss[1] < 1) return 0;
    g_node *nw = &g->nodes[ni];
    int rc = fz_set_attr_ints(nw, "_oa_pool_kernel", kk, 2);
    if (!rc) rc = fz_set_attr_ints(nw, "_oa_pool_strides", ss, 2);
    if (rc) return -rc;
    nw->out[0] = g->nodes[pi].out[0];
    f->dead[pi] = 1;
    fz_unbind(nw);
    return 1;
}

/* Flatten(x, axis = rank - 1) -> Softmax over the 2-D rows -> Reshape back
 * to x's shape (how paddle2onnx writes a last-axis softmax) becomes one
 * Softmax over x's last axis writing the Reshape's output: the same rows
 * and arithmetic, and no copy. The Reshape could share its input's storage
 * except where it writes a graph output: PP-OCRv4 rec's 40 x 6625
 * probabilities, a 1 MB copy of 65-70 us at 1 and 2 threads. */
int fz_softmax_unflatten(fz *f, int fi)
{
    g_graph *g = f->g;
    const g_node *fl = &g->nodes[fi];
    if (!fz_is_op(fl, "Flatten") || fl->n_in < 1 || fl->in[0] < 0 || fl->n_out != 1 || fl->out[0] < 0) return 0;
    int x = fl->in[0], r = g->t[x].shape.rank;
    if (r < 2 || r > G_MAX_RANK || !g_shape_known(&g->t[x].shape) || g->t[x].dtype != G_F32 ||
        g->t[x].layout != G_LAYOUT_PLAIN)
        return 0;
    int64_t ax = g_attr_int(fl, "axis", 1);
    if ((ax < 0 ? ax + r : ax) != r - 1) return 0;
    int slot, si = fz_single_use(f, fl->out[0], &slot);
    if (si < 0 || slot != 0) return 0;
    const g_node *sm = &g->nodes[si];
    if (!fz_is_op(sm, "Softmax") || sm->n_out != 1 || sm->out[0] < 0) return 0;
    int64_t sa = g_attr_int(sm, "axis", sm->opset < 13 ? 1 : -1);
    if (sa != 1 && sa != -1) return 0;   /* the 2-D rows */
    int ri = fz_single_use(f, sm->out[0], &slot);
    if (ri < 0 || slot != 0) return 0;
    const g_node *rs = &g->nodes[ri];
    if (!fz_is_op(rs, "Reshape") || rs->n_out != 1 || rs->out[0] < 0) return 0;
    const g_tensor *y = &g->t[rs->out[0]];
    if (y->dtype != G_F32 || y->layout != G_LAYOUT_PLAIN || y->shape.rank != r) return 0;
    for (int i = 0; i < r; i++)
        if (y->shape.d[i] != g->t[x].shape.d[i]) return 0;
    g_node *sw = &g->nodes[si];
    int rc = fz_set_attr_int(sw, "axis", r - 1);   /* before 13: rows of d[r-1] as well */
    if (rc) return -rc;
    sw->in[0] = x;
    sw->out[0] = g->nodes[ri].out[0];
    f->dead[fi] = f->dead[ri] = 1;
    fz_unbind(sw);
    return 2;
}
