/* MatMulInteger and QLinearMatMul on oneDNN: a uint8 A (any rank, its rows
 * flattened) times an int8 2-D B, zero point of A one value (a constant or
 * a runtime tensor such as DynamicQuantizeLinear's, oneDNN's runtime source
 * zero point), B's zero point absent or 0. oneDNN's brgemm kernel (VNNI)
 * writes the exact int32 sums; MatMulInteger's output is that, and
 * QLinearMatMul requantises it as the reference and ONNX Runtime do,
 * rint(acc * (a_scale / y_scale * b_scale[n])) + y_zero_point, saturated.
 * A constant B is packed once at load (adopted from a compiled model);
 * other configurations (uint8 B, per-row zero points, batched B) are the
 * reference's (kernels/ref/nn_quant.c). */
#include "kernels/dnnl/dn_common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct qlm {
    int qlinear, b_const, built, nthr;
    int ib, iaz, ibz;          /* input indices of B and the zero points */
    int64_t M, K, N;
    dnnl_primitive_t prim;
    dnnl_memory_t m_a, m_b, m_y, m_zp, m_sp;
    dnnl_memory_desc_t wmd;
    int have_wmd;
    size_t wbytes, off_y, off_zp, off_sp, scratch;
    dn_pk pk;
} qlm;

static int has_in(const g_node *n, int i) { return n->n_in > i && n->in[i] >= 0; }

static int vnni(void)
{
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    return isa == dnnl_cpu_isa_avx512_core_vnni || isa == dnnl_cpu_isa_avx512_core_bf16 ||
           isa == dnnl_cpu_isa_avx512_core_amx || isa == dnnl_cpu_isa_avx2_vnni;
}

static void qlm_release(qlm *s)
{
    dn_prim_free(&s->prim);
    dn_mem_free(&s->m_a); dn_mem_free(&s->m_b); dn_mem_free(&s->m_y); dn_mem_free(&s->m_zp);
    dn_mem_free(&s->m_sp);
    s->built = 0;
}

static void qlm_fini(void *state)
{
    qlm *s = state;
    if (!s) return;
    qlm_release(s);
    dn_pk_free(&s->pk);
    free(s);
}

/* numel of a tensor whose shape is known at init, else -1 */
static int64_t numel_of(const g_graph *g, int t) { return g_shape_numel(&g->t[t].shape); }

static int qlm_init_common(g_graph *g, g_node *n, void **state, int qlinear)
{
    if (!dn_engine() || !vnni()) return K_DECLINE;
    int ib = qlinear ? 3 : 1, iaz = 2, ibz = qlinear ? 5 : 3;
    if (n->n_in <= ib || n->in[0] < 0 || n->in[ib] < 0 || (qlinear && n->n_in < 7)) return K_DECLINE;
    const g_tensor *a = &g->t[n->in[0]], *b = &g->t[n->in[ib]];
    if (a->dtype != G_U8 || b->dtype != G_I8 || b->shape.rank != 2) return K_DECLINE;
    if (g_shape_numel(&a->shape) == 0 || g_shape_numel(&b->shape) <= 0) return K_DECLINE;   /* empty */
    if (has_in(n, iaz) && numel_of(g, n->in[iaz]) != 1) return K_DECLINE;
    if (has_in(n, ibz)) {
        const g_tensor *z = &g->t[n->in[ibz]];
        if (!nn_is_const(g, n, ibz)) return K_DECLINE;
        for (size_t i = 0; i < z->nbytes; i++) if (((const unsigned char *)z->data)[i]) return K_DECLINE;
    }
    if (qlinear) {
        if (g->t[n->in[1]].dtype != G_F32 || g->t[n->in[4]].dtype != G_F32 ||
            g->t[n->in[6]].dtype != G_F32 || numel_of(g, n->in[1]) != 1 ||
            numel_of(g, n->in[6]) != 1)
            return K_DECLINE;
        int64_t nbs = numel_of(g, n->in[4]);
        if (nbs != 1 && nbs != b->shape.d[1]) return K_DECLINE;
    }
    qlm *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    s->qlinear = qlinear;
    s->ib = ib; s->iaz = iaz; s->ibz = ibz;
    s->b_const = nn_is_const(g, n, ib);
    *state = s;
    return 0;
}

static int mmi_init(g_graph *g, g_node *n, void **st) { return qlm_init_common(g, n, st, 0); }
static int qlmm_init(g_graph *g, g_node *n, void **st) { return qlm_init_common(g, n, st, 1); }

static int qlm_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qlm *s = state;
    int64_t M, K, N;
    int r = nn_matmul_shape(n, &in[0].shape, &in[s->ib].shape, &out[0].shape, &M, &K, &N);
    if (r) return r;
    out[0].dtype = !s->qlinear ? G_I32 : (has_in(n, 7) && in[7].dtype != G_UNDEF ? in[7].dtype : G_U8);
    if (s->qlinear && out[0].dtype != G_U8 && out[0].dtype != G_I8) return nn_fail_dtype(n, 7, out[0].dtype);
    return 0;
}

static int qlm_build(const g_node *n, qlm *s, const k_tensor *in, int nthr)
{
    qlm_release(s);
    s->K = in[s->ib].shape.d[0];
    s->N = in[s->ib].shape.d[1];
    int64_t cnt = g_shape_numel(&in[0].shape);
    s->M = s->K > 0 ? cnt / s->K : 0;
    s->nthr = nthr;
    int64_t M = s->M, K = s->K, N = s->N;
    if (M <= 0 || K <= 0 || N <= 0)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s, impl dnnl): empty product",
                        n->name, n->op_type);
    dnnl_dims_t da = { M, K }, dw = { K, N }, dy = { M, N }, dz = { 1 };
    dnnl_memory_desc_t a_md, w_md, y_md, zp_md;
    dnnl_memory_desc_init_by_tag(&a_md, 2, da, dnnl_u8, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&w_md, 2, dw, dnnl_s8, s->b_const ? dnnl_format_tag_any : dnnl_ab);
    dnnl_memory_desc_init_by_tag(&y_md, 2, dy, dnnl_s32, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&zp_md, 1, dz, dnnl_s32, dnnl_a);
    dnnl_matmul_desc_t md;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    int32_t rz = DNNL_RUNTIME_S32_VAL;
    dnnl_status_t st = dnnl_matmul_desc_init(&md, &a_md, s->have_wmd ? &s->wmd : &w_md, NULL, &y_md);
    if (st == dnnl_success) st = dnnl_primitive_attr_create(&attr);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    if (st == dnnl_success) st = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &rz);
    if (st == dnnl_success) st = dn_pd_create(&pd, (const_dnnl_op_desc_t)&md, attr, "brg");
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        return dn_check(st, n, "int8 matmul primitive descriptor");
    }
    if (s->b_const && !s->have_wmd) {
        s->wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        s->have_wmd = 1;
        s->wbytes = dnnl_memory_desc_get_size(&s->wmd);
    }
    /* scratch: the int32 sums (QLinearMatMul), the zero point, oneDNN's */
    s->off_y = 0;
    s->off_zp = s->qlinear ? dn_align((size_t)(M * N) * sizeof(int32_t)) : 0;
    s->off_sp = s->off_zp + 64;
    s->scratch = s->off_sp + dn_scratch_size(pd);
    const dnnl_memory_desc_t *spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    int rc = dn_check(dnnl_primitive_create(&s->prim, pd), n, "int8 matmul primitive creation");
    if (!rc) rc = dn_mem(n, &a_md, &s->m_a);
    if (!rc) rc = dn_mem(n, s->b_const ? &s->wmd : &w_md, &s->m_b);
    if (!rc) rc = dn_mem(n, &y_md, &s->m_y);
    if (!rc) rc = dn_mem(n, &zp_md, &s->m_zp);
    if (!rc && dn_scratch_size(pd)) rc = dn_mem(n, spmd, &s->m_sp);
    dnnl_primitive_desc_destroy(pd);
    if (rc) { qlm_release(s); return rc; }
    s->built = 1;
    return 0;
}

static int qlm_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                    size_t *packed_bytes, size_t *scratch_bytes)
{
    qlm *s = state;
    (void)out;
    int r = qlm_build(n, s, in, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = s->b_const ? s->wbytes : 0;
    *scratch_bytes = s->scratch;
    return 0;
}

static int qlm_pack_into(const g_node *n, qlm *s, const k_tensor *in, void *packed)
{
    if (!in[s->ib].data)
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): B not available "
                        "for packing", n->name, n->op_type);
    dnnl_memory_desc_t w_md;
    dnnl_dims_t dw = { s->K, s->N };
    dnnl_memory_desc_init_by_tag(&w_md, 2, dw, dnnl_s8, dnnl_ab);
    int r = dn_reorder_once(n, &w_md, in[s->ib].data, &s->wmd, packed);
    if (!r) dn_pk_adopt(&s->pk, packed);
    return r;
}

static int qlm_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    qlm *s = state;
    int r;
    (void)out;
    if (!s->b_const) return 0;
    if (!s->built && (r = qlm_build(n, s, in, dn_threads(NULL)))) return r;
    return qlm_pack_into(n, s, in, packed);
}

static int qlm_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    qlm *s = state;
    int r;
    (void)out;
    if (!s->b_const) return 0;
    if (!s->built && (r = qlm_build(n, s, in, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

/* QLinearMatMul's requantisation of the int32 sums, as the reference's. */
static void requant(const g_node *n, const qlm *s, const k_tensor *in, const int32_t *acc, k_tensor *out)
{
    float rq = *(const float *)in[1].data / *(const float *)in[6].data;
    const float *bs = in[4].data;
    int per_col = g_shape_numel(&in[4].shape) > 1;
    int dt = out[0].dtype;
    float lo = dt == G_U8 ? 0.f : -128.f, hi = dt == G_U8 ? 255.f : 127.f;
    float yz = !has_in(n, 7) || !in[7].data ? 0.f
               : dt == G_U8 ? (float)*(const uint8_t *)in[7].data : (float)*(const int8_t *)in[7].data;
    for (int64_t m = 0; m < s->M; m++)
        for (int64_t j = 0; j < s->N; j++) {
            size_t o = (size_t)(m * s->N + j);
            float v = rintf((float)acc[o] * (rq * bs[per_col ? j : 0])) + yz;
            if (v != v) v = 0.f;
            v = v < lo ? lo : v > hi ? hi : v;
            if (dt == G_U8) ((uint8_t *)out[0].data)[o] = (uint8_t)v;
            else ((int8_t *)out[0].data)[o] = (int8_t)v;
        }
}

static int qlm_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    qlm *s = state;
    int r, nthr = dn_threads(ctx);
    int64_t cnt = g_shape_numel(&in[0].shape);
    if (!s->built || s->nthr != nthr || cnt / s->K != s->M)
        if ((r = qlm_build(n, s, in, nthr))) return r;
    if (s->b_const && !s->pk.packed_ok) {
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, s->wbytes, &own)) || (r = qlm_pack_into(n, s, in, own)))
            return r;
    }
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
    int32_t *zp = (int32_t *)(scr + s->off_zp);
    *zp = has_in(n, s->iaz) && in[s->iaz].data ? (int32_t)*(const uint8_t *)in[s->iaz].data : 0;
    int32_t *acc = s->qlinear ? (int32_t *)(scr + s->off_y) : out[0].data;
    if ((r = dn_set_handle(n, s->m_a, in[0].data)) ||
        (r = dn_set_handle(n, s->m_b, s->b_const ? s->pk.packed : in[s->ib].data)) ||
        (r = dn_set_handle(n, s->m_y, acc)) || (r = dn_set_handle(n, s->m_zp, zp)))
        return r;
    dnnl_exec_arg_t a[5] = {
        { DNNL_ARG_SRC, s->m_a }, { DNNL_ARG_WEIGHTS, s->m_b }, { DNNL_ARG_DST, s->m_y },
        { DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, s->m_zp },
    };
    int na = 4;
    if (s->m_sp) {
        if ((r = dn_set_handle(n, s->m_sp, scr + s->off_sp))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, s->m_sp };
    }
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    if ((r = dn_check(dnnl_primitive_execute(s->prim, strm, na, a), n, "int8 matmul")) ||
        (r = dn_check(dnnl_stream_wait(strm), n, "stream wait")))
        return r;
    if (s->qlinear) requant(n, s, in, acc, out);
    return 0;
}

static const k_op k_mmi_dnnl = {
    .op_type = "MatMulInteger", .domain = "", .since = 10, .until = 0, .impl = "dnnl", .priority = 10,
    .init = mmi_init, .infer = qlm_infer, .plan = qlm_plan, .pack = qlm_pack, .run = qlm_run,
    .fini = qlm_fini, .adopt = qlm_adopt, .flops = k_flops_matmul, .packed_inputs = 1u << 1,
};
K_REGISTER(k_mmi_dnnl);

static const k_op k_qlmm_dnnl = {
    .op_type = "QLinearMatMul", .domain = "", .since = 10, .until = 0, .impl = "dnnl", .priority = 10,
    .init = qlmm_init, .infer = qlm_infer, .plan = qlm_plan, .pack = qlm_pack, .run = qlm_run,
    .fini = qlm_fini, .adopt = qlm_adopt, .flops = k_flops_matmul, .packed_inputs = 1u << 3,
};
K_REGISTER(k_qlmm_dnnl);
