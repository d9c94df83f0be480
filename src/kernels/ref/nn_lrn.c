/* Reference LRN (local response normalisation across channels). */
#include "kernels/ref/nn_common.h"
#include <math.h>
#include <stdlib.h>

typedef struct lrn_st {
    int64_t size;
    float alpha, beta, bias;
} lrn_st;

/* Shared with the dnnl LRN: parses and validates the attributes. */
int nn_lrn_parse(const g_node *n, int64_t *size, float *alpha, float *beta, float *bias)
{
    *size = g_attr_int(n, "size", 0);
    *alpha = g_attr_float(n, "alpha", 1e-4f);
    *beta = g_attr_float(n, "beta", 0.75f);
    *bias = g_attr_float(n, "bias", 1.0f);
    if (*size < 1)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s, opset %d): attribute size = %lld; "
                        "must be >= 1", n->name, n->op_type, n->opset, (long long)*size);
    return 0;
}

static int lrn_init(g_graph *g, g_node *n, void **state)
{
    lrn_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    int r = nn_lrn_parse(n, &s->size, &s->alpha, &s->beta, &s->bias);
    if (!r && n->in[0] >= 0) {
        int dt = g->t[n->in[0]].dtype;
        if (dt != G_UNDEF && !nn_is_float(dt)) r = nn_fail_dtype(n, 0, dt);
    }
    if (r) { free(s); return r; }
    *state = s;
    return 0;
}

static int lrn_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    int r = in[0].shape.rank < 0 ? 0 : nn_check_rank(n, 0, &in[0].shape, 2, G_MAX_RANK);
    if (r) return r;
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    out[0].layout = in[0].layout;   /* computed in place of the input's layout */
    return 0;
}

void nn_lrn_compute(int64_t size, float alpha, float beta, float bias, const k_tensor *x,
                    k_tensor *y)
{
    const g_shape *sh = &x->shape;
    int64_t N = sh->d[0], C = sh->d[1], P = 1;
    for (int i = 2; i < sh->rank; i++) P *= sh->d[i];
    /* (N, C, P) view: channels-last 4-D tensors have channel stride 1 */
    int64_t sn = C * P, sc = P, sp = 1;
    if (x->layout == G_LAYOUT_NHWC && sh->rank >= 3) { sc = 1; sp = C; }
    int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
    float k = alpha / (float)size;
    for (int64_t nb = 0; nb < N; nb++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < P; p++) {
                double sum = 0;
                int64_t c0 = c - lo < 0 ? 0 : c - lo, c1 = c + hi >= C ? C - 1 : c + hi;
                for (int64_t j = c0; j <= c1; j++) {
                    float v = nn_loadf(x->data, x->dtype, (size_t)(nb * sn + j * sc + p * sp));
                    sum += (double)v * v;
                }
                int64_t o = nb * sn + c * sc + p * sp;
                float xv = nn_loadf(x->data, x->dtype, (size_t)o);
                nn_storef(y->data, y->dtype, (size_t)o, xv / powf(bias + k * (float)sum, beta));
            }
}

static int lrn_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out,
                   const k_ctx *ctx)
{
    lrn_st *s = state;
    nn_lrn_compute(s->size, s->alpha, s->beta, s->bias, &in[0], &out[0]);
    (void)ctx;
    return 0;
}

static void lrn_fini(void *state) { free(state); }

static int lrn_accepts(const g_node *n, void *state, int idx, int layout)
{
    return layout == G_LAYOUT_PLAIN || layout == G_LAYOUT_NHWC;
}

static const k_op k_lrn_ref = {
    .op_type = "LRN", .domain = "", .since = 1, .until = 0, .impl = "ref", .priority = 0,
    .init = lrn_init, .infer = lrn_infer, .run = lrn_run, .fini = lrn_fini,
    .accepts_layout = lrn_accepts,
};
K_REGISTER(k_lrn_ref);
