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
#include <stdlib.h>
#include <string.h>

typedef struct aipp_st {
    aipp_cfg c;
    int yuv;                 /* a YUV-family format: U/V swap, input bias */
    int cout;                /* output channels */
    float lut[3][256];       /* normalisation of each 8-bit value */
} aipp_st;

static int is_yuv(int f)
{
    return f == AIPP_YUV420SP_U8 || f == AIPP_YUV422SP_U8 || f == AIPP_YUYV_U8 || f == AIPP_YUV400_U8 ||
           f == AIPP_AYUV444_U8;
}

static int aipp_init(g_graph *g, g_node *n, void **state)
{
    (void)g;
    if (n->n_in != 1 || n->n_out != 1)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "openacl.Aipp node '%s': takes 1 input and 1 output", n->name);
    aipp_st *s = calloc(1, sizeof *s);
    if (!s) return acl_fail(ACL_ERROR_BAD_ALLOC, "openacl.Aipp node '%s': out of memory", n->name);
    int rc = aipp_from_node(n, &s->c);
    if (rc) { free(s); return rc; }
    s->yuv = is_yuv(s->c.format);
    s->cout = s->c.format == AIPP_YUV400_U8 ? 1 : 3;
    for (int c = 0; c < 3; c++)
        for (int v = 0; v < 256; v++)
            s->lut[c][v] = ((float)v - (float)s->c.mean[c] - s->c.min[c]) * s->c.var_reci[c];
    *state = s;
    return 0;
}

static int aipp_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    aipp_st *s = st;
    const aipp_cfg *c = &s->c;
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
    out[0].shape.d[2] = (c->crop ? c->crop_h : c->src_h) + c->pad_t + c->pad_b;
    out[0].shape.d[3] = (c->crop ? c->crop_w : c->src_w) + c->pad_l + c->pad_r;
    return 0;
}

/* The three channels of source pixel (x, y) of one image, swaps applied. */
static inline void fetch(const aipp_st *s, const unsigned char *img, int x, int y, int v[3])
{
    const aipp_cfg *c = &s->c;
    size_t W = (size_t)c->src_w, H = (size_t)c->src_h;
    const unsigned char *p;
    switch (c->format) {
    case AIPP_YUV420SP_U8:
        p = img + W * H + (size_t)(y / 2) * W + (size_t)(x & ~1);
        v[0] = img[(size_t)y * W + (size_t)x]; v[1] = p[0]; v[2] = p[1];
        break;
    case AIPP_YUV422SP_U8:
        p = img + W * H + (size_t)y * W + (size_t)(x & ~1);
        v[0] = img[(size_t)y * W + (size_t)x]; v[1] = p[0]; v[2] = p[1];
        break;
    case AIPP_YUYV_U8:
        p = img + ((size_t)y * W + (size_t)(x & ~1)) * 2;
        v[0] = p[(x & 1) * 2]; v[1] = p[1]; v[2] = p[3];
        break;
    case AIPP_YUV400_U8:
        v[0] = img[(size_t)y * W + (size_t)x]; v[1] = v[2] = 0;
        return;
    case AIPP_RGB888_U8:
        p = img + ((size_t)y * W + (size_t)x) * 3;
        v[0] = p[0]; v[1] = p[1]; v[2] = p[2];
        break;
    default:                                   /* 4 bytes: X/A last, or first with ax_swap */
        p = img + ((size_t)y * W + (size_t)x) * 4 + (c->ax_swap ? 1 : 0);
        v[0] = p[0]; v[1] = p[1]; v[2] = p[2];
        break;
    }
    if (c->rbuv_swap) {
        int a = s->yuv ? 1 : 0, t = v[a];
        v[a] = v[2]; v[2] = t;
    }
}

/* Integer colour-space conversion, rounded half up (the reference kernel's
 * (2*sum + 1) / 512), clipped to 8 bits. */
static inline void csc(const aipp_st *s, int v[3])
{
    const aipp_cfg *c = &s->c;
    int a[3];
    for (int j = 0; j < 3; j++) a[j] = s->yuv ? v[j] - c->in_bias[j] : v[j];
    for (int i = 0; i < 3; i++) {
        int sum = c->matrix[i * 3] * a[0] + c->matrix[i * 3 + 1] * a[1] + c->matrix[i * 3 + 2] * a[2];
        int r = ((sum + 128 + (1 << 27)) >> 8) - (1 << 19) + (s->yuv ? 0 : c->out_bias[i]);
        v[i] = r < 0 ? 0 : r > 255 ? 255 : r;
    }
}

static void aipp_row(const aipp_st *s, const unsigned char *img, float *o, size_t plane, int64_t oy, int64_t OW)
{
    const aipp_cfg *c = &s->c;
    int64_t ih = (c->crop ? c->crop_h : c->src_h), iw = (c->crop ? c->crop_w : c->src_w);
    float *row[3];
    for (int ch = 0; ch < s->cout; ch++) row[ch] = o + (size_t)ch * plane + (size_t)oy * (size_t)OW;
    if (oy < c->pad_t || oy >= c->pad_t + ih) {
        for (int ch = 0; ch < s->cout; ch++) for (int64_t x = 0; x < OW; x++) row[ch][x] = c->pad_value;
        return;
    }
    int y = (int)(oy - c->pad_t) + c->crop_y;
    for (int ch = 0; ch < s->cout; ch++) {
        for (int64_t x = 0; x < c->pad_l; x++) row[ch][x] = c->pad_value;
        for (int64_t x = c->pad_l + iw; x < OW; x++) row[ch][x] = c->pad_value;
    }
    int v[3];
    for (int64_t x = 0; x < iw; x++) {
        fetch(s, img, (int)x + c->crop_x, y, v);
        if (c->csc) csc(s, v);
        for (int ch = 0; ch < s->cout; ch++) row[ch][c->pad_l + x] = s->lut[ch][v[ch]];
    }
}

static int aipp_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *ctx)
{
    (void)n;
    const aipp_st *s = st;
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

static void aipp_fini(void *st) { free(st); }

static const k_op k_aipp = {.op_type = "Aipp", .domain = "openacl", .since = 1, .impl = "ref",
                            .init = aipp_init, .infer = aipp_infer, .run = aipp_run, .fini = aipp_fini};
K_REGISTER(k_aipp);
