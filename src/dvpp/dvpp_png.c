/* PNG decode with libspng: small, written for untrusted input, with limits
 * on image size and on chunk data (so a decompression bomb is refused, not
 * inflated). Output is RGB_888 or RGBA_8888 with widthStride =
 * align128(width) * bytes per pixel and heightStride = align16(height). */
#include <stdlib.h>
#include <string.h>

#include <spng.h>

#include "dvpp/dvpp_priv.h"

#define PNG_MIN 32
#define PNG_MAX 4096
/* ancillary chunk data kept in memory (text, ICC profile...) */
#define PNG_CHUNK_LIMIT (8u << 20)
#define PNG_CACHE_LIMIT (16u << 20)

static spng_ctx *png_open(const char *api, const void *data, uint32_t size, int limit_size, int *rc)
{
    spng_ctx *ctx = spng_ctx_new(0);
    if (!ctx) {
        *rc = DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: cannot create a PNG decoder", api);
        return NULL;
    }
    spng_set_chunk_limits(ctx, PNG_CHUNK_LIMIT, PNG_CACHE_LIMIT);
    if (limit_size) spng_set_image_limits(ctx, PNG_MAX, PNG_MAX);
    int e = spng_set_png_buffer(ctx, data, size);
    if (e) {
        *rc = DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: %s", api, spng_strerror(e));
        spng_ctx_free(ctx);
        return NULL;
    }
    *rc = ACL_SUCCESS;
    return ctx;
}

static int png_ihdr(const char *api, spng_ctx *ctx, uint32_t size, struct spng_ihdr *h)
{
    int e = spng_get_ihdr(ctx, h);
    if (e)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: not a readable PNG header (%u bytes): %s", api, size,
                       spng_strerror(e));
    return ACL_SUCCESS;
}

static int png_components(const char *api, const struct spng_ihdr *h, int32_t *comp)
{
    switch (h->color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE: *comp = 1; return ACL_SUCCESS;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: *comp = 2; return ACL_SUCCESS;
    case SPNG_COLOR_TYPE_TRUECOLOR: *comp = 3; return ACL_SUCCESS;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: *comp = 4; return ACL_SUCCESS;
    default:
        return DV_FAIL(ACL_ERROR_FORMAT_NOT_MATCH,
                       "%s: the PNG has colour type %u (palette); only gray, gray+alpha, RGB and RGBA are decoded", api,
                       (unsigned)h->color_type);
    }
}

static int png_has_alpha(const struct spng_ihdr *h)
{
    return h->color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA || h->color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
}

static int png_out_format(const char *api, acldvppPixelFormat req, const struct spng_ihdr *h, acldvppPixelFormat *out)
{
    if (req == PIXEL_FORMAT_UNKNOWN) req = png_has_alpha(h) ? PIXEL_FORMAT_RGBA_8888 : PIXEL_FORMAT_RGB_888;
    if (req != PIXEL_FORMAT_RGB_888 && req != PIXEL_FORMAT_RGBA_8888)
        return DV_FAIL(ACL_ERROR_FORMAT_NOT_MATCH,
                       "%s: PNG decode output format %s is not RGB_888, RGBA_8888 or UNKNOWN", api, dv_fmt_name(req));
    *out = req;
    return ACL_SUCCESS;
}

static int png_dims_ok(const char *api, const struct spng_ihdr *h)
{
    if (h->width < PNG_MIN || h->height < PNG_MIN || h->width > PNG_MAX || h->height > PNG_MAX)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: the PNG is %ux%u; PNG decode takes %dx%d to %dx%d", api, h->width,
                       h->height, PNG_MIN, PNG_MIN, PNG_MAX, PNG_MAX);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError acldvppPngGetImageInfo(const void *data, uint32_t dataSize, uint32_t *width,
                                                    uint32_t *height, int32_t *components)
{
    static const char api[] = "acldvppPngGetImageInfo";
    if (!data || dataSize == 0) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data is NULL or dataSize is 0", api);
    if (!width || !height || !components) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: an output pointer is NULL", api);
    int rc;
    spng_ctx *ctx = png_open(api, data, dataSize, 0, &rc);
    if (!ctx) return rc;
    struct spng_ihdr h;
    int32_t comp = 0;
    if (!(rc = png_ihdr(api, ctx, dataSize, &h)) && !(rc = png_components(api, &h, &comp))) {
        *width = h.width;
        *height = h.height;
        *components = comp;
    }
    spng_ctx_free(ctx);
    return rc;
}

ACL_FUNC_VISIBILITY aclError acldvppPngPredictDecSize(const void *data, uint32_t dataSize,
                                                      acldvppPixelFormat outputPixelFormat, uint32_t *decSize)
{
    static const char api[] = "acldvppPngPredictDecSize";
    if (!data || dataSize == 0) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data is NULL or dataSize is 0", api);
    if (!decSize) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: decSize is NULL", api);
    int rc;
    spng_ctx *ctx = png_open(api, data, dataSize, 0, &rc);
    if (!ctx) return rc;
    struct spng_ihdr h;
    int32_t comp;
    acldvppPixelFormat fmt = PIXEL_FORMAT_RGB_888;
    if (!(rc = png_ihdr(api, ctx, dataSize, &h)) && !(rc = png_components(api, &h, &comp)) &&
        !(rc = png_dims_ok(api, &h)) && !(rc = png_out_format(api, outputPixelFormat, &h, &fmt)))
        *decSize = dv_align(h.width, 128) * (fmt == PIXEL_FORMAT_RGB_888 ? 3u : 4u) * dv_align(h.height, 16);
    spng_ctx_free(ctx);
    return rc;
}

typedef struct {
    const uint8_t *src;
    uint32_t src_size;
    acldvppPicDesc *out_desc;
    uint8_t *out;
    uint32_t out_size;
    acldvppPixelFormat req;
} pngd_task;

static int pngd_run(void *arg)
{
    static const char api[] = "acldvppPngDecodeAsync";
    pngd_task *t = arg;
    uint8_t *img = NULL;
    int rc;
    spng_ctx *ctx = png_open(api, t->src, t->src_size, 1, &rc);
    if (!ctx) goto out;
    struct spng_ihdr h;
    int32_t comp;
    acldvppPixelFormat fmt = PIXEL_FORMAT_RGB_888;
    if ((rc = png_ihdr(api, ctx, t->src_size, &h)) || (rc = png_components(api, &h, &comp)) ||
        (rc = png_dims_ok(api, &h)) || (rc = png_out_format(api, t->req, &h, &fmt)))
        goto out;
    uint32_t bpp = fmt == PIXEL_FORMAT_RGB_888 ? 3 : 4;
    uint32_t ws = dv_align(h.width, 128) * bpp, hs = dv_align(h.height, 16);
    uint64_t need = (uint64_t)ws * hs;
    if (need > t->out_size) {
        rc = DV_FAIL(ACL_ERROR_INVALID_PARAM,
                     "%s: the %ux%u PNG decodes to %s with widthStride %u, heightStride %u = %llu bytes; the output "
                     "picture holds %u (see acldvppPngPredictDecSize)",
                     api, h.width, h.height, dv_fmt_name(fmt), ws, hs, (unsigned long long)need, t->out_size);
        goto out;
    }
    int sfmt = bpp == 3 ? SPNG_FMT_RGB8 : SPNG_FMT_RGBA8;
    size_t len = 0;
    int e = spng_decoded_image_size(ctx, sfmt, &len);
    if (!e && !(img = malloc(len))) {
        rc = DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the %ux%u picture", api, h.width, h.height);
        goto out;
    }
    if (!e) e = spng_decode_image(ctx, img, len, sfmt, bpp == 4 ? SPNG_DECODE_TRNS : 0);
    if (e) {
        rc = DV_FAIL(ACL_ERROR_FAILURE, "%s: the %ux%u PNG (%u bytes) does not decode: %s", api, h.width, h.height,
                     t->src_size, spng_strerror(e));
        goto out;
    }
    size_t row = (size_t)h.width * bpp;
    for (uint32_t y = 0; y < h.height; y++) memcpy(t->out + (size_t)y * ws, img + (size_t)y * row, row);
    t->out_desc->width = h.width;
    t->out_desc->height = h.height;
    t->out_desc->width_stride = ws;
    t->out_desc->height_stride = hs;
    t->out_desc->format = fmt;
out:
    t->out_desc->ret_code = (uint32_t)rc;
    free(img);
    if (ctx) spng_ctx_free(ctx);
    return rc;
}

ACL_FUNC_VISIBILITY aclError acldvppPngDecodeAsync(acldvppChannelDesc *channelDesc, const void *data, uint32_t size,
                                                   acldvppPicDesc *outputDesc, aclrtStream stream)
{
    static const char api[] = "acldvppPngDecodeAsync";
    int rc = openacl_ext_check_init(api);
    if (rc) return rc;
    if ((rc = dv_check_channel(api, channelDesc, DVPP_CHNMODE_PNGD))) return rc;
    if (!data || size == 0) return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: data is NULL or size is 0", api);
    if ((rc = dv_check_media_mem(api, "PNG data", data, size))) return rc;
    if (!outputDesc || outputDesc->magic != DV_MAGIC_PIC)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: outputDesc %p is not a live acldvppPicDesc", api,
                       (void *)outputDesc);
    acldvppPixelFormat f = outputDesc->format;
    if (f != PIXEL_FORMAT_RGB_888 && f != PIXEL_FORMAT_RGBA_8888 && f != PIXEL_FORMAT_UNKNOWN)
        return DV_FAIL(ACL_ERROR_FORMAT_NOT_MATCH,
                       "%s: PNG decode output format %s is not RGB_888, RGBA_8888 or UNKNOWN", api, dv_fmt_name(f));
    if (!outputDesc->data || outputDesc->size == 0)
        return DV_FAIL(ACL_ERROR_INVALID_PARAM, "%s: outputDesc has no data or size 0", api);
    if ((rc = dv_check_media_mem(api, "outputDesc data", outputDesc->data, outputDesc->size))) return rc;
    pngd_task *t = calloc(1, sizeof(*t));
    if (!t) return DV_FAIL(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the task", api);
    t->src = data;
    t->src_size = size;
    t->out_desc = outputDesc;
    t->out = outputDesc->data;
    t->out_size = outputDesc->size;
    t->req = f;
    return dv_enqueue(api, stream, pngd_run, free, t);
}
