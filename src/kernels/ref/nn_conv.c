/* Reference Conv and ConvTranspose: direct loops over any of 1-3 spatial
 * dims, groups, dilations, pads, either layout for 4-D activations, and the
 * fused post-ops (bias, activations, residual add) the fusion pass attaches.
 * This is the ground truth the oneDNN kernels are tested against. */
#include "kernels/ref/nn_common.h"
#include <stdlib.h>
#include <string.h>

typedef struct conv_st {
    nn_win w;
    nn_post po;
    nn_dw dw;
    int transposed;
} conv_st;

static int conv_init_common(g_graph *g, g_node *n, void **state, int transposed)
{
    conv_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int r = nn_win_parse(n, transposed ? NN_CONVT : NN_CONV, &s->w);
    if (!r) r = nn_post_parse(n, &s->po);
    if (!r && !transposed) r = nn_dw_parse(n, &s->dw);
    if (r) { free(s); return r; }
    s->transposed = transposed;
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) {
        free(s);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): needs inputs X and W",
                        n->name, n->op_type, n->opset);
    }
    for (int i = 0; i < n->n_in && i < 6; i++) {
        if (n->in[i] < 0) continue;
        int dt = g->t[n->in[i]].dtype;
        if (dt != G_UNDEF && !nn_is_float(dt)) { free(s); return nn_fail_dtype(n, i, dt); }
    }
    *state = s;
    return 0;
}

static int conv_init(g_graph *g, g_node *n, void **state) { return conv_init_common(g, n, state, 0); }
static int convt_init(g_graph *g, g_node *n, void **state) { return conv_init_common(g, n, state, 1); }

/* Shared by ref and dnnl: validates shapes and fills the output shape, with
 * w->pb/pe/out resolved for the given input. */
int nn_conv_infer_shape(const g_node *n, nn_win *w, int transposed, const k_tensor *in,
                        g_shape *out)
{
    const g_shape *xs = &in[0].shape, *ws = &in[1].shape;
    int r;
    if (xs->rank < 0 || ws->rank < 0) {   /* not known before run time */
        out->rank = -1;
        return 0;
    }
    if ((r = nn_check_rank(n, 0, xs, 3, 2 + NN_MAX_SP))) return r;
    if (ws->rank != xs->rank) {
        char a[96], b[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): W shape %s does not "
                        "match the rank of X %s", n->name, n->op_type, n->opset,
                        g_shape_str(ws, a, sizeof a), g_shape_str(xs, b, sizeof b));
    }
    int nsp = xs->rank - 2;
    for (int i = 0; i < nsp; i++) {
        int64_t kd = ws->d[2 + i];
        if (w->has_kernel && kd >= 0 && w->k[i] != kd)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): kernel_shape[%d] "
                            "= %lld but W has %lld", n->name, n->op_type, n->opset, i,
                            (long long)w->k[i], (long long)kd);
        if (!w->has_kernel) w->k[i] = kd;
    }
    int64_t C = xs->d[1], M;
    if (!transposed) {
        M = ws->d[0];
        if (C >= 0 && ws->d[1] >= 0 && C != ws->d[1] * w->group)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): X has %lld "
                            "channels, W expects %lld x group %lld", n->name, n->op_type,
                            n->opset, (long long)C, (long long)ws->d[1], (long long)w->group);
        if (M >= 0 && M % w->group)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): %lld output "
                            "channels not divisible by group %lld", n->name, n->op_type,
                            n->opset, (long long)M, (long long)w->group);
    } else {
        M = ws->d[1] >= 0 ? ws->d[1] * w->group : -1;
        if (C >= 0 && ws->d[0] >= 0 && C != ws->d[0])
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): X has %lld "
                            "channels, W has %lld", n->name, n->op_type, n->opset,
                            (long long)C, (long long)ws->d[0]);
        if (C >= 0 && C % w->group)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): %lld input "
                            "channels not divisible by group %lld", n->name, n->op_type,
                            n->opset, (long long)C, (long long)w->group);
    }
    if (n->n_in > 2 && n->in[2] >= 0 && in[2].shape.rank >= 0) {
        const g_shape *bs = &in[2].shape;
        if (bs->rank != 1 || (M >= 0 && bs->d[0] >= 0 && bs->d[0] != M)) {
            char a[96];
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): bias B has shape "
                            "%s; expected [%lld]", n->name, n->op_type, n->opset,
                            g_shape_str(bs, a, sizeof a), (long long)M);
        }
    }
    out->rank = xs->rank;
    out->d[0] = xs->d[0];
    out->d[1] = M;
    int known = 1;
    for (int i = 0; i < nsp; i++)
        if (xs->d[2 + i] < 0 || w->k[i] < 1) known = 0;
    if (known) {
        if ((r = nn_win_resolve(n, w, nsp, xs->d + 2))) return r;
        for (int i = 0; i < nsp; i++) out->d[2 + i] = w->out[i];
    } else {
        for (int i = 0; i < nsp; i++) out->d[2 + i] = -1;
    }
    return 0;
}

/* Output shape with a fused depthwise step applied (pads 1, kernel 3). */
int nn_conv_dw_shape(const g_node *n, const nn_dw *d, const k_tensor *in, g_shape *s)
{
    if (!d->on || s->rank < 0) return 0;
    const g_shape *ws = &in[NN_DW_W].shape;
    if (s->rank != 4 || ws->rank != 4 || ws->d[0] != s->d[1] || ws->d[1] != 1 || ws->d[2] != 3 ||
        ws->d[3] != 3) {
        char a[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused depthwise weights %s do not "
                        "fit %lld channels", n->name, n->op_type, g_shape_str(ws, a, sizeof a),
                        (long long)s->d[1]);
    }
    for (int i = 2; i < 4; i++)
        if (s->d[i] >= 0) s->d[i] = (s->d[i] - 1) / d->stride + 1;
    return 0;
}

static int conv_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    conv_st *s = state;
    int r = nn_conv_infer_shape(n, &s->w, s->transposed, in, &out[0].shape);
    if (!r) r = nn_conv_dw_shape(n, &s->dw, in, &out[0].shape);
    if (r) return r;
    if (s->po.has_add && in[NN_ADD_INPUT].shape.rank >= 0 && g_shape_known(&out[0].shape) &&
        !g_shape_eq(&in[NN_ADD_INPUT].shape, &out[0].shape)) {
        char a[96], b[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused addend %s differs from "
                        "the output %s", n->name, n->op_type,
                        g_shape_str(&in[NN_ADD_INPUT].shape, a, sizeof a),
                        g_shape_str(&out[0].shape, b, sizeof b));
    }
    out[0].dtype = in[0].dtype;
    out[0].layout = nn_out_layout(n, &out[0].shape);
    return 0;
}

/* Spatial dims padded to 3 (depth, height, width) with ones in front. */
typedef struct sp3 { int64_t i[3], o[3], k[3], s[3], d[3], pb[3]; int64_t xs[3], ys[3], as[3]; } sp3;

static void sp3_make(const nn_win *w, const nn_strides *xs, const nn_strides *ys,
                     const nn_strides *as, sp3 *p)
{
    int off = 3 - w->nsp;
    for (int i = 0; i < 3; i++) {
        p->i[i] = p->o[i] = p->k[i] = p->s[i] = p->d[i] = 1;
        p->pb[i] = 0; p->xs[i] = p->ys[i] = p->as[i] = 0;
    }
    for (int i = 0; i < w->nsp; i++) {
        p->i[off + i] = w->in[i]; p->o[off + i] = w->out[i]; p->k[off + i] = w->k[i];
        p->s[off + i] = w->s[i]; p->d[off + i] = w->d[i]; p->pb[off + i] = w->pb[i];
        p->xs[off + i] = xs->sp[i]; p->ys[off + i] = ys->sp[i];
        p->as[off + i] = as ? as->sp[i] : 0;
    }
}

/* First and one-past-last output index o with 0 <= o*s + off < lim. */
static void out_range(int64_t off, int64_t s, int64_t lim, int64_t nout, int64_t *lo, int64_t *hi)
{
    int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;
    int64_t b = lim - 1 - off < 0 ? 0 : (lim - 1 - off) / s + 1;
    if (b > nout) b = nout;
    *lo = a; *hi = b < a ? a : b;
}

/* Writes an accumulated output plane (contiguous, spatial order) to y with
 * bias and post-ops, reading the addend through its strides. */
static void plane_store(const sp3 *p, const float *plane, float bias, const nn_post *po,
                        float *y, const float *add)
{
    int64_t idx = 0;
    for (int64_t a = 0; a < p->o[0]; a++)
        for (int64_t b = 0; b < p->o[1]; b++)
            for (int64_t c = 0; c < p->o[2]; c++, idx++) {
                float v = plane[idx] + bias;
                for (int j = 0; j < po->n; j++) {
                    if (po->kind[j] == NN_PO_ADD)
                        v += add[a * p->as[0] + b * p->as[1] + c * p->as[2]];
                    else
                        v = nn_act(po->kind[j], po->a[j], po->b[j], v);
                }
                y[a * p->ys[0] + b * p->ys[1] + c * p->ys[2]] = v;
            }
}

void nn_conv_f32(const nn_win *w, const nn_post *po, int transposed, const g_shape *xshape,
                 int xlayout, const float *x, const float *wt, const float *bias,
                 const g_shape *yshape, int ylayout, float *y, const float *add, int alayout,
                 float *plane)
{
    nn_strides xs, ys, as;
    nn_strides_of(xshape, xlayout, &xs);
    nn_strides_of(yshape, ylayout, &ys);
    nn_strides_of(yshape, alayout, &as);
    sp3 p;
    sp3_make(w, &xs, &ys, add ? &as : NULL, &p);
    int64_t N = xshape->d[0], C = xshape->d[1], M = yshape->d[1], G = w->group;
    int64_t cg = C / G, mg = M / G;
    int64_t ksz = p.k[0] * p.k[1] * p.k[2];
    int64_t osz = p.o[0] * p.o[1] * p.o[2];
    for (int64_t nb = 0; nb < N; nb++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t m = 0; m < mg; m++) {
                int64_t oc = g * mg + m;
                memset(plane, 0, (size_t)osz * sizeof(float));
                for (int64_t ci = 0; ci < cg; ci++) {
                    int64_t ic = g * cg + ci;
                    const float *xc = x + nb * xs.n + ic * xs.c;
                    /* conv W: [M, C/G, k...]; transposed W: [C, M/G, k...] */
                    const float *wk = transposed ? wt + (ic * mg + m) * ksz : wt + (oc * cg + ci) * ksz;
                    for (int64_t k0 = 0; k0 < p.k[0]; k0++)
                        for (int64_t k1 = 0; k1 < p.k[1]; k1++)
                            for (int64_t k2 = 0; k2 < p.k[2]; k2++) {
                                float wv = wk[(k0 * p.k[1] + k1) * p.k[2] + k2];
                                int64_t f0 = k0 * p.d[0] - p.pb[0], f1 = k1 * p.d[1] - p.pb[1];
                                int64_t f2 = k2 * p.d[2] - p.pb[2];
                                if (!transposed) {
                                    int64_t lo, hi;
                                    out_range(f2, p.s[2], p.i[2], p.o[2], &lo, &hi);
                                    for (int64_t o0 = 0; o0 < p.o[0]; o0++) {
                                        int64_t i0 = o0 * p.s[0] + f0;
                                        if (i0 < 0 || i0 >= p.i[0]) continue;
                                        for (int64_t o1 = 0; o1 < p.o[1]; o1++) {
                                            int64_t i1 = o1 * p.s[1] + f1;
                                            if (i1 < 0 || i1 >= p.i[1]) continue;
                                            const float *xr = xc + i0 * p.xs[0] + i1 * p.xs[1];
                                            float *pr = plane + (o0 * p.o[1] + o1) * p.o[2];
                                            int64_t st = p.s[2] * p.xs[2];
                                            const float *xp = xr + (lo * p.s[2] + f2) * p.xs[2];
                                            for (int64_t o2 = lo; o2 < hi; o2++, xp += st)
                                                pr[o2] += wv * *xp;
                                        }
                                    }
                                } else {
                                    /* scatter: input i lands on output i*s + f */
                                    for (int64_t i0 = 0; i0 < p.i[0]; i0++) {
                                        int64_t o0 = i0 * p.s[0] + f0;
                                        if (o0 < 0 || o0 >= p.o[0]) continue;
                                        for (int64_t i1 = 0; i1 < p.i[1]; i1++) {
                                            int64_t o1 = i1 * p.s[1] + f1;
                                            if (o1 < 0 || o1 >= p.o[1]) continue;
                                            const float *xr = xc + i0 * p.xs[0] + i1 * p.xs[1];
                                            float *pr = plane + (o0 * p.o[1] + o1) * p.o[2];
                                            int64_t lo, hi;
                                            out_range(f2, p.s[2], p.o[2], p.i[2], &lo, &hi);
                                            for (int64_t i2 = lo; i2 < hi; i2++)
                                                pr[i2 * p.s[2] + f2] += wv * xr[i2 * p.xs[2]];
                                        }
                                    }
                                }
                            }
                }
                plane_store(&p, plane, bias ? bias[oc] : 0.f, po, y + nb * ys.n + oc * ys.c,
                            add ? add + nb * as.n + oc * as.c : NULL);
            }
}

int nn_conv_dw_f32(const g_node *n, const nn_win *w, const nn_post *po, const nn_dw *d,
                   const g_shape *xshape, int xlayout, const float *x, const float *wt,
                   const float *bias, const float *dww, const float *dwb, const g_shape *yshape,
                   int ylayout, float *y)
{
    g_shape y1 = { .rank = 4, .d = { xshape->d[0], yshape->d[1], w->out[0], w->out[1] } };
    size_t n1 = (size_t)g_shape_numel(&y1), plane = (size_t)(w->out[0] * w->out[1]);
    float *tmp = malloc((n1 + plane + 1) * sizeof(float));
    if (!tmp) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    nn_conv_f32(w, po, 0, xshape, xlayout, x, wt, bias, &y1, G_LAYOUT_PLAIN, tmp, NULL, 0, tmp + n1);
    nn_win dwin;
    nn_dw_win(d, y1.d[1], y1.d[2], y1.d[3], &dwin);
    nn_conv_f32(&dwin, &d->po, 0, &y1, G_LAYOUT_PLAIN, tmp, dww, dwb, yshape, ylayout, y, NULL, 0,
                tmp + n1);
    free(tmp);
    return 0;
}

static int conv_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                    const k_ctx *ctx)
{
    conv_st *s = state;
    nn_win w = s->w;
    g_shape ys;
    int r = nn_conv_infer_shape(n, &w, s->transposed, in, &ys);
    if (r) return r;
    if (g_shape_numel(&ys) == 0) return 0;
    if (s->dw.on) {
        nn_f32buf bx, bw, bb, bdw, bdb, by;
        nn_f32_none(&bb); nn_f32_none(&bdb);
        int has_b = n->n_in > 2 && n->in[2] >= 0;
        g_shape fs = ys;
        r = nn_conv_dw_shape(n, &s->dw, in, &fs);
        if (!r) r = nn_f32_in(n, &in[0], &bx);
        if (!r) r = nn_f32_in(n, &in[1], &bw);
        if (!r && has_b) r = nn_f32_in(n, &in[2], &bb);
        if (!r) r = nn_f32_in(n, &in[NN_DW_W], &bdw);
        if (!r && s->dw.has_bias) r = nn_f32_in(n, &in[NN_DW_B], &bdb);
        if (!r) r = nn_f32_out(n, &out[0], &by);
        if (!r) r = nn_conv_dw_f32(n, &w, &s->po, &s->dw, &in[0].shape, in[0].layout, bx.p, bw.p,
                                   bb.p, bdw.p, bdb.p, &fs, out[0].layout, by.p);
        if (!r) nn_f32_commit(&out[0], &by);
        nn_f32_free(&bx); nn_f32_free(&bw); nn_f32_free(&bb); nn_f32_free(&bdw); nn_f32_free(&bdb);
        nn_f32_free(&by);
        return r;
    }
    int has_b = n->n_in > 2 && n->in[2] >= 0 && in[2].data;
    const k_tensor *at = s->po.has_add ? &in[NN_ADD_INPUT] : NULL;
    nn_f32buf bx, bw, bb, ba, by;
    r = nn_f32_in(n, &in[0], &bx);
    if (!r) r = nn_f32_in(n, &in[1], &bw);
    if (!r) r = has_b ? nn_f32_in(n, &in[2], &bb) : (nn_f32_none(&bb), 0);
    if (!r) r = at ? nn_f32_in(n, at, &ba) : (nn_f32_none(&ba), 0);
    if (!r) r = nn_f32_out(n, &out[0], &by);
    size_t osz = 1;
    for (int i = 0; i < w.nsp; i++) osz *= (size_t)w.out[i];
    int heap = 0;
    float *plane = r ? NULL : nn_tmp_get(ctx, osz * sizeof(float), &heap);
    if (!r && !plane) r = acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    if (!r)
        nn_conv_f32(&w, &s->po, s->transposed, &in[0].shape, in[0].layout, bx.p, bw.p, bb.p,
                    &ys, out[0].layout, by.p, ba.p, at ? at->layout : 0, plane);
    if (plane) nn_tmp_put(plane, heap);
    if (!r) nn_f32_commit(&out[0], &by);
    nn_f32_free(&bx); nn_f32_free(&bw); nn_f32_free(&bb); nn_f32_free(&ba); nn_f32_free(&by);
    return r;
}

static int conv_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                     size_t *packed_bytes, size_t *scratch_bytes)
{
    conv_st *s = state;
    size_t osz = 1;
    int nsp = out[0].shape.rank - 2;
    for (int i = 0; i < nsp; i++) osz *= (size_t)(out[0].shape.d[2 + i] > 0 ? out[0].shape.d[2 + i] : 1);
    (void)s;
    *packed_bytes = 0;
    *scratch_bytes = osz * sizeof(float);
    return 0;
}

static void conv_fini(void *state) { free(state); }

/* Activations X and the fused addend may be channels-last (4-D). */
static int conv_accepts(const g_node *n, void *state, int idx, int layout)
{
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && (idx == 0 || idx == NN_ADD_INPUT));
}

static const k_op k_conv_ref = {
    .op_type = "Conv", .domain = "", .since = 1, .until = 0, .impl = "ref", .priority = 0,
    .init = conv_init, .infer = conv_infer, .plan = conv_plan, .run = conv_run,
    .fini = conv_fini, .accepts_layout = conv_accepts, .flops = k_flops_conv,
};
K_REGISTER(k_conv_ref);

static const k_op k_convt_ref = {
    .op_type = "ConvTranspose", .domain = "", .since = 1, .until = 0, .impl = "ref", .priority = 0,
    .init = convt_init, .infer = conv_infer, .plan = conv_plan, .run = conv_run,
    .fini = conv_fini, .accepts_layout = conv_accepts, .flops = k_flops_convt,
};
K_REGISTER(k_convt_ref);
