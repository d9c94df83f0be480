/* oneDNN LRN (across channels, odd sizes, float32) and the openacl.Reorder
 * layout conversion as a oneDNN reorder primitive (threaded, vectorised). */
#include "kernels/dnnl/dn_common.h"
#include <stdlib.h>
#include <string.h>

/* ---- LRN ---- */

typedef struct dlrn {
    int64_t size;
    float alpha, beta, bias;
    int built, fallback, nthr, layout;
    g_shape xs;
    dnnl_primitive_t prim;
    dnnl_memory_t m_x, m_y, m_sp;
    size_t scratch;
    void *own_scratch;
    size_t own_scratch_bytes;
} dlrn;

static void dlrn_release(dlrn *s)
{
    dn_prim_free(&s->prim);
    dn_mem_free(&s->m_x); dn_mem_free(&s->m_y); dn_mem_free(&s->m_sp);
    s->built = 0;
}

static void dlrn_fini(void *state)
{
    dlrn *s = state;
    if (!s) return;
    dlrn_release(s);
    free(s->own_scratch);
    free(s);
}

static int dlrn_init(g_graph *g, g_node *n, void **state)
{
    if (!dn_engine() || n->n_in < 1 || n->in[0] < 0 || g->t[n->in[0]].dtype != G_F32)
        return K_DECLINE;
    dlrn *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int r = nn_lrn_parse(n, &s->size, &s->alpha, &s->beta, &s->bias);
    if (r) { free(s); return r; }
    if (s->size % 2 == 0) { free(s); return K_DECLINE; }   /* window centring differs */
    *state = s;
    return 0;
}

static int dlrn_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    int r = in[0].shape.rank < 0 ? 0 : nn_check_rank(n, 0, &in[0].shape, 2, G_MAX_RANK);
    if (r) return r;
    out[0].dtype = G_F32;
    out[0].shape = in[0].shape;
    out[0].layout = in[0].layout;
    return 0;
}

static int dlrn_build(const g_node *n, dlrn *s, const k_tensor *in, int nthr)
{
    dlrn_release(s);
    s->xs = in[0].shape;
    s->layout = in[0].layout;
    s->nthr = nthr;
    s->fallback = 0;
    dnnl_memory_desc_t md;
    dnnl_lrn_desc_t ld;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_status_t st = dnnl_unimplemented;
    if (s->xs.rank >= 3 && s->xs.rank <= 5 && !dn_md_act(&md, &s->xs, s->layout == G_LAYOUT_NHWC, dnnl_f32)) {
        st = dnnl_lrn_forward_desc_init(&ld, dnnl_forward_inference, dnnl_lrn_across_channels, &md,
                                        s->size, s->alpha, s->beta, s->bias);
        if (st == dnnl_success) st = dnnl_primitive_attr_create(&attr);
        if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
        if (st == dnnl_success) st = dnnl_primitive_desc_create(&pd, &ld, attr, dn_engine(), NULL);
        if (attr) dnnl_primitive_attr_destroy(attr);
    }
    if (st != dnnl_success) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        s->fallback = 1;
        s->scratch = 0;
        s->built = 1;
        return 0;
    }
    s->scratch = dn_scratch_size(pd);
    const dnnl_memory_desc_t *spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    int rc = dn_check(dnnl_primitive_create(&s->prim, pd), n, "LRN primitive creation");
    if (!rc) rc = dn_mem(n, &md, &s->m_x);
    if (!rc) rc = dn_mem(n, &md, &s->m_y);
    if (!rc && s->scratch) rc = dn_mem(n, spmd, &s->m_sp);
    dnnl_primitive_desc_destroy(pd);
    if (rc) { dlrn_release(s); return rc; }
    s->built = 1;
    return 0;
}

static int dlrn_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                     size_t *packed_bytes, size_t *scratch_bytes)
{
    dlrn *s = state;
    int r = dlrn_build(n, s, in, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = 0;
    *scratch_bytes = s->scratch;
    return 0;
}

static int dlrn_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                    const k_ctx *ctx)
{
    dlrn *s = state;
    int r, nthr = dn_threads(ctx);
    if (!s->built || s->nthr != nthr || !g_shape_eq(&s->xs, &in[0].shape) || s->layout != in[0].layout)
        if ((r = dlrn_build(n, s, in, nthr))) return r;
    if (s->fallback) {
        nn_lrn_compute(s->size, s->alpha, s->beta, s->bias, &in[0], &out[0]);
        return 0;
    }
    void *scr = ctx ? ctx->scratch : NULL;
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
    if ((r = dn_check(dnnl_memory_set_data_handle(s->m_x, in[0].data), n, "set data handle")) ||
        (r = dn_check(dnnl_memory_set_data_handle(s->m_y, out[0].data), n, "set data handle")))
        return r;
    if (s->m_sp && (r = dn_check(dnnl_memory_set_data_handle(s->m_sp, scr), n, "set data handle")))
        return r;
    dnnl_exec_arg_t a[3] = { { DNNL_ARG_SRC, s->m_x }, { DNNL_ARG_DST, s->m_y },
                             { DNNL_ARG_SCRATCHPAD, s->m_sp } };
    if ((r = dn_check(dnnl_primitive_execute(s->prim, strm, s->m_sp ? 3 : 2, a), n, "LRN")))
        return r;
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

static int dlrn_accepts(const g_node *n, void *state, int idx, int layout)
{
    return layout == G_LAYOUT_PLAIN || layout == G_LAYOUT_NHWC;
}

static const k_op k_lrn_dnnl = {
    .op_type = "LRN", .domain = "", .since = 1, .until = 0, .impl = "dnnl", .priority = 10,
    .init = dlrn_init, .infer = dlrn_infer, .plan = dlrn_plan, .run = dlrn_run,
    .fini = dlrn_fini, .accepts_layout = dlrn_accepts,
};
K_REGISTER(k_lrn_dnnl);

/* ---- openacl.Reorder ---- */

typedef struct dre {
    int built, nthr, xl, yl, fallback;
    g_shape xs;
    dnnl_primitive_t prim;
    dnnl_memory_t m_x, m_y;
} dre;

static void dre_fini(void *state)
{
    dre *s = state;
    if (!s) return;
    dn_prim_free(&s->prim);
    dn_mem_free(&s->m_x);
    dn_mem_free(&s->m_y);
    free(s);
}

static int dre_dt(int dt, dnnl_data_type_t *o)
{
    switch (dt) {
    case G_F32: *o = dnnl_f32; return 1;
    case G_I32: *o = dnnl_s32; return 1;
    case G_BF16: *o = dnnl_bf16; return 1;
    case G_F16: *o = dnnl_f16; return 1;
    case G_I8: *o = dnnl_s8; return 1;
    case G_U8: *o = dnnl_u8; return 1;
    default: return 0;
    }
}

static int dre_init(g_graph *g, g_node *n, void **state)
{
    dnnl_data_type_t dt;
    if (!dn_engine() || n->n_in != 1 || n->n_out != 1 || n->in[0] < 0 ||
        !dre_dt(g->t[n->in[0]].dtype, &dt))
        return K_DECLINE;
    dre *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    *state = s;
    return 0;
}

static int dre_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = nn_out_layout(n, &out[0].shape);
    return 0;
}

static int dre_build(const g_node *n, dre *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    dn_prim_free(&s->prim);
    dn_mem_free(&s->m_x);
    dn_mem_free(&s->m_y);
    s->xs = in[0].shape;
    s->xl = in[0].layout;
    s->yl = out[0].layout;
    s->nthr = nthr;
    s->fallback = 1;
    s->built = 1;
    dnnl_data_type_t dt;
    dnnl_memory_desc_t xm, ym;
    if (s->xl == s->yl || !dre_dt(in[0].dtype, &dt) || s->xs.rank != 4) return 0;
    if (dn_md_act(&xm, &s->xs, s->xl == G_LAYOUT_NHWC, dt) ||
        dn_md_act(&ym, &s->xs, s->yl == G_LAYOUT_NHWC, dt))
        return 0;
    int rc = dn_reorder_prim(n, &xm, &ym, &s->prim);
    if (!rc) rc = dn_mem(n, &xm, &s->m_x);
    if (!rc) rc = dn_mem(n, &ym, &s->m_y);
    if (rc) return rc;
    s->fallback = 0;
    return 0;
}

static int dre_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                    size_t *packed_bytes, size_t *scratch_bytes)
{
    *packed_bytes = 0;
    *scratch_bytes = 0;
    return dre_build(n, state, in, out, dn_threads(NULL));
}

static int dre_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    dre *s = state;
    int r, nthr = dn_threads(ctx);
    if (!s->built || s->nthr != nthr || !g_shape_eq(&s->xs, &in[0].shape) ||
        s->xl != in[0].layout || s->yl != out[0].layout)
        if ((r = dre_build(n, s, in, out, nthr))) return r;
    if (s->fallback) {
        nn_reorder_bytes(in[0].data, in[0].layout, out[0].data, out[0].layout, &in[0].shape,
                         g_dtype_size(in[0].dtype));
        return 0;
    }
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    if ((r = dn_check(dnnl_memory_set_data_handle(s->m_x, in[0].data), n, "set data handle")) ||
        (r = dn_check(dnnl_memory_set_data_handle(s->m_y, out[0].data), n, "set data handle")))
        return r;
    dnnl_exec_arg_t a[2] = { { DNNL_ARG_FROM, s->m_x }, { DNNL_ARG_TO, s->m_y } };
    if ((r = dn_check(dnnl_primitive_execute(s->prim, strm, 2, a), n, "reorder"))) return r;
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

static int dre_accepts(const g_node *n, void *state, int idx, int layout)
{
    return 1;
}

static const k_op k_reorder_dnnl = {
    .op_type = "Reorder", .domain = "openacl", .since = 1, .until = 0, .impl = "dnnl",
    .priority = 10, .init = dre_init, .infer = dre_infer, .plan = dre_plan, .run = dre_run,
    .fini = dre_fini, .accepts_layout = dre_accepts,
};
K_REGISTER(k_reorder_dnnl);
