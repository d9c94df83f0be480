/* Reference pooling: MaxPool (with the Indices output, dilations, ceil_mode,
 * storage_order, int8/uint8), AveragePool (count_include_pad), LpPool and the
 * global variants, over 1-3 spatial dims, either layout for 4-D tensors. */
#include "kernels/ref/nn_common.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


typedef struct pool_st {
    nn_win w;
    int type;
    int global;
    int include_pad;
    int storage_order;
    float p;
} pool_st;

static int pool_init_common(g_graph *g, g_node *n, void **state, int type, int global)
{
    pool_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    s->type = type;
    s->global = global;
    int r = 0;
    if (!global) r = nn_win_parse(n, NN_POOL, &s->w);
    if (r) { free(s); return r; }
    s->include_pad = (int)g_attr_int(n, "count_include_pad", 0);
    s->storage_order = (int)g_attr_int(n, "storage_order", 0);
    s->p = type == POOL_LP ? g_attr_float(n, "p", 2.f) : 0.f;
    if (type == POOL_LP && !(s->p > 0.f)) {
        free(s);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): p = %g; must be > 0",
                        n->name, n->op_type, n->opset, (double)g_attr_float(n, "p", 2.f));
    }
    if (s->storage_order != 0 && s->storage_order != 1) {
        int so = s->storage_order;
        free(s);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): storage_order %d; "
                        "expected 0 or 1", n->name, n->op_type, n->opset, so);
    }
    if (n->n_in < 1 || n->in[0] < 0) {
        free(s);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): missing input X", n->name, n->op_type);
    }
    int dt = g->t[n->in[0]].dtype;
    int ok = nn_is_float(dt) || dt == G_UNDEF || (type == POOL_MAX && (dt == G_U8 || dt == G_I8));
    if (!ok) { free(s); return nn_fail_dtype(n, 0, dt); }
    if (n->n_out > 1 && n->out[1] >= 0 && type != POOL_MAX) {
        free(s);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): only MaxPool has a second output",
                        n->name, n->op_type);
    }
    *state = s;
    return 0;
}

static int maxpool_init(g_graph *g, g_node *n, void **st) { return pool_init_common(g, n, st, POOL_MAX, 0); }
static int avgpool_init(g_graph *g, g_node *n, void **st) { return pool_init_common(g, n, st, POOL_AVG, 0); }
static int lppool_init(g_graph *g, g_node *n, void **st) { return pool_init_common(g, n, st, POOL_LP, 0); }
static int gmaxpool_init(g_graph *g, g_node *n, void **st) { return pool_init_common(g, n, st, POOL_MAX, 1); }
static int gavgpool_init(g_graph *g, g_node *n, void **st) { return pool_init_common(g, n, st, POOL_AVG, 1); }
static int glppool_init(g_graph *g, g_node *n, void **st) { return pool_init_common(g, n, st, POOL_LP, 1); }

/* Shared with the dnnl pools: output shape with w resolved. Global pools get
 * a window equal to the input. */
int nn_pool_infer_shape(const g_node *n, nn_win *w, int global, const g_shape *xs, g_shape *ys)
{
    if (xs->rank < 0) {
        ys->rank = -1;
        return 0;
    }
    int r = nn_check_rank(n, 0, xs, 3, 2 + NN_MAX_SP);
    if (r) return r;
    int nsp = xs->rank - 2;
    *ys = *xs;
    if (global) {
        w->nsp = nsp;
        w->kind = NN_POOL;
        for (int i = 0; i < nsp; i++) {
            w->k[i] = xs->d[2 + i]; w->s[i] = w->d[i] = 1; w->pb[i] = w->pe[i] = 0;
            w->in[i] = xs->d[2 + i]; w->out[i] = 1;
            ys->d[2 + i] = 1;
        }
        return 0;
    }
    for (int i = 0; i < nsp; i++)
        if (xs->d[2 + i] < 0) {
            for (int j = 0; j < nsp; j++) ys->d[2 + j] = -1;
            return 0;
        }
    if ((r = nn_win_resolve(n, w, nsp, xs->d + 2))) return r;
    for (int i = 0; i < nsp; i++) ys->d[2 + i] = w->out[i];
    return 0;
}

static int pool_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    pool_st *s = state;
    int r = nn_pool_infer_shape(n, &s->w, s->global, &in[0].shape, &out[0].shape);
    if (r) return r;
    out[0].dtype = in[0].dtype;
    out[0].layout = s->global ? G_LAYOUT_PLAIN : nn_out_layout(n, &out[0].shape);
    if (n->n_out > 1 && n->out[1] >= 0) {
        out[1].dtype = G_I64;
        out[1].shape = out[0].shape;
    }
    return 0;
}

static float ld(const void *p, int dt, int64_t i)
{
    if (dt == G_U8) return ((const uint8_t *)p)[i];
    if (dt == G_I8) return ((const int8_t *)p)[i];
    return nn_loadf(p, dt, (size_t)i);
}

/* 8-bit results saturate: an empty MaxPool window (all padding) holds the
 * lowest float, which becomes the type's lowest value as in ONNX Runtime;
 * converting an out-of-range float to an integer is undefined behaviour. */
static void st(void *p, int dt, int64_t i, float v)
{
    if (dt == G_U8) ((uint8_t *)p)[i] = (uint8_t)(v > 0.f ? (v < 255.f ? v : 255.f) : 0.f);
    else if (dt == G_I8) ((int8_t *)p)[i] = (int8_t)(v > -128.f ? (v < 127.f ? v : 127.f) : -128.f);
    else nn_storef(p, dt, (size_t)i, v);
}

void nn_pool_compute(const nn_win *wp, int type, int include_pad, int storage_order, float p,
                     const k_tensor *x, k_tensor *y, int64_t *idx)
{
    const nn_win w = *wp;
    const k_tensor *in = x;
    k_tensor *out = y;
    g_shape ys = y->shape;
    const g_shape *xsh = &in[0].shape;
    int nsp = xsh->rank - 2, dt = in[0].dtype;
    nn_strides xs, yst;
    nn_strides_of(xsh, in[0].layout, &xs);
    nn_strides_of(&ys, out[0].layout, &yst);
    /* padded to 3 dims: leading ones */
    int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1};
    int64_t D[3] = {1, 1, 1}, PB[3] = {0, 0, 0}, PE[3] = {0, 0, 0}, XS[3] = {0, 0, 0}, YS[3] = {0, 0, 0};
    int off = 3 - nsp;
    for (int i = 0; i < nsp; i++) {
        I[off + i] = w.in[i]; O[off + i] = w.out[i]; K[off + i] = w.k[i]; S[off + i] = w.s[i];
        D[off + i] = w.d[i]; PB[off + i] = w.pb[i]; PE[off + i] = w.pe[i];
        XS[off + i] = xs.sp[i]; YS[off + i] = yst.sp[i];
    }
    int64_t N = xsh->d[0], C = xsh->d[1];
    int64_t plane_in = I[0] * I[1] * I[2];
    for (int64_t nb = 0; nb < N; nb++)
        for (int64_t c = 0; c < C; c++) {
            int64_t xb = nb * xs.n + c * xs.c, yb = nb * yst.n + c * yst.c;
            int64_t ib = (nb * C + c) * plane_in, yi = (nb * C + c) * O[0] * O[1] * O[2];
            for (int64_t o0 = 0; o0 < O[0]; o0++)
                for (int64_t o1 = 0; o1 < O[1]; o1++)
                    for (int64_t o2 = 0; o2 < O[2]; o2++, yi++) {
                        int64_t b0 = o0 * S[0] - PB[0], b1 = o1 * S[1] - PB[1], b2 = o2 * S[2] - PB[2];
                        double acc = type == POOL_MAX ? -INFINITY : 0.0;
                        int64_t cnt = 0, padcnt = 0, best = -1;
                        for (int64_t k0 = 0; k0 < K[0]; k0++) {
                            int64_t i0 = b0 + k0 * D[0];
                            for (int64_t k1 = 0; k1 < K[1]; k1++) {
                                int64_t i1 = b1 + k1 * D[1];
                                for (int64_t k2 = 0; k2 < K[2]; k2++) {
                                    int64_t i2 = b2 + k2 * D[2];
                                    if (i0 >= -PB[0] && i0 < I[0] + PE[0] && i1 >= -PB[1] &&
                                        i1 < I[1] + PE[1] && i2 >= -PB[2] && i2 < I[2] + PE[2])
                                        padcnt++;
                                    if (i0 < 0 || i0 >= I[0] || i1 < 0 || i1 >= I[1] || i2 < 0 ||
                                        i2 >= I[2])
                                        continue;
                                    float v = ld(in[0].data, dt, xb + i0 * XS[0] + i1 * XS[1] + i2 * XS[2]);
                                    cnt++;
                                    if (type == POOL_MAX) {
                                        if (v > acc || best < 0) {
                                            acc = v;
                                            if (storage_order == 0)
                                                best = (i0 * I[1] + i1) * I[2] + i2;
                                            else   /* column major over the spatial dims */
                                                best = (i2 * I[1] + i1) * I[0] + i0;
                                        }
                                    } else if (type == POOL_AVG) {
                                        acc += v;
                                    } else {
                                        acc += pow(fabs((double)v), (double)p);
                                    }
                                }
                            }
                        }
                        float res;
                        if (type == POOL_MAX) res = best < 0 ? -FLT_MAX : (float)acc;   /* empty window: as ORT */
                        else if (type == POOL_AVG) {
                            int64_t div = include_pad ? padcnt : cnt;
                            res = div ? (float)(acc / (double)div) : 0.f;
                        } else res = (float)pow(acc, 1.0 / (double)p);
                        st(out[0].data, out[0].dtype, yb + o0 * YS[0] + o1 * YS[1] + o2 * YS[2], res);
                        if (idx) idx[yi] = ib + (best < 0 ? 0 : best);
                    }
        }
}

static int pool_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                    const k_ctx *ctx)
{
    pool_st *s = state;
    nn_win w = s->w;
    g_shape ys;
    int r = nn_pool_infer_shape(n, &w, s->global, &in[0].shape, &ys);
    if (r) return r;
    k_tensor y = out[0];
    y.shape = ys;
    int64_t *idx = (n->n_out > 1 && n->out[1] >= 0) ? out[1].data : NULL;
    nn_pool_compute(&w, s->type, s->include_pad, s->storage_order, s->p, &in[0], &y, idx);
    (void)ctx;
    return 0;
}

static void pool_fini(void *state) { free(state); }

static int pool_accepts(const g_node *n, void *state, int idx, int layout)
{
    pool_st *s = state;
    if (layout == G_LAYOUT_PLAIN) return 1;
    /* Indices are logical NCHW positions whatever the layout; keep it simple:
     * MaxPool with an Indices output stays plain. */
    if (n->n_out > 1 && n->out[1] >= 0) return 0;
    return layout == G_LAYOUT_NHWC && idx == 0 && s != NULL;
}

#define POOL_OP(var, name, from, fn) \
    static const k_op var = { .op_type = name, .domain = "", .since = from, .until = 0, \
        .impl = "ref", .priority = 0, .init = fn, .infer = pool_infer, .run = pool_run, \
        .fini = pool_fini, .accepts_layout = pool_accepts }; \
    K_REGISTER(var)

POOL_OP(k_maxpool_ref, "MaxPool", 1, maxpool_init);
POOL_OP(k_avgpool_ref, "AveragePool", 1, avgpool_init);
POOL_OP(k_lppool_ref, "LpPool", 1, lppool_init);
POOL_OP(k_gmaxpool_ref, "GlobalMaxPool", 1, gmaxpool_init);
POOL_OP(k_gavgpool_ref, "GlobalAveragePool", 1, gavgpool_init);
POOL_OP(k_glppool_ref, "GlobalLpPool", 1, glppool_init);
