/* openacl.DynQMatMul, reference: ONNX Runtime's dynamic int8 product
 * (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul by x_scale *
 * w_scale) as one node, written by the pass in graph/qmatmul.c; the fusion
 * pass may then give it a bias and post-ops as it does a MatMul.
 *   inputs:  0 X float [..., K]; 1 W int8 constant [K, N]; 2 bias float [N]
 *            (optional); 3 addend (NN_ADD_INPUT, optional); 4 w_scale float,
 *            [N] (per column) or one value
 *   output:  float [..., N] = post((q(X) - zp) @ W * (x_scale * w_scale[n]) + bias[n])
 * q(X), x_scale and zp are DynamicQuantizeLinear's over the whole of X.
 * openacl.QMatMul is the same product of an activation quantised before it
 * (a QDQ model's DequantizeLinear(X_u8) -> MatMul <- DequantizeLinear(W_s8)):
 *   inputs:  0 X uint8 [..., K]; 1-4 as above; 5 x_scale float constant (one
 *            value); 6 x_zero_point uint8 constant (one value, optional)
 *   output:  float [..., N] = post((X - x_zp) @ W * (x_scale * w_scale[n]) + bias[n])
 * Either may carry a QuantizeLinear folded behind it (graph/qmatmul.c): inputs
 * 7 y_scale (float, one value) and 8 y_zero_point (uint8, one value,
 * optional), output uint8 = QuantizeLinear(the float result above).
 * Both are
 * the ground truth the fast kernel (kernels/dnnl/dn_qmatmul.c) is
 * tested against, and the path OPENACL_FORCE_REF takes. */
#include "kernels/ref/nn_common.h"
#include "kernels/ref/nn_dynqmm.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct dqm_st {
    nn_post po;
} dqm_st;

static int has_in(const g_node *n, int i) { return n->n_in > i && n->in[i] >= 0; }

int nn_dynqmm_check(const g_graph *g, const g_node *n)
{
    int stat = nn_qmm_static(n);
    if (n->n_in <= (stat ? DQ_XSCALE : DQ_WSCALE) || n->in[0] < 0 || n->in[1] < 0 ||
        n->in[DQ_WSCALE] < 0 || n->n_out < 1 || (stat && n->in[DQ_XSCALE] < 0))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s.%s): expected inputs X, W, "
                        "[bias], [addend], w_scale%s", n->name, n->domain, n->op_type,
                        stat ? ", x_scale, [x_zero_point]" : "");
    int want[7] = { stat ? G_U8 : G_F32, G_I8, G_F32, G_F32, G_F32, G_F32, G_U8 };
    for (int i = 0; i <= (stat ? DQ_XZP : DQ_WSCALE); i++) {
        if (!has_in(n, i)) continue;
        int dt = g->t[n->in[i]].dtype;
        if (dt != G_UNDEF && dt != want[i]) return nn_fail_dtype(n, i, dt);
    }
    const g_tensor *w = &g->t[n->in[1]];
    if (!nn_is_const(g, n, 1) || w->shape.rank != 2)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s.%s): W must be a constant 2-D "
                        "int8 tensor", n->name, n->domain, n->op_type);
    for (int i = DQ_XSCALE; i <= DQ_YZP; i++) {
        if (!has_in(n, i) || (i <= DQ_XZP && !stat)) continue;
        int dt = g->t[n->in[i]].dtype;
        if (dt != ((i == DQ_XSCALE || i == DQ_YSCALE) ? G_F32 : G_U8)) return nn_fail_dtype(n, i, dt);
        if (!nn_is_const(g, n, i) || g_shape_numel(&g->t[n->in[i]].shape) != 1)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s.%s): input %d must be a "
                            "constant with one value", n->name, n->domain, n->op_type, i);
    }
    return 0;
}

int nn_qmm_static(const g_node *n) { return !strcmp(n->op_type, "QMatMul"); }

int nn_qmm_qout(const g_node *n) { return has_in(n, DQ_YSCALE); }

void nn_qmm_yparams(const g_node *n, const k_tensor *in, float *scale, uint8_t *zp)
{
    *scale = *(const float *)in[DQ_YSCALE].data;
    *zp = has_in(n, DQ_YZP) && in[DQ_YZP].data ? *(const uint8_t *)in[DQ_YZP].data : 0;
}

void nn_qmm_quantise(const float *y, size_t cnt, float scale, uint8_t zp, uint8_t *q)
{
    for (size_t i = 0; i < cnt; i++) {
        float v = rintf(y[i] / scale) + (float)zp;
        q[i] = (uint8_t)(v >= 0.f ? (v > 255.f ? 255.f : v) : 0.f);   /* NaN: 0 */
    }
}

void nn_qmm_xparams(const g_node *n, const k_tensor *in, float *scale, uint8_t *zp)
{
    *scale = *(const float *)in[DQ_XSCALE].data;
    *zp = has_in(n, DQ_XZP) && in[DQ_XZP].data ? *(const uint8_t *)in[DQ_XZP].data : 0;
}

int nn_dynqmm_infer(const g_node *n, const k_tensor *in, k_tensor *out)
{
    const g_shape *xs = &in[0].shape, *ws = &in[1].shape;
    out[0].dtype = nn_qmm_qout(n) ? G_U8 : G_F32;
    if (xs->rank < 1 || ws->rank != 2) return 0;   /* rank not known yet */
    int64_t K = ws->d[0], N = ws->d[1], xk = xs->d[xs->rank - 1];
    char b1[96], b2[96];
    if (xk >= 0 && xk != K)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s.%s): X %s and W %s disagree on K",
                        n->name, n->domain, n->op_type, g_shape_str(xs, b1, sizeof b1),
                        g_shape_str(ws, b2, sizeof b2));
    int64_t ns = g_shape_numel(&in[DQ_WSCALE].shape);
    if (ns >= 0 && ns != 1 && ns != N)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s.%s): w_scale %s must hold 1 or "
                        "%lld values", n->name, n->domain, n->op_type,
                        g_shape_str(&in[DQ_WSCALE].shape, b1, sizeof b1), (long long)N);
    if (has_in(n, 2) && g_shape_numel(&in[2].shape) >= 0 && g_shape_numel(&in[2].shape) != N)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s.%s): bias %s must hold %lld values",
                        n->name, n->domain, n->op_type, g_shape_str(&in[2].shape, b1, sizeof b1),
                        (long long)N);
    out[0].shape = *xs;
    out[0].shape.d[xs->rank - 1] = N;
    if (has_in(n, NN_ADD_INPUT) && g_shape_known(&out[0].shape) &&
        !g_shape_eq(&in[NN_ADD_INPUT].shape, &out[0].shape))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s.%s): fused addend %s differs from "
                        "the output %s", n->name, n->domain, n->op_type,
                        g_shape_str(&in[NN_ADD_INPUT].shape, b1, sizeof b1),
                        g_shape_str(&out[0].shape, b2, sizeof b2));
    return 0;
}

void nn_dynq_params(const float *x, size_t cnt, float *scale, uint8_t *zp)
{
    float lo = 0.f, hi = 0.f;
    for (size_t i = 0; i < cnt; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    float s = (hi - lo) / 255.f;
    float z = s != 0.f ? rintf(0.f - lo / s) : 0.f;
    z = z < 0.f ? 0.f : z > 255.f ? 255.f : z;
    *scale = s;
    *zp = (uint8_t)z;
}

static int dqm_init(g_graph *g, g_node *n, void **state)
{
    int r = nn_dynqmm_check(g, n);
    if (r) return r;
    dqm_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    if ((r = nn_post_parse(n, &s->po))) { free(s); return r; }
    *state = s;
    return 0;
}

static int dqm_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    (void)state;
    return nn_dynqmm_infer(n, in, out);
}

int nn_dynqmm_compute(const g_node *n, const nn_post *po, const float *x, size_t cnt,
                      const int8_t *w, int64_t K, int64_t N, const float *ws, int per_col,
                      const float *bias, const float *add, float *y, const nn_qx *qx)
{
    int64_t M = K ? (int64_t)cnt / K : 0;
    float xs;
    uint8_t zp;
    if (qx) { xs = qx->scale; zp = qx->zp; }
    else nn_dynq_params(x, cnt, &xs, &zp);
    uint8_t *q = malloc(K ? (size_t)K : 1);
    if (!q) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    for (int64_t m = 0; m < M; m++) {
        for (int64_t k = 0; k < K && qx; k++) q[k] = qx->q[m * K + k];
        for (int64_t k = 0; k < K && !qx; k++) {
            float v = xs != 0.f ? rintf(x[m * K + k] / xs) + (float)zp : (float)zp;
            q[k] = (uint8_t)(v >= 0.f ? (v > 255.f ? 255.f : v) : 0.f);   /* NaN: 0 */
        }
        float *yr = y + m * N;
        for (int64_t j = 0; j < N; j++) {
            int32_t acc = 0;
            for (int64_t k = 0; k < K; k++) acc += ((int32_t)q[k] - zp) * w[k * N + j];
            yr[j] = (float)acc * (xs * ws[per_col ? j : 0]) + (bias ? bias[j] : 0.f);
        }
        nn_post_apply(po, yr, (size_t)N, add ? add + m * N : NULL);
    }
    free(q);
    return 0;
}

static int dqm_run_f32(const g_node *n, dqm_st *s, const k_tensor *in, k_tensor *out);

static int dqm_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    (void)ctx;
    if (!nn_qmm_qout(n)) return dqm_run_f32(n, state, in, out);
    /* the folded QuantizeLinear: the float result, then quantised */
    size_t cnt = (size_t)g_shape_numel(&out[0].shape);
    k_tensor y = out[0];
    y.dtype = G_F32;
    y.nbytes = cnt * sizeof(float);
    if (!(y.data = malloc(y.nbytes + 1)))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    int r = dqm_run_f32(n, state, in, &y);
    float ys;
    uint8_t yz;
    nn_qmm_yparams(n, in, &ys, &yz);
    if (!r) nn_qmm_quantise(y.data, cnt, ys, yz, out[0].data);
    free(y.data);
    return r;
}

static int dqm_run_f32(const g_node *n, dqm_st *s, const k_tensor *in, k_tensor *out)
{
    int64_t K = in[1].shape.d[0], N = in[1].shape.d[1];
    size_t cnt = (size_t)g_shape_numel(&in[0].shape);
    int per_col = g_shape_numel(&in[DQ_WSCALE].shape) == N && N != 1;
    if (K == 0) {   /* an empty sum: bias and post-ops over zeros */
        size_t rows = N ? (size_t)g_shape_numel(&out[0].shape) / (size_t)N : 0;
        float *y = out[0].data;
        for (size_t m = 0; m < rows; m++) {
            for (int64_t j = 0; j < N; j++) y[m * N + j] = has_in(n, 2) ? ((const float *)in[2].data)[j] : 0.f;
            nn_post_apply(&s->po, y + m * N, (size_t)N,
                          s->po.has_add ? (const float *)in[NN_ADD_INPUT].data + m * N : NULL);
        }
        return 0;
    }
    nn_qx qx = { .q = in[0].data };
    if (nn_qmm_static(n)) nn_qmm_xparams(n, in, &qx.scale, &qx.zp);
    return nn_dynqmm_compute(n, &s->po, in[0].data, cnt, in[1].data, K, N, in[DQ_WSCALE].data,
                             per_col, has_in(n, 2) ? in[2].data : NULL,
                             s->po.has_add ? in[NN_ADD_INPUT].data : NULL, out[0].data,
                             nn_qmm_static(n) ? &qx : NULL);
}

static void dqm_fini(void *state) { free(state); }

static const k_op k_dynqmm_ref = {
    .op_type = "DynQMatMul", .domain = "openacl", .since = 1, .until = 0, .impl = "ref",
    .priority = 0, .init = dqm_init, .infer = dqm_infer, .run = dqm_run, .fini = dqm_fini,
    .flops = k_flops_matmul,
};
K_REGISTER(k_dynqmm_ref);

static const k_op k_qmm_ref = {
    .op_type = "QMatMul", .domain = "openacl", .since = 1, .until = 0, .impl = "ref",
    .priority = 0, .init = dqm_init, .infer = dqm_infer, .run = dqm_run, .fini = dqm_fini,
    .flops = k_flops_matmul,
};
K_REGISTER(k_qmm_ref);
