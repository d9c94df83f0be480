/* Resize by whole factors in nearest mode with asymmetric coordinates and
 * floor rounding (a detection network's FPN: 2x, 4x, 8x up-sampling), any
 * element type: each output row is its input row with every element
 * repeated fw times, and is then copied fh - 1 times; channels-last moves
 * whole pixels. With those attributes ONNX's source index is
 * floor(x / f) = x / f in integers, which float32 computes exactly for the
 * sizes taken here (outputs under 2^16 per axis), so this is the
 * reference's gather (ref/resize.c) without its per-element index tables.
 * Declines anything else (other modes or rounding, sizes instead of
 * scales, scales that are not constant whole numbers on H and W and 1 on N
 * and C, a rank other than 4, the axes attribute). */
#include "kernels/kernel.h"
#include "kernels/ref/nn_common.h"
#include "core/core.h"
#include "core/par.h"
#include <stdlib.h>
#include <string.h>

#define RU_MAX_OUT 65536

typedef struct ru_st {
    int64_t fh, fw;
} ru_st;

static int ru_init(g_graph *g, g_node *n, void **state)
{
    const char *off = getenv("OPENACL_RESIZE_UP");   /* 0: the reference takes every node */
    if ((off && !strcmp(off, "0")) || n->n_in < 3 || n->in[0] < 0 || n->in[2] < 0 ||
        (n->n_in > 3 && n->in[3] >= 0))
        return K_DECLINE;
    if (strcmp(g_attr_str(n, "mode", "nearest"), "nearest") ||
        strcmp(g_attr_str(n, "coordinate_transformation_mode", "half_pixel"), "asymmetric") ||
        strcmp(g_attr_str(n, "nearest_mode", "round_prefer_floor"), "floor") || g_node_attr(n, "axes"))
        return K_DECLINE;
    const g_tensor *x = &g->t[n->in[0]], *sc = &g->t[n->in[2]];
    if (x->shape.rank != 4 || g_dtype_size(x->dtype) == 0 || sc->kind != G_TK_CONST || !sc->data ||
        sc->dtype != G_F32 || g_shape_numel(&sc->shape) != 4)
        return K_DECLINE;
    const float *f = sc->data;
    if (f[0] != 1.f || f[1] != 1.f) return K_DECLINE;
    for (int i = 2; i < 4; i++)
        if (!(f[i] >= 1.f && f[i] <= 64.f) || f[i] != (float)(int)f[i]) return K_DECLINE;
    ru_st *s = malloc(sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "node '%s': out of memory", n->name);
    s->fh = (int64_t)f[2];
    s->fw = (int64_t)f[3];
    *state = s;
    return 0;
}

static int ru_infer(const g_node *n, void *state, const k_tensor *in, k_tensor *out)
{
    const ru_st *s = state;
    if (in[0].shape.rank != 4) return nn_check_rank(n, 0, &in[0].shape, 4, 4);
    out[0].dtype = in[0].dtype;
    out[0].shape = in[0].shape;
    if (in[0].shape.d[2] >= 0) out[0].shape.d[2] = in[0].shape.d[2] * s->fh;
    if (in[0].shape.d[3] >= 0) out[0].shape.d[3] = in[0].shape.d[3] * s->fw;
    if (out[0].shape.d[2] > RU_MAX_OUT || out[0].shape.d[3] > RU_MAX_OUT)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "node '%s' (%s): output of %lld x %lld, more than %d "
                        "per axis", n->name, n->op_type, (long long)out[0].shape.d[2],
                        (long long)out[0].shape.d[3], RU_MAX_OUT);
    out[0].layout = in[0].layout == G_LAYOUT_NHWC ? G_LAYOUT_NHWC : G_LAYOUT_PLAIN;
    return 0;
}

/* One output row from one input row of W items of `item` bytes each. */
static void widen(const char *src, char *dst, int64_t W, int64_t fw, size_t item)
{
    if (item == 1) {
        for (int64_t w = 0; w < W; w++)
            for (int64_t k = 0; k < fw; k++) dst[w * fw + k] = src[w];
        return;
    }
    if (item == 4) {
        const uint32_t *s4 = (const uint32_t *)src;
        uint32_t *d4 = (uint32_t *)dst;
        for (int64_t w = 0; w < W; w++)
            for (int64_t k = 0; k < fw; k++) d4[w * fw + k] = s4[w];
        return;
    }
    for (int64_t w = 0; w < W; w++)
        for (int64_t k = 0; k < fw; k++) memcpy(dst + (w * fw + k) * item, src + w * item, item);
}

static int ru_run(const g_node *n, void *state, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)n;
    const ru_st *s = state;
    const g_shape *xs = &in[0].shape;
    int64_t N = xs->d[0], C = xs->d[1], H = xs->d[2], W = xs->d[3], fh = s->fh, fw = s->fw;
    size_t es = g_dtype_size(in[0].dtype);
    int nhwc = in[0].layout == G_LAYOUT_NHWC;
    /* rows: (image, channel, h) plain, (image, h) channels-last; items of es or C * es bytes */
    int64_t rows = nhwc ? N * H : N * C * H;
    size_t item = nhwc ? (size_t)C * es : es;
    size_t irow = (size_t)W * item, orow = (size_t)(W * fw) * item;
    const char *x = in[0].data;
    char *y = out[0].data;
    size_t bytes = (size_t)rows * (size_t)fh * orow;
    int nt = ctx && ctx->threads > 1 && bytes >= ((size_t)1 << 18) ? ctx->threads : 1;
    OA_PAR_FOR(nt, for (int64_t r = 0; r < rows; r++) {
        char *d = y + (size_t)r * (size_t)fh * orow;
        widen(x + (size_t)r * irow, d, W, fw, item);
        for (int64_t k = 1; k < fh; k++) memcpy(d + (size_t)k * orow, d, orow);
    });
    return 0;
}

static int ru_accepts(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state;
    return layout == G_LAYOUT_PLAIN || (layout == G_LAYOUT_NHWC && idx == 0);
}

static void ru_fini(void *s) { free(s); }

/* before the reference (ref/resize.c, priority 0) */
static const k_op k_resize_up = { .op_type = "Resize", .domain = "", .since = 11, .until = 0, .impl = "ref_up",
    .priority = 5, .init = ru_init, .infer = ru_infer, .run = ru_run, .fini = ru_fini,
    .accepts_layout = ru_accepts };
K_REGISTER(k_resize_up);
