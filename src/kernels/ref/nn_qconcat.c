/* com.microsoft.QLinearConcat with constant parameters, through one byte
 * table per input built at load (the reference, nn_qlinear.c, builds int32
 * tables per run and stores element by element through the type). Inputs
 * whose parameters are the output's are copied. A channel concatenation of
 * 4-D tensors also reads and writes channels-last (NHWC), so the layout pass
 * keeps a detection network's FPN (Resize -> Concat -> Conv) in the
 * convolutions' layout without reorders; the output is NHWC when any input
 * is. The table entries are the reference's arithmetic, so the two agree
 * exactly. Declines parameters that are not constants: the reference runs
 * those. */
#include "kernels/kernel.h"
#include "kernels/ref/nn_common.h"
#include "core/core.h"
#include "core/par.h"
#include <stdlib.h>
#include <string.h>

typedef struct qcat2 {
    int n;                  /* data inputs */
    int64_t axis;           /* as given (normalised per run) */
    int nhwc_ok;            /* rank 4 at load and axis 1: channels-last allowed */
    int ydt;
    unsigned char *copy;    /* per input: same parameters and type as the output */
    uint8_t (*lut)[256];    /* per input, indexed by the stored byte */
} qcat2;

static const g_tensor *cst1(const g_graph *g, const g_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0) return NULL;
    const g_tensor *t = &g->t[n->in[i]];
    return t->kind == G_TK_CONST && t->data && g_shape_numel(&t->shape) == 1 ? t : NULL;
}

static int32_t zp_val(const g_tensor *t)
{
    if (!t) return 0;
    return t->dtype == G_I8 ? *(const int8_t *)t->data : *(const uint8_t *)t->data;
}

static void qcat2_fini(void *p)
{
    qcat2 *s = p;
    if (!s) return;
    free(s->copy);
    free(s->lut);
    free(s);
}

/* The reference's q_round: half to even, saturated into dt. */
static int32_t rq(float v, int32_t zp, int dt)
{
    float lo = (dt == G_I8 ? -128.f : 0.f) - (float)zp, hi = (dt == G_I8 ? 127.f : 255.f) - (float)zp;
    v = v < lo ? lo : v > hi ? hi : v;
    if (v != v) v = 0.f;
    return (int32_t)((v + 12582912.f) - 12582912.f) + zp;
}

static int tables(const g_graph *g, const g_node *n, qcat2 *s)
{
    const g_tensor *ys = cst1(g, n, 0), *yz = cst1(g, n, 1);
    if (!ys || ys->dtype != G_F32 || (n->n_in > 1 && n->in[1] >= 0 && !yz)) return 0;
    float sy = *(const float *)ys->data;
    int32_t zy = zp_val(yz);
    for (int j = 0; j < s->n; j++) {
        int x = 2 + 3 * j;
        const g_tensor *xs = cst1(g, n, x + 1), *xz = cst1(g, n, x + 2);
        int dt = g->t[n->in[x]].dtype;
        if (!xs || xs->dtype != G_F32 || (n->n_in > x + 2 && n->in[x + 2] >= 0 && !xz)) return 0;
        if (dt != G_U8 && dt != G_I8) return 0;
        float sx = *(const float *)xs->data;
        int32_t zx = zp_val(xz);
        s->copy[j] = sx == sy && zx == zy && dt == s->ydt;
        for (int b = 0; b < 256; b++) {
            int32_t q = dt == G_I8 ? (int8_t)b : b;
            s->lut[j][b] = (uint8_t)rq((float)(q - zx) * sx / sy, zy, s->ydt);
        }
    }
    return 1;
}

static int qcat2_init(g_graph *g, g_node *n, void **state)
{
    const char *off = getenv("OPENACL_QCONCAT_LUT");   /* 0: the reference takes every node */
    if (off && !strcmp(off, "0")) return K_DECLINE;
    if (n->n_in < 5 || (n->n_in - 2) % 3 || n->in[0] < 0) return K_DECLINE;
    for (int j = 2; j < n->n_in; j += 3)
        if (n->in[j] < 0) return K_DECLINE;
    qcat2 *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    s->n = (n->n_in - 2) / 3;
    s->axis = g_attr_int(n, "axis", 0);
    const g_tensor *yz = cst1(g, n, 1);
    s->ydt = yz ? yz->dtype : g->t[n->in[2]].dtype;
    s->copy = calloc((size_t)s->n, 1);
    s->lut = malloc((size_t)s->n * sizeof *s->lut);
    if (!s->copy || !s->lut) { qcat2_fini(s); return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name); }
    if ((s->ydt != G_U8 && s->ydt != G_I8) || !tables(g, n, s)) { qcat2_fini(s); return K_DECLINE; }
    int rank = g->t[n->in[2]].shape.rank;
    s->nhwc_ok = rank == 4 && (s->axis == 1 || s->axis == -3);
    *state = s;
    return 0;
}

static int qcat2_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n;
    const qcat2 *s = state;
    if (layout == G_LAYOUT_PLAIN) return 1;
    return layout == G_LAYOUT_NHWC && s && s->nhwc_ok && idx >= 2 && (idx - 2) % 3 == 0;
}

static int qcat2_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    qcat2 *s = state;
    const g_shape *s0 = &in[2].shape;
    out[0].dtype = s->ydt;
    out[0].layout = G_LAYOUT_PLAIN;
    if (s0->rank < 0) { out[0].shape.rank = -1; return 0; }
    int64_t ax = s->axis < 0 ? s->axis + s0->rank : s->axis;
    if (ax < 0 || ax >= s0->rank)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): axis %lld out of range for rank %d",
                        n->name, n->op_type, (long long)s->axis, s0->rank);
    out[0].shape = *s0;
    out[0].shape.d[ax] = 0;
    for (int j = 0; j < s->n; j++) {
        const k_tensor *x = &in[2 + 3 * j];
        int bad = x->shape.rank != s0->rank;
        for (int d = 0; d < s0->rank && !bad; d++)
            if (d != ax && x->shape.d[d] >= 0 && s0->d[d] >= 0 && x->shape.d[d] != s0->d[d]) bad = 1;
        if (bad) {
            char b[96];
            return acl_fail(ACL_ERROR_INVALID_PARAM, "node '%s' (%s): input %d has shape %s; dims other "
                            "than the axis must match", n->name, n->op_type, 2 + 3 * j,
                            g_shape_str(&x->shape, b, sizeof b));
        }
        int64_t a = out[0].shape.d[ax];
        out[0].shape.d[ax] = a < 0 || x->shape.d[ax] < 0 ? -1 : a + x->shape.d[ax];
        if (x->layout == G_LAYOUT_NHWC) out[0].layout = G_LAYOUT_NHWC;
    }
    return 0;
}

static void map_bytes(const uint8_t *lut, int copy, const uint8_t *src, uint8_t *dst, int64_t len)
{
    if (copy) { memcpy(dst, src, (size_t)len); return; }
    for (int64_t i = 0; i < len; i++) dst[i] = lut[src[i]];
}

/* Channels-last output [N, H, W, Ct]: each pixel takes its channels from
 * each input in turn (an input stored plain is read with the channel stride). */
static void run_nhwc(const qcat2 *s, const k_tensor *in, k_tensor *out, int nt)
{
    const g_shape *ys = &out[0].shape;
    int64_t N = ys->d[0], Ct = ys->d[1], P = ys->d[2] * ys->d[3];
    uint8_t *y = out[0].data;
    OA_PAR_FOR(nt, for (int64_t np = 0; np < N * P; np++) {
        int64_t b = np / P, p = np % P, off = 0;
        uint8_t *d = y + np * Ct;
        for (int j = 0; j < s->n; j++) {
            const k_tensor *x = &in[2 + 3 * j];
            int64_t C = x->shape.d[1];
            const uint8_t *src = x->data;
            if (x->layout == G_LAYOUT_NHWC) map_bytes(s->lut[j], s->copy[j], src + np * C, d + off, C);
            else
                for (int64_t c = 0; c < C; c++) d[off + c] = s->lut[j][src[(b * C + c) * P + p]];
            off += C;
        }
    });
}

static int qcat2_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)n;
    qcat2 *s = state;
    int nt = ctx && ctx->threads > 1 ? ctx->threads : 1;
    const g_shape *ys = &out[0].shape;
    if (out[0].layout == G_LAYOUT_NHWC) { run_nhwc(s, in, out, nt); return 0; }
    int64_t ax = s->axis < 0 ? s->axis + ys->rank : s->axis;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; d++) outer *= ys->d[d];
    for (int d = (int)ax + 1; d < ys->rank; d++) inner *= ys->d[d];
    int64_t yrow = ys->d[ax] * inner, off = 0;
    for (int j = 0; j < s->n; j++) {
        const k_tensor *x = &in[2 + 3 * j];
        int64_t row = x->shape.d[ax] * inner;
        const uint8_t *src = x->data;
        uint8_t *dst = (uint8_t *)out[0].data + off;
        const uint8_t *lut = s->lut[j];
        int copy = s->copy[j];
        OA_PAR_FOR(outer > 1 ? nt : 1, for (int64_t o = 0; o < outer; o++)
                       map_bytes(lut, copy, src + o * row, dst + o * yrow, row););
        off += row;
    }
    return 0;
}

/* before the reference (nn_qlinear.c, priority 0) */
static const k_op k_qlcat_lut = { .op_type = "QLinearConcat", .domain = "com.microsoft", .since = 1,
    .until = 0, .impl = "ref_lut", .priority = 5, .init = qcat2_init, .infer = qcat2_infer,
    .run = qcat2_run, .fini = qcat2_fini, .accepts_layout = qcat2_accepts };
K_REGISTER(k_qlcat_lut);
