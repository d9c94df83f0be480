/* MatMul and Gemm of one row of A with a constant B (the batch-1
 * classifier) by the streamed matrix-vector loops of dn_gemv.c: an
 * implementation of its own in the kernel registry, tried before the oneDNN
 * MatMul / Gemm (dn_matmul.c), which takes every product this one declines
 * and all of them under OPENACL_NO_GEMV. The decision needs A's shape at
 * init (a static model, or a dynamic one's program with its inputs fixed);
 * the packed layout is then kept for the state's life, later shapes running
 * one row at a time. It belongs to the dnnl backend (impl "dnnl": packed
 * formats under the same kernel ABI tag, dn_backend.c), so compiled models
 * record and bind it as before. */
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_gemv.h"
#include <stdlib.h>
#include <string.h>

/* Above the oneDNN MatMul / Gemm (10). */
#define DN_GEMV_PRIORITY 20

typedef struct dgemv {
    int gemm, ta, tb;
    float alpha, beta;
    nn_post po;
    int has_c;          /* a constant C (Gemm) or fused bias (MatMul) */
    int bf16;           /* bf16 weights and x rounded to bf16 (decided at init) */
    int built, nthr;
    int streams;        /* fp32 panels read as several runs of rows (dn_gemv_run) */
    g_shape as, bs, cs;
    int64_t M, K, N;
    int64_t rows;       /* rows of A (batch dims times M) */
    int64_t bias_n;     /* C values (1, N, or rows x N) */
    size_t wbytes, bbytes, off_a, scratch;
    dn_pk pk;
} dgemv;

/* OPENACL_NO_GEMV=1: products with one row stay with oneDNN (A/B runs;
 * part of the compiled-model kernel ABI, dn_backend.c). */
int dn_gemv_disabled(void)
{
    const char *e = getenv("OPENACL_NO_GEMV");   /* read per load: mdl_bench --ab */
    return e && *e && strcmp(e, "0") != 0;
}

int dn_gemv_one_stream(void)
{
    const char *e = getenv("OPENACL_GEMV_ONE_STREAM");
    return e && *e && strcmp(e, "0") != 0;
}

static int has_in(const g_node *n, int i) { return n->n_in > i && n->in[i] >= 0; }

static void dgemv_fini(void *state)
{
    dgemv *s = state;
    if (!s) return;
    dn_pk_free(&s->pk);
    free(s);
}

static int dgemv_shape(const g_node *n, const dgemv *s, const g_shape *a, const g_shape *b, const g_shape *c,
                       g_shape *y, int64_t *M, int64_t *K, int64_t *N)
{
    if (s->gemm) return nn_gemm_shape(n, s->ta, s->tb, a, b, c, y, M, K, N);
    return nn_matmul_shape(n, a, b, y, M, K, N);
}

/* Whether the product as the graph now knows it has one row of A: shapes
 * of A and the constant B known, output [.., N] with N values. */
static int one_row(const g_graph *g, const g_node *n, const dgemv *s, int64_t *K, int64_t *N)
{
    const g_shape *a = &g->t[n->in[0]].shape, *b = &g->t[n->in[1]].shape;
    const g_shape *c = has_in(n, 2) ? &g->t[n->in[2]].shape : NULL;
    if (!g_shape_known(a) || !g_shape_known(b) || (c && !g_shape_known(c))) return 0;
    g_shape y;
    int64_t M;
    if (dgemv_shape(n, s, a, b, c, &y, &M, K, N)) return 0;
    return g_shape_numel(&y) == *N && *N > 0 && *K > 0 && g_shape_numel(b) == *K * *N;
}

/* Takes float32 products with one row of A, a constant B and C none or
 * constant, where the CPU runs the loops (bf16 ones where it has
 * AVX512-BF16); declines the rest and everything under OPENACL_NO_GEMV. */
static int dgemv_init_common(g_graph *g, g_node *n, void **state, int gemm)
{
    if (!dn_engine() || dn_gemv_disabled() || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) return K_DECLINE;
    for (int i = 0; i < n->n_in && i < 4; i++)
        if (n->in[i] >= 0 && g->t[n->in[i]].dtype != G_F32) return K_DECLINE;
    if (!nn_is_const(g, n, 1)) return K_DECLINE;
    dgemv t = { .gemm = gemm, .streams = !dn_gemv_one_stream() };
    t.ta = gemm ? (int)g_attr_int(n, "transA", 0) : 0;
    t.tb = gemm ? (int)g_attr_int(n, "transB", 0) : 0;
    t.alpha = gemm ? g_attr_float(n, "alpha", 1.f) : 1.f;
    t.beta = gemm ? g_attr_float(n, "beta", 1.f) : 1.f;
    if (has_in(n, 2) && (!gemm || t.beta != 0.f)) {
        if (!nn_is_const(g, n, 2)) return K_DECLINE;   /* a runtime C is oneDNN's binary post-op */
        t.has_c = 1;
    }
    int64_t K, N;
    if (!one_row(g, n, &t, &K, &N)) return K_DECLINE;
    /* constant folding computes exactly; too small a product: converting
     * costs more than bf16 saves */
    t.bf16 = graph_node_bf16(n) && !nn_is_const(g, n, 0) && dn_has_bf16() &&
             !(2.0 * (double)N * (double)K < DN_BF16_MIN_FLOPS);
    if (!dn_gemv_supported(t.bf16)) return K_DECLINE;
    int r = nn_post_parse(n, &t.po);
    if (r) return r;
    dgemv *s = malloc(sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    *s = t;
    *state = s;
    return 0;
}

static int dgemv_matmul_init(g_graph *g, g_node *n, void **st) { return dgemv_init_common(g, n, st, 0); }
static int dgemv_gemm_init(g_graph *g, g_node *n, void **st) { return dgemv_init_common(g, n, st, 1); }

static int dgemv_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    dgemv *s = state;
    int64_t M, K, N;
    int r = dgemv_shape(n, s, &in[0].shape, &in[1].shape, has_in(n, 2) ? &in[2].shape : NULL, &out[0].shape,
                        &M, &K, &N);
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

/* The streamed form's sizes for these shapes (B is a constant: its [K, N]
 * shape, checked at init, holds). */
static int dgemv_build(const g_node *n, dgemv *s, const k_tensor *in, int nthr)
{
    s->built = 0;
    g_shape ys;
    int r = dgemv_shape(n, s, &in[0].shape, &in[1].shape, has_in(n, 2) ? &in[2].shape : NULL, &ys,
                        &s->M, &s->K, &s->N);
    if (r) return r;
    s->as = in[0].shape; s->bs = in[1].shape;
    if (has_in(n, 2)) s->cs = in[2].shape;
    s->nthr = nthr;
    int64_t M = s->M, K = s->K, N = s->N;
    s->rows = N ? g_shape_numel(&ys) / N : 0;
    s->wbytes = dn_gemv_packed_bytes(K, N, s->bf16);
    s->bias_n = 1;
    if (s->has_c) {
        s->bias_n = g_shape_numel(&s->cs);
        const g_shape *cs = &s->cs;
        int64_t cr = cs->rank >= 2 ? cs->d[cs->rank - 2] : 1;
        if (s->bias_n != N && s->bias_n != 1 && !(cr == s->rows && s->bias_n == s->rows * N))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): C has %lld values for an "
                            "output of %lld x %lld", n->name, n->op_type, (long long)s->bias_n,
                            (long long)s->rows, (long long)N);
    }
    s->bbytes = s->has_c ? (size_t)s->bias_n * sizeof(float) : 0;
    s->off_a = dn_align(dn_gemv_scratch_bytes(K, s->bf16));
    s->scratch = s->off_a + (s->ta && M > 1 ? (size_t)K * sizeof(float) : 0);
    s->built = 1;
    return 0;
}

static int dgemv_plan(const g_node *n, void *state, const k_tensor *in, const k_tensor *out,
                      size_t *packed_bytes, size_t *scratch_bytes)
{
    (void)out;
    dgemv *s = state;
    int r = dgemv_build(n, s, in, dn_threads(NULL));
    if (r) return r;
    *packed_bytes = dn_align(s->wbytes) + s->bbytes;
    *scratch_bytes = s->scratch;
    return 0;
}

/* Packed area: alpha * B in the streamed layout, then C times beta. */
static int dgemv_pack_into(const g_node *n, dgemv *s, const k_tensor *in, void *packed)
{
    if (!in[1].data || (s->has_c && !in[2].data))
        return acl_fail(ACL_ERROR_INTERNAL_ERROR, "node '%s' (%s, impl dnnl): %s not available "
                        "for packing", n->name, n->op_type, in[1].data ? "C" : "B");
    dn_gemv_pack(in[1].data, s->tb, s->K, s->N, s->alpha, s->bf16, packed);
    if (s->has_c) {
        float *dst = (float *)((char *)packed + dn_align(s->wbytes));
        const float *c = in[2].data;
        size_t cnt = s->bbytes / sizeof(float);
        float k = s->gemm ? s->beta : 1.f;
        for (size_t i = 0; i < cnt; i++) dst[i] = c[i] * k;
    }
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

static int dgemv_pack(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    (void)out;
    dgemv *s = state;
    int r;
    if (!s->built && (r = dgemv_build(n, s, in, dn_threads(NULL)))) return r;
    return dgemv_pack_into(n, s, in, packed);
}

/* A compiled model's packed weights (kernel.h adopt), only read. */
static int dgemv_adopt(const g_node *n, void *state, const k_tensor *in, const k_tensor *out, void *packed)
{
    (void)out;
    dgemv *s = state;
    int r;
    if (!s->built && (r = dgemv_build(n, s, in, dn_threads(NULL)))) return r;
    dn_pk_adopt(&s->pk, packed);
    return 0;
}

/* One row of A at a time. */
static int dgemv_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    dgemv *s = state;
    int r, nthr = dn_threads(ctx);
    if ((!s->built || s->nthr != nthr || !g_shape_eq(&s->as, &in[0].shape) || !g_shape_eq(&s->bs, &in[1].shape) ||
         (has_in(n, 2) && !g_shape_eq(&s->cs, &in[2].shape))) &&
        (r = dgemv_build(n, s, in, nthr)))
        return r;
    if (!s->pk.packed_ok) {
        void *own;
        if ((r = dn_pk_own_packed(n, &s->pk, dn_align(s->wbytes) + s->bbytes, &own)) ||
            (r = dgemv_pack_into(n, s, in, own)))
            return r;
    }
    const char *pk = s->pk.packed;
    int64_t M = s->M, K = s->K, N = s->N;
    char *scr;
    if ((r = dn_pk_scratch(n, &s->pk, ctx, s->scratch, &scr))) return r;
    /* scratch: x rounded to bf16 (dn_gemv), then a gathered row of A */
    float *row = scr ? (float *)(scr + s->off_a) : NULL;   /* only with transposed A and M > 1 */
    const float *a = in[0].data;
    float *y = out[0].data;
    const float *bias = s->has_c ? (const float *)(pk + dn_align(s->wbytes)) : NULL;
    const float *add = s->po.has_add ? in[NN_ADD_INPUT].data : NULL;
    int threads = ctx && ctx->threads > 0 ? ctx->threads : 1;
    for (int64_t q = 0; q < s->rows; q++) {
        const float *x = a + q * K;
        if (s->ta && M > 1) {
            /* A stored [K, M] per batch: gather row m */
            const float *ab = a + (q / M) * M * K;
            for (int64_t k = 0; k < K; k++) row[k] = ab[k * M + q % M];
            x = row;
        }
        /* C per row when it has M rows (Gemm's C [M, N]) */
        const float *br = bias && s->bias_n == s->rows * N ? bias + q * N : bias;
        int64_t bn = s->bias_n == s->rows * N ? N : s->bias_n;
        dn_gemv_run(x, pk, K, N, s->bf16, br, bn, y + q * N, scr, threads, s->streams);
        if (s->po.n) nn_post_apply(&s->po, y + q * N, (size_t)N, add ? add + q * N : NULL);
    }
    return 0;
}

static const k_op k_matmul_gemv = {
    .op_type = "MatMul", .domain = "", .since = 1, .until = 0, .impl = "dnnl", .priority = DN_GEMV_PRIORITY,
    .init = dgemv_matmul_init, .infer = dgemv_infer, .plan = dgemv_plan, .pack = dgemv_pack,
    .run = dgemv_run, .fini = dgemv_fini, .packed_inputs = (1u << 1) | (1u << 2), .adopt = dgemv_adopt,
    .flops = k_flops_matmul,
};
K_REGISTER(k_matmul_gemv);

static const k_op k_gemm_gemv = {
    .op_type = "Gemm", .domain = "", .since = 1, .until = 0, .impl = "dnnl", .priority = DN_GEMV_PRIORITY,
    .init = dgemv_gemm_init, .infer = dgemv_infer, .plan = dgemv_plan, .pack = dgemv_pack,
    .run = dgemv_run, .fini = dgemv_fini, .packed_inputs = (1u << 1) | (1u << 2), .adopt = dgemv_adopt,
    .flops = k_flops_gemm,
};
K_REGISTER(k_gemm_gemv);
