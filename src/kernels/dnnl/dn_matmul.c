/* oneDNN MatMul and Gemm (float32) through the matmul primitive. A constant
 * B is packed once in the primitive's preferred format (Gemm's alpha folded
 * into it); a constant Gemm C (times beta) or MatMul's fused bias becomes
 * the primitive's bias; a runtime C with beta 1 is a binary post-op. Batch
 * dims broadcast as in NumPy. What oneDNN refuses runs the reference math
 * inside this kernel on copies packed at load.
 *
 * Products of one row of A with a constant B (the batch-1 classifier) are
 * the implementation of dn_mm_gemv.c, tried first; this one takes them
 * under OPENACL_NO_GEMV. */
#include "kernels/dnnl/dn_common.h"
#include <stdlib.h>
#include <string.h>

enum { C_NONE = 0, C_BIAS = 1, C_BINARY = 2 };

typedef struct dmm {
    int gemm, ta, tb;
    float alpha, beta;
    nn_post po;
    int b_const, c_kind;
    int built, fallback, nthr;
    int bf16;         /* bfloat16 compute: A (and a runtime B) converted through scratch */
    g_shape as, bs, cs, ys;
    int64_t M, K, N;
    dnnl_primitive_t prim, re_a, re_b;
    dnnl_memory_t m_a, m_b, m_bias, m_y, m_sp, m_add, m_c, m_au, m_bu;
    size_t off_a, off_b, off_sp;
    dnnl_memory_desc_t wmd, bias_md;
    int have_wmd;
    size_t wbytes, bbytes, scratch;
    int add_idx;
    dn_pk pk;                 /* packed area, own memory for unplanned runs */
} dmm;

static void dmm_release(dmm *s)
{
    dn_prim_free(&s->prim); dn_prim_free(&s->re_a); dn_prim_free(&s->re_b);
    dn_mem_free(&s->m_au); dn_mem_free(&s->m_bu);
    dn_mem_free(&s->m_a); dn_mem_free(&s->m_b); dn_mem_free(&s->m_bias); dn_mem_free(&s->m_y);
    dn_mem_free(&s->m_sp); dn_mem_free(&s->m_add); dn_mem_free(&s->m_c);
    s->built = 0;
}

static void dmm_fini(void *state)
{
    dmm *s = state;
    if (!s) return;
    dmm_release(s);
    dn_pk_free(&s->pk);
    free(s);
}

static int has_in(const g_node *n, int i) { return n->n_in > i && n->in[i] >= 0; }

static int dmm_init_common(g_graph *g, g_node *n, void **state, int gemm)
{
    if (!dn_engine() || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) return K_DECLINE;
    for (int i = 0; i < n->n_in && i < 4; i++)
        if (n->in[i] >= 0 && g->t[n->in[i]].dtype != G_F32) return K_DECLINE;
    dmm *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int r = nn_post_parse(n, &s->po);
    if (r) { free(s); return r; }
    s->gemm = gemm;
    s->ta = gemm ? (int)g_attr_int(n, "transA", 0) : 0;
    s->tb = gemm ? (int)g_attr_int(n, "transB", 0) : 0;
    s->alpha = gemm ? g_attr_float(n, "alpha", 1.f) : 1.f;
    s->beta = gemm ? g_attr_float(n, "beta", 1.f) : 1.f;
    s->b_const = nn_is_const(g, n, 1);
    /* constant folding computes exactly */
    s->bf16 = graph_node_bf16(n) && !(nn_is_const(g, n, 0) && s->b_const) && dn_has_bf16();
    if (has_in(n, 2) && (!gemm || s->beta != 0.f))
        s->c_kind = nn_is_const(g, n, 2) ? C_BIAS : C_BINARY;
    /* what needs a constant B or C to be folded */
    if ((s->alpha != 1.f && !s->b_const) || (s->c_kind == C_BINARY && (s->beta != 1.f || !gemm))) {
        free(s);
        return K_DECLINE;
    }
    *state = s;
    return 0;
}

static int dmatmul_init(g_graph *g, g_node *n, void **st) { return dmm_init_common(g, n, st, 0); }
static int dgemm_init(g_graph *g, g_node *n, void **st) { return dmm_init_common(g, n, st, 1); }

static int dmm_shape(const g_node *n, const dmm *s, const k_tensor *in, g_shape *y,
                     int64_t *M, int64_t *K, int64_t *N)
{
    if (s->gemm)
        return nn_gemm_shape(n, s->ta, s->tb, &in[0].shape, &in[1].shape,
                             has_in(n, 2) ? &in[2].shape : NULL, y, M, K, N);
    return nn_matmul_shape(n, &in[0].shape, &in[1].shape, y, M, K, N);
}

static int dmm_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    dmm *s = state;
    int64_t M, K, N;
    int r = dmm_shape(n, s, in, &out[0].shape, &M, &K, &N);
    if (r) return r;
    if (!s->gemm && has_in(n, 2)) {
        const g_shape *bs = &in[2].shape;
        if (bs->rank != 1 || (N >= 0 && bs->d[0] >= 0 && bs->d[0] != N)) {
            char x[96];
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused bias %s; expected "
                            "[%lld]", n->name, n->op_type, g_shape_str(bs, x, sizeof x), (long long)N);
        }
    }
    if (s->po.has_add && g_shape_known(&out[0].shape) &&
        !g_shape_eq(&in[NN_ADD_INPUT].shape, &out[0].shape)) {
        char x[96], z[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): fused addend %s differs from "
                        "the output %s", n->name, n->op_type,
                        g_shape_str(&in[NN_ADD_INPUT].shape, x, sizeof x),
                        g_shape_str(&out[0].shape, z, sizeof z));
    }
    out[0].dtype = G_F32;
    return 0;
}

/* Operand descriptors at the output's rank r: batch dims padded with ones. */
static void md_mat_dt(dnnl_memory_desc_t *md, int r, const g_shape *s, int trans, int64_t rows,
                      int64_t cols, int any, dnnl_data_type_t dt)
{
    dnnl_dims_t d, st;
    int sr = s->rank;
    for (int i = 0; i < r - 2; i++) {
        int si = i - (r - 2 - (sr > 2 ? sr - 2 : 0));
        d[i] = (sr > 2 && si >= 0) ? s->d[si] : 1;
    }
    d[r - 2] = rows;
    d[r - 1] = cols;
    if (any) {
        dnnl_memory_desc_init_by_tag(md, r, d, dt, dnnl_format_tag_any);
        return;
    }
    /* plain storage; a transposed operand stores [cols, rows] */
    if (trans) { st[r - 2] = 1; st[r - 1] = rows; }
    else { st[r - 1] = 1; st[r - 2] = cols; }
    dnnl_dim_t acc = rows * cols;
    for (int i = r - 3; i >= 0; i--) { st[i] = d[i] == 1 ? 0 : acc; acc *= d[i]; }
    for (int i = r - 3; i >= 0; i--) if (d[i] == 1) st[i] = acc;   /* any value works for size-1 dims */
    dnnl_memory_desc_init_by_strides(md, r, d, dt, st);
}

static void md_mat(dnnl_memory_desc_t *md, int r, const g_shape *s, int is_b, int trans,
                   int64_t rows, int64_t cols, int any)
{
    (void)is_b;
    md_mat_dt(md, r, s, trans, rows, cols, any, dnnl_f32);
}

/* A[..., M, K] x a constant B[K, N] (transformers' projections): one 2-D
 * product over all rows of A (*rr, *y2 and *M become the 2-D ones). oneDNN
 * leaves the weights of a batched product with broadcast B in the plain
 * layout (brgemm then runs at half speed); 2-D gets them packed. */
static void flatten_rows(const dmm *s, int *rr, g_shape *y2, int64_t *M, int64_t N)
{
    int b_flat = 1;
    for (int i = 0; i + 2 < s->bs.rank; i++) b_flat &= s->bs.d[i] == 1;
    int c_rows1 = s->c_kind != C_BINARY || s->cs.rank < 2 || s->cs.d[s->cs.rank - 2] == 1;
    if (!(s->b_const && !s->ta && *rr > 2 && b_flat && c_rows1 && s->as.rank == *rr)) return;
    int64_t rows = 1;
    for (int i = 0; i < *rr - 2; i++) rows *= y2->d[i];
    *M *= rows;
    *rr = 2;
    y2->rank = 2;
    y2->d[0] = *M;
    y2->d[1] = N;
}

/* The memory objects and bf16 reorders of a built primitive; md: a_md,
 * a_c, b_md, b_c, y_md, c_md, add_md, the scratchpad's. */
static int dmm_mems(const g_node *n, dmm *s, const dnnl_memory_desc_t *const md[8])
{
    int rc = 0;
    if (s->bf16) {
        rc = dn_reorder_prim(n, md[0], md[1], &s->re_a);
        if (!rc) rc = dn_mem(n, md[0], &s->m_au);
        if (!rc && !s->b_const) rc = dn_reorder_prim(n, md[2], md[3], &s->re_b);
        if (!rc && !s->b_const) rc = dn_mem(n, md[2], &s->m_bu);
    }
    if (!rc) rc = dn_mem(n, md[1], &s->m_a);
    if (!rc) rc = dn_mem(n, s->b_const ? &s->wmd : md[3], &s->m_b);
    if (!rc) rc = dn_mem(n, md[4], &s->m_y);
    if (!rc && s->c_kind == C_BIAS) rc = dn_mem(n, md[5], &s->m_bias);
    if (!rc && s->c_kind == C_BINARY) rc = dn_mem(n, md[5], &s->m_c);
    if (!rc && s->po.has_add) rc = dn_mem(n, md[6], &s->m_add);
    if (!rc && s->scratch > s->off_sp) rc = dn_mem(n, md[7], &s->m_sp);
    return rc;
}

/* C's (bias or binary addend) memory descriptor at matmul rank rr: dims
 * [1..., rows (1 or M), cols (1 or N)]; a bias's bytes in s->bbytes. */
static void c_desc(dmm *s, int rr, dnnl_memory_desc_t *c_md)
{
    g_shape c2 = { .rank = rr };
    for (int i = 0; i < rr; i++) c2.d[i] = 1;
    const g_shape *cs = &s->cs;
    if (cs->rank >= 1) c2.d[rr - 1] = cs->d[cs->rank - 1];
    if (cs->rank >= 2) c2.d[rr - 2] = cs->d[cs->rank - 2];
    dn_md_plain(c_md, &c2, dnnl_f32);
    if (s->c_kind == C_BIAS) s->bbytes = (size_t)g_shape_numel(&c2) * sizeof(float);
}

/* oneDNN declined (or the product is empty): the reference math runs it. */
static int dmm_fallback(const g_node *n, dmm *s, int64_t wn, int empty)
{
    if (!empty)
        acl_log(1, "node '%s' (%s): oneDNN declined the configuration, reference math used",
                n->name, n->op_type);
    s->fallback = 1;
    s->wbytes = s->b_const ? (size_t)wn * sizeof(float) : 0;
    s->bbytes = s->c_kind == C_BIAS ? (size_t)g_shape_numel(&s->cs) * sizeof(float) : 0;
    s->scratch = 0;
    s->built = 1;
    return 0;
}

static int dmm_build(const g_node *n, dmm *s, const k_tensor *in, const k_tensor *out, int nthr)
{
    dmm_release(s);
    g_shape ys;
    int r = dmm_shape(n, s, in, &ys, &s->M, &s->K, &s->N);
    if (r) return r;
    s->as = in[0].shape; s->bs = in[1].shape; s->ys = ys;
    if (has_in(n, 2)) s->cs = in[2].shape;
    s->nthr = nthr;
    int64_t M = s->M, K = s->K, N = s->N;
    if (s->bf16 && !s->have_wmd && 2.0 * (double)g_shape_numel(&ys) * (double)K < DN_BF16_MIN_FLOPS)
        s->bf16 = 0;   /* too small: converting costs more than bf16 saves */
    int rr = ys.rank;   /* matmul rank: the output's, at least 2 */
    g_shape y2 = ys;
    if (!s->gemm) {
        /* 1-D operands drop a dim in the output: compute at the padded rank */
        rr = 2;
        int ab = s->as.rank > 2 ? s->as.rank - 2 : 0, bb = s->bs.rank > 2 ? s->bs.rank - 2 : 0;
        rr += ab > bb ? ab : bb;
        y2.rank = rr;
        for (int i = 0; i < rr - 2; i++) y2.d[i] = ys.d[i];
        y2.d[rr - 2] = M;
        y2.d[rr - 1] = N;
    }
    flatten_rows(s, &rr, &y2, &M, N);
    int64_t wn = g_shape_numel(&in[1].shape);
    dnnl_memory_desc_t a_md, b_md, b_any, y_md, c_md, add_md, a_c, b_c;
    md_mat(&a_md, rr, &s->as, 0, s->ta, M, K, 0);
    md_mat(&b_md, rr, &s->bs, 1, s->tb, K, N, 0);
    dnnl_data_type_t cdt = s->bf16 ? dnnl_bf16 : dnnl_f32;
    md_mat_dt(&b_any, rr, &s->bs, 0, K, N, 1, cdt);
    /* bf16: dense bf16 copies of the activation operands in scratch */
    a_c = a_md;
    b_c = b_md;
    if (s->bf16) {
        md_mat_dt(&a_c, rr, &s->as, 0, M, K, 0, dnnl_bf16);
        md_mat_dt(&b_c, rr, &s->bs, 0, K, N, 0, dnnl_bf16);
    }
    dn_md_plain(&y_md, &y2, dnnl_f32);
    add_md = y_md;
    s->bbytes = 0;
    if (s->c_kind != C_NONE) c_desc(s, rr, &c_md);
    dnnl_status_t st = dnnl_unimplemented;
    dnnl_primitive_desc_t pd = NULL;
    /* an empty product (a zero M, N, K or batch) is not oneDNN's to run (it
     * divides by the sizes): the reference loop writes the zeros or C */
    int empty = g_shape_numel(&y2) == 0 || K == 0 || g_shape_numel(&s->as) == 0 ||
                g_shape_numel(&s->bs) == 0;
    if (empty) s->bf16 = 0;
    if (!(s->fallback && s->pk.packed_ok) && !empty) {
        dnnl_matmul_desc_t md;
        dnnl_primitive_attr_t attr = NULL;
        const dnnl_memory_desc_t *wd = s->b_const ? (s->have_wmd ? &s->wmd : &b_any) : &b_c;
        st = dnnl_matmul_desc_init(&md, &a_c, wd, s->c_kind == C_BIAS ? &c_md : NULL, &y_md);
        if (st == dnnl_success) st = dnnl_primitive_attr_create(&attr);
        if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
        if (st == dnnl_success &&
            dn_post_ops(n, &s->po, &add_md, s->c_kind == C_BINARY ? &c_md : NULL, attr, &s->add_idx))
            st = dnnl_unimplemented;
        if (st == dnnl_success) st = dnnl_primitive_desc_create(&pd, &md, attr, dn_engine(), NULL);
        if (attr) dnnl_primitive_attr_destroy(attr);
    }
    if (st != dnnl_success && s->bf16 && !s->have_wmd) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        acl_log(1, "node '%s' (%s): no bfloat16 primitive, float32 used", n->name, n->op_type);
        s->bf16 = 0;
        return dmm_build(n, s, in, out, nthr);
    }
    if (st != dnnl_success) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        if (s->have_wmd && !s->fallback) {
            if (!in[1].data)
                return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): no oneDNN "
                                "primitive for this input shape with the packed weight format",
                                n->name, n->op_type);
            s->have_wmd = 0;
            s->pk.packed_ok = 0;
            return dmm_build(n, s, in, out, nthr);
        }
        return dmm_fallback(n, s, wn, empty);
    }
    if (s->b_const && !s->have_wmd) {
        s->wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        s->have_wmd = 1;
        s->wbytes = dnnl_memory_desc_get_size(&s->wmd);
    }
    s->bias_md = c_md;
    size_t off = 0;
    s->off_a = s->off_b = 0;
    if (s->bf16) {
        s->off_a = off; off = dn_align(off + dnnl_memory_desc_get_size(&a_c));
        if (!s->b_const) { s->off_b = off; off = dn_align(off + dnnl_memory_desc_get_size(&b_c)); }
    }
    s->off_sp = off;
    s->scratch = off + dn_scratch_size(pd);
    const dnnl_memory_desc_t *spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    st = dnnl_primitive_create(&s->prim, pd);
    int rc = dn_check(st, n, "matmul primitive creation");
    const dnnl_memory_desc_t *mds[] = { &a_md, &a_c, &b_md, &b_c, &y_md, &c_md, &add_md, spmd };
    if (!rc) rc = dmm_mems(n, s, mds);
    dnnl_primitive_desc_destroy(pd);
    if (rc) { dmm_release(s); return rc; }
    s->built = 1;
    return 0;
}

static int dmm_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                    size_t *packed_bytes, size_t *scratch_bytes)
{
    dmm *s = state;
    int r = dmm_build(n, s, in, out, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = dn_align(s->wbytes) + s->bbytes;
    *scratch_bytes = s->scratch;
    return 0;
}

static int dmm_pack_into(const g_node *n, dmm *s, const k_tensor *in, void *packed)
{
    int r;
    if (s->b_const) {
        if (!in[1].data)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): B not available "
                            "for packing", n->name, n->op_type);
        const float *b = in[1].data;
        float *tmp = NULL;
        size_t cnt = (size_t)g_shape_numel(&in[1].shape);
        if (s->alpha != 1.f) {
            tmp = malloc(cnt * sizeof(float) + 1);
            if (!tmp) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
            for (size_t i = 0; i < cnt; i++) tmp[i] = b[i] * s->alpha;
            b = tmp;
        }
        if (s->fallback) {
            memcpy(packed, b, cnt * sizeof(float));
            r = 0;
        } else {
            dnnl_memory_desc_t b_md;
            md_mat(&b_md, s->wmd.ndims, &s->bs, 1, s->tb, s->K, s->N, 0);
            r = dn_reorder_once(n, &b_md, (void *)b, &s->wmd, packed);
        }
        free(tmp);
        if (r) return r;
    }
    if (s->c_kind == C_BIAS) {
        if (!in[2].data)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): C not available "
                            "for packing", n->name, n->op_type);
        float *dst = (float *)((char *)packed + dn_align(s->wbytes));
        const float *c = in[2].data;
        size_t cnt = s->bbytes / sizeof(float);
        /* the fallback applies beta itself */
        float k = (s->gemm && !s->fallback) ? s->beta : 1.f;
        for (size_t i = 0; i < cnt; i++) dst[i] = c[i] * k;
    }
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dmm_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                    void *packed)
{
    dmm *s = state;
    int r;
    if (!s->built && (r = dmm_build(n, s, in, out, dn_threads(NULL)))) return r;
    return dmm_pack_into(n, s, in, packed);
}

/* A compiled model's packed weights (kernel.h adopt): the area holds what
 * dmm_pack_into wrote with this build on this CPU; it is only read. */
static int dmm_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                     void *packed)
{
    dmm *s = state;
    int r;
    if (!s->built && (r = dmm_build(n, s, in, out, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dmm_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    dmm *s = state;
    int r, nthr = dn_threads(ctx);
    if (!s->built || s->nthr != nthr || !g_shape_eq(&s->as, &in[0].shape) ||
        !g_shape_eq(&s->bs, &in[1].shape) || (has_in(n, 2) && !g_shape_eq(&s->cs, &in[2].shape))) {
        if ((r = dmm_build(n, s, in, out, nthr))) return r;
    }
    if (!s->pk.packed_ok && (s->b_const || s->c_kind == C_BIAS)) {
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, dn_align(s->wbytes) + s->bbytes, &own)) ||
            (r = dmm_pack_into(n, s, in, own)))
            return r;
    }
    const char *pk = s->pk.packed;
    if (s->fallback) {
        k_tensor t[4];
        int nin = n->n_in < 4 ? n->n_in : 4;
        for (int i = 0; i < nin; i++) t[i] = in[i];
        if (s->b_const) t[1].data = (void *)pk;
        if (s->c_kind == C_BIAS) t[2].data = (void *)(pk + dn_align(s->wbytes));
        /* alpha is already in the packed B */
        return nn_mm_compute(n, s->gemm, s->ta, s->tb, s->b_const ? 1.f : s->alpha, s->beta,
                             &s->po, t, out);
    }
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    dnnl_exec_arg_t a[7];
    int na = 0;
    if (s->re_a) {
        dnnl_exec_arg_t ra[2] = { { DNNL_ARG_FROM, s->m_au }, { DNNL_ARG_TO, s->m_a } };
        if ((r = dn_set_handle(n, s->m_au, in[0].data)) || (r = dn_set_handle(n, s->m_a, (char *)scr + s->off_a)) ||
            (r = dn_check(dnnl_primitive_execute(s->re_a, strm, 2, ra), n, "bf16 conversion")))
            return r;
    } else if ((r = dn_set_handle(n, s->m_a, in[0].data))) return r;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SRC, s->m_a };
    if (s->re_b) {
        dnnl_exec_arg_t rb[2] = { { DNNL_ARG_FROM, s->m_bu }, { DNNL_ARG_TO, s->m_b } };
        if ((r = dn_set_handle(n, s->m_bu, in[1].data)) || (r = dn_set_handle(n, s->m_b, (char *)scr + s->off_b)) ||
            (r = dn_check(dnnl_primitive_execute(s->re_b, strm, 2, rb), n, "bf16 conversion")))
            return r;
    } else if ((r = dn_set_handle(n, s->m_b, s->b_const ? pk : in[1].data))) return r;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_WEIGHTS, s->m_b };
    if ((r = dn_set_handle(n, s->m_y, out[0].data))) return r;
    a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_DST, s->m_y };
    if (s->c_kind == C_BIAS) {
        if ((r = dn_set_handle(n, s->m_bias, pk + dn_align(s->wbytes)))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_BIAS, s->m_bias };
    }
    if (s->c_kind == C_BINARY) {
        if ((r = dn_set_handle(n, s->m_c, in[2].data))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, s->m_c };
    }
    if (s->po.has_add) {
        if ((r = dn_set_handle(n, s->m_add, in[NN_ADD_INPUT].data))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_MULTIPLE_POST_OP(s->add_idx) | DNNL_ARG_SRC_1, s->m_add };
    }
    if (s->m_sp) {
        if ((r = dn_set_handle(n, s->m_sp, (char *)scr + s->off_sp))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, s->m_sp };
    }
    if ((r = dn_check(dnnl_primitive_execute(s->prim, strm, na, a), n, "matmul"))) return r;
    return dn_check(dnnl_stream_wait(strm), n, "stream wait");
}

static const k_op k_matmul_dnnl = {
    .op_type = "MatMul", .domain = "", .since = 1, .until = 0, .impl = "dnnl", .priority = 10,
    .init = dmatmul_init, .infer = dmm_infer, .plan = dmm_plan, .pack = dmm_pack,
    .run = dmm_run, .fini = dmm_fini, .packed_inputs = (1u << 1) | (1u << 2), .adopt = dmm_adopt,
    .flops = k_flops_matmul,
};
K_REGISTER(k_matmul_dnnl);

static const k_op k_gemm_dnnl = {
    .op_type = "Gemm", .domain = "", .since = 1, .until = 0, .impl = "dnnl", .priority = 10,
    .init = dgemm_init, .infer = dmm_infer, .plan = dmm_plan, .pack = dmm_pack,
    .run = dmm_run, .fini = dmm_fini, .packed_inputs = (1u << 1) | (1u << 2), .adopt = dmm_adopt,
    .flops = k_flops_gemm,
};
K_REGISTER(k_gemm_dnnl);
