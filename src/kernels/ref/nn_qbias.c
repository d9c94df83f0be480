/* openacl.QBias(x_u8, x_scale, x_zp, bias[N], y_scale, y_zp [, c]): what
 * graph_pass_qbias (graph/qmatmul.c) makes of a QDQ encoder's
 *     DequantizeLinear -> Add(bias) [-> GELU: a * (erf(a / c) + 1) * 0.5]
 *     -> QuantizeLinear(uint8)
 * after an int8 product. Each output depends on one byte and its column (the
 * last axis, N values), so the kernel evaluates the nodes' float32
 * arithmetic once per column and byte at load into a table of N x 256 bytes
 * and runs as a lookup. Scales, zero points, bias and c must be constants. */
#include "kernels/ref/nn_qbias.h"
#include "kernels/ref/nn_common.h"
#include "core/par.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BX = 0, BXS, BXZ, BB, BYS, BYZ, BC };

/* a row by the table */
static void qb_row_lut(const nn_qbias *s, const uint8_t *x, uint8_t *y)
{
    for (int64_t col = 0; col < s->N; col++) y[col] = s->lut[col * 256 + x[col]];
}

static const g_tensor *cnst(const g_graph *g, const g_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0) return NULL;
    const g_tensor *t = &g->t[n->in[i]];
    return t->kind == G_TK_CONST && t->data ? t : NULL;
}

static int one_of(const g_tensor *t, int dt) { return t && t->dtype == dt && g_shape_numel(&t->shape) == 1; }

void nn_qbias_fini(void *state)
{
    nn_qbias *s = state;
    if (!s) return;
    free(s->lut);
    free(s->bias);
    free(s);
}

int nn_qbias_init(g_graph *g, g_node *n, void **state)
{
    const g_tensor *xs = cnst(g, n, BXS), *xz = cnst(g, n, BXZ), *b = cnst(g, n, BB), *ys = cnst(g, n, BYS);
    const g_tensor *yz = cnst(g, n, BYZ), *c = n->n_in > BC ? cnst(g, n, BC) : NULL;
    if (n->n_in < 6 || n->n_out != 1 || n->in[BX] < 0 || !one_of(xs, G_F32) || !one_of(xz, G_U8) ||
        !b || b->dtype != G_F32 || b->shape.rank != 1 || !one_of(ys, G_F32) || !one_of(yz, G_U8) ||
        (n->n_in > BC && n->in[BC] >= 0 && !one_of(c, G_F32)))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): needs a uint8 X, constant per-tensor "
                        "scales and uint8 zero points, a constant float bias of one axis and an optional "
                        "constant GELU divisor", n->name, n->op_type);
    int xt = g->t[n->in[BX]].dtype;
    if (xt != G_UNDEF && xt != G_U8) return nn_fail_dtype(n, BX, xt);
    float sx = *(const float *)xs->data, sy = *(const float *)ys->data;
    float zx = (float)*(const uint8_t *)xz->data, zy = (float)*(const uint8_t *)yz->data;
    if (!(sy > 0.f)) return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): y_scale must be positive",
                                     n->name, n->op_type);
    nn_qbias *s = calloc(1, sizeof *s);
    if (s) s->N = b->shape.d[0];
    if (s) s->lut = malloc((size_t)(s->N > 0 ? s->N : 1) * 256);
    if (s) s->bias = malloc((size_t)(s->N > 0 ? s->N : 1) * sizeof(float));
    if (!s || !s->lut || !s->bias) {
        nn_qbias_fini(s);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s' (%s): out of memory", n->name, n->op_type);
    }
    const float *bias = b->data;
    s->gelu = c != NULL;
    s->row = qb_row_lut;
    memcpy(s->bias, bias, (size_t)s->N * sizeof(float));
    s->sx = sx; s->zx = zx; s->sy = sy; s->zy = zy;
    for (int64_t col = 0; col < s->N; col++)
        for (int v = 0; v < 256; v++) {
            /* the nodes' float32 steps in their order */
            float a = ((float)v - zx) * sx + bias[col];
            if (c) {
                float e = erff(a / *(const float *)c->data) + 1.0f;
                a = a * e * 0.5f;
            }
            float q = nearbyintf(a / sy) + zy;
            s->lut[col * 256 + v] = (uint8_t)(q < 0.f ? 0.f : q > 255.f ? 255.f : q);
        }
    *state = s;
    return 0;
}

int nn_qbias_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    nn_qbias *s = state;
    const g_shape *x = &in[BX].shape;
    if (x->rank >= 0 && (x->rank < 1 || (x->d[x->rank - 1] >= 0 && x->d[x->rank - 1] != s->N)))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): the last axis of X must have the "
                        "bias's %lld values", n->name, n->op_type, (long long)s->N);
    out[0].shape = *x;
    out[0].dtype = G_U8;
    out[0].layout = G_LAYOUT_PLAIN;
    return 0;
}

int nn_qbias_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)n;
    nn_qbias *s = state;
    int64_t N = s->N, rows = N > 0 ? g_shape_numel(&in[BX].shape) / N : 0;
    const uint8_t *x = in[BX].data;
    uint8_t *y = out[0].data;
    int nthr = ctx ? ctx->threads : 1;
    OA_PAR_FOR(nthr > 1 && rows * N > 65536 ? nthr : 1,
               for (int64_t r = 0; r < rows; r++) s->row(s, x + r * N, y + r * N););
    return 0;
}

static const k_op k_qbias_ref = {
    .op_type = "QBias", .domain = "openacl", .since = 1, .until = 0, .impl = "ref", .priority = 0,
    .init = nn_qbias_init, .infer = nn_qbias_infer, .run = nn_qbias_run, .fini = nn_qbias_fini,
};
K_REGISTER(k_qbias_ref);
