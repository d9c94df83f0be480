/* openacl.Aipp: CANN's AIPP in one pass from the uint8 image to the float
 * NCHW tensor the network reads (graph/aipp.h puts the node there). Per
 * output pixel: channel swap, crop, colour-space conversion in integers,
 * then the per-channel normalisation (x - mean - min) * var_reci looked up
 * from a 256-entry table; the padding border gets padding_value as is. */
#include "kernels/kernel.h"
#include "graph/aipp.h"
#include "core/core.h"
#include "core/par.h"
#include "acl/acl_base.h"
#include "kernels/ref/shape_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct aipp_st {
    aipp_cfg c;
    int64_t net[4];          /* dynamic: the network's NCHW input */
    int yuv;                 /* a YUV-family format: U/V swap, input bias */
    int cout;                /* output channels */
    float lut[3][256];       /* normalisation of each 8-bit value */
} aipp_st;

static int is_yuv(int f)
{
    return f == AIPP_YUV420SP_U8 || f == AIPP_YUV422SP_U8 || f == AIPP_YUYV_U8 || f == AIPP_YUV400_U8 ||
           f == AIPP_AYUV444_U8;
}

static void lut_fill(aipp_st *s);

static int aipp_init(g_graph *g, g_node *n, void **state)
{
    (void)g;
    if (n->n_in < 1 || n->n_in > 2 || n->n_out != 1)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': takes 1 input and 1 output", n->name);
    aipp_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "openacl.Aipp node '%s': out of memory", n->name);
    int rc = aipp_from_node(n, &s->c);
    if (rc) { free(s); return rc; }
    if (s->c.mode == AIPP_MODE_DYNAMIC) {
        const int64_t *v;
        if (g_attr_ints(n, "net_shape", &v) != 4 || v[0] < 1 || (v[1] != 1 && v[1] != 3) || v[2] < 1 || v[3] < 1) {
            free(s);
            return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': net_shape is not [N, 1 or 3, H, W]",
                            n->name);
        }
        memcpy(s->net, v, sizeof s->net);
        *state = s;
        return 0;
    }
    s->yuv = is_yuv(s->c.format);
    s->cout = s->c.format == AIPP_YUV400_U8 ? 1 : 3;
    lut_fill(s);
    *state = s;
    return 0;
}

static int aipp_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    aipp_st *s = st;
    const aipp_cfg *c = &s->c;
    if (c->mode == AIPP_MODE_DYNAMIC) {
        if (in[0].dtype != G_U8 || in[1].dtype != G_U8 || g_shape_numel(&in[0].shape) != c->max_src_size ||
            g_shape_numel(&in[1].shape) != AIPP_DYN_HEAD + AIPP_DYN_BATCH * s->net[0])
            return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': expected %d image bytes and %lld "
                            "parameter bytes (uint8)", n->name, c->max_src_size,
                            (long long)(AIPP_DYN_HEAD + AIPP_DYN_BATCH * s->net[0]));
        out[0].dtype = G_F32;
        out[0].layout = G_LAYOUT_PLAIN;
        out[0].shape.rank = 4;
        memcpy(out[0].shape.d, s->net, sizeof s->net);
        return 0;
    }
    if (in[0].dtype != G_U8 || in[0].shape.rank != 4)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': input is %s of rank %d, expected a uint8 "
                        "NHWC image", n->name, g_dtype_name(in[0].dtype), in[0].shape.rank);
    g_shape want;
    aipp_input_shape(c->format, in[0].shape.d[0], c->src_w, c->src_h, &want);
    if (!g_shape_eq(&want, &in[0].shape)) {
        char a[96], b[96];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': the %s image is %s, expected %s", n->name,
                        aipp_format_name(c->format), g_shape_str(&in[0].shape, a, sizeof a),
                        g_shape_str(&want, b, sizeof b));
    }
    out[0].dtype = G_F32;
    out[0].layout = G_LAYOUT_PLAIN;
    out[0].shape.rank = 4;
    out[0].shape.d[0] = in[0].shape.d[0];
    out[0].shape.d[1] = s->cout;
    out[0].shape.d[2] = (int64_t)(c->crop ? c->crop_h : c->src_h) + c->pad_t + c->pad_b;
    out[0].shape.d[3] = (int64_t)(c->crop ? c->crop_w : c->src_w) + c->pad_l + c->pad_r;
    return 0;
}

/* The channels of row y of one image, columns x0 .. x0+n-1, into a[0..2]:
 * one loop per format, so each is a plain loop the compiler can vectorise. */
static void fetch_row(const aipp_st *s, const unsigned char *img, int y, int x0, int n, int32_t *a0, int32_t *a1,
                      int32_t *a2)
{
    const aipp_cfg *c = &s->c;
    size_t W = (size_t)c->src_w, H = (size_t)c->src_h;
    const unsigned char *yr = img + (size_t)y * W + (size_t)x0, *p;
    switch (c->format) {
    case AIPP_YUV420SP_U8:
    case AIPP_YUV422SP_U8:
        p = img + W * H + (size_t)(c->format == AIPP_YUV420SP_U8 ? y / 2 : y) * W;
        for (int x = 0; x < n; x++) {
            int u = (x0 + x) & ~1;
            a0[x] = yr[x]; a1[x] = p[u]; a2[x] = p[u + 1];
        }
        break;
    case AIPP_YUYV_U8:
        p = img + (size_t)y * W * 2;
        for (int x = 0; x < n; x++) {
            int X = x0 + x, q = (X & ~1) * 2;
            a0[x] = p[q + (X & 1) * 2]; a1[x] = p[q + 1]; a2[x] = p[q + 3];
        }
        break;
    case AIPP_YUV400_U8:
        for (int x = 0; x < n; x++) a0[x] = yr[x];
        break;
    case AIPP_RGB888_U8:
        p = img + ((size_t)y * W + (size_t)x0) * 3;
        for (int x = 0; x < n; x++) { a0[x] = p[3 * x]; a1[x] = p[3 * x + 1]; a2[x] = p[3 * x + 2]; }
        break;
    default:                                   /* 4 bytes: X/A last, or first with ax_swap */
        p = img + ((size_t)y * W + (size_t)x0) * 4 + (c->ax_swap ? 1 : 0);
        for (int x = 0; x < n; x++) { a0[x] = p[4 * x]; a1[x] = p[4 * x + 1]; a2[x] = p[4 * x + 2]; }
        break;
    }
}

/* Integer colour-space conversion of n pixels in place, rounded half up
 * (the reference kernel's (2*sum + 1) / 512), clipped to 8 bits. YUV inputs
 * subtract the input bias, RGB inputs add the output bias. */
static void csc_row(const aipp_st *s, int n, int32_t *a0, int32_t *a1, int32_t *a2)
{
    const aipp_cfg *c = &s->c;
    const int *m = c->matrix;
    int32_t ib0 = s->yuv ? c->in_bias[0] : 0, ib1 = s->yuv ? c->in_bias[1] : 0, ib2 = s->yuv ? c->in_bias[2] : 0;
    int32_t ob[3];
    for (int i = 0; i < 3; i++) ob[i] = (s->yuv ? 0 : c->out_bias[i]) - (1 << 19);
    for (int x = 0; x < n; x++) {
        int32_t p = a0[x] - ib0, q = a1[x] - ib1, r = a2[x] - ib2;
        /* +2^27 keeps the shifted value non-negative: a floor division by 256 */
        int32_t o0 = ((m[0] * p + m[1] * q + m[2] * r + 128 + (1 << 27)) >> 8) + ob[0];
        int32_t o1 = ((m[3] * p + m[4] * q + m[5] * r + 128 + (1 << 27)) >> 8) + ob[1];
        int32_t o2 = ((m[6] * p + m[7] * q + m[8] * r + 128 + (1 << 27)) >> 8) + ob[2];
        a0[x] = o0 < 0 ? 0 : o0 > 255 ? 255 : o0;
        a1[x] = o1 < 0 ? 0 : o1 > 255 ? 255 : o1;
        a2[x] = o2 < 0 ? 0 : o2 > 255 ? 255 : o2;
    }
}

#define AIPP_ROW 4096            /* the widest source row CANN allows */

static void aipp_row(const aipp_st *s, const unsigned char *img, float *o, size_t plane, int64_t oy, int64_t OW)
{
    const aipp_cfg *c = &s->c;
    int ih = c->crop ? c->crop_h : c->src_h, iw = c->crop ? c->crop_w : c->src_w;
    float *row[3];
    for (int ch = 0; ch < s->cout; ch++) row[ch] = o + (size_t)ch * plane + (size_t)oy * (size_t)OW;
    if (oy < c->pad_t || oy >= c->pad_t + ih) {
        for (int ch = 0; ch < s->cout; ch++) for (int64_t x = 0; x < OW; x++) row[ch][x] = c->pad_value;
        return;
    }
    for (int ch = 0; ch < s->cout; ch++) {
        for (int64_t x = 0; x < c->pad_l; x++) row[ch][x] = c->pad_value;
        for (int64_t x = c->pad_l + iw; x < OW; x++) row[ch][x] = c->pad_value;
    }
    int32_t buf[3][AIPP_ROW];
    int32_t *a[3] = { buf[0], buf[1], buf[2] };
    fetch_row(s, img, (int)(oy - c->pad_t) + c->crop_y, c->crop_x, iw, a[0], a[1], a[2]);
    if (c->rbuv_swap) {                        /* R<->B, or U<->V */
        int k = s->yuv ? 1 : 0;
        int32_t *t = a[k];
        a[k] = a[2];
        a[2] = t;
    }
    if (c->csc) csc_row(s, iw, a[0], a[1], a[2]);
    for (int ch = 0; ch < s->cout; ch++) {
        const float *lut = s->lut[ch];
        const int32_t *v = a[ch];
        float *r = row[ch] + c->pad_l;
        for (int x = 0; x < iw; x++) r[x] = lut[v[x]];
    }
}

static void lut_fill(aipp_st *s)
{
    for (int c = 0; c < 3; c++)
        for (int v = 0; v < 256; v++)
            s->lut[c][v] = ((float)v - (float)s->c.mean[c] - s->c.min[c]) * s->c.var_reci[c];
}

/* Dynamic AIPP: each image with the parameters of its batch, read and
 * checked per run (they live in an input). */
static int aipp_run_dynamic(const g_node *n, const aipp_st *st, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    int64_t N = st->net[0], OH = st->net[2], OW = st->net[3];
    size_t plane = (size_t)(OH * OW);
    const unsigned char *img = in[0].data;
    char who[320];
    snprintf(who, sizeof who, "openacl.Aipp node '%s'", n->name);
    /* per-batch state in the planned scratch: no allocation per run */
    if (!ctx->scratch || ctx->scratch_bytes < sizeof(aipp_st))
        return acl_fail(ACL_ERROR_FAILURE, "%s: %zu scratch bytes, planned %zu", who, ctx->scratch_bytes,
                        sizeof(aipp_st));
    aipp_st *s = ctx->scratch;
    int rc = 0;
    for (int64_t b = 0; b < N && !rc; b++) {
        *s = *st;
        rc = aipp_dyn_cfg(who, in[1].data, in[1].nbytes, (int)b, N, in[0].nbytes, OH, OW, (int)st->net[1], &s->c);
        if (rc) break;
        s->yuv = is_yuv(s->c.format);
        s->cout = (int)st->net[1];
        lut_fill(s);
        g_shape one;
        aipp_input_shape(s->c.format, 1, s->c.src_w, s->c.src_h, &one);
        size_t bytes = (size_t)g_shape_numel(&one);
        float *dst = (float *)out[0].data + (size_t)b * plane * (size_t)s->cout;
        int nt = ksh_threads(ctx, (size_t)OH * (size_t)OW * (size_t)s->cout * 4);
        const aipp_st *cs = s;
        OA_PAR_FOR(nt, for (int64_t r = 0; r < OH; r++) aipp_row(cs, img + (size_t)b * bytes, dst, plane, r, OW););
    }
    return rc;
}

static int aipp_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    const aipp_st *s = st;
    if (s->c.mode == AIPP_MODE_DYNAMIC) return aipp_run_dynamic(n, s, in, out, ctx);
    int64_t N = out[0].shape.d[0], OH = out[0].shape.d[2], OW = out[0].shape.d[3];
    size_t img_bytes = (size_t)(g_shape_numel(&in[0].shape) / (N ? N : 1));
    size_t plane = (size_t)(OH * OW);
    int64_t rows = N * OH;
    int nt = ksh_threads(ctx, (size_t)rows * (size_t)OW * (size_t)s->cout * 4);
    const unsigned char *src = in[0].data;
    float *dst = out[0].data;
    OA_PAR_FOR(nt, for (int64_t r = 0; r < rows; r++) {
        int64_t b = r / OH;
        aipp_row(s, src + (size_t)b * img_bytes, dst + (size_t)b * plane * (size_t)s->cout, plane, r % OH, OW);
    });
    return 0;
}

static int aipp_plan(const g_node *n, void *st, const k_tensor *in, const k_tensor *out, size_t *packed_bytes,
                     size_t *scratch_bytes)
{
    const aipp_st *s = st;
    *packed_bytes = 0;
    *scratch_bytes = s->c.mode == AIPP_MODE_DYNAMIC ? sizeof(aipp_st) : 0;
    return 0;
}

static void aipp_fini(void *st) { free(st); }

static const k_op k_aipp = {.op_type = "Aipp", .domain = "openacl", .since = 1, .impl = "ref",
                            .init = aipp_init, .infer = aipp_infer, .plan = aipp_plan, .run = aipp_run,
                            .fini = aipp_fini};
K_REGISTER(k_aipp);
