/* com.microsoft QGemm (ONNX Runtime's quantised Gemm, what its QOperator
 * quantiser writes for Gemm), reference:
 *   inputs:  A (uint8/int8, [M,K] or [K,M] with transA), a_scale, a_zero_point
 *            (one value each), B (uint8/int8, [K,N] or [N,K] with transB),
 *            b_scale, b_zero_point (one value or N), C (int32, optional: one
 *            value, N or M x N, in the units of a_scale * b_scale), y_scale,
 *            y_zero_point (optional: quantised output)
 *   output:  acc = (A - a_zp)(B - b_zp) + C in int32; with y_scale
 *            rint(acc * (alpha * a_scale * b_scale[n] / y_scale)) + y_zp saturated
 *            to y_zero_point's type (A's without it), else float acc * (alpha *
 *            a_scale * b_scale[n]).
 * Products with a constant int8 B and a uint8 A run as openacl.QMatMul on
 * oneDNN (graph/qmatmul.c); this kernel takes the rest and is their oracle.
 *
 * com.microsoft DynamicQuantizeMatMul (ONNX Runtime's fused dynamic product),
 * reference: A float [..., K] quantised per run as DynamicQuantizeLinear does,
 * times B int8 [K, N] (b_zero_point absent or 0), times a_scale * b_scale
 * (one value or N), plus bias [N]: openacl.DynQMatMul's arithmetic
 * (nn_dynqmm.c), which the pass turns a constant-B one into. */
#include "kernels/ref/nn_common.h"
#include "kernels/ref/nn_dynqmm.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct qg_st {
    int ta, tb;
    float alpha;
} qg_st;

static int has_in(const g_node *n, int i) { return n->n_in > i && n->in[i] >= 0; }
static int is_q8(int dt) { return dt == G_U8 || dt == G_I8; }

static int32_t q8(const void *p, int dt, size_t i)
{
    return dt == G_U8 ? ((const uint8_t *)p)[i] : ((const int8_t *)p)[i];
}

static int qg_init(g_graph *g, g_node *n, void **state)
{
    if (n->n_in < 5 || n->in[0] < 0 || n->in[1] < 0 || n->in[3] < 0 || n->in[4] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (com.microsoft.QGemm): needs A, a_scale, "
                        "[a_zero_point], B, b_scale", n->name);
    static const int kind[9] = { 1, 2, 1, 1, 2, 1, 3, 2, 1 };   /* 1 q8, 2 float, 3 int32 */
    for (int i = 0; i < 9 && i < n->n_in; i++) {
        if (!has_in(n, i)) continue;
        int dt = g->t[n->in[i]].dtype;
        if (dt == G_UNDEF) continue;
        if ((kind[i] == 1 && !is_q8(dt)) || (kind[i] == 2 && dt != G_F32) || (kind[i] == 3 && dt != G_I32))
            return nn_fail_dtype(n, i, dt);
    }
    qg_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    s->ta = (int)g_attr_int(n, "transA", 0);
    s->tb = (int)g_attr_int(n, "transB", 0);
    s->alpha = g_attr_float(n, "alpha", 1.f);
    *state = s;
    return 0;
}

static int qg_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qg_st *s = state;
    int64_t M, K, N;
    int r = nn_gemm_shape(n, s->ta, s->tb, &in[0].shape, &in[3].shape, NULL, &out[0].shape, &M, &K, &N);
    if (r) return r;
    if (has_in(n, 7)) out[0].dtype = has_in(n, 8) && in[8].dtype != G_UNDEF ? in[8].dtype : in[0].dtype;
    else out[0].dtype = G_F32;
    char b[96];
    for (int i = 1; i <= 8; i++) {
        if (!has_in(n, i) || i == 3 || in[i].shape.rank < 0) continue;
        int64_t c = g_shape_numel(&in[i].shape);
        int ok = i == 4 || i == 5 ? (c == 1 || c == N) : i == 6 ? (c == 1 || c == N || c == M * N) : c == 1;
        if (c >= 0 && N >= 0 && M >= 0 && !ok)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (com.microsoft.QGemm): input %d has "
                            "shape %s", n->name, i, g_shape_str(&in[i].shape, b, sizeof b));
    }
    return 0;
}

static int qg_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    qg_st *s = state;
    int64_t M, K, N;
    g_shape ys;
    int r = nn_gemm_shape(n, s->ta, s->tb, &in[0].shape, &in[3].shape, NULL, &ys, &M, &K, &N);
    if (r) return r;
    int at = in[0].dtype, bt = in[3].dtype;
    int32_t az = has_in(n, 2) && in[2].data ? q8(in[2].data, in[2].dtype, 0) : 0;
    int64_t nbz = has_in(n, 5) && in[5].data ? g_shape_numel(&in[5].shape) : 0;
    int64_t nbs = g_shape_numel(&in[4].shape), nc = has_in(n, 6) ? g_shape_numel(&in[6].shape) : 0;
    float as = *(const float *)in[1].data;
    int quant = has_in(n, 7);
    float ysc = quant ? *(const float *)in[7].data : 1.f;
    int32_t yz = quant && has_in(n, 8) && in[8].data ? q8(in[8].data, in[8].dtype, 0) : 0;
    float lo = out[0].dtype == G_U8 ? 0.f : -128.f, hi = out[0].dtype == G_U8 ? 255.f : 127.f;
    for (int64_t m = 0; m < M; m++)
        for (int64_t j = 0; j < N; j++) {
            int32_t bz = nbz ? q8(in[5].data, in[5].dtype, (size_t)(nbz > 1 ? j : 0)) : 0, acc = 0;
            for (int64_t k = 0; k < K; k++) {
                size_t ai = (size_t)(s->ta ? k * M + m : m * K + k), bi = (size_t)(s->tb ? j * K + k : k * N + j);
                acc = nn_acc32(acc, (q8(in[0].data, at, ai) - az) * (q8(in[3].data, bt, bi) - bz));
            }
            if (nc) acc = nn_acc32(acc, ((const int32_t *)in[6].data)[nc == 1 ? 0 : nc == N ? j : m * N + j]);
            float sc = s->alpha * as * ((const float *)in[4].data)[nbs > 1 ? j : 0];
            size_t o = (size_t)(m * N + j);
            if (!quant) { ((float *)out[0].data)[o] = (float)acc * sc; continue; }
            float v = rintf((float)acc * (sc / ysc)) + (float)yz;
            v = v != v ? 0.f : v < lo ? lo : v > hi ? hi : v;
            if (out[0].dtype == G_U8) ((uint8_t *)out[0].data)[o] = (uint8_t)v;
            else ((int8_t *)out[0].data)[o] = (int8_t)v;
        }
    (void)ctx;
    return 0;
}

static void qg_fini(void *state) { free(state); }

static const k_op k_qgemm_ref = {
    .op_type = "QGemm", .domain = "com.microsoft", .since = 1, .until = 0, .impl = "ref",
    .priority = 0, .init = qg_init, .infer = qg_infer, .run = qg_run, .fini = qg_fini,
    .flops = k_flops_gemm,
};
K_REGISTER(k_qgemm_ref);

/* ---- DynamicQuantizeMatMul: A, B, b_scale, [b_zero_point], [bias] ---- */

static int dqmm_init(g_graph *g, g_node *n, void **state)
{
    *state = NULL;
    if (n->n_in < 3 || n->in[0] < 0 || n->in[1] < 0 || n->in[2] < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (com.microsoft.DynamicQuantizeMatMul): "
                        "needs A, B, b_scale", n->name);
    static const int want[5] = { G_F32, G_I8, G_F32, G_I8, G_F32 };
    for (int i = 0; i < 5 && i < n->n_in; i++) {
        int dt = has_in(n, i) ? g->t[n->in[i]].dtype : G_UNDEF;
        if (dt != G_UNDEF && dt != want[i]) return nn_fail_dtype(n, i, dt);
    }
    if (has_in(n, 3)) {
        const g_tensor *z = &g->t[n->in[3]];
        int zero = nn_is_const(g, n, 3);
        for (size_t i = 0; zero && i < z->nbytes; i++) zero = !((const unsigned char *)z->data)[i];
        if (!zero)
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (com.microsoft.DynamicQuantizeMatMul): "
                            "only a constant zero b_zero_point (symmetric weights) is supported", n->name);
    }
    if (g->t[n->in[1]].shape.rank >= 0 && g->t[n->in[1]].shape.rank != 2)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (com.microsoft.DynamicQuantizeMatMul): "
                        "B must be 2-D", n->name);
    return 0;
}

static int dqmm_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    int64_t M, K, N;
    int r = nn_matmul_shape(n, &in[0].shape, &in[1].shape, &out[0].shape, &M, &K, &N);
    if (r) return r;
    out[0].dtype = G_F32;
    int64_t ns = g_shape_numel(&in[2].shape), nb = has_in(n, 4) ? g_shape_numel(&in[4].shape) : N;
    char b[96];
    if (N >= 0 && ((ns >= 0 && ns != 1 && ns != N) || (nb >= 0 && nb != N)))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (com.microsoft.DynamicQuantizeMatMul): "
                        "b_scale %s and bias must hold 1 (b_scale) or N = %lld values", n->name,
                        g_shape_str(&in[2].shape, b, sizeof b), (long long)N);
    return 0;
}

static int dqmm_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)state; (void)ctx;
    int64_t K = in[1].shape.d[0], N = in[1].shape.d[1];
    size_t rows = N ? (size_t)g_shape_numel(&out[0].shape) / (size_t)N : 0;
    const float *bias = has_in(n, 4) ? in[4].data : NULL;
    nn_post none = { 0 };
    if (K == 0) {
        for (size_t m = 0; m < rows; m++)
            for (int64_t j = 0; j < N; j++) ((float *)out[0].data)[m * N + j] = bias ? bias[j] : 0.f;
        return 0;
    }
    return nn_dynqmm_compute(n, &none, in[0].data, (size_t)g_shape_numel(&in[0].shape), in[1].data, K, N,
                             in[2].data, g_shape_numel(&in[2].shape) > 1, bias, NULL, out[0].data, NULL);
}

static const k_op k_dqmm_ref = {
    .op_type = "DynamicQuantizeMatMul", .domain = "com.microsoft", .since = 1, .until = 0, .impl = "ref",
    .priority = 0, .init = dqmm_init, .infer = dqmm_infer, .run = dqmm_run, .fini = NULL,
    .flops = k_flops_matmul,
};
K_REGISTER(k_dqmm_ref);
