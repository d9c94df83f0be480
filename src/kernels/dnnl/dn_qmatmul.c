/* openacl.DynQMatMul and openacl.QMatMul on oneDNN (the ops:
 * kernels/ref/nn_dynqmm.c; the pass that writes them: graph/qmatmul.c).
 * QMatMul's activation arrives quantised; DynQMatMul's float one is
 * quantised per run to uint8 over the whole tensor (AVX-512 min/max and quantise
 * loops, DynamicQuantizeLinear's arithmetic), then one u8 x s8 oneDNN
 * matmul (VNNI) writes float32 directly, s[n] * (acc + bias'[n]) with the
 * run's per-column scale s[n] = x_scale * w_scale[n] as oneDNN's runtime
 * output scales and bias'[n] = bias[n] / s[n] - zp * colsum(W)[n] (which
 * takes the activation's zero point out of the product) as its bias, added
 * before the scales as oneDNN 2.6 does; the fused post-ops follow. Runtime
 * scales take oneDNN's gemm kernel instead of brgemm, which with the two
 * per-column binary post-ops this needs otherwise spent more time on them
 * than on the product (BERT-4's 128x256x1024 with GELU 0.27 -> 0.19 ms per
 * node, PP-OCRv4 rec's 40x120x6625 with its quantise step 0.45 -> 0.30).
 * oneDNN's gemm packs W on every call, so products below 2 rows or 1 row per
 * 64 of depth (batch-1 classifiers) keep the brgemm form (dq_build). A column
 * whose scale is zero or
 * subnormal (or whose bias' overflows) gets scale 0 in oneDNN and its value,
 * bias[n] - s[n] * zp * colsum(W)[n] through the post-ops, written after.
 * OPENACL_QMM_BINARY=1 keeps the brgemm form: the scale as a first binary
 * post-op, a second adding bias[n] - s[n] * zp * colsum(W)[n].
 * W is packed once at load (with its column sums, bias and w_scale) and a
 * compiled model keeps it packed (adopt). */
#include "kernels/dnnl/dn_common.h"
#include "kernels/ref/nn_dynqmm.h"
#include "core/par.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* the rounding immediate of roundscale: a constant expression, as clang requires */
#define QM_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define DQ_X86 1
#endif

typedef struct dq {
    nn_post po;
    int has_bias, per_col, fallback, built, nthr;
    int rt;                    /* runtime output scales and bias' (else two binary post-ops) */
    double serial_macs;        /* products below this many multiply-adds run on one thread */
    int stat;                  /* openacl.QMatMul: X arrives quantised */
    int qout;                  /* a QuantizeLinear folded behind: float result in scratch */
    size_t off_yf;
    int64_t M, K, N;
    dnnl_primitive_t prim;
    dnnl_memory_t m_a, m_w, m_y, m_sc, m_vec, m_add, m_sp;
    dnnl_memory_desc_t wmd;
    int have_wmd, add_idx;
    size_t wbytes, vbytes;     /* packed W; one aligned per-column vector */
    size_t off_sc, off_vec, off_sp, scratch;
    dn_pk pk;
} dq;

static int has_in(const g_node *n, int i) { return n->n_in > i && n->in[i] >= 0; }

int dn_qmm_binary(void)
{
    const char *e = getenv("OPENACL_QMM_BINARY");   /* read per load: mdl_bench --ab */
    return e && !strcmp(e, "1");
}

/* u8 x s8 products need VNNI: without it oneDNN's int8 kernels pair
 * products in saturating 16-bit sums (255*127*2 overflows) */
static int dq_vnni(void)
{
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    return isa == dnnl_cpu_isa_avx512_core_vnni || isa == dnnl_cpu_isa_avx512_core_bf16 ||
           isa == dnnl_cpu_isa_avx512_core_amx || isa == dnnl_cpu_isa_avx2_vnni;
}

static void dq_release(dq *s)
{
    dn_prim_free(&s->prim);
    dn_mem_free(&s->m_a); dn_mem_free(&s->m_w); dn_mem_free(&s->m_y); dn_mem_free(&s->m_sc);
    dn_mem_free(&s->m_vec); dn_mem_free(&s->m_add); dn_mem_free(&s->m_sp);
    s->built = 0;
}

static void dq_fini(void *state)
{
    dq *s = state;
    if (!s) return;
    dq_release(s);
    dn_pk_free(&s->pk);
    free(s);
}

static int dq_init(g_graph *g, g_node *n, void **state)
{
    if (!dn_engine() || !dq_vnni()) return K_DECLINE;
    int r = nn_dynqmm_check(g, n);
    if (r) return r;
    if ((has_in(n, 2) && !nn_is_const(g, n, 2)) || !nn_is_const(g, n, DQ_WSCALE)) return K_DECLINE;
    dq *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    if ((r = nn_post_parse(n, &s->po))) { free(s); return r; }
    s->has_bias = has_in(n, 2);
    s->stat = nn_qmm_static(n);
    s->qout = nn_qmm_qout(n);
    /* read per load (mdl_bench --ab); 0 gives every product the team */
    const char *e = getenv("OPENACL_QMM_SERIAL_MACS");
    s->serial_macs = e && *e ? atof(e) : 4e6;
    *state = s;
    return 0;
}

static int dq_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    return nn_dynqmm_infer(n, in, out);
}

/* The packed area: W in the primitive's format, then per column the sums of
 * W (int32), the bias and w_scale (float). */
static size_t dq_packed_bytes(const dq *s) { return dn_align(s->wbytes) + 3 * s->vbytes; }
static int32_t *dq_colsum(const dq *s, const char *pk) { return (int32_t *)(pk + dn_align(s->wbytes)); }
static float *dq_bias(const dq *s, const char *pk) { return (float *)(pk + dn_align(s->wbytes) + s->vbytes); }
static float *dq_wscale(const dq *s, const char *pk) { return (float *)(pk + dn_align(s->wbytes) + 2 * s->vbytes); }

/* The primitive's attributes: post-op 0 multiplies by the run's per-column
 * scale x_scale * w_scale[n] (a [1,N] operand; runtime output scales would
 * keep oneDNN 2.6 off its brgemm kernel), post-op 1 adds the run's
 * per-column vector, then the fused list (dn_post_ops, entries copied). */
static dnnl_status_t dq_attr(const g_node *n, dq *s, dnnl_primitive_attr_t attr,
                             const dnnl_memory_desc_t *y_md, const dnnl_memory_desc_t *vec_md)
{
    if (s->rt) {   /* the scales at run time, then the fused list as it is */
        const float runtime = DNNL_RUNTIME_F32_VAL;
        dnnl_status_t st = dnnl_primitive_attr_set_output_scales(attr, 1, 1 << 1, &runtime);
        int add_idx = -1;
        if (st == dnnl_success && dn_post_ops(n, &s->po, y_md, NULL, attr, &add_idx)) st = dnnl_unimplemented;
        s->add_idx = add_idx;
        return st;
    }
    dnnl_status_t st = dnnl_success;
    dnnl_primitive_attr_t tmp = NULL;
    dnnl_post_ops_t po = NULL;
    const_dnnl_post_ops_t src = NULL;
    int add_idx = -1;
    if (st == dnnl_success) st = dnnl_primitive_attr_create(&tmp);
    if (st == dnnl_success && dn_post_ops(n, &s->po, y_md, vec_md, tmp, &add_idx)) st = dnnl_unimplemented;
    if (st == dnnl_success) st = dnnl_primitive_attr_get_post_ops(tmp, &src);
    if (st == dnnl_success) st = dnnl_post_ops_create(&po);
    if (st == dnnl_success) st = dnnl_post_ops_append_binary(po, dnnl_binary_mul, vec_md);
    for (int i = 0; st == dnnl_success && i < dnnl_post_ops_len(src); i++) {
        dnnl_alg_kind_t alg;
        if (dnnl_post_ops_get_kind(src, i) == dnnl_eltwise) {
            float k, a, b;
            st = dnnl_post_ops_get_params_eltwise(src, i, &k, &alg, &a, &b);
            if (st == dnnl_success) st = dnnl_post_ops_append_eltwise(po, k, alg, a, b);
        } else if (dnnl_post_ops_get_kind(src, i) == dnnl_binary) {
            const dnnl_memory_desc_t *md;
            st = dnnl_post_ops_get_params_binary(src, i, &alg, &md);
            if (st == dnnl_success) st = dnnl_post_ops_append_binary(po, alg, md);
        } else {
            st = dnnl_unimplemented;
        }
    }
    if (st == dnnl_success) st = dnnl_primitive_attr_set_post_ops(attr, po);
    s->add_idx = add_idx >= 0 ? add_idx + 1 : -1;
    if (po) dnnl_post_ops_destroy(po);
    if (tmp) dnnl_primitive_attr_destroy(tmp);
    return st;
}

/* The threads a product runs on: the device's, or one for a product of
 * the gemm form (dq_build: 2 rows or more, 1 row per 64 of depth) below
 * serial_macs multiply-adds. The attention-block products of PP-OCRv4 rec
 * (40 rows, 120-360 columns, depth 120-240) took longer on two threads
 * than on one (oneDNN's gemm packs W on every call, and two threads pack
 * and meet twice). One thread computes each output as the team does
 * (whole depth per output, the same scale and bias steps). One-row
 * classifiers (brgemm) keep the team: MobileNetV2's 1280 x 1000 on one
 * thread cost the model 2 % at 2 threads. */
static int dq_nthr(const dq *s, const k_tensor *in, int nthr)
{
    if (nthr <= 1 || !(s->serial_macs > 0) || in[1].shape.rank != 2 || dn_qmm_binary()) return nthr;
    double K = (double)in[1].shape.d[0], N = (double)in[1].shape.d[1];
    double M = K > 0 ? (double)g_shape_numel(&in[0].shape) / K : 0;
    return M >= 2 && 64 * M >= K && M * K * N < s->serial_macs ? 1 : nthr;
}

/* The engine asks (k_op.max_threads) before it plans the node, and runs
 * it on what this answers; an OPENACL_SMALL_OP_US decision comes first. */
static int dq_max_threads(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, int budget)
{
    (void)n; (void)out;
    return dq_nthr(state, in, budget);
}

static int dq_build(const g_node *n, dq *s, const k_tensor *in, int nthr)
{
    dq_release(s);
    s->K = in[1].shape.d[0];
    s->N = in[1].shape.d[1];
    int64_t cnt = g_shape_numel(&in[0].shape);
    s->M = s->K > 0 ? cnt / s->K : 0;
    s->per_col = g_shape_numel(&in[DQ_WSCALE].shape) == s->N && s->N != 1;
    s->nthr = nthr;
    s->vbytes = dn_align((size_t)(s->N > 0 ? s->N : 1) * sizeof(float));
    int64_t M = s->M, K = s->K, N = s->N;
    dnnl_status_t st = dnnl_unimplemented;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_memory_desc_t a_md, w_md, y_md, sc_md, vec_md;
    if (M > 0 && K > 0 && N > 0 && !(s->fallback && s->pk.packed_ok)) {
        dnnl_dims_t da = { M, K }, dw = { K, N }, dy = { M, N }, dv = { 1, N };
        dnnl_memory_desc_init_by_tag(&a_md, 2, da, dnnl_u8, dnnl_ab);
        dnnl_memory_desc_init_by_tag(&w_md, 2, dw, dnnl_s8, dnnl_format_tag_any);
        dnnl_memory_desc_init_by_tag(&y_md, 2, dy, dnnl_f32, dnnl_ab);
        dnnl_memory_desc_init_by_tag(&vec_md, 2, dv, dnnl_f32, dnnl_ab);
        sc_md = vec_md;
        /* the runtime-scale form first where it pays; once W is packed,
         * only its form. oneDNN's gemm packs W on every call (its cost
         * grows with K * N, the binary post-ops' with M * N): one-row
         * classifiers (2048 x 1000: 20 us on brgemm, 75 with runtime
         * scales) keep brgemm, below 1 row per 64 of depth */
        if (!s->have_wmd) s->rt = !dn_qmm_binary() && M >= 2 && 64 * M >= K;
        for (int tries = 0; tries < 2 && st != dnnl_success; tries++) {
            if (tries && (s->have_wmd || !s->rt)) break;
            if (tries) s->rt = 0;
            if (s->rt) {
                dnnl_dims_t ds = { N };
                dnnl_memory_desc_init_by_tag(&sc_md, 1, ds, dnnl_f32, dnnl_a);
            }
            dnnl_matmul_desc_t md;
            dnnl_primitive_attr_t attr = NULL;
            st = dnnl_matmul_desc_init(&md, &a_md, s->have_wmd ? &s->wmd : &w_md, s->rt ? &vec_md : NULL, &y_md);
            if (st == dnnl_success) st = dnnl_primitive_attr_create(&attr);
            if (st == dnnl_success) st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
            if (st == dnnl_success) st = dq_attr(n, s, attr, &y_md, &vec_md);
            if (st == dnnl_success) st = dn_pd_create(&pd, (const_dnnl_op_desc_t)&md, attr, s->rt ? NULL : "brg");
            if (attr) dnnl_primitive_attr_destroy(attr);
            if (st == dnnl_success && dn_is_ref_impl(pd)) st = dnnl_unimplemented;
            if (st != dnnl_success && pd) { dnnl_primitive_desc_destroy(pd); pd = NULL; }
        }
    }
    if (st != dnnl_success) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        if (s->have_wmd && !s->fallback)
            return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): no oneDNN "
                            "primitive for these rows with the packed weight format", n->name, n->op_type);
        /* the reference math on the plain W kept in the packed area */
        s->fallback = 1;
        s->wbytes = (size_t)(K * N);
        s->scratch = 0;
        s->built = 1;
        return 0;
    }
    if (!s->have_wmd) {
        s->wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        s->have_wmd = 1;
        s->wbytes = dnnl_memory_desc_get_size(&s->wmd);
    }
    s->off_sc = s->stat ? 0 : dn_align((size_t)(M * K));
    s->off_vec = s->off_sc + s->vbytes;
    s->off_sp = s->off_vec + s->vbytes;
    s->off_yf = dn_align(s->off_sp + dn_scratch_size(pd));
    s->scratch = s->qout ? s->off_yf + (size_t)(M * N) * sizeof(float) : s->off_sp + dn_scratch_size(pd);
    const dnnl_memory_desc_t *spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    int rc = dn_check(dnnl_primitive_create(&s->prim, pd), n, "int8 matmul primitive creation");
    if (!rc) rc = dn_mem(n, &a_md, &s->m_a);
    if (!rc) rc = dn_mem(n, &s->wmd, &s->m_w);
    if (!rc) rc = dn_mem(n, &y_md, &s->m_y);
    if (!rc) rc = dn_mem(n, &sc_md, &s->m_sc);
    if (!rc) rc = dn_mem(n, &vec_md, &s->m_vec);
    if (!rc && s->po.has_add) rc = dn_mem(n, &y_md, &s->m_add);
    if (!rc && dn_scratch_size(pd)) rc = dn_mem(n, spmd, &s->m_sp);
    dnnl_primitive_desc_destroy(pd);
    if (rc) { dq_release(s); return rc; }
    s->built = 1;
    return 0;
}

static int dq_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                   size_t *packed_bytes, size_t *scratch_bytes)
{
    dq *s = state;
    (void)out;
    int r = dq_build(n, s, in, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = dq_packed_bytes(s);
    *scratch_bytes = s->scratch;
    return 0;
}

static int dq_pack_into(const g_node *n, dq *s, const k_tensor *in, void *packed)
{
    if (!in[1].data || !in[DQ_WSCALE].data || (s->has_bias && !in[2].data))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): weights not "
                        "available for packing", n->name, n->op_type);
    const int8_t *w = in[1].data;
    int64_t K = s->K, N = s->N;
    int r = 0;
    if (s->fallback) {
        memcpy(packed, w, (size_t)(K * N));
    } else {
        dnnl_memory_desc_t w_md;
        dnnl_dims_t dw = { K, N };
        dnnl_memory_desc_init_by_tag(&w_md, 2, dw, dnnl_s8, dnnl_ab);
        if ((r = dn_reorder_once(n, &w_md, (void *)w, &s->wmd, packed))) return r;
    }
    int32_t *cs = dq_colsum(s, packed);
    float *b = dq_bias(s, packed), *ws = dq_wscale(s, packed);
    const float *wsrc = in[DQ_WSCALE].data;
    for (int64_t j = 0; j < N; j++) {
        cs[j] = 0;
        b[j] = s->has_bias ? ((const float *)in[2].data)[j] : 0.f;
        ws[j] = wsrc[s->per_col ? j : 0];
    }
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) cs[j] += w[k * N + j];
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dq_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    dq *s = state;
    int r;
    (void)out;
    if (!s->built && (r = dq_build(n, s, in, dn_threads(NULL)))) return r;
    return dq_pack_into(n, s, in, packed);
}

/* A compiled model's packed area (kernel.h adopt): only read. */
static int dq_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    dq *s = state;
    int r;
    (void)out;
    if (!s->built && (r = dq_build(n, s, in, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

/* ---- per-run quantisation (DynamicQuantizeLinear's arithmetic: the
 * range widened to include 0, x / scale rounded half to even, plus the
 * zero point, saturated; NaN becomes 0 as in the reference) ---- */

#ifdef DQ_X86
__attribute__((target("avx512f")))
static void minmax_avx512(const float *x, size_t n, float *lo, float *hi)
{
    /* four independent chains: one min/max chain waits on its own latency */
    __m512 l0 = _mm512_setzero_ps(), l1 = l0, l2 = l0, l3 = l0, h0 = l0, h1 = l0, h2 = l0, h3 = l0;
    size_t i = 0;
    /* min(v, l) keeps l where v is NaN, as the reference's comparisons do */
    for (; i + 64 <= n; i += 64) {
        __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
        __m512 c = _mm512_loadu_ps(x + i + 32), d = _mm512_loadu_ps(x + i + 48);
        l0 = _mm512_min_ps(a, l0); h0 = _mm512_max_ps(a, h0);
        l1 = _mm512_min_ps(b, l1); h1 = _mm512_max_ps(b, h1);
        l2 = _mm512_min_ps(c, l2); h2 = _mm512_max_ps(c, h2);
        l3 = _mm512_min_ps(d, l3); h3 = _mm512_max_ps(d, h3);
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        l0 = _mm512_min_ps(v, l0);
        h0 = _mm512_max_ps(v, h0);
    }
    *lo = _mm512_reduce_min_ps(_mm512_min_ps(_mm512_min_ps(l0, l1), _mm512_min_ps(l2, l3)));
    *hi = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(h0, h1), _mm512_max_ps(h2, h3)));
}

/* x / scale as x * (1 / scale), except in the lanes where the product
 * lies within a few ulps of a rounding tie: there the division (what
 * DynamicQuantizeLinear and ONNX Runtime compute) is done, so the rounded
 * values are the division's at a fifth of its cost. div_all: the reciprocal
 * is not finite, every lane divides. */
__attribute__((target("avx512f")))
static void quant_avx512(const float *x, size_t n, float scale, float zp, uint8_t *q, int div_all)
{
    const __m512 s = _mm512_set1_ps(scale), inv = _mm512_set1_ps(1.f / scale), z = _mm512_set1_ps(zp);
    const __m512 top = _mm512_set1_ps(255.f), zero = _mm512_setzero_ps(), half = _mm512_set1_ps(0.5f);
    const __m512 rel = _mm512_set1_ps(1.f / (1 << 20));
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 xv = _mm512_maskz_loadu_ps(m, x + i), v, t;
        if (div_all) {
            t = _mm512_roundscale_ps(_mm512_div_ps(xv, s), QM_RN);
        } else {
            v = _mm512_mul_ps(xv, inv);
            t = _mm512_roundscale_ps(v, QM_RN);
            /* within |v| * 2^-20 of a tie (|v - t| near 1/2): the division decides */
            __m512 gap = _mm512_sub_ps(half, _mm512_abs_ps(_mm512_sub_ps(v, t)));
            __mmask16 tie = _mm512_cmp_ps_mask(gap, _mm512_mul_ps(_mm512_abs_ps(v), rel), _CMP_LE_OQ);
            if (tie) t = _mm512_mask_roundscale_ps(t, tie, _mm512_div_ps(xv, s), QM_RN);
        }
        v = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(t, z), zero), top);   /* max(NaN, 0) is 0 */
        __m512i qi = _mm512_cvtps_epi32(v);
        /* a masked narrowing store costs several times a plain one: tail only */
        if (m == 0xffff) _mm_storeu_si128((__m128i *)(q + i), _mm512_cvtepi32_epi8(qi));
        else _mm512_mask_cvtepi32_storeu_epi8(q + i, m, qi);
    }
}
#endif

/* rint(x / s) + z saturated, in chunks of 64 Ki values per thread */
static void quant_fixed(const float *x, size_t n, float s, uint8_t z, uint8_t *q, int nthr)
{
#ifdef DQ_X86
    if (dn_has_avx512()) {
        size_t chunk = (size_t)1 << 16, nch = (n + chunk - 1) / chunk;
        int nt = nch < (size_t)nthr ? (int)nch : nthr;
        float inv = 1.f / s;
        int div_all = !(inv <= 3.0e38f);
        OA_PAR_FOR(nt, for (int64_t c = 0; c < (int64_t)nch; c++) {
            size_t at = (size_t)c * chunk, len = n - at < chunk ? n - at : chunk;
            quant_avx512(x + at, len, s, (float)z, q + at, div_all);
        });
        return;
    }
#endif
    (void)nthr;
    nn_qmm_quantise(x, n, s, z, q);
}

static void dq_quantise(const float *x, size_t n, uint8_t *q, float *scale, uint8_t *zp, int nthr)
{
#ifdef DQ_X86
    if (dn_has_avx512()) {
        float lo, hi;
        minmax_avx512(x, n, &lo, &hi);
        float s = (hi - lo) / 255.f;
        float z = s != 0.f ? rintf(0.f - lo / s) : 0.f;
        z = z < 0.f ? 0.f : z > 255.f ? 255.f : z;
        *scale = s;
        *zp = (uint8_t)z;
        if (s == 0.f) memset(q, (int)z, n);
        else quant_fixed(x, n, s, *zp, q, nthr);
        return;
    }
#endif
    (void)nthr;
    nn_dynq_params(x, n, scale, zp);
    for (size_t i = 0; i < n; i++) {
        float v = *scale != 0.f ? rintf(x[i] / *scale) + (float)*zp : (float)*zp;
        q[i] = (uint8_t)(v >= 0.f ? (v > 255.f ? 255.f : v) : 0.f);
    }
}

/* The runtime-scale form's per-column scale s[j] = x_scale * w_scale[j] (as
 * ONNX Runtime's Mul(x_scale, w_scale)) and bias' b[j] / s[j] - zp * cs[j];
 * both 0 where s[j] is not a normal number or bias' not finite, the columns
 * dq_fix_cols writes (their count returned). In float: oneDNN adds bias' to
 * the accumulator in float. */
#ifdef DQ_X86
__attribute__((target("avx512f")))
static int64_t cols_rt_avx512(const float *ws, const float *b, const int32_t *cs, float xs, uint8_t zp,
                              int64_t N, float *sc, float *bp)
{
    const __m512 x = _mm512_set1_ps(xs), z = _mm512_set1_ps((float)zp);
    const __m512 tiny = _mm512_set1_ps(FLT_MIN), huge = _mm512_set1_ps(FLT_MAX);
    int64_t nfix = 0;
    for (int64_t j = 0; j < N; j += 16) {
        __mmask16 m = N - j >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (N - j)) - 1);
        __m512 s = _mm512_mul_ps(x, _mm512_maskz_loadu_ps(m, ws + j));
        __m512 c = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(m, cs + j));
        __m512 v = _mm512_sub_ps(_mm512_div_ps(_mm512_maskz_loadu_ps(m, b + j), s), _mm512_mul_ps(z, c));
        /* ordered compares: false for NaN */
        __mmask16 ok = _mm512_cmp_ps_mask(_mm512_abs_ps(s), tiny, _CMP_GE_OQ) &
                       _mm512_cmp_ps_mask(_mm512_abs_ps(s), huge, _CMP_LE_OQ) &
                       _mm512_cmp_ps_mask(_mm512_abs_ps(v), huge, _CMP_LE_OQ) & m;
        _mm512_mask_storeu_ps(sc + j, m, _mm512_maskz_mov_ps(ok, s));
        _mm512_mask_storeu_ps(bp + j, m, _mm512_maskz_mov_ps(ok, v));
        nfix += __builtin_popcount((unsigned)(m & ~ok));
    }
    return nfix;
}
#endif

static int64_t dq_cols_rt(const float *ws, const float *b, const int32_t *cs, float xs, uint8_t zp,
                          int64_t N, float *sc, float *bp)
{
#ifdef DQ_X86
    if (dn_has_avx512()) return cols_rt_avx512(ws, b, cs, xs, zp, N, sc, bp);
#endif
    int64_t nfix = 0;
    for (int64_t j = 0; j < N; j++) {
        float s = xs * ws[j], v = b[j] / s - (float)zp * (float)cs[j];
        int ok = isnormal(s) && isfinite(v);
        sc[j] = ok ? s : 0.f;
        bp[j] = ok ? v : 0.f;
        nfix += !ok;
    }
    return nfix;
}

/* The columns the runtime-scale form left to be written (scale 0 in sc):
 * bias[n] - s[n] * zp * colsum(W)[n], the product's own term below
 * 2^31 * FLT_MIN (zero or subnormal s[n]), through the fused post-ops. */
static void dq_fix_cols(const dq *s, const char *pk, float xs, uint8_t zp, const float *sc,
                        const float *add, float *y)
{
    const int32_t *cs = dq_colsum(s, pk);
    const float *b = dq_bias(s, pk), *ws = dq_wscale(s, pk);
    for (int64_t j = 0; j < s->N; j++) {
        if (sc[j] != 0.f) continue;
        float sj = xs * ws[j], v0 = b[j] - (float)((double)sj * (double)zp * (double)cs[j]);
        for (int64_t m = 0; m < s->M; m++) {
            float v = v0;
            nn_post_apply(&s->po, &v, 1, add ? add + m * s->N + j : NULL);
            y[m * s->N + j] = v;
        }
    }
}

static int dq_exec(const g_node *n, dq *s, const k_tensor *in, k_tensor *out, char *scr)
{
    const char *pk = s->pk.packed;
    float xs;
    uint8_t zp;
    if (s->stat) nn_qmm_xparams(n, in, &xs, &zp);
    else dq_quantise(in[0].data, (size_t)(s->M * s->K), (uint8_t *)scr, &xs, &zp, s->nthr);
    float *sc = (float *)(scr + s->off_sc), *vec = (float *)(scr + s->off_vec);
    const int32_t *cs = dq_colsum(s, pk);
    const float *b = dq_bias(s, pk), *ws = dq_wscale(s, pk);
    int64_t nfix = 0;
    if (s->rt) {
        nfix = dq_cols_rt(ws, b, cs, xs, zp, s->N, sc, vec);
    } else {
        for (int64_t j = 0; j < s->N; j++) {
            sc[j] = xs * ws[j];   /* as ONNX Runtime's Mul(x_scale, w_scale) */
            vec[j] = b[j] - (float)((double)sc[j] * (double)zp * (double)cs[j]);
        }
    }
    dnnl_stream_t strm = dn_stream();
    if (!strm) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s': no oneDNN stream", n->name);
    int r;
    if ((r = dn_set_handle(n, s->m_a, s->stat ? in[0].data : scr)) || (r = dn_set_handle(n, s->m_w, pk)) ||
        (r = dn_set_handle(n, s->m_y, s->qout ? scr + s->off_yf : out[0].data)) ||
        (r = dn_set_handle(n, s->m_sc, sc)) ||
        (r = dn_set_handle(n, s->m_vec, vec)))
        return r;
    dnnl_exec_arg_t a[7] = {
        { DNNL_ARG_SRC, s->m_a }, { DNNL_ARG_WEIGHTS, s->m_w }, { DNNL_ARG_DST, s->m_y },
        { s->rt ? DNNL_ARG_ATTR_OUTPUT_SCALES : DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, s->m_sc },
        { s->rt ? DNNL_ARG_BIAS : DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, s->m_vec },
    };
    int na = 5;
    if (s->po.has_add) {
        if ((r = dn_set_handle(n, s->m_add, in[NN_ADD_INPUT].data))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_ATTR_MULTIPLE_POST_OP(s->add_idx) | DNNL_ARG_SRC_1, s->m_add };
    }
    if (s->m_sp) {
        if ((r = dn_set_handle(n, s->m_sp, scr + s->off_sp))) return r;
        a[na++] = (dnnl_exec_arg_t){ DNNL_ARG_SCRATCHPAD, s->m_sp };
    }
    if ((r = dn_check(dnnl_primitive_execute(s->prim, strm, na, a), n, "int8 matmul")) ||
        (r = dn_check(dnnl_stream_wait(strm), n, "stream wait")))
        return r;
    if (nfix) dq_fix_cols(s, pk, xs, zp, sc, s->po.has_add ? in[NN_ADD_INPUT].data : NULL,
                          s->qout ? (float *)(scr + s->off_yf) : out[0].data);
    if (s->qout) {   /* the folded QuantizeLinear */
        float ys;
        uint8_t yz;
        nn_qmm_yparams(n, in, &ys, &yz);
        quant_fixed((const float *)(scr + s->off_yf), (size_t)(s->M * s->N), ys, yz, out[0].data, s->nthr);
    }
    return 0;
}

/* oneDNN declined (or the product is empty): the reference math on the
 * plain W kept in the packed area, float result into y. */
static int dq_fallback(const g_node *n, dq *s, const k_tensor *in, float *y, size_t rows)
{
    const char *pk = s->pk.packed;
    const float *add = s->po.has_add ? in[NN_ADD_INPUT].data : NULL;
    if (s->K == 0 || s->M == 0) {
        for (size_t m = 0; m < rows; m++) {
            memcpy(y + m * s->N, dq_bias(s, pk), (size_t)s->N * sizeof(float));
            nn_post_apply(&s->po, y + m * s->N, (size_t)s->N, add ? add + m * s->N : NULL);
        }
        return 0;
    }
    nn_qx qx = { .q = in[0].data };
    if (s->stat) nn_qmm_xparams(n, in, &qx.scale, &qx.zp);
    return nn_dynqmm_compute(n, &s->po, in[0].data, (size_t)(s->M * s->K), (const int8_t *)pk, s->K,
                             s->N, dq_wscale(s, pk), 1, s->has_bias ? dq_bias(s, pk) : NULL, add, y,
                             s->stat ? &qx : NULL);
}

static int dq_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    dq *s = state;
    int r, nthr = dn_threads(ctx);
    int64_t cnt = g_shape_numel(&in[0].shape);
    if (!s->built || s->nthr != nthr || (s->K > 0 && cnt / s->K != s->M))
        if ((r = dq_build(n, s, in, nthr))) return r;
    if (!s->pk.packed_ok) {
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, dq_packed_bytes(s), &own)) ||
            (r = dq_pack_into(n, s, in, own)))
            return r;
    }
    if (s->fallback) {
        size_t cnt_y = (size_t)g_shape_numel(&out[0].shape), rows = s->N ? cnt_y / (size_t)s->N : 0;
        if (!s->qout) return dq_fallback(n, s, in, out[0].data, rows);
        float *y = malloc(cnt_y * sizeof(float) + 1), ys;
        uint8_t yz;
        if (!y) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
        r = dq_fallback(n, s, in, y, rows);
        nn_qmm_yparams(n, in, &ys, &yz);
        if (!r) nn_qmm_quantise(y, cnt_y, ys, yz, out[0].data);
        free(y);
        return r;
    }
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
    return dq_exec(n, s, in, out, scr);
}

static const k_op k_dynqmm_dnnl = {
    .op_type = "DynQMatMul", .domain = "openacl", .since = 1, .until = 0, .impl = "dnnl",
    .priority = 10, .init = dq_init, .infer = dq_infer, .plan = dq_plan, .pack = dq_pack,
    .run = dq_run, .fini = dq_fini, .adopt = dq_adopt, .flops = k_flops_matmul,
    .max_threads = dq_max_threads,
    .packed_inputs = (1u << 1) | (1u << 2) | (1u << DQ_WSCALE),
};
K_REGISTER(k_dynqmm_dnnl);

static const k_op k_qmm_dnnl = {
    .op_type = "QMatMul", .domain = "openacl", .since = 1, .until = 0, .impl = "dnnl",
    .priority = 10, .init = dq_init, .infer = dq_infer, .plan = dq_plan, .pack = dq_pack,
    .run = dq_run, .fini = dq_fini, .adopt = dq_adopt, .flops = k_flops_matmul,
    .max_threads = dq_max_threads,
    .packed_inputs = (1u << 1) | (1u << 2) | (1u << DQ_WSCALE),
};
K_REGISTER(k_qmm_dnnl);
