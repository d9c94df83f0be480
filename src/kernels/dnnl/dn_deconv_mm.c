/* ConvTranspose whose kernel equals its stride (no overlap, no pads, no
 * dilation, one group: the 2x up-sampling layers of detection heads) as a
 * batched oneDNN matmul writing straight into the channels-last output:
 *   y[i*kh+a, j*kw+b, m] = sum_c x[i, j, c] * W[c, m, a, b] + bias[m]
 * is, with batch dims (i, a), the product [W, C] x [C, kw*M] whose rows
 * land at stride kw*M, i.e. dst dims [H, kh, W, kw*M] over the NHWC
 * output. oneDNN's own deconvolution runs these shapes at a few GFLOP/s.
 * Plain inputs/outputs/addends go through channels-last scratch. */
#include "kernels/dnnl/dn_common.h"
#include <stdlib.h>
#include <string.h>

typedef struct ddm {
    nn_post po;
    int64_t kh, kw;
    int has_bias;
    int built, nthr, xl, yl, al, fallback;
    int no_split;             /* oneDNN has no binary primitive for this chain */
    nn_win w;                 /* geometry for the reference fallback */
    g_shape xs, ys;
    int64_t C, M, H, W;
    dnnl_primitive_t mm, re_x, re_y, re_a;
    dnnl_primitive_t post;    /* the chain over the whole output, for narrow rows */
    dnnl_memory_t m_py, m_pz;
    dnnl_memory_t m_x, m_w, m_b, m_y, m_sp, m_a;          /* matmul views */
    dnnl_memory_t r_xu, r_xc, r_yc, r_yu, r_au, r_ac;     /* reorder ends */
    dnnl_memory_desc_t wmd;
    int have_wmd;
    size_t wbytes, bbytes, off_x, off_y, off_a, off_sp, scratch;
    int add_idx;
    dn_pk pk;                 /* packed area, own memory for unplanned runs */
} ddm;

static void ddm_release(ddm *s)
{
    dn_prim_free(&s->mm); dn_prim_free(&s->re_x); dn_prim_free(&s->re_y); dn_prim_free(&s->re_a);
    dn_prim_free(&s->post);
    dnnl_memory_t *m[] = { &s->m_x, &s->m_w, &s->m_b, &s->m_y, &s->m_sp, &s->m_a, &s->r_xu,
                           &s->r_xc, &s->r_yc, &s->r_yu, &s->r_au, &s->r_ac, &s->m_py, &s->m_pz };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) dn_mem_free(m[i]);
    s->built = 0;
}

static void ddm_fini(void *state)
{
    ddm *s = state;
    if (!s) return;
    ddm_release(s);
    dn_pk_free(&s->pk);
    free(s);
}

static int ddm_init(g_graph *g, g_node *n, void **state)
{
    if (!dn_engine() || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) return K_DECLINE;
    for (int i = 0; i < n->n_in && i < 4; i++)
        if (n->in[i] >= 0 && g->t[n->in[i]].dtype != G_F32) return K_DECLINE;
    if (!nn_is_const(g, n, 1) || (n->n_in > 2 && n->in[2] >= 0 && !nn_is_const(g, n, 2)))
        return K_DECLINE;
    const g_shape *ws = &g->t[n->in[1]].shape;
    if (ws->rank != 4 || g->t[n->in[0]].shape.rank != 4) return K_DECLINE;
    nn_win w;
    if (nn_win_parse(n, NN_CONVT, &w)) return K_DECLINE;   /* the reference reports it */
    if (w.group != 1 || w.has_oshape || (w.auto_pad != NN_PAD_NOTSET && w.auto_pad != NN_PAD_VALID))
        return K_DECLINE;
    for (int i = 0; i < 2; i++) {
        int64_t k = ws->d[2 + i];
        if ((w.has_kernel && w.k[i] != k) || w.s[i] != k || w.d[i] != 1 || w.pb[i] || w.pe[i] ||
            w.opad[i])
            return K_DECLINE;
    }
    ddm *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int r = nn_post_parse(n, &s->po);
    if (r) { free(s); return r; }
    s->kh = ws->d[2];
    s->kw = ws->d[3];
    s->has_bias = n->n_in > 2 && n->in[2] >= 0;
    *state = s;
    return 0;
}

static int ddm_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    ddm *s = state;
    const g_shape *xs = &in[0].shape;
    if (xs->rank < 0) { out[0].shape.rank = -1; out[0].dtype = G_F32; return 0; }
    if (xs->rank != 4 || (xs->d[1] >= 0 && xs->d[1] != in[1].shape.d[0])) {
        char a[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): input %s does not "
                        "match W with %lld input channels", n->name, n->op_type, n->opset,
                        g_shape_str(xs, a, sizeof a), (long long)in[1].shape.d[0]);
    }
    out[0].shape = *xs;
    out[0].shape.d[1] = in[1].shape.d[1];
    out[0].shape.d[2] = xs->d[2] < 0 ? -1 : xs->d[2] * s->kh;
    out[0].shape.d[3] = xs->d[3] < 0 ? -1 : xs->d[3] * s->kw;
    if (s->po.has_add && g_shape_known(&out[0].shape) &&
        !g_shape_eq(&in[NN_ADD_INPUT].shape, &out[0].shape))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused addend shape differs from "
                        "the output", n->name, n->op_type);
    out[0].dtype = G_F32;
    out[0].layout = nn_out_layout(n, &out[0].shape);
    return 0;
}

/* Rows of fewer than 16 outputs (kw * M: a detection head's last 2x
 * up-sampling to one map): oneDNN's matmul applies an eltwise post-op
 * a row at a time in partial vectors (PP-OCRv4 det's Sigmoid: 2.6 -> 7.4 ms
 * for the layer), so the chain runs afterwards as one in-place binary
 * primitive (adding a zero) over the whole dense output instead. */
static int narrow_post(const ddm *s)
{
    const char *e = getenv("OPENACL_DECONV_POST_SPLIT");   /* 0: always inside the matmul */
    return !(e && !strcmp(e, "0")) && !s->no_split && s->po.n > 0 && !s->po.has_add && s->kw * s->M < 16;
}

static int ddm_build_post(const g_node *n, ddm *s)
{
    dnnl_memory_desc_t y_md, z_md;
    dnnl_dims_t yd = { s->M * s->H * s->kh * s->W * s->kw }, zd = { 1 };
    dnnl_memory_desc_init_by_tag(&y_md, 1, yd, dnnl_f32, dnnl_a);
    dnnl_memory_desc_init_by_tag(&z_md, 1, zd, dnnl_f32, dnnl_a);
    dnnl_binary_desc_t bd;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    int idx;
    dnnl_status_t st = dnnl_binary_desc_init(&bd, dnnl_binary_add, &y_md, &z_md, &y_md);
    if (st == dnnl_success) st = dnnl_primitive_attr_create(&attr);
    if (st == dnnl_success && dn_post_ops(n, &s->po, NULL, NULL, attr, &idx)) st = dnnl_unimplemented;
    if (st == dnnl_success) st = dnnl_primitive_desc_create(&pd, &bd, attr, dn_engine(), NULL);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (st == dnnl_success) st = dnnl_primitive_create(&s->post, pd);
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (st == dnnl_unimplemented) return 1;   /* the caller keeps the chain in the matmul */
    int rc = dn_check(st, n, "post-op primitive creation");
    if (!rc) rc = dn_mem(n, &y_md, &s->m_py);
    if (!rc) rc = dn_mem(n, &z_md, &s->m_pz);
    if (!rc) {
        static const float zero = 0.f;
        rc = dn_set_handle(n, s->m_pz, &zero);
    }
    return rc;
}

static int ddm_build(const g_node *n, ddm *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    ddm_release(s);
    s->xs = in[0].shape;
    s->xl = in[0].layout;
    s->yl = out[0].layout;
    s->al = s->po.has_add ? in[NN_ADD_INPUT].layout : 0;
    s->nthr = nthr;
    int64_t N = s->xs.d[0], C = s->xs.d[1], H = s->xs.d[2], W = s->xs.d[3];
    int64_t M = in[1].shape.d[1], kh = s->kh, kw = s->kw, OH = H * kh, OW = W * kw;
    s->C = C; s->M = M; s->H = H; s->W = W;
    s->ys = s->xs;
    s->ys.d[1] = M; s->ys.d[2] = OH; s->ys.d[3] = OW;
    s->bbytes = s->has_bias ? (size_t)(kw * M) * sizeof(float) : 0;
    (void)N;   /* images run one after the other */
    memset(&s->w, 0, sizeof s->w);
    s->w.kind = NN_CONVT; s->w.nsp = 2; s->w.group = 1;
    s->w.k[0] = s->w.s[0] = kh; s->w.k[1] = s->w.s[1] = kw; s->w.d[0] = s->w.d[1] = 1;
    s->w.in[0] = H; s->w.in[1] = W; s->w.out[0] = OH; s->w.out[1] = OW;
    /* matmul views */
    dnnl_memory_desc_t a_md, b_any, c_md, bias_md, x_c, x_u, y_c, y_u, a_u;
    dnnl_dims_t ad = { H, 1, W, C }, as = { W * C, W * C, C, 1 };
    dnnl_dims_t bd = { 1, kh, C, kw * M };
    dnnl_dims_t cd = { H, kh, W, kw * M }, cs = { kh * OW * M, OW * M, kw * M, 1 };
    dnnl_dims_t biasd = { 1, 1, 1, kw * M };
    dnnl_memory_desc_init_by_strides(&a_md, 4, ad, dnnl_f32, as);
    dnnl_memory_desc_init_by_tag(&b_any, 4, bd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_strides(&c_md, 4, cd, dnnl_f32, cs);
    dnnl_memory_desc_init_by_tag(&bias_md, 4, biasd, dnnl_f32, dnnl_abcd);
    g_shape x1 = s->xs, y1 = s->ys;   /* one image */
    x1.d[0] = 1;
    y1.d[0] = 1;
    dn_md_act(&x_c, &x1, 1, dnnl_f32);
    dn_md_act(&x_u, &x1, s->xl == G_LAYOUT_NHWC, dnnl_f32);
    dn_md_act(&y_c, &y1, 1, dnnl_f32);
    dn_md_act(&y_u, &y1, s->yl == G_LAYOUT_NHWC || M == 1, dnnl_f32);
    dn_md_act(&a_u, &y1, s->al == G_LAYOUT_NHWC || M == 1, dnnl_f32);
    dnnl_matmul_desc_t md;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_matmul_desc_init(&md, &a_md, s->have_wmd ? &s->wmd : &b_any,
                                             s->has_bias ? &bias_md : NULL, &c_md);
    if (st == dnnl_success) st = dnnl_primitive_attr_create(&attr);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    int split = narrow_post(s);
    if (st == dnnl_success && !split && dn_post_ops(n, &s->po, &c_md, NULL, attr, &s->add_idx))
        st = dnnl_unimplemented;
    if (st == dnnl_success) st = dnnl_primitive_desc_create(&pd, &md, attr, dn_engine(), NULL);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (st == dnnl_success && dn_is_ref_impl(pd)) st = dnnl_unimplemented;
    if (st != dnnl_success || (s->fallback && s->pk.packed_ok)) {
        /* reference loops on the weights as given */
        if (pd) dnnl_primitive_desc_destroy(pd);
        acl_log(1, "node '%s' (%s): no fast oneDNN matmul for this up-sampling, reference loops "
                "used", n->name, n->op_type);
        s->fallback = 1;
        s->wbytes = (size_t)(C * M * kh * kw) * sizeof(float);
        s->bbytes = s->has_bias ? (size_t)M * sizeof(float) : 0;
        s->scratch = (size_t)(OH * OW) * sizeof(float);
        s->built = 1;
        return 0;
    }
    if (!s->have_wmd) {
        s->wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        s->have_wmd = 1;
        s->wbytes = dnnl_memory_desc_get_size(&s->wmd);
    }
    size_t sp = dn_scratch_size(pd);
    dnnl_memory_desc_t spmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    st = dnnl_primitive_create(&s->mm, pd);
    dnnl_primitive_desc_destroy(pd);
    int rc = dn_check(st, n, "matmul primitive creation");
    size_t off = 0;
    if (!rc && !dnnl_memory_desc_equal(&x_u, &x_c)) {
        s->off_x = off; off = dn_align(off + dnnl_memory_desc_get_size(&x_c));
        rc = dn_reorder_prim(n, &x_u, &x_c, &s->re_x);
        if (!rc) rc = dn_mem(n, &x_u, &s->r_xu);
        if (!rc) rc = dn_mem(n, &x_c, &s->r_xc);
    }
    if (!rc && !dnnl_memory_desc_equal(&y_u, &y_c)) {
        s->off_y = off; off = dn_align(off + dnnl_memory_desc_get_size(&y_c));
        rc = dn_reorder_prim(n, &y_c, &y_u, &s->re_y);
        if (!rc) rc = dn_mem(n, &y_c, &s->r_yc);
        if (!rc) rc = dn_mem(n, &y_u, &s->r_yu);
    }
    if (!rc && s->po.has_add && !dnnl_memory_desc_equal(&a_u, &y_c)) {
        s->off_a = off; off = dn_align(off + dnnl_memory_desc_get_size(&y_c));
        rc = dn_reorder_prim(n, &a_u, &y_c, &s->re_a);
        if (!rc) rc = dn_mem(n, &a_u, &s->r_au);
        if (!rc) rc = dn_mem(n, &y_c, &s->r_ac);
    }
    s->off_sp = off;
    s->scratch = off + sp;
    if (!rc) rc = dn_mem(n, &a_md, &s->m_x);
    if (!rc) rc = dn_mem(n, &s->wmd, &s->m_w);
    if (!rc && s->has_bias) rc = dn_mem(n, &bias_md, &s->m_b);
    if (!rc) rc = dn_mem(n, &c_md, &s->m_y);
    if (!rc && sp) rc = dn_mem(n, &spmd, &s->m_sp);
    if (!rc && s->po.has_add) rc = dn_mem(n, &c_md, &s->m_a);
    if (!rc && split) rc = ddm_build_post(n, s);
    if (rc == 1) {   /* once: narrow_post() answers 0 from now on */
        ddm_release(s);
        s->no_split = 1;
        return ddm_build(n, s, in, out, nthr);
    }
    if (rc) { ddm_release(s); return rc; }
    s->built = 1;
    return 0;
}

static int ddm_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                    size_t *packed_bytes, size_t *scratch_bytes)
{
    ddm *s = state;
    int r = ddm_build(n, s, in, out, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = dn_align(s->wbytes) + s->bbytes;
    *scratch_bytes = s->scratch;
    return 0;
}

static int ddm_pack_into(const g_node *n, ddm *s, const k_tensor *in, void *packed)
{
    if (!in[1].data || (s->has_bias && !in[2].data))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl-mm): weights not "
                        "available for packing", n->name, n->op_type);
    int64_t C = s->C, M = s->M, kh = s->kh, kw = s->kw;
    if (s->fallback) {
        memcpy(packed, in[1].data, s->wbytes);
        if (s->has_bias) memcpy((char *)packed + dn_align(s->wbytes), in[2].data, s->bbytes);
        s->pk.packed = packed;
        s->pk.packed_ok = 1;
        return 0;
    }
    /* ONNX W [C, M, kh, kw] -> plain [1, kh, C, kw*M] */
    float *tmp = malloc((size_t)(C * M * kh * kw) * sizeof(float) + 1);
    if (!tmp) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    const float *w = in[1].data;
    for (int64_t c = 0; c < C; c++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t a = 0; a < kh; a++)
                for (int64_t b = 0; b < kw; b++)
                    tmp[((a * C + c) * kw + b) * M + m] = w[((c * M + m) * kh + a) * kw + b];
    dnnl_memory_desc_t plain;
    dnnl_dims_t bd = { 1, kh, C, kw * M };
    dnnl_memory_desc_init_by_tag(&plain, 4, bd, dnnl_f32, dnnl_abcd);
    int r = dn_reorder_once(n, &plain, tmp, &s->wmd, packed);
    free(tmp);
    if (r) return r;
    if (s->has_bias) {
        float *b = (float *)((char *)packed + dn_align(s->wbytes));
        for (int64_t j = 0; j < kw; j++) memcpy(b + j * M, in[2].data, (size_t)M * sizeof(float));
    }
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int ddm_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                    void *packed)
{
    ddm *s = state;
    int r;
    if (!s->built && (r = ddm_build(n, s, in, out, dn_threads(NULL)))) return r;
    return ddm_pack_into(n, s, in, packed);
}

/* A compiled model's packed weights (kernel.h adopt): the area holds what
 * ddm_pack_into wrote with this build on this CPU; it is only read. */
static int ddm_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                     void *packed)
{
    ddm *s = state;
    int r;
    if (!s->built && (r = ddm_build(n, s, in, out, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int reorder(const g_node *n, dnnl_primitive_t p, dnnl_stream_t strm, dnnl_memory_t from,
                   void *src, dnnl_memory_t to, void *dst)
{
    int r;
    if ((r = dn_set_handle(n, from, src)) || (r = dn_set_handle(n, to, dst))) return r;
    return dn_reorder_exec(n, p, strm, from, to);
}

static int ddm_image(const g_node *n, ddm *s, dnnl_stream_t strm, char *scr, void *xin,
                     void *addin, void *yout);

static int ddm_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    ddm *s = state;
    int r, nthr = dn_threads(ctx);
    if (!s->built || s->nthr != nthr || !g_shape_eq(&s->xs, &in[0].shape) ||
        s->xl != in[0].layout || s->yl != out[0].layout ||
        (s->po.has_add && s->al != in[NN_ADD_INPUT].layout))
        if ((r = ddm_build(n, s, in, out, nthr))) return r;
    if (!s->pk.packed_ok) {
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, dn_align(s->wbytes) + s->bbytes, &own)) ||
            (r = ddm_pack_into(n, s, in, own)))
            return r;
    }
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
    if (s->fallback) {
        const float *bias = s->has_bias ? (const float *)((char *)s->pk.packed + dn_align(s->wbytes)) : NULL;
        nn_conv_f32(&s->w, &s->po, 1, &in[0].shape, in[0].layout, in[0].data, s->pk.packed, bias,
                    &s->ys, out[0].layout, out[0].data,
                    s->po.has_add ? in[NN_ADD_INPUT].data : NULL, s->al, (float *)scr);
        return 0;
    }
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    size_t xstep = (size_t)(s->C * s->H * s->W) * sizeof(float);
    size_t ystep = (size_t)(s->M * s->H * s->W * s->kh * s->kw) * sizeof(float);
    for (int64_t b = 0; b < s->xs.d[0]; b++) {
        if ((r = ddm_image(n, s, strm, scr, (char *)in[0].data + b * xstep,
                           s->po.has_add ? (char *)in[NN_ADD_INPUT].data + b * ystep : NULL,
                           (char *)out[0].data + b * ystep)))
            return r;
    }
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

/* One image: inputs/outputs at the given addresses. */
static int ddm_image(const g_node *n, ddm *s, dnnl_stream_t strm, char *scr, void *xin,
                     void *addin, void *yout)
{
    int r;
    void *x = xin, *y = s->re_y ? scr + s->off_y : yout;
    if (s->re_x) {
        x = scr + s->off_x;
        if ((r = reorder(n, s->re_x, strm, s->r_xu, xin, s->r_xc, x))) return r;
    }
    void *add = addin;
    if (s->re_a) {
        add = scr + s->off_a;
        if ((r = reorder(n, s->re_a, strm, s->r_au, addin, s->r_ac, add))) return r;
    }
    dnnl_exec_arg_t a[6];
    int na = 0;
    if ((r = dn_set_handle(n, s->m_x, x)) || (r = dn_set_handle(n, s->m_w, s->pk.packed)) || (r = dn_set_handle(n, s->m_y, y)))
        return r;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, s->m_x };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, s->m_w };
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_DST, s->m_y };
    if (s->has_bias) {
        if ((r = dn_set_handle(n, s->m_b, (char *)s->pk.packed + dn_align(s->wbytes)))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_BIAS, s->m_b };
    }
    if (s->m_sp) {
        if ((r = dn_set_handle(n, s->m_sp, scr + s->off_sp))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, s->m_sp };
    }
    if (add) {
        if ((r = dn_set_handle(n, s->m_a, add))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_MULTIPLE_POST_OP(s->add_idx) | DNNL_ARG_SRC_1, s->m_a };
    }
    if ((r = dn_check(dnnl_primitive_execute(s->mm, strm, na, a), n, "matmul"))) return r;
    if (s->post) {
        if ((r = dn_set_handle(n, s->m_py, y))) return r;
        dnnl_exec_arg_t pa[3] = { { DNNL_ARG_SRC_0, s->m_py }, { DNNL_ARG_SRC_1, s->m_pz }, { DNNL_ARG_DST, s->m_py } };
        if ((r = dn_check(dnnl_primitive_execute(s->post, strm, 3, pa), n, "post-ops"))) return r;
    }
    if (s->re_y && (r = reorder(n, s->re_y, strm, s->r_yc, y, s->r_yu, yout))) return r;
    return 0;
}

static int ddm_accepts(const g_node *n, void *state, int idx, int layout)
{
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && (idx == 0 || idx == NN_ADD_INPUT));
}

static const k_op k_convt_dnnl_mm = {
    .op_type = "ConvTranspose", .domain = "", .since = 1, .until = 0, .impl = "dnnl",
    .priority = 11, .init = ddm_init, .infer = ddm_infer, .plan = ddm_plan, .pack = ddm_pack,
    .run = ddm_run, .fini = ddm_fini, .accepts_layout = ddm_accepts,
    .packed_inputs = (1u << 1) | (1u << 2), .adopt = ddm_adopt,
    .flops = k_flops_convt,
};
K_REGISTER(k_convt_dnnl_mm);
