/* oneDNN pooling (float32; MaxPool also on the uint8/int8 tensors of an int8
 * model, graph/qdq_conv.c): MaxPool without the Indices output,
 * AveragePool, GlobalAveragePool, GlobalMaxPool. Source and destination are
 * read and written in whatever layout the graph gives them. ceil_mode is
 * expressed as extra right padding; configurations whose averaging divisor
 * would then differ from ONNX's run the reference loops inside this kernel,
 * and 2-D MaxPools (float32 or 8-bit) and float32 AveragePools from and to
 * channels-last the AVX-512 loops of dn_maxpool.c. */
#include "kernels/dnnl/dn_common.h"
#include <stdlib.h>
#include <string.h>

typedef struct dpool {
    nn_win w0;
    int type, global, include_pad;
    int dt;           /* G_F32, or G_U8 / G_I8 for MaxPool */
    int built, fallback, nthr;
    int fast;         /* dn_maxpool_nhwc_f32 / _8 / dn_avgpool_nhwc_f32 run it (no primitive) */
    nn_win w;
    g_shape xs, ys;
    int xl, yl;
    dnnl_primitive_t prim, re_y;
    dnnl_memory_t m_x, m_y, m_sp, m_yu;
    size_t scratch, off_sp;
    void *own_scratch;
    size_t own_scratch_bytes;
} dpool;

static void dpool_release(dpool *s)
{
    dn_prim_free(&s->prim); dn_prim_free(&s->re_y);
    dn_mem_free(&s->m_x); dn_mem_free(&s->m_y); dn_mem_free(&s->m_sp); dn_mem_free(&s->m_yu);
    s->built = 0;
}

static void dpool_fini(void *state)
{
    dpool *s = state;
    if (!s) return;
    dpool_release(s);
    free(s->own_scratch);
    free(s);
}

static int dpool_init_common(g_graph *g, g_node *n, void **state, int type, int global)
{
    if (!dn_engine() || n->n_in < 1 || n->in[0] < 0) return K_DECLINE;
    int dt = g->t[n->in[0]].dtype;
    if (dt != G_F32 && !(type == POOL_MAX && (dt == G_U8 || dt == G_I8))) return K_DECLINE;
    if (n->n_out > 1 && n->out[1] >= 0) return K_DECLINE;   /* Indices: reference */
    int xr = g->t[n->in[0]].shape.rank;
    if (xr >= 0 && (xr < 3 || xr > 5)) return K_DECLINE;
    dpool *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int r = global ? 0 : nn_win_parse(n, NN_POOL, &s->w0);
    if (r) { free(s); return r; }
    s->type = type;
    s->dt = dt;
    s->global = global;
    s->include_pad = (int)g_attr_int(n, "count_include_pad", 0);
    *state = s;
    return 0;
}

static int dmax_init(g_graph *g, g_node *n, void **st) { return dpool_init_common(g, n, st, POOL_MAX, 0); }
static int davg_init(g_graph *g, g_node *n, void **st) { return dpool_init_common(g, n, st, POOL_AVG, 0); }
static int dgmax_init(g_graph *g, g_node *n, void **st) { return dpool_init_common(g, n, st, POOL_MAX, 1); }
static int dgavg_init(g_graph *g, g_node *n, void **st) { return dpool_init_common(g, n, st, POOL_AVG, 1); }

static int dpool_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    dpool *s = state;
    nn_win w = s->w0;
    int r = nn_pool_infer_shape(n, &w, s->global, &in[0].shape, &out[0].shape);
    if (r) return r;
    out[0].dtype = s->dt;
    out[0].layout = s->global ? G_LAYOUT_PLAIN : nn_out_layout(n, &out[0].shape);
    return 0;
}

static int dpool_build(const g_node *n, dpool *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    dpool_release(s);
    s->w = s->w0;
    int r = nn_pool_infer_shape(n, &s->w, s->global, &in[0].shape, &s->ys);
    if (r) return r;
    s->xs = in[0].shape;
    s->xl = in[0].layout;
    s->yl = out[0].layout;
    s->nthr = nthr;
    s->fallback = 0;
    int nsp = s->w.nsp;
    s->fast = (s->dt == G_F32 || s->type == POOL_MAX) && !s->global && nsp == 2 && s->xs.rank == 4 &&
              s->w.d[0] == 1 && s->w.d[1] == 1 && s->xl == G_LAYOUT_NHWC && s->yl == G_LAYOUT_NHWC &&
              (s->type == POOL_MAX ? dn_maxpool_fast() : s->type == POOL_AVG && dn_avgpool_fast());
    if (s->fast) {
        s->scratch = 0;
        s->built = 1;
        return 0;
    }
    dnnl_dims_t st, ker, dil, pl, pr;
    int extra = 0, dilated = 0;
    for (int i = 0; i < nsp; i++) {
        int64_t ext = (s->w.k[i] - 1) * s->w.d[i] + 1;
        st[i] = s->w.s[i];
        ker[i] = s->w.k[i];
        dil[i] = s->w.d[i] - 1;
        pl[i] = s->w.pb[i];
        /* right padding that makes oneDNN's floor arithmetic give our size */
        pr[i] = (s->w.out[i] - 1) * s->w.s[i] + ext - s->w.in[i] - s->w.pb[i];
        /* negative: floor mode leaves the last input columns to no window
         * (AveragePool 3x2 stride 3x2 over an odd width); oneDNN refuses a
         * negative padding, and 0 gives the same windows and size */
        if (pr[i] < 0 && pr[i] + s->w.s[i] > 0) pr[i] = 0;
        if (pr[i] != s->w.pe[i]) extra = 1;
        if (pr[i] < 0) extra = 2;
        if (s->w.d[i] > 1) dilated = 1;
    }
    /* the primitive writes the source's layout (oneDNN's fast pools want
     * both alike); another destination layout goes through a reorder */
    dnnl_memory_desc_t x_md, y_md, y_u;
    dnnl_status_t rs = dnnl_unimplemented;
    dnnl_primitive_desc_t pd = NULL;
    int64_t osp = 1;
    for (int i = 0; i < nsp; i++) osp *= s->w.out[i];
    int same = s->xl == s->yl || osp == 1;   /* one spatial point: both layouts agree */
    int avg_ok = !(s->type == POOL_AVG && s->include_pad && (extra || dilated));
    dnnl_data_type_t ddt = s->dt == G_U8 ? dnnl_u8 : s->dt == G_I8 ? dnnl_s8 : dnnl_f32;
    if (extra != 2 && avg_ok && !dn_md_act(&x_md, &s->xs, s->xl == G_LAYOUT_NHWC, ddt) &&
        !dn_md_act(&y_md, &s->ys, s->xl == G_LAYOUT_NHWC, ddt) &&
        !dn_md_act(&y_u, &s->ys, s->yl == G_LAYOUT_NHWC, ddt)) {
        dnnl_alg_kind_t alg = s->type == POOL_MAX ? dnnl_pooling_max :
                              s->include_pad ? dnnl_pooling_avg_include_padding :
                                               dnnl_pooling_avg_exclude_padding;
        dnnl_pooling_v2_desc_t pdsc;
        dnnl_primitive_attr_t attr = NULL;
        rs = dnnl_pooling_v2_forward_desc_init(&pdsc, dnnl_forward_inference, alg, &x_md, &y_md,
                                               st, ker, dil, pl, pr);
        if (rs == dnnl_success) rs = dnnl_primitive_attr_create(&attr);
        if (rs == dnnl_success) rs = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
        if (rs == dnnl_success) rs = dnnl_primitive_desc_create(&pd, &pdsc, attr, dn_engine(), NULL);
        if (attr) dnnl_primitive_attr_destroy(attr);
    }
    /* oneDNN's reference pooling (dilated windows, among others) costs
     * about four times the CPU of the loops below: 45 CPU-s against 11 s on
     * a 60x80 dilated MaxPool over 1000x1768 */
    int ref = rs == dnnl_success && dn_is_ref_impl(pd);
    if (rs != dnnl_success || ref) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        acl_log(1, "node '%s' (%s): %s, openacl's reference loops used", n->name, n->op_type,
                ref ? "oneDNN offers only its reference pooling" : "oneDNN declined the configuration");
        s->fallback = 1;
        s->scratch = 0;
        s->built = 1;
        return 0;
    }
    size_t sp = dn_scratch_size(pd);
    s->off_sp = same ? 0 : dn_align(dnnl_memory_desc_get_size(&y_md));
    s->scratch = s->off_sp + sp;
    const dnnl_memory_desc_t *spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    rs = dnnl_primitive_create(&s->prim, pd);
    int rc = dn_check(rs, n, "pooling primitive creation");
    if (!rc) rc = dn_mem(n, &x_md, &s->m_x);
    if (!rc) rc = dn_mem(n, &y_md, &s->m_y);
    if (!rc && sp) rc = dn_mem(n, spmd, &s->m_sp);
    if (!rc && !same) rc = dn_reorder_prim(n, &y_md, &y_u, &s->re_y);
    if (!rc && !same) rc = dn_mem(n, &y_u, &s->m_yu);
    dnnl_primitive_desc_destroy(pd);
    if (rc) { dpool_release(s); return rc; }
    s->built = 1;
    return 0;
}

static int dpool_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                      size_t *packed_bytes, size_t *scratch_bytes)
{
    dpool *s = state;
    int r = dpool_build(n, s, in, out, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = 0;
    *scratch_bytes = s->scratch;
    return 0;
}

static int dpool_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                     const k_ctx *ctx)
{
    dpool *s = state;
    int r, nthr = dn_threads(ctx);
    if (!s->built || s->nthr != nthr || !g_shape_eq(&s->xs, &in[0].shape) ||
        s->xl != in[0].layout || s->yl != out[0].layout) {
        if ((r = dpool_build(n, s, in, out, nthr))) return r;
    }
    if (s->fast) {
        if (s->type == POOL_MAX && s->dt != G_F32)
            dn_maxpool_nhwc_8(&s->w, s->xs.d[0], s->xs.d[1], in[0].data, out[0].data, s->dt == G_I8, nthr);
        else if (s->type == POOL_MAX)
            dn_maxpool_nhwc_f32(&s->w, s->xs.d[0], s->xs.d[1], in[0].data, out[0].data, nthr);
        else dn_avgpool_nhwc_f32(&s->w, s->xs.d[0], s->xs.d[1], in[0].data, out[0].data, s->include_pad, nthr);
        return 0;
    }
    if (s->fallback) {
        k_tensor y = out[0];
        y.shape = s->ys;
        nn_pool_compute(&s->w, s->type, s->include_pad, 0, 0.f, &in[0], &y, NULL);
        return 0;
    }
    char *scr = ctx ? ctx->scratch : NULL;
    if (s->scratch && (!ctx || ctx->scratch_bytes < s->scratch)) {
        if (s->own_scratch_bytes < s->scratch) {
            free(s->own_scratch);
            s->own_scratch = aligned_alloc(64, dn_align(s->scratch));
            if (!s->own_scratch)
                return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
            s->own_scratch_bytes = s->scratch;
        }
        scr = s->own_scratch;
    }
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    void *y = s->re_y ? scr : out[0].data;
    if ((r = dn_check(dnnl_memory_set_data_handle(s->m_x, in[0].data), n, "set data handle")) ||
        (r = dn_check(dnnl_memory_set_data_handle(s->m_y, y), n, "set data handle")))
        return r;
    if (s->m_sp && (r = dn_check(dnnl_memory_set_data_handle(s->m_sp, scr + s->off_sp), n,
                                 "set data handle")))
        return r;
    dnnl_exec_arg_t a[3] = { { DNNL_ARG_SRC, s->m_x }, { DNNL_ARG_DST, s->m_y },
                             { DNNL_ARG_SCRATCHPAD, s->m_sp } };
    if ((r = dn_check(dnnl_primitive_execute(s->prim, strm, s->m_sp ? 3 : 2, a), n, "pooling")))
        return r;
    if (s->re_y) {
        dnnl_exec_arg_t b[2] = { { DNNL_ARG_FROM, s->m_y }, { DNNL_ARG_TO, s->m_yu } };
        if ((r = dn_check(dnnl_memory_set_data_handle(s->m_yu, out[0].data), n, "set data handle")) ||
            (r = dn_check(dnnl_primitive_execute(s->re_y, strm, 2, b), n, "reorder")))
            return r;
    }
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

static int dpool_accepts(const g_node *n, void *state, int idx, int layout)
{
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && idx == 0);
}

#define DPOOL_OP(var, name, fn) \
    static const k_op var = { .op_type = name, .domain = "", .since = 1, .until = 0, \
        .impl = "dnnl", .priority = 10, .init = fn, .infer = dpool_infer, .plan = dpool_plan, \
        .run = dpool_run, .fini = dpool_fini, .accepts_layout = dpool_accepts }; \
    K_REGISTER(var)

DPOOL_OP(k_maxpool_dnnl, "MaxPool", dmax_init);
DPOOL_OP(k_avgpool_dnnl, "AveragePool", davg_init);
DPOOL_OP(k_gmaxpool_dnnl, "GlobalMaxPool", dgmax_init);
DPOOL_OP(k_gavgpool_dnnl, "GlobalAveragePool", dgavg_init);

/* For tests: 1 when bound node n is a oneDNN pool that fell back to the
 * reference loops, 0 when it runs oneDNN's primitive, -1 when n is not a
 * built oneDNN pool. */
int dn_pool_fallback(const g_node *n)
{
    if (!n->op || !n->state || (n->op != &k_maxpool_dnnl && n->op != &k_avgpool_dnnl &&
                                n->op != &k_gmaxpool_dnnl && n->op != &k_gavgpool_dnnl))
        return -1;
    const dpool *s = n->state;
    return s->built ? s->fallback : -1;
}
